//! The sockets a client opens, under a strict cap (ADR 0065): each holds a permit of its
//! client's budget for its whole life, from before it connects until it is closed, so a client
//! never has more than `max_connections_per_host` sockets open.
//!
//! Why a connector of our own: only the connector's socket lives exactly as long as the
//! connection, and reqwest's is sealed (ADR 0064).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http::{HeaderValue, Uri};
use hyper::rt::{Read, ReadBufCursor, Write};
use hyper_util::client::legacy::connect::proxy::Tunnel;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tower_service::Service;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

tokio::task_local! {
    /// Set while one attempt's request is in flight, on the task that awaits it.
    static ATTEMPT: Arc<Progress>;
}

/// How far one attempt got: whether a socket was connected for it (a charge's request cannot
/// have reached the service before that), or whether its call gave it up first, after which no
/// socket connects for it (ADR 0075): "not sent" then stays true.
#[derive(Default)]
pub(crate) struct Progress {
    state: AtomicU8,
}

/// `Progress::state`: no socket yet.
const CONNECTING: u8 = 0;
/// A socket was connected for the attempt: its request may have left.
const CONNECTED: u8 = 1;
/// The call gave the attempt up before any socket connected: none will.
const ABANDONED: u8 = 2;

impl Progress {
    /// Runs `request` as this attempt's: the connector it reaches marks this progress, and a
    /// connection it starts may only be made while `request` is awaited (see `ForegroundOnly`).
    pub(crate) async fn track<F: Future>(self: &Arc<Self>, request: F) -> F::Output {
        ATTEMPT.scope(Arc::clone(self), request).await
    }

    pub(crate) fn connected(&self) -> bool {
        self.state.load(Ordering::Acquire) == CONNECTED
    }

    /// Marks a socket connected for this attempt; false when the call gave the attempt up
    /// first: the socket must then be closed unused.
    pub(crate) fn connect(&self) -> bool {
        match self.state.compare_exchange(CONNECTING, CONNECTED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => true,
            Err(state) => state == CONNECTED,
        }
    }

    /// The call gives this attempt up: whether its request may have left (a socket was
    /// connected for it). When not, no socket will be: the answer stays true.
    pub(crate) fn abandon(&self) -> bool {
        match self.state.compare_exchange(CONNECTING, ABANDONED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => false,
            Err(state) => state == CONNECTED,
        }
    }
}

/// The socket permits of one client: `max_connections_per_host` in all. A quarter of them (none
/// below a cap of 4) are kept for charges, which go out on a socket of their own (ADR 0038):
/// idle pooled sockets kept warm by a steady read load would otherwise hold every permit and a
/// charge would wait out its deadline. A charge may also take a read permit that is free.
pub(crate) struct SocketBudget {
    reads: Arc<Semaphore>,
    charges: Arc<Semaphore>,
}

impl SocketBudget {
    pub(crate) fn new(cap: usize) -> Self {
        let for_charges = cap / 4;
        Self { reads: Arc::new(Semaphore::new(cap - for_charges)), charges: Arc::new(Semaphore::new(for_charges)) }
    }

    /// The permits a read's socket may take.
    pub(crate) fn for_reads(&self) -> Permits {
        Permits { first: Arc::clone(&self.reads), or: None }
    }

    /// The permits a charge's socket may take: a charge's own first, else a read's.
    pub(crate) fn for_charges(&self) -> Permits {
        Permits { first: Arc::clone(&self.charges), or: Some(Arc::clone(&self.reads)) }
    }
}

/// Where one connector takes its sockets' permits.
#[derive(Clone)]
pub(crate) struct Permits {
    first: Arc<Semaphore>,
    or: Option<Arc<Semaphore>>,
}

impl Permits {
    /// The first permit free; it waits as long as the attempt's deadline lets it.
    async fn take(&self) -> Result<OwnedSemaphorePermit, BoxError> {
        let first = Arc::clone(&self.first).acquire_owned();
        let taken = match &self.or {
            None => first.await,
            Some(or) => tokio::select! {
                biased;
                permit = first => permit,
                permit = Arc::clone(or).acquire_owned() => permit,
            },
        };
        // The semaphores are never closed.
        taken.map_err(|_| "the client's socket budget is closed".into())
    }
}

/// Opens sockets for one of a client's pools: a permit first, then TCP (through the merchant's
/// CONNECT proxy when one is set), then TLS for https, all within the connect timeout.
#[derive(Clone)]
pub(crate) struct Connector {
    tcp: HttpConnector,
    /// The proxy's address and its `Proxy-Authorization`, for https targets (ADR 0021).
    proxy: Option<(Uri, Option<HeaderValue>)>,
    tls: TlsConnector,
    connect_timeout: Duration,
    https_only: bool,
    permits: Permits,
}

/// A connection took longer than the client's `connect_timeout_ms`.
#[derive(Debug, thiserror::Error)]
#[error("connecting took longer than {0:?}")]
pub(crate) struct ConnectTimedOut(Duration);

/// A connection was started for an attempt that has since been served by another connection,
/// or has ended: it is never finished, so it never holds a permit nobody needs.
#[derive(Debug, thiserror::Error)]
#[error("connection no longer needed")]
struct NoLongerNeeded;

impl Connector {
    pub(crate) fn new(
        tls: Arc<rustls::ClientConfig>,
        proxy: Option<(Uri, Option<HeaderValue>)>,
        connect_timeout: Duration,
        https_only: bool,
        permits: Permits,
    ) -> Self {
        let mut tcp = HttpConnector::new();
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        Self { tcp, proxy, tls: TlsConnector::from(tls), connect_timeout, https_only, permits }
    }

    async fn open(mut self, dst: Uri) -> Result<Socket, BoxError> {
        // A target refused takes no permit: it must not wait for a socket it will never open.
        let https = match dst.scheme_str() {
            Some("https") => true,
            Some("http") if !self.https_only => false,
            _ => return Err("only https is allowed to this host".into()),
        };
        let permit = self.permits.take().await?;
        let connecting = async {
            let tcp = match (&self.proxy, https) {
                (Some((proxy, auth)), true) => {
                    let mut tunnel = Tunnel::new(proxy.clone(), self.tcp.clone());
                    if let Some(auth) = auth {
                        tunnel = tunnel.with_auth(auth.clone());
                    }
                    tunnel.call(dst.clone()).await?
                }
                _ => self.tcp.call(dst.clone()).await?,
            };
            if !https {
                return Ok::<_, BoxError>(Socket { io: Io::Plain(tcp), h2: false, _permit: permit });
            }
            let host = dst.host().ok_or("the URL has no host")?.trim_start_matches('[').trim_end_matches(']');
            let name = ServerName::try_from(host.to_owned())?;
            let tls = self.tls.connect(name, tcp.into_inner()).await?;
            let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
            Ok(Socket { io: Io::Tls(Box::new(TokioIo::new(tls))), h2, _permit: permit })
        };
        tokio::time::timeout(self.connect_timeout, connecting)
            .await
            .map_err(|_| ConnectTimedOut(self.connect_timeout))?
    }
}

impl Service<Uri> for Connector {
    type Response = Socket;
    type Error = BoxError;
    type Future = ForegroundOnly;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, dst: Uri) -> ForegroundOnly {
        let progress = ATTEMPT.try_with(Arc::clone).ok();
        let opening = self.clone().open(dst);
        ForegroundOnly(Box::pin(async move {
            let socket = opening.await?;
            // A call that gave the attempt up already said "not sent": the socket closes unused.
            if progress.is_some_and(|progress| !progress.connect()) {
                return Err(NoLongerNeeded.into());
            }
            Ok(socket)
        }))
    }
}

/// A connection being made, which ends as soon as it is polled outside the attempt that
/// started it. hyper-util's pool races a new connection against an idle one; when the idle one
/// wins it finishes the new one on a task of its own and pools it. Under a cap, those
/// connections would queue for permits and open long after the burst that started them, only
/// to be dropped. Without them, every socket opened serves the attempt that opened it.
pub(crate) struct ForegroundOnly(Pin<Box<dyn Future<Output = Result<Socket, BoxError>> + Send>>);

impl Future for ForegroundOnly {
    type Output = Result<Socket, BoxError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if ATTEMPT.try_with(|_| ()).is_err() {
            return Poll::Ready(Err(NoLongerNeeded.into()));
        }
        self.0.as_mut().poll(cx)
    }
}

/// An open connection and the permit it holds until it closes.
pub(crate) struct Socket {
    io: Io,
    h2: bool,
    _permit: OwnedSemaphorePermit,
}

enum Io {
    Plain(TokioIo<TcpStream>),
    // Boxed: a TLS stream's buffers would make every plain socket as large.
    Tls(Box<TokioIo<TlsStream<TcpStream>>>),
}

impl Connection for Socket {
    fn connected(&self) -> Connected {
        let connected = Connected::new();
        if self.h2 { connected.negotiated_h2() } else { connected }
    }
}

impl Read for Socket {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: ReadBufCursor<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(io) => Pin::new(io).poll_read(cx, buf),
            Io::Tls(io) => Pin::new(io.as_mut()).poll_read(cx, buf),
        }
    }
}

impl Write for Socket {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Plain(io) => Pin::new(io).poll_write(cx, buf),
            Io::Tls(io) => Pin::new(io.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(io) => Pin::new(io).poll_flush(cx),
            Io::Tls(io) => Pin::new(io.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().io {
            Io::Plain(io) => Pin::new(io).poll_shutdown(cx),
            Io::Tls(io) => Pin::new(io.as_mut()).poll_shutdown(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.io {
            Io::Plain(io) => io.is_write_vectored(),
            Io::Tls(io) => io.is_write_vectored(),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match &mut self.get_mut().io {
            Io::Plain(io) => Pin::new(io).poll_write_vectored(cx, bufs),
            Io::Tls(io) => Pin::new(io.as_mut()).poll_write_vectored(cx, bufs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// B17: the connector refuses a plain-http target where only https is allowed (behind the
    /// configuration's check) at once, even with every socket permit held: it waited for one
    /// first, until its deadline.
    #[tokio::test(start_paused = true)]
    async fn b17_a_refused_scheme_waits_for_no_socket() {
        let budget = SocketBudget::new(1);
        let tls = Arc::new(crate::tls::client_config(rustls::RootCertStore::empty()).unwrap());
        let connector = Connector::new(tls, None, Duration::from_secs(10), true, budget.for_reads());
        let _held = budget.for_reads().take().await.unwrap();
        let opened =
            tokio::time::timeout(Duration::from_secs(60), connector.open(Uri::from_static("http://sika.invalid/")));
        let refused = opened.await.expect("the refusal waited for a socket permit");
        assert_eq!(refused.err().map(|e| e.to_string()).as_deref(), Some("only https is allowed to this host"));
    }

    #[test]
    fn b191_a_quarter_of_the_cap_is_kept_for_charges() {
        for (cap, reads, charges) in [(1, 1, 0), (3, 3, 0), (4, 3, 1), (32, 24, 8), (4096, 3072, 1024)] {
            let budget = SocketBudget::new(cap);
            assert_eq!(budget.reads.available_permits(), reads, "cap {cap}");
            assert_eq!(budget.charges.available_permits(), charges, "cap {cap}");
        }
    }
}

//! The TCP listener the server runs on: a plain `tokio` listener whose connections can be
//! aborted from a handler, which is how the `reset` fault closes a connection without sending
//! a single byte of response.
//!
//! axum (hyper underneath) owns each connection's socket, so a handler cannot drop it. Instead
//! every accepted stream is wrapped in an [`AbortableStream`] that shares a small
//! [`ConnectionControl`] with the handlers (through [`PeerInfo`], the connect info of every
//! request). Once aborted, the stream sets `SO_LINGER` to zero (so closing it sends a TCP RST)
//! and fails every further read and write: hyper then gives up on the connection and drops it
//! without having written anything.
//!
//! The listener also counts connections ([`ConnectionStats`], read by
//! `GET /__sandbox/connections`), so tests can prove that a client cancelled mid-call closes
//! its connection rather than leaking it.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// What a handler can do to the connection its request arrived on.
#[derive(Debug, Default)]
pub struct ConnectionControl {
    aborted: AtomicBool,
    /// Set by the `close_after_answer` fault: close the connection once the answer is out.
    close_after_answer: AtomicBool,
    /// Set once that close was done: reads then see the end of the stream.
    closed_after_answer: AtomicBool,
}

impl ConnectionControl {
    /// Makes the connection fail from now on: no response byte will be written, and the
    /// socket is closed with a reset as soon as hyper next touches it (at the latest when it
    /// tries to write the handler's response).
    pub fn abort(&self) {
        self.aborted.store(true, Ordering::SeqCst);
    }

    fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::SeqCst)
    }

    /// Closes the connection (FIN, not a reset) once the current answer has been flushed,
    /// without a `Connection: close` header: what a proxy's keep-alive timeout does to an idle
    /// connection, made deterministic.
    pub fn close_after_answer(&self) {
        self.close_after_answer.store(true, Ordering::SeqCst);
    }
}

/// The connect info of every request: the peer's address and its connection's control.
#[derive(Debug, Clone)]
pub struct PeerInfo {
    pub addr: SocketAddr,
    pub control: Arc<ConnectionControl>,
}

/// How many connections the listener has accepted, and how many of them are still open
/// (a connection counts as closed once hyper has dropped its socket).
#[derive(Debug, Default)]
pub struct ConnectionStats {
    accepted: AtomicU64,
    closed: AtomicU64,
}

impl ConnectionStats {
    pub fn accepted(&self) -> u64 {
        self.accepted.load(Ordering::SeqCst)
    }

    pub fn open(&self) -> u64 {
        // `closed` is read first: it can only grow, so `open` is never under-counted below zero.
        let closed = self.closed.load(Ordering::SeqCst);
        self.accepted().saturating_sub(closed)
    }
}

/// Counts one connection as closed when dropped (with the stream that holds it).
struct OpenConnection(Arc<ConnectionStats>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.closed.fetch_add(1, Ordering::SeqCst);
    }
}

/// A `TcpListener` whose streams are [`AbortableStream`]s.
pub struct AbortableListener {
    inner: TcpListener,
    stats: Arc<ConnectionStats>,
}

impl AbortableListener {
    pub fn new(inner: TcpListener, stats: Arc<ConnectionStats>) -> Self {
        Self { inner, stats }
    }
}

impl Listener for AbortableListener {
    type Io = AbortableStream;
    type Addr = PeerInfo;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.inner.accept().await {
                Ok((stream, addr)) => {
                    let control = Arc::new(ConnectionControl::default());
                    self.stats.accepted.fetch_add(1, Ordering::SeqCst);
                    let open = OpenConnection(self.stats.clone());
                    let stream = AbortableStream { inner: stream, control: control.clone(), _open: open };
                    return (stream, PeerInfo { addr, control });
                }
                // A connection that died before it was accepted is not an error of ours.
                Err(err)
                    if matches!(
                        err.kind(),
                        io::ErrorKind::ConnectionRefused
                            | io::ErrorKind::ConnectionAborted
                            | io::ErrorKind::ConnectionReset
                    ) => {}
                // Out of file descriptors, say: wait for some to be released (as axum does).
                Err(err) => {
                    eprintln!("sika-sandbox: accept error: {err}");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(PeerInfo { addr: self.inner.local_addr()?, control: Arc::new(ConnectionControl::default()) })
    }
}

impl Connected<IncomingStream<'_, AbortableListener>> for PeerInfo {
    fn connect_info(stream: IncomingStream<'_, AbortableListener>) -> Self {
        stream.remote_addr().clone()
    }
}

/// A TCP stream that fails (and resets) once its [`ConnectionControl`] is aborted.
pub struct AbortableStream {
    inner: TcpStream,
    control: Arc<ConnectionControl>,
    _open: OpenConnection,
}

impl AbortableStream {
    /// `Some(error)` once aborted; also arms the reset, so that dropping the socket sends RST.
    fn aborted(&self) -> Option<io::Error> {
        if !self.control.is_aborted() {
            return None;
        }
        // Zero linger never blocks on close: the kernel discards unsent data and resets.
        let _ = self.inner.set_zero_linger();
        Some(io::Error::new(io::ErrorKind::ConnectionReset, "connection aborted by a sandbox fault"))
    }
}

impl AsyncRead for AbortableStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if let Some(err) = self.aborted() {
            return Poll::Ready(Err(err));
        }
        if self.control.closed_after_answer.load(Ordering::SeqCst) {
            // The end of the stream: hyper drops the connection, closing the socket for good
            // (a request the client writes after this never reaches a handler).
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for AbortableStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if let Some(err) = self.aborted() {
            return Poll::Ready(Err(err));
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if let Some(err) = self.aborted() {
            return Poll::Ready(Err(err));
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(err) = self.aborted() {
            return Poll::Ready(Err(err));
        }
        let flushed = Pin::new(&mut self.inner).poll_flush(cx);
        if matches!(flushed, Poll::Ready(Ok(()))) && self.control.close_after_answer.swap(false, Ordering::SeqCst) {
            // The answer is out (hyper flushes a response once it is written whole): send the
            // FIN now, and end the stream for hyper's next read.
            self.control.closed_after_answer.store(true, Ordering::SeqCst);
            return Pin::new(&mut self.inner).poll_shutdown(cx);
        }
        flushed
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if let Some(err) = self.aborted() {
            return Poll::Ready(Err(err));
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

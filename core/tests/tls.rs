//! B192: https through the SDK's own connector (ADR 0065). A TLS front on loopback, with a
//! certificate made for this run and trusted through `SSL_CERT_FILE`, passes each connection
//! on to the sandbox: HTTP/1.1 and h2 (chosen by ALPN) both carry calls and charges, and a
//! certificate for another name is refused before anything is sent.
//!
//! Each test sets process environment (`SSL_CERT_FILE`), so each runs in its own process (nextest).

mod support;

use std::sync::{Arc, Mutex};

use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use sika_core::{Client, ClientConfig, SikaError};
use support::{KEY, Sandbox, charge, transaction_object};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

/// A TLS server on loopback for `names`, offering `alpn`, that forwards each connection's
/// bytes to the sandbox; it records the protocol each connection chose.
struct TlsFront {
    url: String,
    chosen: Arc<Mutex<Vec<String>>>,
}

impl TlsFront {
    async fn start(sandbox: &Sandbox, names: &[&str], alpn: &[&[u8]]) -> Self {
        let made = rcgen::generate_simple_self_signed(names.iter().map(|name| (*name).to_owned()).collect::<Vec<_>>())
            .expect("certificate");
        // The client trusts this certificate only: the variable replaces the system's roots.
        let trusted = std::env::temp_dir().join(format!("sika-b192-{}.pem", std::process::id()));
        std::fs::write(&trusted, made.cert.pem()).expect("write the certificate");
        // SAFETY: set before any client reads it, in a process of its own (nextest).
        unsafe { std::env::set_var("SSL_CERT_FILE", &trusted) };
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(made.signing_key.serialize_der()));
        let mut config =
            rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .expect("protocol versions")
                .with_no_client_auth()
                .with_single_cert(vec![made.cert.der().clone()], key)
                .expect("server configuration");
        config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
        let acceptor = TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("https://127.0.0.1:{}", listener.local_addr().expect("address").port());
        let behind = sandbox.url.trim_start_matches("http://").to_owned();
        let chosen = Arc::new(Mutex::new(Vec::new()));
        let record = Arc::clone(&chosen);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (acceptor, behind, record) = (acceptor.clone(), behind.clone(), Arc::clone(&record));
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(stream).await else { return };
                    let protocol = tls.get_ref().1.alpn_protocol().map(|p| String::from_utf8_lossy(p).into_owned());
                    record.lock().expect("lock").push(protocol.unwrap_or_else(|| "none".into()));
                    let Ok(mut plain) = TcpStream::connect(&behind).await else { return };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                });
            }
        });
        Self { url, chosen }
    }

    fn client(&self) -> Client {
        Client::new(ClientConfig { max_retries: 0, ..ClientConfig::new(KEY, self.url.as_str()) }).expect("client")
    }

    fn chosen(&self) -> Vec<String> {
        self.chosen.lock().expect("lock").clone()
    }
}

/// Through a front that offers `offered` by ALPN: a verification, 40 concurrent ones, and a
/// charge (received once); every connection chose `chosen`.
async fn calls_and_a_charge_over(offered: &[&[u8]], chosen: &str) {
    let sandbox = Sandbox::start();
    let front = TlsFront::start(&sandbox, &["127.0.0.1"], offered).await;
    sandbox.seed_transaction(&transaction_object("B192-SEEDED", "successful", "100.10"));
    let client = front.client();
    let transaction = client.verify_transaction("B192-SEEDED").await.expect("verified over TLS");
    assert_eq!(transaction.tx_ref, "B192-SEEDED");
    let calls: Vec<_> = (0..40)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.verify_transaction("B192-SEEDED").await })
        })
        .collect();
    for call in calls {
        call.await.expect("task").expect("a concurrent call over TLS");
    }
    client.initiate_charge(&charge("B192-CHARGE", "+233244125678")).await.expect("a charge over TLS");
    let charges = sandbox.requests().iter().filter(|request| request["path"] == "/charge").count();
    assert_eq!(charges, 1, "the charge reached the service once");
    let protocols = front.chosen();
    assert!(!protocols.is_empty() && protocols.iter().all(|p| p == chosen), "{protocols:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b192_https_over_http1_carries_calls_and_charges() {
    calls_and_a_charge_over(&[b"http/1.1"], "http/1.1").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b192_https_over_h2_carries_calls_and_charges() {
    calls_and_a_charge_over(&[b"h2", b"http/1.1"], "h2").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn b192_a_certificate_for_another_name_is_refused_and_nothing_is_sent() {
    let sandbox = Sandbox::start();
    let front = TlsFront::start(&sandbox, &["sika-other-name.test"], &[b"http/1.1"]).await;
    let client = front.client();
    let read = client.verify_transaction("B192-ANY").await;
    assert!(matches!(&read, Err(SikaError::Network { reason, .. }) if reason.contains("certificate")), "{read:?}");
    // Never connected: the charge was certainly not sent, so it is not `ChargeOutcomeUnknown`.
    let charged = client.initiate_charge(&charge("B192-REFUSED", "+233244125678")).await;
    assert!(matches!(&charged, Err(SikaError::Network { .. })), "{charged:?}");
    assert!(sandbox.requests().is_empty(), "nothing reached the service: {:?}", sandbox.requests());
}

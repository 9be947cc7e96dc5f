//! Response bodies that are produced bit by bit, for the faults that misbehave *while* the
//! body is on the wire: `drip` (a few bytes every interval), `truncate` (part of the body,
//! then the connection is dropped) and `huge` (a large document generated on the fly, never
//! held in memory).
//!
//! A [`PacedReader`] is an `AsyncRead` turned into a response body by
//! `tokio_util::io::ReaderStream`. Between two chunks it returns `Pending` (waiting on a
//! timer), so hyper flushes every chunk to the socket before the next one.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::time::Sleep;
use tokio_util::io::ReaderStream;

/// How long a truncated body waits, after its last byte, before the connection is dropped
/// (long enough for hyper to have flushed what was sent).
const TRUNCATE_PAUSE: Duration = Duration::from_millis(50);

/// Chunk size for bodies that are not dripped.
pub const DEFAULT_CHUNK: usize = 64 * 1024;

/// Where the bytes come from.
#[derive(Debug)]
pub enum Source {
    Bytes(Bytes),
    Huge(HugeDocument),
}

impl Source {
    pub fn len(&self) -> u64 {
        match self {
            Self::Bytes(bytes) => u64::try_from(bytes.len()).unwrap_or(u64::MAX),
            Self::Huge(document) => document.size,
        }
    }

    /// Appends the bytes at `[from, from + count)` (within the source) to `out`.
    fn fill(&self, from: u64, count: usize, out: &mut Vec<u8>) {
        match self {
            Self::Bytes(bytes) => {
                let start = usize::try_from(from).unwrap_or(usize::MAX);
                let end = start.saturating_add(count);
                if let Some(slice) = bytes.get(start..end.min(bytes.len())) {
                    out.extend_from_slice(slice);
                }
            }
            Self::Huge(document) => document.fill(from, count, out),
        }
    }
}

/// A verify answer padded to exactly `size` bytes (or the bare minimum, if `size` is smaller):
/// `{"status":true,...,"data":{...,"padding":"xxxx...x"}}`.
#[derive(Debug)]
pub struct HugeDocument {
    size: u64,
}

const HUGE_PREFIX: &[u8] =
    br#"{"status":true,"message":"Verification successful","data":{"tx_ref":"huge","status":"successful","padding":""#;
const HUGE_SUFFIX: &[u8] = br#""}}"#;

impl HugeDocument {
    pub fn new(size: u64) -> Self {
        let minimum = (HUGE_PREFIX.len() + HUGE_SUFFIX.len()) as u64;
        Self { size: size.max(minimum) }
    }

    fn fill(&self, from: u64, count: usize, out: &mut Vec<u8>) {
        let prefix = HUGE_PREFIX.len() as u64;
        let suffix_start = self.size.saturating_sub(HUGE_SUFFIX.len() as u64);
        let end = from.saturating_add(count as u64).min(self.size);
        let mut position = from;
        while position < end {
            if position < prefix {
                // `position < prefix`, so both conversions are exact.
                let start = usize::try_from(position).unwrap_or(0);
                let stop = usize::try_from(end.min(prefix)).unwrap_or(0);
                out.extend_from_slice(HUGE_PREFIX.get(start..stop).unwrap_or_default());
                position = end.min(prefix);
            } else if position < suffix_start {
                let stop = end.min(suffix_start);
                out.resize(out.len() + usize::try_from(stop - position).unwrap_or(0), b'x');
                position = stop;
            } else {
                let start = usize::try_from(position - suffix_start).unwrap_or(0);
                let stop = usize::try_from(end - suffix_start).unwrap_or(0);
                out.extend_from_slice(HUGE_SUFFIX.get(start..stop).unwrap_or_default());
                position = end;
            }
        }
    }
}

/// Sends `source[..send]` in chunks of at most `chunk` bytes, `interval` apart; then ends the
/// body, or (`fail_at_end`) fails it so that hyper drops the connection.
pub struct PacedReader {
    source: Source,
    position: u64,
    send: u64,
    chunk: usize,
    interval: Option<Duration>,
    fail_at_end: bool,
    paused_before_failing: bool,
    sleep: Option<Pin<Box<Sleep>>>,
}

impl PacedReader {
    pub fn new(source: Source, send: u64, chunk: usize, interval: Option<Duration>, fail_at_end: bool) -> Self {
        let send = send.min(source.len());
        Self {
            source,
            position: 0,
            send,
            chunk: chunk.max(1),
            interval,
            fail_at_end,
            paused_before_failing: false,
            sleep: None,
        }
    }

    /// The response body.
    pub fn into_body(self) -> Body {
        let capacity = self.chunk.min(DEFAULT_CHUNK);
        Body::from_stream(ReaderStream::with_capacity(self, capacity))
    }
}

impl AsyncRead for PacedReader {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if let Some(sleep) = this.sleep.as_mut() {
                if sleep.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.sleep = None;
            }
            if this.position >= this.send {
                if !this.fail_at_end {
                    return Poll::Ready(Ok(()));
                }
                if !this.paused_before_failing {
                    this.paused_before_failing = true;
                    this.sleep = Some(Box::pin(tokio::time::sleep(TRUNCATE_PAUSE)));
                    continue;
                }
                return Poll::Ready(Err(io::Error::other("body cut short by a sandbox fault")));
            }
            let left = usize::try_from(this.send - this.position).unwrap_or(usize::MAX);
            let count = this.chunk.min(left).min(buf.remaining());
            if count == 0 {
                return Poll::Ready(Ok(()));
            }
            let mut bytes = Vec::with_capacity(count);
            this.source.fill(this.position, count, &mut bytes);
            if bytes.is_empty() {
                // Cannot happen (the source is at least `send` long); end rather than spin.
                return Poll::Ready(Ok(()));
            }
            buf.put_slice(&bytes);
            this.position += bytes.len() as u64;
            if let Some(interval) = this.interval {
                if this.position < this.send {
                    this.sleep = Some(Box::pin(tokio::time::sleep(interval)));
                }
            }
            return Poll::Ready(Ok(()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(document: &HugeDocument) -> Vec<u8> {
        let mut out = Vec::new();
        let mut position = 0;
        while position < document.size {
            let before = out.len();
            document.fill(position, 7, &mut out);
            position += (out.len() - before) as u64;
        }
        out
    }

    #[test]
    fn b172_a_huge_document_is_exactly_sized_json() {
        for size in [0, 10, 200, 1000, 65_537] {
            let document = HugeDocument::new(size);
            let bytes = all(&document);
            assert_eq!(bytes.len() as u64, document.size);
            assert!(document.size >= size);
            let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
            assert_eq!(value["data"]["tx_ref"], "huge", "size {size}");
        }
    }

    #[tokio::test]
    async fn b172_the_paced_reader_sends_the_prefix_then_fails() {
        use tokio::io::AsyncReadExt;
        let source = Source::Bytes(Bytes::from_static(b"0123456789"));
        let mut reader = PacedReader::new(source, 4, 3, Some(Duration::from_millis(1)), true);
        let mut out = Vec::new();
        let result = reader.read_to_end(&mut out).await;
        assert_eq!(out, b"0123");
        assert!(result.is_err());

        let source = Source::Bytes(Bytes::from_static(b"0123456789"));
        let mut reader = PacedReader::new(source, 100, 3, None, false);
        let mut out = Vec::new();
        assert_eq!(reader.read_to_end(&mut out).await.ok(), Some(10));
        assert_eq!(out, b"0123456789");
    }
}

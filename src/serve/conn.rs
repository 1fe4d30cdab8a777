//! One connection's socket, shared by hyper, which reads and writes it, and the connection's
//! watch ([`Watch::gone`]), which ends the connection when its client has gone or has stopped
//! reading. Hyper reads a connection only while it waits for a request: with pipelined requests
//! buffered it reads nothing until the first is answered, so a client that sent several and
//! left was never seen to go, and every analysis it asked for ran; and a reply that the client
//! never reads waits to be written forever. The watch sees the socket's read side close (a FIN
//! or a reset, whatever hyper has read) and a write that has made no progress for
//! [`HEAD_SECONDS`]. The socket also gives hyper's own error replies (431 for a head past its
//! bound, 400 for one it cannot read), which have no body, their one line of text.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

use super::http::{HEAD_SECONDS, MAX_HEAD_BYTES, MAX_URL_BYTES};

/// How often the watch looks at a connection whose client has bytes waiting for hyper, and at a
/// write that waits: a client gone or stalled is seen within this of the moment it shows.
const TICK: Duration = Duration::from_millis(500);

/// A connection's socket, as hyper reads and writes it.
pub(super) struct Conn {
    stream: Arc<TcpStream>,
    stall: Arc<Stall>,
    /// The rest of a reply rewritten with its text ([`with_text`]), written before anything else.
    pending: Vec<u8>,
}

/// When a write began to wait for the client to read, as milliseconds since `start` plus one
/// (0: no write waits).
struct Stall {
    start: Instant,
    since: AtomicU64,
}

impl Stall {
    fn waiting(&self) {
        let now = self.start.elapsed().as_millis() as u64 + 1;
        let _ = self.since.compare_exchange(0, now, Relaxed, Relaxed);
    }

    fn moved(&self) {
        self.since.store(0, Relaxed);
    }

    /// How long a write has waited (zero when none waits).
    fn waited(&self) -> Duration {
        match self.since.load(Relaxed) {
            0 => Duration::ZERO,
            at => self.start.elapsed().saturating_sub(Duration::from_millis(at - 1)),
        }
    }
}

/// What watches a connection: its socket and its writes' stall.
pub(super) struct Watch {
    stream: Arc<TcpStream>,
    stall: Arc<Stall>,
}

impl Conn {
    /// `stream` for hyper, and the watch of it.
    pub(super) fn new(stream: TcpStream) -> (Conn, Watch) {
        let stream = Arc::new(stream);
        let stall = Arc::new(Stall { start: Instant::now(), since: AtomicU64::new(0) });
        let watch = Watch { stream: Arc::clone(&stream), stall: Arc::clone(&stall) };
        (Conn { stream, stall, pending: Vec::new() }, watch)
    }

    /// Writes what is left of a rewritten reply; ready once it is all written.
    fn poll_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            let n = ready!(self.poll_send(cx, |s| s.try_write(&self.pending)))?;
            self.pending.drain(..n);
        }
        Poll::Ready(Ok(()))
    }

    /// One write by `write` once the socket can take it, the stall noted while it cannot.
    fn poll_send(
        &self,
        cx: &mut Context<'_>,
        write: impl Fn(&TcpStream) -> io::Result<usize>,
    ) -> Poll<io::Result<usize>> {
        loop {
            if self.stream.poll_write_ready(cx)?.is_pending() {
                self.stall.waiting();
                return Poll::Pending;
            }
            match write(&self.stream) {
                Ok(n) => {
                    self.stall.moved();
                    return Poll::Ready(Ok(n));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        loop {
            ready!(self.stream.poll_read_ready(cx))?;
            match self.stream.try_read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                // Readiness is cleared by the failed read: the next poll waits for more.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        ready!(self.poll_pending(cx))?;
        if let Some(reply) = with_text(buf) {
            // Taken whole from hyper, written from `pending`.
            self.pending = reply;
            return Poll::Ready(Ok(buf.len()));
        }
        self.poll_send(cx, |s| s.try_write(buf))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_pending(cx)
    }

    /// Everything written; the socket is closed when the connection drops it (no half-close:
    /// a close sends the same end of stream).
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_pending(cx)
    }
}

impl Watch {
    /// Returns once the client has gone (the socket's read side closed or in error: an end of
    /// stream, as hyper itself takes one, or a reset) or a write has waited [`HEAD_SECONDS`]
    /// for it to read.
    pub(super) async fn gone(&self) {
        let most = Duration::from_secs(HEAD_SECONDS);
        loop {
            match tokio::time::timeout(TICK, self.stream.ready(Interest::READABLE)).await {
                Ok(Ok(r)) if r.is_read_closed() => return,
                Ok(Err(_)) => return,
                // Bytes that hyper has not read yet (pipelined requests): readiness stays set
                // until it reads them, so looked at again after a tick rather than at once.
                Ok(Ok(_)) => tokio::time::sleep(TICK).await,
                Err(_) => {}
            }
            if self.stall.waited() >= most {
                return;
            }
        }
    }
}

/// Hyper's own error reply (a response head of status 400 or more with no body, which no route
/// of the server gives: each says what is wrong) with one line of text as its body, as every
/// other error of the server has; None for any other bytes.
fn with_text(head: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(head).ok()?;
    let code: u16 = text.strip_prefix("HTTP/1.")?.get(2..5)?.parse().ok()?;
    if code < 400 || !text.ends_with("\r\n\r\n") {
        return None;
    }
    const EMPTY: &str = "\r\ncontent-length: 0\r\n";
    let at = text.to_ascii_lowercase().find(EMPTY)?;
    let body = format!("{}\n", error_text(code));
    let mut reply = text[..at].to_string();
    reply.push_str(&format!("\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n", body.len()));
    reply.push_str(&text[at + EMPTY.len()..]);
    reply.push_str(&body);
    Some(reply.into_bytes())
}

/// The line of text of an error hyper answers itself.
fn error_text(code: u16) -> String {
    match code {
        431 => format!(
            "the request's head (its request line and headers) passes {MAX_HEAD_BYTES} bytes: at most {MAX_HEAD_BYTES} are read"
        ),
        414 => format!("the URL is too long: at most {MAX_URL_BYTES} bytes are read"),
        400 => "the request could not be read as HTTP/1.1".into(),
        505 => "only HTTP/1.1 and HTTP/1.0 are served".into(),
        _ => format!("the request could not be answered (HTTP {code})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyper_s_bodiless_error_replies_get_their_line_and_nothing_else_changes() {
        let head =
            "HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let reply = String::from_utf8(with_text(head.as_bytes()).unwrap()).unwrap();
        let (head, body) = reply.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 ") && head.ends_with("date: x"), "{head}");
        assert!(head.contains(&format!("content-length: {}", body.len())), "{head}");
        assert!(head.contains("content-type: text/plain"), "{head}");
        assert_eq!(body.lines().count(), 1, "{body}");
        assert!(body.contains("passes 8192 bytes"), "{body}");
        // A reply of the routes (a body of its own), a success, and bytes that are no head.
        for other in [
            "HTTP/1.1 404 Not Found\r\ncontent-length: 12\r\n\r\n",
            "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
            "HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nmore",
            "content-length: 0\r\n\r\n",
        ] {
            assert_eq!(with_text(other.as_bytes()), None, "{other}");
        }
    }

    #[test]
    fn a_stall_counts_from_the_first_write_that_waits_until_one_moves() {
        let s = Stall { start: Instant::now() - Duration::from_secs(3), since: AtomicU64::new(0) };
        assert_eq!(s.waited(), Duration::ZERO);
        s.waiting();
        std::thread::sleep(Duration::from_millis(20));
        s.waiting();
        assert!(s.waited() >= Duration::from_millis(20), "{:?}", s.waited());
        s.moved();
        assert_eq!(s.waited(), Duration::ZERO);
    }
}

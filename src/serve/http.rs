//! The HTTP server: hyper's HTTP/1 connections on a small tokio runtime, a listener on
//! 127.0.0.1, and the routes: the page's files and the API. Chosen over tiny_http, which
//! starts a thread for each connection, reads a request head of any size and panics when
//! the process runs out of file descriptors. Here every resource a client can take is
//! bounded: connections (the excess answered 503 and closed at once), the request head
//! ([`MAX_HEAD_BYTES`]: 414 for a long URL, 431 for long headers), the time a client may
//! take to send a head, to read a reply or hold a connection, and threads (two for all the
//! connections, the analyses' fixed pools, a thread for each Nimstring valuing, at most two); a connection whose client has gone ends at once,
//! with every analysis it waits for (`conn.rs`). A failed accept (no descriptor left) waits and
//! goes on. Requests whose `Host` is not one loopback name are refused (DNS rebinding).

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CACHE_CONTROL, CONTENT_TYPE, HOST, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{Notify, Semaphore};

use crate::game::Penalty;

use super::analyses::{Analyses, CACHED_ANSWERS, HEAVY_SLOTS, RETRY_AFTER_SECONDS};
use super::api::{self, Reply};
use super::conn::Conn;
use super::page::ASSETS;

/// Most bytes of a request's head (request line and headers): hyper answers 431 past it.
pub(crate) const MAX_HEAD_BYTES: usize = 8192;

/// Most bytes of a request's URL: 414 past it (a position's art of 16x16 takes about 1.3 KB
/// encoded).
pub(crate) const MAX_URL_BYTES: usize = 4096;

/// Seconds a client has to send a request's head once it connects or after an answer, and to
/// take some of a reply that waits to be written: an idle or slow client is closed then (a
/// browser opens a new connection when it needs one).
pub const HEAD_SECONDS: u64 = 5;

/// Threads of the runtime that carries every connection.
const IO_THREADS: usize = 2;

/// File descriptors kept for what is not a connection: the listener, the runtime's, the
/// store's files an analysis reads, the standard streams.
const RESERVED_FILES: u64 = 64;

/// Connections held at once: the file descriptors the process may open (`ulimit -n`) less
/// [`RESERVED_FILES`], at least 8 and at most 4096.
pub(crate) fn max_connections() -> usize {
    let soft = crate::support::open_files_limit().unwrap_or(1024);
    soft.saturating_sub(RESERVED_FILES).clamp(8, 4096) as usize
}

/// How the server answers.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// A store whose book answers first (opened read-only, per position).
    pub store: Option<PathBuf>,
    /// Worker threads of each solve or search.
    pub threads: usize,
    /// Analyses of more than [`HEAVY_FREE`](super::analyses::HEAVY_FREE) undrawn lines that may run at once.
    pub heavy_slots: usize,
    /// Finished answers kept for positions asked again (0: none kept).
    pub cached_answers: usize,
    /// The last-move penalty of an analysis that names none (a request's `penalty` overrides it).
    pub penalty: Penalty,
    /// Most bytes the analyses' tables may take in all, shared equally among the workers
    /// that may run at once (None: [`default_mem_limit`]).
    pub mem_limit: Option<u64>,
}

/// The share of the machine's memory the server's analyses may take by default: half.
pub(crate) fn default_mem_limit() -> u64 {
    crate::support::total_memory_bytes().map_or(4 << 30, |m| m / 2)
}

impl ServeOptions {
    /// No store, `threads` threads, the default slots and cache, the plain game.
    pub fn new(threads: usize) -> ServeOptions {
        ServeOptions {
            store: None,
            threads,
            heavy_slots: HEAVY_SLOTS,
            cached_answers: CACHED_ANSWERS,
            penalty: Penalty::NONE,
            mem_limit: None,
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Another program listens on the port.
    #[error("port {port} on 127.0.0.1 is already in use by another program")]
    Busy {
        /// The port asked for.
        port: u16,
    },
    /// The port could not be bound for another reason (a port below 1024 without the right).
    #[error("cannot listen on 127.0.0.1 port {port}: {source}")]
    Bind {
        /// The port asked for.
        port: u16,
        /// The system's error.
        source: std::io::Error,
    },
    /// The store folder is not a folder that can be read.
    #[error("store '{path}' is not a readable folder: {reason}")]
    Store {
        /// The folder given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The memory limit leaves an analysis less than the smallest search table.
    #[error(
        "a memory limit of {limit} bytes is too small: shared among the {workers} analyses that may run at once, it leaves each less than the smallest search table ({} bytes); give at least {} bytes",
        crate::answer::search::MIN_TABLE_BYTES,
        crate::answer::search::MIN_TABLE_BYTES * *workers as u64
    )]
    MemLimit {
        /// The limit asked for.
        limit: u64,
        /// The analyses that share it.
        workers: usize,
    },
    /// The HTTP layer refused the listener.
    #[error("cannot serve on {addr}: {reason}")]
    Http {
        /// The address bound.
        addr: SocketAddr,
        /// What the HTTP layer said.
        reason: String,
    },
}

/// A server bound to its port, ready to run.
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    analyses: Arc<Analyses>,
    stop: Arc<Notify>,
    counts: Arc<Counts>,
}

/// What the server has done, for a load test to read.
#[derive(Debug, Default)]
pub struct Counts {
    /// Connections accepted and served.
    pub served: AtomicU64,
    /// Connections refused at once because the server held its most.
    pub refused: AtomicU64,
    /// Accepts that failed (no file descriptor left, say) and were retried.
    pub accept_errors: AtomicU64,
}

impl ServeError {
    /// The setting refused, if one was.
    pub fn setting(&self) -> Option<crate::support::Setting> {
        match self {
            ServeError::MemLimit { .. } => Some(crate::support::Setting::MemLimit),
            ServeError::Busy { .. } | ServeError::Bind { .. } | ServeError::Store { .. } | ServeError::Http { .. } => {
                None
            }
        }
    }
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: a free port the system picks); refuses a memory limit too
    /// small for one search table an analysis, a busy port and a store that is not a readable
    /// folder.
    pub fn bind(port: u16, opts: ServeOptions) -> Result<Server, ServeError> {
        let workers = super::analyses::workers(&opts);
        if let Some(limit) = opts.mem_limit.filter(|&l| l / (workers as u64) < crate::answer::search::MIN_TABLE_BYTES) {
            return Err(ServeError::MemLimit { limit, workers });
        }
        if let Some(path) = &opts.store {
            std::fs::read_dir(path).map_err(|e| ServeError::Store { path: path.clone(), reason: e.to_string() })?;
        }
        let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|source| match source.kind() {
            std::io::ErrorKind::AddrInUse => ServeError::Busy { port },
            _ => ServeError::Bind { port, source },
        })?;
        let addr = listener.local_addr().map_err(|source| ServeError::Bind { port, source })?;
        listener.set_nonblocking(true).map_err(|e| ServeError::Http { addr, reason: e.to_string() })?;
        Ok(Server {
            listener,
            addr,
            analyses: Arc::new(Analyses::new(opts)),
            stop: Arc::new(Notify::new()),
            counts: Arc::default(),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's address, `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// What the server has done so far.
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// Threads the server holds beside the caller's: the runtime's and the analysis pools'
    /// (each analysis may start its engine's own on top, as many as `--threads`).
    pub fn threads(&self) -> usize {
        IO_THREADS + self.analyses.pool_threads()
    }

    /// Answers requests until [`Stopper::stop`] is called (forever, for `dab serve`).
    pub fn run(&self) -> Result<(), ServeError> {
        let http = |e: std::io::Error| ServeError::Http { addr: self.addr, reason: e.to_string() };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(IO_THREADS)
            .max_blocking_threads(1)
            .thread_name("dab-http")
            .enable_all()
            .build()
            .map_err(http)?;
        let listener = self.listener.try_clone().map_err(http)?;
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::from_std(listener).map_err(http)?;
            self.accept(listener).await;
            Ok(())
        })
    }

    /// The accept loop: each connection served on the runtime while a slot is free.
    async fn accept(&self, listener: tokio::net::TcpListener) {
        let slots = Arc::new(Semaphore::new(max_connections()));
        let refused = refused();
        loop {
            let accepted = tokio::select! {
                _ = self.stop.notified() => return,
                a = listener.accept() => a,
            };
            let stream = match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of descriptors (or a connection reset before it was taken): wait for
                    // one to be given back rather than spin or stop.
                    self.counts.accept_errors.fetch_add(1, Relaxed);
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                self.counts.refused.fetch_add(1, Relaxed);
                let _ = stream.try_write(&refused);
                continue;
            };
            self.counts.served.fetch_add(1, Relaxed);
            let (analyses, port) = (Arc::clone(&self.analyses), self.addr.port());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let analyses = Arc::clone(&analyses);
                    async move { Ok::<_, Infallible>(respond(request, &analyses, port).await) }
                });
                let (conn, watch) = Conn::new(stream);
                let connection = hyper::server::conn::http1::Builder::new()
                    .max_buf_size(MAX_HEAD_BYTES)
                    .timer(TokioTimer::new())
                    .header_read_timeout(Duration::from_secs(HEAD_SECONDS))
                    .serve_connection(TokioIo::new(conn), service);
                // A connection lives at most as long as the longest analysis may be waited for,
                // and no longer than its client: dropped, it drops the request it was answering
                // (whose analysis stops unless another request waits for it) and the pipelined
                // ones never read.
                let longest = Duration::from_secs_f64(api::MAX_SECONDS + 2.0 * HEAD_SECONDS as f64);
                tokio::select! {
                    _ = tokio::time::timeout(longest, connection) => {}
                    _ = watch.gone() => {}
                }
                drop(slot);
            });
        }
    }

    /// What stops [`Server::run`] from another thread.
    pub fn stopper(&self) -> Stopper {
        Stopper(Arc::clone(&self.stop))
    }
}

/// What a connection past the most held is told before it is closed.
fn refused() -> Vec<u8> {
    let body = "too many connections at once; ask again shortly\n";
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: {RETRY_AFTER_SECONDS}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Stops a running server (the benchmark's, once measured).
pub struct Stopper(Arc<Notify>);

impl Stopper {
    /// Makes [`Server::run`] return (connections already taken are dropped with the runtime).
    pub fn stop(&self) {
        self.0.notify_one();
    }
}

/// Whether `host` (a Host header) names this server by a loopback name: `localhost`,
/// `127.0.0.1` or `[::1]`, with this port or none.
fn loopback_host(host: &str, port: u16) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, p)) if !name.ends_with(':') && p.bytes().all(|b| b.is_ascii_digit()) => {
            if p.parse::<u16>() != Ok(port) {
                return false;
            }
            name
        }
        _ => host,
    };
    matches!(name.to_ascii_lowercase().as_str(), "localhost" | "127.0.0.1" | "[::1]")
}

/// The reply to one request.
async fn route(request: &Request<Incoming>, analyses: &Arc<Analyses>, port: u16) -> Reply {
    let url = request.uri().path_and_query().map_or("/", |p| p.as_str());
    // One Host, a loopback name: without one (or with two, of which a proxy and the server
    // might each read another) the server cannot tell it is the one meant.
    let mut hosts = request.headers().get_all(HOST).iter().map(|h| h.to_str().unwrap_or(""));
    match (hosts.next(), hosts.next()) {
        (None, _) => {
            return Reply::error(
                400,
                "the request names no Host: it must name this server (localhost, 127.0.0.1 or [::1])".into(),
            );
        }
        (Some(_), Some(_)) => {
            return Reply::error(400, "the request names its Host more than once: it must name one".into());
        }
        (Some(host), None) if !loopback_host(host, port) => {
            return Reply::error(
                403,
                format!("Host '{host}' is not this server: it answers only to localhost, 127.0.0.1 and [::1]"),
            );
        }
        (Some(_), None) => {}
    }
    if url.len() > MAX_URL_BYTES {
        return Reply::error(414, format!("the URL has {} bytes; at most {MAX_URL_BYTES} are read", url.len()));
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if request.method() != Method::GET && request.method() != Method::HEAD {
        Reply::error(405, format!("{} is not served: only GET", request.method()))
    } else if let Some(asset) = ASSETS.iter().find(|a| a.path == path) {
        Reply { status: 200, content_type: asset.content_type, body: asset.body.to_string(), retry_after: None }
    } else {
        match path {
            "/api/analyse" => api::analyse(query, analyses).await,
            "/api/review" => api::review(query, analyses).await,
            "/api/position" => api::position_reply(query),
            "/api/nimstring" => api::nimstring(query, analyses).await,
            _ => Reply::error(404, format!("no such page: {path}")),
        }
    }
}

async fn respond(request: Request<Incoming>, analyses: &Arc<Analyses>, port: u16) -> Response<Full<Bytes>> {
    let reply = route(&request, analyses, port).await;
    let mut response = Response::new(Full::new(Bytes::from(reply.body)));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, hyper::header::HeaderValue::from_static(reply.content_type));
    headers.insert(CACHE_CONTROL, hyper::header::HeaderValue::from_static("no-store"));
    if let Some(seconds) = reply.retry_after {
        headers.insert(RETRY_AFTER, seconds.into());
    }
    response
}

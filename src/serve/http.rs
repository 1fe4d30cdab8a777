//! The HTTP server: a listener on 127.0.0.1, one thread per request (so a long analysis holds
//! only its own request), and the routes: the page's files and the API.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;

use tiny_http::{Header, Method, Request, Response};

use crate::game::Penalty;

use super::analyses::{Analyses, CACHED_ANSWERS, HEAVY_SLOTS};
use super::api::{self, Reply};
use super::page::ASSETS;

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
    http: Arc<tiny_http::Server>,
    addr: SocketAddr,
    analyses: Arc<Analyses>,
}

impl Server {
    /// Binds 127.0.0.1:`port` (0: a free port the system picks); refuses a busy port and a
    /// store that is not a readable folder.
    pub fn bind(port: u16, opts: ServeOptions) -> Result<Server, ServeError> {
        if let Some(path) = &opts.store {
            std::fs::read_dir(path).map_err(|e| ServeError::Store { path: path.clone(), reason: e.to_string() })?;
        }
        let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|source| match source.kind() {
            std::io::ErrorKind::AddrInUse => ServeError::Busy { port },
            _ => ServeError::Bind { port, source },
        })?;
        let addr = listener.local_addr().map_err(|source| ServeError::Bind { port, source })?;
        let http = tiny_http::Server::from_listener(listener, None)
            .map_err(|e| ServeError::Http { addr, reason: e.to_string() })?;
        Ok(Server { http: Arc::new(http), addr, analyses: Arc::new(Analyses::new(opts)) })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's address, `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Answers requests until [`Stopper::stop`] is called (forever, for `dab serve`), each on
    /// a thread of its own.
    pub fn run(&self) {
        for request in self.http.incoming_requests() {
            let analyses = Arc::clone(&self.analyses);
            // A thread per request: a request waiting for an analysis blocks nobody else.
            std::thread::spawn(move || handle(request, &analyses));
        }
    }

    /// What stops [`Server::run`] from another thread.
    pub fn stopper(&self) -> Stopper {
        Stopper(Arc::clone(&self.http))
    }
}

/// Stops a running server (the benchmark's, once measured).
pub struct Stopper(Arc<tiny_http::Server>);

impl Stopper {
    /// Makes [`Server::run`] return; requests already taken are still answered.
    pub fn stop(&self) {
        self.0.unblock();
    }
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("ASCII header")
}

fn handle(request: Request, analyses: &Arc<Analyses>) {
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let reply = if *request.method() != Method::Get && *request.method() != Method::Head {
        Reply::error(405, format!("{} is not served: only GET", request.method()))
    } else if let Some(asset) = ASSETS.iter().find(|a| a.path == path) {
        Reply { status: 200, content_type: asset.content_type, body: asset.body.to_string() }
    } else {
        match path {
            "/api/analyse" => api::analyse(query, analyses),
            "/api/position" => api::position_reply(query),
            _ => Reply::error(404, format!("no such page: {path}")),
        }
    };
    let response = Response::from_string(reply.body)
        .with_status_code(reply.status)
        .with_header(header("Content-Type", reply.content_type))
        .with_header(header("Cache-Control", "no-store"));
    // A client that went away before its answer is no error of the server's.
    let _ = request.respond(response);
}

//! The page's files, embedded in the binary: no build step, nothing fetched at run time.

/// One file of the page.
#[derive(Clone, Copy, Debug)]
pub struct Asset {
    /// Where it is served.
    pub path: &'static str,
    /// Its content type.
    pub content_type: &'static str,
    /// Its text.
    pub body: &'static str,
}

/// The page and the files it loads, the page first.
pub const ASSETS: [Asset; 3] = [
    Asset { path: "/", content_type: "text/html; charset=utf-8", body: include_str!("page/index.html") },
    Asset { path: "/style.css", content_type: "text/css; charset=utf-8", body: include_str!("page/style.css") },
    Asset { path: "/app.js", content_type: "text/javascript; charset=utf-8", body: include_str!("page/app.js") },
];

//! The built UI, embedded at build time from `ui/dist` (see build.rs). Without a built UI the
//! server answers every page with a note saying so; the API still works.

use axum::http::{header, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// The embedded file at `path` (without the leading `/`).
pub fn asset(path: &str) -> Option<&'static [u8]> {
    ASSETS.iter().find(|(p, _)| *p == path).map(|(_, b)| *b)
}

const NOT_BUILT: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Pi Session Explorer</title></head>\
<body><h1>The UI was not built</h1><p>This <code>pi-session</code> was compiled without <code>ui/dist</code>. \
Run <code>npm --prefix ui ci &amp;&amp; npm --prefix ui run build</code>, then build <code>pi-session</code> again. \
The JSON API under <code>/api/</code> works without it.</p></body></html>";

pub(crate) async fn handle(uri: Uri) -> Response {
    if ASSETS.is_empty() {
        return (StatusCode::SERVICE_UNAVAILABLE, Html(NOT_BUILT)).into_response();
    }
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    match asset(path) {
        Some(bytes) => {
            let cache = if path.starts_with("assets/") { "public, max-age=31536000, immutable" } else { "no-cache" };
            ([(header::CONTENT_TYPE, content_type(path)), (header::CACHE_CONTROL, cache)], bytes).into_response()
        }
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

//! The built UI, embedded at build time from `ui/dist` (rust-embed; content
//! types by mime_guess). Without a built UI the server answers every page with a note saying so; the API still works.

use axum::http::{header, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Response};

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// The built UI (`ui/dist`), in the binary.
#[derive(rust_embed::RustEmbed)]
#[folder = "../../ui/dist"]
struct Ui;

/// The embedded file at `path` (without the leading `/`).
pub fn asset(path: &str) -> Option<std::borrow::Cow<'static, [u8]>> {
    Ui::get(path).map(|f| f.data)
}

/// The UI was built into this binary.
pub fn is_built() -> bool {
    Ui::get("index.html").is_some()
}

/// The paths of every embedded file.
pub fn paths() -> Vec<String> {
    Ui::iter().map(|p| p.into_owned()).collect()
}

const NOT_BUILT: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Pi Session Explorer</title></head>\
<body><h1>The UI was not built</h1><p>This <code>pi-session</code> was compiled without <code>ui/dist</code>. \
Run <code>npm --prefix ui ci &amp;&amp; npm --prefix ui run build</code>, then build <code>pi-session</code> again. \
The JSON API under <code>/api/</code> works without it.</p></body></html>";

pub(crate) async fn handle(uri: Uri) -> Response {
    if !is_built() {
        return (StatusCode::SERVICE_UNAVAILABLE, Html(NOT_BUILT)).into_response();
    }
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    match asset(path) {
        Some(bytes) => {
            let cache = if path.starts_with("assets/") { "public, max-age=31536000, immutable" } else { "no-cache" };
            let mime = mime_guess::from_path(path).first_or_octet_stream();
            let mime = if mime.type_() == mime_guess::mime::TEXT || mime.subtype() == mime_guess::mime::JAVASCRIPT { format!("{mime}; charset=utf-8") } else { mime.to_string() };
            ([(header::CONTENT_TYPE, mime), (header::CACHE_CONTROL, cache.to_string())], bytes).into_response()
        }
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

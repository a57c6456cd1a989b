//! What every request passes: the `Host` check (when bound to loopback), the token, and the
//! response headers (the window's CSP and friends).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::{ServeError, Shared};

/// The cookie that carries the token once the URL with `?token=` was opened.
pub const COOKIE: &str = "pi_session_token";

/// 32 bytes from the OS random generator, as hex.
pub fn new_token() -> Result<String, ServeError> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(|e| ServeError::Random(e.to_string()))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Equal strings, in time that does not depend on where they differ.
pub fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    if given.len() != expected.len() {
        return false;
    }
    let diff = given.iter().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b));
    std::hint::black_box(diff) == 0
}

/// True for `localhost`, `127.0.0.1`, `[::1]` (with or without a port).
pub fn is_local_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((h, port)) if port.is_empty() || port.starts_with(':') => return h == "::1",
            _ => return false,
        }
    } else {
        host.split(':').next().unwrap_or("")
    };
    let name = name.to_ascii_lowercase();
    name == "localhost" || name == "127.0.0.1"
}

fn token_from_query(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|kv| kv.strip_prefix("token="))
}

fn token_from_headers(req: &Request) -> Option<String> {
    let h = req.headers();
    if let Some(v) = h.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        if let Some(t) = v.strip_prefix("Bearer ") {
            return Some(t.trim().to_string());
        }
    }
    for v in h.get_all(header::COOKIE) {
        let Ok(s) = v.to_str() else { continue };
        for part in s.split(';') {
            if let Some(t) = part.trim().strip_prefix(COOKIE).and_then(|r| r.strip_prefix('=')) {
                return Some(t.to_string());
            }
        }
    }
    None
}

fn refuse(status: StatusCode, code: &str, message: &str) -> Response {
    (status, Json(serde_json::json!({ "code": code, "message": message }))).into_response()
}

/// The `Host` check, then the token: `Authorization: Bearer`, the cookie, or `?token=` on a page
/// load (which sets the cookie and redirects to the same page without the token).
pub(crate) async fn check(State(st): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if st.loopback_only {
        let host = req.headers().get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !is_local_host(host) {
            return refuse(StatusCode::FORBIDDEN, "forbidden-host", "this server only answers to localhost, 127.0.0.1 or [::1]");
        }
    }
    let expected = st.token.as_bytes();
    if let Some(t) = token_from_headers(&req) {
        if same_secret(t.as_bytes(), expected) {
            return next.run(req).await;
        }
    }
    if req.method() == axum::http::Method::GET {
        if let Some(t) = token_from_query(req.uri().query()) {
            if same_secret(t.as_bytes(), expected) {
                let cookie = format!("{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict", st.token);
                let to = req.uri().path().to_string();
                return (StatusCode::SEE_OTHER, [(header::SET_COOKIE, cookie), (header::LOCATION, to)]).into_response();
            }
        }
    }
    refuse(StatusCode::UNAUTHORIZED, "unauthorized", "open the URL that `pi-session serve` printed (it carries the token)")
}

/// The window's CSP (tauri.conf.json), with `connect-src 'self'` in place of the window's IPC
/// sources: the page talks to this server instead.
pub fn csp() -> String {
    crate::assets::WINDOW_CSP
        .iter()
        .map(|(k, v)| if *k == "connect-src" { format!("{k} 'self'") } else { format!("{k} {v}") })
        .collect::<Vec<_>>()
        .join("; ")
}

pub(crate) async fn headers(req: Request, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&csp()) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    // The first URL carries the token: never send it on as a referrer.
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if api {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_hosts() {
        for h in ["localhost", "localhost:8765", "127.0.0.1", "127.0.0.1:1", "[::1]", "[::1]:8765", "LOCALHOST:1"] {
            assert!(is_local_host(h), "{h}");
        }
        for h in ["", "evil.com", "evil.com:8765", "127.0.0.1.evil.com", "localhost.evil.com:80", "[::2]:1", "[::1]x", "10.0.0.1:8765"] {
            assert!(!is_local_host(h), "{h}");
        }
    }

    #[test]
    fn secrets() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abd", b"abc"));
        assert!(!same_secret(b"ab", b"abc"));
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
    }

    #[test]
    fn csp_is_the_windows_with_self_connect() {
        let c = csp();
        assert!(c.contains("default-src 'self'"), "{c}");
        assert!(c.contains("script-src 'self'"), "{c}");
        assert!(c.contains("connect-src 'self'"), "{c}");
        assert!(!c.contains("ipc:"), "{c}");
    }
}

//! What every request passes: the `Host` check (when bound to loopback); then, on `/api/`,
//! the request's origin (`Origin`, `Sec-Fetch-Site`), the token and, for a command, a JSON body.
//! The page (the HTML shell and its assets) needs no token and holds none. Then the response
//! headers (the window's CSP and friends).
//!
//! The token is accepted only as `Authorization: Bearer TOKEN`: nothing a browser sends by
//! itself (a cookie, a URL) grants anything, so a page of another origin, even on another port
//! of 127.0.0.1 (browsers do not separate cookies by port), has nothing to replay.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::conns::Conn;
use crate::{ServeError, Shared};

/// 32 bytes from the OS random generator, as hex.
pub fn new_token() -> Result<String, ServeError> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b).map_err(|e| ServeError::Random(e.to_string()))?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

/// Equal secrets, in time that does not depend on where they differ.
pub fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.ct_eq(expected).into()
}

/// The token of an `Authorization` value: the `Bearer` scheme (in any case), then the token.
pub fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once([' ', '\t'])?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// A `Host` split into its name (an IPv6 address keeps its brackets) and port; `None` when the
/// port is not 1 to 5 digits.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = match host.rfind(']') {
        Some(end) if host.starts_with('[') => match &host[end + 1..] {
            "" => (host, None),
            rest => (&host[..=end], Some(rest.strip_prefix(':')?)),
        },
        _ => match host.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (host, None),
        },
    };
    let port = match port {
        None => None,
        Some(p) if (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some((name, port))
}

/// True when `host` (a `Host` header) names this server bound on a loopback address: the name
/// `localhost`, `127.0.0.1`, `[::1]` or the bound address itself, with a port of digits or
/// none. The port may differ from the bound one: a tunnel (`ssh -L 9000:localhost:8765`)
/// forwards another local port, and the browser names that one. A page of another origin is
/// refused by the origin check and the token, not by the port.
pub fn host_allowed(host: &str, bound: SocketAddr) -> bool {
    let Some((name, _port)) = split_host(host) else { return false };
    if name.eq_ignore_ascii_case("localhost") {
        return true;
    }
    let ip = match name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
        Some(v6) => v6.parse::<Ipv6Addr>().ok().map(IpAddr::V6),
        None => name.parse::<Ipv4Addr>().ok().map(IpAddr::V4),
    };
    ip.is_some_and(|ip| ip == Ipv4Addr::LOCALHOST || ip == Ipv6Addr::LOCALHOST || ip == bound.ip())
}

fn header_str<'a>(h: &'a HeaderMap, name: header::HeaderName) -> Option<&'a str> {
    h.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

/// Refuses a request that a page of another origin sent: an `Origin` other than this server's
/// (`http://` or `https://` and the `Host` it was sent to), or a `Sec-Fetch-Site` of
/// `cross-site` or `same-site` (another port of the same host is the same site).
pub fn same_origin(h: &HeaderMap) -> Result<(), ServeError> {
    if let Some(site) = header_str(h, header::HeaderName::from_static("sec-fetch-site")) {
        if site.eq_ignore_ascii_case("cross-site") || site.eq_ignore_ascii_case("same-site") {
            return Err(ServeError::ForbiddenOrigin(format!("Sec-Fetch-Site: {site}")));
        }
    }
    if let Some(origin) = header_str(h, header::ORIGIN) {
        let host = header_str(h, header::HOST).unwrap_or("").to_ascii_lowercase();
        let o = origin.to_ascii_lowercase();
        let own = |scheme: &str| !host.is_empty() && o.strip_prefix(scheme) == Some(host.as_str());
        if !own("http://") && !own("https://") {
            return Err(ServeError::ForbiddenOrigin(format!("Origin: {origin}")));
        }
    }
    Ok(())
}

/// True when `Content-Type` is `application/json` (with any parameters).
pub fn is_json(h: &HeaderMap) -> bool {
    header_str(h, header::CONTENT_TYPE).is_some_and(|ct| ct.split(';').next().unwrap_or("").trim().eq_ignore_ascii_case("application/json"))
}

/// The `Host` check, then for `/api/`: the origin, the token (`Authorization: Bearer` only) and
/// a JSON body for a command. A request that passes marks its connection authenticated.
pub(crate) async fn check(State(st): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let h = req.headers();
    if st.bound.ip().is_loopback() && !host_allowed(header_str(h, header::HOST).unwrap_or(""), st.bound) {
        return ServeError::ForbiddenHost.into_response();
    }
    if !req.uri().path().starts_with("/api/") {
        return next.run(req).await;
    }
    if let Err(e) = same_origin(h) {
        return e.into_response();
    }
    let token = header_str(h, header::AUTHORIZATION).and_then(bearer);
    if !token.is_some_and(|t| same_secret(t.as_bytes(), st.token.as_bytes())) {
        return ServeError::Unauthorized.into_response();
    }
    if let Some(conn) = req.extensions().get::<Arc<Conn>>() {
        conn.authenticated();
    }
    if req.method() == Method::POST && !is_json(h) {
        return ServeError::UnsupportedMediaType(header_str(h, header::CONTENT_TYPE).unwrap_or("none").to_string()).into_response();
    }
    next.run(req).await
}

/// The window's CSP (tauri.conf.json), with `connect-src 'self'` in place of the window's IPC
/// sources (the page talks to this server instead), and `frame-ancestors 'none'`.
pub fn csp() -> String {
    crate::assets::WINDOW_CSP
        .iter()
        .map(|(k, v)| if *k == "connect-src" { format!("{k} 'self'") } else { format!("{k} {v}") })
        .chain(std::iter::once("frame-ancestors 'none'".to_string()))
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
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    // No other origin may embed a response (a `no-cors` read) or keep a handle on the window.
    h.insert(header::HeaderName::from_static("cross-origin-resource-policy"), HeaderValue::from_static("same-origin"));
    h.insert(header::HeaderName::from_static("cross-origin-opener-policy"), HeaderValue::from_static("same-origin"));
    if api {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_hosts_with_any_port() {
        let bound: SocketAddr = "127.0.0.1:8765".parse().unwrap();
        // Any port of digits (a tunnel forwards another local port), or none.
        for h in ["localhost:8765", "127.0.0.1:8765", "[::1]:8765", "LOCALHOST:8765", "[0:0:0:0:0:0:0:1]:8765", "localhost:9000", "127.0.0.1:1", "localhost", "127.0.0.1", "[::1]"] {
            assert!(host_allowed(h, bound), "{h}");
        }
        for h in [
            "", "evil.com", "evil.com:8765", "127.0.0.1.evil.com:8765", "localhost.evil.com:8765", "[::2]:8765", "[::1]x", "[::1]:", "10.0.0.1:8765",
            // A port is 1 to 5 digits.
            "localhost:evil", "localhost:", "localhost:+8765", "localhost:08765x", "127.0.0.1:999999", "localhost:8765:1",
            // Another loopback address than the bound one.
            "127.0.0.2:8765",
        ] {
            assert!(!host_allowed(h, bound), "{h}");
        }
        // The bound address itself: `--listen 127.0.0.2:0` prints a URL with it.
        let other: SocketAddr = "127.0.0.2:4000".parse().unwrap();
        assert!(host_allowed("127.0.0.2:4000", other));
        assert!(host_allowed("localhost:4000", other));
        assert!(!host_allowed("127.0.0.3:4000", other));
        let v6: SocketAddr = "[::1]:4000".parse().unwrap();
        assert!(host_allowed("[::1]:4000", v6) && host_allowed("[0::1]:4000", v6) && !host_allowed("[::2]:4000", v6));
    }

    #[test]
    fn bearer_scheme_in_any_case() {
        assert_eq!(bearer("Bearer abc"), Some("abc"));
        assert_eq!(bearer("bearer abc"), Some("abc"));
        assert_eq!(bearer("BEARER\tabc "), Some("abc"));
        assert_eq!(bearer("Basic abc"), None);
        assert_eq!(bearer("Bearerabc"), None);
        assert_eq!(bearer("abc"), None);
    }

    #[test]
    fn origins() {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_static("127.0.0.1:8765"));
        assert!(same_origin(&h).is_ok(), "no Origin: not a browser's cross-origin request");
        for (o, ok) in [("http://127.0.0.1:8765", true), ("HTTP://127.0.0.1:8765", true), ("https://127.0.0.1:8765", true), ("http://127.0.0.1:9999", false), ("http://localhost:8765", false), ("null", false), ("http://127.0.0.1:8765.evil.com", false)] {
            h.insert(header::ORIGIN, HeaderValue::from_static(o));
            assert_eq!(same_origin(&h).is_ok(), ok, "{o}");
        }
        h.remove(header::ORIGIN);
        for (site, ok) in [("same-origin", true), ("none", true), ("same-site", false), ("cross-site", false), ("Cross-Site", false)] {
            h.insert("sec-fetch-site", HeaderValue::from_static(site));
            assert_eq!(same_origin(&h).is_ok(), ok, "{site}");
        }
    }

    #[test]
    fn json_content_types() {
        let mut h = HeaderMap::new();
        assert!(!is_json(&h));
        for (ct, ok) in [("application/json", true), ("Application/JSON; charset=utf-8", true), ("text/plain", false), ("text/plain;charset=UTF-8", false), ("application/x-www-form-urlencoded", false), ("multipart/form-data; boundary=x", false), ("application/jsonx", false)] {
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
            assert_eq!(is_json(&h), ok, "{ct}");
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
        assert!(c.contains("frame-ancestors 'none'"), "{c}");
        assert!(!c.contains("ipc:"), "{c}");
        // Session images are decoded into blob: URLs; nothing remote is ever loaded.
        assert!(c.contains("img-src 'self' data: blob:;"), "{c}");
        assert!(!c.contains("http"), "{c}");
    }
}

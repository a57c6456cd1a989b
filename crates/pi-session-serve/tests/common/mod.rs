//! Helpers of the server's integration tests: a real server on 127.0.0.1:0 over a copy of the
//! demo sessions, and a minimal HTTP/1.1 client.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};

// The repository root, a recursive copy and the process's private cache folder, as the core's
// tests have them.
#[path = "../../../pi-session/tests/common/mod.rs"]
mod shared;
#[allow(unused_imports)] // (not every test file uses all three)
pub use shared::{copy_tree, private_cache, repo_root};

/// Every file under `dir` with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(d: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut m = BTreeMap::new();
    walk(dir, &mut m);
    m
}

pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    pub fn code(&self) -> String {
        self.json()["code"].as_str().unwrap_or_default().to_string()
    }
}

/// One request; `headers` are added after `Host` and before `Content-Type: application/json`
/// (unless they hold a `Host` or a `Content-Type`).
pub fn request(addr: SocketAddr, method: &str, target: &str, headers: &[(&str, &str)], body: &str) -> Resp {
    let mut s = TcpStream::connect(addr).unwrap();
    let has = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    let mut req = format!("{method} {target} HTTP/1.1\r\n");
    if !has("host") {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !has("content-type") {
        req.push_str("Content-Type: application/json\r\n");
    }
    req.push_str(&format!("Connection: close\r\nContent-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    parse_response(&raw)
}

/// A response as read from the socket (the whole of it).
pub fn parse_response(raw: &[u8]) -> Resp {
    let text = String::from_utf8_lossy(raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(body) } else { body.to_string() };
    Resp { status, headers, body }
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// `POST /api/<command>` with the token.
pub fn api(addr: SocketAddr, token: &str, command: &str, args: serde_json::Value) -> Resp {
    let auth = format!("Bearer {token}");
    request(addr, "POST", &format!("/api/{command}"), &[("Authorization", &auth)], &args.to_string())
}

/// The id of the last entry line of a session file.
pub fn last_id(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let v: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    v["id"].as_str().unwrap().to_string()
}

/// The session files under `dir`, sorted.
pub fn session_files(dir: &Path) -> Vec<PathBuf> {
    snapshot(dir).into_keys().filter(|p| p.extension().is_some_and(|e| e == "jsonl")).collect()
}

/// Reads one response from a kept-alive connection (its headers, then `Content-Length` bytes).
pub fn read_response(s: &mut TcpStream) -> Resp {
    let mut raw = Vec::new();
    let mut b = [0u8; 4096];
    let head_end = loop {
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        let n = s.read(&mut b).unwrap();
        assert!(n > 0, "the connection closed before a response: {}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&b[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..head_end]).to_ascii_lowercase();
    let len: usize = head.lines().find_map(|l| l.strip_prefix("content-length:")).map(|v| v.trim().parse().unwrap()).unwrap_or(0);
    while raw.len() < head_end + len {
        let n = s.read(&mut b).unwrap();
        assert!(n > 0, "the connection closed inside a response");
        raw.extend_from_slice(&b[..n]);
    }
    parse_response(&raw[..head_end + len])
}

/// `POST /api/<command>` with the token on a kept-alive connection.
pub fn api_on(s: &mut TcpStream, addr: SocketAddr, token: &str, command: &str, args: serde_json::Value) -> Resp {
    let body = args.to_string();
    write!(s, "POST /api/{command} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    read_response(s)
}

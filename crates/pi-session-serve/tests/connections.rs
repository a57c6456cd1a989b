//! Slow and idle clients, against a real server on 127.0.0.1:0: headers that never finish are
//! cut off after the header timeout; beside 1,000 idle half-sent connections the token holder
//! is still answered within a second; at the cap on connections the ones that never
//! authenticated go first. Every file is byte-identical afterwards.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;
use pi_session_serve::{Config, Server, DEFAULT_HEADER_TIMEOUT};
use serde_json::json;

fn fixture() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    private_cache();
    let root = tmp.path().join("sessions");
    copy_tree(&repo_root().join("demo/sessions"), &root);
    (tmp, root)
}

fn start(root: &Path, header_timeout: Duration, max_connections: Option<usize>) -> Server {
    let mut cfg = Config::new(root.to_path_buf());
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    cfg.allow_writes = true;
    cfg.watch = false;
    cfg.header_timeout = header_timeout;
    cfg.max_connections = max_connections;
    Server::start(cfg).unwrap()
}

/// A connection that sends the start of a request and never finishes its headers.
fn half_sent(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(s, "GET / HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").unwrap();
    s
}

/// How long until the server closes `s` (reads return 0 or fail), at most `limit`.
fn closed_after(s: &mut TcpStream, limit: Duration) -> Option<Duration> {
    closed_since(s, Instant::now(), limit)
}

/// When the server closed `s`, counted from `t0`; `None` when it is still open at `t0 + limit`.
fn closed_since(s: &mut TcpStream, t0: Instant, limit: Duration) -> Option<Duration> {
    s.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let mut b = [0u8; 1024];
    while t0.elapsed() < limit {
        match s.read(&mut b) {
            Ok(0) => return Some(t0.elapsed()),
            // A timeout is the server's doing too: it answers 408 then closes.
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => return Some(t0.elapsed()),
        }
    }
    None
}

/// True while the server keeps `s` open (nothing to read yet).
fn still_open(s: &mut TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_millis(30))).unwrap();
    matches!(s.read(&mut [0u8; 64]), Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut))
}

#[test]
fn headers_that_never_finish_are_cut_off() {
    // The default, as `pi-session serve` runs.
    assert_eq!(DEFAULT_HEADER_TIMEOUT, Duration::from_secs(10));
    assert_eq!(Config::new(PathBuf::from("/x")).header_timeout, DEFAULT_HEADER_TIMEOUT);

    let (_tmp, root) = fixture();
    let before = snapshot(&root);
    let timeout = Duration::from_millis(300);
    let s = start(&root, timeout, None);
    let a = s.addr();
    let t0 = Instant::now();
    let mut half = half_sent(a);
    let mut silent = TcpStream::connect(a).unwrap();
    // Half a request with the token: the token does not buy time before the headers are in.
    let mut with_token = TcpStream::connect(a).unwrap();
    write!(with_token, "POST /api/list_sessions HTTP/1.1\r\nHost: {a}\r\nAuthorization: Bearer {}\r\n", s.token()).unwrap();
    for (name, c) in [("half-sent headers", &mut half), ("nothing sent", &mut silent), ("half-sent with the token", &mut with_token)] {
        let t = closed_since(c, t0, Duration::from_secs(5)).unwrap_or_else(|| panic!("{name}: still open after 5 s"));
        assert!(t >= timeout - Duration::from_millis(50) && t < Duration::from_secs(3), "{name}: closed after {t:?}");
    }
    // Trickling a byte at a time does not reset the clock.
    let mut trickle = half_sent(a);
    let t0 = Instant::now();
    let mut closed = false;
    while t0.elapsed() < Duration::from_secs(3) {
        if trickle.write_all(b"x").is_err() || !still_open(&mut trickle) {
            closed = true;
            break;
        }
    }
    assert!(closed, "a trickling client was not cut off");
    // A complete request is answered as usual.
    assert_eq!(api(a, s.token(), "app_info", json!({})).status, 200);
    s.stop();
    assert_eq!(snapshot(&root), before, "files changed");
}

#[test]
fn beside_a_thousand_idle_connections_the_token_holder_is_answered_within_a_second() {
    let (_tmp, root) = fixture();
    let before = snapshot(&root);
    // The default cap (below the open-file limit), the default header timeout.
    let s = start(&root, DEFAULT_HEADER_TIMEOUT, None);
    let a = s.addr();
    let t0 = Instant::now();
    let idle: Vec<TcpStream> = (0..1000).map(|_| half_sent(a)).collect();
    println!("1,000 half-sent connections opened in {:?}", t0.elapsed());
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    let r = api(a, s.token(), "list_sessions", json!({"limit": 5}));
    let took = t.elapsed();
    println!("the token holder's list_sessions beside them: {took:?}");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(took < Duration::from_secs(1), "answered after {took:?}");
    drop(idle);
    s.stop();
    assert_eq!(snapshot(&root), before, "files changed");
}

#[test]
fn at_the_cap_connections_that_never_authenticated_go_first() {
    let (_tmp, root) = fixture();
    let before = snapshot(&root);
    let s = start(&root, Duration::from_secs(30), Some(4));
    let (a, t) = (s.addr(), s.token().to_string());
    // One kept-alive connection of the token holder, then three that never send their headers.
    let mut mine = TcpStream::connect(a).unwrap();
    assert_eq!(api_on(&mut mine, a, &t, "app_info", json!({})).status, 200);
    let mut u1 = half_sent(a);
    let mut u2 = half_sent(a);
    let mut u3 = half_sent(a);
    std::thread::sleep(Duration::from_millis(100));
    assert!(still_open(&mut u1) && still_open(&mut u2) && still_open(&mut u3));
    // At the cap: a fourth unauthenticated one evicts the oldest unauthenticated, u1.
    let mut u4 = half_sent(a);
    assert!(closed_after(&mut u1, Duration::from_secs(2)).is_some(), "u1 was not evicted");
    assert!(still_open(&mut u2) && still_open(&mut u3) && still_open(&mut u4));
    assert_eq!(api_on(&mut mine, a, &t, "app_info", json!({})).status, 200, "the token holder's connection stays");
    // A new connection of the token holder evicts u2 and is answered.
    let r = api(a, &t, "list_sessions", json!({"limit": 2}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(closed_after(&mut u2, Duration::from_secs(2)).is_some(), "u2 was not evicted");
    assert!(still_open(&mut u3) && still_open(&mut u4));

    // Three more of the token holder's: u3 and u4 go; then every open connection has
    // authenticated, and a new one is closed at once.
    std::thread::sleep(Duration::from_millis(100));
    let mut others = Vec::new();
    for _ in 0..3 {
        let mut o = TcpStream::connect(a).unwrap();
        assert_eq!(api_on(&mut o, a, &t, "app_info", json!({})).status, 200);
        others.push(o);
    }
    assert!(closed_after(&mut u3, Duration::from_secs(2)).is_some() && closed_after(&mut u4, Duration::from_secs(2)).is_some(), "u3 and u4 were not evicted");
    let mut late = TcpStream::connect(a).unwrap();
    let _ = write!(late, "POST /api/app_info HTTP/1.1\r\nHost: {a}\r\nAuthorization: Bearer {t}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{{}}");
    assert!(closed_after(&mut late, Duration::from_secs(2)).is_some(), "the connection beyond the cap was kept");
    for o in &mut others {
        assert_eq!(api_on(o, a, &t, "app_info", json!({})).status, 200, "authenticated connections are never shed");
    }
    assert_eq!(api_on(&mut mine, a, &t, "app_info", json!({})).status, 200);
    s.stop();
    assert_eq!(snapshot(&root), before, "files changed");
}

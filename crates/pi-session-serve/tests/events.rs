//! Live updates: a file appended by another process reaches an open event stream as
//! `root-changed` (the stream outlives the header timeout), and stopping the server does not
//! wait for open streams.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::*;
use pi_session_serve::{Config, Server};

#[test]
fn an_append_reaches_the_event_stream_and_stop_does_not_hang() {
    let tmp = tempfile::tempdir().unwrap();
    private_cache();
    let root = tmp.path().join("sessions");
    copy_tree(&repo_root().join("demo/sessions"), &root);
    let mut cfg = Config::new(root.clone());
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    cfg.header_timeout = Duration::from_millis(200);
    let s = Server::start(cfg).unwrap();

    let mut sock = TcpStream::connect(s.addr()).unwrap();
    write!(sock, "GET /api/events HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\r\n", s.addr(), s.token()).unwrap();
    sock.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    let mut got = String::new();
    let mut buf = [0u8; 4096];
    let read_until = |sock: &mut TcpStream, got: &mut String, want: &str, buf: &mut [u8]| {
        let end = Instant::now() + Duration::from_secs(10);
        while !got.contains(want) && Instant::now() < end {
            if let Ok(n) = sock.read(buf) {
                got.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        }
    };
    read_until(&mut sock, &mut got, "text/event-stream", &mut buf);
    assert!(got.starts_with("HTTP/1.1 200"), "{got}");

    // Another process appends a line to a session, after several header timeouts.
    std::thread::sleep(Duration::from_millis(700));
    let file = session_files(&root)[0].clone();
    let parent = last_id(&file);
    let line = format!(
        "{{\"type\":\"message\",\"id\":\"live0001\",\"parentId\":\"{parent}\",\"timestamp\":\"2026-03-03T00:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}}}\n"
    );
    std::fs::OpenOptions::new().append(true).open(&file).unwrap().write_all(line.as_bytes()).unwrap();
    read_until(&mut sock, &mut got, "event: root-changed", &mut buf);
    assert!(got.contains("event: root-changed"), "no root-changed event: {got}");
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    read_until(&mut sock, &mut got, &name, &mut buf);
    assert!(got.contains(&name), "the event names the file: {got}");

    // The stream is still open: stop returns anyway.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        s.stop();
        let _ = tx.send(());
    });
    assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok(), "stop() hung on an open event stream");
}

//! A damaged search index over HTTP: the query still answers (the index set aside and built
//! again) and `search_index_status` says where the damaged file is kept.

mod common;

use common::*;
use pi_session_serve::{Config, Server};
use serde_json::json;

#[test]
fn a_damaged_index_is_rebuilt_and_reported_in_the_status() {
    let tmp = tempfile::tempdir().unwrap();
    private_cache();
    let root = tmp.path().join("sessions");
    copy_tree(&repo_root().join("demo/sessions"), &root);
    let start = || {
        let mut cfg = Config::new(root.clone());
        cfg.listen = "127.0.0.1:0".parse().unwrap();
        cfg.watch = false;
        Server::start(cfg).unwrap()
    };
    let s = start();
    let want = api(s.addr(), s.token(), "search_indexed", json!({"query": "session", "limit": 10000})).json();
    assert!(want["totalHits"].as_u64().unwrap() > 0, "{want}");
    assert!(api(s.addr(), s.token(), "search_index_status", json!({})).json()["damaged"].is_null());
    s.stop();

    // Garbage after the first page of the index (its schema).
    let db = pi_session_find::index::default_db_path(&root).unwrap();
    let good = std::fs::read(&db).unwrap();
    let mut x = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut bad = good[..4096].to_vec();
    bad.extend((4096..good.len()).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x as u8
    }));
    std::fs::write(&db, &bad).unwrap();

    let s = start();
    let got = api(s.addr(), s.token(), "search_indexed", json!({"query": "session", "limit": 10000}));
    assert_eq!(got.status, 200, "{}", got.body);
    let hits = |v: &serde_json::Value| {
        let mut h: Vec<(String, String)> = v["sessions"].as_array().unwrap().iter().flat_map(|s| s["hits"].as_array().unwrap().iter().map(|h| (s["path"].as_str().unwrap().to_string(), h["id"].as_str().unwrap().to_string()))).collect();
        h.sort();
        h
    };
    assert_eq!(hits(&got.json()), hits(&want), "the same answer after the rebuild");
    let status = api(s.addr(), s.token(), "search_index_status", json!({})).json();
    let moved = status["damaged"]["movedTo"].as_str().unwrap_or_else(|| panic!("{status}"));
    assert!(std::fs::read(moved).unwrap() == bad, "the damaged file is kept byte for byte");
    assert_eq!(status["damaged"]["path"].as_str(), Some(&*db.to_string_lossy()));
    s.stop();
}

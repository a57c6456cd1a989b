//! A session file whose name is not UTF-8, over HTTP: listed under a path that the other
//! commands take back (it used to answer 404), and searched under that same path.

#![cfg(unix)]

mod common;

use std::os::unix::ffi::OsStringExt;

use common::*;
use pi_session_serve::{Config, Server};
use serde_json::json;

#[test]
fn a_name_that_is_not_utf8_is_listed_opened_and_searched_under_one_path() {
    let tmp = tempfile::tempdir().unwrap();
    private_cache();
    let root = tmp.path().join("sessions");
    copy_tree(&repo_root().join("demo/sessions"), &root);
    let file = session_files(&root).remove(0);
    let mut name = file.parent().unwrap().as_os_str().to_owned().into_vec();
    name.extend_from_slice(b"/r\xe9sum\xe9.jsonl");
    let latin1 = std::path::PathBuf::from(std::ffi::OsString::from_vec(name));
    std::fs::rename(&file, &latin1).unwrap();
    let id = last_id(&latin1);

    let mut cfg = Config::new(root.clone());
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    cfg.watch = false;
    let s = Server::start(cfg).unwrap();
    let (a, t) = (s.addr(), s.token().to_string());
    let list = api(a, &t, "list_sessions", json!({})).json();
    let path = list["sessions"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap().to_string()).find(|p| p.contains('\u{F7E9}')).unwrap_or_else(|| panic!("listed: {list}"));
    assert_eq!(pi_session::pathstr::decode(&path), latin1);
    let q = json!({"path": path, "filter": "default", "expanded": [], "collapsed": [], "unified": false});
    let page = api(a, &t, "tree_page", json!({"query": q, "start": 0, "count": 10}));
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(page.json()["meta"]["path"], json!(path));
    for (cmd, args) in [("entry_detail", json!({"path": path, "id": id})), ("context_view", json!({"path": path, "leafId": null})), ("transcript_page", json!({"path": path, "start": 0, "count": 10}))] {
        let r = api(a, &t, cmd, args);
        assert_eq!(r.status, 200, "{cmd}: {}", r.body);
    }
    // The file's first user message, searched: found under the listed path.
    let row = list["sessions"].as_array().unwrap().iter().find(|r| r["path"] == json!(path)).unwrap();
    let word: String = row["title"].as_str().unwrap().split_whitespace().max_by_key(|w| w.len()).unwrap().to_string();
    let found = api(a, &t, "search_indexed", json!({"query": word, "limit": 10000})).json();
    assert!(found["sessions"].as_array().unwrap().iter().any(|h| h["path"] == json!(path)), "{word}: {found}");
    let bands = api(a, &t, "search_hits_in_session", json!({"path": path, "query": word}));
    assert_eq!(bands.status, 200, "{}", bands.body);
    assert!(!bands.json().as_array().unwrap().is_empty());
    s.stop();
}

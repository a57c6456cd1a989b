//! An export over HTTP is the browser's download: the answer carries the text and the file name
//! the window would propose, and nothing is written on the serving machine (not even with
//! writes allowed). Where the window would write and opening a file are the window's.

mod common;

use common::*;
use pi_session_serve::{Config, Server};
use serde_json::json;

#[test]
fn an_export_is_answered_as_text_to_download_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    private_cache();
    let root = tmp.path().join("sessions");
    copy_tree(&repo_root().join("demo/sessions"), &root);
    let before = snapshot(&root);
    let mut cfg = Config::new(root.clone());
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    cfg.allow_writes = true;
    cfg.watch = false;
    let s = Server::start(cfg).unwrap();
    let (a, t) = (s.addr(), s.token().to_string());
    let file = session_files(&root).into_iter().find(|p| p.to_string_lossy().contains("2026-03-02T16-05-49-386Z")).unwrap();
    let path = file.to_string_lossy().to_string();
    // An `out` the window would write to: over HTTP it is not written.
    let out = tmp.path().join("exported.md");
    for (tree, want) in [(false, format!("{}.md", file.file_stem().unwrap().to_string_lossy())), (true, format!("{}-tree.md", file.file_stem().unwrap().to_string_lossy()))] {
        let r = api(a, &t, "export_session", json!({"path": path, "leafId": null, "tree": tree, "format": "md", "out": out, "replace": true}));
        assert_eq!(r.status, 200, "{}", r.body);
        let r = r.json();
        assert_eq!(r["out"], json!(want));
        let text = r["text"].as_str().unwrap();
        assert_eq!(r["bytes"], json!(text.len()));
        assert!(text.contains("compaction") || text.contains("Compaction"), "the path's compactions: {}", &text[..200.min(text.len())]);
    }
    assert!(!out.exists(), "out is not written over HTTP");
    for (cmd, args) in [("export_target", json!({"path": path, "tree": false, "format": "md"})), ("open_export", json!({"path": path, "reveal": true}))] {
        let r = api(a, &t, cmd, args);
        assert_eq!((r.status, r.code()), (403, "window-only".to_string()), "{cmd}: {}", r.body);
    }
    s.stop();
    assert_eq!(snapshot(&root), before, "nothing written under the root");
}

//! The server answers every command of the window, and the UI's command table names exactly
//! those commands: one list (src-tauri/build.rs), checked against the two others.

mod common;

use std::collections::BTreeSet;

use common::*;
use pi_session::explorer::Explorer;
use pi_session_serve::{call, ServeError};
use serde_json::json;

/// The quoted names between `start` and the next `end` in `text`.
fn quoted(text: &str, start: &str, end: &str) -> BTreeSet<String> {
    let from = text.find(start).unwrap_or_else(|| panic!("{start:?} not found"));
    let body = &text[from + start.len()..];
    let body = &body[..body.find(end).unwrap()];
    body.split('"').skip(1).step_by(2).map(str::to_string).collect()
}

#[test]
fn every_window_command_is_served_and_in_the_ui_table() {
    let repo = repo_root();
    let window = quoted(&std::fs::read_to_string(repo.join("src-tauri/build.rs")).unwrap(), "const COMMANDS: &[&str] = &[", "];");
    assert!(window.len() >= 18, "{window:?}");

    let ui_src = std::fs::read_to_string(repo.join("ui/src/lib/backend/commands.ts")).unwrap();
    let ui: BTreeSet<String> = ui_src.split("this.call<").skip(1).map(|s| s.split('"').nth(1).unwrap().to_string()).collect();
    assert_eq!(ui, window, "ui/src/lib/backend/commands.ts and src-tauri/build.rs name the same commands");

    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    copy_tree(&repo.join("demo/sessions"), &root);
    let ex = Explorer::new(root, "flag", true);
    let find = pi_session_serve::Find::default();
    for c in &window {
        // Missing arguments are an `invalid` answer, not an unknown command (a window-only
        // command without arguments answers that it is the window's).
        match call(&ex, &find, c, json!({})) {
            Err(ServeError::UnknownCommand(_)) => panic!("{c} is not served"),
            Err(e) => assert_eq!(e.code(), if c == "set_aside_organiser" { "window-only" } else { "invalid" }, "{c}: {e}"),
            Ok(_) => {}
        }
    }
    assert!(matches!(call(&ex, &find, "rm_rf", json!({})), Err(ServeError::UnknownCommand(_))));
    // Unknown arguments are refused, as a typo would otherwise pass silently.
    assert_eq!(call(&ex, &find, "list_sessions", json!({"limt": 3})).unwrap_err().code(), "invalid");
}

#[test]
fn an_export_is_answered_as_text_to_download_and_nothing_is_written() {
    let repo = repo_root();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    copy_tree(&repo.join("demo/sessions"), &root);
    let before = snapshot(&root);
    let ex = Explorer::new(root.clone(), "flag", true);
    let find = pi_session_serve::Find::default();
    let file = pi_session::scan::scan(&root).files.into_iter().map(|f| f.path).find(|p| p.to_string_lossy().contains("2026-03-02T16-05-49-386Z")).unwrap();
    let r = call(&ex, &find, "export_session", json!({"path": file, "leafId": null, "tree": false, "format": "md"})).unwrap();
    assert_eq!(r["out"], json!(format!("{}.md", file.file_stem().unwrap().to_string_lossy())));
    let text = r["text"].as_str().unwrap();
    assert_eq!(r["bytes"], json!(text.len()));
    assert!(text.contains("compaction") || text.contains("Compaction"), "the path's compactions: {}", &text[..200.min(text.len())]);
    assert_eq!(snapshot(&root), before, "nothing written under the root");
    // Where the window would write, and opening a file, are the window's.
    assert_eq!(call(&ex, &find, "export_target", json!({"path": file, "tree": false, "format": "md"})).unwrap_err().code(), "window-only");
    assert_eq!(call(&ex, &find, "open_export", json!({"path": file, "reveal": true})).unwrap_err().code(), "window-only");
}


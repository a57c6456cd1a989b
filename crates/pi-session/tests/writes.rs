//! The write path (docs/design.md, "Writing") on real files in temporary folders:
//!
//! * every navigate/label write keeps the old bytes as an exact prefix of the new ones and adds
//!   exactly one line (after one `\n` when the old file ended in a torn tail);
//! * the lines have exactly the documented shapes, key order, ids and timestamps;
//! * every refusal leaves the file (and its folder) byte-identical.
//!
//! Forks are tested in `forks.rs`; the session lines, files and checks both use are in
//! `write_fixture`.

mod common;
mod write_fixture;

use std::collections::HashSet;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use pi_session::view::ContextJson;
use pi_session::write::{self, WriteOptions};
use pi_session::{Leaf, Session};
use serde_json::Value;
use write_fixture::*;

// ------------------------------------------------------------------ prefix invariant

#[test]
fn prefix_invariant_lf() {
    let fx = Fx::new();
    let p = fx.file("lf.jsonl", &branchy(), "\n", false, true);
    random_writes(&p, &BRANCHY_IDS, 80, 0x9E37_79B9_7F4A_7C15, &fx.opts());
}

#[test]
fn prefix_invariant_crlf() {
    let fx = Fx::new();
    let p = fx.file("crlf.jsonl", &branchy(), "\r\n", false, true);
    random_writes(&p, &BRANCHY_IDS, 60, 7, &fx.opts());
    // The CRLF lines are still there, untouched; ours end in a bare `\n`.
    let b = fs::read(&p).unwrap();
    let crlf = b.windows(2).filter(|w| w == b"\r\n").count();
    assert_eq!(crlf, branchy().len());
}

#[test]
fn prefix_invariant_bom() {
    let fx = Fx::new();
    let p = fx.file("bom.jsonl", &branchy(), "\n", true, true);
    random_writes(&p, &BRANCHY_IDS, 60, 11, &fx.opts());
    assert!(fs::read(&p).unwrap().starts_with(b"\xEF\xBB\xBF{\"type\":\"session\""));
}

#[test]
fn prefix_invariant_bom_crlf() {
    let fx = Fx::new();
    let p = fx.file("bomcrlf.jsonl", &branchy(), "\r\n", true, true);
    random_writes(&p, &BRANCHY_IDS, 30, 13, &fx.opts());
}

/// A torn last line that has not changed for longer than `stable_for`: our first line gets a
/// leading `\n`, the fragment stays a skipped line, later writes need no `\n`.
#[test]
fn prefix_invariant_stable_torn_tail() {
    let fx = Fx::new();
    let mut lines = branchy();
    lines.push(r#"{"type":"message","id":"torn0001","parentId":"e000000c","timestamp":"2026-03-02T10:00:59.000Z","message":{"role":"user","con"#.into());
    let p = fx.file("torn.jsonl", &lines, "\n", false, false);
    set_mtime(&p, Duration::from_secs(30));
    // Default stable_for (1 s): the tail is 30 s old, so no wait.
    let opts = WriteOptions { root: Some(fx.root.clone()), ..Default::default() };
    let started = Instant::now();
    let a = checked(&p, || write::navigate(&p, Some("e0000004"), &opts));
    assert!(started.elapsed() < Duration::from_millis(900), "a tail stable for 30 s needs no wait");
    check_leaf_line(&a.line, Some("e0000004"), &p);
    let s = Session::open(&p).unwrap();
    assert!(s.index.index_of("torn0001").is_none(), "the fragment stays a skipped line");
    assert_eq!(s.leaf_id(), Some("e0000004"));
    assert!(s.diagnostics().iter().any(|d| d.line == Some(lines.len() as u32)), "the fragment is still reported");
    random_writes(&p, &BRANCHY_IDS, 40, 17, &fx.opts());
}

/// The same with a label as the first write, and a small `stable_for` instead of an old mtime.
#[test]
fn prefix_invariant_torn_tail_label_first() {
    let fx = Fx::new();
    let mut bytes = branchy().join("\n").into_bytes();
    bytes.extend_from_slice(b"\n{\"type\":\"mess");
    let p = fx.raw("torn2.jsonl", &bytes);
    std::thread::sleep(Duration::from_millis(80));
    let a = checked(&p, || write::set_label(&p, "e0000002", Some("x"), &fx.opts()));
    check_label_line(&a.line, Some("e000000c"), "e0000002", Some("x"), &p);
    assert!(fs::read(&p).unwrap().ends_with(format!("{{\"type\":\"mess\n{}\n", a.line).as_bytes()));
    random_writes(&p, &BRANCHY_IDS, 20, 19, &fx.opts());
}

/// A complete last line without a final newline: still an entry (pi reads it); our line
/// follows after one `\n`.
#[test]
fn prefix_invariant_unterminated_complete_line() {
    let fx = Fx::new();
    let p = fx.file("noeol.jsonl", &branchy(), "\n", false, false);
    set_mtime(&p, Duration::from_secs(5));
    let a = checked(&p, || write::navigate(&p, Some("e0000006"), &fx.opts()));
    check_leaf_line(&a.line, Some("e0000006"), &p);
    let s = Session::open(&p).unwrap();
    assert!(s.index.index_of("e000000c").is_some(), "the former last line is still an entry");
    assert_eq!(s.index.entries.len(), BRANCHY_IDS.len() + 3);
    random_writes(&p, &BRANCHY_IDS, 20, 23, &fx.opts());
}

/// A header-only file: navigate to null, then labels need an entry.
#[test]
fn prefix_invariant_header_only_and_null_leaf() {
    let fx = Fx::new();
    let p = fx.file("empty.jsonl", &[header("019caf2b-a8c0-7719-a0e6-151785f31507")], "\n", false, true);
    let a = checked(&p, || write::navigate(&p, None, &fx.opts()));
    check_leaf_line(&a.line, None, &p);
    assert_eq!(Session::open(&p).unwrap().tree.leaf, Leaf::Null);
    // The leaf line is itself an entry: labelling it works and keeps the leaf null.
    let id = serde_json::from_str::<Value>(&a.line).unwrap()["id"].as_str().unwrap().to_string();
    let b = checked(&p, || write::set_label(&p, &id, Some("nothing yet"), &fx.opts()));
    check_label_line(&b.line, None, &id, Some("nothing yet"), &p);
    // The label line is the new last line, a root: pi resumes there, with an empty context.
    let s = Session::open(&p).unwrap();
    let lid = serde_json::from_str::<Value>(&b.line).unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(s.leaf_id(), Some(lid.as_str()));
    assert!(s.tree.roots.contains(&s.node(&lid).unwrap()));
    assert!(ContextJson::of(&s, s.tree.leaf).unwrap().messages.is_empty());
    assert_eq!(labels_of(&s).get(&id).map(String::as_str), Some("nothing yet"));
}

// ------------------------------------------------------------------ line shapes

#[test]
fn navigate_line_shape() {
    let fx = Fx::new();
    let p = fx.file("nav.jsonl", &branchy(), "\n", false, true);
    let a = checked(&p, || write::navigate(&p, Some("e0000006"), &fx.opts()));
    check_leaf_line(&a.line, Some("e0000006"), &p);
    assert!(a.warning.is_none() || a.warning.is_some());
    let s = Session::open(&p).unwrap();
    assert_eq!(s.leaf_id(), Some("e0000006"));
    let ids: Vec<String> = s.tree.active_path().iter().map(|&i| s.id_of(i).to_string()).collect();
    assert_eq!(ids, ["e0000001", "e0000002", "e0000003", "e0000004", "e0000005", "e0000006"]);
    // Navigate to null: both fields null.
    let b = checked(&p, || write::navigate(&p, None, &fx.opts()));
    assert!(b.line.contains(r#""parentId":null"#) && b.line.ends_with(r#""targetId":null}"#));
    check_leaf_line(&b.line, None, &p);
    assert_eq!(Session::open(&p).unwrap().tree.leaf, Leaf::Null);
    assert!(ContextJson::of(&Session::open(&p).unwrap(), Leaf::Null).unwrap().messages.is_empty());
}

#[test]
fn label_line_shape() {
    let fx = Fx::new();
    let p = fx.file("label.jsonl", &branchy(), "\n", false, true);
    // The leaf is the last line (e000000c, a label line): our label chains after it.
    let a = checked(&p, || write::set_label(&p, "e0000003", Some("t"), &fx.opts()));
    check_label_line(&a.line, Some("e000000c"), "e0000003", Some("t"), &p);
    let s = Session::open(&p).unwrap();
    assert_eq!(labels_of(&s).get("e0000003").map(String::as_str), Some("t"));
    // A label line is pi's appendLabelChange: it becomes the last line, the leaf follows it.
    let leaf_after_label = s.leaf_id().unwrap().to_string();
    // Clear: no label key.
    let b = checked(&p, || write::set_label(&p, "e0000003", None, &fx.opts()));
    check_label_line(&b.line, Some(&leaf_after_label), "e0000003", None, &p);
    assert!(!b.line.contains("\"label\":"));
    assert!(!labels_of(&Session::open(&p).unwrap()).contains_key("e0000003"));
    // An empty text clears too.
    checked(&p, || write::set_label(&p, "e0000001", Some(""), &fx.opts()));
    assert!(!labels_of(&Session::open(&p).unwrap()).contains_key("e0000001"));
    // After navigate X, a label's parent is X (the leaf), not the leaf line.
    checked(&p, || write::navigate(&p, Some("e0000005"), &fx.opts()));
    let c = checked(&p, || write::set_label(&p, "e0000002", Some("after nav"), &fx.opts()));
    check_label_line(&c.line, Some("e0000005"), "e0000002", Some("after nav"), &p);
    let s = Session::open(&p).unwrap();
    let on_path: Vec<&str> = s.tree.active_path().iter().map(|&i| s.id_of(i)).collect();
    assert!(on_path.contains(&"e0000005"), "the leaf stays on e0000005's path");
    // And the context there is e0000005's.
    let here = ContextJson::of(&s, s.tree.leaf).unwrap();
    let at5 = ContextJson::of(&s, Leaf::Entry(s.node("e0000005").unwrap())).unwrap();
    assert_eq!(raw_messages(&here), raw_messages(&at5));
}

#[test]
fn ids_are_fresh_and_unique() {
    let fx = Fx::new();
    let p = fx.file("ids.jsonl", &branchy(), "\n", false, true);
    let mut seen = HashSet::new();
    for i in 0..200 {
        let a = if i % 2 == 0 {
            write::navigate(&p, Some(BRANCHY_IDS[i % 10]), &fx.opts()).unwrap()
        } else {
            write::set_label(&p, BRANCHY_IDS[i % 10], Some("x"), &fx.opts()).unwrap()
        };
        let id = serde_json::from_str::<Value>(&a.line).unwrap()["id"].as_str().unwrap().to_string();
        assert!(seen.insert(id), "id reused");
    }
    let s = Session::open(&p).unwrap();
    assert!(s.diagnostics().iter().all(|d| d.kind.as_str() != "duplicate-id"), "{:?}", s.diagnostics());
    let mut all = HashSet::new();
    for l in file_lines(&p).iter().skip(1) {
        let v: Value = serde_json::from_slice(l).unwrap();
        assert!(all.insert(v["id"].as_str().unwrap().to_string()), "duplicate id in the file");
    }
}

// ------------------------------------------------------------------ refusals

/// Every write kind against `p`, each expecting `code`.
fn refuse_all(p: &Path, id: &str, code: &str, opts: &WriteOptions) {
    refused(p, code, || write::navigate(p, Some(id), opts));
    refused(p, code, || write::set_label(p, id, Some("t"), opts));
    refused(p, code, || write::set_label(p, id, None, opts));
    refused(p, code, || write::fork(p, Some(id), opts));
}

#[test]
fn refuses_v1_file() {
    let fx = Fx::new();
    let p = fx.raw(
        "v1.jsonl",
        concat!(
            r#"{"type":"session","id":"v1-session","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x","provider":"anthropic","modelId":"m"}"#,
            "\n",
            r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
            "\n",
            r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"timestamp":2}}"#,
            "\n",
        )
        .as_bytes(),
    );
    let s = Session::open(&p).unwrap();
    let some_id = s.id_of(0).to_string(); // an id migrated in memory
    refuse_all(&p, &some_id, "read-only", &fx.opts());
    refused(&p, "read-only", || write::navigate(&p, None, &fx.opts()));
    refused(&p, "read-only", || write::fork(&p, None, &fx.opts()));
}

#[test]
fn refuses_v2_file() {
    let fx = Fx::new();
    let mut lines = branchy();
    lines[0] = r#"{"type":"session","version":2,"id":"v2-session","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}"#.into();
    let p = fx.file("v2.jsonl", &lines, "\n", false, true);
    refuse_all(&p, "e0000004", "read-only", &fx.opts());
    refused(&p, "read-only", || write::navigate(&p, None, &fx.opts()));
}

#[test]
fn refuses_v4_file() {
    let fx = Fx::new();
    let p = fx.raw(
        "v4.jsonl",
        concat!(
            r#"{"kind":"header","version":4,"id":"019caf2b-a8c0-7719-a0e6-151785f31510","createdAt":1772445600000,"cwd":"/x"}"#,
            "\n",
            r#"{"kind":"entry","seq":1,"entry":{"type":"message","id":"e0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}}"#,
            "\n",
        )
        .as_bytes(),
    );
    refuse_all(&p, "e0000001", "read-only", &fx.opts());
    refused(&p, "read-only", || write::navigate(&p, None, &fx.opts()));
    refused(&p, "read-only", || write::fork(&p, None, &fx.opts()));
}

#[test]
fn refuses_v3_header_with_version_4() {
    let fx = Fx::new();
    let mut lines = branchy();
    lines[0] = r#"{"type":"session","version":4,"id":"019caf2b-a8c0-7719-a0e6-151785f31511","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/x"}"#.into();
    let p = fx.file("v4h.jsonl", &lines, "\n", false, true);
    refuse_all(&p, "e0000004", "read-only", &fx.opts());
    refused(&p, "read-only", || write::navigate(&p, None, &fx.opts()));
}

#[test]
fn refuses_file_without_header() {
    let fx = Fx::new();
    let p = fx.file("nohead.jsonl", &branchy()[1..], "\n", false, true);
    refuse_all(&p, "e0000004", "read-only", &fx.opts());
}

#[test]
fn refuses_unknown_id() {
    let fx = Fx::new();
    let p = fx.file("u.jsonl", &branchy(), "\n", false, true);
    refuse_all(&p, "deadbeef", "unknown-id", &fx.opts());
    // A label's own target must exist too, even when pi would accept a dangling one.
    refuse_all(&p, "E0000001", "unknown-id", &fx.opts());
}

#[test]
fn refuses_ids_inside_a_parent_cycle() {
    let fx = Fx::new();
    let lines = vec![
        header("019caf2b-a8c0-7719-a0e6-151785f31512"),
        user("a0000001", None, 1, "normal"),
        assistant("a0000002", Some("a0000001"), 2, "chain"),
        user("a0000003", Some("a0000002"), 3, "continues"),
        user("cccc0001", Some("cccc0002"), 4, "cycle a"),
        assistant("cccc0002", Some("cccc0001"), 5, "cycle b"),
        user("cccc0003", Some("cccc0002"), 6, "below the cycle"),
        user("cccc0004", Some("cccc0004"), 7, "its own parent"),
        assistant("cccc0005", Some("cccc0004"), 8, "below it"),
        user("a0000004", Some("a0000003"), 8, "the last line, outside the cycle"),
    ];
    let p = fx.file("cycle.jsonl", &lines, "\n", false, true);
    for id in ["cccc0001", "cccc0002", "cccc0003"] {
        refuse_all(&p, id, "in-cycle", &fx.opts());
    }
    // The normal chain stays writable.
    let a = checked(&p, || write::navigate(&p, Some("a0000002"), &fx.opts()));
    check_leaf_line(&a.line, Some("a0000002"), &p);
    checked(&p, || write::set_label(&p, "a0000003", Some("ok"), &fx.opts()));
    fs::remove_file(check_fork(&p, Some("a0000003"), &fx.opts())).unwrap();
    // An entry naming itself as its parent: a root in the tree, but pi's path walk loops on it.
    for id in ["cccc0001", "cccc0002", "cccc0003", "cccc0004", "cccc0005"] {
        refuse_all(&p, id, "in-cycle", &fx.opts());
    }
}

/// A torn tail that is still changing while we wait: refused, and nothing of ours lands.
#[test]
fn refuses_unstable_torn_tail() {
    let fx = Fx::new();
    let mut b = branchy().join("\n").into_bytes();
    b.extend_from_slice(b"\n{\"type\":\"message\",\"id\":\"live0001\",\"parentId\":\"e000000c\",\"message\":{\"content\":\"");
    let p = fx.raw("live.jsonl", &b);
    let opts = WriteOptions { root: Some(fx.root.clone()), stable_for: Duration::from_secs(1), ..Default::default() };
    for kind in 0..3 {
        // Touch the file right before; a writer keeps adding to the torn line meanwhile.
        let before = fs::read(&p).unwrap();
        fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b"x").unwrap();
        let pw = p.clone();
        let writer = std::thread::spawn(move || {
            let mut added = b"x".to_vec();
            for k in 0..15u8 {
                std::thread::sleep(Duration::from_millis(100));
                let byte = b'a' + k;
                fs::OpenOptions::new().append(true).open(&pw).unwrap().write_all(&[byte]).unwrap();
                added.push(byte);
            }
            added
        });
        let r = match kind {
            0 => write::navigate(&p, Some("e0000004"), &opts),
            1 => write::set_label(&p, "e0000004", Some("t"), &opts),
            _ => write::navigate(&p, None, &opts),
        };
        let added = writer.join().unwrap();
        match r {
            Ok(a) => panic!("wrote {a:?} after a changing tail"),
            Err(e) => assert_eq!(e.code(), "busy", "{e}"),
        }
        let mut expect = before.clone();
        expect.extend_from_slice(&added);
        assert_eq!(fs::read(&p).unwrap(), expect, "only the other writer's bytes were added");
    }
}

/// A torn tail touched right before but then left alone: the write waits out `stable_for`
/// and then goes ahead, after a `\n`.
#[test]
fn torn_tail_touched_just_before_waits_then_writes() {
    let fx = Fx::new();
    let mut b = branchy().join("\n").into_bytes();
    b.extend_from_slice(b"\n{\"type\":\"mess");
    let p = fx.raw("touched.jsonl", &b);
    let opts = WriteOptions { root: Some(fx.root.clone()), stable_for: Duration::from_secs(1), ..Default::default() };
    set_mtime(&p, Duration::ZERO);
    let started = Instant::now();
    let a = checked(&p, || write::navigate(&p, Some("e0000002"), &opts));
    assert!(started.elapsed() >= Duration::from_millis(900), "waited for the tail to be stable");
    check_leaf_line(&a.line, Some("e0000002"), &p);
}

#[test]
fn refuses_in_read_only_mode() {
    let fx = Fx::new();
    let p = fx.file("ro.jsonl", &branchy(), "\n", false, true);
    let opts = WriteOptions { read_only: true, ..fx.opts() };
    refuse_all(&p, "e0000004", "read-only-mode", &opts);
    refused(&p, "read-only-mode", || write::navigate(&p, None, &opts));
    refused(&p, "read-only-mode", || write::fork(&p, None, &opts));
    // Even for a bad id or a missing file, nothing is looked at.
    refused(&p, "read-only-mode", || write::navigate(&p, Some("\"bad"), &opts));
    let missing = p.with_file_name("missing.jsonl");
    refused(&missing, "read-only-mode", || write::navigate(&missing, Some("e0000004"), &opts));
    assert!(!missing.exists());
}

#[test]
fn refuses_files_outside_the_root() {
    let fx = Fx::new();
    let outside_dir = fx.root.parent().unwrap().join("elsewhere");
    fs::create_dir_all(&outside_dir).unwrap();
    let outside = outside_dir.join("x.jsonl");
    fs::write(&outside, branchy().join("\n") + "\n").unwrap();
    refuse_all(&outside, "e0000004", "outside-root", &fx.opts());
    // Through `..`.
    let dotdot = fx.root.join("..").join("elsewhere").join("x.jsonl");
    refuse_all(&dotdot, "e0000004", "outside-root", &fx.opts());
    // A root that is a prefix of the file's folder name only.
    let sibling = fx.root.parent().unwrap().join("sessions-other");
    fs::create_dir_all(&sibling).unwrap();
    let sib = sibling.join("y.jsonl");
    fs::write(&sib, branchy().join("\n") + "\n").unwrap();
    refuse_all(&sib, "e0000004", "outside-root", &fx.opts());
    #[cfg(unix)]
    {
        // A symlink inside the root pointing outside it.
        let dir = fx.root.join("--links--");
        fs::create_dir_all(&dir).unwrap();
        let link = dir.join("link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        refuse_all(&link, "e0000004", "outside-root", &fx.opts());
        // A symlinked folder inside the root pointing outside it.
        let dlink = fx.root.join("--dirlink--");
        std::os::unix::fs::symlink(&outside_dir, &dlink).unwrap();
        refuse_all(&dlink.join("x.jsonl"), "e0000004", "outside-root", &fx.opts());
        assert_eq!(folder_listing(&outside_dir).len(), 1, "no fork landed outside the root");
        // A symlink inside the root to a file inside the root is fine: the real file is written.
        let inner = fx.file("inner.jsonl", &branchy(), "\n", false, true);
        let ilink = dir.join("inner-link.jsonl");
        std::os::unix::fs::symlink(&inner, &ilink).unwrap();
        let a = write::navigate(&ilink, Some("e0000004"), &fx.opts()).unwrap();
        assert_eq!(a.file, inner);
        assert!(fs::symlink_metadata(&ilink).unwrap().file_type().is_symlink());
    }
    assert_eq!(fs::read(&outside).unwrap(), (branchy().join("\n") + "\n").into_bytes());
}

#[test]
fn refuses_invalid_id_arguments() {
    let fx = Fx::new();
    let p = fx.file("inv.jsonl", &branchy(), "\n", false, true);
    let long = "a".repeat(129);
    for bad in ["", "a\"b", "a\\b", "a\nb", "tab\there", "\u{7f}", "nul\0", long.as_str()] {
        refuse_all(&p, bad, "invalid-id", &fx.opts());
    }
}

#[test]
fn refuses_what_is_not_a_regular_file() {
    let fx = Fx::new();
    let dir = fx.root.join("a-folder.jsonl");
    fs::create_dir_all(&dir).unwrap();
    refused(&dir.join("x"), "not-found", || write::navigate(&dir.join("x"), Some("e0000001"), &fx.opts()));
    let r = write::navigate(&dir, Some("e0000001"), &fx.opts());
    assert_eq!(r.unwrap_err().code(), "not-a-file");
}

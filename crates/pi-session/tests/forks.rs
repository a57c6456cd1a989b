//! Forks on real files in temporary folders (docs/design.md, "Writing"): a fork is a new file
//! beside the source, with the documented name and header, the root→X lines byte for byte, the
//! labels in effect carried and a final `leaf` line; the source is untouched.

mod common;
mod write_fixture;

use std::collections::HashSet;
use std::fs;
use std::time::Duration;

use pi_session::view::TreeJson;
use pi_session::write;
use pi_session::Session;
use serde_json::Value;
use write_fixture::*;

// ------------------------------------------------------------------ fork

#[test]
fn fork_branchy_everywhere() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    for x in BRANCHY_IDS {
        let f = check_fork(&p, Some(x), &fx.opts());
        fs::remove_file(f).unwrap();
    }
    check_fork(&p, None, &fx.opts());
}

/// Labels: set on the path, set off the path for a path entry, relabelled off the path,
/// cleared off the path, on entries off the path, and after X.
#[test]
fn fork_carries_labels_in_effect() {
    let fx = Fx::new();
    let lines = vec![
        header("019caf2b-a8c0-7719-a0e6-151785f31508"),
        user("f0000001", None, 1, "first"),
        assistant("f0000002", Some("f0000001"), 2, "answer"),
        label("f0000003", Some("f0000002"), 3, "f0000001", Some("start")), // on the path
        user("f0000004", Some("f0000003"), 4, "second"),
        assistant("f0000005", Some("f0000004"), 5, "answer 2"),
        // a side branch
        user("f0000006", Some("f0000005"), 6, "side"),
        assistant("f0000007", Some("f0000006"), 7, "side answer"),
        label("f0000008", Some("f0000007"), 8, "f0000005", Some("labelled from the side")), // path entry, line off path
        label("f0000009", Some("f0000008"), 9, "f0000006", Some("off path")), // entry off path
        // back on the main line
        user("f000000a", Some("f0000005"), 10, "main"),
        assistant("f000000b", Some("f000000a"), 11, "main answer"),
        label("f000000c", Some("f000000b"), 12, "f0000004", Some("temporary")), // on the path ...
        label("f000000d", Some("f0000007"), 13, "f0000004", None), // ... cleared off the path
        label("f000000e", Some("f000000d"), 14, "f0000001", Some("start v2")), // relabelled off the path
        label("f000000f", Some("f000000c"), 15, "f000000b", Some("on path, set on path")),
        label("f0000010", Some("f000000f"), 16, "f000000b", Some("on path, relabelled on path")),
        user("f0000011", Some("f0000010"), 17, "third"),
        assistant("f0000012", Some("f0000011"), 18, "answer 3"),
        label("f0000013", Some("f0000012"), 19, "f0000011", Some("set after X")), // child of X
    ];
    let p = fx.file("labels.jsonl", &lines, "\n", false, true);
    let f = check_fork(&p, Some("f0000012"), &fx.opts());
    let fk = Session::open(&f).unwrap();
    let l = labels_of(&fk);
    assert_eq!(l.get("f0000001").map(String::as_str), Some("start v2"));
    assert_eq!(l.get("f0000005").map(String::as_str), Some("labelled from the side"));
    assert_eq!(l.get("f000000b").map(String::as_str), Some("on path, relabelled on path"));
    assert_eq!(l.get("f0000011").map(String::as_str), Some("set after X"));
    assert_eq!(l.get("f0000004"), None, "a label cleared in the source stays cleared in the fork");
    assert_eq!(l.get("f0000006"), None);
    // Forks at other points of the same file.
    for x in ["f0000001", "f0000005", "f0000007", "f0000009", "f000000b", "f0000010"] {
        fs::remove_file(check_fork(&p, Some(x), &fx.opts())).unwrap();
    }
}

#[test]
fn fork_compacted_path_crlf_bom() {
    let fx = Fx::new();
    let lines = vec![
        header("019caf2b-a8c0-7719-a0e6-151785f31509"),
        user("c0000001", None, 1, "a"),
        assistant("c0000002", Some("c0000001"), 2, "b"),
        thinking("c0000003", Some("c0000002"), 3, "medium"),
        user("c0000004", Some("c0000003"), 4, "c"),
        assistant("c0000005", Some("c0000004"), 5, "d"),
        compaction("c0000006", Some("c0000005"), 6, "c0000004"),
        user("c0000007", Some("c0000006"), 7, "e"),
        assistant("c0000008", Some("c0000007"), 8, "f"),
        model_change("c0000009", Some("c0000008"), 9),
    ];
    for (name, eol, bom) in [("lf.jsonl", "\n", false), ("crlf.jsonl", "\r\n", false), ("bom.jsonl", "\n", true), ("both.jsonl", "\r\n", true)] {
        let p = fx.file(name, &lines, eol, bom, true);
        for x in ["c0000001", "c0000005", "c0000006", "c0000008", "c0000009"] {
            let f = check_fork(&p, Some(x), &fx.opts());
            if eol == "\r\n" {
                // Copied lines keep their CR (byte for byte); ours end in `\n`.
                let b = fs::read(&f).unwrap();
                assert!(b.windows(2).any(|w| w == b"\r\n"));
            }
            fs::remove_file(f).unwrap();
        }
    }
}

/// A fork of a file whose last line is torn (the source is only read; the fragment is not copied).
#[test]
fn fork_source_with_torn_tail() {
    let fx = Fx::new();
    let mut b = branchy().join("\n").into_bytes();
    b.extend_from_slice(b"\n{\"type\":\"message\",\"id\":\"torn");
    let p = fx.raw("torn.jsonl", &b);
    let f = check_fork(&p, Some("e000000a"), &fx.opts());
    assert!(!fs::read(f).unwrap().windows(10).any(|w| w == b"\"id\":\"torn"));
}

#[test]
fn forks_do_not_collide() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    let mut names = HashSet::new();
    for _ in 0..20 {
        let f = write::fork(&p, Some("e0000004"), &fx.opts()).unwrap();
        assert!(names.insert(f.file));
    }
    // 20 forks + the source, and no temporary file left behind.
    let listing = folder_listing(p.parent().unwrap());
    assert_eq!(listing.len(), 21, "{:?}", listing.keys().collect::<Vec<_>>());
}

/// Temporary files that killed forks left behind are removed by a later fork once they are
/// old; a recent one (a fork still running elsewhere) and anything not ours stay.
#[test]
fn a_fork_removes_stale_temporaries_of_killed_forks_and_nothing_else() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    let dir = p.parent().unwrap().to_path_buf();
    let hex = "0123456789abcdef0123456789abcdef";
    let stale = fx.raw(&format!(".2025-01-01T00-00-00-000Z_x.jsonl.tmp-{hex}"), b"{\"type\":\"session\"");
    let recent = fx.raw(&format!(".2025-01-01T00-00-00-000Z_y.jsonl.tmp-{hex}"), b"partial");
    let not_ours = [
        fx.raw(".notes.tmp-0123456789abcdef0123456789abcdef", b"x"),
        fx.raw(&format!(".a.jsonl.tmp-{}", &hex[..31]), b"x"),
        fx.raw(&format!("2025-01-01_z.jsonl.tmp-{hex}"), b"x"),
        fx.raw(".hidden.jsonl", b"x"),
    ];
    fs::create_dir(dir.join(format!(".d.jsonl.tmp-{hex}"))).unwrap();
    let old = write::STALE_TEMPORARY + Duration::from_secs(60);
    for q in not_ours.iter().chain([&stale]) {
        set_mtime(q, old);
    }
    set_mtime(&recent, Duration::from_secs(5));
    assert!(write::is_our_temporary(stale.file_name().unwrap().to_str().unwrap()));

    check_fork(&p, Some("e0000004"), &fx.opts());
    assert!(!stale.exists(), "an old temporary of ours is removed");
    assert!(recent.exists(), "a recent one may belong to a fork still running");
    for q in &not_ours {
        assert!(q.exists(), "{} is not ours and stays", q.display());
    }
    assert!(dir.join(format!(".d.jsonl.tmp-{hex}")).is_dir(), "a folder is never removed");
}

/// A fork of a fork: parentSession points at the first fork; the path is still byte for byte.
#[test]
fn fork_of_a_fork() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    let f1 = check_fork(&p, Some("e000000a"), &fx.opts());
    checked(&f1, || write::set_label(&f1, "e0000009", Some("in the fork"), &fx.opts()));
    let f2 = check_fork(&f1, Some("e0000009"), &fx.opts());
    let h: Value = serde_json::from_slice(&file_lines(&f2)[0]).unwrap();
    assert_eq!(h["parentSession"].as_str().unwrap(), f1.to_str().unwrap());
    assert_eq!(labels_of(&Session::open(&f2).unwrap()).get("e0000009").map(String::as_str), Some("in the fork"));
}

/// TreeJson of a fork names the source as its parent session.
#[test]
fn fork_tree_json_header() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    let f = check_fork(&p, Some("e0000006"), &fx.opts());
    let s = Session::open(&f).unwrap();
    let t = TreeJson::of(&s);
    assert_eq!(t.header["parentSession"], p.to_str().unwrap());
    assert_eq!(t.leaf_id, Some("e0000006"));
    assert_eq!(t.version, Some(3.0));
}


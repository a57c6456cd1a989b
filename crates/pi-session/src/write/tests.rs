//! Compare-and-append on real files: another writer's lines read before ours, a line it has
//! begun waited for or refused, a torn tail written after, the lease, and what the check sees
//! when a writer it could not hold off lands between the check and the write.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use super::append::{append_probed, Line};
use super::*;

const HEADER: &str = r#"{"type":"session","version":3,"id":"019caf2b-a8c0-7719-a0e6-151785f31508","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/tmp/x"}"#;

fn msg(id: &str, parent: Option<&str>) -> String {
    serde_json::json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":format!("text of {id}"),"timestamp":1}}).to_string()
}

/// A session of a header and a chain e1..e4, in a temporary folder.
fn session_file(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let mut text = format!("{HEADER}\n");
    let mut parent = None;
    for i in 1..=4 {
        let id = format!("e{i}");
        text.push_str(&msg(&id, parent.as_deref()));
        text.push('\n');
        parent = Some(id);
    }
    fs::write(&p, text).unwrap();
    p
}

/// Another writer's bytes, the way pi appends: open, one write, close.
fn other_appends(p: &Path, bytes: &[u8]) {
    OpenOptions::new().append(true).open(p).unwrap().write_all(bytes).unwrap();
}

fn opts(stable_ms: u64, busy_ms: u64) -> WriteOptions {
    WriteOptions { root: None, read_only: false, stable_for: Duration::from_millis(stable_ms), busy_wait: Duration::from_millis(busy_ms) }
}

fn parent_of(line: &str) -> Option<String> {
    serde_json::from_str::<Value>(line).unwrap()["parentId"].as_str().map(str::to_string)
}

/// The session we hold equals the file read afresh.
fn same_as_reread(s: &Session) {
    let fresh = Session::open(&s.index.path).unwrap();
    let ids = |s: &Session| s.index.entries.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(s), ids(&fresh));
    assert_eq!(s.leaf_id(), fresh.leaf_id());
    assert_eq!(s.tree.parent, fresh.tree.parent);
    assert_eq!(s.index.read_len, fresh.index.read_len);
}

#[test]
fn recomputes_after_growth_from_the_new_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let p = session_file(dir.path(), "s.jsonl");
    let mut s = Session::open(&p).unwrap();
    let read_before = s.index.read_len;
    other_appends(&p, format!("{}\n{}\n", msg("w1", Some("e4")), msg("w2", Some("w1"))).as_bytes());
    let a = set_label_in(&mut s, "e2", Some("x"), &opts(50, 1000)).unwrap();
    assert_eq!(parent_of(&a.line).as_deref(), Some("w2"), "the label follows the other writer's last line: {}", a.line);
    assert!(a.others_appended);
    assert_eq!(a.offset, fs::metadata(&p).unwrap().len() - a.line.len() as u64 - 1);
    assert!(a.offset > read_before);
    // Our line is in the session we hold, and it is what the file says.
    assert_eq!(s.leaf_id(), serde_json::from_str::<Value>(&a.line).unwrap()["id"].as_str());
    assert_eq!(s.tree.labels.get("e2").map(|l| l.text.as_str()), Some("x"));
    same_as_reread(&s);
    // Nothing new since: the next write reads nothing and takes its own line from memory.
    let b = navigate_in(&mut s, Some("e3"), &opts(50, 1000)).unwrap();
    assert!(!b.others_appended);
    assert_eq!(s.leaf_id(), Some("e3"));
    same_as_reread(&s);
}

#[test]
fn waits_for_a_partial_line_that_completes() {
    let dir = tempfile::tempdir().unwrap();
    let p = session_file(dir.path(), "s.jsonl");
    let mut s = Session::open(&p).unwrap();
    let line = msg("w1", Some("e4"));
    let (head, rest) = line.split_at(line.len() / 2);
    other_appends(&p, head.as_bytes());
    let (pc, rest) = (p.clone(), format!("{rest}\n"));
    let finisher = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        other_appends(&pc, rest.as_bytes());
    });
    let a = set_label_in(&mut s, "e1", Some("after"), &opts(2000, 4000)).unwrap();
    finisher.join().unwrap();
    let bytes = fs::read(&p).unwrap();
    let text = String::from_utf8(bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[lines.len() - 2], line, "the other writer's line is whole");
    assert_eq!(lines[lines.len() - 1], a.line, "ours follows it, on a line of its own, with no blank line");
    assert_eq!(parent_of(&a.line).as_deref(), Some("w1"));
    same_as_reread(&s);
}

#[test]
fn refuses_a_partial_line_that_keeps_changing() {
    let dir = tempfile::tempdir().unwrap();
    let p = session_file(dir.path(), "s.jsonl");
    let mut s = Session::open(&p).unwrap();
    other_appends(&p, br#"{"type":"message","id":"w1","parentId":"e4","message":{"content":""#);
    let before = fs::read(&p).unwrap();
    let pc = p.clone();
    let writer = std::thread::spawn(move || {
        let mut added = Vec::new();
        for k in 0..70u8 {
            std::thread::sleep(Duration::from_millis(30));
            other_appends(&pc, &[b'a' + k % 26]);
            added.push(b'a' + k % 26);
        }
        added
    });
    let r = set_label_in(&mut s, "e1", Some("t"), &opts(1000, 1500));
    let added = writer.join().unwrap();
    let e = r.expect_err("no write into a line still being written");
    assert_eq!(e.code(), "busy");
    assert!(e.to_string().contains("pi is writing this session") && e.to_string().contains("try again"), "{e}");
    let mut expect = before;
    expect.extend_from_slice(&added);
    assert_eq!(fs::read(&p).unwrap(), expect, "only the other writer's bytes were added");
}

#[test]
fn a_torn_tail_that_stopped_changing_is_written_after() {
    let dir = tempfile::tempdir().unwrap();
    let p = session_file(dir.path(), "s.jsonl");
    // Old damage: the fragment's mtime is long past.
    other_appends(&p, br#"{"type":"message","id":"torn","parentId":"e4","mess"#);
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    fs::File::options().write(true).open(&p).unwrap().set_modified(old).unwrap();
    let before = fs::read(&p).unwrap();
    let mut s = Session::open(&p).unwrap();
    let a = navigate_in(&mut s, Some("e2"), &opts(1000, 2000)).unwrap();
    let after = fs::read(&p).unwrap();
    assert!(after.starts_with(&before), "prefix invariant");
    assert_eq!(&after[before.len()..], format!("\n{}\n", a.line).as_bytes(), "a leading newline, then our line");
    assert_eq!(a.offset, before.len() as u64 + 1);
    assert_eq!(s.leaf_id(), Some("e2"));
    same_as_reread(&s);
    // A fragment written just now that never completes: damage once unchanged for `stable_for`.
    let q = session_file(dir.path(), "q.jsonl");
    other_appends(&q, br#"{"type":"message","id":"torn","par"#);
    let before = fs::read(&q).unwrap();
    let mut s = Session::open(&q).unwrap();
    let a = set_label_in(&mut s, "e1", Some("t"), &opts(200, 2000)).unwrap();
    let after = fs::read(&q).unwrap();
    assert_eq!(&after[before.len()..], format!("\n{}\n", a.line).as_bytes());
    assert_eq!(parent_of(&a.line).as_deref(), Some("e4"), "the fragment is no entry: the leaf is the last whole line");
    same_as_reread(&s);
}

/// Linux: the line is written under a lease; another descriptor open on the file (a writer
/// that keeps it) leaves the check alone.
#[cfg(target_os = "linux")]
#[test]
fn the_lease_guards_the_write_unless_the_file_is_held_open() {
    let dir = tempfile::tempdir().unwrap();
    let p = session_file(dir.path(), "s.jsonl");
    let mut s = Session::open(&p).unwrap();
    let a = set_label_in(&mut s, "e1", Some("t"), &opts(50, 1000)).unwrap();
    assert_eq!(a.guard, Guard::Lease);
    let held = OpenOptions::new().append(true).open(&p).unwrap();
    let b = set_label_in(&mut s, "e2", Some("t"), &opts(50, 1000)).unwrap();
    assert_eq!(b.guard, Guard::Check);
    drop(held);
    let c = navigate_in(&mut s, Some("e3"), &opts(50, 1000)).unwrap();
    assert_eq!(c.guard, Guard::Lease, "the lease is released after each write: the next one gets it again");
    same_as_reread(&s);
}

/// Without a lease, a whole line another writer lands between our check and our write is seen
/// from our descriptor's position: a label line is appended again with the true leaf as its
/// parent; a leaf line stands (it moves the leaf where asked), with a warning.
#[test]
fn a_line_landing_between_check_and_write_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let p = session_file(dir.path(), "s.jsonl");
    let mut held = OpenOptions::new().append(true).open(&p).unwrap();
    let mut s = Session::open(&p).unwrap();
    let mut first = true;
    let mut land_w1 = || {
        if std::mem::take(&mut first) {
            held.write_all(format!("{}\n", msg("w1", Some("e4"))).as_bytes()).unwrap();
        }
    };
    let a = append_probed(&mut s, &opts(50, 1000), Line::Label { target: "e2", label: Some("x") }, &mut land_w1).unwrap();
    assert_eq!(a.superseded.len(), 1, "{a:?}");
    assert_eq!(parent_of(&a.superseded[0].1).as_deref(), Some("e4"), "the first label line's parent went stale");
    assert_eq!(parent_of(&a.line).as_deref(), Some("w1"), "the line appended again follows the other writer's line");
    assert!(a.warning.as_deref().is_some_and(|w| w.contains("appended again")), "{a:?}");
    let fresh = Session::open(&p).unwrap();
    let path: Vec<&str> = fresh.tree.path_to(fresh.tree.leaf_index().unwrap()).into_iter().map(|i| fresh.id_of(i)).collect();
    assert!(path.contains(&"w1"), "pi's context at the leaf keeps the other writer's line: {path:?}");
    same_as_reread(&s);

    let mut first = true;
    let mut land_w2 = || {
        if std::mem::take(&mut first) {
            held.write_all(format!("{}\n", msg("w2", Some("w1"))).as_bytes()).unwrap();
        }
    };
    let b = append_probed(&mut s, &opts(50, 1000), Line::Leaf { target: Some("e3") }, &mut land_w2).unwrap();
    assert!(b.superseded.is_empty());
    assert!(b.warning.as_deref().is_some_and(|w| w.contains("the leaf still moves where asked")), "{b:?}");
    assert_eq!(s.leaf_id(), Some("e3"));
    same_as_reread(&s);
}

/// Without a lease, half a line another writer begins between our check and our write is
/// joined with ours: seen, reported, and our line appended again, whole.
#[test]
fn a_half_line_landing_between_check_and_write_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let p = session_file(dir.path(), "s.jsonl");
    let mut held = OpenOptions::new().append(true).open(&p).unwrap();
    let mut s = Session::open(&p).unwrap();
    let line = msg("w1", Some("e4"));
    let (head, rest) = line.split_at(line.len() / 2);
    let mut first = true;
    let mut begin = || {
        if std::mem::take(&mut first) {
            held.write_all(head.as_bytes()).unwrap();
        }
    };
    let a = append_probed(&mut s, &opts(50, 1000), Line::Label { target: "e2", label: Some("x") }, &mut begin).unwrap();
    held.write_all(format!("{rest}\n").as_bytes()).unwrap();
    assert_eq!(a.superseded.len(), 1);
    assert!(a.warning.as_deref().is_some_and(|w| w.contains("landed inside it") && w.contains("ours was appended again")), "{a:?}");
    let bytes = fs::read(&p).unwrap();
    let o = a.offset as usize;
    assert_eq!(&bytes[o..o + a.line.len()], a.line.as_bytes());
    assert_eq!((bytes[o - 1], bytes[o + a.line.len()]), (b'\n', b'\n'), "our second line is whole");
    assert_eq!(parent_of(&a.line).as_deref(), Some("e4"), "the damaged line is no entry");
    let fresh = Session::open(&p).unwrap();
    assert_eq!(fresh.tree.labels.get("e2").map(|l| l.text.as_str()), Some("x"));
}

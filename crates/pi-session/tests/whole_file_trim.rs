//! pi reads a file as `content.trim().split("\n")` (docs/format.md, "Loading"): JavaScript's `trim`
//! removes Unicode spaces (U+00A0, U+2028, U+FEFF, …) from the start of the first line with
//! content and from the end of the last one, which `JSON.parse` would otherwise refuse.
//! Found by the differential tests in tests/pi-oracle (pi 0.73.1 as the oracle).

use std::fs;
use std::io::Write;

use pi_session::view::ContextJson;
use pi_session::{DiagKind, ReadOnlyReason, Session};

const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map(|p| format!("\"{p}\"")).unwrap_or_else(|| "null".into());
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
    )
}

fn kinds(s: &Session) -> Vec<(Option<u32>, DiagKind)> {
    s.diagnostics().iter().map(|d| (d.line, d.kind)).collect()
}

fn texts(s: &Session) -> Vec<String> {
    let c = ContextJson::of(s, s.tree.leaf).expect("context");
    c.messages.iter().map(|m| serde_json::from_str::<serde_json::Value>(m.get()).unwrap()["content"].as_str().unwrap_or("").to_string()).collect()
}

#[test]
fn last_line_with_trailing_unicode_space_then_blank_lines_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let body = format!("{HEADER}\n{}\n{}\u{a0}\n\n  \n", user("1", None, "a"), user("2", Some("1"), "b"));
    fs::write(&path, &body).unwrap();
    let s = Session::open(&path).unwrap();
    assert_eq!(s.leaf_id(), Some("2"));
    assert_eq!(texts(&s), vec!["a", "b"]);
    assert!(!kinds(&s).iter().any(|(_, k)| *k == DiagKind::MalformedLine), "{:?}", kinds(&s));
}

#[test]
fn the_same_line_before_more_content_is_malformed() {
    let body = format!("{HEADER}\n{}\n{}\u{a0}\n{}\n", user("1", None, "a"), user("2", Some("1"), "b"), user("3", Some("1"), "c"));
    let s = Session::from_bytes("/mem.jsonl", body.as_bytes());
    assert!(s.index.entry("2").is_none());
    assert_eq!(s.leaf_id(), Some("3"));
    assert!(kinds(&s).contains(&(Some(3), DiagKind::MalformedLine)), "{:?}", kinds(&s));
}

#[test]
fn appending_after_the_held_back_line_makes_it_malformed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    fs::write(&path, format!("{HEADER}\n{}\n{}\u{2028}\n", user("1", None, "a"), user("2", Some("1"), "b"))).unwrap();
    let mut s = Session::open(&path).unwrap();
    assert_eq!(s.leaf_id(), Some("2"));
    let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
    writeln!(f, "{}", user("3", Some("1"), "c")).unwrap();
    drop(f);
    s.refresh().unwrap();
    assert!(s.index.entry("2").is_none(), "line 3 is no longer the last line with content");
    assert_eq!(s.leaf_id(), Some("3"));
    assert_eq!(texts(&s), vec!["a", "c"]);
    assert_eq!(kinds(&s).iter().filter(|(l, k)| *l == Some(3) && *k == DiagKind::MalformedLine).count(), 1, "{:?}", kinds(&s));
    let fresh = Session::open(&path).unwrap();
    assert_eq!(kinds(&fresh), kinds(&s));
}

#[test]
fn leading_unicode_space_is_trimmed_only_at_the_start_of_the_file() {
    // At the very start (after blank lines): trimmed away, the header is accepted.
    let body = format!("\u{a0}\n\u{feff}\u{a0}{HEADER}\n{}\n", user("1", None, "a"));
    let s = Session::from_bytes("/mem.jsonl", body.as_bytes());
    assert_eq!(s.index.read_only(), None, "{:?}", kinds(&s));
    assert_eq!(s.leaf_id(), Some("1"));
    // After a garbage line: JSON.parse refuses the spaced header, so the file has none.
    let body = format!("garbage\n\u{a0}{HEADER}\n{}\n", user("1", None, "a"));
    let s = Session::from_bytes("/mem.jsonl", body.as_bytes());
    assert_eq!(s.index.read_only(), Some(ReadOnlyReason::NoHeader));
    assert!(kinds(&s).contains(&(Some(2), DiagKind::MalformedLine)), "{:?}", kinds(&s));
}

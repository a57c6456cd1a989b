//! The session files a session names in its tool calls and results (how a child written
//! outside the roots is found) are looked for by reading the file again, and only when its
//! index saw `.jsonl` after the header line: wherever the name is (any batch of a big file, on
//! one core or all, or in an append), it is found; a fork's header naming its parent alone does
//! not count.

use std::io::Write;

use pi_session::session::Cores;
use pi_session::summary::SessionSummary;
use pi_session::Session;
use serde_json::json;

const NAMED: &str = "/elsewhere/sub/2026-01-01T00-00-00-000Z_0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl";

fn header() -> String {
    json!({"type":"session","version":3,"id":"0199ffff-c3d4-7e5f-8a9b-0c1d2e3f4a5b","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","parentSession":"/s/--p--/parent.jsonl"}).to_string()
}

fn line(i: usize, text: &str) -> String {
    let parent = if i == 0 { serde_json::Value::Null } else { json!(format!("{:08x}", i - 1)) };
    let message = if i % 2 == 0 {
        json!({"role":"user","content":text,"timestamp":i})
    } else {
        json!({"role":"toolResult","toolCallId":format!("call{i}"),"toolName":"bash","content":[{"type":"text","text":text}],"isError":false,"timestamp":i})
    };
    json!({"type":"message","id":format!("{i:08x}"),"parentId":parent,"timestamp":"2026-01-01T00:00:01.000Z","message":message}).to_string()
}

/// A header and `n` lines of about 400 bytes (odd ones tool results); the last one names
/// `last` when given.
fn session(n: usize, last: Option<&str>) -> String {
    let filler = "output of a command ".repeat(15);
    let mut out = vec![header()];
    for i in 0..n {
        let text = match last {
            Some(name) if i == n - 1 => format!("spawned: {name} (done)"),
            _ => filler.clone(),
        };
        out.push(line(i, &text));
    }
    out.join("\n") + "\n"
}

fn named(s: &Session) -> Vec<String> {
    SessionSummary::of(s, 0).named_files.into_iter().map(|n| n.path).collect()
}

#[test]
fn a_name_in_the_last_batch_is_found_on_one_core_and_on_all() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, session(30_002, Some(NAMED))).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 9 << 20, "three batches or more");
    for cores in [Cores::All, Cores::One] {
        let s = Session::open_on(&path, cores).unwrap();
        assert!(s.index.names_files(), "{cores:?}");
        assert_eq!(named(&s), vec![NAMED.to_string()], "{cores:?}");
    }
}

#[test]
fn a_header_naming_its_parent_is_not_a_name_and_an_append_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, session(30_001, None)).unwrap();
    let mut s = Session::open(&path).unwrap();
    assert!(!s.index.names_files(), "only the header holds .jsonl");
    assert!(named(&s).is_empty());
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    writeln!(f, "{}", line(30_001, &format!("see {NAMED}"))).unwrap();
    s.refresh().unwrap();
    assert!(s.index.names_files(), "the appended line holds .jsonl");
    assert_eq!(named(&s), vec![NAMED.to_string()]);
}

//! Messages' model, usage and tool fields (their metas) are gathered in blocks while a file is
//! indexed in order (lines parsed ahead on other threads keep a box each): every message must
//! end up with exactly the meta its own line gives, across block boundaries (a block holds
//! 13,107), where both kinds mix, after a refresh that appends, and after a torn last line is
//! completed.

use std::io::Write;

use pi_session_format::entry::{classify, Parsed};
use pi_session_format::skeleton::scan_line;
use pi_session::SessionIndex;
use serde_json::json;

/// A session of `n` messages: every third a user message (no meta), the others assistant
/// messages and tool results with fields of their own.
fn lines(n: usize) -> Vec<String> {
    let mut out = vec![json!({"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}).to_string()];
    for i in 0..n {
        let parent = if i == 0 { serde_json::Value::Null } else { json!(format!("{:08x}", i - 1)) };
        let message = match i % 3 {
            0 => json!({"role":"user","content":"q","timestamp":i}),
            1 => json!({"role":"assistant","content":[],"provider":format!("p{}", i % 7),"model":format!("model-{i}"),"stopReason":"stop",
                        "usage":{"input":i,"output":i * 2,"cacheRead":0,"cacheWrite":1,"totalTokens":i * 3,"cost":{"total":i as f64 / 1000.0}},"timestamp":i}),
            _ => json!({"role":"toolResult","toolName":format!("tool{}", i % 5),"isError":i % 2 == 0,"content":[],"timestamp":i}),
        };
        out.push(json!({"type":"message","id":format!("{i:08x}"),"parentId":parent,"timestamp":"2026-01-01T00:00:01.000Z","message":message}).to_string());
    }
    out
}

/// Each message's meta as its line alone gives it.
fn check(ix: &SessionIndex, lines: &[String]) {
    let messages: Vec<_> = ix.entries.iter().filter(|e| e.id.is_some()).collect();
    assert_eq!(messages.len(), lines.len() - 1);
    let mut with_meta = 0;
    for (e, line) in messages.iter().zip(&lines[1..]) {
        let Parsed::Entry(want) = classify(&scan_line(line).unwrap(), e.line, e.offset, e.len) else { panic!("an entry") };
        assert_eq!(e.meta(), want.meta(), "line {}", e.line);
        with_meta += e.meta().is_some() as usize;
    }
    assert!(with_meta > 2 * 13_107, "several blocks: {with_meta} metas");
}

#[test]
fn every_message_holds_its_own_meta_across_blocks() {
    let lines = lines(40_000);
    let text = lines.join("\n") + "\n";
    check(&SessionIndex::from_bytes("s.jsonl", text.as_bytes()), &lines);
}

#[test]
fn every_message_holds_its_own_meta_when_lines_are_parsed_in_order() {
    // Lines that start with a space are not parsed ahead on other threads (only lines that
    // start with `{` are): every meta is built straight into the blocks, in file order.
    let lines = lines(40_000);
    let text = lines.iter().map(|l| format!(" {l}")).collect::<Vec<_>>().join("\n") + "\n";
    let ix = SessionIndex::from_bytes("s.jsonl", text.as_bytes());
    assert!(ix.diagnostics.is_empty(), "{:?}", ix.diagnostics);
    check(&ix, &lines);
}

#[test]
fn metas_read_by_refreshes_match_a_whole_read() {
    let lines = lines(40_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let first = lines[..20_001].join("\n") + "\n";
    std::fs::write(&path, &first).unwrap();
    let mut ix = SessionIndex::load(&path).unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    // The next line torn in two, read half then whole; then the rest in one append.
    let torn = &lines[20_001];
    f.write_all(&torn.as_bytes()[..torn.len() / 2]).unwrap();
    ix.refresh().unwrap();
    f.write_all(&torn.as_bytes()[torn.len() / 2..]).unwrap();
    f.write_all(b"\n").unwrap();
    ix.refresh().unwrap();
    f.write_all((lines[20_002..].join("\n") + "\n").as_bytes()).unwrap();
    ix.refresh().unwrap();
    check(&ix, &lines);
    let whole = SessionIndex::load(&path).unwrap();
    assert_eq!(format!("{:?}", ix.entries), format!("{:?}", whole.entries));
}

#[test]
fn a_file_read_on_one_core_is_indexed_as_on_all() {
    // Several batches of 4 MB: on all cores their lines are parsed ahead (metas boxed) while the
    // next batch is read into the buffer of one already applied; on one they are all parsed in
    // order (metas in blocks); a damaged line and a duplicate id too.
    let mut lines = lines(60_000);
    lines.insert(20_000, "{\"type\":\"message\",\"id\":".to_string());
    lines.push(lines[5].clone());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 12 << 20, "more than three batches");
    let all = SessionIndex::load_on(&path, pi_session::session::Cores::All).unwrap();
    let one = SessionIndex::load_on(&path, pi_session::session::Cores::One).unwrap();
    assert_eq!(all.entries.len(), 60_001);
    assert_eq!(all.diagnostics.len(), 2, "{:?}", all.diagnostics);
    assert_eq!(format!("{:?}", one.entries), format!("{:?}", all.entries));
    assert_eq!(format!("{:?}", one.diagnostics), format!("{:?}", all.diagnostics));
    assert_eq!(format!("{:?}", one.by_id), format!("{:?}", all.by_id));
    assert_eq!((one.header_ok, one.read_len), (all.header_ok, all.read_len));
}

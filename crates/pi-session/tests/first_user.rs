//! A listing shows the text of a session's first user message that has any (pi's list: text
//! blocks joined by a space, 64 user messages looked at). The read takes it as the lines go by;
//! an index decoded from a snapshot does not keep it and reads the line. Both give the same
//! answer: with messages without text first, past the 64, in a big file parsed on all cores,
//! and when the message was the file's unterminated last line, read again once complete.

use std::io::Write;

use pi_session::session::Cores;
use pi_session::summary::SessionSummary;
use pi_session::Session;
use serde_json::{json, Value};

fn header() -> String {
    json!({"type":"session","version":3,"id":"0199ffff-c3d4-7e5f-8a9b-0c1d2e3f4a5b","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}).to_string()
}

fn message(i: usize, message: Value) -> String {
    let parent = if i == 0 { Value::Null } else { json!(format!("{:08x}", i - 1)) };
    json!({"type":"message","id":format!("{i:08x}"),"parentId":parent,"timestamp":"2026-01-01T00:00:01.000Z","message":message}).to_string()
}

fn user(i: usize, content: Value) -> String {
    message(i, json!({"role":"user","content":content,"timestamp":i}))
}

fn assistant(i: usize, text: &str) -> String {
    message(i, json!({"role":"assistant","content":[{"type":"text","text":text}],"timestamp":i}))
}

fn write(dir: &std::path::Path, name: &str, lines: &[String]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    p
}

/// The title as the read took it, and as a snapshot's index reads it from the line.
fn both_ways(path: &std::path::Path, cache: &std::path::Path) -> (Option<String>, Option<String>) {
    let size = std::fs::metadata(path).unwrap().len();
    let read = SessionSummary::of(&Session::open(path).unwrap(), size).first_user_message;
    let _ = std::fs::remove_dir_all(cache);
    let (first, used) = Session::open_with_cache(path, cache, 0).unwrap();
    assert_eq!(format!("{used:?}"), "Miss");
    assert_eq!(SessionSummary::of(&first, size).first_user_message, read);
    let (again, used) = Session::open_with_cache(path, cache, 0).unwrap();
    assert_eq!(format!("{used:?}"), "Hit");
    (read, SessionSummary::of(&again, size).first_user_message)
}

#[test]
fn messages_without_text_are_passed_over_as_when_the_line_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let lines = vec![
        header(),
        user(0, json!("")),
        user(1, json!([{"type":"image","data":"aGk=","mimeType":"image/png"}])),
        assistant(2, "a reply"),
        user(3, json!([{"type":"text","text":"look at"},{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"text","text":"this \u{e9}"}])),
        user(4, json!("later")),
    ];
    let p = write(dir.path(), "a.jsonl", &lines);
    assert_eq!(both_ways(&p, &cache), (Some("look at this \u{e9}".into()), Some("look at this \u{e9}".into())));

    // Past the 64th user message nothing is looked at: no title, either way.
    let mut lines = vec![header()];
    lines.extend((0..64).map(|i| user(i, json!(""))));
    lines.push(user(64, json!("too late")));
    let p = write(dir.path(), "b.jsonl", &lines);
    assert_eq!(both_ways(&p, &cache), (None, None));
    // The 64th has text: it is the title.
    let mut lines = vec![header()];
    lines.extend((0..63).map(|i| user(i, json!(""))));
    lines.push(user(63, json!("just in time")));
    let p = write(dir.path(), "c.jsonl", &lines);
    assert_eq!(both_ways(&p, &cache), (Some("just in time".into()), Some("just in time".into())));
}

#[test]
fn a_big_file_read_on_all_cores_takes_the_same_title() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    // About 6 MB: more than one batch, each parsed ahead on all cores; the first user message
    // with text is in the second batch.
    let filler = "x".repeat(4000);
    let mut lines = vec![header()];
    lines.push(user(0, json!("")));
    for i in 1..1500 {
        lines.push(assistant(i, &filler));
    }
    lines.push(user(1500, json!("found in the second batch")));
    let p = write(dir.path(), "big.jsonl", &lines);
    assert!(std::fs::metadata(&p).unwrap().len() > 5 << 20);
    let size = std::fs::metadata(&p).unwrap().len();
    let one = SessionSummary::of(&Session::open_on(&p, Cores::One).unwrap(), size).first_user_message;
    assert_eq!(one.as_deref(), Some("found in the second batch"));
    assert_eq!(both_ways(&p, &cache), (one.clone(), one));
}

#[test]
fn a_title_on_an_unterminated_last_line_is_taken_again_when_the_line_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "s.jsonl", &[header(), user(0, json!(""))]);
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len();
    // A complete object without its newline: read as the last line.
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    f.write_all(user(1, json!("first words")).as_bytes()).unwrap();
    let mut s = Session::open(&p).unwrap();
    assert_eq!(SessionSummary::of(&s, size(&p)).first_user_message.as_deref(), Some("first words"));
    // Its newline and a line after it: the last line is read again (dropped, then taken).
    f.write_all(format!("\n{}\n", user(2, json!("more"))).as_bytes()).unwrap();
    s.refresh().unwrap();
    assert_eq!(s.index.entries.len(), 3);
    let fresh = SessionSummary::of(&Session::open(&p).unwrap(), size(&p));
    assert_eq!(SessionSummary::of(&s, size(&p)).first_user_message, fresh.first_user_message);
    assert_eq!(fresh.first_user_message.as_deref(), Some("first words"));

    // Bytes after the object on its line: not JSON any more, no message, no title.
    let r = write(dir.path(), "r.jsonl", &[header(), assistant(0, "hi")]);
    let mut f = std::fs::OpenOptions::new().append(true).open(&r).unwrap();
    f.write_all(user(1, json!("soon gone")).as_bytes()).unwrap();
    let mut s = Session::open(&r).unwrap();
    assert_eq!(SessionSummary::of(&s, size(&r)).first_user_message.as_deref(), Some("soon gone"));
    f.write_all(b" and more\n").unwrap();
    s.refresh().unwrap();
    assert_eq!(s.index.entries.len(), 1);
    assert_eq!(SessionSummary::of(&s, size(&r)).first_user_message, None);
    assert_eq!(SessionSummary::of(&Session::open(&r).unwrap(), size(&r)).first_user_message, None);

    // A torn line (not JSON yet) is no message; completed, it is the title.
    let q = write(dir.path(), "t.jsonl", &[header(), assistant(0, "hi")]);
    let whole = user(1, json!("after the tear"));
    let mut f = std::fs::OpenOptions::new().append(true).open(&q).unwrap();
    f.write_all(&whole.as_bytes()[..whole.len() / 2]).unwrap();
    let mut s = Session::open(&q).unwrap();
    assert_eq!(SessionSummary::of(&s, size(&q)).first_user_message, None);
    f.write_all(format!("{}\n", &whole[whole.len() / 2..]).as_bytes()).unwrap();
    s.refresh().unwrap();
    assert_eq!(SessionSummary::of(&s, size(&q)).first_user_message.as_deref(), Some("after the tear"));
}

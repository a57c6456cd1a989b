//! The explorer's read commands on real content: search across sessions and within one,
//! the transcript as Markdown, and the context's pages (messages and entries hidden by
//! compaction), on a hand-written session with a compaction, a side branch, a label and a
//! name, and on every demo session (pages put together give what pi's context gives).

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pi_session_app::api::{HitField, MessageRole};
use pi_session_app::explorer::Explorer;
use pi_session::view::ContextJson;
use pi_session::Session;
use serde_json::{json, Value};

fn ts(i: u64) -> String {
    format!("2025-03-01T10:00:{i:02}.000Z")
}

fn entry(id: &str, parent: Option<&str>, i: u64, rest: Value) -> String {
    let mut v = json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(i)});
    for (k, x) in rest.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string()
}

fn user(id: &str, parent: Option<&str>, i: u64, text: &str) -> String {
    entry(id, parent, i, json!({"message": {"role": "user", "content": text, "timestamp": i}}))
}

fn assistant(id: &str, parent: &str, i: u64, content: Value) -> String {
    let usage = json!({"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15, "cost": {"total": 0.001}});
    entry(id, Some(parent), i, json!({"message": {"role": "assistant", "content": content, "provider": "p", "model": "m", "usage": usage, "stopReason": "stop", "timestamp": i}}))
}

/// u1 → a1 (a tool call) → t1 → u2 → a2 → c1 (compaction keeping from u2) → u3 → a3 → label
/// of u3 → session name; a side branch u4 under t1. The leaf is the name line.
fn zephyr_session() -> Vec<String> {
    vec![
        json!({"type": "session", "version": 3, "id": "11111111-1111-4111-8111-111111111111", "timestamp": ts(0), "cwd": "/home/u/zephyr"}).to_string(),
        user("u1", None, 1, "Plan the Zephyr migration"),
        assistant("a1", "u1", 2, json!([{"type": "text", "text": "Step one: inventory"}, {"type": "toolCall", "id": "call1", "name": "grep_files", "arguments": {"pattern": "zephyr"}}])),
        entry("t1", Some("a1"), 3, json!({"message": {"role": "toolResult", "toolCallId": "call1", "toolName": "grep_files", "content": [{"type": "text", "text": "3 matches in zephyr.toml"}], "isError": false, "timestamp": 3}})),
        user("u4", Some("t1"), 4, "abandoned side quest"),
        user("u2", Some("t1"), 5, "second question"),
        assistant("a2", "u2", 6, json!([{"type": "text", "text": "second answer"}])),
        json!({"type": "compaction", "id": "c1", "parentId": "a2", "timestamp": ts(7), "summary": "Summary: the Zephyr plan so far", "firstKeptEntryId": "u2", "tokensBefore": 5000}).to_string(),
        user("u3", Some("c1"), 8, "after the compaction, 🌬️ zephyr again"),
        assistant("a3", "u3", 9, json!([{"type": "text", "text": "done"}])),
        json!({"type": "label", "id": "l1", "parentId": "a3", "timestamp": ts(10), "targetId": "u3", "label": "checkpoint-label"}).to_string(),
        json!({"type": "session_info", "id": "n1", "parentId": "l1", "timestamp": ts(11), "name": "Zephyr session"}).to_string(),
    ]
}

/// A root with the Zephyr session and one unrelated session.
fn root() -> (tempfile::TempDir, PathBuf, String) {
    common::private_cache();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    let dir = root.join("--home-u-zephyr--");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("2025-03-01T10-00-00-000Z_zephyr.jsonl");
    fs::write(&file, zephyr_session().join("\n") + "\n").unwrap();
    let other = [
        json!({"type": "session", "version": 3, "id": "22222222-2222-4222-8222-222222222222", "timestamp": ts(0), "cwd": "/home/u/other"}).to_string(),
        user("o1", None, 1, "nothing to see here"),
    ];
    fs::write(dir.join("2025-03-01T09-00-00-000Z_other.jsonl"), other.join("\n") + "\n").unwrap();
    let path = file.to_string_lossy().into_owned();
    (tmp, root, path)
}

fn explorer(root: &Path) -> Explorer {
    Explorer::new(root.to_path_buf(), "flag", true)
}

#[test]
fn search_finds_names_messages_tool_calls_and_summaries_with_utf16_positions() {
    let (_tmp, root, path) = root();
    let ex = explorer(&root);
    let r = ex.search("ZEPHYR", 50);
    assert_eq!(r.files_searched, 2);
    assert!(!r.truncated);
    let got: Vec<(Option<&str>, HitField)> = r.hits.iter().map(|h| (h.id.as_deref(), h.field)).collect();
    let m = HitField::Message;
    assert_eq!(
        got,
        [(None, HitField::Name), (Some("u1"), m), (Some("a1"), m), (Some("t1"), m), (Some("c1"), m), (Some("u3"), m)],
        "{:#?}",
        r.hits
    );
    for h in &r.hits {
        assert_eq!(h.path, path);
        assert_eq!(h.session_title, "Zephyr session");
        let units: Vec<u16> = h.snippet.encode_utf16().collect();
        let matched = String::from_utf16(&units[h.match_start as usize..(h.match_start + h.match_len) as usize]).unwrap();
        assert_eq!(matched.to_lowercase(), "zephyr", "{h:?}");
    }
    let u1 = &r.hits[1];
    assert_eq!((u1.snippet.as_str(), u1.match_start, u1.match_len, u1.line, u1.role.as_deref()), ("Plan the Zephyr migration", 9, 6, 2, Some("user")));
    assert_eq!(r.hits[4].role.as_deref(), Some("compaction"));
    // "after the compaction, " is 22 units, the wind emoji 2 and its variation selector 1, a space 1.
    assert_eq!(r.hits[5].match_start, 26);

    let labels = ex.search("checkpoint", 50);
    assert_eq!(labels.hits.len(), 1);
    assert_eq!((labels.hits[0].field, labels.hits[0].id.as_deref()), (HitField::Label, Some("u3")));

    let limited = ex.search("zephyr", 2);
    assert_eq!(limited.hits.len(), 2);
    assert!(limited.truncated);
    assert!(ex.search("   ", 50).hits.is_empty());
    assert!(ex.search("no such words anywhere", 50).hits.is_empty());

    let found = ex.find_in_session(&path, "zephyr").unwrap();
    assert_eq!(found.ids, ["u1", "a1", "t1", "c1", "u3", "n1"]);
    assert_eq!(ex.find_in_session(&path, "checkpoint").unwrap().ids, ["u3", "l1"]);
}

#[test]
fn transcript_markdown_is_the_active_path_or_the_entries_asked_for() {
    let (_tmp, root, path) = root();
    let ex = explorer(&root);
    let md = ex.transcript_markdown(&path, None).unwrap();
    let expected_start = "# Zephyr session\n\n## User\n\nPlan the Zephyr migration\n\n## Assistant\n\nStep one: inventory\n\n**Tool call:** `grep_files`\n\n```json\n{\n  \"pattern\": \"zephyr\"\n}\n```\n\n**Tool result** (`grep_files`)\n\n```\n3 matches in zephyr.toml\n```\n\n";
    assert!(md.starts_with(expected_start), "{md}");
    assert!(md.contains("> **Compaction summary**\n>\n> Summary: the Zephyr plan so far\n"), "{md}");
    assert!(md.ends_with("## User\n\nafter the compaction, 🌬️ zephyr again\n\n## Assistant\n\ndone\n\n"), "{md}");
    assert!(!md.contains("abandoned side quest"), "the side branch is not on the active path");
    assert!(!md.contains("checkpoint-label"), "bookkeeping lines are not in the transcript");
    let order: Vec<usize> = ["Plan the Zephyr", "second question", "second answer", "Compaction summary", "after the compaction"].iter().map(|t| md.find(t).unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");

    let some = ex.transcript_markdown(&path, Some(&["u4".to_string(), "nope".to_string(), "a2".to_string()])).unwrap();
    assert_eq!(some, "# Zephyr session\n\n## User\n\nabandoned side quest\n\n## Assistant\n\nsecond answer\n\n");
}

#[test]
fn context_pages_and_hidden_pages_of_a_compacted_path() {
    let (_tmp, root, path) = root();
    let ex = explorer(&root);
    let view = ex.context_view(&path, Some("a3")).unwrap();
    assert_eq!(view.total_messages, 5);
    assert_eq!(view.hidden_total, 3);
    assert_eq!(view.compaction.as_ref().map(|c| c.id.as_str()), Some("c1"));

    let page = ex.context_page(&path, Some("a3"), 0, 2).unwrap();
    let got: Vec<(u32, &str, &str, bool)> = page.iter().map(|m| (m.index, m.entry_id.as_str(), m.role.as_str(), m.kept)).collect();
    assert_eq!(got, [(0, "c1", "compactionSummary", false), (1, "u2", "user", true)]);
    assert_eq!(page[0].message["summary"], "Summary: the Zephyr plan so far");
    assert_eq!(page[1].message["content"], "second question");
    assert!(page.iter().all(|m| m.tokens > 0.0));

    let rest = ex.context_page(&path, Some("a3"), 2, 100).unwrap();
    let got: Vec<(u32, &str, &str, bool)> = rest.iter().map(|m| (m.index, m.entry_id.as_str(), m.role.as_str(), m.kept)).collect();
    assert_eq!(got, [(2, "a2", "assistant", true), (3, "u3", "user", false), (4, "a3", "assistant", false)]);
    assert_eq!(rest[0].line, 7);
    assert!(ex.context_page(&path, Some("a3"), 5, 10).unwrap().is_empty());
    assert!(ex.context_page(&path, Some("a3"), 99, 10).unwrap().is_empty());

    let hidden = ex.hidden_page(&path, Some("a3"), 0, 10).unwrap();
    let got: Vec<(&str, &str, Option<MessageRole>)> = hidden.iter().map(|h| (h.id.as_str(), h.kind.as_str(), h.role.clone())).collect();
    assert_eq!(
        got,
        [("u1", "message", Some(MessageRole::User)), ("a1", "message", Some(MessageRole::Assistant)), ("t1", "message", Some(MessageRole::ToolResult))]
    );
    assert!(hidden[0].preview.contains("Plan the Zephyr migration"), "{:?}", hidden[0]);
    assert!(hidden.iter().all(|h| h.tokens > 0.0));
    let second = ex.hidden_page(&path, Some("a3"), 1, 1).unwrap();
    assert_eq!(second.len(), 1);
    assert_eq!(second[0].id, "a1");
    assert_eq!(second[0].line, 3);

    // Before the compaction nothing is hidden; on the side branch neither.
    assert!(ex.hidden_page(&path, Some("a2"), 0, 10).unwrap().is_empty());
    let side = ex.context_page(&path, Some("u4"), 0, 10).unwrap();
    assert_eq!(side.iter().map(|m| m.entry_id.as_str()).collect::<Vec<_>>(), ["u1", "a1", "t1", "u4"]);
    assert!(side.iter().all(|m| !m.kept));
    assert_eq!(ex.context_page(&path, Some("nope"), 0, 10).unwrap_err().code(), "unknown-id");
}

/// On every demo session, at its leaf: the context's pages put together are pi's context
/// (`ContextJson`, the CLI's `context --json`), and the hidden pages its hidden entries.
#[test]
fn demo_sessions_context_pages_add_up_to_the_context() {
    common::private_cache();
    let demo = common::demo_sessions();
    let ex = explorer(&demo);
    let files: Vec<PathBuf> = common::files_under(&demo).into_iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")).collect();
    assert!(files.len() >= 10, "{} demo sessions", files.len());
    let mut compacted = 0;
    for f in &files {
        let s = Session::open(f).unwrap();
        let Some(leaf_id) = s.leaf_id().map(str::to_string) else { continue };
        let pi = ContextJson::of(&s, s.resolve_leaf(Some(Some(&leaf_id))).unwrap()).unwrap();
        let path = f.to_string_lossy().into_owned();
        let mut ids = Vec::new();
        let mut messages = Vec::new();
        let mut start = 0;
        loop {
            let page = ex.context_page(&path, Some(&leaf_id), start, 7).unwrap();
            if page.is_empty() {
                break;
            }
            assert!(page.iter().enumerate().all(|(k, m)| m.index as usize == start + k));
            start += page.len();
            ids.extend(page.iter().map(|m| m.entry_id.clone()));
            messages.extend(page.into_iter().map(|m| m.message));
        }
        assert_eq!(ids, pi.entry_ids, "{path}");
        let pi_messages: Vec<Value> = pi.messages.iter().map(|m| serde_json::from_str(m.get()).unwrap()).collect();
        assert_eq!(messages, pi_messages, "{path}");
        let mut hidden = Vec::new();
        loop {
            let page = ex.hidden_page(&path, Some(&leaf_id), hidden.len(), 5).unwrap();
            if page.is_empty() {
                break;
            }
            hidden.extend(page.into_iter().map(|h| h.id));
        }
        assert_eq!(hidden, pi.hidden_entry_ids, "{path}");
        compacted += usize::from(!hidden.is_empty());
    }
    assert!(compacted >= 3, "the demo has compacted sessions ({compacted})");
}

/// On every demo session the Markdown has one section per user and assistant message of the
/// transcript, in order.
#[test]
fn demo_sessions_markdown_follows_the_transcript() {
    common::private_cache();
    let demo = common::demo_sessions();
    let ex = explorer(&demo);
    for f in common::files_under(&demo).into_iter().filter(|p| p.extension().is_some_and(|e| e == "jsonl")) {
        let path = f.to_string_lossy().into_owned();
        let page = ex.transcript_page(&path, 0, 1000).unwrap();
        let md = ex.transcript_markdown(&path, None).unwrap();
        let users = page.items.iter().filter(|i| i.role == Some(MessageRole::User)).count();
        let assistants = page.items.iter().filter(|i| i.role == Some(MessageRole::Assistant)).count();
        assert_eq!(md.matches("## User\n").count(), users, "{path}");
        assert_eq!(md.matches("## Assistant\n").count(), assistants, "{path}");
        let mut at = 0;
        for i in page.items.iter().filter(|i| i.role == Some(MessageRole::User)) {
            // As written to Markdown: `<`, `>` and `&` outside code as entities.
            let text = pi_session::text::markdown::escape_html(pi_session::text::content_text(&i.raw["message"]["content"]).trim());
            let first = text.lines().next().unwrap_or("");
            let pos = md[at..].find(first).unwrap_or_else(|| panic!("{path}: {first:?} not in order"));
            at += pos + first.len();
        }
    }
}

/// Every file of the root is accounted for: files that hold no session (random bytes, text that
/// is not JSON) are listed apart with their finding and what pi does with them; an empty file is
/// a session row without entries that says what pi does with it, and is not the one to start on.
#[test]
fn unreadable_files_are_listed_with_what_pi_does() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("--p--");
    fs::create_dir_all(&folder).unwrap();
    let mut good = r#"{"type":"session","version":3,"id":"g","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_string() + "\n";
    good += &(user("u1", None, 1, "hello") + "\n");
    fs::write(folder.join("good.jsonl"), good).unwrap();
    let noise: Vec<u8> = (0..3000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    fs::write(folder.join("random.jsonl"), noise).unwrap();
    fs::write(folder.join("notes.jsonl"), "hello world\nthis is not json\n").unwrap();
    fs::write(folder.join("empty.jsonl"), "").unwrap();
    let list = explorer(dir.path()).list_sessions(None);
    let mut other: Vec<(String, &str, bool)> = list
        .other
        .iter()
        .map(|o| (Path::new(&o.path).file_name().unwrap().to_string_lossy().into_owned(), o.diagnostic.kind.as_str(), o.pi_note.as_deref().is_some_and(|n| n.contains("not a valid pi session"))))
        .collect();
    other.sort();
    assert_eq!(other, [("notes.jsonl".to_string(), "not-a-session", true), ("random.jsonl".to_string(), "not-a-session", true)]);
    let row = |name: &str| list.sessions.iter().find(|s| s.path.ends_with(name)).unwrap();
    let empty = row("empty.jsonl");
    assert!(!empty.has_entries);
    assert!(empty.pi_note.as_deref().unwrap().contains("fresh header"), "{:?}", empty.pi_note);
    assert!(row("good.jsonl").has_entries);
    assert_eq!(row("good.jsonl").pi_note, None);
}

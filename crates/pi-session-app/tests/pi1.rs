//! pi 1.x rules on top of pi 0.73.1's (see `context.rs`): context edits, system messages,
//! compaction `systemMessage` and keep-nothing, null content, `usage` in the totals, and the
//! finding for text before the header that pi 1.x refuses. Expected values follow pi 1.6.0's
//! `buildSessionContext` and `getSessionStats` (the differential suite checks the same against
//! the real pi 1.6.0).

use pi_session_app::explorer::Explorer;
use pi_session::summary::SessionSummary;
use pi_session::view::ContextJson;
use pi_session::{Leaf, Session};
use serde_json::{json, Value};

const HEADER: &str = r#"{"type":"session","version":3,"id":"019caf2b-a8c0-7719-a0e6-0000000000a1","timestamp":"2026-03-02T15:30:00.000Z","cwd":"/home/alice/proj"}"#;
const TS: &str = "2026-03-02T15:30:01.000Z";

fn msg(id: &str, parent: Option<&str>, message: Value) -> String {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":TS,"message":message}).to_string()
}
fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    msg(id, parent, json!({"role":"user","content":text,"timestamp":1}))
}
fn usage(tokens: [f64; 4], cost: f64) -> Value {
    json!({"input":tokens[0],"output":tokens[1],"cacheRead":tokens[2],"cacheWrite":tokens[3],"totalTokens":tokens.iter().sum::<f64>(),"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":cost}})
}
fn assistant(id: &str, parent: Option<&str>, text: &str) -> String {
    msg(id, parent, json!({"role":"assistant","content":[{"type":"text","text":text}],"provider":"p","model":"m","usage":usage([10.0, 5.0, 0.0, 0.0], 0.01),"stopReason":"stop","timestamp":2}))
}
fn tool_result(id: &str, parent: Option<&str>, text: &str) -> String {
    msg(id, parent, json!({"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":text}],"isError":false,"timestamp":3}))
}
fn system(id: &str, parent: Option<&str>, text: &str) -> String {
    msg(id, parent, json!({"role":"system","content":text,"timestamp":4}))
}
fn edit(id: &str, parent: &str, target: &str, replacement: Value) -> String {
    json!({"type":"context_edit","id":id,"parentId":parent,"timestamp":TS,"targetId":target,"replacement":replacement}).to_string()
}

struct Fx {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    path: std::path::PathBuf,
}

fn file(lines: &[String]) -> Fx {
    file_bytes(format!("{HEADER}\n{}\n", lines.join("\n")).as_bytes())
}

fn file_bytes(bytes: &[u8]) -> Fx {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let sub = root.join("--home-alice-proj--");
    std::fs::create_dir_all(&sub).unwrap();
    let path = sub.join("2026-03-02T15-30-00-000Z_019caf2b-a8c0-7719-a0e6-0000000000a1.jsonl");
    std::fs::write(&path, bytes).unwrap();
    Fx { _dir: dir, root, path }
}

fn messages(fx: &Fx, leaf: Option<&str>) -> Vec<Value> {
    let s = Session::open(&fx.path).unwrap();
    let leaf = match leaf {
        Some(id) => Leaf::Entry(s.node(id).unwrap()),
        None => s.tree.leaf,
    };
    let c = ContextJson::of(&s, leaf).unwrap();
    c.messages.iter().map(|m| serde_json::from_str(m.get()).unwrap()).collect()
}

fn roles(ms: &[Value]) -> Vec<&str> {
    ms.iter().map(|m| m["role"].as_str().unwrap_or("?")).collect()
}

fn kinds(fx: &Fx) -> Vec<String> {
    Session::open(&fx.path).unwrap().diagnostics().iter().map(|d| d.kind.as_str().to_string()).collect()
}

#[test]
fn a_context_edit_replaces_content_and_a_string_becomes_one_text_block_for_tool_results() {
    let fx = file(&[
        user("u1", None, "read it"),
        assistant("a1", Some("u1"), "reading"),
        tool_result("t1", Some("a1"), "a very long file body"),
        edit("e1", "t1", "t1", json!({"content":"[elided]"})),
        edit("e2", "e1", "u1", json!({"content":"read it (edited)"})),
        assistant("a2", Some("e2"), "done"),
    ]);
    let ms = messages(&fx, None);
    assert_eq!(roles(&ms), ["user", "assistant", "toolResult", "assistant"]);
    // A user message takes the string as it is; a tool result gets one text block.
    assert_eq!(ms[0]["content"], json!("read it (edited)"));
    assert_eq!(ms[2]["content"], json!([{"type":"text","text":"[elided]"}]));
    // The other keys stay, in their order.
    let keys: Vec<&String> = ms[2].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["role", "toolCallId", "toolName", "content", "isError", "timestamp"]);
    // Before the edit (at t1), the original is what the context holds.
    let before = messages(&fx, Some("t1"));
    assert_eq!(before[2]["content"], json!([{"type":"text","text":"a very long file body"}]));
}

#[test]
fn a_null_replacement_drops_the_message_and_the_latest_edit_wins() {
    let fx = file(&[
        user("u1", None, "q"),
        assistant("a1", Some("u1"), "bad answer"),
        edit("e1", "a1", "a1", json!({"content":"first replacement"})),
        edit("e2", "e1", "a1", Value::Null),
        user("u2", Some("e2"), "q2"),
        edit("e3", "u2", "u1", Value::Null),
        edit("e4", "e3", "u1", json!({"content":[{"type":"text","text":"q, rewritten"}]})),
    ]);
    let ms = messages(&fx, None);
    // a1: the latest edit (e2) drops it; u1: the latest (e4) replaces it.
    assert_eq!(roles(&ms), ["user", "user"]);
    assert_eq!(ms[0]["content"], json!([{"type":"text","text":"q, rewritten"}]));
    // At e1, only the first edit is on the path: a1 is replaced, not dropped.
    let at_e1 = messages(&fx, Some("e1"));
    assert_eq!(roles(&at_e1), ["user", "assistant"]);
    assert_eq!(at_e1[1]["content"], json!([{"type":"text","text":"first replacement"}]));
    // The audit: both targets, the original beside the replacement, the edit's line.
    let ex = Explorer::new(fx.root.clone(), "test", true);
    let v = ex.context_view(fx.path.to_str().unwrap(), Some("e4")).unwrap();
    assert_eq!(v.edited.len(), 2, "{:?}", v.edited);
    let u1 = &v.edited[0];
    assert_eq!((u1.id.as_str(), u1.dropped, u1.edit_id.as_str(), u1.edit_line), ("u1", false, "e4", 8));
    assert_eq!(u1.preview, "q");
    assert_eq!(u1.replacement_preview.as_deref(), Some("q, rewritten"));
    let a1 = &v.edited[1];
    assert_eq!((a1.id.as_str(), a1.dropped, a1.edit_id.as_str(), a1.edit_line), ("a1", true, "e2", 5));
    assert_eq!(a1.original["content"][0]["text"], json!("bad answer"));
    assert!(a1.replacement.is_none() && a1.replacement_preview.is_none());
}

#[test]
fn an_edit_on_another_branch_does_not_apply() {
    let fx = file(&[
        user("u1", None, "q"),
        assistant("a1", Some("u1"), "answer"),
        edit("e1", "a1", "a1", Value::Null),
        user("u2", Some("a1"), "other branch"),
    ]);
    let ms = messages(&fx, None);
    assert_eq!(roles(&ms), ["user", "assistant", "user"]);
    let ex = Explorer::new(fx.root.clone(), "test", true);
    assert!(ex.context_view(fx.path.to_str().unwrap(), Some("u2")).unwrap().edited.is_empty());
    assert_eq!(ex.context_view(fx.path.to_str().unwrap(), Some("e1")).unwrap().edited.len(), 1);
}

#[test]
fn the_full_width_audit_carries_the_context_edits_on_the_path_beside_the_compactions() {
    let fx = file(&[
        user("u1", None, "show the config"),
        tool_result("t1", Some("u1"), "SECRET-OUTPUT"),
        edit("e1", "t1", "t1", json!({"content":"[removed]"})),
        assistant("a1", Some("e1"), "WRONG-APPROACH"),
        edit("e2", "a1", "a1", Value::Null),
        json!({"type":"compaction","id":"c1","parentId":"e2","timestamp":TS,"summary":"S","firstKeptEntryId":"t1","tokensBefore":100}).to_string(),
        user("u2", Some("c1"), "go on"),
    ]);
    let ex = Explorer::new(fx.root.clone(), "test", true);
    let path = fx.path.to_str().unwrap();
    // At the session's leaf (None): the compaction, and both edits with their originals.
    let a = ex.audit_view(path, None).unwrap();
    assert_eq!(a.compactions.len(), 1);
    let got: Vec<_> = a.edited.iter().map(|x| (x.id.as_str(), x.dropped, x.edit_id.as_str(), x.edit_line)).collect();
    assert_eq!(got, [("t1", false, "e1", 4), ("a1", true, "e2", 6)]);
    assert_eq!(a.edited[0].original["content"][0]["text"], json!("SECRET-OUTPUT"));
    assert_eq!(a.edited[0].replacement.as_ref().unwrap()["content"], json!([{"type":"text","text":"[removed]"}]));
    assert_eq!(a.edited[0].replacement_preview.as_deref(), Some("[removed]"));
    assert_eq!(a.edited[1].original["content"][0]["text"], json!("WRONG-APPROACH"));
    assert!(a.edited[1].replacement.is_none());
    // One answer: the same as the context view's audit at the leaf.
    assert_eq!(a.edited, ex.context_view(path, Some("u2")).unwrap().edited);
    // Audited before the second edit: only the first applies; before the first, none.
    let at_a1 = ex.audit_view(path, Some("a1")).unwrap();
    assert_eq!(at_a1.edited.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(), ["t1"]);
    assert!(at_a1.compactions.is_empty());
    assert!(ex.audit_view(path, Some("t1")).unwrap().edited.is_empty());
}

#[test]
fn a_compaction_emits_its_system_message_first_and_drops_system_messages_in_its_kept_range() {
    let sys = json!({"role":"system","content":"You are pi.","timestamp":9});
    let fx = file(&[
        system("s1", None, "old system"),
        user("u1", Some("s1"), "q1"),
        system("s2", Some("u1"), "tools changed"),
        assistant("a1", Some("s2"), "a1"),
        json!({"type":"compaction","id":"c1","parentId":"a1","timestamp":TS,"summary":"S","firstKeptEntryId":"u1","tokensBefore":100,"systemMessage":sys}).to_string(),
        system("s3", Some("c1"), "after"),
        user("u2", Some("s3"), "q2"),
    ]);
    let ms = messages(&fx, None);
    assert_eq!(roles(&ms), ["system", "compactionSummary", "user", "assistant", "system", "user"]);
    assert_eq!(ms[0], sys);
    assert_eq!(ms[4]["content"], json!("after"));
    // The system message in the kept range is listed as hidden.
    let s = Session::open(&fx.path).unwrap();
    let c = ContextJson::of(&s, s.tree.leaf).unwrap();
    assert_eq!(c.hidden_entry_ids, ["s1", "s2"]);
}

#[test]
fn a_keep_nothing_compaction_keeps_nothing_and_is_not_dangling() {
    let fx = file(&[
        user("u1", None, "q1"),
        assistant("a1", Some("u1"), "a1"),
        json!({"type":"compaction","id":"c1","parentId":"a1","timestamp":TS,"summary":"S","firstKeptEntryId":"c1","tokensBefore":100,"usage":usage([100.0, 20.0, 0.0, 0.0], 0.5)}).to_string(),
        user("u2", Some("c1"), "q2"),
    ]);
    let ms = messages(&fx, None);
    assert_eq!(roles(&ms), ["compactionSummary", "user"]);
    assert_eq!(kinds(&fx), Vec::<String>::new());
    let ex = Explorer::new(fx.root.clone(), "test", true);
    let v = ex.context_view(fx.path.to_str().unwrap(), Some("u2")).unwrap();
    assert!(!v.compaction.unwrap().first_kept_dangling);
    assert_eq!(v.hidden_total, 2);
}

#[test]
fn null_content_becomes_empty_in_a_pi1_file_and_stays_null_in_a_pi0_file() {
    let lines = [
        msg("u1", None, json!({"role":"user","content":null,"timestamp":1})),
        msg("a1", Some("u1"), json!({"role":"assistant","provider":"p","model":"m","stopReason":"stop","timestamp":2})),
        json!({"type":"custom_message","id":"m1","parentId":"a1","timestamp":TS,"customType":"x","content":null,"display":true}).to_string(),
    ];
    let pi0 = messages(&file(&lines), None);
    assert_eq!(pi0[0]["content"], Value::Null);
    assert!(pi0[1].get("content").is_none());
    assert_eq!(pi0[2]["content"], Value::Null);
    // One entry only pi 1.x writes makes it a pi 1.x file.
    let mut with_sys = lines.to_vec();
    with_sys.push(msg("s1", Some("m1"), json!({"role":"system","content":null,"timestamp":4})));
    let pi1 = messages(&file(&with_sys), None);
    assert_eq!(pi1[0]["content"], json!([]));
    assert_eq!(pi1[1]["content"], json!([]));
    // A missing key is added last, as `{...message, content: []}` does.
    assert_eq!(pi1[1].as_object().unwrap().keys().last().unwrap(), "content");
    assert_eq!(pi1[2]["content"], json!([]));
    assert_eq!(pi1[3]["content"], json!(""));
}

#[test]
fn totals_count_usage_entries_and_the_usage_of_compactions_and_branch_summaries() {
    let fx = file(&[
        user("u1", None, "q"),
        assistant("a1", Some("u1"), "a"), // 15 tokens, 0.01
        json!({"type":"usage","id":"g1","parentId":"a1","timestamp":TS,"kind":"title","provider":"p","model":"m","usage":usage([100.0, 10.0, 5.0, 1.0], 0.25)}).to_string(),
        json!({"type":"branch_summary","id":"b1","parentId":"g1","timestamp":TS,"fromId":"g1","summary":"B","usage":usage([7.0, 3.0, 0.0, 0.0], 0.125)}).to_string(),
        json!({"type":"compaction","id":"c1","parentId":"b1","timestamp":TS,"summary":"S","firstKeptEntryId":"b1","tokensBefore":1,"usage":usage([40.0, 0.0, 0.0, 0.0], 0.0625)}).to_string(),
    ]);
    let s = Session::open(&fx.path).unwrap();
    let sum = SessionSummary::of(&s, 0);
    assert_eq!(sum.tokens, 15.0 + 116.0 + 10.0 + 40.0);
    assert!((sum.cost - (0.01 + 0.25 + 0.125 + 0.0625)).abs() < 1e-12, "{}", sum.cost);
    assert_eq!(kinds(&fx), Vec::<String>::new(), "usage entries are known types");
    // The inspector's path sums count the same entries.
    let ex = Explorer::new(fx.root.clone(), "test", true);
    let d = ex.entry_detail(fx.path.to_str().unwrap(), "c1").unwrap();
    assert_eq!(d.path_tokens, 181.0);
}

#[test]
fn text_before_the_header_that_pi1_rejects_is_a_finding() {
    let body = format!("{HEADER}\n{}\n", user("u1", None, "q"));
    for (prefix, want) in [("\u{feff}", true), ("\u{a0}", true), ("\u{2028}", true), ("  \t", false), ("", false)] {
        let fx = file_bytes(format!("{prefix}{body}").as_bytes());
        let k = kinds(&fx);
        assert_eq!(k.iter().any(|k| k == "refused-by-pi1"), want, "{prefix:?}: {k:?}");
        // Read as pi 0.73.1 reads it.
        assert_eq!(roles(&messages(&fx, None)), ["user"]);
    }
    // Only before the header: a Unicode space before a later line is not this finding.
    let fx = file_bytes(format!("{HEADER}\n\u{a0}{}\n", user("u1", None, "q")).as_bytes());
    assert!(!kinds(&fx).iter().any(|k| k == "refused-by-pi1"));
}

#[test]
fn usage_entries_and_context_edits_are_transcript_items_with_their_own_previews() {
    let fx = file(&[
        user("u1", None, "q"),
        assistant("a1", Some("u1"), "a"),
        json!({"type":"usage","id":"g1","parentId":"a1","timestamp":TS,"kind":"title","provider":"p","model":"m","usage":usage([1.0, 2.0, 0.0, 0.0], 0.0),"note":"session title"}).to_string(),
        edit("e1", "g1", "a1", Value::Null),
        edit("e2", "e1", "u1", json!({"content":"short"})),
    ]);
    let ex = Explorer::new(fx.root.clone(), "test", true);
    let page = ex.transcript_page(fx.path.to_str().unwrap(), 0, 100).unwrap();
    let kinds: Vec<&str> = page.items.iter().map(|i| i.kind.as_str()).collect();
    assert_eq!(kinds, ["message", "message", "usage", "context_edit", "context_edit"]);
    let s = Session::open(&fx.path).unwrap();
    let mut r = pi_session::context::BodyReader::open(&s.index).unwrap();
    let pv = |id: &str, r: &mut pi_session::context::BodyReader<'_>| {
        let i = s.node(id).unwrap();
        pi_session::text::preview(&s.index.entries[i as usize], Some(&r.line(i).unwrap())).text
    };
    assert_eq!(pv("g1", &mut r), "title p/m · 3 tokens · session title");
    assert_eq!(pv("e1", &mut r), "drops a1 from the context");
    assert_eq!(pv("e2", &mut r), "replaces u1: short");
}

#[test]
fn a_forks_branch_summary_may_name_a_from_id_left_in_the_parent_session() {
    // pi 1.x's fromId is the old leaf; after createBranchedSession it can stay in the parent.
    let summary = |parent_session: Option<&str>| {
        let mut header: Value = serde_json::from_str(HEADER).unwrap();
        if let Some(p) = parent_session {
            header["parentSession"] = json!(p);
        }
        let lines = [
            user("u1", None, "q"),
            json!({"type":"branch_summary","id":"b1","parentId":"u1","timestamp":TS,"fromId":"gone0000","summary":"B"}).to_string(),
        ];
        file_bytes(format!("{header}\n{}\n", lines.join("\n")).as_bytes())
    };
    assert_eq!(kinds(&summary(None)), ["dangling-from"]);
    let fork = summary(Some("/home/alice/.pi/agent/sessions/--home-alice-proj--/parent.jsonl"));
    assert!(!kinds(&fork).iter().any(|k| k == "dangling-from"), "{:?}", kinds(&fork));
}

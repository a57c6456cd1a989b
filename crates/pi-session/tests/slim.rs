//! Slim fork and pruned copy on hand-built trees: which entries are copied, which are re-linked,
//! and that our context at the new file's leaf equals the source's at the node. (The real pis
//! check the same on sessions they wrote: tests/steer.)

use pi_session::slim::{fork_slim, prune, slim_plan};
use pi_session::view::ContextJson;
use pi_session::write::WriteOptions;
use pi_session::{Leaf, Session};

fn write(dir: &std::path::Path, lines: &[&str]) -> std::path::PathBuf {
    let p = dir.join("2026-03-01T10-00-00-000Z_s.jsonl");
    let mut text = String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}"#);
    text.push('\n');
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    std::fs::write(&p, text).unwrap();
    p
}

fn msg(id: &str, parent: &str, role: &str, n: u32) -> String {
    let parent = if parent.is_empty() { "null".to_string() } else { format!("\"{parent}\"") };
    let extra = if role == "assistant" { r#","provider":"prov","model":"hidden-model""# } else { "" };
    format!(r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-03-01T10:00:{n:02}.000Z","message":{{"role":"{role}","content":"m{n}"{extra},"timestamp":{n}}}}}"#)
}

fn same_context(src: &Session, at: &str, new: &std::path::Path) {
    let a = ContextJson::of(src, Leaf::Entry(src.node(at).unwrap())).unwrap();
    let n = Session::open(new).unwrap();
    let b = ContextJson::of(&n, n.tree.leaf).unwrap();
    assert_eq!(serde_json::to_value(&a.messages).unwrap(), serde_json::to_value(&b.messages).unwrap());
    assert_eq!((a.model, a.thinking_level), (b.model, b.thinking_level));
    assert!(n.diagnostics().iter().all(|d| d.kind.as_str() != "missing-parent"), "{:?}", n.diagnostics());
}

#[test]
fn keep_nothing_compaction_keeps_the_hidden_model_and_thinking_level() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"type":"model_change","id":"m0","parentId":null,"timestamp":"2026-03-01T10:00:00.000Z","provider":"a","modelId":"first"}"#.to_string(),
        r#"{"type":"thinking_level_change","id":"t0","parentId":"m0","timestamp":"2026-03-01T10:00:00.500Z","thinkingLevel":"high"}"#.to_string(),
        msg("u1", "t0", "user", 1),
        msg("a1", "u1", "assistant", 2),
        // pi 1.6 keeps nothing: firstKeptEntryId names the compaction itself.
        r#"{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2026-03-01T10:00:03.000Z","summary":"all of it","firstKeptEntryId":"c1","tokensBefore":5}"#.to_string(),
        msg("u2", "c1", "user", 4),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let f = write(dir.path(), &refs);
    let s = Session::open(&f).unwrap();
    let plan: Vec<&str> = slim_plan(&s, s.node("u2").unwrap()).unwrap().into_iter().map(|i| s.id_of(i)).collect();
    // a1 decides the model (not m0), t0 the thinking level; both hidden, both copied.
    assert_eq!(plan, ["t0", "a1", "c1", "u2"]);
    let out = fork_slim(&f, "u2", &WriteOptions::default()).unwrap();
    assert_eq!(out.relinked, ["t0", "a1"]);
    same_context(&s, "u2", &out.file);
    let ctx = ContextJson::of(&s, Leaf::Entry(s.node("u2").unwrap())).unwrap();
    assert_eq!(ctx.model.unwrap().model_id.as_deref(), Some("hidden-model"));
    assert_eq!(ctx.thinking_level.as_deref(), Some("high"));
}

#[test]
fn settings_overridden_in_the_kept_range_are_not_copied_and_a_path_without_compaction_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        r#"{"type":"thinking_level_change","id":"t0","parentId":null,"timestamp":"2026-03-01T10:00:00.000Z","thinkingLevel":"high"}"#.to_string(),
        msg("u1", "t0", "user", 1),
        msg("a1", "u1", "assistant", 2),
        msg("u2", "a1", "user", 3),
        r#"{"type":"thinking_level_change","id":"t1","parentId":"u2","timestamp":"2026-03-01T10:00:03.500Z","thinkingLevel":"low"}"#.to_string(),
        msg("a2", "t1", "assistant", 4),
        r#"{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-03-01T10:00:05.000Z","summary":"s","firstKeptEntryId":"u2","tokensBefore":5}"#.to_string(),
        msg("u3", "c1", "user", 6),
        msg("x1", "u1", "user", 7),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let f = write(dir.path(), &refs);
    let s = Session::open(&f).unwrap();
    let plan: Vec<&str> = slim_plan(&s, s.node("u3").unwrap()).unwrap().into_iter().map(|i| s.id_of(i)).collect();
    assert_eq!(plan, ["u2", "t1", "a2", "c1", "u3"]);
    let out = fork_slim(&f, "u3", &WriteOptions::default()).unwrap();
    assert_eq!(out.relinked, ["u2"]);
    same_context(&s, "u3", &out.file);
    assert!(slim_plan(&s, s.node("x1").unwrap()).is_none());
    let err = fork_slim(&f, "x1", &WriteOptions::default()).unwrap_err();
    assert_eq!(err.code(), "no-compaction");
    // A pruned copy of both branches: every line byte for byte, each leaf's context unchanged.
    let p = prune(&f, &["u3".into(), "x1".into()], &WriteOptions::default()).unwrap();
    assert_eq!((p.copied, p.dropped), (9, 0));
    let src_text = std::fs::read_to_string(&f).unwrap();
    let copy_text = std::fs::read_to_string(&p.file).unwrap();
    for l in src_text.lines().skip(1) {
        assert!(copy_text.lines().any(|c| c == l), "line copied byte for byte: {l}");
    }
    for leaf in ["u3", "x1"] {
        let c = Session::open(&p.file).unwrap();
        let a = ContextJson::of(&s, Leaf::Entry(s.node(leaf).unwrap())).unwrap();
        let b = ContextJson::of(&c, Leaf::Entry(c.node(leaf).unwrap())).unwrap();
        assert_eq!(serde_json::to_value(&a.messages).unwrap(), serde_json::to_value(&b.messages).unwrap());
    }
}

/// A slim fork, a pruned copy and a plain fork of one compacted, branched session, told apart
/// from the lines they hold (nothing in their headers says which is which), with the fork
/// point's position in the parent.
#[test]
fn copies_are_told_apart_by_what_they_hold() {
    use pi_session::forks::{copy_kind, points, CopyKind};
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        msg("u1", "", "user", 1),
        msg("a1", "u1", "assistant", 2),
        msg("u2", "a1", "user", 3),
        msg("a2", "u2", "assistant", 4),
        r#"{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-03-01T10:00:05.000Z","summary":"s","firstKeptEntryId":"u2","tokensBefore":5}"#.to_string(),
        msg("u3", "c1", "user", 6),
        msg("a3", "u3", "assistant", 7),
        msg("x1", "a1", "user", 8),
        msg("x2", "x1", "assistant", 9),
        msg("y1", "u1", "user", 10),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let f = write(dir.path(), &refs);
    let src = Session::open(&f).unwrap();
    let opts = WriteOptions::default();
    let kind = |file: &std::path::Path| {
        let child = Session::open(file).unwrap();
        let p = points(&src, &[&child]).remove(0);
        (p.copy, p.fork_point_id.clone().unwrap(), p.fork_point_entry, p.parent_entries, copy_kind(&child, &src, p.fork_point_id.as_deref().unwrap()))
    };
    let slim = fork_slim(&f, "a3", &opts).unwrap();
    let (copy, id, entry, of, direct) = kind(&slim.file);
    assert_eq!((copy, id.as_str(), entry, of, direct), (Some(CopyKind::Slim), "a3", Some(7), Some(10), Some(CopyKind::Slim)));
    let pruned = prune(&f, &["a3".to_string(), "x2".to_string()], &opts).unwrap();
    assert_eq!(kind(&pruned.file).0, Some(CopyKind::Pruned));
    let plain = pi_session::write::fork(&f, Some("a3"), &opts).unwrap();
    let (copy, id, entry, ..) = kind(&plain.file);
    assert_eq!((copy, id.as_str(), entry), (None, "a3", Some(7)));
    // Every branch kept: a whole copy, not pruned; one branch kept: a fork of that branch.
    let all = prune(&f, &["a3".to_string(), "x2".to_string(), "y1".to_string()], &opts).unwrap();
    assert_eq!(kind(&all.file).0, None);
    let one = prune(&f, &["x2".to_string()], &opts).unwrap();
    assert_eq!(kind(&one.file).0, None);
}

//! The three journeys' core rules (issue 12), on a session the real pi wrote (the demo's
//! cli-tool session with a tool-result/branch-summary branch point and a tool-result/user one):
//! a switcher at every branch point whatever the siblings' kinds, a view-only transcript of
//! another branch, the effective leaf that label lines do not move, children without
//! bookkeeping lines, and undo of navigate and label as new appends.

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pi_session_app::explorer::Explorer;

const FILE: &str = "--home-alice-projects-cli-tool--/2026-03-02T22-59-24-626Z_019cb0c7-1b52-7122-a36e-20a83636094f.jsonl";

fn setup() -> (tempfile::TempDir, PathBuf, String) {
    common::private_cache();
    let (tmp, root) = common::demo_copy();
    let path = root.join(FILE).to_string_lossy().into_owned();
    (tmp, root, path)
}

fn writer(root: &Path) -> Explorer {
    Explorer::new(root.to_path_buf(), "flag", false)
}

/// The transcript item of `id` on the path to `leaf` (a view-only override).
fn item(ex: &Explorer, path: &str, leaf: &str, id: &str) -> pi_session_app::api::TranscriptItem {
    let page = ex.transcript_page_at(path, Some(leaf), 0, 1000).unwrap();
    page.items.into_iter().find(|i| i.id == id).unwrap_or_else(|| panic!("{id} on the path to {leaf}"))
}

#[test]
fn every_branch_point_on_the_path_has_a_switcher_whatever_the_kinds() {
    let (_tmp, root, path) = setup();
    let ex = Explorer::new(root, "flag", true);
    // 06b8f7e2 (assistant) → 96cd49f0 (tool result) | 3048b6a5 (branch summary).
    let tool = item(&ex, &path, "96cd49f0", "96cd49f0");
    let s = tool.siblings.expect("a switcher on the tool result");
    assert_eq!((s.index, s.count), (1, 2));
    assert_eq!(s.next_id.as_deref(), Some("3048b6a5"));
    let summary = item(&ex, &path, "3048b6a5", "3048b6a5");
    assert_eq!(summary.kind, pi_session::EntryType::BranchSummary);
    let s = summary.siblings.expect("a switcher on the branch summary");
    assert_eq!((s.index, s.count), (2, 2));
    assert_eq!(s.prev_id.as_deref(), Some("96cd49f0"));
    // 77b4759a (assistant) → 4d5b074a (tool result) | ce20f1fc (user).
    let s = item(&ex, &path, "4d5b074a", "4d5b074a").siblings.expect("tool result sibling of a user message");
    assert_eq!((s.index, s.count, s.next_id.as_deref()), (1, 2, Some("ce20f1fc")));
    // An entry without siblings has none.
    assert!(item(&ex, &path, "06b8f7e2", "06b8f7e2").siblings.is_none());
}

#[test]
fn switching_returns_the_branch_to_show_and_writes_nothing_read_only_or_not() {
    let (_tmp, root, path) = setup();
    for read_only in [true, false] {
        let ex = Explorer::new(root.clone(), "flag", read_only);
        let before = fs::read(&path).unwrap();
        let leaf = ex.switch_branch(&path, "96cd49f0").unwrap().leaf_id;
        assert_eq!(fs::read(&path).unwrap(), before, "nothing written (read-only {read_only})");
        // The view-only transcript ends on that branch; the session's own transcript is unchanged.
        let view = ex.transcript_page_at(&path, Some(&leaf), 0, 1000).unwrap();
        assert_eq!(view.leaf_id.as_deref(), Some(leaf.as_str()));
        assert!(view.items.iter().any(|i| i.id == "96cd49f0"));
        assert!(!view.items.iter().any(|i| i.id == "3048b6a5"));
        let own = ex.transcript_page(&path, 0, 1000).unwrap();
        assert_ne!(own.items.last().map(|i| i.id.clone()), view.items.last().map(|i| i.id.clone()));
        // An unknown view leaf is an error, not an empty page.
        assert!(ex.transcript_page_at(&path, Some("nope-nope"), 0, 10).is_err());
        assert!(ex.switch_branch(&path, "nope-nope").is_err());
    }
}

/// The raw line of entry `id` in `path`, parsed.
fn line_of(path: &str, id: &str) -> serde_json::Value {
    fs::read_to_string(path).unwrap().lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()).find(|v| v["id"] == id).unwrap_or_else(|| panic!("{id} in {path}"))
}

#[test]
fn resume_here_follows_pis_tree_rule_user_messages_resume_at_their_parent() {
    let (_tmp, root, path) = setup();
    let ex = writer(&root);
    // A user message (ce20f1fc, written by the real pi): the leaf goes to its parent, the text to pi's editor.
    let user = line_of(&path, "ce20f1fc");
    assert_eq!(user["message"]["role"], "user");
    let d = ex.entry_detail(&path, "ce20f1fc").unwrap();
    assert!(d.resume.to_editor);
    assert_eq!(d.resume.target_id.as_deref(), user["parentId"].as_str(), "{:?}", d.resume);
    assert!(d.resume.note.contains("editor"), "{}", d.resume.note);
    assert!(!d.resume.current);
    // Any other entry (a tool result, an assistant message): the leaf goes to the entry itself.
    for id in ["4d5b074a", "06b8f7e2"] {
        let d = ex.entry_detail(&path, id).unwrap();
        assert_eq!((d.resume.target_id.as_deref(), d.resume.to_editor), (Some(id), false), "{id}");
        assert!(!d.resume.note.contains("editor back"), "{}", d.resume.note);
    }
    // Writing it moves pi's leaf there; then pi already resumes there (nothing more to write).
    let target = d_target(&ex, &path, "ce20f1fc");
    ex.navigate(&path, target.as_deref()).unwrap();
    let d = ex.entry_detail(&path, "ce20f1fc").unwrap();
    assert!(d.resume.current, "{:?}", d.resume);
    assert_eq!(ex.tree_page(&query(&path), 0, 1).unwrap().meta.effective_leaf_id, target);
    // A label line appended after the leaf does not move where pi resumes.
    ex.set_label(&path, target.as_deref().unwrap(), Some("here")).unwrap();
    let meta = ex.tree_page(&query(&path), 0, 1).unwrap().meta;
    assert_ne!(meta.leaf_id, target, "the file's last line is the label line");
    assert_eq!(meta.effective_leaf_id, target, "the status bar shows the entry, not the label line");
    assert!(ex.entry_detail(&path, "ce20f1fc").unwrap().resume.current);
}

fn d_target(ex: &Explorer, path: &str, id: &str) -> Option<String> {
    ex.entry_detail(path, id).unwrap().resume.target_id
}

#[test]
fn resume_at_a_first_user_message_is_before_the_first_entry_and_a_bookkeeping_parent_is_skipped() {
    common::private_cache();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("--tmp-p--");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("2026-01-01T00-00-00-000Z_s.jsonl");
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp/p"}"#,
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"first","timestamp":1}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"timestamp":2}}"#,
        r#"{"type":"label","id":"l1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","targetId":"a1","label":"x"}"#,
        r#"{"type":"message","id":"u2","parentId":"l1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"second","timestamp":4}}"#,
        r#"{"type":"custom_message","id":"c1","parentId":"u2","timestamp":"2026-01-01T00:00:05.000Z","customType":"note","content":"hi","display":true}"#,
    ];
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let ex = Explorer::new(tmp.path().to_path_buf(), "flag", false);
    let path = file.to_string_lossy().into_owned();
    let r = ex.entry_detail(&path, "u1").unwrap().resume;
    assert_eq!((r.target_id, r.to_editor), (None, true), "the first message: before the first entry");
    // u2 hangs off a label line (pi appended it after one): pi resumes at the entry above it.
    let r = ex.entry_detail(&path, "u2").unwrap().resume;
    assert_eq!((r.target_id.as_deref(), r.to_editor), (Some("a1"), true));
    // A custom message goes back to pi's editor too, as pi's /tree does.
    let r = ex.entry_detail(&path, "c1").unwrap().resume;
    assert_eq!((r.target_id.as_deref(), r.to_editor, r.current), (Some("u2"), true, false));
    assert!(r.note.contains("custom message"), "{}", r.note);
    // pi's leaf is c1 (the last line), so resuming at a1 is a move.
    assert!(!ex.entry_detail(&path, "a1").unwrap().resume.current);
}

#[test]
fn one_branch_count_for_the_list_the_status_bar_and_the_tree() {
    common::private_cache();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("--tmp-p--");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("2026-01-01T00-00-00-000Z_s.jsonl");
    // a1 has a child u2 and a label line whose child u3 hangs under a1 as drawn: a branch point.
    // u2 has one child and a label line with no child: not one.
    let msg = |id: &str, parent: &str, role: &str, t: u32| {
        format!(r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:{t:02}.000Z","message":{{"role":"{role}","content":"x","timestamp":{t}}}}}"#)
    };
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp/p"}"#.to_string(),
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}"#.to_string(),
        msg("a1", "u1", "assistant", 2),
        msg("u2", "a1", "user", 3),
        r#"{"type":"label","id":"l1","parentId":"a1","timestamp":"2026-01-01T00:00:04.000Z","targetId":"u1","label":"x"}"#.to_string(),
        msg("u3", "l1", "user", 5),
        msg("a2", "u2", "assistant", 6),
        r#"{"type":"label","id":"l2","parentId":"u2","timestamp":"2026-01-01T00:00:07.000Z","targetId":"u2","label":"y"}"#.to_string(),
    ];
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let s = pi_session::Session::open(&file).unwrap();
    assert_eq!(s.branch_points(), 1);
    let ex = Explorer::new(tmp.path().to_path_buf(), "flag", true);
    let path = file.to_string_lossy().into_owned();
    let row = ex.list_sessions(None).sessions.into_iter().find(|r| r.path == path).unwrap();
    let page = ex.tree_page(&query(&path), 0, 100).unwrap();
    assert_eq!(row.branch_points, 1, "the list");
    assert_eq!(page.meta.branch_points, 1, "the status bar");
    // The tree draws exactly that many rows with more than one child.
    assert_eq!(page.rows.iter().filter(|r| r.child_count > 1).count(), 1, "the tree");
}

#[test]
fn the_audit_of_a_path_without_compactions_names_those_elsewhere() {
    common::private_cache();
    let (_tmp, root) = common::demo_copy();
    let path = root.join(TWO_COMPACTIONS).to_string_lossy().into_owned();
    let ex = Explorer::new(root, "flag", true);
    let s = pi_session::Session::open(Path::new(&path)).unwrap();
    let active = s.tree.active_path();
    // The entry before the first compaction: nothing on its path; both compactions are elsewhere.
    let first = active.iter().position(|&i| s.id_of(i) == "4506851c").unwrap();
    let early = s.id_of(active[first - 1]).to_string();
    let a = ex.audit_view(&path, Some(&early)).unwrap();
    assert!(a.compactions.is_empty());
    // Every compaction of the file, in file order: the two of the active path and one on a side branch.
    let all: Vec<&str> = s.index.entries.iter().filter(|e| e.kind == pi_session_format::entry::Kind::Compaction).map(|e| e.id_str()).collect();
    let ids: Vec<_> = a.elsewhere.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, all);
    assert_eq!(ids, vec!["4506851c", "41ef9861", "f1bd77f7"]);
    assert!(a.elsewhere.iter().all(|c| c.tokens_before.is_some() && c.line > 0));
    // At the leaf the path's two are audited; only the side branch's is elsewhere.
    let at_leaf = ex.audit_view(&path, None).unwrap();
    assert_eq!(at_leaf.compactions.len(), 2);
    assert_eq!(at_leaf.elsewhere.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), vec!["41ef9861"]);
}

#[test]
fn a_label_line_does_not_move_the_leaf_chip_nor_add_a_child() {
    let (_tmp, root, path) = setup();
    let ex = writer(&root);
    // Move the leaf to a branch point, then label it: pi hangs the label line off the leaf.
    ex.navigate(&path, Some("06b8f7e2")).unwrap();
    let d = ex.entry_detail(&path, "06b8f7e2").unwrap();
    assert!(d.is_leaf);
    assert_eq!(d.child_ids, vec!["96cd49f0", "3048b6a5"]);
    let w = ex.set_label(&path, "06b8f7e2", Some("here")).unwrap();
    assert!(w.line.contains("\"type\":\"label\""), "{}", w.line);
    let d = ex.entry_detail(&path, "06b8f7e2").unwrap();
    assert_eq!(d.label.as_deref(), Some("here"));
    assert!(d.is_leaf, "the leaf chip stays on the entry after a label line");
    assert_eq!(d.child_ids, vec!["96cd49f0", "3048b6a5"], "the label line is not a child");
    // The tree draws the leaf on the same row.
    let q = pi_session_app::api::TreeQuery { path: path.clone(), filter: pi_session_app::api::TreeFilter::Default, expanded: vec![], collapsed: vec![], unified: false };
    let page = ex.tree_page(&q, 0, 100_000).unwrap();
    let leaf_rows: Vec<_> = page.rows.iter().filter(|r| r.is_leaf).map(|r| r.id.clone()).collect();
    assert_eq!(leaf_rows, vec!["06b8f7e2"]);
}

#[test]
fn undo_of_navigate_and_label_are_new_appends_and_restore_the_state() {
    let (_tmp, root, path) = setup();
    let ex = writer(&root);
    let leaf0 = ex.tree_page(&query(&path), 0, 1).unwrap().meta.leaf_id.expect("a leaf");
    let s0 = pi_session::Session::open(Path::new(&path)).unwrap();
    let context0 = pi_session::view::ContextJson::of(&s0, leaf_of(&path)).unwrap();
    let bytes0 = fs::read(&path).unwrap();
    // Navigate, then undo: a navigate back to the previous leaf, appended.
    ex.navigate(&path, Some("96cd49f0")).unwrap();
    ex.navigate(&path, Some(&leaf0)).unwrap();
    let bytes1 = fs::read(&path).unwrap();
    assert!(bytes1.starts_with(&bytes0), "prefix invariant");
    assert_eq!(bytes1[bytes0.len()..].iter().filter(|&&b| b == b'\n').count(), 2, "two lines appended");
    let s = pi_session::Session::open(Path::new(&path)).unwrap();
    assert_eq!(s.leaf_id(), Some(leaf0.as_str()));
    let context1 = pi_session::view::ContextJson::of(&s, leaf_of(&path)).unwrap();
    assert_eq!(context1.entry_ids, context0.entry_ids, "the context is what it was");
    // Label, then undo: the previous label (none) is restored by a new label line.
    let before = ex.entry_detail(&path, "4d5b074a").unwrap().label;
    assert_eq!(before, None);
    ex.set_label(&path, "4d5b074a", Some("try")).unwrap();
    ex.set_label(&path, "4d5b074a", before.as_deref()).unwrap();
    let bytes2 = fs::read(&path).unwrap();
    assert!(bytes2.starts_with(&bytes1), "prefix invariant");
    assert_eq!(ex.entry_detail(&path, "4d5b074a").unwrap().label, None);
    // And the existing "checkpoint" label comes back after being changed.
    let old = ex.entry_detail(&path, "2f3ac1e7").unwrap().label;
    assert_eq!(old.as_deref(), Some("checkpoint"));
    ex.set_label(&path, "2f3ac1e7", Some("moved")).unwrap();
    ex.set_label(&path, "2f3ac1e7", old.as_deref()).unwrap();
    assert_eq!(ex.entry_detail(&path, "2f3ac1e7").unwrap().label.as_deref(), Some("checkpoint"));
    assert!(fs::read(&path).unwrap().starts_with(&bytes2), "prefix invariant");
}

fn query(path: &str) -> pi_session_app::api::TreeQuery {
    pi_session_app::api::TreeQuery { path: path.to_string(), filter: pi_session_app::api::TreeFilter::Default, expanded: vec![], collapsed: vec![], unified: false }
}

fn leaf_of(path: &str) -> pi_session::tree::Leaf {
    pi_session::Session::open(Path::new(path)).unwrap().tree.leaf
}

const TWO_COMPACTIONS: &str = "--home-alice-projects-cli-tool--/2026-03-02T16-05-49-386Z_019caf4c-74ca-74dd-bb9b-3973465f4881.jsonl";

#[test]
fn the_audit_lists_every_compaction_on_the_path_with_what_each_hid() {
    common::private_cache();
    let (_tmp, root) = common::demo_copy();
    let path = root.join(TWO_COMPACTIONS).to_string_lossy().into_owned();
    let ex = Explorer::new(root, "flag", true);
    let a = ex.audit_view(&path, None).unwrap();
    let ids: Vec<_> = a.compactions.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, vec!["4506851c", "f1bd77f7"], "oldest first");
    let s = pi_session::Session::open(Path::new(&path)).unwrap();
    let active = s.tree.active_path();
    let pos = |id: &str| active.iter().position(|&i| s.id_of(i) == id).unwrap();
    let mut seen = std::collections::HashSet::new();
    for c in &a.compactions {
        assert!(!c.summary.is_empty(), "the whole summary");
        assert_eq!(c.hidden.len() as u32, c.hidden_messages + c.hidden_bookkeeping, "counts match the list");
        assert!(c.hidden_messages > 0, "{} hid messages", c.id);
        assert!(c.tokens_after > 0.0);
        // The figure after is the summary and the kept messages; the summary is one part of it.
        assert!(c.summary_tokens > 0.0 && c.summary_tokens <= c.tokens_after, "{} {}", c.summary_tokens, c.tokens_after);
        assert_eq!(c.summary_tokens < c.tokens_after, c.kept_messages > 0);
        if let Some(b) = c.tokens_before {
            assert!(c.tokens_after < b, "compaction shrinks the context ({} → {})", b, c.tokens_after);
        }
        // Hidden entries lie on the path before the kept start, none twice, none a compaction.
        let kept = c.first_kept_entry_id.as_deref().map(pos).unwrap_or_else(|| pos(&c.id));
        for h in &c.hidden {
            assert!(pos(&h.id) < kept, "{} before the kept start", h.id);
            assert!(seen.insert(h.id.clone()), "{} hidden once", h.id);
            assert_ne!(h.kind, "compaction");
            assert_eq!(h.message, pi_session_app::explorer::is_context_message(&s.index.entries[s.node(&h.id).unwrap() as usize].kind));
        }
    }
    // Together they hide exactly what the context at the leaf leaves out (compactions aside).
    let plan = s.context(s.tree.leaf);
    let mut want: Vec<String> = plan.hidden.iter().filter(|&&i| s.index.entries[i as usize].kind != pi_session_format::entry::Kind::Compaction).map(|&i| s.id_of(i).to_string()).collect();
    let mut got: Vec<String> = seen.into_iter().collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    // Audited at an entry before the second compaction: only the first.
    let first = &a.compactions[0];
    let before_second = s.id_of(active[pos("f1bd77f7") - 1]).to_string();
    let a1 = ex.audit_view(&path, Some(&before_second)).unwrap();
    assert_eq!(a1.compactions.len(), 1);
    assert_eq!(a1.compactions[0].hidden, first.hidden);
}

#[test]
fn fork_graph_edges_carry_the_message_where_the_fork_happened() {
    common::private_cache();
    let (_tmp, root) = common::demo_copy();
    let ex = Explorer::new(root, "flag", true);
    let g = ex.fork_graph();
    let forks: Vec<_> = g.nodes.iter().filter(|n| n.parent_path.is_some() && n.fork_point_id.is_some()).collect();
    assert!(forks.len() >= 5, "demo forks ({})", forks.len());
    for f in forks {
        let text = f.fork_point_preview.as_deref().unwrap_or_else(|| panic!("{} has the fork point's text", f.path));
        // The text is the fork point entry's own preview, read from the parent.
        let parent = pi_session::Session::open(Path::new(f.parent_path.as_deref().unwrap())).unwrap();
        let id = f.fork_point_id.as_deref().unwrap();
        let i = parent.node(id).unwrap();
        let line = fs::read_to_string(&parent.index.path).unwrap().lines().nth(parent.index.entries[i as usize].line as usize - 1).unwrap().to_string();
        let want = pi_session::text::preview(&parent.index.entries[i as usize], Some(&line)).text;
        assert_eq!(text, want, "{}", f.path);
    }
}

//! Lineage on small hand-built files (docs/format.md, "Forks and spawned sessions", "Family"):
//! a parent found again by its session id after a move, in a copy and behind links; a stale
//! path reported, not trusted; spawns told apart from forks, each finding its own tool call;
//! own and family figures; a child outside the root listed, opened read-only and never written.

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pi_session::cache::ListCache;
use pi_session::forks::{ForkInfo, ForkStatus, Lineage, LinkKind};
use pi_session::listing::fork_graph_cached;
use pi_session::listing::list;
use pi_session::{DiagKind, Error};
use serde_json::{json, Value};

const P: &str = "0199a000-0000-7000-8000-00000000000a";
const S1: &str = "0199a000-0000-7000-8000-0000000000b1";
const S2: &str = "0199a000-0000-7000-8000-0000000000b2";
const S3: &str = "0199a000-0000-7000-8000-0000000000b3";
const S4: &str = "0199a000-0000-7000-8000-0000000000b4";
const NESTED: &str = "0199a000-0000-7000-8000-0000000000c1";
const FORK: &str = "0199a000-0000-7000-8000-0000000000f1";
const CWD: &str = "--home-u-app--";

fn ts(s: u64) -> String {
    format!("2026-05-01T10:{:02}:{:02}.000Z", s / 60, s % 60)
}

fn name(t: u64, id: &str) -> String {
    format!("{}_{id}.jsonl", ts(t).replace([':', '.'], "-"))
}

fn header(id: &str, t: u64, parent: Option<&Path>) -> Value {
    let mut h = json!({"type": "session", "version": 3, "id": id, "timestamp": ts(t), "cwd": "/home/u/app"});
    if let Some(p) = parent {
        h["parentSession"] = json!(p.to_string_lossy());
    }
    h
}

fn msg(id: &str, parent: Option<&str>, t: u64, m: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(t), "message": m})
}

fn usage(tokens: u64, cost: f64) -> Value {
    json!({"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens, "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}})
}

fn user(id: &str, parent: Option<&str>, t: u64, text: &str) -> Value {
    msg(id, parent, t, json!({"role": "user", "content": text, "timestamp": t}))
}

fn assistant(id: &str, parent: &str, t: u64, content: Value, tokens: u64, cost: f64) -> Value {
    msg(id, Some(parent), t, json!({"role": "assistant", "content": content, "provider": "p", "model": "m", "usage": usage(tokens, cost), "stopReason": "toolUse", "timestamp": t}))
}

fn call(id: &str, args: Value) -> Value {
    json!({"type": "toolCall", "id": id, "name": "subagent", "arguments": args})
}

fn result(id: &str, parent: &str, t: u64, call: &str, text: &str, details: Option<Value>) -> Value {
    let mut m = json!({"role": "toolResult", "toolCallId": call, "toolName": "subagent", "content": [{"type": "text", "text": text}], "isError": false, "timestamp": t});
    if let Some(d) = details {
        m["details"] = d;
    }
    msg(id, Some(parent), t, m)
}

fn write(path: &Path, lines: &[Value]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut text = String::new();
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    fs::write(path, text).unwrap();
}

/// A subagent's run: a task and an answer.
fn child(path: &Path, id: &str, t: u64, parent: &Path, tokens: u64, cost: f64) {
    let a = format!("{}a", &id[id.len() - 7..]);
    let u = format!("{}u", &id[id.len() - 7..]);
    write(path, &[header(id, t, Some(parent)), user(&u, None, t + 1, "task"), assistant(&a, &u, t + 2, json!([{"type": "text", "text": "done"}]), tokens, cost)]);
}

struct Fx {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    parent: PathBuf,
    fork: PathBuf,
    s: [PathBuf; 4],
    nested: PathBuf,
    outside: PathBuf,
}

/// A root with a parent P whose one assistant message starts three subagents (S1 named by id
/// in its call's arguments, S2 by path in its result's text, S3 by id in its result's details),
/// a later one no call names (S4, a guess), S1's own subagent (named by path in S1's call), a
/// fork of P, and a subagent written outside the root (named by path in a result).
fn fixture() -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("agent/sessions");
    let dir = root.join(CWD);
    let parent = dir.join(name(0, P));
    let s = [dir.join(name(20, S1)), dir.join(name(21, S2)), dir.join(name(22, S3)), dir.join(name(60, S4))];
    let nested = dir.join(name(30, NESTED));
    let fork = dir.join(name(100, FORK));
    let outside = base.join("runs").join(name(80, "0199a000-0000-7000-8000-0000000000d1"));
    write(
        &parent,
        &[
            header(P, 0, None),
            user("u1", None, 1, "review the fix"),
            assistant("a1", "u1", 10, json!([{"type": "text", "text": "three reviewers"}, call("call_1", json!({"sessionId": S1})), call("call_2", json!({"task": "tests"})), call("call_3", json!({"task": "docs"}))]), 100, 1.0),
            result("r1", "a1", 40, "call_1", "reviewed", None),
            result("r2", "r1", 41, "call_2", &format!("tests in {}", s[1].display()), None),
            result("r3", "r2", 42, "call_3", "docs done", Some(json!({"run": {"session": S3}}))),
            assistant("a2", "r3", 50, json!([call("call_4", json!({"task": "check"}))]), 200, 2.0),
            result("r4", "a2", 70, "call_4", "build passes", None),
            assistant("a3", "r4", 75, json!([call("call_5", json!({"task": "profile"}))]), 50, 0.5),
            result("r5", "a3", 90, "call_5", &format!("profile written. Session: {}", outside.display()), None),
        ],
    );
    child(&s[0], S1, 20, &parent, 10, 0.1);
    // S1 starts its own subagent, naming its file in the call.
    let s1 = fs::read_to_string(&s[0]).unwrap();
    fs::write(&s[0], format!("{s1}{}\n", assistant("b1000002", "00000b1a", 25, json!([call("call_n", json!({"file": nested.to_string_lossy()}))]), 5, 0.05))).unwrap();
    child(&nested, NESTED, 30, &s[0], 7, 0.07);
    child(&s[1], S2, 21, &parent, 20, 0.2);
    child(&s[2], S3, 22, &parent, 30, 0.3);
    child(&s[3], S4, 60, &parent, 40, 0.4);
    child(&outside, "0199a000-0000-7000-8000-0000000000d1", 80, &parent, 1000, 10.0);
    // The fork copies P's path up to a2 (u1, a1, r1..r3, a2) and goes on.
    let plines: Vec<Value> = fs::read_to_string(&parent).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut flines = vec![header(FORK, 100, Some(&parent))];
    flines.extend(plines[1..7].iter().cloned());
    flines.push(user("fu", Some("a2"), 101, "instead, use zod"));
    flines.push(assistant("fa", "fu", 102, json!([{"type": "text", "text": "rewritten"}]), 300, 3.0));
    write(&fork, &flines);
    Fx { _tmp: tmp, base, root, parent, fork, s, nested, outside }
}

fn lineage(root: &Path) -> Lineage {
    let l = list(root);
    let mut cache = ListCache::new(root);
    // Fork points are computed for indexed (cached) files: index them all.
    let found = pi_session::scan::scan(root).files;
    cache.store(&found, pi_session::summary::index_all(pi_session::summary::sizes(&found), |_, _| {}));
    fork_graph_cached(root, &l.sessions, &mut cache)
}

fn link<'a>(g: &'a Lineage, path: &Path) -> &'a ForkInfo {
    g.all().find(|f| f.path == path).unwrap_or_else(|| panic!("no link for {}", path.display()))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn spawns_find_their_own_tool_calls_and_forks_stay_forks() {
    let fx = fixture();
    let g = lineage(&fx.root);
    let expect = [(0, "a1", Some("call_1"), false), (1, "a1", Some("call_2"), false), (2, "a1", Some("call_3"), false), (3, "a2", None, true)];
    for (k, by, call, guess) in expect {
        let f = link(&g, &fx.s[k]);
        assert_eq!(f.status, ForkStatus::Ok, "S{}", k + 1);
        assert_eq!(f.kind, Some(LinkKind::Spawn), "S{}", k + 1);
        assert_eq!(f.parent_path.as_deref(), Some(fx.parent.as_path()));
        assert_eq!(f.fork_point_id, None);
        assert_eq!((f.spawned_by.as_deref(), f.spawned_by_tool_call.as_deref(), f.spawned_by_guess), (Some(by), call, guess), "S{}", k + 1);
    }
    let n = link(&g, &fx.nested);
    assert_eq!((n.kind, n.parent_path.as_deref(), n.spawned_by.as_deref(), n.spawned_by_tool_call.as_deref()), (Some(LinkKind::Spawn), Some(fx.s[0].as_path()), Some("b1000002"), Some("call_n")));
    let f = link(&g, &fx.fork);
    assert_eq!((f.kind, f.fork_point_id.as_deref(), f.spawned_by.as_deref()), (Some(LinkKind::Fork), Some("a2"), None));
}

#[test]
fn own_and_family_figures_count_nothing_twice() {
    let fx = fixture();
    let g = lineage(&fx.root);
    let p = link(&g, &fx.parent);
    assert!(close(p.own_cost, 3.5) && close(p.own_tokens, 350.0), "{p:?}");
    // P + S1 (with its nested spawn) + S2 + S3 + S4; the fork and the child outside the root are not in it.
    let fam = 3.5 + (0.1 + 0.05 + 0.07) + 0.2 + 0.3 + 0.4;
    assert!(close(p.family_cost, fam), "family {} != {fam}", p.family_cost);
    assert!(close(p.family_tokens, 350.0 + 22.0 + 20.0 + 30.0 + 40.0), "{}", p.family_tokens);
    assert_eq!(p.family_size, 6);
    let s1 = link(&g, &fx.s[0]);
    assert!(close(s1.family_cost, 0.22) && s1.family_size == 2, "{s1:?}");
    // The fork: its file holds P's a1 and a2 (3.0) and its own fa (3.0); only fa is its own.
    let f = link(&g, &fx.fork);
    assert!(close(f.own_cost, 3.0) && close(f.family_cost, 3.0) && f.family_size == 1, "{f:?}");
    // Families partition the own figures: heads' families add up to all sessions' own figures.
    let heads: f64 = g.links.iter().filter(|f| f.kind != Some(LinkKind::Spawn)).map(|f| f.family_cost).sum();
    let own: f64 = g.links.iter().map(|f| f.own_cost).sum();
    assert!(close(heads, own), "{heads} != {own}");
    // The dashboard grouped by family: one row per head, with the family's figures.
    let l = list(&fx.root);
    let d = pi_session::dashboard::dashboard_with(&l.sessions, Some(&g.links), &pi_session::dashboard::DashboardQuery { by_family: Some(true), top: 50, ..Default::default() });
    let row = d.by_session.iter().find(|r| Path::new(&r.path) == fx.parent).unwrap();
    assert!(close(row.cost, fam) && row.sessions == 6, "{row:?}");
    assert_eq!(d.by_session.len(), 2, "P's family and the fork's");
}

#[test]
fn a_moved_folder_links_by_session_id_with_the_same_points() {
    let fx = fixture();
    let before = lineage(&fx.root);
    let moved = fx.base.join("restored");
    fs::rename(fx.base.join("agent"), &moved).unwrap();
    let root = moved.join("sessions");
    let after = lineage(&root);
    let mut relinked = 0;
    for b in before.links.iter().filter(|f| f.parent_session.is_some()) {
        let new_path = root.join(b.path.strip_prefix(&fx.root).unwrap());
        let a = link(&after, &new_path);
        assert_eq!(a.status, ForkStatus::Relinked, "{}", new_path.display());
        assert_eq!(a.parent_path.as_deref().map(|p| p.starts_with(&root)), Some(true));
        assert_eq!(a.parent_path.as_deref().map(|p| p.strip_prefix(&root).unwrap()), b.parent_path.as_deref().map(|p| p.strip_prefix(&fx.root).unwrap()));
        assert_eq!((&a.kind, &a.fork_point_id, &a.fork_point_line, &a.spawned_by, &a.spawned_by_tool_call), (&b.kind, &b.fork_point_id, &b.fork_point_line, &b.spawned_by, &b.spawned_by_tool_call));
        assert_eq!(a.parent_session, b.parent_session, "the recorded path is kept for display");
        relinked += 1;
    }
    assert_eq!(relinked, 6);
    // The listing says so, for each (info), and reports no missing parent.
    let l = list(&root);
    for s in l.sessions.iter().filter(|s| s.parent_session.is_some()) {
        let kinds: Vec<DiagKind> = s.diagnostics.iter().map(|d| d.kind).collect();
        assert_eq!(kinds, vec![DiagKind::ParentSessionRelinked], "{}", s.path.display());
    }
    // Family figures survive the move.
    assert!(close(link(&after, &root.join(fx.parent.strip_prefix(&fx.root).unwrap())).family_cost, link(&before, &fx.parent).family_cost));
}

#[test]
fn a_copy_links_to_its_own_files_and_a_linked_root_reads_as_the_original() {
    let fx = fixture();
    let copy = fx.base.join("copy");
    common::copy_tree(&fx.root, &copy);
    let g = lineage(&copy);
    for f in g.links.iter().filter(|f| f.parent_session.is_some()) {
        assert_eq!(f.status, ForkStatus::Relinked, "{}", f.path.display());
        assert!(f.parent_path.as_deref().unwrap().starts_with(&copy), "{} → {:?}", f.path.display(), f.parent_path);
        assert!(f.kind.is_some());
    }
    // The original is unchanged: ok, at the recorded paths.
    assert!(lineage(&fx.root).links.iter().filter(|f| f.parent_session.is_some()).all(|f| f.status == ForkStatus::Ok));
    // The root through a symbolic link: the recorded paths resolve into it.
    #[cfg(unix)]
    {
        let link_root = fx.base.join("link-to-root");
        std::os::unix::fs::symlink(&fx.root, &link_root).unwrap();
        let g = lineage(&link_root);
        for f in g.links.iter().filter(|f| f.parent_session.is_some()) {
            assert_eq!(f.status, ForkStatus::Ok, "{}", f.path.display());
            assert!(f.parent_path.as_deref().unwrap().starts_with(&link_root));
        }
        assert_eq!(link(&g, &link_root.join(fx.fork.strip_prefix(&fx.root).unwrap())).fork_point_id.as_deref(), Some("a2"));
    }
}

#[cfg(unix)]
#[test]
fn a_parent_reached_through_a_link_leaving_the_root_is_found_by_id_inside() {
    let fx = fixture();
    // The fork's recorded parent: a folder link in the root that leads outside (to a copy).
    let outside = fx.base.join("elsewhere");
    fs::create_dir_all(&outside).unwrap();
    fs::copy(&fx.parent, outside.join(fx.parent.file_name().unwrap())).unwrap();
    std::os::unix::fs::symlink(&outside, fx.root.join("--linked--")).unwrap();
    let through = fx.root.join("--linked--").join(fx.parent.file_name().unwrap());
    let text = fs::read_to_string(&fx.fork).unwrap();
    let rewritten = text.replacen(&fx.parent.to_string_lossy().into_owned(), &through.to_string_lossy(), 1);
    fs::write(&fx.fork, rewritten).unwrap();
    let g = lineage(&fx.root);
    let f = link(&g, &fx.fork);
    assert_eq!((f.status, f.parent_path.as_deref(), f.fork_point_id.as_deref()), (ForkStatus::Relinked, Some(fx.parent.as_path()), Some("a2")));
    // Without the parent inside the root, the link is reported and not read through.
    fs::remove_file(&fx.parent).unwrap();
    let g = lineage(&fx.root);
    let f = link(&g, &fx.fork);
    assert_eq!((f.status, f.fork_point_id.as_deref(), f.kind), (ForkStatus::ParentOutside, None, None));
}

#[test]
fn a_stale_path_is_reported_and_never_trusted() {
    let fx = fixture();
    // S2's recorded parent becomes a file named for a session that does not exist, holding S3.
    let stale = fx.root.join(CWD).join(name(5, "0199a000-0000-7000-8000-0000000000ee"));
    fs::copy(&fx.s[2], &stale).unwrap();
    let text = fs::read_to_string(&fx.s[1]).unwrap();
    fs::write(&fx.s[1], text.replacen(&fx.parent.to_string_lossy().into_owned(), &stale.to_string_lossy(), 1)).unwrap();
    let g = lineage(&fx.root);
    let f = link(&g, &fx.s[1]);
    assert_eq!((f.status, f.stale_path_id.as_deref(), f.kind), (ForkStatus::ParentMismatch, Some(S3), None));
    let l = list(&fx.root);
    let d = &l.sessions.iter().find(|s| s.path == fx.s[1]).unwrap().diagnostics;
    assert!(d.iter().any(|d| d.kind == DiagKind::ParentSessionMismatch), "{d:?}");
    // The parent's id named by a stale path that holds another session: found by id.
    let wrong = fx.root.join(CWD).join(name(0, P)).with_file_name(format!("x_{P}.jsonl"));
    fs::copy(&fx.s[2], &wrong).unwrap();
    fs::write(&fx.s[1], text.replacen(&fx.parent.to_string_lossy().into_owned(), &wrong.to_string_lossy(), 1)).unwrap();
    let g = lineage(&fx.root);
    let f = link(&g, &fx.s[1]);
    assert_eq!((f.status, f.parent_path.as_deref(), f.stale_path_id.as_deref(), f.spawned_by_tool_call.as_deref()), (ForkStatus::Relinked, Some(fx.parent.as_path()), Some(S3), Some("call_2")));
}

#[test]
fn a_child_outside_the_root_is_listed_opened_read_only_and_never_written() {
    let fx = fixture();
    let g = lineage(&fx.root);
    assert_eq!(g.outside.len(), 1);
    let o = &g.outside[0];
    assert_eq!((o.path.as_path(), o.status, o.kind, o.parent_path.as_deref()), (fx.outside.as_path(), ForkStatus::OutsideRoots, Some(LinkKind::Spawn), Some(fx.parent.as_path())));
    assert_eq!((o.spawned_by.as_deref(), o.spawned_by_tool_call.as_deref()), (Some("a3"), Some("call_5")));
    // Not counted in the family: the file is not read.
    assert!(link(&g, &fx.parent).family_cost < 10.0);

    common::private_cache();
    let ex = pi_session_app::explorer::Explorer::new(fx.root.clone(), "flag", false);
    let graph = ex.fork_graph();
    let node = graph.nodes.iter().find(|n| Path::new(&n.path) == fx.outside).expect("the outside child is a node");
    assert_eq!((node.status, node.kind, node.spawned_by.as_deref()), (ForkStatus::OutsideRoots, Some(LinkKind::Spawn), Some("a3")));
    let rows = ex.list_sessions(None);
    assert!(rows.sessions.iter().all(|r| Path::new(&r.path) != fx.outside), "not a listed session");
    let out = fx.outside.to_string_lossy().into_owned();
    // Before it is opened, reads answer outside-root; an unrelated file outside never opens.
    assert!(matches!(ex.transcript_page(&out, 0, 10), Err(Error::OutsideRoot { .. })));
    let stranger = fx.base.join("runs/stranger.jsonl");
    fs::copy(&fx.outside, &stranger).unwrap();
    assert!(matches!(ex.open_outside(&stranger.to_string_lossy()), Err(Error::OutsideRoot { .. })));
    let before = fs::read(&fx.outside).unwrap();
    let row = ex.open_outside(&out).unwrap();
    assert_eq!((row.fork_status, row.read_only.as_deref(), row.cost), (ForkStatus::OutsideRoots, Some("outside-roots"), 10.0));
    let page = ex.transcript_page(&out, 0, 10).unwrap();
    assert_eq!(page.total, 2);
    assert!(ex.entry_detail(&out, "00000d1a").is_ok());
    // Every write refuses it; the file is byte for byte what it was.
    assert!(matches!(ex.navigate(&out, Some("00000d1u")), Err(Error::OutsideRoot { .. })));
    assert!(matches!(ex.set_label(&out, "00000d1u", Some("x")), Err(Error::OutsideRoot { .. })));
    assert!(matches!(ex.fork(&out, "00000d1u", pi_session_app::api::ForkPosition::At), Err(Error::OutsideRoot { .. })));
    // Stepping to a branch in the transcript only shows it (the newest entry below it), as on
    // any file: nothing written.
    assert_eq!(ex.switch_branch(&out, "00000d1u").unwrap().leaf_id, "00000d1a");
    assert_eq!(fs::read(&fx.outside).unwrap(), before);
    assert_eq!(fs::read_dir(fx.outside.parent().unwrap()).unwrap().count(), 2, "no file was added beside it");
}

/// The listing's index pass compares forks and spawns with their parents while both are open
/// (`forks::together`): the lineage after it then compares nothing again, and equals the one
/// found by comparing after the pass, in place and after a move (parents found by id).
#[test]
fn points_found_in_the_index_pass_equal_those_found_after_it() {
    let fx = fixture();
    let moved = fx.base.join("restored");
    for (k, root) in [fx.root.clone(), moved.join("sessions")].into_iter().enumerate() {
        if k == 1 {
            fs::rename(fx.base.join("agent"), &moved).unwrap();
        }
        let want = lineage(&root);
        let mut cache = ListCache::new(&root);
        let l = pi_session::listing::list_cached(&root, pi_session::scan::scan(&root), &mut cache, |_| false).listing;
        let mut found: Vec<PathBuf> = cache.files.iter().filter(|(_, e)| e.fork.is_some()).map(|(p, _)| p.clone()).collect();
        found.sort();
        let mut children: Vec<PathBuf> = l.sessions.iter().filter(|s| s.parent_session.is_some()).map(|s| s.path.clone()).collect();
        children.sort();
        assert_eq!(found, children, "root {k}: every child in the root compared in the pass");
        assert_eq!(found.len(), 6, "root {k}: four spawns, a nested one, a fork");
        cache.changed = false;
        let got = fork_graph_cached(&root, &l.sessions, &mut cache);
        assert!(!cache.changed, "root {k}: the lineage compared nothing again");
        assert_eq!(got, want, "root {k}");
    }
}

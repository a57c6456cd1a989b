//! Several roots in one explorer: a synced prefix copy shown once (the longer copy), a diverged
//! copy shown twice and flagged with the offset where the copies part, a fork whose parent is
//! in another root drawn in the fork graph, writes confined to the root holding the file and
//! refused (file byte-identical) in a read-only root.

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};

use pi_session_app::api::{ForkStatus, SessionRow};
use pi_session_app::explorer::Explorer;
use pi_session::roots::{RootSpec, Roots};
use serde_json::json;

const PARENT_ID: &str = "0197aaaa-1111-7111-8111-111111111111";
const CHILD_ID: &str = "0197bbbb-2222-7222-8222-222222222222";

fn ts(i: u64) -> String {
    format!("2025-03-01T10:00:{i:02}.000Z")
}

fn header(id: &str, parent_session: Option<&str>) -> String {
    let mut h = json!({"type": "session", "version": 3, "id": id, "timestamp": ts(0), "cwd": "/home/u/proj"});
    if let Some(p) = parent_session {
        h["parentSession"] = json!(p);
    }
    h.to_string()
}

fn user(id: &str, parent: Option<&str>, i: u64, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(i), "message": {"role": "user", "content": text, "timestamp": i}}).to_string()
}

fn assistant(id: &str, parent: &str, i: u64, text: &str) -> String {
    let usage = json!({"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15, "cost": {"total": 0.001}});
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(i), "message": {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m", "usage": usage, "stopReason": "stop", "timestamp": i}}).to_string()
}

/// The parent session's lines: header, u1 → a1 → u2 → a2.
fn parent_lines() -> Vec<String> {
    vec![header(PARENT_ID, None), user("u1", None, 1, "first"), assistant("a1", "u1", 2, "one"), user("u2", Some("a1"), 3, "second"), assistant("a2", "u2", 4, "two")]
}

fn write_lines(path: &Path, lines: &[String]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

fn file_name(id: &str) -> String {
    format!("2025-03-01T10-00-00-000Z_{id}.jsonl")
}

/// Two roots, `laptop` and `desk`, under a fresh folder.
fn two_roots() -> (tempfile::TempDir, PathBuf, PathBuf) {
    common::private_cache();
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("laptop/sessions");
    let b = tmp.path().join("desk/sessions");
    fs::create_dir_all(a.join("--home-u-proj--")).unwrap();
    fs::create_dir_all(b.join("--home-u-proj--")).unwrap();
    (tmp, a, b)
}

fn explorer(a: &Path, b: &Path, b_read_only: bool) -> Explorer {
    let roots = Roots::new(vec![
        RootSpec { name: "laptop".into(), path: a.to_path_buf(), read_only: false },
        RootSpec { name: "desk".into(), path: b.to_path_buf(), read_only: b_read_only },
    ]);
    Explorer::new_multi(roots, "flag", false).unwrap()
}

fn rows_with_id<'a>(rows: &'a [SessionRow], id: &str) -> Vec<&'a SessionRow> {
    rows.iter().filter(|r| r.id.as_deref() == Some(id)).collect()
}

#[test]
fn a_synced_prefix_copy_is_shown_once_the_longer_copy() {
    let (_tmp, a, b) = two_roots();
    let full = parent_lines();
    // The desk holds the longer copy (it went on), the laptop a copy synced earlier.
    let short = a.join("--home-u-proj--").join(file_name(PARENT_ID));
    let long = b.join("--home-u-proj--").join(file_name(PARENT_ID));
    write_lines(&short, &full[..3]);
    write_lines(&long, &full);
    let ex = explorer(&a, &b, false);
    let list = ex.list_sessions(None);
    let rows = rows_with_id(&list.sessions, PARENT_ID);
    assert_eq!(rows.len(), 1, "one session for a prefix copy: {rows:?}");
    assert_eq!(Path::new(&rows[0].path), long.as_path(), "the longer copy is shown");
    assert_eq!(rows[0].root.as_deref(), Some("desk"));
    assert_eq!(rows[0].entry_count, 4);
    assert_eq!(rows[0].diverged_at, None);
    assert_eq!(list.sessions.len(), 1);
    // Identical copies are one session too.
    write_lines(&short, &full);
    ex.root_changed();
    assert_eq!(rows_with_id(&ex.list_sessions(None).sessions, PARENT_ID).len(), 1);
}

#[test]
fn a_diverged_copy_is_shown_twice_and_flagged_where_the_copies_part() {
    let (_tmp, a, b) = two_roots();
    let common_part = parent_lines();
    let mut on_laptop = common_part.clone();
    on_laptop.push(user("u3", Some("a2"), 5, "continued on the laptop"));
    let mut on_desk = common_part.clone();
    on_desk.push(user("u9", Some("a2"), 6, "continued on the desk"));
    let pa = a.join("--home-u-proj--").join(file_name(PARENT_ID));
    let pb = b.join("--home-u-proj--").join(file_name(PARENT_ID));
    write_lines(&pa, &on_laptop);
    write_lines(&pb, &on_desk);
    let shared_len: usize = common_part.iter().map(|l| l.len() + 1).sum();
    // Where they part: the first differing byte of the line after the common lines.
    let laptop_tail = on_laptop.last().unwrap().as_bytes();
    let desk_tail = on_desk.last().unwrap().as_bytes();
    let within = laptop_tail.iter().zip(desk_tail).position(|(x, y)| x != y).unwrap();
    let ex = explorer(&a, &b, false);
    let list = ex.list_sessions(None);
    let rows = rows_with_id(&list.sessions, PARENT_ID);
    assert_eq!(rows.len(), 2, "both copies shown: {rows:?}");
    let roots: Vec<_> = rows.iter().map(|r| r.root.as_deref().unwrap()).collect();
    assert!(roots.contains(&"laptop") && roots.contains(&"desk"), "{roots:?}");
    for r in rows {
        assert_eq!(r.diverged_at, Some((shared_len + within) as f64), "{}", r.path);
    }
}

#[test]
fn a_fork_whose_parent_is_in_another_root_is_drawn() {
    let (_tmp, a, b) = two_roots();
    // The parent lives on the laptop; the fork was made on another machine, whose path for
    // the parent does not exist here.
    let parent = a.join("--home-u-proj--").join(file_name(PARENT_ID));
    write_lines(&parent, &parent_lines());
    let foreign = format!("/Users/someone-else/.pi/agent/sessions/--home-u-proj--/{}", file_name(PARENT_ID));
    let mut child = vec![header(CHILD_ID, Some(&foreign))];
    child.extend(parent_lines()[1..4].iter().cloned());
    child.push(assistant("a7", "u2", 7, "a different answer"));
    let child_path = b.join("--home-u-proj--").join(file_name(CHILD_ID));
    write_lines(&child_path, &child);

    // One root alone: the parent is missing.
    common::private_cache();
    let alone = Explorer::new(b.clone(), "flag", false);
    let g = alone.fork_graph();
    assert_eq!(g.nodes[0].status, ForkStatus::ParentMissing);

    let ex = explorer(&a, &b, false);
    let g = ex.fork_graph();
    let node = g.nodes.iter().find(|n| n.id.as_deref() == Some(CHILD_ID)).expect("child node");
    assert_eq!(node.status, ForkStatus::Relinked, "found by session id, the recorded path kept");
    assert_eq!(node.parent_session.as_deref(), Some(foreign.as_str()));
    assert_eq!(node.parent_path.as_deref().map(Path::new), Some(parent.as_path()), "edge to the parent in the other root");
    assert_eq!(node.fork_point_id.as_deref(), Some("u2"), "the deepest shared entry on the child's path");
    assert_eq!(node.fork_point_line, Some(4));
    assert_eq!(node.root.as_deref(), Some("desk"));
    let parent_node = g.nodes.iter().find(|n| n.id.as_deref() == Some(PARENT_ID)).unwrap();
    assert_eq!(parent_node.root.as_deref(), Some("laptop"));
    // The listing agrees, without a missing-parent warning.
    let list = ex.list_sessions(None);
    let row = rows_with_id(&list.sessions, CHILD_ID)[0];
    assert_eq!(row.fork_status, ForkStatus::Relinked);
    assert_eq!(row.warnings, 0, "{row:?}");
}

#[test]
fn writes_stay_in_the_root_holding_the_file_and_a_read_only_root_refuses_them() {
    let (tmp, a, b) = two_roots();
    let pa = a.join("--home-u-proj--").join(file_name(PARENT_ID));
    let pb = b.join("--home-u-proj--").join(file_name(CHILD_ID));
    write_lines(&pa, &parent_lines());
    let mut other = parent_lines();
    other[0] = header(CHILD_ID, None);
    write_lines(&pb, &other);
    let before = fs::read(&pb).unwrap();
    let ex = explorer(&a, &b, true);

    let pb_s = pb.to_string_lossy().into_owned();
    let e = ex.navigate(&pb_s, Some("u1")).unwrap_err();
    assert_eq!(e.code(), "read-only-mode", "{e}");
    let e = ex.set_label(&pb_s, "u1", Some("x")).unwrap_err();
    assert_eq!(e.code(), "read-only-mode", "{e}");
    let e = ex.fork(&pb_s, "u2", pi_session_app::api::ForkPosition::At).unwrap_err();
    assert_eq!(e.code(), "read-only-mode", "{e}");
    assert_eq!(fs::read(&pb).unwrap(), before, "the read-only root's file is byte-identical");
    assert_eq!(fs::read_dir(pb.parent().unwrap()).unwrap().count(), 1, "no fork file in the read-only root");

    // The writable root takes writes; reading the read-only root still works.
    let pa_s = pa.to_string_lossy().into_owned();
    let before_a = fs::read(&pa).unwrap();
    ex.navigate(&pa_s, Some("u1")).unwrap();
    let after_a = fs::read(&pa).unwrap();
    assert_eq!(&after_a[..before_a.len()], &before_a[..], "an append only");
    assert!(after_a.len() > before_a.len());
    assert!(ex.session(&pb_s).is_ok());

    // A file outside every root is refused.
    let outside = tmp.path().join("elsewhere.jsonl");
    write_lines(&outside, &parent_lines());
    let e = ex.navigate(&outside.to_string_lossy(), Some("u1")).unwrap_err();
    assert_eq!(e.code(), "outside-root", "{e}");

    // Marking the root writable again lets the write through; marking the other read-only stops it.
    ex.set_root_read_only("desk", false).unwrap();
    ex.navigate(&pb_s, Some("u1")).unwrap();
    ex.set_root_read_only("laptop", true).unwrap();
    let before_a = fs::read(&pa).unwrap();
    assert_eq!(ex.navigate(&pa_s, Some("u2")).unwrap_err().code(), "read-only-mode");
    assert_eq!(fs::read(&pa).unwrap(), before_a);
}

#[test]
fn roots_can_be_added_and_removed_but_not_the_first() {
    let (_tmp, a, b) = two_roots();
    write_lines(&b.join("--home-u-proj--").join(file_name(PARENT_ID)), &parent_lines());
    common::private_cache();
    let ex = Explorer::new(a.clone(), "flag", false);
    assert_eq!(ex.list_sessions(None).sessions.len(), 0);
    assert!(ex.app_info().roots.is_none());
    ex.add_root(RootSpec { name: "desk".into(), path: b.clone(), read_only: true }).unwrap();
    let list = ex.list_sessions(None);
    assert_eq!(list.sessions.len(), 1);
    assert_eq!(list.sessions[0].root.as_deref(), Some("desk"));
    assert_eq!(ex.app_info().roots.unwrap().len(), 2);
    let first = ex.roots().specs()[0].name.clone();
    assert!(ex.remove_root(&first).is_err());
    ex.remove_root("desk").unwrap();
    assert_eq!(ex.list_sessions(None).sessions.len(), 0);
    assert!(ex.add_root(RootSpec { name: "x".into(), path: a.join("missing"), read_only: false }).is_err());
}

#[test]
fn a_limited_listing_over_several_roots_keeps_the_newest_and_the_parents_they_forked_from() {
    let (_tmp, a, b) = two_roots();
    const OTHER_ID: &str = "0197cccc-3333-7333-8333-333333333333";
    // The parent on the laptop (last entry at 4 s), an unrelated session on the laptop (5 s),
    // and on the desk the newest session (7 s), a fork of the laptop's parent.
    let parent = a.join("--home-u-proj--").join(file_name(PARENT_ID));
    write_lines(&parent, &parent_lines());
    let mut other = parent_lines();
    other[0] = header(OTHER_ID, None);
    other.push(user("u5", Some("a2"), 5, "later"));
    write_lines(&a.join("--home-u-proj--").join(file_name(OTHER_ID)), &other);
    let foreign = format!("/Users/someone-else/.pi/agent/sessions/--home-u-proj--/{}", file_name(PARENT_ID));
    let mut child = vec![header(CHILD_ID, Some(&foreign))];
    child.extend(parent_lines()[1..4].iter().cloned());
    child.push(assistant("a7", "u2", 7, "a different answer"));
    write_lines(&b.join("--home-u-proj--").join(file_name(CHILD_ID)), &child);

    let ex = explorer(&a, &b, false);
    let all = ex.list_sessions(None);
    assert_eq!(all.sessions.len(), 3);
    assert!(!all.limited);

    let first = ex.list_sessions(Some(1));
    assert!(first.limited, "one of three asked for");
    let mut ids: Vec<&str> = first.sessions.iter().map(|r| r.id.as_deref().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, vec![PARENT_ID, CHILD_ID], "the newest session and, from the other root, the one it was forked from");
    let child_row = rows_with_id(&first.sessions, CHILD_ID)[0];
    assert_eq!(child_row.root.as_deref(), Some("desk"));
    assert_eq!(child_row.fork_status, ForkStatus::Relinked);
    assert_eq!(rows_with_id(&first.sessions, PARENT_ID)[0].root.as_deref(), Some("laptop"));

    let two = ex.list_sessions(Some(2));
    assert!(two.limited);
    assert_eq!(two.sessions.len(), 3, "the two newest (child, other) plus the child's parent");
    assert!(!ex.list_sessions(Some(3)).limited);
}

#[test]
fn the_dashboard_spans_every_root_and_counts_a_synced_copy_once() {
    let (_tmp, a, b) = two_roots();
    let full = parent_lines();
    // A prefix copy of the parent on the desk, and the desk's own fork of it.
    write_lines(&a.join("--home-u-proj--").join(file_name(PARENT_ID)), &full);
    write_lines(&b.join("--home-u-proj--").join(file_name(PARENT_ID)), &full[..3]);
    let mut child = vec![header(CHILD_ID, Some(&a.join("--home-u-proj--").join(file_name(PARENT_ID)).to_string_lossy()))];
    child.extend(full[1..4].iter().cloned());
    child.push(assistant("a7", "u2", 7, "a different answer"));
    write_lines(&b.join("--home-u-proj--").join(file_name(CHILD_ID)), &child);
    let ex = explorer(&a, &b, false);
    let list = ex.list_sessions(None);
    assert_eq!(list.sessions.len(), 2, "the copy is listed once");
    let d = ex.dashboard(&pi_session::dashboard::DashboardQuery::default());
    assert_eq!(d.totals.sessions, 2);
    let (t, c): (f64, f64) = list.sessions.iter().fold((0.0, 0.0), |(t, c), s| (t + s.tokens, c + s.cost));
    assert!(t > 0.0);
    assert_eq!((d.totals.tokens, d.totals.cost), (t, c), "the dashboard sums what the list shows, over both roots");
    // parent: a1 + a2 (15 tokens each); the fork: a1 and a7.
    assert_eq!(d.totals.tokens, 60.0);
    assert_eq!(d.totals.child_sessions, 1);
    let roots_seen: std::collections::BTreeSet<_> = d.by_session.iter().map(|u| if Path::new(&u.path).starts_with(&a) { "laptop" } else { "desk" }).collect();
    assert_eq!(roots_seen.len(), 2, "sessions of both roots: {:?}", d.by_session);
}

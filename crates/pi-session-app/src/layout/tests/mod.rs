//! Tests of the tree graph: ASCII drawings of small sessions, the JSON rows the UI reads,
//! and properties over generated sessions.

use std::collections::BTreeMap;

use super::*;
use crate::api::TreeFilter;

mod pages;
mod props;
mod shapes;

/// One entry line from `id parent kind [args]` (`-` = null parent). Kinds: `u` user,
/// `a` assistant (with usage), `t` tool result, `c` compaction, `b` branch summary,
/// `m` model change, `l TARGET TEXT` label, `leaf TARGET|null` leaf line.
fn line(i: usize, spec: &str) -> String {
    let w: Vec<&str> = spec.split_whitespace().collect();
    let (id, parent, kind) = (w[0], w[1], w[2]);
    let ts = format!("2025-01-01T{:02}:{:02}:{:02}.000Z", i / 3600, (i / 60) % 60, i % 60);
    let parent = if parent == "-" { "null".to_string() } else { format!("\"{parent}\"") };
    let head = format!(r#""id":"{id}","parentId":{parent},"timestamp":"{ts}""#);
    match kind {
        "u" => format!(r#"{{"type":"message",{head},"message":{{"role":"user","content":"text of {id}","timestamp":1}}}}"#),
        "a" => format!(
            r#"{{"type":"message",{head},"message":{{"role":"assistant","content":[{{"type":"text","text":"answer {id}"}}],"provider":"p","model":"m","usage":{{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{{"total":0.01}}}},"stopReason":"stop","timestamp":1}}}}"#
        ),
        "t" => format!(
            r#"{{"type":"message",{head},"message":{{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{{"type":"text","text":"out {id}"}}],"isError":false,"timestamp":1}}}}"#
        ),
        "c" => format!(r#"{{"type":"compaction",{head},"summary":"sum {id}","firstKeptEntryId":{parent},"tokensBefore":100}}"#),
        "b" => format!(r#"{{"type":"branch_summary",{head},"fromId":{parent},"summary":"left {id}"}}"#),
        "m" => format!(r#"{{"type":"model_change",{head},"provider":"p","modelId":"m2"}}"#),
        "l" => format!(r#"{{"type":"label",{head},"targetId":"{}","label":"{}"}}"#, w[3], w[4]),
        "leaf" => {
            let t = if w[3] == "null" { "null".to_string() } else { format!("\"{}\"", w[3]) };
            format!(r#"{{"type":"leaf",{head},"targetId":{t}}}"#)
        }
        other => panic!("unknown kind {other}"),
    }
}

fn jsonl(spec: &str) -> String {
    let mut out = String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#);
    out.push('\n');
    for (i, l) in spec.lines().map(str::trim).filter(|l| !l.is_empty()).enumerate() {
        out.push_str(&line(i + 1, l));
        out.push('\n');
    }
    out
}

fn session(spec: &str) -> Session {
    Session::from_bytes("/nonexistent/test.jsonl", jsonl(spec).as_bytes())
}

fn q(filter: TreeFilter) -> TreeQuery {
    TreeQuery { filter, ..Default::default() }
}

/// Draws and checks the invariants of the row model.
fn draw(s: &Session, query: &TreeQuery) -> String {
    let l = Layout::build(s, query);
    check(&l, &[s]);
    ascii(&l, &[s])
}

fn rows(l: &Layout, sessions: &[&Session]) -> Vec<TreeRow> {
    (0..l.len()).map(|r| l.skeleton_row(sessions, r)).collect()
}

/// The line model is consistent: a line opened by a row's `down` stays in its lane (in
/// `pass` of every row it crosses) until a row takes it with `up`; a side branch curves off
/// its parent's open line; lines connect a row to its drawn parent; nothing stays open.
fn check(l: &Layout, sessions: &[&Session]) {
    let rows = rows(l, sessions);
    let mut open: BTreeMap<u32, usize> = BTreeMap::new();
    let mut seen = HashSet::new();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r.row, i as u32);
        let expect: Vec<u32> = open.keys().copied().filter(|&x| x != r.lane).collect();
        assert_eq!(r.pass, expect, "pass of row {i} ({})", r.id);
        let opener = if r.up {
            Some(open.remove(&r.lane).unwrap_or_else(|| panic!("row {i} ({}) has up without a line", r.id)))
        } else {
            assert!(!open.contains_key(&r.lane), "row {i} ({}) starts in a lane in use", r.id);
            match r.branch_from {
                Some(b) => {
                    assert_eq!(b + 1, r.lane);
                    assert_eq!(r.color, 1 + (r.color - 1) % COLORS);
                    Some(*open.get(&b).unwrap_or_else(|| panic!("row {i} ({}) branches from a lane without a line", r.id)))
                }
                None => {
                    assert_eq!(r.lane, 0, "a root row is in lane 0");
                    if r.fold.is_none() {
                        assert_eq!(r.parent_id, None, "row {i} ({}) without a line above is a root", r.id);
                    }
                    None
                }
            }
        };
        if let Some(o) = opener {
            let p = &rows[o];
            if r.fold.is_none() && p.fold.is_none() && !(i > 0 && rows[i - 1].fold.is_some() && r.up) {
                assert_eq!(r.parent_id.as_deref(), Some(p.id.as_str()), "row {i} ({}) hangs under its parent", r.id);
            }
            if r.up {
                assert_eq!(r.color, p.color, "a main child keeps its parent's colour");
            }
        }
        if r.down {
            open.insert(r.lane, i);
        }
        if r.on_path {
            assert_eq!(r.lane, 0, "the active path runs down lane 0 (row {i})");
        }
        if r.fold.is_none() {
            assert!(seen.insert((r.session, r.id.clone())), "row {i} ({}) drawn twice", r.id);
        }
        assert!(r.lane < l.lanes());
    }
    assert!(open.is_empty(), "lines left open: {open:?}");
    if let Some(lr) = l.leaf_row() {
        assert!(rows[lr as usize].is_leaf && rows[lr as usize].session == 0);
    }
}


fn filtered_session() -> Session {
    session(
        "r - u
         a1 r a
         u3 a1 u
         a3 u3 a
         t1 a1 t
         u2 t1 u
         a2 u2 a
         l1 a2 l u3 try
         l2 l1 l r start",
    )
}

fn chain(n: usize, extra: &str) -> Session {
    let mut spec = String::new();
    for i in 0..n {
        let kind = ["u", "a", "t"][i % 3];
        let parent = if i == 0 { "-".to_string() } else { format!("e{:02}", i - 1) };
        spec.push_str(&format!("e{i:02} {parent} {kind}\n"));
    }
    spec.push_str(extra);
    session(&spec)
}

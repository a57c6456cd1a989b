//! The dashboard's figures equal the sum of `list` figures, and an independent sum of the
//! `usage` objects in the files, on a generated corpus.

use std::collections::HashSet;

use pi_session::dashboard::{dashboard, BucketSize, DashboardQuery};
use pi_session::Session;
use serde_json::Value;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn dashboard_figures_equal_the_sum_of_list_figures() {
    let dir = tempfile::tempdir().unwrap();
    pi_session_bench::corpus::generate(&pi_session_bench::corpus::Options { out: dir.path().to_path_buf(), seed: 11, files: 30, total_bytes: 3_000_000, big_entries: None, threads: 2, short: false }).unwrap();
    let root = dir.path().join("sessions");
    let list = pi_session::listing::list(&root);
    let (lt, lc): (f64, f64) = list.sessions.iter().fold((0.0, 0.0), |(t, c), s| (t + s.tokens, c + s.cost));
    assert!(lt > 0.0 && lc > 0.0);

    // An independent sum: every assistant message's usage, read as JSON; and the abandoned
    // share (usage off the root→leaf path of the file's leaf).
    let (mut jt, mut jc, mut at, mut ac) = (0.0, 0.0, 0.0, 0.0);
    for s in &list.sessions {
        let sess = Session::open(&s.path).unwrap();
        let on_path: HashSet<String> = sess.tree.active_path().into_iter().map(|i| sess.id_of(i).to_string()).collect();
        for line in std::fs::read_to_string(&s.path).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let Some(u) = v.pointer("/message/usage") else { continue };
            let t = u.get("totalTokens").and_then(Value::as_f64).unwrap_or(0.0);
            let c = u.pointer("/cost/total").and_then(Value::as_f64).unwrap_or(0.0);
            jt += t;
            jc += c;
            if !on_path.contains(v.get("id").and_then(Value::as_str).unwrap_or("")) {
                at += t;
                ac += c;
            }
        }
    }
    assert!(close(jt, lt) && close(jc, lc), "list {lt}/{lc}, files {jt}/{jc}");

    for bucket in [BucketSize::Day, BucketSize::Week] {
        let d = dashboard(&list.sessions, &DashboardQuery { bucket, top: 10_000, ..Default::default() });
        let t = &d.totals;
        assert_eq!(t.sessions, list.sessions.len());
        assert!(close(t.tokens, lt) && close(t.cost, lc), "{bucket:?}: {} / {} vs {lt} / {lc}", t.tokens, t.cost);
        assert!(close(t.abandoned_tokens, at) && close(t.abandoned_cost, ac), "abandoned {} vs {at}", t.abandoned_tokens);
        assert!(at > 0.0 && at < jt, "the corpus has abandoned branches ({at} of {jt})");
        let children: Vec<_> = list.sessions.iter().filter(|s| s.parent_session.is_some()).collect();
        assert!(!children.is_empty());
        assert_eq!(t.child_sessions, children.len());
        assert!(close(t.child_cost, children.iter().map(|s| s.cost).sum()));
        for (name, figs) in [("time", &d.over_time), ("project", &d.by_project), ("model", &d.by_model)] {
            let st: f64 = figs.iter().map(|f| f.tokens).sum();
            let sc: f64 = figs.iter().map(|f| f.cost).sum();
            assert!(close(st, lt) && close(sc, lc), "{bucket:?} by {name}: {st}/{sc}");
            for f in figs.iter() {
                if f.cost > 0.0 {
                    assert!(!f.sessions.is_empty(), "{name} {} has cost but no sessions behind it", f.key);
                }
            }
        }
        // Each project's figure is the sum of its sessions' list figures.
        for f in &d.by_project {
            let want: f64 = list.sessions.iter().filter(|s| s.cwd.as_deref().unwrap_or("?") == f.key).map(|s| s.cost).sum();
            assert!(close(f.cost, want), "project {}", f.key);
        }
        // Per session: the list's figures.
        assert_eq!(d.by_session.len(), list.sessions.len());
        for u in &d.by_session {
            let s = list.sessions.iter().find(|s| s.path.to_string_lossy() == u.path).unwrap();
            assert!(close(u.tokens, s.tokens) && close(u.cost, s.cost), "{}", u.path);
        }
        // The sessions behind a bucket are exactly those with usage in it.
        let total_refs: usize = d.over_time.iter().map(|f| f.sessions.len()).sum();
        assert!(total_refs >= list.sessions.iter().filter(|s| s.cost > 0.0).count());
    }
    let week = dashboard(&list.sessions, &DashboardQuery { bucket: BucketSize::Week, top: 0, ..Default::default() });
    let day = dashboard(&list.sessions, &DashboardQuery { bucket: BucketSize::Day, top: 0, ..Default::default() });
    assert!(week.over_time.len() < day.over_time.len() || day.over_time.len() <= 1);
}

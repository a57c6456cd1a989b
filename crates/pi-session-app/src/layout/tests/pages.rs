//! The unified view with forks, locate, pages and the JSON rows the UI reads.

use super::*;

fn forks() -> (Session, Session, Session) {
    let main = session(
        "r - u
         a r a
         b a u
         c b a",
    );
    // Forked at b: copies r a b, a leaf line, then its own messages.
    let f1 = session(
        "r - u
         a r a
         b a u
         fl1 b leaf b
         f1 fl1 u
         f2 f1 a
         f3 f1 a",
    );
    // Forked from f1 of the first fork.
    let f2 = session(
        "r - u
         a r a
         b a u
         fl1 b leaf b
         f1 fl1 u
         gl f1 leaf f1
         g1 gl u
         g2 g1 a",
    );
    (main, f1, f2)
}

#[test]
fn unified_view_with_forks() {
    let (main, f1, f2) = forks();
    let list = [Fork { session: &f1, fork_point: "b" }, Fork { session: &f2, fork_point: "f1" }];
    let l = Layout::build_unified(&main, &list, &TreeQuery { unified: true, ..Default::default() });
    let ss = [&main, &f1, &f2];
    check(&l, &ss);
    assert_eq!(
        ascii(&l, &ss),
        "\
* r message:user
* a message:assistant
* b message:user
|\\o f1 message:user [s1]
| |\\o f2 message:assistant [s1]
| |\\o g1 message:user [s2]
| | o g2 message:assistant [leaf] [s2]
| o f3 message:assistant [leaf] [s1]
* c message:assistant [leaf]
"
    );
    assert_eq!(l.leaf_row(), Some(8));
    let meta = l.meta(&ss);
    assert_eq!(meta.sessions.len(), 3);
    assert_eq!(meta.total_rows, 9);
    assert_eq!(l.skeleton_row(&ss, 3).parent_id.as_deref(), Some("b"));

    // Forks listed child first are placed all the same.
    let rev = [Fork { session: &f2, fork_point: "f1" }, Fork { session: &f1, fork_point: "b" }];
    let l2 = Layout::build_unified(&main, &rev, &TreeQuery::default());
    let ss2 = [&main, &f2, &f1];
    check(&l2, &ss2);
    let ids = |l: &Layout, ss: &[&Session]| rows(l, ss).into_iter().map(|r| r.id).collect::<Vec<_>>();
    assert_eq!(ids(&l, &ss), ids(&l2, &ss2));

    // The bookkeeping lines of a fork show in the all-entries view, under the fork point.
    let l = Layout::build_unified(&main, &list[..1], &q(TreeFilter::All));
    check(&l, &ss[..2]);
    assert_eq!(
        ascii(&l, &ss[..2]),
        "\
* r message:user
* a message:assistant
* b message:user
|\\o fl1 leaf [s1]
| o f1 message:user [s1]
| |\\o f2 message:assistant [s1]
| o f3 message:assistant [leaf] [s1]
* c message:assistant [leaf]
"
    );

    // A fork point that is not drawn: the fork is left out.
    let l = Layout::build_unified(&main, &[Fork { session: &f1, fork_point: "nope" }], &TreeQuery::default());
    assert_eq!(l.len(), 4);
    assert_eq!(l.meta(&ss[..2]).sessions.len(), 2);
}

#[test]
fn unified_fork_from_the_leaf_continues_its_lane() {
    let (main, _, _) = forks();
    let f = session(
        "r - u
         a r a
         b a u
         c b a
         fl c leaf c
         f1 fl u",
    );
    let l = Layout::build_unified(&main, &[Fork { session: &f, fork_point: "c" }], &TreeQuery::default());
    check(&l, &[&main, &f]);
    assert_eq!(
        ascii(&l, &[&main, &f]),
        "\
* r message:user
* a message:assistant
* b message:user
* c message:assistant [leaf]
o f1 message:user [leaf] [s1]
"
    );
}

#[test]
fn locate_opens_folds_and_collapsed_entries() {
    let s = chain(20, "");
    let l = Layout::build(&s, &TreeQuery::default());
    assert_eq!(l.locate(&[&s], "e01"), LocateResult { row: Some(1), query: TreeQuery::default() });
    let (res, new) = l.locate_relayout(&[&s], "e08");
    assert_eq!(res.query.expanded, vec!["fold:e03".to_string()]);
    assert_eq!(res.row, Some(8));
    let new = new.unwrap();
    assert_eq!(new.row_of(&[&s], "e08"), Some(8));
    assert_eq!(new.query(), &res.query);

    // Under a collapsed entry and then inside the fold that opening it reveals.
    let col = TreeQuery { collapsed: vec!["e01".into()], ..Default::default() };
    let l = Layout::build(&s, &col);
    assert_eq!(l.len(), 2);
    let res = l.locate(&[&s], "e10");
    assert_eq!(res.query.collapsed, Vec::<String>::new());
    assert_eq!(res.query.expanded, vec!["fold:e03".to_string()]);
    assert_eq!(res.row, Some(10));

    // Hidden by the filter, or unknown: no row, query unchanged.
    let s = filtered_session();
    let l = Layout::build(&s, &TreeQuery::default());
    assert_eq!(l.locate(&[&s], "l1"), LocateResult { row: None, query: TreeQuery::default() });
    assert_eq!(l.locate(&[&s], "zzz").row, None);
    assert_eq!(l.locate(&[&s], "u3").row, Some(2));

    // Nested collapsed ancestors all open.
    let s = session(
        "r - u
         a r a
         b a u
         c b a",
    );
    let col = TreeQuery { collapsed: vec!["a".into(), "b".into(), "r".into()], ..Default::default() };
    let res = Layout::build(&s, &col).locate(&[&s], "c");
    assert_eq!((res.row, res.query.collapsed), (Some(3), Vec::<String>::new()));

    // A fork entry in the unified view.
    let (main, f1, f2) = forks();
    let list = [Fork { session: &f1, fork_point: "b" }, Fork { session: &f2, fork_point: "f1" }];
    let col = TreeQuery { collapsed: vec!["f1".into()], ..Default::default() };
    let l = Layout::build_unified(&main, &list, &col);
    let res = l.locate(&[&main, &f1, &f2], "g2");
    assert_eq!((res.row, res.query.collapsed), (Some(6), Vec::<String>::new()));
}

#[test]
fn page_reads_previews_of_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut text = jsonl(
        "m0 - m
         r m0 u
         a1 r a
         t1 a1 t
         o1 zz u
         l1 o1 l a1 mark",
    );
    for i in 0..20 {
        let p = if i == 0 { "o1".to_string() } else { format!("k{:02}", i - 1) };
        text.push_str(&line(100 + i, &format!("k{i:02} {p} a")));
        text.push('\n');
    }
    std::fs::write(&path, &text).unwrap();
    let s = Session::open(&path).unwrap();
    let l = Layout::build(&s, &TreeQuery::default());
    check(&l, &[&s]);
    let rows = l.page(&[&s], 0, 100);
    assert_eq!(rows.len() as u32, l.len());
    let by = |id: &str| rows.iter().find(|r| r.id == id).unwrap();
    assert_eq!(by("m0").preview, "p/m2");
    assert_eq!(by("m0").detail.as_deref(), Some("p/m2"));
    assert_eq!(by("r").preview, "text of r");
    assert_eq!((by("a1").preview.as_str(), by("a1").tokens, by("a1").cost), ("answer a1", Some(15.0), Some(0.01)));
    assert_eq!(by("a1").label.as_deref(), Some("mark"));
    assert_eq!((by("t1").preview.as_str(), by("t1").detail.as_deref()), ("out t1", Some("read")));
    assert_eq!(by("o1").diagnostic, Some(Severity::Warning));
    assert_eq!(by("r").diagnostic, None);
    let fold = rows.iter().find(|r| r.fold.is_some()).unwrap();
    assert_eq!(fold.preview, "14 entries: 14 assistant");
    // A page in the middle equals the same rows of the whole.
    assert_eq!(l.page(&[&s], 3, 4), rows[3..7].to_vec());
    assert_eq!(l.page(&[&s], l.len() - 1, 50).len(), 1);
    assert!(l.page(&[&s], l.len() + 5, 5).is_empty());

    let page = l.tree_page(&[&s], 0, 2);
    let m = page.meta;
    assert_eq!(m.title, "text of r");
    assert_eq!((m.total_rows, m.lanes, m.entry_count, m.labels, m.leaf_id.as_deref()), (l.len(), 1, 26, 1, Some("k19")));
    assert_eq!(m.leaf_row, Some(l.len() - 1));
    assert_eq!(m.sessions, vec![path.to_string_lossy().into_owned()]);
    assert!(m.diagnostics.iter().any(|d| d.kind == pi_session::DiagKind::MissingParent));
    assert_eq!(page.rows.len(), 2);

    // The file is gone: skeleton previews, no panic.
    drop(dir);
    let again = l.page(&[&s], 0, 3);
    assert_eq!(again[1].preview, "message");
    assert_eq!(again[0].preview, "p/m2");
}

#[test]
fn serialises_as_the_ui_expects() {
    let s = chain(20, "");
    let l = Layout::build(&s, &TreeQuery::default());
    let v = serde_json::to_value(l.skeleton_row(&[&s], 3)).unwrap();
    assert_eq!(v["type"], "fold");
    assert_eq!(v["fold"]["id"], "fold:e03");
    assert_eq!(v["branchFrom"], serde_json::Value::Null);
}

/// A session of `n` entries: a main chain of `n / 2`, and side branches of 50 entries
/// every 50 entries of it, some with a branch of their own.
pub(crate) fn big_session(n: usize) -> Vec<u8> {
    let mut out = String::with_capacity(n * 120);
    out.push_str(r#"{"type":"session","version":3,"id":"big","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#);
    out.push('\n');
    let mut count = 0usize;
    let mut push = |out: &mut String, id: &str, parent: Option<&str>, role: &str| {
        count += 1;
        let p = parent.map(|p| format!("\"{p}\"")).unwrap_or_else(|| "null".into());
        let ts = format!("2025-01-01T{:02}:{:02}:{:02}.{:03}Z", (count / 3_600_000) % 24, (count / 60_000) % 60, (count / 1000) % 60, count % 1000);
        out.push_str(&format!(
            r#"{{"type":"message","id":"{id}","parentId":{p},"timestamp":"{ts}","message":{{"role":"{role}","content":"x","timestamp":1}}}}"#
        ));
        out.push('\n');
    };
    let main_len = n / 2;
    let roles = ["user", "assistant", "toolResult"];
    let mut side = 0usize;
    let mut total = main_len;
    for i in 0..main_len {
        let id = format!("m{i:x}");
        let parent = (i > 0).then(|| format!("m{:x}", i - 1));
        push(&mut out, &id, parent.as_deref(), roles[i % 3]);
        if i % 50 == 25 && total + 50 <= n {
            for j in 0..50 {
                let sid = format!("s{side:x}x{j:x}");
                let parent = if j == 0 { id.clone() } else { format!("s{side:x}x{:x}", j - 1) };
                push(&mut out, &sid, Some(&parent), roles[j % 3]);
            }
            total += 50;
            if side & 3 == 0 && total + 10 <= n {
                for j in 0..10 {
                    let sid = format!("s{side:x}y{j:x}");
                    let parent = if j == 0 { format!("s{side:x}x{:x}", 20) } else { format!("s{side:x}y{:x}", j - 1) };
                    push(&mut out, &sid, Some(&parent), roles[j % 3]);
                }
                total += 10;
            }
            side += 1;
        }
    }
    // The leaf back on the main chain.
    out.push_str(&format!(
        r#"{{"type":"leaf","id":"lf","parentId":"m{:x}","timestamp":"2025-01-02T00:00:00.000Z","targetId":"m{:x}"}}"#,
        main_len - 1,
        main_len - 1
    ));
    out.push('\n');
    out.into_bytes()
}

/// A long session with many branch points: every layout the filters give is consistent
/// (lanes, folds, pages), and "all entries" shows every entry.
#[test]
fn long_session_layouts_are_consistent() {
    let bytes = big_session(20_000);
    let s = Session::from_bytes("/nonexistent/big.jsonl", &bytes);
    let bps = s.tree.children.iter().filter(|c| c.len() > 1).count();
    assert!(bps > 100, "{bps} branch points");
    let l = Layout::build(&s, &TreeQuery::default());
    check(&l, &[&s]);
    let page = l.page(&[&s], l.len() / 2, 100);
    assert_eq!(page.len(), 100);
    let all = Layout::build(&s, &TreeQuery { expanded: Vec::new(), filter: TreeFilter::All, ..Default::default() });
    check(&all, &[&s]);
    assert_eq!(all.len() as usize, all.rows.len());
}

//! Shapes: branches, filters, folds, collapsed subtrees, several roots.

use super::*;

#[test]
fn linear_chain() {
    let s = session(
        "r - u
         a1 r a
         t1 a1 t
         u2 t1 u",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user
* a1 message:assistant
* t1 message:toolResult
* u2 message:user [leaf]
"
    );
    let l = Layout::build(&s, &TreeQuery::default());
    let r = rows(&l, &[&s]);
    assert_eq!((r[0].up, r[0].down, r[3].up, r[3].down), (false, true, true, false));
    assert!(r.iter().all(|r| r.color == 0 && r.lane == 0 && r.pass.is_empty()));
    assert_eq!(l.lanes(), 1);
    assert_eq!(l.leaf_row(), Some(3));
}

#[test]
fn branch_point_with_two_children() {
    // The leaf is in the first child: it continues lane 0, the newer sibling goes right.
    let s = session(
        "r - u
         a r a
         b1 a u
         c1 b1 a
         b2 a u
         lf c1 leaf c1",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user
* a message:assistant
|\\o b2 message:user
* b1 message:user
* c1 message:assistant [leaf]
"
    );
    let l = Layout::build(&s, &TreeQuery::default());
    let r = rows(&l, &[&s]);
    assert_eq!(r[2].branch_from, Some(0));
    assert_eq!(r[2].pass, vec![0]);
    assert_eq!((r[2].up, r[2].down, r[2].color), (false, false, 1));
    assert_eq!((r[3].up, r[3].color), (true, 0));
    assert_eq!(r[1].child_count, 2);

    // Leaf on the newest child: the older one is the side branch.
    let s = session(
        "r - u
         a r a
         b1 a u
         c1 b1 a
         b2 a u",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user
* a message:assistant
|\\o b1 message:user
| o c1 message:assistant
* b2 message:user [leaf]
"
    );
}

#[test]
fn branch_point_with_three_children_active_in_the_middle() {
    let s = session(
        "r - u
         x r a
         x2 x u
         y r a
         y2 y u
         z r a
         lf y2 leaf y2",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user
|\\o x message:assistant
| o x2 message:user
|\\o z message:assistant
* y message:assistant
* y2 message:user [leaf]
"
    );
    let l = Layout::build(&s, &TreeQuery::default());
    let r = rows(&l, &[&s]);
    // Each side branch takes the next colour; the main line keeps 0.
    assert_eq!(r.iter().map(|r| r.color).collect::<Vec<_>>(), vec![0, 1, 1, 2, 0, 0]);
    // No leaf line: the newest child is the main one.
    let s = session(
        "r - u
         x r a
         y r a
         z r a",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user
|\\o x message:assistant
|\\o y message:assistant
* z message:assistant [leaf]
"
    );
}

#[test]
fn nested_side_branches() {
    let s = session(
        "r - u
         a r a
         s a u
         s1 s a
         s1a s1 u
         s2 s a
         s2b s2 u
         s2c s2 u
         m a u
         m2 m a",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user
* a message:assistant
|\\o s message:user
| |\\o s1 message:assistant
| | o s1a message:user
| o s2 message:assistant
| |\\o s2b message:user
| o s2c message:user
* m message:user
* m2 message:assistant [leaf]
"
    );
    let l = Layout::build(&s, &TreeQuery::default());
    assert_eq!(l.lanes(), 3);
    let r = rows(&l, &[&s]);
    assert_eq!(r[4].pass, vec![0, 1]);
    assert_eq!(r.iter().map(|r| r.color).collect::<Vec<_>>(), vec![0, 0, 1, 2, 2, 1, 3, 1, 0, 0]);
}


#[test]
fn filter_default_hides_bookkeeping_and_marks_the_leaf_below_it() {
    let s = filtered_session();
    // The leaf is the label line l2; the default view marks its nearest shown ancestor.
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user [label=start]
* a1 message:assistant
|\\o u3 message:user [label=try]
| o a3 message:assistant
* t1 message:toolResult
* u2 message:user
* a2 message:assistant [leaf]
"
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::All)),
        "\
* r message:user [label=start]
* a1 message:assistant
|\\o u3 message:user [label=try]
| o a3 message:assistant
* t1 message:toolResult
* u2 message:user
* a2 message:assistant
* l1 label
* l2 label [leaf]
"
    );
}

#[test]
fn filter_user_only() {
    let s = filtered_session();
    assert_eq!(
        draw(&s, &q(TreeFilter::UserOnly)),
        "\
* r message:user [label=start]
|\\o u3 message:user [label=try]
* u2 message:user [leaf]
"
    );
    let l = Layout::build(&s, &q(TreeFilter::UserOnly));
    assert_eq!(l.skeleton_row(&[&s], 2).parent_id.as_deref(), Some("r"));
}

#[test]
fn filter_labeled() {
    let s = filtered_session();
    assert_eq!(
        draw(&s, &q(TreeFilter::Labeled)),
        "\
* r message:user [label=start]
|\\o u3 message:user [label=try]
* a2 message:assistant [leaf]
"
    );
    // Without a labeled root, the shown entries are separate roots: the one on the
    // active path last.
    let s = session(
        "r - u
         a1 r a
         u3 a1 u
         a3 u3 a
         u2 a1 u
         l1 u2 l u3 try",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Labeled)),
        "\
o u3 message:user [label=try]
* u2 message:user [leaf]
"
    );
}

#[test]
fn bookkeeping_lines_are_transparent() {
    // A label line between a message and its child: the child hangs under the message.
    let s = session(
        "r - u
         a1 r a
         l1 a1 l r x
         u2 l1 u
         a2 u2 a",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user [label=x]
* a1 message:assistant
* u2 message:user
* a2 message:assistant [leaf]
"
    );
    let l = Layout::build(&s, &TreeQuery::default());
    assert_eq!(l.skeleton_row(&[&s], 2).parent_id.as_deref(), Some("a1"));
    assert_eq!(
        draw(&s, &q(TreeFilter::All)),
        "\
* r message:user [label=x]
* a1 message:assistant
* l1 label
* u2 message:user
* a2 message:assistant [leaf]
"
    );
    // Children of a bookkeeping line keep their place among the message's children.
    let s = session(
        "r - u
         a1 r a
         x a1 u
         l1 a1 l r x
         y l1 u
         z a1 u
         lf y leaf y",
    );
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* r message:user [label=x]
* a1 message:assistant
|\\o x message:user
|\\o z message:user
* y message:user [leaf]
"
    );
}


#[test]
fn folds_closed_and_opened() {
    let s = chain(20, "");
    assert_eq!(
        draw(&s, &q(TreeFilter::Default)),
        "\
* e00 message:user
* e01 message:assistant
* e02 message:toolResult
~ fold:e03 fold [13 hidden]
* e16 message:assistant
* e17 message:toolResult
* e18 message:user
* e19 message:assistant [leaf]
"
    );
    let l = Layout::build(&s, &TreeQuery::default());
    let r = l.skeleton_row(&[&s], 3);
    let f = r.fold.clone().unwrap();
    assert_eq!((f.count, f.users, f.assistants, f.tools, f.others, f.on_path), (13, 5, 4, 4, 0, true));
    assert_eq!(r.id, "e03");
    assert_eq!(r.parent_id.as_deref(), Some("e02"));
    assert_eq!((r.up, r.down, r.on_path, r.kind.as_str()), (true, true, true, "fold"));
    assert_eq!(f.first_ts, finite(s.index.entries[3].ts));
    assert_eq!(f.last_ts, finite(s.index.entries[15].ts));
    assert_eq!(r.tokens, Some(60.0));
    assert_eq!(l.leaf_row(), Some(7));

    let open = TreeQuery { expanded: vec!["fold:e03".into()], ..Default::default() };
    let drawn = draw(&s, &open);
    assert_eq!(drawn.lines().count(), 20);
    assert!(!drawn.contains('~'));

    // A run of exactly 12 does not fold; a labeled entry or a compaction splits a run.
    assert!(!draw(&chain(13, ""), &TreeQuery::default()).contains('~'));
    assert!(draw(&chain(14, ""), &TreeQuery::default()).contains('~'));
    let labeled = chain(20, "l1 e19 l e10 here\nlf l1 leaf e19");
    assert!(!draw(&labeled, &TreeQuery::default()).contains('~'));
    let mut spec = String::from("r - u\n");
    for i in 0..30 {
        let p = if i == 0 { "r".to_string() } else { format!("x{:02}", i - 1) };
        spec.push_str(&format!("x{i:02} {p} {}\n", if i == 15 { "c" } else { "a" }));
    }
    assert_eq!(
        draw(&session(&spec), &TreeQuery::default()),
        "\
* r message:user
* x00 message:assistant
* x01 message:assistant
~ fold:x02 fold [10 hidden]
* x12 message:assistant
* x13 message:assistant
* x14 message:assistant
* x15 compaction
* x16 message:assistant
* x17 message:assistant
* x18 message:assistant
~ fold:x19 fold [7 hidden]
* x26 message:assistant
* x27 message:assistant
* x28 message:assistant
* x29 message:assistant [leaf]
"
    );
}

#[test]
fn folds_in_side_branches_and_branch_points_split_runs() {
    let mut spec = String::from("r - u\n");
    for i in 0..15 {
        let p = if i == 0 { "r".to_string() } else { format!("s{:02}", i - 1) };
        spec.push_str(&format!("s{i:02} {p} a\n"));
    }
    spec.push_str("m r u\nm2 m a\n");
    let s = session(&spec);
    assert_eq!(
        draw(&s, &TreeQuery::default()),
        "\
* r message:user
|\\o s00 message:assistant
| o s01 message:assistant
| o s02 message:assistant
| ~ fold:s03 fold [9 hidden]
| o s12 message:assistant
| o s13 message:assistant
| o s14 message:assistant
* m message:user
* m2 message:assistant [leaf]
"
    );
    let l = Layout::build(&s, &TreeQuery::default());
    let f = l.skeleton_row(&[&s], 4);
    assert_eq!((f.lane, f.color, f.on_path), (1, 1, false));
    assert!(!f.fold.unwrap().on_path);
}

#[test]
fn collapsed_subtree() {
    let s = session(
        "r - u
         a r a
         s a u
         s1 s a
         s1a s1 u
         s2 s a
         m a u
         m2 m a
         m3 m2 u
         m4 m2 u",
    );
    let base = draw(&s, &TreeQuery::default());
    let col = TreeQuery { collapsed: vec!["s".into()], ..Default::default() };
    assert_eq!(
        draw(&s, &col),
        "\
* r message:user
* a message:assistant
|\\o s message:user [+3]
* m message:user
* m2 message:assistant
|\\o m3 message:user
* m4 message:user [leaf]
"
    );
    let l = Layout::build(&s, &col);
    let r = rows(&l, &[&s]);
    assert_eq!((r[2].down, r[2].child_count, r[2].collapsed), (false, 2, Some(3)));
    // Colours of the other branches do not move when a subtree closes.
    let full = Layout::build(&s, &TreeQuery::default());
    let color_of = |l: &Layout, id: &str| l.skeleton_row(&[&s], l.row_of(&[&s], id).unwrap()).color;
    assert_eq!(color_of(&l, "m3"), color_of(&full, "m3"));
    assert_ne!(base, draw(&s, &col));

    // Collapsing the active path hides the leaf.
    let col = TreeQuery { collapsed: vec!["m2".into(), "nope".into()], ..Default::default() };
    let l = Layout::build(&s, &col);
    check(&l, &[&s]);
    assert_eq!(l.leaf_row(), None);
    assert_eq!(l.skeleton_row(&[&s], l.len() - 1).collapsed, Some(2));
    // Collapsing an entry without children changes nothing.
    let col = TreeQuery { collapsed: vec!["m4".into()], ..Default::default() };
    assert_eq!(draw(&s, &col), base);
}

#[test]
fn multiple_roots() {
    // o1's parent is not in the file: it is an extra root, and holds the leaf.
    let s = session(
        "r - u
         a r a
         b r a
         o1 zz u
         o2 o1 a",
    );
    assert_eq!(
        draw(&s, &TreeQuery::default()),
        "\
o r message:user
|\\o a message:assistant
o b message:assistant
* o1 message:user
* o2 message:assistant [leaf]
"
    );
    let l = Layout::build(&s, &TreeQuery::default());
    let r = rows(&l, &[&s]);
    assert_eq!(r.iter().map(|r| r.color).collect::<Vec<_>>(), vec![1, 2, 1, 0, 0]);
    assert_eq!((r[3].up, r[3].parent_id.clone()), (false, None));
    // No active path (leaf before the first entry): roots in file order, the last is main.
    let s = session(
        "r - u
         a r a
         o1 zz u
         lf - leaf null",
    );
    assert_eq!(
        draw(&s, &TreeQuery::default()),
        "\
o r message:user
o a message:assistant
o o1 message:user
"
    );
    assert_eq!(Layout::build(&s, &TreeQuery::default()).leaf_row(), None);
}

#[test]
fn parent_cycle_does_not_hang() {
    let s = session(
        "r - u
         x y u
         y x a
         z z u",
    );
    assert!(s.diagnostics().iter().any(|d| d.kind == pi_session::DiagKind::ParentCycle));
    assert_eq!(
        draw(&s, &TreeQuery::default()),
        "\
o r message:user
o x message:user
o y message:assistant
* z message:user [leaf]
"
    );
}

#[test]
fn empty_session() {
    let s = Session::from_bytes("/nonexistent/e.jsonl", br#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#);
    let l = Layout::build(&s, &TreeQuery::default());
    assert_eq!((l.len(), l.lanes(), l.leaf_row()), (0, 0, None));
    assert_eq!(ascii(&l, &[&s]), "");
    assert!(l.page(&[&s], 0, 10).is_empty());
}

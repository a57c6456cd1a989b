//! Properties over generated sessions.

use proptest::prelude::*;

use super::*;

fn arb_spec() -> impl Strategy<Value = (String, TreeFilter, Vec<usize>, usize)> {
    let node = (0u8..100, 0u8..100, 0u8..6);
    (prop::collection::vec(node, 1..70), 0u8..4, prop::collection::vec(0usize..70, 0..4), 0u8..3, 0usize..70).prop_map(
        |(nodes, f, collapsed, leaf_mode, leaf_at)| {
            let n = nodes.len();
            let mut spec = String::new();
            for (i, &(p, r, k)) in nodes.iter().enumerate() {
                let parent = if i == 0 || p < 4 {
                    "-".to_string()
                } else if p < 7 {
                    format!("n{}", r as usize % n) // may point forward: cycles, self-parents
                } else if p < 80 {
                    format!("n{}", i - 1)
                } else {
                    format!("n{}", r as usize % i)
                };
                let kind = match k {
                    0 | 1 => "u".to_string(),
                    2 => "a".to_string(),
                    3 => "t".to_string(),
                    4 => format!("l n{} lab", r as usize % n),
                    _ => ["c", "b", "m"][r as usize % 3].to_string(),
                };
                spec.push_str(&format!("n{i} {parent} {kind}\n"));
            }
            match leaf_mode {
                0 => {}
                1 => spec.push_str(&format!("lf n{} leaf n{}\n", leaf_at % n, leaf_at % n)),
                _ => spec.push_str("lf - leaf null\n"),
            }
            let filter = [TreeFilter::Default, TreeFilter::UserOnly, TreeFilter::Labeled, TreeFilter::All][f as usize];
            (spec, filter, collapsed.into_iter().map(|c| c % n).collect(), leaf_at)
        },
    )
}

fn visible_count(s: &Session, f: TreeFilter) -> usize {
    (0..s.index.entries.len())
        .filter(|&i| s.tree.in_tree[i])
        .filter(|&i| {
            let e = &s.index.entries[i];
            match f {
                TreeFilter::Default => !e.kind.is_bookkeeping(),
                TreeFilter::UserOnly => e.is_user(),
                TreeFilter::Labeled => s.tree.labels.contains_key(e.id_str()) || content_leaf(s) == i as u32,
                TreeFilter::All => true,
            }
        })
        .count()
}

proptest! {
    #[test]
    fn layouts_keep_their_invariants((spec, filter, collapsed, pick) in arb_spec()) {
        let s = session(&spec);
        let ids: Vec<String> = s.index.entries.iter().map(|e| e.id_str().to_string()).collect();
        let query = TreeQuery {
            filter,
            collapsed: collapsed.iter().map(|&c| format!("n{c}")).collect(),
            ..Default::default()
        };
        let l = Layout::build(&s, &query);
        check(&l, &[&s]);
        let rows = rows(&l, &[&s]);
        // Every shown entry is a row, in a fold, or counted by a collapsed row.
        let drawn: u32 = rows.iter().map(|r| r.fold.as_ref().map_or(1, |f| f.count) + r.collapsed.unwrap_or(0)).sum();
        prop_assert_eq!(drawn as usize, visible_count(&s, filter));
        // Folds keep 3 entries at each end of a run longer than 12.
        for (i, r) in rows.iter().enumerate() {
            if r.fold.is_some() {
                prop_assert!(i >= FOLD_KEEP && i + FOLD_KEEP < rows.len());
                prop_assert!(r.fold.as_ref().unwrap().count as usize > FOLD_MIN - 2 * FOLD_KEEP);
            }
        }
        // Locating any entry gives a layout where it is that row.
        let id = &ids[pick % ids.len()];
        let (res, new) = l.locate_relayout(&[&s], id);
        if let Some(row) = res.row {
            let nl = new.unwrap_or_else(|| l.clone());
            prop_assert_eq!(nl.query(), &res.query);
            prop_assert_eq!(nl.row_of(&[&s], id), Some(row));
            check(&nl, &[&s]);
        } else {
            prop_assert_eq!(&res.query, &query);
        }
        // Opening every fold shows every shown entry that no collapse hides.
        let open = TreeQuery {
            expanded: rows.iter().filter_map(|r| r.fold.as_ref().map(|f| f.id.clone())).collect(),
            ..query.clone()
        };
        let lo = Layout::build(&s, &open);
        check(&lo, &[&s]);
        prop_assert!(lo.folds.is_empty());
    }
}

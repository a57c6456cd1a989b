//! Any bytes as a whole session file: `SessionIndex::from_bytes` and `Tree::build` must not
//! panic, and the tree must be sound: every in-tree entry's parent chain ends at a root within
//! n steps, children lists and parents agree, roots are exactly the in-tree entries without a
//! parent, depths and DFS numbers match, and the leaf (when not null) is in the tree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_session::tree::NONE;
use pi_session::{Leaf, SessionIndex, Tree};

fuzz_target!(|data: &[u8]| {
    let ix = SessionIndex::from_bytes("fuzz.jsonl", data);
    let t = Tree::build(&ix);
    let n = ix.entries.len();
    assert_eq!(t.parent.len(), n);
    assert_eq!(t.children.len(), n);
    assert_eq!(t.in_tree.len(), n);
    let mut seen_as_child = vec![false; n];
    for i in 0..n {
        let p = t.parent[i];
        if !t.in_tree[i] {
            assert_eq!(p, NONE, "an entry outside the tree has a parent");
            assert!(t.children[i].is_empty(), "an entry outside the tree has children");
            continue;
        }
        // The chain ends.
        let mut cur = i as u32;
        let mut steps = 0usize;
        while t.parent[cur as usize] != NONE {
            cur = t.parent[cur as usize];
            steps += 1;
            assert!(steps <= n, "parent chain of entry {i} does not end");
        }
        assert!(t.roots.contains(&cur), "chain of {i} ends at {cur}, which is not a root");
        assert_eq!(t.depth[i] as usize, steps, "depth of {i}");
        if p != NONE {
            assert!(t.in_tree[p as usize], "parent of {i} is outside the tree");
            assert!(t.children[p as usize].contains(&(i as u32)), "{i} missing from its parent's children");
            assert!(t.is_ancestor_or_self(p, i as u32));
        }
        for &c in &t.children[i] {
            assert_eq!(t.parent[c as usize], i as u32, "child {c} of {i} has another parent");
            assert!(!seen_as_child[c as usize], "{c} is listed as a child twice");
            seen_as_child[c as usize] = true;
        }
    }
    let mut roots = t.roots.clone();
    roots.sort_unstable();
    let expected: Vec<u32> = (0..n as u32).filter(|&i| t.in_tree[i as usize] && t.parent[i as usize] == NONE).collect();
    assert_eq!(roots, expected, "roots are not the in-tree entries without a parent");
    if let Leaf::Entry(l) = t.leaf {
        assert!((l as usize) < n && t.in_tree[l as usize], "the leaf is not in the tree");
        let path = t.active_path();
        assert_eq!(path.last(), Some(&l));
        assert!(t.roots.contains(&path[0]));
    }
    for d in ix.diagnostics.iter().chain(&t.diagnostics) {
        assert!(d.line.map_or(true, |l| l >= 1), "{d:?}");
    }
});

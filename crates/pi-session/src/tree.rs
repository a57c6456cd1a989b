//! The entry tree of one file: roots, children in pi's order, labels, name, leaf, active path.
//! Every walk is iterative and cycle-guarded: chains 100k deep and parent cycles are normal input.

use indexmap::IndexMap;

use crate::diag::{DiagKind, Diagnostic};
use crate::entry::{Detail, Id, Kind, Parent};
use crate::jssort::sort_by_timestamp;
use crate::session::SessionIndex;

pub const NONE: u32 = u32::MAX;

/// Where the session resumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// Before the first entry (`leaf` line with `targetId: null`, or no entries at all).
    Null,
    /// An entry, by index into `SessionIndex::entries`.
    Entry(u32),
}

/// A label in effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelInfo {
    pub text: String,
    /// Line of the label entry that set it.
    pub line: u32,
    /// Index of that label entry.
    pub entry: u32,
}

#[derive(Debug, Clone)]
pub struct Tree {
    /// Effective parent of each entry (`NONE` for roots and for entries outside the tree).
    pub parent: Vec<u32>,
    /// Children of each entry, in pi's `getTree()` order (timestamp, ties in file order).
    pub children: Vec<Vec<u32>>,
    /// Roots in file order.
    pub roots: Vec<u32>,
    /// False for lines outside the tree: no id, or an id that a later line took over.
    pub in_tree: Vec<bool>,
    /// Depth of each entry (roots 0).
    pub depth: Vec<u32>,
    /// Pre-order and post-order numbers of a depth-first walk (ancestor tests in O(1)).
    pub pre: Vec<u32>,
    pub post: Vec<u32>,
    /// Labels in effect, in the order pi's label map holds them.
    pub labels: IndexMap<Id, LabelInfo>,
    pub name: Option<String>,
    pub leaf: Leaf,
    /// Findings about structure (missing parents, cycles, dangling references).
    pub diagnostics: Vec<Diagnostic>,
    /// Entries that were part of a parent cycle (pi loops forever on a path through them).
    pub in_cycle: Vec<bool>,
}

impl Tree {
    pub fn build(ix: &SessionIndex) -> Tree {
        let n = ix.entries.len();
        let mut diags = Vec::new();
        let mut parent = vec![NONE; n];
        let mut in_tree = vec![false; n];
        let mut is_root = vec![false; n];

        for (i, e) in ix.entries.iter().enumerate() {
            let Some(id) = &e.id else { continue };
            if ix.by_id.get(id) != Some(&(i as u32)) {
                continue; // shadowed by a later line with the same id
            }
            in_tree[i] = true;
            match &e.parent {
                Parent::Null => is_root[i] = true,
                Parent::Id(p) if p == id => {
                    is_root[i] = true;
                    diags.push(Diagnostic::new(Some(e.line), DiagKind::SelfParent, format!("entry {id} names itself as its parent")));
                }
                Parent::Id(p) => match ix.by_id.get(p) {
                    Some(&pi) => parent[i] = pi,
                    None => {
                        is_root[i] = true;
                        diags.push(Diagnostic::new(
                            Some(e.line),
                            DiagKind::MissingParent,
                            format!("parent {p} of entry {id} is not in the file; shown as a root"),
                        ));
                    }
                },
                Parent::Missing | Parent::Invalid => {
                    is_root[i] = true;
                    diags.push(Diagnostic::new(Some(e.line), DiagKind::MissingParent, format!("entry {id} has no parentId; shown as a root")));
                }
            }
        }

        let mut in_cycle = vec![false; n];
        break_cycles(ix, &mut parent, &mut is_root, &in_tree, &mut in_cycle, &mut diags);

        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for i in 0..n {
            if !in_tree[i] {
                continue;
            }
            if parent[i] == NONE {
                roots.push(i as u32);
            } else {
                children[parent[i] as usize].push(i as u32);
            }
        }
        for c in children.iter_mut() {
            sort_by_timestamp(c, |k| ix.entries[k as usize].ts);
        }

        // Depth and DFS numbering, iteratively.
        let mut depth = vec![0u32; n];
        let mut pre = vec![NONE; n];
        let mut post = vec![NONE; n];
        let (mut pre_n, mut post_n) = (0u32, 0u32);
        let mut stack: Vec<(u32, usize)> = Vec::new();
        for &r in &roots {
            stack.push((r, 0));
            pre[r as usize] = pre_n;
            pre_n += 1;
            while let Some(top) = stack.last_mut() {
                let (node, ci) = *top;
                if let Some(&c) = children[node as usize].get(ci) {
                    top.1 += 1;
                    depth[c as usize] = depth[node as usize] + 1;
                    pre[c as usize] = pre_n;
                    pre_n += 1;
                    stack.push((c, 0));
                } else {
                    post[node as usize] = post_n;
                    post_n += 1;
                    stack.pop();
                }
            }
        }

        // Labels and name: replayed over every line in file order, as pi's _buildIndex does.
        let mut labels: IndexMap<Id, LabelInfo> = IndexMap::new();
        let mut name = None;
        for (i, e) in ix.entries.iter().enumerate() {
            match &e.detail {
                Detail::Label { target: Some(t), label } => match label {
                    Some(text) => {
                        labels.insert(t.clone(), LabelInfo { text: text.clone(), line: e.line, entry: i as u32 });
                    }
                    None => {
                        labels.shift_remove(t);
                    }
                },
                Detail::SessionInfo { name: nm } if e.kind == Kind::SessionInfo => name = nm.clone(),
                _ => {}
            }
        }

        let leaf = leaf_of(ix, &parent, &mut diags);

        let mut t = Tree { parent, children, roots, in_tree, depth, pre, post, labels, name, leaf, diagnostics: diags, in_cycle };
        t.reference_diagnostics(ix);
        t
    }

    /// True when `a` is `b` or an ancestor of `b`.
    pub fn is_ancestor_or_self(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        self.pre[a] != NONE && self.pre[b] != NONE && self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// Root-first path to `node` (inclusive).
    pub fn path_to(&self, node: u32) -> Vec<u32> {
        let mut p = Vec::with_capacity(self.depth[node as usize] as usize + 1);
        let mut cur = node;
        while cur != NONE {
            p.push(cur);
            cur = self.parent[cur as usize];
        }
        p.reverse();
        p
    }

    /// True when a walk from `node` to its root passes through a (broken) parent cycle.
    pub fn path_hits_cycle(&self, node: u32) -> bool {
        let mut cur = node;
        while cur != NONE {
            if self.in_cycle[cur as usize] {
                return true;
            }
            cur = self.parent[cur as usize];
        }
        false
    }

    /// The active path (root → leaf), empty when the leaf is null.
    pub fn active_path(&self) -> Vec<u32> {
        match self.leaf {
            Leaf::Null => Vec::new(),
            Leaf::Entry(i) => self.path_to(i),
        }
    }

    pub fn leaf_index(&self) -> Option<u32> {
        match self.leaf {
            Leaf::Null => None,
            Leaf::Entry(i) => Some(i),
        }
    }

    /// Dangling `firstKeptEntryId`, `targetId`, `fromId`.
    fn reference_diagnostics(&mut self, ix: &SessionIndex) {
        for (i, e) in ix.entries.iter().enumerate() {
            if !self.in_tree[i] && !matches!(e.kind, Kind::Label) {
                continue;
            }
            match &e.detail {
                Detail::Compaction { first_kept: Some(fk), .. } => {
                    let on_path = ix.by_id.get(fk).is_some_and(|&k| k as usize != i && self.is_ancestor_or_self(k, i as u32));
                    if !on_path {
                        self.diagnostics.push(Diagnostic::new(
                            Some(e.line),
                            DiagKind::DanglingFirstKept,
                            format!("firstKeptEntryId {fk} is not on this compaction's path; nothing before it is kept"),
                        ));
                    }
                }
                Detail::Label { target: Some(t), .. } if !ix.by_id.contains_key(t) => {
                    self.diagnostics.push(Diagnostic::new(Some(e.line), DiagKind::DanglingTarget, format!("label target {t} is not in the file")));
                }
                Detail::BranchSummary { from_id: Some(f), .. } if f != "root" && !ix.by_id.contains_key(f) => {
                    self.diagnostics.push(Diagnostic::new(Some(e.line), DiagKind::DanglingFrom, format!("fromId {f} is not in the file")));
                }
                _ => {}
            }
        }
    }
}

/// The leaf: decided by the last entry line with an id. A `leaf` line gives its `targetId`
/// (null = before the first entry); any other line gives itself.
fn leaf_of(ix: &SessionIndex, parent: &[u32], diags: &mut Vec<Diagnostic>) -> Leaf {
    let Some((i, e)) = ix.entries.iter().enumerate().rev().find(|(_, e)| e.id.is_some()) else {
        return Leaf::Null;
    };
    match &e.detail {
        Detail::Leaf { target: None, target_valid: true } => Leaf::Null,
        Detail::Leaf { target: Some(t), .. } if ix.by_id.contains_key(t) => Leaf::Entry(ix.by_id[t]),
        Detail::Leaf { target, .. } => {
            let what = match target {
                Some(t) => format!("leaf target {t} is not in the file"),
                None => "leaf line without a valid targetId".to_string(),
            };
            diags.push(Diagnostic::new(Some(e.line), DiagKind::DanglingTarget, format!("{what}; the leaf stays at the line's parent")));
            match parent[i] {
                NONE => Leaf::Null,
                p => Leaf::Entry(p),
            }
        }
        _ => Leaf::Entry(i as u32),
    }
}

/// Finds entries whose parent chain never reaches a root and breaks each cycle at its
/// earliest line, which becomes a root.
fn break_cycles(
    ix: &SessionIndex,
    parent: &mut [u32],
    is_root: &mut [bool],
    in_tree: &[bool],
    in_cycle: &mut [bool],
    diags: &mut Vec<Diagnostic>,
) {
    const WHITE: u8 = 0;
    const GREY: u8 = 1;
    const BLACK: u8 = 2;
    let n = parent.len();
    let mut color = vec![WHITE; n];
    let mut stack: Vec<u32> = Vec::new();
    for start in 0..n {
        if !in_tree[start] || color[start] != WHITE {
            continue;
        }
        stack.clear();
        let mut cur = start as u32;
        loop {
            let c = cur as usize;
            if color[c] == BLACK || is_root[c] || parent[c] == NONE {
                break;
            }
            if color[c] == GREY {
                // Cycle: the stack from the first occurrence of `cur`.
                let from = stack.iter().position(|&x| x == cur).unwrap_or(0);
                let cycle = &stack[from..];
                for &x in cycle {
                    in_cycle[x as usize] = true;
                }
                let breaker = *cycle.iter().min_by_key(|&&x| ix.entries[x as usize].line).unwrap_or(&cur);
                let lines: Vec<String> = cycle.iter().map(|&x| ix.entries[x as usize].line.to_string()).collect();
                let b = &ix.entries[breaker as usize];
                diags.push(Diagnostic::new(
                    Some(b.line),
                    DiagKind::ParentCycle,
                    format!(
                        "parent cycle through lines {} (pi loops forever on it); broken at {}, shown as a root",
                        lines.join(", "),
                        b.id_str()
                    ),
                ));
                parent[breaker as usize] = NONE;
                is_root[breaker as usize] = true;
                break;
            }
            color[c] = GREY;
            stack.push(cur);
            cur = parent[c];
        }
        for &x in &stack {
            color[x as usize] = BLACK;
        }
        color[start] = BLACK;
    }
}

//! The entry tree of one file: roots, children in pi's order, labels, name, leaf, active path.
//! Every walk is iterative and cycle-guarded: chains 100k deep and parent cycles are normal input.

use indexmap::IndexMap;
use pi_session_format::diag::{DiagKind, Diagnostic};
use pi_session_format::entry::{Detail, Id, Kind, Parent};
use pi_session_format::js::sort_by_timestamp;

use crate::session::SessionIndex;

pub const NONE: u32 = u32::MAX;

/// The children of one entry: up to four inline (most entries have one), more on the heap.
pub type Children = smallvec::SmallVec<[u32; 4]>;

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
    pub children: Vec<Children>,
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
    /// Ids referred to (parents, targets) but not in the file.
    pub(crate) unresolved: std::collections::HashSet<Id>,
}

/// Where an entry goes in the tree.
enum Link {
    /// Outside the tree: no id, or shadowed by a later line with the same id.
    Out,
    Root,
    Child(u32),
}

/// Resolves entry `i`'s parent, recording structural findings.
/// `unique`: no two lines share an id, so every line with an id holds it (no lookup needed).
fn link(ix: &SessionIndex, i: usize, unique: bool, diags: &mut Vec<Diagnostic>) -> Link {
    let e = &ix.entries[i];
    let Some(id) = &e.id else { return Link::Out };
    if !unique && ix.by_id.get(id) != Some(&(i as u32)) {
        return Link::Out;
    }
    match &e.parent {
        Parent::Null => Link::Root,
        Parent::Id(p) if p == id => {
            diags.push(Diagnostic::new(Some(e.line), DiagKind::SelfParent, format!("entry {id} names itself as its parent")));
            Link::Root
        }
        // Most entries follow their parent: with every id used once, the line before is the
        // parent when it has that id (no lookup in the id map, most of the links' time).
        Parent::Id(p) if unique && i > 0 && ix.entries[i - 1].id.as_ref() == Some(p) => Link::Child(i as u32 - 1),
        Parent::Id(p) => match ix.by_id.get(p) {
            Some(&pi) => Link::Child(pi),
            None => {
                diags.push(Diagnostic::new(Some(e.line), DiagKind::MissingParent, format!("parent {p} of entry {id} is not in the file; shown as a root")));
                Link::Root
            }
        },
        Parent::Missing | Parent::Invalid => {
            diags.push(Diagnostic::new(Some(e.line), DiagKind::MissingParent, format!("entry {id} has no parentId; shown as a root")));
            Link::Root
        }
    }
}

impl Tree {
    pub fn build(ix: &SessionIndex) -> Tree {
        let n = ix.entries.len();
        let mut diags = Vec::new();
        let mut parent = vec![NONE; n];
        let mut in_tree = vec![false; n];
        let mut is_root = vec![false; n];

        // Parent lookups are independent: resolve them on all cores, a block of entries at a
        // time, writing in place (findings kept in file order). Also notes every parent id
        // that is not in the file (on any line).
        let unique = {
            use rayon::prelude::*;
            ix.by_id.len() == ix.entries.par_iter().with_min_len(4096).filter(|e| e.id.is_some()).count()
        };
        let mut unresolved = std::collections::HashSet::new();
        {
            use rayon::prelude::*;
            const BLOCK: usize = 4096;
            let found: Vec<(Vec<Diagnostic>, Vec<Id>)> = parent
                .par_chunks_mut(BLOCK)
                .zip(in_tree.par_chunks_mut(BLOCK))
                .zip(is_root.par_chunks_mut(BLOCK))
                .enumerate()
                .map(|(b, ((parent, in_tree), is_root))| {
                    let mut d = Vec::new();
                    let mut missing = Vec::new();
                    for k in 0..parent.len() {
                        let i = b * BLOCK + k;
                        match link(ix, i, unique, &mut d) {
                            Link::Out => {}
                            Link::Root => {
                                in_tree[k] = true;
                                is_root[k] = true;
                            }
                            Link::Child(p) => {
                                in_tree[k] = true;
                                parent[k] = p;
                                // A linked child's parent is in the file: no second lookup.
                                continue;
                            }
                        }
                        if let Some(p) = ix.entries[i].parent.id().filter(|p| !ix.by_id.contains_key(*p)) {
                            missing.push(p.clone());
                        }
                    }
                    (d, missing)
                })
                .collect();
            for (mut d, missing) in found {
                diags.append(&mut d);
                unresolved.extend(missing);
            }
        }

        let mut in_cycle = vec![false; n];
        break_cycles(ix, &mut parent, &mut is_root, &in_tree, &mut in_cycle, &mut diags);

        // The entries that set a label or the name or refer to other ids are found on one
        // core while the other builds the child lists and numbers the tree.
        let (marked, Shape { children, roots, depth, pre, post }) = rayon::join(|| marked_entries(ix), || shape(ix, &parent, &in_tree));

        let leaf = leaf_of(ix, &parent, &mut diags);
        let mut t = Tree {
            parent,
            children,
            roots,
            in_tree,
            depth,
            pre,
            post,
            labels: IndexMap::new(),
            name: None,
            leaf,
            diagnostics: diags,
            in_cycle,
            unresolved,
        };
        // Labels and name: replayed over every line in file order, as pi's _buildIndex does
        // (the other lines change neither).
        for &i in &marked {
            t.replay_label_and_name(i, &ix.entries[i as usize]);
        }
        t.reference_diagnostics_of(ix, marked.iter().map(|&i| i as usize));
        t
    }

    /// True when `a` is `b` or an ancestor of `b`: O(1) by DFS numbers for entries of the last
    /// full build, else a walk up from `b` (entries appended since).
    pub fn is_ancestor_or_self(&self, a: u32, b: u32) -> bool {
        let (ai, bi) = (a as usize, b as usize);
        if !self.in_tree[ai] || !self.in_tree[bi] {
            return false;
        }
        if self.pre[ai] != NONE && self.pre[bi] != NONE {
            return self.pre[ai] <= self.pre[bi] && self.post[bi] <= self.post[ai];
        }
        let mut cur = b;
        while cur != NONE && self.depth[cur as usize] > self.depth[ai] {
            cur = self.parent[cur as usize];
        }
        cur == a
    }

    /// Takes in entries appended to the index since this tree was built (indexes
    /// `first_new..`). Returns false, changing nothing, when the new lines change the existing
    /// structure (an id that an earlier line used or waited for); the caller then rebuilds.
    pub fn apply_appended(&mut self, ix: &SessionIndex, first_new: usize) -> bool {
        let n = ix.entries.len();
        if first_new != self.parent.len() || first_new > n {
            return false;
        }
        // A new id that earlier lines referred to (as parent, label target, fromId,
        // firstKeptEntryId, leaf target), or used, changes their meaning: rebuild. (The caller
        // checks for ids an earlier line used; here: duplicates among the new lines.)
        for (k, e) in ix.entries[first_new..].iter().enumerate() {
            if let Some(id) = &e.id {
                if self.unresolved.contains(id) || ix.by_id.get(id) != Some(&((first_new + k) as u32)) {
                    return false;
                }
            }
            // A parent written after its child (within the new lines) needs the full build.
            if let Some(&p) = e.parent.id().and_then(|p| ix.by_id.get(p)) {
                if p as usize >= first_new + k {
                    return false;
                }
            }
        }
        let mut diags = Vec::new();
        let mut touched = Vec::new();
        for i in first_new..n {
            let link = link(ix, i, false, &mut diags);
            self.parent.push(NONE);
            self.children.push(Children::new());
            self.in_tree.push(!matches!(link, Link::Out));
            self.depth.push(0);
            self.pre.push(NONE);
            self.post.push(NONE);
            self.in_cycle.push(false);
            match link {
                Link::Out => {}
                Link::Root => self.roots.push(i as u32),
                Link::Child(p) => {
                    self.parent[i] = p;
                    self.depth[i] = self.depth[p as usize] + 1;
                    self.children[p as usize].push(i as u32);
                    touched.push(p);
                }
            }
            let e = &ix.entries[i];
            if let Parent::Id(p) = &e.parent {
                if !ix.by_id.contains_key(p) {
                    self.unresolved.insert(p.clone());
                }
            }
            self.replay_label_and_name(i as u32, e);
        }
        touched.sort_unstable();
        touched.dedup();
        for p in touched {
            // Sorted from file order, exactly as a full build sorts.
            let c = &mut self.children[p as usize];
            c.sort_unstable();
            sort_by_timestamp(c, |k| ix.entries[k as usize].ts);
        }
        self.diagnostics.append(&mut diags);
        self.diagnostics.retain(|d| !(d.kind == DiagKind::DanglingTarget && d.message.ends_with(LEAF_FALLBACK)));
        self.leaf = leaf_of(ix, &self.parent, &mut self.diagnostics);
        self.reference_diagnostics_of(ix, first_new..ix.entries.len());
        true
    }

    fn replay_label_and_name(&mut self, i: u32, e: &pi_session_format::entry::Entry) {
        match &e.detail {
            Detail::Label { target: Some(t), label } => match label {
                Some(text) => {
                    self.labels.insert(t.clone(), LabelInfo { text: text.clone(), line: e.line, entry: i });
                }
                None => {
                    self.labels.shift_remove(t);
                }
            },
            Detail::SessionInfo { name } if e.kind == Kind::SessionInfo => self.name = name.clone(),
            _ => {}
        }
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

    /// Dangling `firstKeptEntryId`, `targetId`, `fromId` of entries `at` (in file order; only
    /// those [`sets_or_refers`] can have any); the missing ids are remembered (an append that
    /// brings one in needs a rebuild).
    fn reference_diagnostics_of(&mut self, ix: &SessionIndex, at: impl Iterator<Item = usize>) {
        for i in at {
            let e = &ix.entries[i];
            match &e.detail {
                Detail::Compaction { first_kept: Some(r), .. } | Detail::Label { target: Some(r), .. } | Detail::Leaf { target: Some(r), .. }
                    if !ix.by_id.contains_key(r) =>
                {
                    self.unresolved.insert(r.clone());
                }
                Detail::BranchSummary { from_id: Some(r), .. } if !ix.by_id.contains_key(r) => {
                    self.unresolved.insert(r.clone());
                }
                _ => {}
            }
            if !self.in_tree[i] && !matches!(e.kind, Kind::Label) {
                continue;
            }
            match &e.detail {
                // pi 1.x writes "keep nothing" as the compaction's own id.
                Detail::Compaction { first_kept: Some(fk), .. } if e.id.as_ref() != Some(fk) => {
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
                // pi 1.x writes the old leaf as fromId; in a fork that leaf may have stayed in the
                // parent session, so a fork's fromId is not looked for in the file alone.
                Detail::BranchSummary { from_id: Some(f), .. }
                    if f != "root" && !ix.by_id.contains_key(f) && ix.header.as_ref().and_then(|h| h.parent_session.as_ref()).is_none() =>
                {
                    self.diagnostics.push(Diagnostic::new(Some(e.line), DiagKind::DanglingFrom, format!("fromId {f} is not in the file")));
                }
                _ => {}
            }
        }
    }
}

/// Whether entry `e` may set a label or the name, or refer to another id than its parent
/// (a compaction's first kept entry, a label's or leaf line's target, a branch summary's
/// origin): the only lines the label replay and the reference findings look at.
fn sets_or_refers(e: &pi_session_format::entry::Entry) -> bool {
    matches!(e.detail, Detail::Label { .. } | Detail::SessionInfo { .. } | Detail::Compaction { .. } | Detail::Leaf { .. } | Detail::BranchSummary { .. })
}

/// The indexes of the entries [`sets_or_refers`] accepts, in file order.
fn marked_entries(ix: &SessionIndex) -> Vec<u32> {
    use rayon::prelude::*;
    ix.entries.par_iter().enumerate().with_min_len(4096).filter(|(_, e)| sets_or_refers(e)).map(|(i, _)| i as u32).collect()
}

/// The child lists (in pi's order), roots, depths and DFS numbers of a tree whose links are
/// resolved.
struct Shape {
    children: Vec<Children>,
    roots: Vec<u32>,
    depth: Vec<u32>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

fn shape(ix: &SessionIndex, parent: &[u32], in_tree: &[bool]) -> Shape {
    let n = parent.len();
    let mut children: Vec<Children> = Vec::with_capacity(n);
    pi_session_format::pages::huge_pages(&mut children);
    children.resize(n, Children::new());
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
    Shape { children, roots, depth, pre, post }
}

const LEAF_FALLBACK: &str = "; the leaf stays at the line's parent";

/// The leaf: decided by the last entry line with an id. A `leaf` line gives its `targetId`
/// (null = before the first entry); any other line gives itself.
fn leaf_of(ix: &SessionIndex, parent: &[u32], diags: &mut Vec<Diagnostic>) -> Leaf {
    let Some((i, e)) = ix.entries.iter().enumerate().rev().find(|(_, e)| e.id.is_some()) else {
        return Leaf::Null;
    };
    match &e.detail {
        Detail::Leaf { target: None, target_valid: true } => Leaf::Null,
        Detail::Leaf { target: Some(t), .. } if ix.by_id.contains_key(t) => Leaf::Entry(ix.by_id[t.as_str()]),
        Detail::Leaf { target, .. } => {
            let what = match target {
                Some(t) => format!("leaf target {t} is not in the file"),
                None => "leaf line without a valid targetId".to_string(),
            };
            diags.push(Diagnostic::new(Some(e.line), DiagKind::DanglingTarget, format!("{what}{LEAF_FALLBACK}")));
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

#[cfg(test)]
mod tests {
    use crate::Session;

    #[test]
    fn every_id_a_line_refers_to_and_the_file_lacks_is_remembered() {
        // One line of each kind that refers to another id, each id missing from the file: an
        // append that brings one of them in must rebuild the tree, so each is remembered.
        let ts = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
        let lines = [
            format!(r#"{{"type":"session","version":3,"id":"s1","timestamp":"{}","cwd":"/x"}}"#, ts(0)),
            format!(r#"{{"type":"message","id":"a","parentId":null,"timestamp":"{}","message":{{"role":"user","content":"hi","timestamp":1}}}}"#, ts(1)),
            format!(r#"{{"type":"label","id":"lb","parentId":"a","timestamp":"{}","targetId":"t-label","label":"x"}}"#, ts(2)),
            format!(r#"{{"type":"compaction","id":"c","parentId":"lb","timestamp":"{}","summary":"s","firstKeptEntryId":"t-kept","tokensBefore":1}}"#, ts(3)),
            format!(r#"{{"type":"branch_summary","id":"bs","parentId":"c","timestamp":"{}","fromId":"t-from","summary":"s"}}"#, ts(4)),
            format!(r#"{{"type":"message","id":"m","parentId":"t-parent","timestamp":"{}","message":{{"role":"user","content":"yo","timestamp":2}}}}"#, ts(5)),
            format!(r#"{{"type":"leaf","id":"lf","parentId":"bs","timestamp":"{}","targetId":"t-leaf"}}"#, ts(6)),
        ];
        let s = Session::from_bytes("refs.jsonl", (lines.join("\n") + "\n").as_bytes());
        let mut missing: Vec<&str> = s.tree.unresolved.iter().map(|id| id.as_str()).collect();
        missing.sort_unstable();
        assert_eq!(missing, ["t-from", "t-kept", "t-label", "t-leaf", "t-parent"]);
    }
}

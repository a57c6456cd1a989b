//! The tree graph: a session laid out as git-style lanes, one row per shown entry, served to
//! the UI by pages (`docs/ipc.md`, "The tree graph").
//!
//! # Rules
//!
//! * **Filter.** [`TreeFilter`] decides which entries are shown; the others are transparent: a
//!   shown entry hangs under its nearest shown ancestor (the *projected* tree), children kept in
//!   depth-first, pi order. `default` hides bookkeeping lines (label, leaf, session_info),
//!   `user-only` shows user messages, `labeled` entries with a label in effect plus the leaf (a
//!   bookkeeping leaf counts as its nearest other ancestor), `all` every entry of the tree.
//! * **Order.** Depth-first. At a branch point the *main* child is the one on the active path,
//!   else the last child in pi order (the newest); the other children's subtrees come first, in
//!   pi order, each in a side lane, then the main child continues in the parent's lane. So the
//!   active path runs down lane 0.
//! * **Lanes.** A side branch takes the lowest lane right of its parent's lane that no pending
//!   line uses. Lanes along any root→entry path never decrease and every side branch has a
//!   pending main continuation in its parent's lane, so that lane is always `parent + 1`, and the
//!   lines crossing a row are exactly the lanes left of its node (`pass = 0..lane`): `pass` is
//!   derived per row when paging, never stored.
//! * **Several roots** (orphans, broken cycles, or a filter hiding a root with several shown
//!   children): each root's tree is drawn after the previous one, starting in lane 0; the root on
//!   the active path comes last (else the last root), the others first, in file order. A root
//!   row has no line from above.
//! * **Colours.** The main line of the last root is colour 0. Every other branch (a side branch
//!   or another root) takes the next of colours 1..=5 in turn, counted in the depth-first order
//!   of the whole projected tree, collapsed subtrees included, so collapsing or opening folds
//!   does not recolour other branches.
//! * **The leaf.** `isLeaf` marks the row that stands for the session's leaf: the leaf itself, or,
//!   when the filter hides it (a label line, say), its nearest shown ancestor.
//! * **Folds.** A run of more than [`FOLD_MIN`] entries, each the only child of the one before,
//!   shows its first and last [`FOLD_KEEP`] entries and one `fold` row for the rest. Never folded
//!   (they end a run): the leaf, labeled entries, compactions, branch summaries, branch points,
//!   collapsed entries. `query.expanded` lists opened folds (`fold:<first hidden id>`).
//! * **Collapse.** An entry in `query.collapsed` hides its subtree; its row's `collapsed` counts
//!   the shown entries hidden.
//! * **Unified view** ([`Layout::build_unified`]): each fork's own entries (ids no drawn session
//!   holds yet) hang under the drawn entry with their parent's id (the fork point, normally),
//!   copied entries are drawn once. A node's main child is chosen among children of its own
//!   session first, so a fork starts a side lane unless it hangs below the end of a branch.
//!   `onPath` is the opened session's active path; `isLeaf` marks each session's leaf (tell them
//!   apart by `row.session`); inside a fork, the fork's own active path picks the main child.
//! * `parentId` of a row is its parent in the drawn (projected) tree.
//!
//! Building is O(n) and iterative (chains 100k deep are normal input); rows are 20 bytes.

use std::collections::{HashMap, HashSet};

use crate::api::{Fold, LocateResult, TreeFilter, TreeMeta, TreePage, TreeQuery, TreeRow};
use crate::context::BodyReader;
use crate::diag::Severity;
use crate::entry::{Detail, Entry, Kind, Role};
use crate::preview::preview;
use crate::tree::NONE;
use crate::Session;

/// Runs longer than this fold.
pub const FOLD_MIN: usize = 12;
/// Entries a fold leaves shown at each end of its run.
pub const FOLD_KEEP: usize = 3;
/// Side-branch colours cycle through 1..=COLORS.
pub const COLORS: u32 = 5;

/// A fork of the opened session drawn in the unified view.
#[derive(Debug, Clone, Copy)]
pub struct Fork<'a> {
    pub session: &'a Session,
    /// Id of the entry the fork starts from (in the opened session or in a fork listed here).
    pub fork_point: &'a str,
}

// Row flags.
const UP: u8 = 1;
const DOWN: u8 = 2;
const BRANCH: u8 = 4;
const FOLD: u8 = 8;
const ON_PATH: u8 = 16;
const LEAF: u8 = 32;

// Node flags (during a build).
const N_VISIBLE: u8 = 1;
const N_ON_PATH: u8 = 2;
const N_NOFOLD: u8 = 4;
const N_COLLAPSED: u8 = 8;
const N_LEAF: u8 = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RowRec {
    /// Drawn node (see `Nodes`), or the index into `folds` for a fold row.
    node: u32,
    /// Drawn parent node (`NONE` for a root).
    parent: u32,
    lane: u32,
    child_count: u32,
    color: u8,
    flags: u8,
}

#[derive(Debug, Clone, PartialEq)]
struct FoldRec {
    fold: Fold,
    /// First hidden node.
    first: u32,
    tokens: f64,
    cost: f64,
    has_usage: bool,
}

/// Drawn nodes: `0..n0` are the opened session's entries (node = entry index); the rest are
/// fork entries, `(session, entry)`.
#[derive(Debug, Clone, Default)]
struct Nodes {
    n0: u32,
    extra: Vec<(u16, u32)>,
}

impl Nodes {
    fn len(&self) -> usize {
        self.n0 as usize + self.extra.len()
    }
    fn get(&self, g: u32) -> (usize, usize) {
        if g < self.n0 {
            (0, g as usize)
        } else {
            let (s, e) = self.extra[(g - self.n0) as usize];
            (s as usize, e as usize)
        }
    }
}

/// A laid-out tree: rows by index, built from a [`TreeQuery`].
#[derive(Debug, Clone)]
pub struct Layout {
    query: TreeQuery,
    rows: Vec<RowRec>,
    folds: Vec<FoldRec>,
    /// (row, hidden entries) of collapsed rows, by row.
    collapsed: Vec<(u32, u32)>,
    nodes: Nodes,
    lanes: u32,
    leaf_row: Option<u32>,
    /// Unified view: fork point of each fork (session `k + 1`).
    fork_points: Option<Vec<String>>,
    /// Per session: (line, worst severity), by line.
    diags: Vec<Vec<(u32, Severity)>>,
    counts: Counts,
}

#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    entries: u32,
    branch_points: u32,
    compactions: u32,
    labels: u32,
}

/// Where the target of a locate ended up in a build.
#[derive(Debug, Default)]
struct Probe {
    row: Option<u32>,
    fold_id: Option<String>,
    /// Collapsed ancestors hiding it.
    collapsed_by: Vec<u32>,
}

/// The drawn forest before filtering: children in order, as a compressed adjacency list.
struct Base<'a> {
    sessions: Vec<&'a Session>,
    nodes: Nodes,
    roots: Vec<u32>,
    start: Vec<u32>,
    list: Vec<u32>,
    /// Per session: its leaf when drawn as that session's node, else `NONE`.
    leaves: Vec<u32>,
    /// Per session: the nearest entry at or above the leaf that is not bookkeeping (what the
    /// labeled filter shows for the leaf), when drawn as that session's node, else `NONE`.
    content_leaves: Vec<u32>,
    /// Nodes on their session's active path.
    on_path: Vec<u32>,
    /// Ids of drawn fork entries.
    fork_ids: HashMap<&'a str, u32>,
}

impl<'a> Base<'a> {
    fn single(s: &'a Session) -> Base<'a> {
        let t = &s.tree;
        let n = s.index.entries.len();
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(n);
        for c in &t.children {
            start.push(list.len() as u32);
            list.extend_from_slice(c);
        }
        start.push(list.len() as u32);
        Base {
            sessions: vec![s],
            nodes: Nodes { n0: n as u32, extra: Vec::new() },
            roots: t.roots.clone(),
            start,
            list,
            leaves: vec![t.leaf_index().unwrap_or(NONE)],
            content_leaves: vec![content_leaf(s)],
            on_path: t.active_path(),
            fork_ids: HashMap::new(),
        }
    }

    fn unified(main: &'a Session, forks: &[(&'a Session, &str)]) -> Base<'a> {
        let n0 = main.index.entries.len() as u32;
        let mut sessions = vec![main];
        sessions.extend(forks.iter().map(|f| f.0));
        let mut nodes = Nodes { n0, extra: Vec::new() };
        let mut fork_ids: HashMap<&'a str, u32> = HashMap::new();
        let mut maps: Vec<Vec<u32>> = vec![Vec::new(); forks.len()];
        let mut extra_children: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut placed = vec![false; forks.len()];
        // A fork is placed once its fork point is drawn (a fork of a fork waits for its parent).
        loop {
            let mut progress = false;
            for (k, &(fs, fork_point)) in forks.iter().enumerate() {
                if placed[k] {
                    continue;
                }
                let Some(anchor) = lookup(main, &fork_ids, fork_point) else { continue };
                placed[k] = true;
                progress = true;
                let own: Vec<u32> = (0..fs.index.entries.len() as u32)
                    .filter(|&e| fs.tree.in_tree[e as usize] && lookup(main, &fork_ids, fs.id_of(e)).is_none())
                    .collect();
                let mut map = vec![NONE; fs.index.entries.len()];
                for &e in &own {
                    let g = nodes.len() as u32;
                    nodes.extra.push(((k + 1) as u16, e));
                    map[e as usize] = g;
                    fork_ids.insert(fs.id_of(e), g);
                }
                for &e in &own {
                    let p = fs.tree.parent[e as usize];
                    if p != NONE && map[p as usize] != NONE {
                        continue; // a child of an own entry: drawn through the fork's children
                    }
                    let at = if p == NONE { anchor } else { lookup(main, &fork_ids, fs.id_of(p)).unwrap_or(anchor) };
                    extra_children.entry(at).or_default().push(map[e as usize]);
                }
                maps[k] = map;
            }
            if !progress {
                break;
            }
        }
        let n = nodes.len();
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(n);
        for g in 0..n as u32 {
            start.push(list.len() as u32);
            let (s, e) = nodes.get(g);
            if s == 0 {
                list.extend_from_slice(&main.tree.children[e]);
            } else {
                let map = &maps[s - 1];
                list.extend(sessions[s].tree.children[e].iter().map(|&c| map[c as usize]).filter(|&c| c != NONE));
            }
            if let Some(x) = extra_children.get(&g) {
                list.extend_from_slice(x);
            }
        }
        start.push(list.len() as u32);
        let mut leaves = vec![main.tree.leaf_index().unwrap_or(NONE)];
        let mut content_leaves = vec![content_leaf(main)];
        let mut on_path = main.tree.active_path();
        for (k, &(fs, _)) in forks.iter().enumerate() {
            let map = &maps[k];
            let to_node = |e: u32| map.get(e as usize).copied().unwrap_or(NONE);
            leaves.push(fs.tree.leaf_index().map(to_node).unwrap_or(NONE));
            content_leaves.push(match content_leaf(fs) {
                NONE => NONE,
                e => to_node(e),
            });
            on_path.extend(fs.tree.active_path().into_iter().map(to_node).filter(|&g| g != NONE));
        }
        Base { sessions, nodes, roots: main.tree.roots.clone(), start, list, leaves, content_leaves, on_path, fork_ids }
    }

    fn lookup(&self, id: &str) -> Option<u32> {
        lookup(self.sessions[0], &self.fork_ids, id)
    }

    fn children(&self, g: u32) -> &[u32] {
        &self.list[self.start[g as usize] as usize..self.start[g as usize + 1] as usize]
    }

    fn entry(&self, g: u32) -> (usize, &'a Entry) {
        let (s, e) = self.nodes.get(g);
        (s, &self.sessions[s].index.entries[e])
    }
}

/// The nearest entry at or above the leaf that is not a bookkeeping line (`NONE` if none).
fn content_leaf(s: &Session) -> u32 {
    let mut cur = s.tree.leaf_index().unwrap_or(NONE);
    while cur != NONE && s.index.entries[cur as usize].kind.is_bookkeeping() {
        cur = s.tree.parent[cur as usize];
    }
    cur
}

/// The drawn node with this id: an entry of the opened session, else a drawn fork entry.
fn lookup(main: &Session, fork_ids: &HashMap<&str, u32>, id: &str) -> Option<u32> {
    match main.index.by_id.get(id) {
        Some(&i) if main.tree.in_tree[i as usize] => Some(i),
        _ => fork_ids.get(id).copied(),
    }
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn usage_of(e: &Entry) -> Option<(f64, f64)> {
    e.usage().map(|u| {
        let t = if u.total_tokens != 0.0 { u.total_tokens } else { u.input + u.output + u.cache_read + u.cache_write };
        (t, u.cost)
    })
}

/// Worst severity per line of a session's findings.
fn diag_lines(s: &Session) -> Vec<(u32, Severity)> {
    let mut v: Vec<(u32, Severity)> = s.diagnostics().iter().filter_map(|d| d.line.map(|l| (l, d.severity))).collect();
    v.sort();
    let mut out: Vec<(u32, Severity)> = Vec::with_capacity(v.len());
    for (l, sev) in v {
        match out.last_mut() {
            Some(last) if last.0 == l => last.1 = last.1.max(sev),
            _ => out.push((l, sev)),
        }
    }
    out
}

impl Layout {
    /// Lays out one session file (`query.unified` is not looked at: see [`Layout::build_unified`]).
    pub fn build(session: &Session, query: &TreeQuery) -> Layout {
        let base = Base::single(session);
        let mut l = build_with(&base, query, NONE).0;
        l.fork_points = None;
        l
    }

    /// Lays out a session with its forks drawn inside it. `forks[k]` becomes session `k + 1`
    /// (`TreeRow.session`, `TreeMeta.sessions`); a fork whose fork point is not drawn is left
    /// out. Pass the same sessions, opened session first, to [`Layout::page`] and friends.
    pub fn build_unified(main: &Session, forks: &[Fork<'_>], query: &TreeQuery) -> Layout {
        let list: Vec<(&Session, &str)> = forks.iter().map(|f| (f.session, f.fork_point)).collect();
        let base = Base::unified(main, &list);
        let mut l = build_with(&base, query, NONE).0;
        l.fork_points = Some(forks.iter().map(|f| f.fork_point.to_string()).collect());
        l
    }

    /// The query this layout was built from.
    pub fn query(&self) -> &TreeQuery {
        &self.query
    }

    pub fn len(&self) -> u32 {
        self.rows.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Number of lanes (columns).
    pub fn lanes(&self) -> u32 {
        self.lanes
    }

    pub fn leaf_row(&self) -> Option<u32> {
        self.leaf_row
    }

    /// The row of an entry shown as its own row (not inside a closed fold or collapsed subtree).
    pub fn row_of(&self, sessions: &[&Session], id: &str) -> Option<u32> {
        let g = self.lookup(sessions, id)?;
        self.rows.iter().position(|r| r.flags & FOLD == 0 && r.node == g).map(|r| r as u32)
    }

    fn lookup(&self, sessions: &[&Session], id: &str) -> Option<u32> {
        let main = sessions.first()?;
        match main.index.by_id.get(id) {
            Some(&i) if main.tree.in_tree[i as usize] => Some(i),
            _ => (0..self.nodes.extra.len()).find_map(|k| {
                let (s, e) = self.nodes.extra[k];
                let ss = sessions.get(s as usize)?;
                (ss.index.entries.get(e as usize)?.id_str() == id).then_some(self.nodes.n0 + k as u32)
            }),
        }
    }

    fn base<'a>(&self, sessions: &[&'a Session]) -> Base<'a> {
        match &self.fork_points {
            None => Base::single(sessions[0]),
            Some(points) => {
                let forks: Vec<(&'a Session, &str)> =
                    points.iter().enumerate().filter_map(|(k, p)| sessions.get(k + 1).map(|&s| (s, p.as_str()))).collect();
                Base::unified(sessions[0], &forks)
            }
        }
    }

    /// Meta of this layout (`live` is left false: the caller knows).
    pub fn meta(&self, sessions: &[&Session]) -> TreeMeta {
        let s = sessions[0];
        TreeMeta {
            path: s.index.path.to_string_lossy().into_owned(),
            title: title(s),
            total_rows: self.len(),
            lanes: self.lanes,
            leaf_id: s.leaf_id().map(str::to_string),
            leaf_row: self.leaf_row,
            entry_count: self.counts.entries,
            branch_points: self.counts.branch_points,
            compactions: self.counts.compactions,
            labels: self.counts.labels,
            read_only: s.index.read_only().and_then(|r| serde_json::to_value(r).ok()).and_then(|v| v.as_str().map(str::to_string)),
            live: false,
            diagnostics: s.diagnostics(),
            sessions: match &self.fork_points {
                None => vec![s.index.path.to_string_lossy().into_owned()],
                Some(points) => {
                    (0..=points.len()).filter_map(|k| sessions.get(k)).map(|x| x.index.path.to_string_lossy().into_owned()).collect()
                }
            },
        }
    }

    /// Meta and rows `start..start + count`.
    pub fn tree_page(&self, sessions: &[&Session], start: u32, count: u32) -> TreePage {
        TreePage { meta: self.meta(sessions), start, rows: self.page(sessions, start, count) }
    }

    /// Rows `start..start + count` (clamped), with previews read from the files of those rows
    /// only (one open file per session). A file that cannot be read gives skeleton previews.
    pub fn page(&self, sessions: &[&Session], start: u32, count: u32) -> Vec<TreeRow> {
        let end = start.saturating_add(count).min(self.len());
        let mut readers: Vec<Option<Option<BodyReader<'_>>>> = (0..sessions.len()).map(|_| None).collect();
        (start..end)
            .map(|r| {
                let mut row = self.skeleton_row(sessions, r);
                if row.fold.is_none() {
                    let (s, e) = self.nodes.get(self.rows[r as usize].node);
                    if let Some(ent) = sessions.get(s).and_then(|x| x.index.entries.get(e)) {
                        let reader = readers[s].get_or_insert_with(|| BodyReader::open(&sessions[s].index).ok());
                        let text = if needs_body(ent) { reader.as_mut().and_then(|rd| rd.line(e as u32).ok()) } else { None };
                        let p = preview(ent, text.as_deref());
                        row.preview = p.text;
                        if p.detail.is_some() {
                            row.detail = p.detail;
                        }
                        row.is_error |= p.is_error;
                    }
                }
                row
            })
            .collect()
    }

    /// A row from the skeleton alone (no file reads): `preview` is empty for entry rows.
    pub fn skeleton_row(&self, sessions: &[&Session], r: u32) -> TreeRow {
        let rec = self.rows[r as usize];
        let graph = |mut row: TreeRow| {
            row.lane = rec.lane;
            row.pass = (0..rec.lane).collect();
            row.up = rec.flags & UP != 0;
            row.down = rec.flags & DOWN != 0;
            row.branch_from = (rec.flags & BRANCH != 0).then(|| rec.lane.saturating_sub(1));
            row.color = rec.color as u32;
            row.child_count = rec.child_count;
            row.on_path = rec.flags & ON_PATH != 0;
            row.is_leaf = rec.flags & LEAF != 0;
            row
        };
        let id_of = |g: u32| -> Option<String> {
            if g == NONE {
                return None;
            }
            let (s, e) = self.nodes.get(g);
            sessions.get(s).and_then(|x| x.index.entries.get(e)).map(|x| x.id_str().to_string())
        };
        let empty = TreeRow {
            row: r,
            id: String::new(),
            parent_id: id_of(rec.parent),
            line: 0,
            kind: String::new(),
            role: None,
            ts: None,
            label: None,
            on_path: false,
            is_leaf: false,
            child_count: 0,
            collapsed: None,
            preview: String::new(),
            detail: None,
            is_error: false,
            tokens: None,
            cost: None,
            fold: None,
            diagnostic: None,
            session: 0,
            lane: 0,
            pass: Vec::new(),
            up: false,
            down: false,
            branch_from: None,
            color: 0,
            forks: None,
        };
        if rec.flags & FOLD != 0 {
            let f = &self.folds[rec.node as usize];
            let (s, e) = self.nodes.get(f.first);
            let ent = sessions.get(s).and_then(|x| x.index.entries.get(e));
            let x = &f.fold;
            return graph(TreeRow {
                id: x.id.strip_prefix("fold:").unwrap_or(&x.id).to_string(),
                line: ent.map(|e| e.line).unwrap_or(0),
                kind: "fold".into(),
                ts: x.first_ts,
                preview: fold_text(x),
                tokens: f.has_usage.then_some(f.tokens),
                cost: f.has_usage.then_some(f.cost),
                fold: Some(x.clone()),
                session: s as u32,
                ..empty
            });
        }
        let (s, e) = self.nodes.get(rec.node);
        let Some(sess) = sessions.get(s) else { return graph(empty) };
        let Some(ent) = sess.index.entries.get(e) else { return graph(empty) };
        let collapsed = self.collapsed.binary_search_by_key(&r, |c| c.0).ok().map(|k| self.collapsed[k].1);
        let usage = usage_of(ent);
        let (detail, is_error) = match &ent.detail {
            Detail::Message { meta, .. } => {
                let m = meta.as_deref();
                (m.and_then(|m| m.tool_name.as_ref()).map(|t| t.to_string()), m.is_some_and(|m| m.is_error))
            }
            Detail::ModelChange { provider, model_id } => {
                (Some(format!("{}/{}", provider.as_deref().unwrap_or("?"), model_id.as_deref().unwrap_or("?"))), false)
            }
            _ => (None, false),
        };
        let diag = &self.diags[s];
        graph(TreeRow {
            id: ent.id_str().to_string(),
            line: ent.line,
            kind: ent.kind.as_str().to_string(),
            role: ent.role().and_then(|r| r.as_str()).map(str::to_string),
            ts: finite(ent.ts),
            label: sess.tree.labels.get(ent.id_str()).map(|l| l.text.clone()),
            collapsed,
            detail,
            is_error,
            tokens: usage.map(|u| u.0),
            cost: usage.map(|u| u.1),
            diagnostic: diag.binary_search_by_key(&ent.line, |d| d.0).ok().map(|k| diag[k].1),
            session: s as u32,
            ..empty
        })
    }

    /// Where an entry is. When it sits in a closed fold or under collapsed entries, the
    /// returned query opens them and `row` is its row in the layout of that query. `row` is
    /// `None` when the filter hides the entry or the id is unknown.
    pub fn locate(&self, sessions: &[&Session], id: &str) -> LocateResult {
        self.locate_relayout(sessions, id).0
    }

    /// [`Layout::locate`], also returning the new layout when the query changed.
    pub fn locate_relayout(&self, sessions: &[&Session], id: &str) -> (LocateResult, Option<Layout>) {
        let unchanged = || LocateResult { row: None, query: self.query.clone() };
        if let Some(row) = self.row_of(sessions, id) {
            return (LocateResult { row: Some(row), query: self.query.clone() }, None);
        }
        let base = self.base(sessions);
        let Some(target) = base.lookup(id) else { return (unchanged(), None) };
        let mut q = self.query.clone();
        let mut changed = false;
        for _ in 0..4 {
            let (mut lay, probe) = build_with(&base, &q, target);
            lay.fork_points = self.fork_points.clone();
            if let Some(row) = probe.row {
                return (LocateResult { row: Some(row), query: q }, changed.then_some(lay));
            }
            if !probe.collapsed_by.is_empty() {
                let ids: HashSet<&str> = probe
                    .collapsed_by
                    .iter()
                    .map(|&g| {
                        let (s, e) = base.nodes.get(g);
                        base.sessions[s].id_of(e as u32)
                    })
                    .collect();
                q.collapsed.retain(|c| !ids.contains(c.as_str()));
            } else if let Some(f) = probe.fold_id {
                q.expanded.push(f);
            } else {
                break;
            }
            changed = true;
        }
        (unchanged(), None)
    }
}

/// Whether `preview` needs the line's text for this entry.
fn needs_body(e: &Entry) -> bool {
    !matches!(
        e.detail,
        Detail::ModelChange { .. } | Detail::ThinkingLevel(_) | Detail::Label { .. } | Detail::SessionInfo { .. } | Detail::Leaf { .. } | Detail::Custom { .. }
    )
}

fn fold_text(f: &Fold) -> String {
    let mut parts = Vec::new();
    for (n, what) in [(f.users, "user"), (f.assistants, "assistant"), (f.tools, "tool"), (f.others, "other")] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    format!("{} entries: {}", f.count, parts.join(", "))
}

/// Session name, else its first user message, else the file name.
fn title(s: &Session) -> String {
    if let Some(n) = &s.tree.name {
        return n.clone();
    }
    let first = s.index.entries.iter().position(|e| e.is_user());
    if let Some(i) = first {
        if let Some(t) = BodyReader::open(&s.index).ok().and_then(|mut r| r.line(i as u32).ok()) {
            let t = crate::view::first_text_of_line(&t, 200);
            if !t.is_empty() {
                return t;
            }
        }
    }
    s.index.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()
}

fn counts(s: &Session) -> Counts {
    let t = &s.tree;
    Counts {
        entries: s.index.entries.len() as u32,
        branch_points: t.children.iter().filter(|c| c.len() > 1).count() as u32,
        compactions: s.index.entries.iter().enumerate().filter(|(i, e)| t.in_tree[*i] && e.kind == Kind::Compaction).count() as u32,
        labels: t.labels.len() as u32,
    }
}

/// One emission frame of the depth-first walk.
struct Frame {
    node: u32,
    /// Next child position; children are taken side ones first, then the main one.
    pos: u32,
    main: u32,
    lane: u32,
    color: u8,
    /// Children are not emitted (this node or an ancestor is collapsed).
    hide: bool,
    /// This node is collapsed and shown: count what it hides.
    counting: bool,
    row: u32,
    visits: u32,
}

/// The layout of `query` over `base`; `target` (a node or `NONE`) is followed for `locate`.
fn build_with(base: &Base<'_>, query: &TreeQuery, target: u32) -> (Layout, Probe) {
    let n = base.nodes.len();
    let sessions = &base.sessions;

    // --- node flags ---
    let mut flags = vec![0u8; n];
    let labeled = |s: usize, e: &Entry| sessions[s].tree.labels.contains_key(e.id_str());
    for (g, f) in flags.iter_mut().enumerate() {
        let (s, e) = base.entry(g as u32);
        let visible = match query.filter {
            TreeFilter::Default => !e.kind.is_bookkeeping(),
            TreeFilter::UserOnly => e.is_user(),
            TreeFilter::Labeled => labeled(s, e) || base.content_leaves[s] == g as u32,
            TreeFilter::All => true,
        };
        if visible {
            *f |= N_VISIBLE;
        }
        if matches!(e.kind, Kind::Compaction | Kind::BranchSummary) {
            *f |= N_NOFOLD;
        }
    }
    for (s, sess) in sessions.iter().enumerate() {
        for id in sess.tree.labels.keys() {
            if let Some(g) = base.lookup(id) {
                if base.nodes.get(g).0 == s {
                    flags[g as usize] |= N_NOFOLD;
                }
            }
        }
    }
    for &g in &base.on_path {
        flags[g as usize] |= N_ON_PATH;
    }
    for id in &query.collapsed {
        if let Some(g) = base.lookup(id) {
            flags[g as usize] |= N_COLLAPSED;
        }
    }

    // --- projection: parent = nearest visible ancestor; pre-order of visible nodes ---
    let mut pp = vec![NONE; n];
    let mut order: Vec<u32> = Vec::new();
    let mut stack: Vec<(u32, u32, u32)> = Vec::new(); // (node, next child position, attach point)
    let mut enter = |g: u32, pa: u32, flags: &mut [u8], order: &mut Vec<u32>| -> u32 {
        let s = base.nodes.get(g).0;
        let visible = flags[g as usize] & N_VISIBLE != 0;
        if base.leaves[s] == g {
            let shown = if visible { g } else { pa };
            if shown != NONE && base.nodes.get(shown).0 == s {
                flags[shown as usize] |= N_LEAF | N_NOFOLD;
            }
        }
        if visible {
            pp[g as usize] = pa;
            order.push(g);
            g
        } else {
            pa
        }
    };
    for &r in &base.roots {
        let a = enter(r, NONE, &mut flags, &mut order);
        stack.push((r, 0, a));
        while let Some(top) = stack.last_mut() {
            let (g, pos, a) = *top;
            let kids = base.children(g);
            if let Some(&c) = kids.get(pos as usize) {
                top.1 += 1;
                let ac = enter(c, a, &mut flags, &mut order);
                stack.push((c, 0, ac));
            } else {
                stack.pop();
            }
        }
    }
    drop(stack);

    // Projected children, in pre-order (compressed adjacency).
    let mut pstart = vec![0u32; n + 1];
    for &v in &order {
        let p = pp[v as usize];
        if p != NONE {
            pstart[p as usize + 1] += 1;
        }
    }
    for i in 0..n {
        pstart[i + 1] += pstart[i];
    }
    let mut fill = pstart.clone();
    let mut plist = vec![0u32; pstart[n] as usize];
    let mut proots: Vec<u32> = Vec::new();
    for &v in &order {
        match pp[v as usize] {
            NONE => proots.push(v),
            p => {
                plist[fill[p as usize] as usize] = v;
                fill[p as usize] += 1;
            }
        }
    }
    drop(fill);
    drop(order);
    let kids = |g: u32| &plist[pstart[g as usize] as usize..pstart[g as usize + 1] as usize];
    let session_of = |g: u32| base.nodes.get(g).0;
    let main_pos = |g: u32| -> u32 {
        let k = kids(g);
        if k.is_empty() {
            return NONE;
        }
        let s = session_of(g);
        if let Some(p) = k.iter().position(|&c| flags[c as usize] & N_ON_PATH != 0 && session_of(c) == s) {
            return p as u32;
        }
        k.iter().rposition(|&c| session_of(c) == s).unwrap_or(k.len() - 1) as u32
    };

    // --- emission ---
    let main_root = proots.iter().position(|&r| flags[r as usize] & N_ON_PATH != 0 && session_of(r) == 0).or(proots.len().checked_sub(1));
    let mut root_order: Vec<u32> = proots.iter().enumerate().filter(|(i, _)| Some(*i) != main_root).map(|(_, &r)| r).collect();
    if let Some(m) = main_root {
        root_order.push(proots[m]);
    }
    let mut rows: Vec<RowRec> = Vec::with_capacity(n);
    let mut collapsed_pre: Vec<(u32, u32)> = Vec::new();
    let mut probe = Probe::default();
    let mut target_pre = NONE;
    let mut branches: u32 = 0;
    let mut next_color = || {
        let c = 1 + branches % COLORS;
        branches += 1;
        c as u8
    };
    let mut visits: u32 = 0;
    let mut frames: Vec<Frame> = Vec::new();
    let root_count = root_order.len();
    for (ri, &root) in root_order.iter().enumerate() {
        let color = if ri + 1 == root_count && main_root.is_some() { 0 } else { next_color() };
        // (node, lane, colour, row flags, hidden)
        let mut pending = Some((root, 0u32, color, 0u8, false));
        loop {
            if let Some((g, lane, color, rflags, hide)) = pending.take() {
                visits += 1;
                let nf = flags[g as usize];
                let k = kids(g).len() as u32;
                let collapses = nf & N_COLLAPSED != 0 && k > 0;
                if g == target {
                    if hide {
                        probe.collapsed_by = frames.iter().filter(|f| flags[f.node as usize] & N_COLLAPSED != 0).map(|f| f.node).collect();
                    } else {
                        target_pre = rows.len() as u32;
                    }
                }
                let row = if hide {
                    NONE
                } else {
                    let mut fl = rflags;
                    if k > 0 && !collapses {
                        fl |= DOWN;
                    }
                    if nf & N_ON_PATH != 0 && session_of(g) == 0 {
                        fl |= ON_PATH;
                    }
                    if nf & N_LEAF != 0 {
                        fl |= LEAF;
                    }
                    rows.push(RowRec { node: g, parent: pp[g as usize], lane, child_count: k, color, flags: fl });
                    rows.len() as u32 - 1
                };
                frames.push(Frame {
                    node: g,
                    pos: 0,
                    main: main_pos(g),
                    lane,
                    color,
                    hide: hide || collapses,
                    counting: !hide && collapses,
                    row,
                    visits,
                });
            }
            let Some(top) = frames.last_mut() else { break };
            let ks = kids(top.node);
            let len = ks.len() as u32;
            // Side children first, in order, then the main one.
            let mut next = None;
            while top.pos < len {
                let p = top.pos;
                top.pos += 1;
                if p != top.main {
                    next = Some((ks[p as usize], false));
                    break;
                }
            }
            if next.is_none() && top.pos == len && top.main != NONE {
                top.pos += 1;
                next = Some((ks[top.main as usize], true));
            }
            match next {
                Some((c, true)) => pending = Some((c, top.lane, top.color, UP, top.hide)),
                Some((c, false)) => {
                    let (lane, hide) = (top.lane + 1, top.hide);
                    pending = Some((c, lane, next_color(), BRANCH, hide));
                }
                None => {
                    let f = frames.pop().expect("a frame is on the stack");
                    if f.counting {
                        collapsed_pre.push((f.row, visits - f.visits));
                    }
                }
            }
        }
    }
    drop(frames);
    collapsed_pre.sort_unstable();

    // --- folds ---
    let expanded: HashSet<&str> = query.expanded.iter().map(String::as_str).collect();
    let foldable = |r: &RowRec, collapsed: bool| {
        flags[r.node as usize] & N_NOFOLD == 0 && !collapsed && (r.flags & DOWN == 0 || r.child_count == 1)
    };
    let is_collapsed = |pre: usize| collapsed_pre.binary_search_by_key(&(pre as u32), |c| c.0).is_ok();
    let mut out = Emitted { rows: Vec::with_capacity(rows.len()), ..Default::default() };
    let mut folds: Vec<FoldRec> = Vec::new();
    let mut fold_hiding_target = None;
    let emit = |out: &mut Emitted, range: std::ops::Range<usize>| {
        for (k, rec) in rows[range.clone()].iter().enumerate() {
            out.push(range.start + k, *rec, target_pre, &collapsed_pre, session_of(rec.node));
        }
    };
    let mut i = 0;
    while i < rows.len() {
        if !foldable(&rows[i], is_collapsed(i)) {
            emit(&mut out, i..i + 1);
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < rows.len()
            && rows[j].flags & DOWN != 0
            && rows[j].child_count == 1
            && foldable(&rows[j + 1], is_collapsed(j + 1))
            && session_of(rows[j].node) == session_of(rows[j + 1].node)
        {
            j += 1;
        }
        let run = j - i + 1;
        let fold_id = (run > FOLD_MIN).then(|| {
            let (s, e) = base.nodes.get(rows[i + FOLD_KEEP].node);
            format!("fold:{}", sessions[s].id_of(e as u32))
        });
        match fold_id {
            Some(id) if !expanded.contains(id.as_str()) => {
                let hidden = (i + FOLD_KEEP)..(j + 1 - FOLD_KEEP);
                emit(&mut out, i..hidden.start);
                if hidden.contains(&(target_pre as usize)) {
                    fold_hiding_target = Some(id.clone());
                }
                let rec = fold_rec(base, &rows[hidden.clone()], id);
                let first = rows[hidden.start];
                let fl = UP | DOWN | FOLD | if rec.fold.on_path { ON_PATH } else { 0 };
                folds.push(rec);
                let fold_row =
                    RowRec { node: folds.len() as u32 - 1, parent: first.parent, lane: first.lane, child_count: 1, color: first.color, flags: fl };
                out.push(NONE as usize, fold_row, target_pre, &collapsed_pre, 0);
                emit(&mut out, hidden.end..j + 1);
            }
            _ => emit(&mut out, i..j + 1),
        }
        i = j + 1;
    }
    probe.row = out.target_row;
    probe.fold_id = fold_hiding_target;
    drop(rows);
    out.rows.shrink_to_fit();

    let layout = Layout {
        query: query.clone(),
        rows: out.rows,
        folds,
        collapsed: out.collapsed,
        nodes: base.nodes.clone(),
        lanes: out.lanes,
        leaf_row: out.leaf_row,
        fork_points: None,
        diags: sessions.iter().map(|s| diag_lines(s)).collect(),
        counts: counts(sessions[0]),
    };
    (layout, probe)
}

/// Rows after folding, with what follows them.
#[derive(Default)]
struct Emitted {
    rows: Vec<RowRec>,
    collapsed: Vec<(u32, u32)>,
    leaf_row: Option<u32>,
    lanes: u32,
    target_row: Option<u32>,
}

impl Emitted {
    /// Appends row `rec`, which was row `pre` before folding (`NONE` for a fold row).
    fn push(&mut self, pre: usize, rec: RowRec, target_pre: u32, collapsed_pre: &[(u32, u32)], session: usize) {
        let at = self.rows.len() as u32;
        if pre as u32 == target_pre && target_pre != NONE {
            self.target_row = Some(at);
        }
        if rec.flags & FOLD == 0 {
            if let Ok(k) = collapsed_pre.binary_search_by_key(&(pre as u32), |c| c.0) {
                self.collapsed.push((at, collapsed_pre[k].1));
            }
            if rec.flags & LEAF != 0 && session == 0 {
                self.leaf_row = Some(at);
            }
        }
        self.lanes = self.lanes.max(rec.lane + 1);
        self.rows.push(rec);
    }
}

fn fold_rec(base: &Base<'_>, hidden: &[RowRec], id: String) -> FoldRec {
    let mut f = Fold {
        id,
        count: hidden.len() as u32,
        users: 0,
        assistants: 0,
        tools: 0,
        others: 0,
        first_ts: None,
        last_ts: None,
        on_path: false,
    };
    let (mut tokens, mut cost, mut has_usage) = (0.0, 0.0, false);
    for r in hidden {
        let (_, e) = base.entry(r.node);
        match e.role() {
            Some(Role::User) => f.users += 1,
            Some(Role::Assistant) => f.assistants += 1,
            Some(Role::ToolResult) | Some(Role::BashExecution) => f.tools += 1,
            _ => f.others += 1,
        }
        if let Some(t) = finite(e.ts) {
            f.first_ts.get_or_insert(t);
            f.last_ts = Some(t);
        }
        if r.flags & ON_PATH != 0 {
            f.on_path = true;
        }
        if let Some((t, c)) = usage_of(e) {
            tokens += t;
            cost += c;
            has_usage = true;
        }
    }
    FoldRec { fold: f, first: hidden[0].node, tokens, cost, has_usage }
}

/// The layout as text, one line per row: the lanes (`*` a node on the active path, `o` another
/// node, `~` a fold, `|` a line passing, `\` the curve into a side branch), then the id, the
/// type (`:role`) and markers (`[leaf]`, `[label=…]`, `[+n]` collapsed, `[s1]` session,
/// `[n hidden]` for a fold).
pub fn ascii(layout: &Layout, sessions: &[&Session]) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for r in 0..layout.len() {
        let row = layout.skeleton_row(sessions, r);
        let mut line = String::new();
        for l in 0..=row.lane {
            if l == row.lane {
                line.push(if row.fold.is_some() {
                    '~'
                } else if row.on_path {
                    '*'
                } else {
                    'o'
                });
            } else {
                line.push(if row.pass.contains(&l) { '|' } else { ' ' });
                line.push(if row.branch_from == Some(l) && l + 1 == row.lane { '\\' } else { ' ' });
            }
        }
        line.push(' ');
        match &row.fold {
            Some(f) => {
                let _ = write!(line, "{} fold [{} hidden]", f.id, f.count);
            }
            None => {
                line.push_str(&row.id);
                line.push(' ');
                line.push_str(&row.kind);
                if let Some(role) = &row.role {
                    let _ = write!(line, ":{role}");
                }
            }
        }
        if row.is_leaf {
            line.push_str(" [leaf]");
        }
        if let Some(l) = &row.label {
            let _ = write!(line, " [label={l}]");
        }
        if let Some(c) = row.collapsed {
            let _ = write!(line, " [+{c}]");
        }
        if row.session != 0 {
            let _ = write!(line, " [s{}]", row.session);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}


#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

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
        assert!(s.diagnostics().iter().any(|d| d.kind == crate::DiagKind::ParentCycle));
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
        assert!(m.diagnostics.iter().any(|d| d.kind == crate::DiagKind::MissingParent));
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

    mod props {
        use super::*;
        use proptest::prelude::*;

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
}

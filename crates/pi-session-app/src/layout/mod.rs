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

mod base;
mod build;
#[cfg(test)]
mod tests;

use std::collections::HashSet;

use pi_session_format::diag::Severity;
use pi_session_format::entry::{Detail, Entry, Kind};
use base::Base;
#[cfg(test)]
use base::content_leaf;
use build::build_with;

use crate::api::{EntryType, Fold, LocateResult, MessageRole, TreeMeta, TreePage, TreeQuery, TreeRow};
use pi_session::context::BodyReader;
use pi_session::text::preview;
use pi_session::tree::NONE;
use pi_session::Session;

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
            path: pi_session::pathstr::encode(&s.index.path),
            title: title(s),
            total_rows: self.len(),
            lanes: self.lanes,
            leaf_id: s.leaf_id().map(str::to_string),
            effective_leaf_id: s.effective_leaf().map(|i| s.id_of(i).to_string()),
            leaf_row: self.leaf_row,
            entry_count: self.counts.entries,
            branch_points: self.counts.branch_points,
            compactions: self.counts.compactions,
            labels: self.counts.labels,
            read_only: s.index.read_only().and_then(|r| serde_json::to_value(r).ok()).and_then(|v| v.as_str().map(str::to_string)),
            live: false,
            diagnostics: s.diagnostics(),
            sessions: match &self.fork_points {
                None => vec![pi_session::pathstr::encode(&s.index.path)],
                Some(points) => {
                    (0..=points.len()).filter_map(|k| sessions.get(k)).map(|x| pi_session::pathstr::encode(&x.index.path)).collect()
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
            kind: EntryType::Other(String::new()),
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
                kind: EntryType::Fold,
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
            kind: EntryType::from(&ent.kind),
            role: MessageRole::of(ent),
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
            let t = pi_session::text::first_text_of_line(&t, 200);
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
        branch_points: s.branch_points() as u32,
        compactions: s.index.entries.iter().enumerate().filter(|(i, e)| t.in_tree[*i] && e.kind == Kind::Compaction).count() as u32,
        labels: t.labels.len() as u32,
    }
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
                line.push_str(row.kind.as_str());
                if let Some(role) = &row.role {
                    let _ = write!(line, ":{}", role.as_str());
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

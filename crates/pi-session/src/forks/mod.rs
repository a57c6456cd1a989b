//! Lineage across files: child → parent from the header's `parentSession`, found at the
//! recorded path or again by session id ([`crate::relink`]).
//!
//! A child that shares entries with its parent is a **fork** (pi's `/fork`, our fork): its
//! fork point is the deepest entry on the child's active path whose id is also in the parent
//! (copied lines keep their ids). A child that shares none is a **spawn** (a subagent run, an
//! extension's `newSession({ parentSession })`): the parent entry that started it is found by
//! [`crate::spawn`]. Each session's own and family figures come from [`crate::family`]; children
//! written outside the roots and named in a tool result from [`crate::outside`]. Missing parents
//! and parent cycles are reported, never followed forever.

use std::path::{Path, PathBuf};

use pi_session_format::diag::{DiagKind, Diagnostic};
use serde::{Deserialize, Serialize};

pub mod copy;
pub mod family;
pub mod outside;
pub mod relink;
pub mod spawn;
pub mod together;

pub use copy::{copy_kind, CopyKind};
use spawn::{Child, SpawnSite};
use crate::summary::SessionSummary;
use crate::Session;

/// How a session's `parentSession` link resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum ForkStatus {
    /// The parent is the listed session at the recorded path.
    Ok,
    /// The recorded path does not hold the parent (missing, outside the root, through a link
    /// leaving it, or another session); the parent was found by its session id.
    Relinked,
    ParentMissing,
    /// The recorded path holds another session, and no listed session has the parent's id.
    ParentMismatch,
    /// The recorded file exists outside the sessions root and no listed session has its id.
    ParentOutside,
    Cycle,
    /// The child itself lies outside the roots: a session file a tool call or result of its
    /// parent names (read no further than its header).
    OutsideRoots,
}

impl ForkStatus {
    /// The parent is a listed session (the recorded path or found by id).
    pub fn linked(self) -> bool {
        matches!(self, ForkStatus::Ok | ForkStatus::Relinked)
    }
}

/// What a child is to its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum LinkKind {
    /// Shares entries with its parent (copied with their ids): has a fork point.
    Fork,
    /// Shares no entry with its parent: started by it (a subagent run).
    Spawn,
}

/// One session's lineage: the `pi-session forks --json` shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkInfo {
    #[serde(with = "crate::pathstr::serde_path")]
    pub path: PathBuf,
    pub id: Option<String>,
    /// The header's `parentSession` as recorded.
    pub parent_session: Option<String>,
    /// The parent file: the recorded path resolved, or the session found by id (`relinked`).
    #[serde(with = "crate::pathstr::serde_opt_path")]
    pub parent_path: Option<PathBuf>,
    pub fork_point_id: Option<String>,
    /// Line of the fork point in the parent file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork_point_line: Option<u32>,
    /// Short text of the fork point entry (the message where the fork happened).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork_point_preview: Option<String>,
    /// Where the fork point is in the parent: its entry's position (1-based, file order) and
    /// how many entries the parent holds ("entry n of m").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork_point_entry: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_entries: Option<u32>,
    /// A slim fork or a pruned copy rather than a whole-path fork ([`copy_kind`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<CopyKind>,
    pub status: ForkStatus,
    /// Fork or spawn, when the parent could be read (absent: no parent, or not found).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<LinkKind>,
    /// A spawn: the parent's entry holding the tool call that started it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawned_by: Option<String>,
    /// That tool call's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawned_by_tool_call: Option<String>,
    /// No tool call or result names the child: `spawnedBy` is the last parent entry before
    /// the child's header time.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub spawned_by_guess: bool,
    /// The recorded path holds another session: its id (the link was not trusted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_path_id: Option<String>,
    /// Tokens and cost of the entries this file added (a fork's copied entries are its
    /// parent's).
    pub own_tokens: f64,
    pub own_cost: f64,
    /// Own figures of the session and of its spawns, recursively (docs/format.md, "Family").
    pub family_tokens: f64,
    pub family_cost: f64,
    /// Sessions in the family: the session and its spawns, recursively.
    pub family_size: u32,
    /// Tokens and cost of the copied entries (a fork's entries whose ids are in the parent).
    #[serde(skip)]
    pub copied: (f64, f64),
}

impl ForkInfo {
    /// A session with no link resolved yet.
    pub fn of(s: &SessionSummary) -> ForkInfo {
        ForkInfo {
            path: s.path.clone(),
            id: s.id.clone(),
            parent_session: s.parent_session.clone(),
            parent_path: None,
            fork_point_id: None,
            fork_point_line: None,
            fork_point_preview: None,
            fork_point_entry: None,
            parent_entries: None,
            copy: None,
            status: ForkStatus::Ok,
            kind: None,
            spawned_by: None,
            spawned_by_tool_call: None,
            spawned_by_guess: false,
            stale_path_id: None,
            own_tokens: s.tokens,
            own_cost: s.cost,
            family_tokens: s.tokens,
            family_cost: s.cost,
            family_size: 1,
            copied: (0.0, 0.0),
        }
    }

    /// Sets what comparing the child with its parent found.
    pub(crate) fn set_point(&mut self, p: &Point) {
        self.fork_point_id = p.fork_point_id.clone();
        self.fork_point_line = p.fork_point_line;
        self.fork_point_preview = p.fork_point_preview.clone();
        self.fork_point_entry = p.fork_point_entry;
        self.parent_entries = p.parent_entries;
        self.copy = p.copy;
        self.kind = Some(if p.fork_point_id.is_some() { LinkKind::Fork } else { LinkKind::Spawn });
        self.spawned_by = p.site.as_ref().map(|s| s.entry_id.clone());
        self.spawned_by_tool_call = p.site.as_ref().and_then(|s| s.tool_call_id.clone());
        self.spawned_by_guess = p.site.as_ref().is_some_and(|s| s.guess);
        self.copied = p.copied;
    }

    /// Clears what was found at a parent that is no longer the parent.
    pub(crate) fn clear_point(&mut self) {
        self.set_point(&Point::default());
        self.kind = None;
    }
}

/// The lineage fields `pi-session list --json` adds to a session.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListFields<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork_status: Option<ForkStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<LinkKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fork_point_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawned_by: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawned_by_tool_call: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub spawned_by_guess: bool,
    pub own_tokens: f64,
    pub own_cost: f64,
    pub family_tokens: f64,
    pub family_cost: f64,
    pub family_size: u32,
}

/// The parent link `pi-session tree --json` adds (`lineage`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeLink<'a> {
    pub parent_session: Option<&'a str>,
    pub parent_path: Option<String>,
    pub status: ForkStatus,
    pub kind: Option<LinkKind>,
    pub fork_point_id: Option<&'a str>,
    pub spawned_by: Option<&'a str>,
    pub spawned_by_tool_call: Option<&'a str>,
    pub spawned_by_guess: bool,
    pub stale_path_id: Option<&'a str>,
}

impl ForkInfo {
    pub fn list_fields(&self) -> ListFields<'_> {
        ListFields {
            parent_path: self.parent_path.as_deref().map(crate::pathstr::encode),
            fork_status: self.parent_session.is_some().then_some(self.status),
            kind: self.kind,
            fork_point_id: self.fork_point_id.as_deref(),
            spawned_by: self.spawned_by.as_deref(),
            spawned_by_tool_call: self.spawned_by_tool_call.as_deref(),
            spawned_by_guess: self.spawned_by_guess,
            own_tokens: self.own_tokens,
            own_cost: self.own_cost,
            family_tokens: self.family_tokens,
            family_cost: self.family_cost,
            family_size: self.family_size,
        }
    }

    pub fn tree_link(&self) -> TreeLink<'_> {
        TreeLink {
            parent_session: self.parent_session.as_deref(),
            parent_path: self.parent_path.as_deref().map(crate::pathstr::encode),
            status: self.status,
            kind: self.kind,
            fork_point_id: self.fork_point_id.as_deref(),
            spawned_by: self.spawned_by.as_deref(),
            spawned_by_tool_call: self.spawned_by_tool_call.as_deref(),
            spawned_by_guess: self.spawned_by_guess,
            stale_path_id: self.stale_path_id.as_deref(),
        }
    }
}

/// What comparing a child with its parent finds (kept in the listing cache).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Point {
    pub fork_point_id: Option<String>,
    #[serde(default)]
    pub fork_point_line: Option<u32>,
    #[serde(default)]
    pub fork_point_preview: Option<String>,
    /// The fork point's entry in the parent (1-based, file order) and the parent's entry count.
    #[serde(default)]
    pub fork_point_entry: Option<u32>,
    #[serde(default)]
    pub parent_entries: Option<u32>,
    /// A slim fork or a pruned copy.
    #[serde(default)]
    pub copy: Option<CopyKind>,
    /// A spawn: where the parent started it.
    #[serde(default)]
    pub site: Option<SpawnSite>,
    /// Tokens and cost of the child's entries whose ids are in the parent.
    #[serde(default)]
    pub copied: (f64, f64),
}

/// Compares each child with `parent` (one open of the parent, one scan of its tool calls for
/// all its spawns).
pub fn points(parent: &Session, children: &[&Session]) -> Vec<Point> {
    let mut out: Vec<Point> = children
        .iter()
        .map(|child| {
            let id = fork_point(child, parent);
            let at = id.as_deref().and_then(|id| parent.index.by_id.get(id).copied());
            Point {
                fork_point_line: at.map(|i| parent.index.entries[i as usize].line),
                fork_point_preview: point_preview(parent, id.as_deref()),
                fork_point_entry: at.map(|i| i + 1),
                parent_entries: Some(parent.index.entries.len() as u32),
                copy: id.as_deref().and_then(|id| copy_kind(child, parent, id)),
                fork_point_id: id,
                site: None,
                copied: copied_usage(child, parent),
            }
        })
        .collect();
    let spawns: Vec<usize> = (0..out.len()).filter(|&k| out[k].fork_point_id.is_none()).collect();
    if !spawns.is_empty() {
        let header_ms = |s: &Session| s.index.header.as_ref().and_then(|h| h.timestamp.as_deref()).and_then(pi_session_format::js::parse_iso_ms);
        let wanted: Vec<Child<'_>> = spawns
            .iter()
            .map(|&k| Child { id: children[k].index.header.as_ref().and_then(|h| h.id.as_deref()), path: &children[k].index.path, created: header_ms(children[k]) })
            .collect();
        for (k, site) in spawns.into_iter().zip(crate::forks::spawn::spawn_sites(parent, &wanted)) {
            out[k].site = site;
        }
    }
    out
}

/// Tokens and cost of `child`'s entries whose ids are in `parent` (copied lines).
fn copied_usage(child: &Session, parent: &Session) -> (f64, f64) {
    let mut sum = (0.0, 0.0);
    for e in &child.index.entries {
        if let (Some(u), Some(id)) = (crate::summary::counted_usage(e), e.id.as_deref()) {
            if parent.index.by_id.contains_key(id) {
                sum.0 += u.tokens();
                sum.1 += u.cost;
            }
        }
    }
    sum
}

/// Short plain text of entry `id` of `s` (≤ 200 chars), for labelling a fork edge.
pub(crate) fn point_preview(s: &Session, id: Option<&str>) -> Option<String> {
    let i = *s.index.by_id.get(id?)?;
    let mut reader = crate::context::BodyReader::open(&s.index).ok()?;
    let text = reader.line(i).ok()?;
    let p = crate::text::preview(&s.index.entries[i as usize], Some(&text)).text;
    (!p.is_empty()).then_some(p)
}

/// Resolves `parentSession`: absolute as is; relative against the header cwd, then the root.
pub fn resolve_parent(parent_session: &str, cwd: Option<&str>, root: &Path) -> (PathBuf, bool) {
    let p = Path::new(parent_session);
    if p.is_absolute() {
        return (p.to_path_buf(), false);
    }
    if let Some(c) = cwd {
        let cand = Path::new(c).join(p);
        if cand.is_file() {
            return (cand, true);
        }
    }
    (root.join(p), true)
}

/// The lineage of a root's listing.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Lineage {
    /// One per listed session, in the listing's order.
    pub links: Vec<ForkInfo>,
    /// Children outside the root that listed sessions name (status `outside-roots`).
    pub outside: Vec<ForkInfo>,
}

impl Lineage {
    /// Every link, then the children outside the roots: the `forks --json` list.
    pub fn all(&self) -> impl Iterator<Item = &ForkInfo> {
        self.links.iter().chain(&self.outside)
    }
}

/// Per-session findings about `parentSession` (same order as `sessions`): a relative path
/// (info), a parent found by its session id (info), a recorded path that holds another session
/// (warning), a parent outside the root (info), a parent file that does not exist (warning), a
/// chain of parents that comes back to this session (error). Cheap: no session file is opened.
pub fn fork_diagnostics(root: &Path, sessions: &[SessionSummary]) -> Vec<Vec<Diagnostic>> {
    if sessions.iter().all(|s| s.parent_session.is_none()) {
        return vec![Vec::new(); sessions.len()];
    }
    let (links, _) = crate::forks::relink::fork_links(root, sessions);
    links.iter().map(link_diagnostics).collect()
}

/// The findings of one resolved link.
pub fn link_diagnostics(f: &ForkInfo) -> Vec<Diagnostic> {
    let mut d = Vec::new();
    let Some(ps) = &f.parent_session else { return d };
    let resolved = f.parent_path.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
    if Path::new(ps).is_relative() {
        d.push(Diagnostic::new(None, DiagKind::ParentSessionRelative, format!("parentSession {ps:?} is relative; resolved to {resolved}")));
    }
    if let Some(other) = &f.stale_path_id {
        d.push(Diagnostic::new(None, DiagKind::ParentSessionMismatch, format!("parentSession {ps} holds another session ({other}), not the parent")));
    }
    match f.status {
        ForkStatus::Ok | ForkStatus::ParentMismatch | ForkStatus::OutsideRoots => {}
        ForkStatus::Relinked => d.push(Diagnostic::new(None, DiagKind::ParentSessionRelinked, format!("parentSession {ps} does not hold the parent here; found by its session id at {resolved}"))),
        ForkStatus::ParentOutside => d.push(Diagnostic::new(None, DiagKind::ParentSessionOutside, format!("parentSession {resolved} leads outside the sessions root, and no session of the root has its id"))),
        ForkStatus::ParentMissing => d.push(Diagnostic::new(None, DiagKind::ParentSessionMissing, format!("parentSession {resolved} does not exist"))),
        ForkStatus::Cycle => d.push(Diagnostic::new(None, DiagKind::ParentSessionCycle, format!("parentSession {resolved} leads back to this session"))),
    }
    d
}

/// The deepest entry on the child's active path whose id is in the parent; failing that, the
/// deepest shared entry anywhere in the child.
pub fn fork_point(child: &Session, parent: &Session) -> Option<String> {
    let shared = |i: u32| {
        let id = child.id_of(i);
        parent.index.by_id.get(id).is_some_and(|&p| parent.tree.in_tree[p as usize])
    };
    let path = child.tree.active_path();
    if let Some(&i) = path.iter().rev().find(|&&i| shared(i)) {
        return Some(child.id_of(i).to_string());
    }
    (0..child.index.entries.len() as u32)
        .filter(|&i| child.tree.in_tree[i as usize] && shared(i))
        .max_by_key(|&i| (child.tree.depth[i as usize], i))
        .map(|i| child.id_of(i).to_string())
}

/// The lineage of one file of `root` (`tree`, `check FILE`): its link resolved against the
/// headers of the root's files (read from their first 16 KB, not indexed), and its fork point
/// or spawn site. `None` when the file names no parent. Family figures need the whole listing
/// and are left at the file's own.
pub fn link_of_file(file: &Path, root: &Path) -> Option<ForkInfo> {
    use rayon::prelude::*;
    let size = std::fs::metadata(file).ok()?.len();
    let me = SessionSummary::quick(file, size);
    let ps = me.parent_session.as_ref()?;
    // The recorded path holds the parent (the common case): its header is enough.
    let (pp, _) = resolve_parent(ps, me.cwd.as_deref(), root);
    // (A regular file inside the root only: a named pipe would block the read, and a file
    // outside the root or through a link leaving it is looked for by id among the root's.)
    let inside = crate::write::lexically_inside(&pp, root) && !crate::forks::relink::leaves_root(&pp, root);
    if let Some(meta) = std::fs::metadata(&pp).ok().filter(|m| m.is_file() && inside) {
        let pair = [me.clone(), SessionSummary::quick(&pp, meta.len())];
        let (links, parents) = crate::forks::relink::fork_links(root, &pair);
        if matches!(links[0].status, ForkStatus::Ok | ForkStatus::Cycle) {
            return Some(finish(file, size, links.into_iter().next()?, parents[0].as_deref()));
        }
    }
    let found = crate::scan::scan(root).files;
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let real = canon(file);
    let mut sessions: Vec<SessionSummary> = found.par_iter().map(|f| SessionSummary::quick(&f.path, f.size)).collect();
    let i = match sessions.iter().position(|s| s.path == file || canon(&s.path) == real) {
        Some(i) => i,
        None => {
            sessions.push(me);
            sessions.len() - 1
        }
    };
    let (links, parents) = crate::forks::relink::fork_links(root, &sessions);
    Some(finish(file, size, links.into_iter().nth(i)?, parents[i].as_deref()))
}

/// [`link_of_file`]'s link with what comparing the file with its parent finds.
fn finish(file: &Path, size: u64, mut f: ForkInfo, parent: Option<&Path>) -> ForkInfo {
    f.path = file.to_path_buf();
    if let Some(pp) = parent {
        if let (Ok(child), Ok(parent)) = (Session::open(file), Session::open(pp)) {
            if let Some(p) = points(&parent, &[&child]).first() {
                f.set_point(p);
            }
            let own = SessionSummary::of(&child, size);
            let copied = if f.kind == Some(LinkKind::Fork) && f.status.linked() { f.copied } else { (0.0, 0.0) };
            f.own_tokens = (own.tokens - copied.0).max(0.0);
            f.own_cost = (own.cost - copied.1).max(0.0);
            f.family_tokens = f.own_tokens;
            f.family_cost = f.own_cost;
        }
    }
    f
}

//! The fork graph across files: child → parent from the header's `parentSession`.
//!
//! The fork point is the deepest entry on the child's active path whose id is also in the
//! parent (copied lines keep their ids). Missing parents and parent cycles are reported,
//! never followed forever.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::diag::{DiagKind, Diagnostic};
use crate::summary::SessionSummary;
use crate::Session;

/// How a session's `parentSession` link resolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum ForkStatus {
    Ok,
    ParentMissing,
    Cycle,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkInfo {
    #[serde(with = "crate::pathstr::serde_path")]
    pub path: PathBuf,
    pub id: Option<String>,
    pub parent_session: Option<String>,
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
}

/// What a fork's file holds of its parent, when it is not the whole root→fork-point path that
/// a fork copies. Nothing in the file says so (its header is a fork's: `parentSession`); it is
/// read from the lines it holds ([`copy_kind`], docs/design.md "Slim fork and pruned copy").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum CopyKind {
    /// A slim fork: a copied line's `parentId` differs from the parent's line with the same id
    /// (the fork re-links the first line it keeps after the part it drops).
    Slim,
    /// A pruned copy: more shared entries than the path to the fork point (several branches),
    /// fewer than the parent holds (others left out).
    Pruned,
}

/// The fork point of `child` in `parent` and what it says about the copy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ForkPoint {
    pub id: Option<String>,
    pub line: Option<u32>,
    pub preview: Option<String>,
    pub entry: Option<u32>,
    pub parent_entries: Option<u32>,
    pub copy: Option<CopyKind>,
}

impl ForkPoint {
    pub fn of(child: &Session, parent: &Session) -> ForkPoint {
        let id = fork_point(child, parent);
        let at = id.as_deref().and_then(|id| parent.index.by_id.get(id).copied());
        ForkPoint {
            line: at.map(|i| parent.index.entries[i as usize].line),
            preview: point_preview(parent, id.as_deref()),
            entry: at.map(|i| i + 1),
            parent_entries: Some(parent.index.entries.len() as u32),
            copy: id.as_deref().and_then(|id| copy_kind(child, parent, id)),
            id,
        }
    }

    fn apply(self, info: &mut ForkInfo) {
        info.fork_point_id = self.id;
        info.fork_point_line = self.line;
        info.fork_point_preview = self.preview;
        info.fork_point_entry = self.entry;
        info.parent_entries = self.parent_entries;
        info.copy = self.copy;
    }
}

/// Tells a slim fork and a pruned copy from a fork, by the lines `child` shares (by id) with
/// `parent`: our fork and pi's copy the root→`point` path byte for byte, so every shared line
/// has the parent's `parentId` and the shared lines are that path. A slim fork re-links the
/// first line it keeps after the hidden part (a shared line whose `parentId` differs; a slim
/// fork always holds a compaction). A pruned copy keeps several whole paths: more shared lines
/// than the path to its fork point, fewer than the parent's tree (a full copy is not pruned).
/// A pruned copy of a single branch is a fork of that branch, and reads as one.
pub fn copy_kind(child: &Session, parent: &Session, point: &str) -> Option<CopyKind> {
    let mut shared = 0usize;
    let mut relinked = false;
    for (i, e) in child.index.entries.iter().enumerate() {
        let Some(id) = e.id.as_ref().filter(|_| child.tree.in_tree[i]) else { continue };
        let Some(&p) = parent.index.by_id.get(id.as_str()) else { continue };
        shared += 1;
        relinked |= e.parent != parent.index.entries[p as usize].parent;
    }
    let compacted = child.index.entries.iter().any(|e| e.kind == crate::entry::Kind::Compaction);
    if relinked && compacted {
        return Some(CopyKind::Slim);
    }
    let fp = *child.index.by_id.get(point)?;
    let on_path = child.tree.path_to(fp).len();
    let parent_tree = parent.tree.in_tree.iter().filter(|&&b| b).count();
    (shared > on_path && shared < parent_tree).then_some(CopyKind::Pruned)
}

/// Short plain text of entry `id` of `s` (≤ 200 chars), for labelling a fork edge.
pub(crate) fn point_preview(s: &Session, id: Option<&str>) -> Option<String> {
    let i = *s.index.by_id.get(id?)?;
    let mut reader = crate::context::BodyReader::open(&s.index).ok()?;
    let text = reader.line(i).ok()?;
    let p = crate::preview::preview(&s.index.entries[i as usize], Some(&text)).text;
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

fn canon(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Computes fork edges for listed sessions. `open` loads a session by path (cached by the caller).
pub fn fork_graph(
    root: &Path,
    sessions: &[SessionSummary],
    mut open: impl FnMut(&Path) -> Option<std::sync::Arc<Session>>,
) -> Vec<ForkInfo> {
    let (mut out, parents) = fork_links(root, sessions);
    for i in 0..out.len() {
        let Some(parent_path) = parents[i].clone() else { continue };
        let (Some(child), Some(parent)) = (open(&sessions[i].path), open(&parent_path)) else { continue };
        ForkPoint::of(&child, &parent).apply(&mut out[i]);
    }
    out
}

/// [`fork_graph`] with fork points kept in the listing cache (valid while both files are
/// unchanged), so only new or changed forks open their files.
///
/// Only forks whose file is in the cache (fully indexed) get a fork point; the others keep
/// `None` until they are indexed. New fork points are computed on all cores.
pub fn fork_graph_cached(root: &Path, sessions: &[SessionSummary], cache: &mut crate::cache::ListCache) -> Vec<ForkInfo> {
    use crate::cache::CachedFork;
    use crate::session::FileStamp;
    use rayon::prelude::*;
    let (mut out, parents) = fork_links(root, sessions);
    let stamp = |p: &Path| std::fs::metadata(p).ok().map(|m| FileStamp::of(&m));
    let mut todo = Vec::new();
    for i in 0..out.len() {
        let Some(parent_path) = parents[i].clone() else { continue };
        let child_path = &sessions[i].path;
        let Some(entry) = cache.files.get(child_path) else { continue };
        let parent_stamp = stamp(&parent_path);
        // An entry cached before fork points had their text and position is computed again.
        match entry.fork.as_ref().filter(|f| f.parent == parent_path && Some(f.parent_stamp) == parent_stamp && (f.fork_point_id.is_none() || (f.fork_point_preview.is_some() && f.fork_point_entry.is_some()))) {
            Some(f) => f.point().apply(&mut out[i]),
            None => todo.push((i, parent_path, parent_stamp)),
        }
    }
    type Found = (usize, PathBuf, Option<FileStamp>, Option<ForkPoint>);
    let found: Vec<Found> = todo
        .into_par_iter()
        .map(|(i, parent_path, ps)| {
            let point = match (Session::open(&sessions[i].path), Session::open(&parent_path)) {
                (Ok(child), Ok(parent)) => Some(ForkPoint::of(&child, &parent)),
                _ => None,
            };
            (i, parent_path, ps, point)
        })
        .collect();
    for (i, parent_path, ps, point) in found {
        let Some(point) = point else { continue };
        if let (Some(entry), Some(ps)) = (cache.files.get_mut(&sessions[i].path), ps) {
            entry.fork = Some(CachedFork::new(parent_path, ps, &point));
            cache.changed = true;
        }
        point.apply(&mut out[i]);
    }
    out
}

/// Per-session findings about `parentSession` (same order as `sessions`): a relative path
/// (info), a parent file that does not exist (warning), a chain of parents that comes back to
/// this session (error). Cheap: no session file is opened.
pub fn fork_diagnostics(root: &Path, sessions: &[SessionSummary]) -> Vec<Vec<Diagnostic>> {
    if sessions.iter().all(|s| s.parent_session.is_none()) {
        return vec![Vec::new(); sessions.len()];
    }
    let (links, _) = fork_links(root, sessions);
    links
        .iter()
        .map(|f| {
            let mut d = Vec::new();
            let Some(ps) = &f.parent_session else { return d };
            let resolved = f.parent_path.as_deref().map(|p| p.display().to_string()).unwrap_or_default();
            if Path::new(ps).is_relative() {
                d.push(Diagnostic::new(None, DiagKind::ParentSessionRelative, format!("parentSession {ps:?} is relative; resolved to {resolved}")));
            }
            match f.status {
                ForkStatus::Ok => {}
                ForkStatus::ParentMissing => d.push(Diagnostic::new(None, DiagKind::ParentSessionMissing, format!("parentSession {resolved} does not exist"))),
                ForkStatus::Cycle => d.push(Diagnostic::new(None, DiagKind::ParentSessionCycle, format!("parentSession {resolved} leads back to this session"))),
            }
            d
        })
        .collect()
}

/// Fork edges without fork points: statuses, resolved parent paths, and for each session the
/// parent file to compare with (when there is one and no cycle).
fn fork_links(root: &Path, sessions: &[SessionSummary]) -> (Vec<ForkInfo>, Vec<Option<PathBuf>>) {
    // Sessions by path as listed; a parent path that does not match as written is resolved
    // (symlinks, `..`) and matched against the listed paths resolved the same way. Resolving
    // costs a system call per folder in the path, so it is done only when needed.
    let by_path: HashMap<&Path, usize> = sessions.iter().enumerate().map(|(i, s)| (s.path.as_path(), i)).collect();
    let mut canon_root: Option<PathBuf> = None;
    // parent index of each session (None: no parentSession or parent missing)
    let mut parent_ix: Vec<Option<usize>> = vec![None; sessions.len()];
    let mut out: Vec<ForkInfo> = Vec::with_capacity(sessions.len());
    for (i, s) in sessions.iter().enumerate() {
        let mut info = ForkInfo {
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
        };
        if let Some(ps) = &s.parent_session {
            let (pp, _) = resolve_parent(ps, s.cwd.as_deref(), root);
            info.parent_path = Some(pp.clone());
            let found = by_path.get(pp.as_path()).copied().or_else(|| {
                let real = canon(&pp);
                let croot = canon_root.get_or_insert_with(|| canon(root));
                let rel = real.strip_prefix(&*croot).ok()?;
                by_path.get(root.join(rel).as_path()).copied()
            });
            match found.as_ref() {
                Some(&j) => parent_ix[i] = Some(j),
                None if pp.is_file() => {}
                None => info.status = ForkStatus::ParentMissing,
            }
        }
        out.push(info);
    }
    // Cycles: follow parent links with a visited mark per walk.
    let n = sessions.len();
    let mut state = vec![0u8; n]; // 0 new, 1 on current walk, 2 done
    for start in 0..n {
        let mut walk: Vec<usize> = Vec::new();
        let mut cur = Some(start);
        while let Some(c) = cur {
            if state[c] == 2 {
                break;
            }
            if state[c] == 1 {
                let from = walk.iter().position(|&x| x == c).unwrap_or(0);
                for &x in &walk[from..] {
                    out[x].status = ForkStatus::Cycle;
                }
                break;
            }
            state[c] = 1;
            walk.push(c);
            cur = parent_ix[c];
        }
        for x in walk {
            state[x] = 2;
        }
    }
    let parents = (0..n)
        .map(|i| {
            if out[i].status == ForkStatus::Cycle {
                return None;
            }
            match (parent_ix[i], &out[i].parent_path) {
                (Some(j), _) => Some(sessions[j].path.clone()),
                // A parent not listed is read for the fork point, unless it is reached through a
                // link in the root that leaves it (which nothing reads).
                (None, Some(p)) if p.is_file() && !leaves_root(p, root) => Some(p.clone()),
                _ => None,
            }
        })
        .collect();
    (out, parents)
}

/// True for a path inside `root` as written that resolves outside it (a link leaving the root).
fn leaves_root(p: &Path, root: &Path) -> bool {
    crate::write::lexically_inside(p, root) && crate::write::confine(p, Some(root)).is_err_and(|e| matches!(e, crate::Error::OutsideRoot { .. }))
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

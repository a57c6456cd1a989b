//! Where a session's `parentSession` leads: at the recorded path, or found again by session id
//! when that path does not hold the parent (docs/format.md, "Forks and spawned sessions").
//!
//! pi records the parent as an absolute path. A folder restored from a backup, synced from
//! another machine, copied, or reached through a renamed home folder keeps every parent beside
//! its child under the same name, but not at the recorded path. So the parent is looked up by
//! the session id the recorded file name holds (`<time>_<uuid>.jsonl`: a listed session's header
//! `id`, or the uuid of the name of a listed file without one; a name without a uuid: the same
//! file name) among the listed sessions when the recorded path
//!
//! * does not exist,
//! * lies outside the root (a copied folder whose original is still there: the copy links to
//!   its own files),
//! * leads outside the root through a symbolic link (which nothing reads, docs/damage.md), or
//! * holds another session (its header id is not the uuid the recorded name gives): a stale
//!   path is reported, never trusted.
//!
//! Statuses: `ok` (the recorded path), `relinked` (found by id; the recorded path is kept for
//! display), `parent-missing`, `parent-mismatch` (the recorded file is another session and no
//! session has the id), `parent-outside` (the recorded file exists outside the root and no
//! listed session has its id: read for the fork point, as the only copy there is), `cycle`.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::forks::{resolve_parent, ForkInfo, ForkStatus};
use crate::forks::spawn::uuid_in_name;
use crate::summary::SessionSummary;

/// Links of every session (same order as `sessions`) and, for each, the parent file to read
/// for the fork point (when there is one and no cycle). Opens no session file; reads the
/// header of a recorded parent file that is not listed.
pub(crate) fn fork_links(root: &Path, sessions: &[SessionSummary]) -> (Vec<ForkInfo>, Vec<Option<PathBuf>>) {
    // Sessions by path as listed; a parent path that does not match as written is resolved
    // (symlinks, `..`) and matched against the listed paths resolved the same way. Resolving
    // costs a system call per folder in the path, so it is done only when needed.
    let by_path: HashMap<&Path, usize> = sessions.iter().enumerate().map(|(i, s)| (s.path.as_path(), i)).collect();
    let mut canon_root: Option<PathBuf> = None;
    let mut ids: Option<Ids<'_>> = None;
    // The listed parent of each session, and an unlisted parent file to read.
    let mut parent_ix: Vec<Option<usize>> = vec![None; sessions.len()];
    let mut unlisted: Vec<Option<PathBuf>> = vec![None; sessions.len()];
    let mut out: Vec<ForkInfo> = Vec::with_capacity(sessions.len());
    for (i, s) in sessions.iter().enumerate() {
        let mut info = ForkInfo::of(s);
        let Some(ps) = &s.parent_session else {
            out.push(info);
            continue;
        };
        let (pp, _) = resolve_parent(ps, s.cwd.as_deref(), root);
        info.parent_path = Some(pp.clone());
        let want = uuid_in_name(ps);
        let other_id = |found: Option<&str>| want.zip(found).filter(|(w, f)| w != f).map(|(_, f)| f.to_string());
        let listed = by_path.get(pp.as_path()).copied().or_else(|| {
            let real = canon(&pp);
            let croot = canon_root.get_or_insert_with(|| canon(root));
            let rel = real.strip_prefix(&*croot).ok()?;
            by_path.get(root.join(rel).as_path()).copied()
        });
        let exists = listed.is_some() || pp.is_file();
        let inside = crate::write::lexically_inside(&pp, root);
        let through_link = exists && inside && listed.is_none() && leaves_root(&pp, root);
        // At the recorded path: a listed session, or a file inside the root the scan does not
        // list (one folder too deep, say), unless it is another session.
        let at_path: Option<Result<Option<usize>, String>> = match listed {
            Some(j) => Some(match other_id(sessions[j].id.as_deref()) {
                Some(other) => Err(other),
                None => Ok(Some(j)),
            }),
            None if exists && inside && !through_link => Some(match other_id(header_id(&pp).as_deref()) {
                Some(other) => Err(other),
                None => Ok(None),
            }),
            None => None,
        };
        match at_path {
            Some(Ok(Some(j))) => {
                // The listed path (the recorded one may reach it through a link).
                parent_ix[i] = Some(j);
                info.parent_path = Some(sessions[j].path.clone());
            }
            Some(Ok(None)) => unlisted[i] = Some(pp.clone()),
            stale => {
                info.stale_path_id = stale.and_then(Result::err);
                let idx = ids.get_or_insert_with(|| Ids::new(sessions));
                if let Some(k) = idx.find(i, &pp, want) {
                    parent_ix[i] = Some(k);
                    info.parent_path = Some(sessions[k].path.clone());
                    info.status = ForkStatus::Relinked;
                } else if info.stale_path_id.is_some() {
                    info.status = ForkStatus::ParentMismatch;
                } else if !exists {
                    info.status = ForkStatus::ParentMissing;
                } else if through_link {
                    info.status = ForkStatus::ParentOutside;
                } else {
                    // Outside the root, and no listed session has its id: the recorded file
                    // is read, unless it is another session.
                    match other_id(header_id(&pp).as_deref()) {
                        Some(other) => {
                            info.stale_path_id = Some(other);
                            info.status = ForkStatus::ParentMismatch;
                        }
                        None => {
                            info.status = ForkStatus::ParentOutside;
                            unlisted[i] = Some(pp.clone());
                        }
                    }
                }
            }
        }
        out.push(info);
    }
    mark_cycles(&mut out, &parent_ix);
    let parents = (0..sessions.len())
        .map(|i| match (out[i].status, parent_ix[i]) {
            (ForkStatus::Cycle, _) => None,
            (_, Some(j)) => Some(sessions[j].path.clone()),
            _ => unlisted[i].take(),
        })
        .collect();
    (out, parents)
}

/// Cycles: follow parent links with a visited mark per walk.
fn mark_cycles(out: &mut [ForkInfo], parent_ix: &[Option<usize>]) {
    let n = out.len();
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
}

fn canon(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// True for a path inside `root` as written that resolves outside it (a link leaving the root).
pub(crate) fn leaves_root(p: &Path, root: &Path) -> bool {
    crate::write::lexically_inside(p, root) && crate::write::confine(p, Some(root)).is_err_and(|e| matches!(e, crate::Error::OutsideRoot { .. }))
}

/// The `id` of a file's header (its first JSON line, within the first 16 KB), if it has one.
pub(crate) fn header_id(path: &Path) -> Option<String> {
    header_of(path).and_then(|h| h.get("id")?.as_str().map(str::to_string))
}

/// A file's header object (the first line that parses, when it is `type: "session"`), read
/// from its first 16 KB. Only regular files are opened (a named pipe would block).
pub(crate) fn header_of(path: &Path) -> Option<serde_json::Map<String, serde_json::Value>> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(16 * 1024).read_to_end(&mut head).ok()?;
    let text = String::from_utf8_lossy(&head);
    let line = text.split('\n').map(|l| l.trim_matches(pi_session_format::js::is_js_space)).find(|l| !l.is_empty() && serde_json::from_str::<serde_json::Value>(l).is_ok())?;
    match serde_json::from_str::<serde_json::Value>(line).ok()? {
        serde_json::Value::Object(o) if o.get("type").and_then(|t| t.as_str()) == Some("session") => Some(o),
        _ => None,
    }
}

/// Listed sessions by session id (header `id`, else the uuid of the file name) and by file name.
pub(crate) struct Ids<'a> {
    sessions: &'a [SessionSummary],
    by_id: HashMap<&'a str, Vec<usize>>,
    by_name: HashMap<&'a OsStr, Vec<usize>>,
}

impl<'a> Ids<'a> {
    pub(crate) fn new(sessions: &'a [SessionSummary]) -> Ids<'a> {
        let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut by_name: HashMap<&OsStr, Vec<usize>> = HashMap::new();
        for (i, s) in sessions.iter().enumerate() {
            if let Some(id) = s.id.as_deref() {
                by_id.entry(id).or_default().push(i);
            }
            if let Some(name) = s.path.file_name() {
                by_name.entry(name).or_default().push(i);
                // A file without a header id is known by the uuid of its name (a file whose
                // header holds another id is that session, whatever its name says).
                if let (None, Some(u)) = (&s.id, name.to_str().and_then(uuid_in_name)) {
                    by_id.entry(u).or_default().push(i);
                }
            }
        }
        Ids { sessions, by_id, by_name }
    }

    /// The listed session (not `child` itself) that the recorded parent path names: by the id
    /// in its file name, else (a name without one) by its file name. Among several: the one in
    /// the child's folder, then the one whose path ends like the recorded one, then the first.
    pub(crate) fn find(&self, child: usize, recorded: &Path, want: Option<&str>) -> Option<usize> {
        let cands = match want {
            Some(id) => self.by_id.get(id),
            None => self.by_name.get(recorded.file_name()?),
        }?;
        let folder = self.sessions[child].path.parent();
        cands
            .iter()
            .copied()
            .filter(|&j| j != child)
            .max_by_key(|&j| {
                let p = &self.sessions[j].path;
                let same_folder = p.parent() == folder;
                let common = p.components().rev().zip(recorded.components().rev()).take_while(|(a, b)| a == b).count();
                (same_folder, common, std::cmp::Reverse(j))
            })
    }
}

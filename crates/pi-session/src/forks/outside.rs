//! Children outside the roots: some subagent tools write their sessions to folders of their
//! own and name the file in a tool result. Such a file is a child of the session naming it when
//! its header's `parentSession` names that session (by path or by session id). It is listed in
//! the lineage with status `outside-roots` and its path; of the file, only the header and the
//! first entry line (within 64 KB: shared with the parent, a fork; else a spawn) are read. It is
//! not indexed, searched or counted, and never written: [`open_outside`] opens it read-only for
//! viewing, on request. A named file whose session id a listed session has is that session's
//! original (a copied folder's tool results name the files where they were first written), not
//! a child of its own.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::forks::{resolve_parent, ForkInfo, ForkStatus, LinkKind};
use crate::forks::spawn::{uuid_in_name, Child};
use crate::summary::SessionSummary;
use crate::{Error, Session};

/// The children outside every one of `roots` that the listed sessions name (`links`: the
/// sessions' lineage, same order), each once.
pub fn children(roots: &[&Path], sessions: &[SessionSummary], links: &[ForkInfo]) -> Vec<ForkInfo> {
    let mut out = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    // A named file with the id of a listed session is that session's original (a copied or
    // restored folder names the files where they were written): not another child.
    let listed: HashSet<&str> = sessions.iter().filter_map(|s| s.id.as_deref()).collect();
    for (i, s) in sessions.iter().enumerate() {
        for nf in &s.named_files {
            let p = PathBuf::from(&nf.path);
            if !p.is_absolute() || roots.iter().any(|r| crate::write::lexically_inside(&p, r)) {
                continue;
            }
            let Ok(real) = std::fs::canonicalize(&p) else { continue };
            if roots.iter().any(|r| std::fs::canonicalize(r).is_ok_and(|r| real.starts_with(r))) || !seen.insert(real.clone()) {
                continue;
            }
            let Some(h) = crate::forks::relink::header_of(&real) else { continue };
            let Some(ps) = h.get("parentSession").and_then(|v| v.as_str()) else { continue };
            if h.get("id").and_then(|v| v.as_str()).is_some_and(|id| listed.contains(id)) {
                continue;
            }
            let cwd = h.get("cwd").and_then(|v| v.as_str());
            let names_parent = {
                let (pp, _) = resolve_parent(ps, cwd, real.parent().unwrap_or(Path::new("/")));
                pp == s.path || std::fs::canonicalize(&pp).ok() == std::fs::canonicalize(&s.path).ok() || (uuid_in_name(ps).is_some() && uuid_in_name(ps) == s.id.as_deref())
            };
            if !names_parent {
                continue;
            }
            let id = h.get("id").and_then(|v| v.as_str()).map(str::to_string);
            let mut f = ForkInfo::of(&SessionSummary { path: p.clone(), id: id.clone(), parent_session: Some(ps.to_string()), ..Default::default() });
            f.parent_path = Some(links[i].path.clone());
            f.status = ForkStatus::OutsideRoots;
            f.family_size = 0;
            // The parent, read as for a child inside the root: a shared first entry makes a
            // fork; else the spawn site by the same rule (the place it is named, as a fallback).
            let parent = Session::open(&s.path).ok();
            let first = first_entry_id(&real);
            let fork = parent.as_ref().zip(first.as_deref()).is_some_and(|(p, id)| p.index.by_id.contains_key(id));
            f.kind = Some(if fork { LinkKind::Fork } else { LinkKind::Spawn });
            if !fork {
                let created = h.get("timestamp").and_then(|v| v.as_str()).and_then(pi_session_format::js::parse_iso_ms);
                let site = parent.as_ref().and_then(|p| crate::forks::spawn::spawn_sites(p, &[Child { id: id.as_deref(), path: &real, created }]).pop().flatten()).filter(|s| !s.guess).unwrap_or_else(|| nf.site.clone());
                f.spawned_by = Some(site.entry_id);
                f.spawned_by_tool_call = site.tool_call_id;
            }
            out.push(f);
        }
    }
    out
}

/// The id of the first entry line of `child` (within its first 64 KB): a fork copies its
/// parent's path from the first entry on.
fn first_entry_id(child: &Path) -> Option<String> {
    let mut head = Vec::new();
    std::fs::File::open(child).and_then(|f| f.take(64 * 1024).read_to_end(&mut head)).ok()?;
    let text = String::from_utf8_lossy(&head);
    let first = text
        .split('\n')
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l.trim_matches(pi_session_format::js::is_js_space)).ok())
        .find(|v| v.get("type").and_then(|t| t.as_str()) != Some("session") && v.get("id").is_some_and(|id| id.is_string()));
    first.as_ref().and_then(|v| v["id"].as_str()).map(str::to_string)
}

/// Opens a child outside the roots for viewing: only a path that `outside` (the lineage's
/// children outside the roots) lists, and only as a read-only session (no write path accepts
/// it: every write is confined to a root). Returns the file resolved after links.
pub fn open_outside(path: &Path, outside: &[ForkInfo]) -> Result<(PathBuf, Session), Error> {
    let real = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
    let listed = outside.iter().any(|f| f.status == ForkStatus::OutsideRoots && std::fs::canonicalize(&f.path).is_ok_and(|p| p == real));
    if !listed {
        return Err(Error::OutsideRoot { path: path.to_path_buf(), root: PathBuf::new() });
    }
    let s = Session::open(&real)?;
    Ok((real, s))
}

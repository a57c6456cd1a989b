//! Listing a sessions root: the scan, the persistent cache, indexing what the cache cannot
//! answer, and the fork findings. The CLI (`list`, `forks`) and the app (the explorer's
//! snapshots) share this one path.
//!
//! Modules depend one way: [`crate::summary`] (one file) ← [`crate::cache`] ←
//! [`crate::forks`] ← this module.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use pi_session_format::diag::{DiagKind, Diagnostic};

use crate::cache::ListCache;
use crate::scan::{scan, Found, Scan};
use crate::summary::{index_all, sizes, Indexed, SessionSummary};

/// The `list` answer.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    #[serde(with = "crate::pathstr::serde_path")]
    pub root: PathBuf,
    pub sessions: Vec<SessionSummary>,
    /// Paths under the root that are not readable session files.
    pub other: Vec<PathFinding>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PathFinding {
    #[serde(with = "crate::pathstr::serde_path")]
    pub path: PathBuf,
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
}

/// Indexes every session under `root` in parallel (biggest files first) and summarises each,
/// without the persistent cache.
pub fn list(root: &Path) -> Listing {
    let Scan { files, findings } = scan(root);
    let results = index_all(sizes(&files), |_, _| {});
    assemble(root, results, findings)
}

/// Lists `root` using its persistent cache (loaded while the root is scanned): unchanged files
/// come from it, the others are indexed (in parallel, biggest first) and the cache is updated;
/// it comes back for the caller to save ([`ListCache::save_if_changed`]).
pub fn list_with_cache(root: &Path) -> (Listing, ListCache) {
    let (found, mut cache) = rayon::join(|| scan(root), || ListCache::load(root));
    let listing = list_cached(root, found, &mut cache, |_| false).listing;
    (listing, cache)
}

/// A listing from the cache, and the files left to index later.
pub struct CachedListing {
    pub listing: Listing,
    /// New or changed files that `defer` left out: listed with header-only summaries.
    pub deferred: Vec<Found>,
}

/// Lists a scan of `root` with its cache: unchanged files come from the cache; the others are
/// indexed now and stored, unless `defer(misses)` leaves them for later (a first start on a
/// big root): then they are listed with header-only summaries ([`SessionSummary::quick`]) and
/// come back in [`CachedListing::deferred`].
pub fn list_cached(root: &Path, Scan { files, findings }: Scan, cache: &mut ListCache, defer: impl FnOnce(&[Found]) -> bool) -> CachedListing {
    use rayon::prelude::*;
    let misses = cache.reconcile(&files);
    let mut quick: HashMap<PathBuf, SessionSummary> = HashMap::new();
    let mut failed: HashMap<PathBuf, crate::Error> = HashMap::new();
    let deferred = if !misses.is_empty() && defer(&misses) {
        quick = misses.par_iter().map(|f| (f.path.clone(), SessionSummary::quick(&f.path, f.size))).collect();
        misses
    } else {
        let (results, forks) = crate::forks::together::index_with_forks(root, &misses, |_, _| {});
        failed = cache.store(&misses, results).into_iter().collect();
        cache.store_forks(forks);
        Vec::new()
    };
    let results = files
        .iter()
        .map(|f| {
            let r = match (cache.files.get(&f.path), failed.remove(&f.path)) {
                (Some(c), _) => Ok(c.summary.clone()),
                (None, Some(e)) => Err(e),
                (None, None) => Ok(quick.remove(&f.path).unwrap_or_else(|| SessionSummary::quick(&f.path, f.size))),
            };
            (f.path.clone(), r)
        })
        .collect();
    CachedListing { listing: assemble(root, results, findings), deferred }
}

/// The listing of indexed files: sessions sorted by path, the rest (unreadable, not a
/// session) as findings, and each session's `parentSession` findings.
pub fn assemble(root: &Path, mut results: Vec<Indexed>, findings: Vec<(PathBuf, Diagnostic)>) -> Listing {
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut sessions = Vec::new();
    let mut other: Vec<PathFinding> = findings.into_iter().map(|(path, diagnostic)| PathFinding { path, diagnostic }).collect();
    for (path, r) in results {
        match r {
            Ok(s) => {
                if !s.is_session() && s.size > 0 {
                    other.push(PathFinding {
                        path,
                        diagnostic: Diagnostic::new(None, DiagKind::NotASession, "a .jsonl file without a pi session header or entries"),
                    });
                } else {
                    sessions.push(s);
                }
            }
            Err(e) => other.push(PathFinding { path, diagnostic: Diagnostic::new(None, DiagKind::Unreadable, e.to_string()) }),
        }
    }
    let fork_diags = crate::forks::fork_diagnostics(root, &sessions);
    for (s, d) in sessions.iter_mut().zip(fork_diags) {
        s.diagnostics.extend(d);
    }
    Listing { root: root.to_path_buf(), sessions, other }
}

/// The lineage of listed sessions, with comparisons of children and parents kept in the
/// listing cache (valid while both files are unchanged), so only new or changed children open
/// their files.
///
/// Only children whose file is in the cache (fully indexed) are compared; the others keep no
/// fork point and no kind until they are indexed. New comparisons run on all cores, one task
/// per parent.
pub fn fork_graph_cached(root: &Path, sessions: &[SessionSummary], cache: &mut ListCache) -> crate::forks::Lineage {
    use crate::cache::CachedFork;
    use crate::session::FileStamp;
    use rayon::prelude::*;
    let (mut out, parents) = crate::forks::relink::fork_links(root, sessions);
    let stamp = |p: &Path| std::fs::metadata(p).ok().map(|m| FileStamp::of(&m));
    // parent → (its stamp, children to compare)
    let mut todo: Vec<(PathBuf, Option<FileStamp>, Vec<usize>)> = Vec::new();
    let mut at: std::collections::HashMap<PathBuf, usize> = std::collections::HashMap::new();
    for i in 0..out.len() {
        let Some(parent_path) = parents[i].clone() else { continue };
        let Some(entry) = cache.files.get(&sessions[i].path) else { continue };
        let parent_stamp = stamp(&parent_path);
        match entry.fork.as_ref().filter(|f| f.parent == parent_path && Some(f.parent_stamp) == parent_stamp) {
            Some(f) => out[i].set_point(&f.point),
            None => {
                let k = *at.entry(parent_path.clone()).or_insert_with(|| {
                    todo.push((parent_path, parent_stamp, Vec::new()));
                    todo.len() - 1
                });
                todo[k].2.push(i);
            }
        }
    }
    let found: Vec<(PathBuf, Option<FileStamp>, Vec<(usize, crate::forks::Point)>)> = todo
        .into_par_iter()
        .map(|(parent_path, ps, kids)| {
            let Ok(parent) = crate::Session::open(&parent_path) else { return (parent_path, ps, Vec::new()) };
            let opened: Vec<(usize, crate::Session)> = kids.into_iter().filter_map(|i| crate::Session::open(&sessions[i].path).ok().map(|s| (i, s))).collect();
            let refs: Vec<&crate::Session> = opened.iter().map(|(_, s)| s).collect();
            let pts = crate::forks::points(&parent, &refs);
            (parent_path, ps, opened.iter().map(|(i, _)| *i).zip(pts).collect())
        })
        .collect();
    for (parent_path, ps, pts) in found {
        for (i, point) in pts {
            out[i].set_point(&point);
            if let (Some(entry), Some(ps)) = (cache.files.get_mut(&sessions[i].path), ps) {
                entry.fork = Some(CachedFork { parent: parent_path.clone(), parent_stamp: ps, point });
                cache.changed = true;
            }
        }
    }
    crate::forks::family::apply(sessions, &mut out);
    let outside = crate::forks::outside::children(&[root], sessions, &out);
    crate::forks::Lineage { links: out, outside }
}

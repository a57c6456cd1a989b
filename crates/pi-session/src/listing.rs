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
        failed = cache.store(&misses, index_all(sizes(&misses), |_, _| {})).into_iter().collect();
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

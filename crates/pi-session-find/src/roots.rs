//! Search over several sessions roots: one index per root (each in its own cache file, so a
//! root added or removed costs nothing to the others), queried in turn and merged into one
//! answer. Synced prefix copies that the listing shows once (the longer copy) are left out of
//! the hits too, so a search never finds the same lines twice.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::index::{SearchIndex, SearchIndexStatus, SearchResults};
use crate::Error;

/// The open indexes of the roots of a view, by root folder.
#[derive(Default)]
pub struct RootIndexes {
    open: Mutex<Vec<Arc<SearchIndex>>>,
}

impl RootIndexes {
    pub fn new() -> RootIndexes {
        RootIndexes::default()
    }

    /// The indexes of `roots`, in that order: those already open are reused, the others are
    /// opened (or created) in the cache folder; the indexes of roots not given are closed.
    pub fn of(&self, roots: &[PathBuf]) -> Result<Vec<Arc<SearchIndex>>, Error> {
        self.of_with(roots, |root| SearchIndex::open_default(root))
    }

    /// [`RootIndexes::of`] with the index file of each root chosen by `open`.
    pub fn of_with(&self, roots: &[PathBuf], open: impl Fn(&Path) -> Result<SearchIndex, Error>) -> Result<Vec<Arc<SearchIndex>>, Error> {
        let mut have = self.open.lock().unwrap();
        let mut out = Vec::with_capacity(roots.len());
        for root in roots {
            match have.iter().find(|ix| ix.root() == root.as_path()) {
                Some(ix) => out.push(ix.clone()),
                None => out.push(Arc::new(open(root)?)),
            }
        }
        *have = out.clone();
        Ok(out)
    }
}

/// Brings each index up to date (a stat per file, then only appended lines), unless its
/// background build is running or it is paused (then its search reads what it has not done).
pub fn update_all(indexes: &[Arc<SearchIndex>]) -> Result<(), Error> {
    for ix in indexes {
        if !ix.is_building() && !ix.is_paused() {
            ix.update(|_| {})?;
        }
    }
    Ok(())
}

/// Pauses or resumes every index's build.
pub fn set_paused_all(indexes: &[Arc<SearchIndex>], paused: bool) {
    for ix in indexes {
        ix.set_paused(paused);
    }
}

/// Search without indexes (turned off): every file of every root read; the answer says so
/// (`scanned_files`), with the order of several roots' answers as [`search_all`] gives it.
pub fn scan_all(roots: &[PathBuf], hidden: &HashSet<PathBuf>, query: &str, limit: usize) -> Result<SearchResults, Error> {
    let q = crate::query::Query::parse(query)?;
    let limit = limit.clamp(1, 10_000);
    let mut answers = Vec::with_capacity(roots.len());
    for root in roots {
        let files: Vec<PathBuf> = pi_session::scan::scan(root).files.into_iter().map(|f| f.path).filter(|p| !hidden.contains(p)).collect();
        let (sessions, truncated) = if q.is_empty() { (Vec::new(), false) } else { crate::scan::search_files(&files, &q, limit) };
        let total_hits = sessions.iter().map(|s| s.hits.len()).sum();
        answers.push(SearchResults { query: query.into(), sessions, total_hits, truncated, files_indexed: 0, scanned_files: files.len() });
    }
    Ok(merge(answers, hidden, query, limit))
}

/// Runs `query` on every index and merges the answers: at most `limit` hits, sessions in the
/// order of their newest hit (one root alone keeps its own order), files in `hidden` (copies
/// shown under another file) left out.
pub fn search_all(indexes: &[Arc<SearchIndex>], hidden: &HashSet<PathBuf>, query: &str, limit: usize) -> Result<SearchResults, Error> {
    ask_all(indexes, hidden, query, limit, SearchIndex::search)
}

/// [`search_all`] on the indexes as they are ([`SearchIndex::search_as_indexed`]).
pub fn search_all_as_indexed(indexes: &[Arc<SearchIndex>], hidden: &HashSet<PathBuf>, query: &str, limit: usize) -> Result<SearchResults, Error> {
    ask_all(indexes, hidden, query, limit, SearchIndex::search_as_indexed)
}

fn ask_all(indexes: &[Arc<SearchIndex>], hidden: &HashSet<PathBuf>, query: &str, limit: usize, ask: impl Fn(&SearchIndex, &str, usize) -> Result<SearchResults, Error>) -> Result<SearchResults, Error> {
    let limit = limit.clamp(1, 10_000);
    let mut answers = Vec::with_capacity(indexes.len());
    for ix in indexes {
        answers.push(ask(ix, query, limit)?);
    }
    Ok(merge(answers, hidden, query, limit))
}

fn merge(answers: Vec<SearchResults>, hidden: &HashSet<PathBuf>, query: &str, limit: usize) -> SearchResults {
    let files_indexed = answers.iter().map(|a| a.files_indexed).sum();
    let scanned_files = answers.iter().map(|a| a.scanned_files).sum();
    let mut truncated = answers.iter().any(|a| a.truncated);
    let several = answers.len() > 1;
    let mut sessions: Vec<_> = answers.into_iter().flat_map(|a| a.sessions).filter(|s| !hidden.contains(&pi_session::pathstr::decode(&s.path))).collect();
    if several {
        let newest = |s: &crate::index::SessionHits| s.hits.iter().filter_map(|h| h.ts).fold(f64::NEG_INFINITY, f64::max);
        sessions.sort_by(|a, b| newest(b).total_cmp(&newest(a)));
    }
    let mut left = limit;
    let mut kept = Vec::with_capacity(sessions.len());
    for mut s in sessions {
        if left == 0 {
            truncated = true;
            break;
        }
        if s.hits.len() > left {
            s.hits.truncate(left);
            truncated = true;
        }
        left -= s.hits.len();
        kept.push(s);
    }
    let total_hits = kept.iter().map(|s| s.hits.len()).sum();
    SearchResults { query: query.into(), sessions: kept, total_hits, truncated, files_indexed, scanned_files }
}

/// Ids of every entry of the file at `path` that `query` matches, from the index of the root
/// holding it (none when no root does).
pub fn hits_in_file_all(indexes: &[Arc<SearchIndex>], query: &str, path: &str) -> Result<Vec<String>, Error> {
    match indexes.iter().find(|ix| pi_session::pathstr::decode(path).starts_with(ix.root())) {
        Some(ix) => ix.hits_in_file(query, path),
        None => Ok(Vec::new()),
    }
}

/// The state of several indexes as one: building while any builds; files and bytes summed.
pub fn status_all(indexes: &[Arc<SearchIndex>]) -> Result<SearchIndexStatus, Error> {
    let mut s = SearchIndexStatus::default();
    for ix in indexes {
        s.building |= ix.is_building();
        s.paused |= ix.is_paused();
        let p = ix.progress();
        s.progress.done += p.done;
        s.progress.total += p.total;
        s.progress.bytes_done += p.bytes_done;
        s.progress.bytes_total += p.bytes_total;
        s.progress.estimated_bytes += p.estimated_bytes;
        s.progress.seconds_left = match (s.progress.seconds_left, p.seconds_left) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        s.files_indexed += ix.file_count()?;
        s.bytes_on_disk += ix.size_on_disk();
        // The most recent damage of any root's index.
        if let Some(d) = ix.damage() {
            if s.damaged.as_ref().is_none_or(|old| old.at < d.at) {
                s.damaged = Some(d);
            }
        }
    }
    Ok(s)
}

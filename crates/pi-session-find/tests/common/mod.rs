//! Helpers of the search tests: a generated corpus, and the answer of a query found by reading
//! every file (what the index must equal).
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pi_session_find::SearchIndex;

pub fn corpus(dir: &Path, files: usize, bytes: u64) -> PathBuf {
    pi_session_bench::corpus::generate(&pi_session_bench::corpus::Options { out: dir.to_path_buf(), seed: 7, files, total_bytes: bytes, big_entries: None, threads: 2, short: false }).unwrap();
    dir.join("sessions")
}

/// A generated corpus under `dir` and its index built in `dir/cache`: (root, database, index).
pub fn built(dir: &Path, files: usize, bytes: u64) -> (PathBuf, PathBuf, SearchIndex) {
    let root = corpus(&dir.join("corpus"), files, bytes);
    let db = dir.join("cache/search.sqlite");
    let ix = SearchIndex::open(&root, &db).unwrap();
    ix.update(|_| {}).unwrap();
    (root, db, ix)
}

/// (path, entry id, line) of every entry the query matches, by reading every file.
pub use pi_session_bench::brute::brute_force;

pub fn indexed(ix: &SearchIndex, q: &str) -> BTreeSet<(String, String, u32)> {
    let r = ix.search(q, 10_000).unwrap();
    assert!(!r.truncated, "{q}: more than 10,000 hits; pick a narrower query");
    r.sessions.iter().flat_map(|s| s.hits.iter().map(move |h| (s.path.clone(), h.id.clone(), h.line))).collect()
}

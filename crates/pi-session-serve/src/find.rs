//! The served roots' search indexes (the same as the window's, one per root, in the serving
//! machine's cache folder), opened on first use and brought up to date before each query:
//! only appended lines are read. Several roots are searched as one. With
//! `PI_SESSION_SEARCH_INDEX=off` no index is built and every search reads the files.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use pi_session::explorer::Explorer;
use pi_session_find::roots::{hits_in_file_all, scan_all, search_all, status_all, update_all};
use pi_session_find::{RootIndexes, SearchIndex, SearchIndexStatus};

use crate::ServeError;

#[derive(Default)]
pub struct Find {
    indexes: RootIndexes,
}

fn err(e: pi_session_find::Error) -> ServeError {
    ServeError::Core { code: e.error_code(), message: e.to_string() }
}

impl Find {
    fn indexes(&self, ex: &Explorer) -> Result<Vec<Arc<SearchIndex>>, ServeError> {
        let roots: Vec<PathBuf> = ex.roots().specs().iter().map(|s| s.path.clone()).collect();
        self.indexes.of(&roots).map_err(err)
    }

    /// The indexes, brought up to date first (a stat per file, then only what was appended).
    fn updated(&self, ex: &Explorer) -> Result<Vec<Arc<SearchIndex>>, ServeError> {
        let ixs = self.indexes(ex)?;
        update_all(&ixs).map_err(err)?;
        Ok(ixs)
    }

    pub fn status(&self, ex: &Explorer) -> Result<SearchIndexStatus, ServeError> {
        if !pi_session_find::settings::enabled_by_env() {
            return Ok(SearchIndexStatus { off: true, ..Default::default() });
        }
        status_all(&self.indexes(ex)?).map_err(err)
    }

    pub fn search(&self, ex: &Explorer, query: &str, limit: usize) -> Result<pi_session_find::SearchResults, ServeError> {
        let hidden: HashSet<PathBuf> = ex.shadowed_copies().into_iter().map(|(p, _)| p).collect();
        if !pi_session_find::settings::enabled_by_env() {
            let roots: Vec<PathBuf> = ex.roots().specs().iter().map(|s| s.path.clone()).collect();
            return scan_all(&roots, &hidden, query, limit).map_err(err);
        }
        let ixs = self.updated(ex)?;
        search_all(&ixs, &hidden, query, limit).map_err(err)
    }

    pub fn hits_in_file(&self, ex: &Explorer, query: &str, path: &str) -> Result<Vec<String>, ServeError> {
        // Confined to the roots like every path argument; each index keys files as listed.
        let real = ex.resolve(path).map_err(crate::commands::core)?;
        if !pi_session_find::settings::enabled_by_env() {
            let q = pi_session_find::Query::parse(query).map_err(err)?;
            return Ok(pi_session_find::scan::search_file(&real, &q, 100_000).map(|g| g.hits.into_iter().map(|h| h.id).collect()).unwrap_or_default());
        }
        hits_in_file_all(&self.updated(ex)?, query, path).map_err(err)
    }
}

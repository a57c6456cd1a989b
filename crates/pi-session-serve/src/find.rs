//! The served root's full-text index (the same SQLite FTS5 index as the window's, in the
//! serving machine's cache folder), opened on first use and brought up to date before each
//! query: only appended lines are read.

use std::sync::{Arc, Mutex};

use pi_session::explorer::Explorer;
use pi_session_find::{SearchIndex, SearchIndexStatus};

use crate::ServeError;

#[derive(Default)]
pub struct Find {
    index: Mutex<Option<Arc<SearchIndex>>>,
}

fn err(e: pi_session_find::Error) -> ServeError {
    ServeError::Core { code: e.code().to_string(), message: e.to_string() }
}

impl Find {
    fn index(&self, ex: &Explorer) -> Result<Arc<SearchIndex>, ServeError> {
        let mut open = self.index.lock().unwrap();
        if let Some(ix) = open.as_ref() {
            return Ok(ix.clone());
        }
        let ix = Arc::new(SearchIndex::open_default(ex.root()).map_err(err)?);
        *open = Some(ix.clone());
        Ok(ix)
    }

    /// The index, brought up to date first (a stat per file, then only what was appended).
    pub fn updated(&self, ex: &Explorer) -> Result<Arc<SearchIndex>, ServeError> {
        let ix = self.index(ex)?;
        if !ix.is_building() {
            ix.update(|_| {}).map_err(err)?;
        }
        Ok(ix)
    }

    pub fn status(&self, ex: &Explorer) -> Result<SearchIndexStatus, ServeError> {
        let ix = self.index(ex)?;
        Ok(SearchIndexStatus { building: ix.is_building(), files_indexed: ix.file_count().map_err(err)?, bytes_on_disk: ix.size_on_disk(), ..Default::default() })
    }

    pub fn search(&self, ex: &Explorer, query: &str, limit: usize) -> Result<pi_session_find::SearchResults, ServeError> {
        self.updated(ex)?.search(query, limit).map_err(err)
    }

    pub fn hits_in_file(&self, ex: &Explorer, query: &str, path: &str) -> Result<Vec<String>, ServeError> {
        // Confined to the root like every path argument; the index keys files as listed.
        ex.resolve(path).map_err(crate::commands::core)?;
        self.updated(ex)?.hits_in_file(query, path).map_err(err)
    }
}

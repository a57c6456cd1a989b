//! The search indexes of the explorer's roots and the organiser's database, as the window and
//! `pi-session serve` both hold them: one SQLite FTS5 index per root (in the cache folder), opened
//! on first use and brought up to date before each query (a stat per file, then only appended
//! lines); several roots searched as one. The window also builds them in the background and
//! keeps tags, pins and archive marks in its data folder ([`FindState::with_organiser`]).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pi_session_find::background::at_low_priority;
use pi_session_find::damage::SetAside;
use pi_session_find::organise::Organiser;
use pi_session_find::roots::{hits_in_file_all, search_all, status_all, update_all};
use pi_session_find::{RootIndexes, SearchIndex, SearchIndexProgress, SearchIndexStatus, SearchResults};

use crate::api::ApiError;
use crate::explorer::Explorer;

type R<T> = Result<T, ApiError>;

/// Opened on first use (a window that never searches or tags creates no database). Each root
/// of the view has its own index (another folder opened in the window gets its own too). The
/// organiser's database is opened again on each use until it opens: a damaged one answers
/// `organiser-damaged` until the user sets it aside.
#[derive(Default)]
pub struct FindState {
    indexes: RootIndexes,
    /// The background build's state (the window's).
    status: Arc<Mutex<SearchIndexStatus>>,
    /// The organiser's database file, when there is one (the window's data folder).
    organiser_db: Option<PathBuf>,
    organiser: Mutex<Option<Arc<Organiser>>>,
}

fn roots_of(ex: &Explorer) -> Vec<PathBuf> {
    ex.roots().specs().iter().map(|s| s.path.clone()).collect()
}

impl FindState {
    /// Indexes only (no tags, pins or archive marks).
    pub fn new() -> FindState {
        FindState::default()
    }

    /// Indexes, and the organiser's database at `db`.
    pub fn with_organiser(db: PathBuf) -> FindState {
        FindState { organiser_db: Some(db), ..FindState::default() }
    }

    /// The indexes of the explorer's roots, opened when first asked for.
    pub fn indexes(&self, ex: &Explorer) -> R<Vec<Arc<SearchIndex>>> {
        Ok(self.indexes.of(&roots_of(ex))?)
    }

    /// The indexes, each brought up to date first.
    pub fn updated(&self, ex: &Explorer) -> R<Vec<Arc<SearchIndex>>> {
        let ixs = self.indexes(ex)?;
        update_all(&ixs)?;
        Ok(ixs)
    }

    /// The indexes' own status: files, size on disk, damage, whether one is building.
    pub fn index_status(&self, ex: &Explorer) -> R<SearchIndexStatus> {
        Ok(status_all(&self.indexes(ex)?)?)
    }

    /// The background build's status ([`FindState::build`]) with the indexes' files, size on
    /// disk and damage.
    pub fn status(&self, ex: &Explorer) -> R<SearchIndexStatus> {
        let all = self.index_status(ex)?;
        let mut s = self.status.lock().unwrap().clone();
        s.files_indexed = all.files_indexed;
        s.bytes_on_disk = all.bytes_on_disk;
        s.damaged = all.damaged;
        Ok(s)
    }

    /// Runs a query on the indexes of every root, each brought up to date first. Synced copies
    /// that the list shows once are left out of the hits.
    pub fn search(&self, ex: &Explorer, query: &str, limit: usize) -> R<SearchResults> {
        let ixs = self.updated(ex)?;
        let hidden: HashSet<PathBuf> = ex.shadowed_copies().into_iter().map(|(p, _)| p).collect();
        Ok(search_all(&ixs, &hidden, query, limit)?)
    }

    /// Ids of every entry of one session that a query matches (the bands in the tree), from the
    /// indexes as they are (the window's searches bring them up to date). The path is confined
    /// to the roots like every path argument; each index keys files as listed.
    pub fn hits_in_file(&self, ex: &Explorer, query: &str, path: &str) -> R<Vec<String>> {
        ex.resolve(path)?;
        Ok(hits_in_file_all(&self.indexes(ex)?, query, path)?)
    }

    /// [`FindState::hits_in_file`] from the indexes brought up to date first.
    pub fn hits_in_file_updated(&self, ex: &Explorer, query: &str, path: &str) -> R<Vec<String>> {
        ex.resolve(path)?;
        Ok(hits_in_file_all(&self.updated(ex)?, query, path)?)
    }

    /// Builds or updates the index of every root at the lowest CPU priority (the window, the
    /// listing and opened sessions go first), reporting the files done over the files to do,
    /// across the roots, to `progress`.
    pub fn build(&self, ex: &Explorer, progress: impl Fn(SearchIndexProgress) + Sync) {
        // Opening an index may recover its write-ahead log: background work too.
        let Ok(ixs) = at_low_priority(|| self.indexes(ex)) else { return };
        let status = self.status.clone();
        status.lock().unwrap().building = true;
        let mut before = SearchIndexProgress::default();
        let mut error = None;
        for ix in &ixs {
            let r = at_low_priority(|| {
                ix.update(|p| {
                    let all = SearchIndexProgress { done: before.done + p.done, total: before.total + p.total };
                    status.lock().unwrap().progress = all;
                    progress(all);
                })
            });
            before = status.lock().unwrap().progress;
            if let Err(e) = r {
                error = Some(e.to_string());
            }
        }
        let all = status_all(&ixs).unwrap_or_default();
        let mut s = status.lock().unwrap();
        s.building = false;
        s.error = error;
        s.files_indexed = all.files_indexed;
        s.bytes_on_disk = all.bytes_on_disk;
        s.damaged = all.damaged;
        progress(SearchIndexProgress { done: s.progress.total, total: s.progress.total });
    }

    /// The organiser (tags, pins, archive), opened on first use; `no-folder` without a database.
    pub fn organiser(&self) -> R<Arc<Organiser>> {
        let db = self.organiser_db.as_ref().ok_or(pi_session_find::Error::NoFolder)?;
        let mut o = self.organiser.lock().unwrap();
        if let Some(o) = o.as_ref() {
            return Ok(o.clone());
        }
        let opened = Arc::new(Organiser::open(db)?);
        *o = Some(opened.clone());
        Ok(opened)
    }

    /// Sets the damaged organiser database aside (renamed beside itself, never deleted); the
    /// next use starts a new one.
    pub fn set_aside_organiser(&self) -> R<SetAside> {
        let db = self.organiser_db.as_ref().ok_or(pi_session_find::Error::NoFolder)?;
        let mut o = self.organiser.lock().unwrap();
        // Our own connection closed first (on our side nothing writes to the file again).
        *o = None;
        Ok(pi_session_find::organise::set_aside(db)?)
    }
}

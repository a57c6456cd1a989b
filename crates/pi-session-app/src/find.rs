//! The search indexes of the explorer's roots and the organiser's database, as the window and
//! `pi-session serve` both hold them: one search index per root (posting lists in the cache
//! folder, no stored text), opened on first use and brought up to date before each query (a
//! stat per file, then only appended lines); several roots searched as one. The window also
//! builds them in the background, can pause that build or turn the index off (its choice kept
//! in its data folder, `search.json`), and keeps tags, pins and archive marks in its data folder
//! ([`FindState::window`]). `PI_SESSION_SEARCH_INDEX=off` turns the index off in either shell:
//! then nothing is built or opened and every search reads the files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use pi_session_find::background::at_low_priority;
use pi_session_find::damage::SetAside;
use pi_session_find::organise::Organiser;
use pi_session_find::roots::{hits_in_file_all, scan_all, search_all, set_paused_all, status_all, update_all};
use pi_session_find::settings::{self, SearchSettings};
use pi_session_find::{Query, RootIndexes, SearchIndex, SearchIndexProgress, SearchIndexStatus, SearchResults};

use crate::api::ApiError;
use crate::explorer::Explorer;

type R<T> = Result<T, ApiError>;

/// Opened on first use (a window that never searches or tags creates no database). Each root
/// of the view has its own index (another folder opened in the window gets its own too). The
/// organiser's database is opened again on each use until it opens: a damaged one answers
/// `organiser-damaged` until the user sets it aside.
pub struct FindState {
    indexes: RootIndexes,
    /// The background build's state (the window's).
    status: Arc<Mutex<SearchIndexStatus>>,
    /// The organiser's database file, when there is one (the window's data folder).
    organiser_db: Option<PathBuf>,
    organiser: Mutex<Option<Arc<Organiser>>>,
    /// The window's data folder, where its choice of index on or off is kept.
    settings_dir: Option<PathBuf>,
    /// The window's choice (the environment may still turn the index off).
    enabled: Mutex<bool>,
    /// Paused from the window: a build stops after its batch, and none starts until resumed.
    paused: Mutex<bool>,
    /// Held by the build under way: a second one waits for it on its own thread, outside the
    /// background pool. (Inside the pool it would be work that a pool thread waiting in a
    /// parallel part of the first build could take up, while that thread holds the index's
    /// connection the second one needs.)
    one_build: Mutex<()>,
}

impl Default for FindState {
    fn default() -> Self {
        FindState { indexes: RootIndexes::new(), status: Arc::default(), organiser_db: None, organiser: Mutex::new(None), settings_dir: None, enabled: Mutex::new(true), paused: Mutex::new(false), one_build: Mutex::new(()) }
    }
}

fn roots_of(ex: &Explorer) -> Vec<PathBuf> {
    ex.roots().specs().iter().map(|s| s.path.clone()).collect()
}

impl FindState {
    /// Indexes only (no tags, pins or archive marks).
    pub fn new() -> FindState {
        FindState::default()
    }

    /// The window's: indexes, the organiser's database (`organise.sqlite`) and the choice of
    /// index on or off (`search.json`) in `data_dir`.
    pub fn window(data_dir: &Path) -> FindState {
        FindState { organiser_db: Some(data_dir.join("organise.sqlite")), enabled: Mutex::new(settings::load(data_dir).index), settings_dir: Some(data_dir.to_path_buf()), ..FindState::default() }
    }

    /// The index is on: the window's choice and the environment agree.
    pub fn enabled(&self) -> bool {
        *self.enabled.lock().unwrap() && settings::enabled_by_env()
    }

    fn is_paused(&self) -> bool {
        *self.paused.lock().unwrap()
    }

    /// The indexes of the explorer's roots, opened when first asked for (paused as the window
    /// asked).
    pub fn indexes(&self, ex: &Explorer) -> R<Vec<Arc<SearchIndex>>> {
        let ixs = self.indexes.of(&roots_of(ex))?;
        set_paused_all(&ixs, self.is_paused());
        Ok(ixs)
    }

    /// The indexes, each brought up to date first.
    pub fn updated(&self, ex: &Explorer) -> R<Vec<Arc<SearchIndex>>> {
        let ixs = self.indexes(ex)?;
        update_all(&ixs)?;
        Ok(ixs)
    }

    /// The indexes' own status: files, size on disk, damage, whether one is building; `off`
    /// when the index is turned off.
    pub fn index_status(&self, ex: &Explorer) -> R<SearchIndexStatus> {
        if !self.enabled() {
            return Ok(SearchIndexStatus { off: true, ..Default::default() });
        }
        Ok(status_all(&self.indexes(ex)?)?)
    }

    /// The background build's status ([`FindState::build`]) with the indexes' files, size on
    /// disk and damage, whether it is paused; `off` when the index is turned off.
    pub fn status(&self, ex: &Explorer) -> R<SearchIndexStatus> {
        if !self.enabled() {
            return Ok(SearchIndexStatus { off: true, ..Default::default() });
        }
        let all = self.index_status(ex)?;
        let mut s = self.status.lock().unwrap().clone();
        s.paused = self.is_paused();
        s.files_indexed = all.files_indexed;
        s.bytes_on_disk = all.bytes_on_disk;
        s.damaged = all.damaged;
        if s.building {
            s.progress = all.progress;
        }
        Ok(s)
    }

    /// Runs a query on the indexes of every root, each brought up to date first (unless paused
    /// or building: then the files it has not done are read). Synced copies that the list
    /// shows once are left out of the hits. With the index off, every file is read (the
    /// answer's `scannedFiles` says how many).
    pub fn search(&self, ex: &Explorer, query: &str, limit: usize) -> R<SearchResults> {
        let hidden: HashSet<PathBuf> = ex.shadowed_copies().into_iter().map(|(p, _)| p).collect();
        if !self.enabled() {
            return Ok(scan_all(&roots_of(ex), &hidden, query, limit)?);
        }
        let ixs = self.updated(ex)?;
        Ok(search_all(&ixs, &hidden, query, limit)?)
    }

    /// Ids of every entry of one session that a query matches (the bands in the tree), from the
    /// indexes as they are (the window's searches bring them up to date), or by reading the
    /// file with the index off. The path is confined to the roots like every path argument;
    /// each index keys files as listed.
    pub fn hits_in_file(&self, ex: &Explorer, query: &str, path: &str) -> R<Vec<String>> {
        let real = ex.resolve(path)?;
        if !self.enabled() {
            return read_hits(&real, query);
        }
        Ok(hits_in_file_all(&self.indexes(ex)?, query, path)?)
    }

    /// [`FindState::hits_in_file`] from the indexes brought up to date first.
    pub fn hits_in_file_updated(&self, ex: &Explorer, query: &str, path: &str) -> R<Vec<String>> {
        let real = ex.resolve(path)?;
        if !self.enabled() {
            return read_hits(&real, query);
        }
        Ok(hits_in_file_all(&self.updated(ex)?, query, path)?)
    }

    /// Says a build is on its way (before its thread starts: the status a caller reads right
    /// after resuming or starting one says so), or not after all (its thread did not start).
    pub fn set_build_pending(&self, pending: bool) {
        if !pending || (self.enabled() && !self.is_paused()) {
            self.status.lock().unwrap().building = pending;
        }
    }

    /// Pauses the build (it stops after the batch it is on, keeping what it did; searches read
    /// the files it has not done) or resumes it. True when a build should start now.
    pub fn set_paused(&self, ex: &Explorer, paused: bool) -> R<bool> {
        *self.paused.lock().unwrap() = paused;
        if !self.enabled() {
            return Ok(false);
        }
        set_paused_all(&self.indexes(ex)?, paused);
        Ok(!paused)
    }

    /// Turns the index on or off, remembered in the data folder (`no-folder` without one).
    /// Off, a running build stops at its next batch and no index is opened again. True when a
    /// build should start now.
    pub fn set_enabled(&self, ex: &Explorer, enabled: bool) -> R<bool> {
        let dir = self.settings_dir.as_ref().ok_or(pi_session_find::Error::NoFolder)?;
        settings::save(dir, SearchSettings { index: enabled }).map_err(|e| pi_session::Error::io(&settings::file(dir), e))?;
        *self.enabled.lock().unwrap() = enabled;
        if self.enabled() {
            return Ok(!self.is_paused());
        }
        // A running build stops at its next batch (the indexes already open only).
        if let Ok(ixs) = self.indexes.of(&roots_of(ex)) {
            set_paused_all(&ixs, true);
        }
        Ok(false)
    }

    /// Builds or updates the index of every root at the lowest CPU priority (the window, the
    /// listing and opened sessions go first), reporting the files and bytes done over those to
    /// do, across the roots, with the estimated size and time left, to `progress`. Nothing when
    /// the index is off or paused. A build asked for while one is under way waits for it.
    pub fn build(&self, ex: &Explorer, progress: impl Fn(SearchIndexProgress) + Sync) {
        let _one = self.one_build.lock().unwrap_or_else(|e| e.into_inner());
        let status = self.status.clone();
        if !self.enabled() || self.is_paused() {
            status.lock().unwrap().building = false;
            return;
        }
        // Opening an index may recover its write-ahead log: background work too.
        let Ok(ixs) = at_low_priority(|| self.indexes(ex)) else {
            status.lock().unwrap().building = false;
            return;
        };
        status.lock().unwrap().building = true;
        let mut before = SearchIndexProgress::default();
        let mut error = None;
        for ix in &ixs {
            let r = at_low_priority(|| {
                ix.update(|p| {
                    let all = SearchIndexProgress {
                        done: before.done + p.done,
                        total: before.total + p.total,
                        bytes_done: before.bytes_done + p.bytes_done,
                        bytes_total: before.bytes_total + p.bytes_total,
                        estimated_bytes: before.estimated_bytes + p.estimated_bytes,
                        seconds_left: p.seconds_left,
                    };
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
        // Stopped by the off switch is not paused: nothing is left to show.
        s.paused = all.paused && self.enabled();
        progress(SearchIndexProgress { done: if s.paused { s.progress.done } else { s.progress.total }, seconds_left: None, ..s.progress });
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

/// Ids of the entries of one file a query matches, by reading it (the index turned off).
fn read_hits(real: &Path, query: &str) -> R<Vec<String>> {
    let q = Query::parse(query)?;
    Ok(pi_session_find::scan::search_file(real, &q, 100_000).map(|g| g.hits.into_iter().map(|h| h.id).collect()).unwrap_or_default())
}

//! Commands of issue 14: the indexed search, the dashboard, tags/pin/archive (export: export.rs).
//! The state is built beside the explorer's; the index builds in the background after the
//! listing and is brought up to date (incrementally) before each query.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pi_session::api::ApiError;
use pi_session::dashboard::{Dashboard, DashboardQuery};
use pi_session_find::background::at_low_priority;
use pi_session_find::moves::{plan_archived, MoveBatch, MoveItem, MovePlan};
use pi_session_find::damage::SetAside;
use pi_session_find::organise::{MarkFilter, MarkSelection, Marks, Organiser, TagCount};
use pi_session::explorer::Explorer;
use pi_session_find::roots::{hits_in_file_all, search_all, status_all, update_all};
use pi_session_find::{RootIndexes, SearchIndex, SearchIndexProgress, SearchIndexStatus, SearchResults};
use tauri::{Emitter, State};

use crate::AppState;

type R<T> = Result<T, ApiError>;

/// Opened on first use (a window that never searches or tags creates no database). Each root
/// of the view has its own index (another folder opened in the window gets its own too). The
/// organiser's database is opened again on each use until it opens: a damaged one answers
/// `organiser-damaged` until the user sets it aside.
pub struct FindState {
    indexes: RootIndexes,
    organiser: Mutex<Option<Arc<Organiser>>>,
    status: Arc<Mutex<SearchIndexStatus>>,
}

fn organiser_db() -> PathBuf {
    crate::data_dir().join("organise.sqlite")
}

fn roots_of(ex: &Explorer) -> Vec<PathBuf> {
    ex.roots().specs().iter().map(|s| s.path.clone()).collect()
}

impl FindState {
    pub fn new() -> FindState {
        FindState { indexes: RootIndexes::new(), organiser: Mutex::new(None), status: Arc::new(Mutex::new(SearchIndexStatus::default())) }
    }

    /// The indexes of the explorer's roots, opened when first asked for.
    fn indexes(&self, ex: &Explorer) -> R<Vec<Arc<SearchIndex>>> {
        Ok(self.indexes.of(&roots_of(ex))?)
    }

    fn organiser(&self) -> R<Arc<Organiser>> {
        let mut o = self.organiser.lock().unwrap();
        if let Some(o) = o.as_ref() {
            return Ok(o.clone());
        }
        let opened = Arc::new(Organiser::open(&organiser_db())?);
        *o = Some(opened.clone());
        Ok(opened)
    }

    /// Sets the damaged organiser database aside (renamed beside itself, never deleted); the
    /// next use starts a new one.
    fn set_aside_organiser(&self) -> R<SetAside> {
        let mut o = self.organiser.lock().unwrap();
        // Our own connection closed first (on our side nothing writes to the file again).
        *o = None;
        Ok(pi_session_find::organise::set_aside(&organiser_db())?)
    }

    /// Builds or updates the index of every root, reporting `search-index-progress` events
    /// (files done over files to do, across the roots).
    pub fn build<R: tauri::Runtime>(&self, app: &tauri::AppHandle<R>, ex: &Explorer) {
        // Opening an index may recover its write-ahead log: background work too.
        let Ok(ixs) = at_low_priority(|| self.indexes(ex)) else { return };
        let status = self.status.clone();
        status.lock().unwrap().building = true;
        let mut before = SearchIndexProgress::default();
        let mut error = None;
        for ix in &ixs {
            // At the lowest CPU priority: the window, the listing and opened sessions go first.
            let r = at_low_priority(|| {
                ix.update(|p| {
                    let all = SearchIndexProgress { done: before.done + p.done, total: before.total + p.total };
                    status.lock().unwrap().progress = all;
                    let _ = app.emit("search-index-progress", all);
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
        let _ = app.emit("search-index-progress", SearchIndexProgress { done: s.progress.total, total: s.progress.total });
    }
}

#[tauri::command(async)]
pub fn search_index_status(state: State<'_, AppState>, find: State<'_, FindState>) -> R<SearchIndexStatus> {
    let all = status_all(&find.indexes(&state.explorer())?)?;
    let mut s = find.status.lock().unwrap().clone();
    s.files_indexed = all.files_indexed;
    s.bytes_on_disk = all.bytes_on_disk;
    s.damaged = all.damaged;
    Ok(s)
}

/// Runs a query on the indexes of every root; unless a background build is running, each
/// index first takes in what changed (a stat per file, then only appended lines). Synced
/// copies that the list shows once are left out of the hits.
#[tauri::command(async)]
pub fn search_indexed(state: State<'_, AppState>, find: State<'_, FindState>, query: String, limit: u32) -> R<SearchResults> {
    let ex = state.explorer();
    let ixs = find.indexes(&ex)?;
    update_all(&ixs)?;
    let hidden: HashSet<PathBuf> = ex.shadowed_copies().into_iter().map(|(p, _)| p).collect();
    Ok(search_all(&ixs, &hidden, &query, limit as usize)?)
}

/// Ids of every entry of one session that a query matches (the bands in the tree).
#[tauri::command(async)]
pub fn search_hits_in_session(state: State<'_, AppState>, find: State<'_, FindState>, path: String, query: String) -> R<Vec<String>> {
    let ex = state.explorer();
    ex.resolve(&path)?;
    Ok(hits_in_file_all(&find.indexes(&ex)?, &query, &path)?)
}

#[tauri::command(async)]
pub fn dashboard(state: State<'_, AppState>, query: DashboardQuery) -> Dashboard {
    state.explorer().dashboard(&query)
}

#[tauri::command(async)]
pub fn session_marks(find: State<'_, FindState>) -> R<BTreeMap<String, Marks>> {
    Ok(find.organiser()?.all()?)
}

/// Sets a damaged database of tags, pins and archive marks aside (kept, renamed beside itself)
/// and starts a new, empty one: what the banner of an `organiser-damaged` answer offers.
/// Refused (`invalid`) when the file is not damaged.
#[tauri::command(async)]
pub fn set_aside_organiser(find: State<'_, FindState>) -> R<SetAside> {
    find.set_aside_organiser()
}

/// Which sessions the list's filters keep (archived, pinned, tags, tag text).
#[tauri::command(async)]
pub fn select_sessions(find: State<'_, FindState>, filter: MarkFilter) -> R<MarkSelection> {
    Ok(find.organiser()?.select(&filter)?)
}

#[tauri::command(async)]
pub fn session_tags(find: State<'_, FindState>) -> R<Vec<TagCount>> {
    Ok(find.organiser()?.tags()?)
}

#[tauri::command(async)]
pub fn add_session_tag(find: State<'_, FindState>, session_id: String, tag: String) -> R<Marks> {
    Ok(find.organiser()?.add_tag(&session_id, &tag)?)
}

#[tauri::command(async)]
pub fn remove_session_tag(find: State<'_, FindState>, session_id: String, tag: String) -> R<Marks> {
    Ok(find.organiser()?.remove_tag(&session_id, &tag)?)
}

#[tauri::command(async)]
pub fn set_session_pinned(find: State<'_, FindState>, session_id: String, pinned: bool) -> R<Marks> {
    Ok(find.organiser()?.set_pinned(&session_id, pinned)?)
}

#[tauri::command(async)]
pub fn set_session_archived(find: State<'_, FindState>, session_id: String, archived: bool) -> R<Marks> {
    Ok(find.organiser()?.set_archived(&session_id, archived)?)
}

fn listed(ex: &Explorer) -> Vec<(Option<String>, PathBuf)> {
    ex.list_sessions(None).sessions.into_iter().map(|r| (r.id, pi_session::pathstr::decode(&r.path))).collect()
}

fn refuse_read_only(ex: &Explorer) -> R<()> {
    if ex.is_read_only() {
        return Err(ApiError::from(pi_session::Error::ReadOnlyMode));
    }
    Ok(())
}

/// What moving the archived sessions' files out of their roots would do (to confirm first).
#[tauri::command(async)]
pub fn plan_archive_move(state: State<'_, AppState>, find: State<'_, FindState>) -> R<MovePlan> {
    let ex = state.explorer();
    Ok(plan_archived(&*find.organiser()?, &listed(&ex), &ex.roots(), ex.is_read_only())?)
}

/// Moves the files of the archived sessions in `paths` (as planned) out of their roots.
#[tauri::command(async)]
pub fn move_archived_files(state: State<'_, AppState>, find: State<'_, FindState>, paths: Vec<String>) -> R<MoveBatch> {
    let ex = state.explorer();
    refuse_read_only(&ex)?;
    let org = find.organiser()?;
    let plan = plan_archived(&org, &listed(&ex), &ex.roots(), false)?;
    let items: Vec<MoveItem> = plan.items.into_iter().filter(|i| paths.contains(&i.from)).collect();
    let batch = org.move_files(&items)?;
    ex.root_changed();
    Ok(batch)
}

/// Moves the files of a recorded move back.
#[tauri::command(async)]
pub fn undo_move(state: State<'_, AppState>, find: State<'_, FindState>, batch: i64) -> R<MoveBatch> {
    let ex = state.explorer();
    refuse_read_only(&ex)?;
    let b = find.organiser()?.undo_move(batch)?;
    ex.root_changed();
    Ok(b)
}

/// The last moves that can be undone, newest first.
#[tauri::command(async)]
pub fn recent_moves(find: State<'_, FindState>) -> R<Vec<MoveBatch>> {
    Ok(find.organiser()?.recent_moves(5)?)
}

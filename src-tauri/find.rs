//! Commands of issue 14: the indexed search, the dashboard, tags/pin/archive and export.
//! The state is built beside the explorer's; the index builds in the background after the
//! listing and is brought up to date (incrementally) before each query.

use std::collections::BTreeMap;
use std::path::PathBuf;

use pi_session::dashboard::{Dashboard, DashboardQuery};
use pi_session_app::api::ApiError;
use pi_session_app::explorer::Explorer;
use pi_session_app::find::FindState;
use pi_session_find::damage::SetAside;
use pi_session_find::moves::{plan_archived, MoveBatch, MoveItem, MovePlan};
use pi_session_find::organise::{MarkFilter, MarkSelection, Marks, TagCount};
use pi_session_find::{SearchIndexStatus, SearchResults};
use tauri::{Emitter, State};

use crate::AppState;

type R<T> = Result<T, ApiError>;

/// The find state of the window: the app's, with the organiser's database in the data folder.
pub fn find_state() -> FindState {
    FindState::with_organiser(crate::data_dir().join("organise.sqlite"))
}

/// Builds or updates the index of every root, reporting `search-index-progress` events
/// (files done over files to do, across the roots).
pub fn build<R: tauri::Runtime>(find: &FindState, app: &tauri::AppHandle<R>, ex: &Explorer) {
    find.build(ex, |p| {
        let _ = app.emit("search-index-progress", p);
    });
}

#[tauri::command(async)]
pub fn search_index_status(state: State<'_, AppState>, find: State<'_, FindState>) -> R<SearchIndexStatus> {
    find.status(&state.explorer())
}

/// Runs a query on the indexes of every root; unless a background build is running, each
/// index first takes in what changed (a stat per file, then only appended lines). Synced
/// copies that the list shows once are left out of the hits.
#[tauri::command(async)]
pub fn search_indexed(state: State<'_, AppState>, find: State<'_, FindState>, query: String, limit: u32) -> R<SearchResults> {
    find.search(&state.explorer(), &query, limit as usize)
}

/// Ids of every entry of one session that a query matches (the bands in the tree).
#[tauri::command(async)]
pub fn search_hits_in_session(state: State<'_, AppState>, find: State<'_, FindState>, path: String, query: String) -> R<Vec<String>> {
    find.hits_in_file(&state.explorer(), &query, &path)
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

/// Where exports go: `$PI_EXPLORER_EXPORT_DIR`, else the Downloads folder, else the app's data folder.
fn export_dir() -> PathBuf {
    std::env::var_os("PI_EXPLORER_EXPORT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::download_dir)
        .unwrap_or_else(|| crate::data_dir().join("exports"))
}

/// Exports a path (`leaf_id`, default the session's leaf) or the whole tree (`tree`) as
/// `html` or `md` into the export folder; returns the file written.
#[tauri::command(async)]
pub fn export_session(state: State<'_, AppState>, path: String, leaf_id: Option<String>, tree: bool, format: String) -> R<pi_session::export::ExportResult> {
    use pi_session::export::{to_html, to_markdown, write_out, Scope};
    let real = state.explorer().resolve(&path)?;
    let s = pi_session::Session::open(&real)?;
    let scope = if tree { Scope::Tree } else { Scope::Path(s.resolve_leaf(leaf_id.as_deref().map(Some))?) };
    let (text, ext) = match format.as_str() {
        "html" => (to_html(&s, scope)?, "html"),
        "md" => (to_markdown(&s, scope)?, "md"),
        other => return Err(ApiError { code: pi_session_app::api::ErrorCode::Invalid, message: format!("unknown export format {other:?} (html or md)") }),
    };
    let dir = export_dir();
    std::fs::create_dir_all(&dir).map_err(|e| ApiError::from(pi_session::Error::io(&dir, e)))?;
    let stem = real.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "session".into());
    let out = dir.join(format!("{stem}{}.{ext}", if tree { "-tree" } else { "" }));
    write_out(&out, &text)?;
    Ok(pi_session::export::ExportResult { out: out.to_string_lossy().into_owned(), bytes: text.len() as u32 })
}

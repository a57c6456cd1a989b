//! The app's commands: each takes the state, calls the core, maps the error to `{code, message}`.
//! Work runs off the main thread (`async`), so a large file never freezes the window.

use pi_session_app::api::*;
use tauri::State;

use crate::AppState;

type R<T> = Result<T, ApiError>;

#[tauri::command(async)]
pub fn app_info(state: State<'_, AppState>) -> AppInfo {
    state.explorer().app_info()
}

#[tauri::command(async)]
pub fn list_sessions(state: State<'_, AppState>, limit: Option<u32>) -> SessionList {
    state.explorer().list_sessions(limit.map(|n| n as usize))
}

#[tauri::command(async)]
pub fn fork_graph(state: State<'_, AppState>) -> ForkGraph {
    state.explorer().fork_graph()
}

/// A child outside the roots that the fork graph lists, opened read-only for viewing.
#[tauri::command(async)]
pub fn open_outside(state: State<'_, AppState>, path: String) -> R<SessionRow> {
    Ok(state.explorer().open_outside(&path)?)
}

#[tauri::command(async)]
pub fn tree_page(state: State<'_, AppState>, query: TreeQuery, start: u32, count: u32) -> R<TreePage> {
    Ok(state.explorer().tree_page(&query, start as usize, count as usize)?)
}

#[tauri::command(async)]
pub fn locate_row(state: State<'_, AppState>, query: TreeQuery, id: String) -> R<LocateResult> {
    Ok(state.explorer().locate_row(&query, &id)?)
}

#[tauri::command(async)]
pub fn find_in_session(state: State<'_, AppState>, path: String, text: String) -> R<FindResult> {
    Ok(state.explorer().find_in_session(&path, &text)?)
}

#[tauri::command(async)]
pub fn entry_detail(state: State<'_, AppState>, path: String, id: String) -> R<EntryDetail> {
    Ok(state.explorer().entry_detail(&path, &id)?)
}

#[tauri::command(async)]
pub fn context_view(state: State<'_, AppState>, path: String, leaf_id: Option<String>) -> R<ContextView> {
    Ok(state.explorer().context_view(&path, leaf_id.as_deref())?)
}

#[tauri::command(async)]
pub fn context_page(state: State<'_, AppState>, path: String, leaf_id: Option<String>, start: u32, count: u32) -> R<Vec<ContextMessage>> {
    Ok(state.explorer().context_page(&path, leaf_id.as_deref(), start as usize, count as usize)?)
}

#[tauri::command(async)]
pub fn hidden_page(state: State<'_, AppState>, path: String, leaf_id: Option<String>, start: u32, count: u32) -> R<Vec<HiddenEntry>> {
    Ok(state.explorer().hidden_page(&path, leaf_id.as_deref(), start as usize, count as usize)?)
}

#[tauri::command(async)]
pub fn navigate(state: State<'_, AppState>, path: String, id: Option<String>) -> R<WriteResult> {
    Ok(state.explorer().navigate(&path, id.as_deref())?)
}

#[tauri::command(async)]
pub fn set_label(state: State<'_, AppState>, path: String, id: String, label: Option<String>) -> R<WriteResult> {
    Ok(state.explorer().set_label(&path, &id, label.as_deref())?)
}

#[tauri::command(async)]
pub fn fork_session(state: State<'_, AppState>, path: String, id: String, position: ForkPosition) -> R<ForkResult> {
    Ok(state.explorer().fork(&path, &id, position)?)
}

#[tauri::command(async)]
pub fn search(state: State<'_, AppState>, query: String, limit: u32) -> SearchResult {
    state.explorer().search(&query, limit as usize)
}

#[tauri::command(async)]
pub fn audit_view(state: State<'_, AppState>, path: String, leaf_id: Option<String>) -> R<pi_session_app::explorer::AuditView> {
    Ok(state.explorer().audit_view(&path, leaf_id.as_deref())?)
}

#[tauri::command(async)]
pub fn transcript_page(state: State<'_, AppState>, path: String, start: u32, count: u32, leaf_id: Option<String>) -> R<TranscriptPage> {
    Ok(state.explorer().transcript_page_at(&path, leaf_id.as_deref(), start as usize, count as usize)?)
}

#[tauri::command(async)]
pub fn switch_branch(state: State<'_, AppState>, path: String, to_id: String) -> R<SwitchResult> {
    Ok(state.explorer().switch_branch(&path, &to_id)?)
}

#[tauri::command(async)]
pub fn transcript_markdown(state: State<'_, AppState>, path: String, ids: Option<Vec<String>>) -> R<String> {
    Ok(state.explorer().transcript_markdown(&path, ids.as_deref())?)
}

#[tauri::command(async)]
pub fn set_read_only(state: State<'_, AppState>, on: bool) -> AppInfo {
    state.explorer().set_read_only(on)
}

// ------------------------------------------------------------------ slim fork, pruned copy, compare

#[tauri::command(async)]
pub fn slim_preview(state: State<'_, AppState>, path: String, id: String) -> R<pi_session_app::explorer::SlimPreview> {
    Ok(state.explorer().slim_preview(&path, &id)?)
}

#[tauri::command(async)]
pub fn fork_slim(state: State<'_, AppState>, path: String, id: String) -> R<pi_session_app::explorer::NewFileResult> {
    Ok(state.explorer().fork_slim(&path, &id)?)
}

#[tauri::command(async)]
pub fn prune_session(state: State<'_, AppState>, path: String, keep: Vec<String>) -> R<pi_session_app::explorer::NewFileResult> {
    Ok(state.explorer().prune(&path, &keep)?)
}

#[tauri::command(async)]
pub fn compare_branches(state: State<'_, AppState>, a_path: String, a_id: String, b_path: String, b_id: String) -> R<pi_session::diff::BranchDiff> {
    Ok(state.explorer().compare(&a_path, &a_id, &b_path, &b_id)?)
}

// ------------------------------------------------------------------ roots

/// Remembers the roots beyond the first (the one the app started on) in the data folder.
fn remember(state: &AppState) {
    let roots = state.explorer().roots();
    if let Err(e) = crate::roots::save(&state.data_dir, &roots.specs()[1..]) {
        tracing::warn!("cannot remember the roots: {e}");
    }
}

/// Adds a sessions root (`name` defaults to the folder's) and remembers it.
#[tauri::command(async)]
pub fn add_root<Rt: tauri::Runtime>(app: tauri::AppHandle<Rt>, state: State<'_, AppState>, path: String, name: Option<String>, read_only: bool) -> R<AppInfo> {
    let mut spec = pi_session::roots::RootSpec::parse(&path);
    if let Some(n) = name.filter(|n| !n.trim().is_empty()) {
        spec.name = n.trim().to_string();
    }
    spec.read_only = read_only;
    state.explorer().add_root(spec)?;
    remember(&state);
    // Watched and indexed like the first root.
    crate::roots_changed(&app);
    Ok(state.explorer().app_info())
}

#[tauri::command(async)]
pub fn remove_root<Rt: tauri::Runtime>(app: tauri::AppHandle<Rt>, state: State<'_, AppState>, name: String) -> R<AppInfo> {
    state.explorer().remove_root(&name)?;
    remember(&state);
    crate::roots_changed(&app);
    Ok(state.explorer().app_info())
}

#[tauri::command(async)]
pub fn set_root_read_only(state: State<'_, AppState>, name: String, on: bool) -> R<AppInfo> {
    state.explorer().set_root_read_only(&name, on)?;
    remember(&state);
    Ok(state.explorer().app_info())
}
#[tauri::command(async)]
pub fn recent_roots() -> Vec<String> {
    pi_session_app::recent::load(&crate::recent_file()).iter().map(|p| pi_session::pathstr::encode(p)).collect()
}

#[tauri::command(async)]
pub fn open_root<R: tauri::Runtime>(app: tauri::AppHandle<R>, path: String) -> R2<AppInfo> {
    Ok(crate::open_root(&app, &pi_session::pathstr::decode(&path))?)
}

type R2<T> = Result<T, ApiError>;

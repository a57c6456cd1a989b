//! One JSON endpoint per command of the window: `POST /api/<command>` with the Tauri command's
//! arguments as a JSON object (the same names: `path`, `leafId`, `toId`, …). The answer is the
//! command's JSON, or `{code, message}` with an HTTP status for the code.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use pi_session::api::{ApiError, ErrorCode, ForkPosition, TreeQuery};
use pi_session::explorer::Explorer;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::find::Find;
use crate::{ServeError, Shared};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Limit {
    limit: Option<u32>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Page {
    query: TreeQuery,
    start: u32,
    count: u32,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Locate {
    query: TreeQuery,
    id: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PathText {
    path: String,
    text: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PathId {
    path: String,
    id: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PathLeaf {
    path: String,
    leaf_id: Option<String>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PathLeafPage {
    path: String,
    leaf_id: Option<String>,
    start: u32,
    count: u32,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PathMaybeId {
    path: String,
    id: Option<String>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Label {
    path: String,
    id: String,
    label: Option<String>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Fork {
    path: String,
    id: String,
    position: ForkPosition,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Search {
    query: String,
    limit: u32,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PathPage {
    path: String,
    start: u32,
    count: u32,
    #[serde(default)]
    leaf_id: Option<String>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct OpenRoot {
    path: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Switch {
    path: String,
    to_id: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Markdown {
    path: String,
    ids: Option<Vec<String>>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Prune {
    path: String,
    keep: Vec<String>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Compare {
    a_path: String,
    a_id: String,
    b_path: String,
    b_id: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)] // parsed so that a malformed call is `invalid`, then refused
struct AddRoot {
    path: String,
    name: Option<String>,
    read_only: bool,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct RootName {
    name: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct RootReadOnly {
    name: String,
    on: bool,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PathQuery {
    path: String,
    query: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Dash {
    query: pi_session::dashboard::DashboardQuery,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct Tag {
    session_id: String,
    tag: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct Pinned {
    session_id: String,
    pinned: bool,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SelectArgs {
    filter: pi_session_find::organise::MarkFilter,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct MovePaths {
    paths: Vec<String>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct MoveBatchId {
    batch: i64,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct Archived {
    session_id: String,
    archived: bool,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)]
struct Export {
    path: String,
    leaf_id: Option<String>,
    tree: bool,
    format: String,
    /// Where the window writes it; the browser downloads it instead.
    #[allow(dead_code)]
    out: Option<String>,
    #[allow(dead_code)]
    replace: Option<bool>,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ExportTarget {
    #[allow(dead_code)]
    path: String,
    #[allow(dead_code)]
    tree: bool,
    #[allow(dead_code)]
    format: String,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OpenExport {
    #[allow(dead_code)]
    path: String,
    #[allow(dead_code)]
    reveal: bool,
}
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReadOnly {
    on: bool,
}

fn args<T: DeserializeOwned>(command: &str, v: Value) -> Result<T, ServeError> {
    serde_json::from_value(v).map_err(|e| ServeError::BadArgs { command: command.into(), message: e.to_string() })
}

/// The window's `{code, message}` of a core error.
pub(crate) fn core(e: pi_session::Error) -> ServeError {
    let ApiError { code, message } = e.into();
    ServeError::Core { code, message }
}

fn internal(message: String) -> ServeError {
    ServeError::Core { code: ErrorCode::Internal, message }
}

fn ok<T: Serialize>(r: Result<T, pi_session::Error>) -> Result<Value, ServeError> {
    let t = r.map_err(core)?;
    serde_json::to_value(t).map_err(|e| internal(e.to_string()))
}

fn val<T: Serialize>(t: T) -> Result<Value, ServeError> {
    ok(Ok(t))
}

/// Runs one command on the explorer, as the window's command of that name does (the names are
/// those of `src-tauri/build.rs`; tests/commands.rs checks that they are all here). `arguments`
/// is the JSON object the UI sends (`{}` or `null` for none).
pub fn call(ex: &Explorer, find: &Find, command: &str, arguments: Value) -> Result<Value, ServeError> {
    let v = if arguments.is_null() { Value::Object(Default::default()) } else { arguments };
    let c = command;
    match command {
        "app_info" => {
            args::<NoArgs>(c, v)?;
            val(ex.app_info())
        }
        "list_sessions" => val(ex.list_sessions(args::<Limit>(c, v)?.limit.map(|n| n as usize))),
        "fork_graph" => {
            args::<NoArgs>(c, v)?;
            val(ex.fork_graph())
        }
        "tree_page" => {
            let a: Page = args(c, v)?;
            ok(ex.tree_page(&a.query, a.start as usize, a.count as usize))
        }
        "locate_row" => {
            let a: Locate = args(c, v)?;
            ok(ex.locate_row(&a.query, &a.id))
        }
        "find_in_session" => {
            let a: PathText = args(c, v)?;
            ok(ex.find_in_session(&a.path, &a.text))
        }
        "entry_detail" => {
            let a: PathId = args(c, v)?;
            ok(ex.entry_detail(&a.path, &a.id))
        }
        "context_view" => {
            let a: PathLeaf = args(c, v)?;
            ok(ex.context_view(&a.path, a.leaf_id.as_deref()))
        }
        "context_page" => {
            let a: PathLeafPage = args(c, v)?;
            ok(ex.context_page(&a.path, a.leaf_id.as_deref(), a.start as usize, a.count as usize))
        }
        "hidden_page" => {
            let a: PathLeafPage = args(c, v)?;
            ok(ex.hidden_page(&a.path, a.leaf_id.as_deref(), a.start as usize, a.count as usize))
        }
        "navigate" => {
            let a: PathMaybeId = args(c, v)?;
            ok(ex.navigate(&a.path, a.id.as_deref()))
        }
        "set_label" => {
            let a: Label = args(c, v)?;
            ok(ex.set_label(&a.path, &a.id, a.label.as_deref()))
        }
        "fork_session" => {
            let a: Fork = args(c, v)?;
            ok(ex.fork(&a.path, &a.id, a.position))
        }
        "search" => {
            let a: Search = args(c, v)?;
            val(ex.search(&a.query, a.limit as usize))
        }
        "transcript_page" => {
            let a: PathPage = args(c, v)?;
            ok(ex.transcript_page_at(&a.path, a.leaf_id.as_deref(), a.start as usize, a.count as usize))
        }
        "switch_branch" => {
            let a: Switch = args(c, v)?;
            ok(ex.switch_branch(&a.path, &a.to_id))
        }
        "transcript_markdown" => {
            let a: Markdown = args(c, v)?;
            ok(ex.transcript_markdown(&a.path, a.ids.as_deref()))
        }
        "slim_preview" => {
            let a: PathId = args(c, v)?;
            ok(ex.slim_preview(&a.path, &a.id))
        }
        "fork_slim" => {
            let a: PathId = args(c, v)?;
            ok(ex.fork_slim(&a.path, &a.id))
        }
        "prune_session" => {
            let a: Prune = args(c, v)?;
            ok(ex.prune(&a.path, &a.keep))
        }
        "compare_branches" => {
            let a: Compare = args(c, v)?;
            ok(ex.compare(&a.a_path, &a.a_id, &a.b_path, &a.b_id))
        }
        "audit_view" => {
            let a: PathLeaf = args(c, v)?;
            ok(ex.audit_view(&a.path, a.leaf_id.as_deref()))
        }
        // The server's recent roots are not the browser's: none are offered, and opening a
        // folder of the serving machine is for its command line only.
        "recent_roots" => {
            args::<NoArgs>(c, v)?;
            val(Vec::<String>::new())
        }
        "open_root" => {
            args::<OpenRoot>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "search_index_status" => {
            args::<NoArgs>(c, v)?;
            val(find.status(ex)?)
        }
        "search_indexed" => {
            let a: Search = args(c, v)?;
            val(find.search(ex, &a.query, a.limit as usize)?)
        }
        "search_hits_in_session" => {
            let a: PathQuery = args(c, v)?;
            val(find.hits_in_file(ex, &a.query, &a.path)?)
        }
        "dashboard" => val(ex.dashboard(&args::<Dash>(c, v)?.query)),
        // Tags, pins and archive live in the window's own data folder, and an export is a file
        // written on the machine: a browser sees no marks and cannot set them.
        "session_marks" => {
            args::<NoArgs>(c, v)?;
            val(serde_json::Map::new())
        }
        "session_tags" => {
            args::<NoArgs>(c, v)?;
            val(Vec::<String>::new())
        }
        "add_session_tag" | "remove_session_tag" => {
            args::<Tag>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "set_session_pinned" => {
            args::<Pinned>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "set_session_archived" => {
            args::<Archived>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        // Moving files out of a root is the window's (with its confirmation): never remote.
        "plan_archive_move" => {
            args::<NoArgs>(c, v)?;
            // No marks here (they are the window's), so nothing to move.
            val(pi_session_find::moves::MovePlan::default())
        }
        "move_archived_files" => {
            args::<MovePaths>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "undo_move" => {
            args::<MoveBatchId>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "select_sessions" => {
            let a = args::<SelectArgs>(c, v)?;
            // No marks here: every session is unmarked.
            val(pi_session_find::organise::MarkSelection { ids: Vec::new(), unmarked: a.filter.keeps(None) })
        }
        "recent_moves" => {
            args::<NoArgs>(c, v)?;
            val(Vec::<String>::new())
        }
        // No organiser database here, so none to set aside.
        "set_aside_organiser" => {
            args::<NoArgs>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        // An export is the browser's download: its text, named after the session; nothing is
        // written on the serving machine.
        "export_session" => {
            let a = args::<Export>(c, v)?;
            ok(ex.export_text(&a.path, a.leaf_id.as_deref(), a.tree, &a.format).map(|x| pi_session::export::ExportResult { out: x.name, bytes: x.text.len() as u32, text: Some(x.text) }))
        }
        "export_target" => {
            args::<ExportTarget>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "open_export" => {
            args::<OpenExport>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "add_root" => {
            args::<AddRoot>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "remove_root" => {
            args::<RootName>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "set_root_read_only" => {
            args::<RootReadOnly>(c, v)?;
            Err(ServeError::WindowOnly(c.into()))
        }
        "set_read_only" => val(ex.set_read_only(args::<ReadOnly>(c, v)?.on)),
        _ => Err(ServeError::UnknownCommand(command.into())),
    }
}

pub(crate) async fn handle(State(st): State<Arc<Shared>>, Path(command): Path<String>, body: Bytes) -> Response {
    let arguments: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => return ServeError::BadArgs { command, message: e.to_string() }.into_response(),
        }
    };
    let ex = st.explorer.clone();
    let find = st.find.clone();
    match tokio::task::spawn_blocking(move || call(&ex, &find, &command, arguments)).await {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(e) => internal(e.to_string()).into_response(),
    }
}

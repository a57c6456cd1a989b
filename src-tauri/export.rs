//! Export of a session as HTML or Markdown to a file the user names (the window's save dialog
//! prefills the export folder), and opening what was exported: the file itself, or its folder.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pi_session::api::{ApiError, ErrorCode};
use pi_session::explorer::ExportText;
use pi_session::export::ExportResult;
use tauri::State;

use crate::AppState;

type R<T> = Result<T, ApiError>;

/// The files this window exported: the only ones `open_export` opens.
#[derive(Default)]
pub struct Exports(Mutex<HashSet<PathBuf>>);

/// Where exports go unless the user says otherwise: `$PI_EXPLORER_EXPORT_DIR`, else the
/// Downloads folder, else the app's data folder.
fn export_dir() -> PathBuf {
    std::env::var_os("PI_EXPLORER_EXPORT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(dirs::download_dir)
        .unwrap_or_else(|| crate::data_dir().join("exports"))
}

fn invalid(message: String) -> ApiError {
    ApiError { code: ErrorCode::Invalid, message }
}

/// Where the save dialog proposes to write an export of `path`: the export folder, the name the
/// core gives it.
#[tauri::command(async)]
pub fn export_target(state: State<'_, AppState>, path: String, tree: bool, format: String) -> R<String> {
    let name = pi_session::explorer::export_name(&state.explorer().resolve(&path)?, tree, &format)?;
    Ok(pi_session::pathstr::encode(&export_dir().join(name)))
}

/// Exports a path (`leaf_id`, default the session's leaf) or the whole tree (`tree`) as `html`
/// or `md` to `out` (an absolute path, `~/` allowed; default: the export folder, named after the
/// session). An existing file is replaced only with `replace`; never a `.jsonl` file.
#[tauri::command(async)]
pub fn export_session(state: State<'_, AppState>, exports: State<'_, Exports>, path: String, leaf_id: Option<String>, tree: bool, format: String, out: Option<String>, replace: Option<bool>) -> R<ExportResult> {
    let text = state.explorer().export_text(&path, leaf_id.as_deref(), tree, &format)?;
    let out = write_export(&text, out.as_deref(), replace == Some(true))?;
    exports.0.lock().unwrap().insert(out.clone());
    Ok(ExportResult { out: pi_session::pathstr::encode(&out), bytes: text.text.len() as u32, text: None })
}

/// Writes an export (crash-safely) where the user said, else into the export folder.
fn write_export(ex: &ExportText, out: Option<&str>, replace: bool) -> R<PathBuf> {
    let out = match out.map(str::trim).filter(|o| !o.is_empty()) {
        Some(o) => user_path(o)?,
        None => export_dir().join(&ex.name),
    };
    if out.is_dir() {
        return Err(invalid(format!("{} is a folder: name the file", out.display())));
    }
    if out.exists() && !replace {
        return Err(invalid(format!("{} exists: choose another name, or replace it", out.display())));
    }
    let dir = out.parent().map(Path::to_path_buf).unwrap_or_default();
    std::fs::create_dir_all(&dir).map_err(|e| ApiError::from(pi_session::Error::io(&dir, e)))?;
    pi_session::export::write_out(&out, &ex.text)?;
    Ok(out)
}

/// A path typed in the save dialog: absolute, or under the home folder (`~/…`).
fn user_path(o: &str) -> R<PathBuf> {
    let p = match o.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().ok_or_else(|| invalid("no home folder to expand ~ in".into()))?.join(rest),
        None => pi_session::pathstr::decode(o),
    };
    if !p.is_absolute() {
        return Err(invalid(format!("{o}: give the whole path (it starts with / or ~/)")));
    }
    Ok(p)
}

/// Opens a file this window exported in the system's default application, or (`reveal`) its
/// folder in the file manager. `$PI_EXPLORER_OPENER`, when set, is run instead with `open` or
/// `reveal` and the path.
#[tauri::command(async)]
pub fn open_export(exports: State<'_, Exports>, path: String, reveal: bool) -> R<()> {
    let p = pi_session::pathstr::decode(&path);
    if !exports.0.lock().unwrap().contains(&p) {
        return Err(invalid(format!("{path}: not a file this window exported")));
    }
    open(&p, reveal).map_err(|e| ApiError::from(pi_session::Error::io(&p, e)))
}

fn open(p: &Path, reveal: bool) -> std::io::Result<()> {
    use std::process::Command;
    let mut cmd = if let Some(opener) = std::env::var_os("PI_EXPLORER_OPENER").filter(|v| !v.is_empty()) {
        let mut c = Command::new(opener);
        c.arg(if reveal { "reveal" } else { "open" }).arg(p);
        c
    } else if cfg!(target_os = "macos") {
        let mut c = Command::new("open");
        if reveal {
            c.arg("-R");
        }
        c.arg(p);
        c
    } else if cfg!(windows) {
        let mut c = Command::new("explorer");
        if reveal {
            c.arg(format!("/select,{}", p.display()));
        } else {
            c.arg(p);
        }
        c
    } else {
        // The file managers' "show this file" has no common command: open its folder.
        let mut c = Command::new("xdg-open");
        c.arg(if reveal { p.parent().unwrap_or(p) } else { p });
        c
    };
    let mut child = cmd.spawn()?;
    // Reaped in the background: the opener may run as long as the application it starts.
    std::thread::spawn(move || child.wait());
    Ok(())
}

//! Exports of a session as HTML or Markdown. The window writes the file where the user says (its
//! save dialog proposes the export folder and the name the explorer gives) and then opens the
//! file or its folder on request, only a file it exported; `pi-session serve` writes nothing on
//! the serving machine: it answers the text, which the browser downloads under the same name.

use std::path::{Path, PathBuf};

use pi_session::export::{write_out, ExportFormat, ExportResult};

use crate::api::{ApiError, ErrorCode};
use crate::explorer::{export_name, ExportText};
use crate::service::{App, Host};

type R<T> = Result<T, ApiError>;

fn invalid(message: String) -> ApiError {
    ApiError { code: ErrorCode::Invalid, message }
}

impl App {
    /// Where the save dialog proposes to write an export of `path`: the export folder
    /// ([`App::export_dir`]), the name the explorer gives it.
    pub(crate) fn export_target(&self, path: &str, tree: bool, format: ExportFormat) -> R<String> {
        let real = self.explorer().resolve(path)?;
        Ok(pi_session::pathstr::encode(&self.export_dir().join(export_name(&real, tree, format))))
    }

    /// Exports a path (`leaf`, default the session's leaf) or the whole tree. The window writes
    /// it to `out` (absolute, `~/` allowed; default: the export folder), replacing a file only
    /// with `replace`, never a `.jsonl` file; serve answers the text and its file name.
    pub(crate) fn export(&self, path: &str, leaf: Option<&str>, tree: bool, format: ExportFormat, out: Option<&str>, replace: bool) -> R<ExportResult> {
        let ex = self.explorer().export_text(path, leaf, tree, format)?;
        let bytes = ex.text.len() as u32;
        if self.host() == Host::Serve {
            return Ok(ExportResult { out: ex.name, bytes, text: Some(ex.text) });
        }
        let out = self.write_export(&ex, out, replace)?;
        self.exported.lock().unwrap().insert(out.clone());
        Ok(ExportResult { out: pi_session::pathstr::encode(&out), bytes, text: None })
    }

    /// Writes an export (crash-safely) where the user said, else into the export folder.
    fn write_export(&self, ex: &ExportText, out: Option<&str>, replace: bool) -> R<PathBuf> {
        let out = match out.map(str::trim).filter(|o| !o.is_empty()) {
            Some(o) => user_path(o)?,
            None => self.export_dir().join(&ex.name),
        };
        if out.is_dir() {
            return Err(invalid(format!("{} is a folder: name the file", out.display())));
        }
        if out.exists() && !replace {
            return Err(invalid(format!("{} exists: choose another name, or replace it", out.display())));
        }
        let dir = out.parent().map(Path::to_path_buf).unwrap_or_default();
        std::fs::create_dir_all(&dir).map_err(|e| ApiError::from(pi_session::Error::io(&dir, e)))?;
        write_out(&out, &ex.text)?;
        Ok(out)
    }

    /// Opens a file the window exported in the system's default application, or (`reveal`) its
    /// folder in the file manager. `$PI_EXPLORER_OPENER`, when set, is run instead with `open`
    /// or `reveal` and the path.
    pub(crate) fn open_export(&self, path: &str, reveal: bool) -> R<()> {
        let p = pi_session::pathstr::decode(path);
        if !self.exported.lock().unwrap().contains(&p) {
            return Err(invalid(format!("{path}: not a file this window exported")));
        }
        open(&p, reveal).map_err(|e| ApiError::from(pi_session::Error::io(&p, e)))
    }
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

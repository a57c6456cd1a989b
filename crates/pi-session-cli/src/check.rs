//! `pi-session check`: the diagnostics of a file, or of every file of a folder.

use std::path::{Path, PathBuf};

use pi_session::listing::list;
use pi_session::{Error, Session};
use pi_session_format::diag::Severity;
use serde::Serialize;

#[derive(Serialize)]
pub(crate) struct FileReport {
    #[serde(with = "pi_session::pathstr::serde_path")]
    pub path: PathBuf,
    pub diagnostics: Vec<pi_session::Diagnostic>,
}

#[derive(Serialize)]
pub(crate) struct CheckReport {
    pub files: Vec<FileReport>,
    pub errors: usize,
    pub warnings: usize,
}

pub(crate) fn check(target: &Path, root: &Path) -> Result<CheckReport, Error> {
    let meta = std::fs::metadata(target).map_err(|e| Error::io(target, e))?;
    let mut files = Vec::new();
    if meta.is_dir() {
        let l = list(target);
        for s in l.sessions {
            files.push(FileReport { path: s.path, diagnostics: s.diagnostics });
        }
        // (Built only when there are findings to place.)
        let at: std::collections::HashMap<PathBuf, usize> =
            if l.other.is_empty() { Default::default() } else { files.iter().enumerate().map(|(i, f)| (f.path.clone(), i)).collect() };
        for o in l.other {
            // A symlink to a session is both a session and a finding about its path: one report.
            match at.get(&o.path) {
                Some(&i) => files[i].diagnostics.insert(0, o.diagnostic),
                None => files.push(FileReport { path: o.path, diagnostics: vec![o.diagnostic] }),
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
    } else {
        let s = Session::open(target)?;
        let mut diagnostics = s.diagnostics();
        // parentSession: missing or relative (a cycle needs the other files: check the folder).
        // Resolved against the root's headers: a parent found by id, a cycle through the folder.
        if let Some(f) = pi_session::forks::link_of_file(target, root) {
            diagnostics.extend(pi_session::forks::link_diagnostics(&f));
        }
        files.push(FileReport { path: target.to_path_buf(), diagnostics });
    }
    let count = |sev| files.iter().flat_map(|f| &f.diagnostics).filter(|d| d.severity == sev).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    Ok(CheckReport { files, errors, warnings })
}

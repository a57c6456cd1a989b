//! Writes: navigate, label, fork (appends and new files, through [`pi_session::write`]).

use std::path::{Path, PathBuf};

use pi_session::write::{self, WriteOptions};
use pi_session::{Error, Session};

use super::Explorer;
use crate::api::*;

impl Explorer {
    // ------------------------------------------------------------------ writes

    /// Appends one line to the file at `path` through its cached session: the path is
    /// confined once, the session is opened only when not cached, and the write reads only what
    /// was appended since the session's last read and takes our line in (no refresh after).
    fn append(&self, path: &str, write: impl FnOnce(&mut Session, &WriteOptions) -> Result<write::Appended, Error>) -> Result<WriteResult, Error> {
        let (real, opts) = self.write_target(path)?;
        if opts.read_only {
            return Err(Error::ReadOnlyMode);
        }
        let live = self.is_live(&real);
        let arc = self.cached_or_open(&real)?;
        let a = write(&mut arc.write().unwrap(), &opts)?;
        self.after_append(&real, &a);
        Ok(write_result(a, live))
    }

    /// The file, confined (once), and the options its writes go by.
    fn write_target(&self, path: &str) -> Result<(PathBuf, WriteOptions), Error> {
        if self.is_multi() {
            return self.write_target_multi(path);
        }
        let real = write::confine(&pi_session::pathstr::decode(path), Some(&self.root))?;
        Ok((real, WriteOptions { root: Some(self.root.clone()), read_only: self.is_read_only(), ..Default::default() }))
    }

    fn after_append(&self, real: &Path, a: &write::Appended) {
        self.own_writes.lock().unwrap().insert(real.to_path_buf(), a.offset + a.line.len() as u64 + 1);
        if a.others_appended {
            self.mark_external_append(real);
        }
    }

    pub fn navigate(&self, path: &str, id: Option<&str>) -> Result<WriteResult, Error> {
        self.append(path, |s, opts| write::navigate_in(s, id, opts))
    }

    pub fn set_label(&self, path: &str, id: &str, label: Option<&str>) -> Result<WriteResult, Error> {
        self.append(path, |s, opts| write::set_label_in(s, id, label, opts))
    }

    pub fn fork(&self, path: &str, id: &str, position: ForkPosition) -> Result<ForkResult, Error> {
        let real = self.resolve(path)?;
        let target = match position {
            ForkPosition::At => Some(id.to_string()),
            ForkPosition::Before => write::fork_target(&self.session_at(&real)?.read().unwrap(), id, true)?,
        };
        let f = write::fork(&real, target.as_deref(), &self.write_opts(&real)?)?;
        self.root_changed();
        Ok(ForkResult { file: pi_session::pathstr::encode(&f.file), leaf_id: f.leaf_id })
    }
}

fn write_result(a: write::Appended, live: bool) -> WriteResult {
    let warning = a.warning.or_else(|| {
        live.then(|| "another process is appending to this session right now; pi's next message continues from pi's own in-memory leaf".to_string())
    });
    WriteResult { file: pi_session::pathstr::encode(&a.file), line: a.line, warning }
}

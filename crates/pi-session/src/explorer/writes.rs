//! Writes: navigate, label, fork (appends and new files, through [`crate::write`]).

use std::path::Path;

use super::Explorer;
use crate::api::*;
use crate::write;
use crate::Error;

impl Explorer {
    // ------------------------------------------------------------------ writes

    fn after_write(&self, real: &Path) {
        if let Ok(m) = std::fs::metadata(real) {
            self.own_writes.lock().unwrap().insert(real.to_path_buf(), m.len());
        }
        // Pick up our line now, so the next read does not count it as someone else's.
        let _ = self.session_at(real);
    }

    pub fn navigate(&self, path: &str, id: Option<&str>) -> Result<WriteResult, Error> {
        let real = self.resolve(path)?;
        let live = self.is_live(&real);
        let a = write::navigate(&real, id, &self.write_opts(&real)?)?;
        self.after_write(&real);
        Ok(write_result(a, live))
    }

    pub fn set_label(&self, path: &str, id: &str, label: Option<&str>) -> Result<WriteResult, Error> {
        let real = self.resolve(path)?;
        let live = self.is_live(&real);
        let a = write::set_label(&real, id, label, &self.write_opts(&real)?)?;
        self.after_write(&real);
        Ok(write_result(a, live))
    }

    pub fn fork(&self, path: &str, id: &str, position: ForkPosition) -> Result<ForkResult, Error> {
        let real = self.resolve(path)?;
        let target = match position {
            ForkPosition::At => Some(id.to_string()),
            ForkPosition::Before => write::fork_target(&self.session_at(&real)?.read().unwrap(), id, true)?,
        };
        let f = write::fork(&real, target.as_deref(), &self.write_opts(&real)?)?;
        self.root_changed();
        Ok(ForkResult { file: crate::pathstr::encode(&f.file), leaf_id: f.leaf_id })
    }
}

fn write_result(a: write::Appended, live: bool) -> WriteResult {
    let warning = a.warning.or_else(|| {
        live.then(|| "another process is appending to this session right now; pi's next message continues from pi's own in-memory leaf".to_string())
    });
    WriteResult { file: crate::pathstr::encode(&a.file), line: a.line, warning }
}

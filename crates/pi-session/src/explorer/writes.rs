//! Writes: navigate, label, fork (appends and new files, through [`crate::write`]).

use std::path::Path;

use super::Explorer;
use crate::api::*;
use crate::tree::NONE;
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
        let a = write::navigate(&real, id, &self.write_opts())?;
        self.after_write(&real);
        Ok(write_result(a, live))
    }

    pub fn set_label(&self, path: &str, id: &str, label: Option<&str>) -> Result<WriteResult, Error> {
        let real = self.resolve(path)?;
        let live = self.is_live(&real);
        let a = write::set_label(&real, id, label, &self.write_opts())?;
        self.after_write(&real);
        Ok(write_result(a, live))
    }

    pub fn fork(&self, path: &str, id: &str, position: ForkPosition) -> Result<ForkResult, Error> {
        let real = self.resolve(path)?;
        let target = match position {
            ForkPosition::At => Some(id.to_string()),
            ForkPosition::Before => {
                let arc = self.session_at(&real)?;
                let s = arc.read().unwrap();
                let i = s.node(id)?;
                match s.tree.parent[i as usize] {
                    NONE => None,
                    p => Some(s.id_of(p).to_string()),
                }
            }
        };
        let f = write::fork(&real, target.as_deref(), &self.write_opts())?;
        self.lister.state.lock().unwrap().invalidate();
        Ok(ForkResult { file: f.file.to_string_lossy().into_owned(), leaf_id: f.leaf_id })
    }
}

fn write_result(a: write::Appended, live: bool) -> WriteResult {
    let warning = a.warning.or_else(|| {
        live.then(|| "another process is appending to this session right now; pi's next message continues from pi's own in-memory leaf".to_string())
    });
    WriteResult { file: a.file.to_string_lossy().into_owned(), line: a.line, warning }
}

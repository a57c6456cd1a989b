//! Replacing a whole file crash-safely — the one way the project replaces a file of its own
//! (caches, snapshots, exports, manifests, the app's small JSON files; never a session file,
//! which is only appended to or created new, see [`crate::write`]): a temporary file in the
//! same folder, written and fsynced, renamed over the target (tempfile's `persist`), then the
//! folder fsynced. A crash leaves the old file or the new one, and at most a temporary file
//! `.<name>.<random>.tmp` beside it.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// Replaces `path` with `bytes`.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_with(path, |f| f.write_all(bytes))
}

/// Replaces `path` with what `write` writes to the temporary file.
pub fn replace_with(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let mut tmp = tempfile::Builder::new().prefix(&format!(".{}.", name.to_string_lossy())).suffix(".tmp").tempfile_in(folder)?;
    write(tmp.as_file_mut())?;
    tmp.as_file_mut().flush()?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    crate::write::sync_dir(folder);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.json");
        replace(&f, b"one").unwrap();
        replace(&f, b"two, longer").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two, longer");
        let names: Vec<String> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["a.json"]);
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.json");
        replace(&f, b"old").unwrap();
        let r = replace_with(&f, |file| {
            file.write_all(b"half")?;
            Err(io::Error::other("stopped"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&f).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the temporary file is removed");
    }
}

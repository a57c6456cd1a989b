//! Replacing a whole file crash-safely — the one way the project replaces a file of its own
//! (caches, snapshots, exports, manifests, the app's small JSON files; never a session file,
//! which is only appended to or created new, see [`crate::write`]): a temporary file in the
//! same folder, written and fsynced, renamed over the target (tempfile's `persist`), then the
//! folder fsynced. A crash leaves the old file or the new one, and at most a temporary file
//! `.<name>.<random>.tmp` beside it. A cache whose reader checks what it reads may skip the
//! syncs ([`replace_unsynced_with`]).

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// Replaces `path` with `bytes`.
pub fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    replace_with(path, |f| f.write_all(bytes))
}

/// Replaces `path` with what `write` writes to the temporary file.
pub fn replace_with(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    replace_on(path, true, write)
}

/// [`replace_with`] without waiting for the disk: for a cache whose reader checks every byte it
/// takes (a checksum) and reads the source again when the check fails. Other processes see the
/// old file or the new one, whole; after a crash the new one may be missing or spoiled, and is
/// then rejected and written again. (The skeleton snapshot of the 165 MB session spent 13 ms of
/// a first open syncing 32 MB here, far more on a slow disk.)
pub fn replace_unsynced_with(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    replace_on(path, false, write)
}

fn replace_on(path: &Path, sync: bool, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let mut tmp = tempfile::Builder::new().prefix(&format!(".{}.", name.to_string_lossy())).suffix(".tmp").tempfile_in(folder)?;
    write(tmp.as_file_mut())?;
    tmp.as_file_mut().flush()?;
    if sync {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    if sync {
        crate::write::sync_dir(folder);
    }
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
    fn an_unsynced_replace_replaces_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("snap.bin");
        replace_unsynced_with(&f, |file| file.write_all(b"one")).unwrap();
        replace_unsynced_with(&f, |file| file.write_all(b"two, longer")).unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two, longer");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary left");
        let r = replace_unsynced_with(&f, |file| {
            file.write_all(b"half")?;
            Err(io::Error::other("stopped"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&f).unwrap(), b"two, longer", "a failed write keeps the old file");
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

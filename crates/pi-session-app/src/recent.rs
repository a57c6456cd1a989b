//! Sessions roots the app opened recently, remembered in its data folder as one small JSON file
//! (`recent-roots.json`: a list of paths, newest first). A missing or unreadable file is an
//! empty list; the file is replaced whole (written to a temporary name, then renamed), never
//! a session file.

use std::path::{Path, PathBuf};

use pi_session::Error;

/// Roots kept.
pub const MAX_RECENT: usize = 8;

/// The file in a data folder.
pub fn file_in(data_dir: &Path) -> PathBuf {
    data_dir.join("recent-roots.json")
}

/// The remembered roots, newest first (empty when the file is missing or damaged).
pub fn load(file: &Path) -> Vec<PathBuf> {
    std::fs::read(file)
        .ok()
        .and_then(|b| serde_json::from_slice::<Vec<PathBuf>>(&b).ok())
        .map(|mut v| {
            v.truncate(MAX_RECENT);
            v
        })
        .unwrap_or_default()
}

/// Puts `root` first (once), keeps [`MAX_RECENT`], saves, and returns the list.
pub fn remember(file: &Path, root: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut list = load(file);
    list.retain(|p| p != root);
    list.insert(0, root.to_path_buf());
    list.truncate(MAX_RECENT);
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let body = serde_json::to_vec_pretty(&list).expect("paths serialise");
    pi_session::atomic::replace(file, &body).map_err(|e| Error::io(file, e))?;
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_newest_first_once_and_at_most_max() {
        let tmp = tempfile::tempdir().unwrap();
        let f = file_in(&tmp.path().join("data"));
        assert!(load(&f).is_empty(), "no file: empty");
        remember(&f, Path::new("/a")).unwrap();
        remember(&f, Path::new("/b")).unwrap();
        let l = remember(&f, Path::new("/a")).unwrap();
        assert_eq!(l, vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        assert_eq!(load(&f), l, "saved");
        for i in 0..20 {
            remember(&f, Path::new(&format!("/r{i}"))).unwrap();
        }
        let l = load(&f);
        assert_eq!(l.len(), MAX_RECENT);
        assert_eq!(l[0], PathBuf::from("/r19"));
        std::fs::write(&f, b"{not json").unwrap();
        assert!(load(&f).is_empty(), "a damaged file reads as empty");
        assert_eq!(remember(&f, Path::new("/z")).unwrap(), vec![PathBuf::from("/z")]);
    }
}

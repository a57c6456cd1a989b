//! The roots the app remembers (added in the window, with names and read-only flags): a JSON
//! file in the app data folder, written crash-safely (temporary file, fsync, rename).

use std::path::{Path, PathBuf};

use pi_session::roots::RootSpec;

/// `roots.json` in the data folder.
pub fn file(data_dir: &Path) -> PathBuf {
    data_dir.join("roots.json")
}

/// The remembered roots; a missing or unreadable file is none.
pub fn load(data_dir: &Path) -> Vec<RootSpec> {
    std::fs::read(file(data_dir)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

/// Remembers `roots` (those added in the window; not the ones given on the command line).
pub fn save(data_dir: &Path, roots: &[RootSpec]) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(data_dir)?;
    let target = file(data_dir);
    let tmp = data_dir.join(format!(".roots.json.tmp-{}", std::process::id()));
    let bytes = serde_json::to_vec_pretty(roots).map_err(std::io::Error::other)?;
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, &target)
}

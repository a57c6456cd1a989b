//! Whether the search index is on: `PI_SESSION_SEARCH_INDEX=off` turns it off for any
//! process (the CLI also takes `--no-index`); the window keeps its own choice in its data
//! folder (`search.json`, `{"index": false}`), written crash-safely. Off, nothing is built or
//! opened and every search reads the files (its answer says so).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The environment variable that turns the index off (`off`, `0`, `false`, `no`).
pub const ENV: &str = "PI_SESSION_SEARCH_INDEX";

/// False when [`ENV`] turns the index off.
pub fn enabled_by_env() -> bool {
    !std::env::var(ENV).is_ok_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "0" | "false" | "no"))
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SearchSettings {
    /// Build and use the search index (default); off, searches read the files.
    pub index: bool,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings { index: true }
    }
}

pub fn file(data_dir: &Path) -> PathBuf {
    data_dir.join("search.json")
}

/// The settings in `data_dir`; a missing or unreadable file is the default.
pub fn load(data_dir: &Path) -> SearchSettings {
    std::fs::read(file(data_dir)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
}

/// Writes the settings (temporary file, fsync, rename, folder fsync).
pub fn save(data_dir: &Path, s: SearchSettings) -> std::io::Result<()> {
    std::fs::create_dir_all(data_dir)?;
    let bytes = serde_json::to_vec_pretty(&s).map_err(std::io::Error::other)?;
    pi_session::atomic::replace(&file(data_dir), &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_default_to_on() {
        let dir = tempfile::tempdir().unwrap();
        assert!(load(dir.path()).index);
        save(dir.path(), SearchSettings { index: false }).unwrap();
        assert!(!load(dir.path()).index);
        std::fs::write(file(dir.path()), b"garbage").unwrap();
        assert!(load(dir.path()).index, "an unreadable file is the default");
    }
}

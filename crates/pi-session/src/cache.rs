//! The persistent listing cache: one summary per session file, keyed by (path, size, mtime,
//! inode), so a second start reads almost nothing. It lives outside the sessions root
//! (`$PI_SESSION_CACHE_DIR`, else the platform cache folder) and is replaced atomically.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::scan::Found;
use crate::session::FileStamp;
use crate::summary::{Indexed, SessionSummary};

/// Bumped whenever what a summary holds or how it is computed changes.
const FORMAT: u32 = 7;

/// What comparing a child with its parent found (fork point or spawn site, copied figures),
/// valid while both files are unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedFork {
    #[serde(with = "crate::pathstr::serde_path")]
    pub parent: PathBuf,
    pub parent_stamp: FileStamp,
    pub point: crate::forks::Point,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedFile {
    pub stamp: FileStamp,
    pub summary: SessionSummary,
    #[serde(default)]
    pub fork: Option<CachedFork>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ListCache {
    format: u32,
    #[serde(with = "crate::pathstr::serde_path")]
    pub root: PathBuf,
    #[serde(with = "crate::pathstr::serde_path_keys")]
    pub files: HashMap<PathBuf, CachedFile>,
    /// Changed since it was loaded (see [`ListCache::save_if_changed`]).
    #[serde(skip)]
    pub changed: bool,
}

impl ListCache {
    pub fn new(root: &Path) -> ListCache {
        ListCache { format: FORMAT, root: root.to_path_buf(), files: HashMap::new(), changed: false }
    }

    /// The cache file for a root.
    pub fn file_for(root: &Path) -> Option<PathBuf> {
        let dir = crate::session::cache_dir()?;
        let canon = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        // FNV-1a of the root path: a stable file name per root.
        let mut h: u64 = 0xcbf29ce484222325;
        for b in canon.to_string_lossy().bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
        Some(dir.join(format!("list-{h:016x}.json")))
    }

    /// Loads the cache of `root`; an unreadable, foreign or outdated cache is an empty one.
    pub fn load(root: &Path) -> ListCache {
        let fresh = || ListCache::new(root);
        let Some(file) = Self::file_for(root) else { return fresh() };
        let Ok(bytes) = std::fs::read(&file) else { return fresh() };
        match serde_json::from_slice::<ListCache>(&bytes) {
            Ok(c) if c.format == FORMAT && c.root == root => c,
            _ => fresh(),
        }
    }

    /// Writes the cache whole under a temporary name, then renames it over the old one, not
    /// synced ([`crate::atomic::replace_unsynced_with`], as the skeleton snapshots are): a
    /// crash can leave the old cache, the new one, or one cut short, which does not parse and
    /// is read as an empty cache; each entry is checked against its file's stamp when used.
    /// Failures are ignored: it is only a cache.
    pub fn save(&self) {
        let Some(file) = Self::file_for(&self.root) else { return };
        let Some(dir) = file.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let Ok(bytes) = serde_json::to_vec(self) else { return };
        let _ = crate::atomic::replace_unsynced_with(&file, |f| std::io::Write::write_all(f, &bytes));
    }

    /// Writes the cache when something in it changed (a warm listing writes nothing).
    pub fn save_if_changed(&mut self) {
        if self.changed {
            self.save();
            self.changed = false;
        }
    }

    /// Forgets the files that are gone and returns the found ones it cannot answer (new or
    /// changed since they were cached).
    pub fn reconcile(&mut self, found: &[Found]) -> Vec<Found> {
        let present: std::collections::HashSet<&Path> = found.iter().map(|f| f.path.as_path()).collect();
        let before = self.files.len();
        self.files.retain(|p, _| present.contains(p.as_path()));
        self.changed |= before != self.files.len();
        found.iter().filter(|f| self.hit(&f.path, &f.stamp).is_none()).cloned().collect()
    }

    /// Keeps the summaries indexing `misses` gave (`results` in the same order); returns the
    /// files that could not be indexed, with why.
    pub fn store(&mut self, misses: &[Found], results: Vec<Indexed>) -> Vec<(PathBuf, crate::Error)> {
        let mut failed = Vec::new();
        for (f, (path, r)) in misses.iter().zip(results) {
            debug_assert_eq!(f.path, path);
            match r {
                Ok(summary) => {
                    self.files.insert(path, CachedFile { stamp: f.stamp, summary, fork: None });
                    self.changed = true;
                }
                Err(e) => failed.push((path, e)),
            }
        }
        failed
    }

    /// Keeps fork points the index pass found (child, what to keep: `forks::together`) with
    /// their children's entries (a child that failed to index has none).
    pub fn store_forks(&mut self, forks: Vec<(PathBuf, CachedFork)>) {
        for (child, fork) in forks {
            if let Some(entry) = self.files.get_mut(&child) {
                entry.fork = Some(fork);
                self.changed = true;
            }
        }
    }

    /// The cached summary of a file if its stamp is unchanged.
    pub fn hit(&self, path: &Path, stamp: &FileStamp) -> Option<&CachedFile> {
        self.files.get(path).filter(|c| c.stamp == *stamp)
    }
}

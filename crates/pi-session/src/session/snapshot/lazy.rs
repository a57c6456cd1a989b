//! Messages' metas (model, usage, tool fields) of a session opened from its snapshot, decoded
//! when first read rather than when the session opens. The snapshot keeps them in a section of
//! their own after its payload, in blocks of [`BLOCK`] entries; opening the session only points
//! each message at its place in its block (a [`LazyBlock`] whose loader is the codec's
//! `LazyMetas`), and the first read of a block reads that block's bytes from the snapshot file
//! ([`MetaSource::block`]) and decodes them. Opening a big session and building the context
//! at its leaf then touches a few blocks, not the tens of megabytes of fresh memory that all of
//! them take decoded.
//!
//! A block is checked against its own checksum when it is read. A block that cannot be read or
//! does not match (the snapshot was changed in place after it was opened: nothing of the project
//! does that) is taken from the session file read in full instead
//! ([`MetaSource::from_session`]), and the snapshot is removed so that the next open reads the
//! file and saves a good one.
//!
//! [`LazyBlock`]: pi_session_format::meta::LazyBlock

use std::fs::File;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use pi_session_format::entry::{Detail, MessageMeta};
use pi_session_format::header::FileStamp;

use crate::session::SessionIndex;

/// Entries per block: the metas of a block are read and decoded together.
pub(crate) const BLOCK: usize = 1024;

/// The snapshot file a session was opened from, for its blocks of metas.
pub(crate) struct MetaSource {
    file: Mutex<File>,
    /// Where the snapshot file is (to remove it when a block of it is damaged).
    snapshot: PathBuf,
    /// File offset of the metas section.
    section: u64,
    /// The session file, and its inode when the snapshot was opened.
    session: PathBuf,
    ino: u64,
    /// The session file read in full, when a block had to be taken from it.
    fallback: OnceLock<Option<SessionIndex>>,
}

impl MetaSource {
    pub(crate) fn new(file: File, snapshot: PathBuf, section: u64, session: PathBuf, ino: u64) -> MetaSource {
        MetaSource { file: Mutex::new(file), snapshot, section, session, ino, fallback: OnceLock::new() }
    }

    fn read(&self, at: u64, len: u32) -> Option<Vec<u8>> {
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        crate::session::read_at(&mut f, self.section.checked_add(at)?, len as usize).ok()
    }

    /// The session file read in full (once), when it is still the file the snapshot described.
    fn fallback(&self) -> Option<&SessionIndex> {
        self.fallback
            .get_or_init(|| {
                // The snapshot no longer vouches for itself: the next open reads the file.
                let ours = self.file.lock().ok().and_then(|f| f.metadata().ok()).map(|m| FileStamp::of(&m).ino);
                let there = std::fs::metadata(&self.snapshot).ok().map(|m| FileStamp::of(&m).ino);
                if ours.is_some() && ours == there {
                    let _ = std::fs::remove_file(&self.snapshot);
                }
                SessionIndex::load(&self.session).ok().filter(|ix| ix.stamp.ino == self.ino)
            })
            .as_ref()
    }

    /// The bytes of a block's metas, when they can be read and match their checksum.
    pub(super) fn block(&self, place: &BlockAt) -> Option<Vec<u8>> {
        self.read(place.at, place.len).filter(|b| super::checksum(b) == place.sum)
    }

    /// The metas of the block of entries from `first` as the session file read in full gives
    /// them: the metas of the block's messages, in entry order (the file only grows, so its
    /// entries are the snapshot's).
    pub(super) fn from_session(&self, first: u32) -> Vec<MessageMeta> {
        let Some(ix) = self.fallback() else { return Vec::new() };
        let first = first as usize;
        let end = (first + BLOCK).min(ix.entries.len());
        ix.entries
            .get(first..end)
            .unwrap_or_default()
            .iter()
            .filter_map(|e| match &e.detail {
                Detail::Message { meta: Some(m), .. } => Some((**m).clone()),
                _ => None,
            })
            .collect()
    }
}

/// Where a block's metas are in the metas section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockAt {
    /// Messages with a meta in the block.
    pub(crate) count: u32,
    pub(crate) at: u64,
    pub(crate) len: u32,
    pub(crate) sum: u64,
}

#[cfg(test)]
mod tests {
    use pi_session_format::entry::{Detail, Entry};
    use crate::session::SkeletonCache;
    use crate::Session;

    fn decoded(e: &Entry) -> Option<bool> {
        match &e.detail {
            Detail::Message { meta: Some(m), .. } => m.decoded(),
            _ => None,
        }
    }

    #[test]
    fn a_session_opened_from_its_snapshot_decodes_a_block_of_metas_when_first_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut s = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n");
        let n = 3 * super::BLOCK;
        for i in 0..n {
            let parent = if i == 0 { "null".to_string() } else { format!("\"{i:08x}\"") };
            s += &format!(
                "{{\"type\":\"message\",\"id\":\"{:08x}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{{\"role\":\"assistant\",\"content\":[],\"provider\":\"p\",\"model\":\"m{i}\",\"usage\":{{\"input\":{i},\"output\":2,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":3,\"cost\":{{\"total\":0.5}}}}}}}}\n",
                i + 1
            );
        }
        std::fs::write(&path, s).unwrap();
        let cache = SkeletonCache::new(dir.path().join("cache"), 0);
        let (read, _) = cache.open_and_save(&path).unwrap();
        assert!(read.index.entries.iter().all(|e| decoded(e).is_none()), "a file read in full holds its metas");
        let (s, used) = cache.open(&path).unwrap();
        assert_eq!(used, crate::session::CacheUse::Hit);
        let entries: &[Entry] = &s.index.entries;
        assert!(entries.iter().all(|e| decoded(e) == Some(false)), "no meta decoded by the open");
        // Reading one meta decodes its block, and only that one.
        let k = super::BLOCK + 5;
        assert_eq!(entries[k].meta().unwrap().model.as_deref(), Some(format!("m{k}").as_str()));
        assert_eq!(entries[k].usage().unwrap().input, k as f64);
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(decoded(e), Some(i / super::BLOCK == 1), "entry {i}");
        }
        assert_eq!(Session::open(&path).unwrap().index.entries, s.index.entries);
    }
}

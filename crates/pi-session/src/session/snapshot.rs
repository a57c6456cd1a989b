//! The skeleton cache: a big session's index saved beside the listing cache, so that opening
//! it again reads a few megabytes of skeletons instead of parsing every line.
//!
//! A snapshot is the whole in-memory index (entries, id map, findings, the read position and
//! the checkpoint a refresh rolls back to) and the tree built from it. It is used only while
//! it still describes the file:
//! - same inode, size and mtime, and the same bytes at the file's start and before the end of
//!   its last complete line: used as it is;
//! - the same file grown (same inode, same start and end bytes, longer): the appended lines
//!   are read as a refresh reads them, and the snapshot is saved again;
//! - anything else (rewritten, truncated, replaced, a damaged or foreign snapshot): the file
//!   is read in full and the snapshot replaced.
//!
//! Only the cache folder is written, never the session file. Snapshots are written to a
//! temporary file and renamed into place; at most [`KEEP`] are kept, the oldest removed.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use pi_session_format::header::FileStamp;

use super::{read_at, Refresh};
use crate::tree::Tree;
use crate::{Error, Session};

mod codec;
mod lazy;
use codec::{decode, encode, Writer};
use lazy::MetaSource;

/// Bumped whenever the index or this encoding changes.
const FORMAT: u32 = 2;
const MAGIC: &[u8; 8] = b"PISKEL\0\0";
/// Files smaller than this are read in full (parsing them costs about as much as decoding).
const MIN_BYTES: u64 = 4 * 1024 * 1024;
/// Snapshots kept in the cache folder.
const KEEP: usize = 32;
/// Bytes compared at the file's start and before the end of its last complete line.
const PROBE: u64 = 4096;

/// How an open used the skeleton cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUse {
    /// No cache: the file is small, or no cache folder is set.
    Off,
    /// The snapshot described the file as it is.
    Hit,
    /// The snapshot described the start of the file; the appended lines were read.
    Extended,
    /// No usable snapshot: the file was read in full (and a snapshot saved).
    Miss,
}

/// The cache folder: `$PI_SESSION_CACHE_DIR`, else the platform cache folder.
pub fn cache_dir() -> Option<PathBuf> {
    std::env::var_os("PI_SESSION_CACHE_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("pi-session-explorer")))
}

/// Smallest file the cache is used for (`$PI_SESSION_SKELETON_MIN_BYTES` overrides it; `off`
/// turns the cache off).
fn min_bytes() -> Option<u64> {
    match std::env::var("PI_SESSION_SKELETON_MIN_BYTES") {
        Ok(v) if v == "off" => None,
        Ok(v) => Some(v.trim().parse().unwrap_or(MIN_BYTES)),
        Err(_) => Some(MIN_BYTES),
    }
}

fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// The session file's canonical path: what a snapshot is named by and records.
fn key_of(path: &Path) -> String {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()).to_string_lossy().into_owned()
}

fn snapshot_file(dir: &Path, key: &str) -> PathBuf {
    dir.join("skeletons").join(format!("{:016x}.bin", fnv(key.as_bytes())))
}

/// Hash of the bytes the snapshot vouches for at the start and at the end of what it read.
fn probes(f: &mut File, committed_len: u64) -> std::io::Result<(u64, u64)> {
    let head = read_at(f, 0, committed_len.min(PROBE) as usize)?;
    let from = committed_len.saturating_sub(PROBE);
    let tail = read_at(f, from, (committed_len - from) as usize)?;
    Ok((fnv(&head), fnv(&tail)))
}

/// Where snapshots live, and from what size a file gets one.
#[derive(Debug, Clone)]
pub struct SkeletonCache {
    dir: PathBuf,
    min: u64,
}

impl SkeletonCache {
    /// Snapshots in `dir` for files of `min` bytes or more.
    pub fn new(dir: impl Into<PathBuf>, min: u64) -> SkeletonCache {
        SkeletonCache { dir: dir.into(), min }
    }

    /// The cache as the environment sets it: `None` when it is turned off or there is no
    /// cache folder.
    pub fn from_env() -> Option<SkeletonCache> {
        Some(SkeletonCache::new(cache_dir()?, min_bytes()?))
    }

    /// Opens a session from its snapshot when one still describes the file (see the module
    /// documentation). Saves nothing: after a [`CacheUse::Miss`] or [`CacheUse::Extended`],
    /// [`SkeletonCache::save`] it (the app does that off the request that opened it).
    pub fn open(&self, path: &Path) -> Result<(Session, CacheUse), Error> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if !meta.is_file() || meta.len() < self.min {
            return Ok((Session::open(path)?, CacheUse::Off));
        }
        let now = FileStamp::of(&meta);
        let key = key_of(path);
        if let Some(mut s) = read_snapshot(&snapshot_file(&self.dir, &key), path, &key) {
            if s.index.stamp == now {
                return Ok((s, CacheUse::Hit));
            }
            // Grown in place: read the new lines as the app reads an append (a refresh reads
            // the whole file again itself when the last line it read changed). The tree is
            // built again in full, so the saved one is what a full read builds (its walk
            // numbers included).
            if now.ino == s.index.stamp.ino && now.len > s.index.stamp.len {
                let r = s.index.refresh()?;
                s.tree = Tree::build(&s.index);
                return Ok((s, if r == Refresh::Reloaded { CacheUse::Miss } else { CacheUse::Extended }));
            }
        }
        Ok((Session::open(path)?, CacheUse::Miss))
    }

    /// Saves the snapshot of `s` (best effort: a cache that cannot be written is no error).
    pub fn save(&self, s: &Session) {
        if let Some(e) = self.encode(s) {
            e.write();
        }
    }

    /// The snapshot of `s`, encoded (`None` for a file below the size threshold, or one that
    /// cannot be read back); [`Encoded::write`] saves it.
    pub fn encode(&self, s: &Session) -> Option<Encoded> {
        (s.index.stamp.len >= self.min).then(|| encode_session(&self.dir, s)).flatten()
    }

    /// [`SkeletonCache::open`], then `work` on the session while the snapshot, when it was
    /// missing or behind, is saved on another thread ([`Session::with_cached`]).
    pub fn with<R>(&self, path: &Path, work: impl FnOnce(&Session) -> R) -> Result<R, Error> {
        let (s, used) = self.open(path)?;
        let r = std::thread::scope(|sc| {
            if matches!(used, CacheUse::Miss | CacheUse::Extended) {
                sc.spawn(|| self.save(&s));
            }
            work(&s)
        });
        // The command ends here: the OS takes the memory back at once, without a walk over
        // every entry to free it.
        std::mem::forget(s);
        Ok(r)
    }

    /// [`SkeletonCache::open`], then the snapshot saved when it was missing or behind.
    pub fn open_and_save(&self, path: &Path) -> Result<(Session, CacheUse), Error> {
        let (s, used) = self.open(path)?;
        if matches!(used, CacheUse::Miss | CacheUse::Extended) {
            self.save(&s);
        }
        Ok((s, used))
    }
}

impl Session {
    /// [`Session::open`] through the skeleton cache the environment sets (saving the snapshot
    /// when it was missing or behind); a plain open when it is off.
    pub fn open_cached(path: impl AsRef<Path>) -> Result<(Session, CacheUse), Error> {
        match SkeletonCache::from_env() {
            Some(c) => c.open_and_save(path.as_ref()),
            None => Ok((Session::open(path)?, CacheUse::Off)),
        }
    }

    /// [`Session::open_cached`] for a command that answers from the session and ends: `work`
    /// runs on the session while its snapshot, when missing or behind, is encoded and written
    /// on another thread, so the answer does not wait for the save (the 165 MB session's 32 MB
    /// snapshot takes about 35 ms to encode and write). Returns once both are done.
    pub fn with_cached<R>(path: impl AsRef<Path>, work: impl FnOnce(&Session) -> R) -> Result<R, Error> {
        match SkeletonCache::from_env() {
            Some(cache) => cache.with(path.as_ref(), work),
            None => {
                let s = Session::open(path)?;
                let r = work(&s);
                // As below: no walk to free what the process is about to give back.
                std::mem::forget(s);
                Ok(r)
            }
        }
    }

    /// [`Session::open_cached`] with the cache in `dir`, for files of `min` bytes or more.
    pub fn open_with_cache(path: &Path, dir: &Path, min: u64) -> Result<(Session, CacheUse), Error> {
        SkeletonCache::new(dir, min).open_and_save(path)
    }
}

/// A snapshot of `path`, when there is one that still matches the file's bytes it vouches for.
/// The file holds a 28-byte head (magic, format, the payload's length and checksum), the payload,
/// then the messages' metas, read when first used (`lazy.rs`).
fn read_snapshot(file: &Path, path: &Path, key: &str) -> Option<Session> {
    let mut f = File::open(file).ok()?;
    let file_len = f.metadata().ok()?.len();
    let head = read_at(&mut f, 0, 28).ok()?;
    if &head[..8] != MAGIC || u32::from_le_bytes(head[8..12].try_into().ok()?) != FORMAT {
        return None;
    }
    let len = u64::from_le_bytes(head[12..20].try_into().ok()?);
    let sum = u64::from_le_bytes(head[20..28].try_into().ok()?);
    let end = len.checked_add(28).filter(|&end| end <= file_len)?;
    let bytes = super::file_bytes::FileBytes::map(&f, usize::try_from(end).ok()?).ok()?;
    let body = &bytes[28..];
    let source = |ino| std::sync::Arc::new(MetaSource::new(f, file.to_path_buf(), end, path.to_path_buf(), ino));
    // The checksum is computed while the payload decodes (decoding damage is safe: every read
    // is bounds-checked); a mismatch discards the result.
    let (good, decoded) = rayon::join(|| checksum(body) == sum, || decode(body, path, key, file_len - end, source));
    let (s, probe) = decoded.filter(|_| good)?;
    let mut f = File::open(path).ok()?;
    (probes(&mut f, s.index.committed_len).ok()? == probe).then_some(s)
}

/// A fast 64-bit checksum (four independent multiply-xor lanes over 8-byte words): it tells a
/// damaged snapshot from a good one, it is no defence against a crafted one (nothing read from
/// a snapshot can do more than a session file could).
fn checksum(b: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut lanes = [1u64, 2, 3, 4];
    let mut words = b.chunks_exact(32);
    for c in &mut words {
        for (i, lane) in lanes.iter_mut().enumerate() {
            let w = u64::from_le_bytes(c[i * 8..i * 8 + 8].try_into().unwrap());
            *lane = (*lane ^ w).wrapping_mul(K).rotate_left(29);
        }
    }
    let mut h = (b.len() as u64).wrapping_mul(K);
    for (i, &x) in words.remainder().iter().enumerate() {
        h ^= (x as u64) << ((i % 8) * 8);
        if i % 8 == 7 {
            h = h.wrapping_mul(K).rotate_left(29);
        }
    }
    for lane in lanes {
        h = (h ^ lane).wrapping_mul(K).rotate_left(29);
    }
    h
}

/// Writes a snapshot of `ix` (best effort: a cache that cannot be written is no error).
/// A snapshot encoded and ready to be written (so the session can be let go of first).
pub struct Encoded {
    file: PathBuf,
    payload: Vec<u8>,
    /// The messages' metas: the section after the payload.
    metas: Vec<u8>,
}

fn encode_session(dir: &Path, s: &Session) -> Option<Encoded> {
    let ix = &s.index;
    let key = key_of(&ix.path);
    let mut f = File::open(&ix.path).ok()?;
    let probe = probes(&mut f, ix.committed_len).ok()?;
    let mut payload = Vec::with_capacity(64 + ix.entries.len() * 100);
    let mut metas = Vec::with_capacity(ix.entries.len() * 100);
    Writer(&mut payload).str(&key);
    encode(&mut payload, &mut metas, ix, probe);
    Writer(&mut payload).tree(&s.tree);
    Some(Encoded { file: snapshot_file(dir, &key), payload, metas })
}

impl Encoded {
    /// Writes the snapshot ([`crate::atomic::replace_unsynced_with`]: the head's length and
    /// checksum and the file's probes reject a snapshot a crash spoiled; best effort: a cache
    /// that cannot be written is no error).
    pub fn write(self) {
        let (file, w, metas) = (self.file, self.payload, self.metas);
        let Some(dir) = file.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let ok = crate::atomic::replace_unsynced_with(&file, |out| {
            out.write_all(MAGIC)?;
            out.write_all(&FORMAT.to_le_bytes())?;
            out.write_all(&(w.len() as u64).to_le_bytes())?;
            out.write_all(&checksum(&w).to_le_bytes())?;
            out.write_all(&w)?;
            out.write_all(&metas)
        })
        .is_ok();
        if !ok {
            return;
        }
        prune(dir);
    }
}

/// Keeps the [`KEEP`] most recently written snapshots (and removes temporary files a stopped
/// process left over an hour ago).
fn prune(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut all: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    for e in rd.filter_map(|e| e.ok()) {
        let Some(modified) = e.metadata().ok().and_then(|m| m.modified().ok()) else { continue };
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".bin") {
            all.push((modified, e.path()));
        } else if name.ends_with(".tmp") && modified < hour_ago {
            let _ = std::fs::remove_file(e.path());
        }
    }
    if all.len() <= KEEP {
        return;
    }
    all.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (_, p) in all.drain(KEEP..) {
        let _ = std::fs::remove_file(p);
    }
}

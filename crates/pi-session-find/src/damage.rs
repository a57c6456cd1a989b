//! A database file of this crate that SQLite finds damaged (`SQLITE_CORRUPT`, `SQLITE_NOTADB`)
//! is never deleted: it is renamed beside itself, `<file>.damaged-<timestamp>`, with its
//! write-ahead log and shared-memory files (`…-wal`, `…-shm`, renamed the same way so the
//! three still open together) and, for the search index, its folder of posting files
//! (`…-postings`). The search index, a cache, is then rebuilt at once; the
//! organiser's file (the user's tags) is set aside only when the user asks.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// SQLite says the file is not a database, or is one whose pages do not add up.
pub fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase))
}

/// The file's length is short of the pages its header counts (the file was cut short).
/// SQLite itself notices only when a query reads a missing page; this is checked on open.
pub fn cut_short(db: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = [0u8; 100];
    let mut f = std::fs::File::open(db).ok()?;
    let len = f.metadata().ok()?.len();
    f.read_exact(&mut head).ok()?;
    if &head[..16] != b"SQLite format 3\0" {
        return None;
    }
    let page = match u16::from_be_bytes([head[16], head[17]]) {
        1 => 65536,
        n => n as u64,
    };
    let pages = u32::from_be_bytes(head[28..32].try_into().ok()?) as u64;
    // The page count is valid only when the change counter matches its "valid for" copy.
    let valid = head[24..28] == head[92..96];
    (valid && pages > 0 && len < pages * page).then(|| format!("the file holds {len} bytes, its header counts {pages} pages of {page} bytes"))
}

/// A database file found damaged, and where it was put.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SetAside {
    /// The file as it was named.
    pub path: String,
    /// Where it is now (beside it, `.damaged-<timestamp>`).
    pub moved_to: String,
    /// What SQLite (or the check of its length) said.
    pub reason: String,
    /// When, in milliseconds since the epoch.
    pub at: f64,
}

/// Renames `db` (and its `-wal` and `-shm` files, when present) to `<db>.damaged-<UTC time>`
/// (`-2`, `-3`, … when that name is taken); nothing is deleted or overwritten.
pub fn set_aside(db: &Path, reason: &str) -> std::io::Result<SetAside> {
    let now = chrono::Utc::now();
    let stamp = now.format("%Y-%m-%dT%H-%M-%S-%3fZ").to_string();
    let name = db.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let beside = |suffix: &str| db.with_file_name(format!("{name}{suffix}"));
    let taken = |p: &Path| ["", "-wal", "-shm", "-postings"].iter().any(|x| beside_of(p, x).symlink_metadata().is_ok());
    let mut to = beside(&format!(".damaged-{stamp}"));
    let mut k = 2;
    while taken(&to) {
        to = beside(&format!(".damaged-{stamp}-{k}"));
        k += 1;
    }
    for x in ["-wal", "-shm", "-postings"] {
        let from = beside_of(db, x);
        if from.symlink_metadata().is_ok() {
            std::fs::rename(&from, beside_of(&to, x))?;
        }
    }
    if db.symlink_metadata().is_ok() {
        std::fs::rename(db, &to)?;
    }
    Ok(SetAside { path: db.to_string_lossy().into_owned(), moved_to: to.to_string_lossy().into_owned(), reason: reason.to_string(), at: now.timestamp_millis() as f64 })
}

/// `<p>-wal`, `<p>-shm`, or `p` itself for `""`.
fn beside_of(p: &Path, suffix: &str) -> PathBuf {
    let mut s = p.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_aside_keeps_every_byte_and_never_takes_a_name_in_use() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.sqlite");
        std::fs::write(&db, b"main").unwrap();
        std::fs::write(dir.path().join("x.sqlite-wal"), b"log").unwrap();
        let a = set_aside(&db, "r").unwrap();
        assert!(!db.exists() && !dir.path().join("x.sqlite-wal").exists());
        assert_eq!(std::fs::read(&a.moved_to).unwrap(), b"main");
        assert_eq!(std::fs::read(format!("{}-wal", a.moved_to)).unwrap(), b"log");
        assert!(a.moved_to.contains("x.sqlite.damaged-"), "{}", a.moved_to);
        // Twice within one millisecond, or a name already taken: a new name, nothing replaced.
        std::fs::write(&db, b"again").unwrap();
        std::fs::write(Path::new(&a.moved_to).with_file_name(format!("{}-shm", Path::new(&a.moved_to).file_name().unwrap().to_string_lossy())), b"").unwrap();
        let b = set_aside(&db, "r").unwrap();
        assert_ne!(a.moved_to, b.moved_to);
        assert_eq!(std::fs::read(&a.moved_to).unwrap(), b"main");
        assert_eq!(std::fs::read(&b.moved_to).unwrap(), b"again");
    }
}

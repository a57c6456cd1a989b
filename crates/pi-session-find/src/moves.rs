//! Moving archived sessions' files out of a sessions root, and back: an explicit action the
//! user confirms, recorded in the app's data folder so it can be undone.
//!
//! Archiving alone only hides a session in the app. Moving its file takes it out of pi's own
//! lists too (`/resume`): each file goes to the same relative path under `<root>-archive`, a
//! sibling of the root (never under it). Bytes are never changed: a file is renamed (same
//! inode) or, across file systems, copied to a temporary file beside its target, synced,
//! compared byte for byte, renamed into place, and only then removed from the root. A target
//! that exists is never overwritten. Undo moves the files of a batch back the same way.

use std::path::{Path, PathBuf};

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use pi_session::pathstr::{decode, encode};

use crate::organise::Organiser;
use crate::{DbResult, Error};

/// One file to move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MoveItem {
    pub session_id: String,
    pub from: String,
    pub to: String,
}

/// A recorded move: what went where, and whether it was undone.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MoveBatch {
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub id: i64,
    /// Milliseconds since the epoch.
    pub at: f64,
    /// The files moved (for an undone batch: moved back).
    pub items: Vec<MoveItem>,
    /// Files that could not be moved, with the reason; nothing happened to them.
    pub skipped: Vec<MoveSkip>,
    pub undone: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MoveSkip {
    pub path: String,
    pub reason: String,
}

/// `<root>-archive`: where the archived files of `root` go.
pub fn archive_dir_of(root: &Path) -> PathBuf {
    let name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "sessions".into());
    root.with_file_name(format!("{name}-archive"))
}

/// The move of `file` (under `root`) into the root's archive folder.
pub fn planned_item(session_id: &str, root: &Path, file: &Path) -> Option<MoveItem> {
    let rel = file.strip_prefix(root).ok()?;
    Some(MoveItem { session_id: session_id.into(), from: encode(file), to: encode(&archive_dir_of(root).join(rel)) })
}

fn now_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as f64).unwrap_or(0.0)
}

/// Moves one file without changing a byte; never over an existing file.
pub fn move_file(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind};
    if to.symlink_metadata().is_ok() {
        return Err(Error::new(ErrorKind::AlreadyExists, format!("{} already exists", to.display())));
    }
    let meta = from.symlink_metadata()?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file (a symbolic link is left where it is)"));
    }
    let dir = to.parent().ok_or_else(|| Error::new(ErrorKind::InvalidInput, "no parent folder"))?;
    std::fs::create_dir_all(dir)?;
    // Same file system: a rename keeps the inode and every byte. Linking first means an
    // existing target is never replaced (a rename would replace it).
    match std::fs::hard_link(from, to) {
        Ok(()) => {
            std::fs::remove_file(from)?;
            sync_dir(dir);
            if let Some(d) = from.parent() {
                sync_dir(d);
            }
            return Ok(());
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => return Err(e),
        Err(_) => {}
    }
    // Another file system (or no hard links): copy, sync, compare, then remove the original.
    let tmp = dir.join(format!(".{}.moving-{}", to.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), std::process::id()));
    let result = (|| {
        std::fs::copy(from, &tmp)?;
        std::fs::File::open(&tmp)?.sync_all()?;
        if !same_bytes(from, &tmp)? {
            return Err(Error::other("the copy differs from the original (the file changed while it was copied)"));
        }
        std::fs::hard_link(&tmp, to)?;
        std::fs::remove_file(&tmp)?;
        sync_dir(dir);
        std::fs::remove_file(from)?;
        if let Some(d) = from.parent() {
            sync_dir(d);
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn same_bytes(a: &Path, b: &Path) -> std::io::Result<bool> {
    Ok(std::fs::read(a)? == std::fs::read(b)?)
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

impl Organiser {
    pub(crate) fn init_moves(c: &rusqlite::Connection) -> rusqlite::Result<()> {
        c.execute_batch(
            "CREATE TABLE IF NOT EXISTS moves(id INTEGER PRIMARY KEY, at REAL NOT NULL, undone INTEGER NOT NULL DEFAULT 0);
             CREATE TABLE IF NOT EXISTS moved(batch INTEGER NOT NULL, session_id TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL, done INTEGER NOT NULL DEFAULT 0);
             CREATE INDEX IF NOT EXISTS moved_batch ON moved(batch);",
        )
    }

    /// Moves the files of `items` (each `from` → `to`), recording the batch first so that a
    /// crash half-way leaves a record of what was meant. Files that cannot be moved are
    /// skipped with their reason.
    pub fn move_files(&self, items: &[MoveItem]) -> Result<MoveBatch, Error> {
        let at = now_ms();
        let batch = {
            let mut c = self.conn.lock().unwrap();
            let tx = c.transaction().org(&self.db)?;
            tx.execute("INSERT INTO moves(at) VALUES(?1)", [at]).org(&self.db)?;
            let id = tx.last_insert_rowid();
            for it in items {
                tx.execute("INSERT INTO moved(batch, session_id, src, dst) VALUES(?1, ?2, ?3, ?4)", params![id, it.session_id, it.from, it.to]).org(&self.db)?;
            }
            tx.commit().org(&self.db)?;
            id
        };
        let mut done = Vec::new();
        let mut skipped = Vec::new();
        for it in items {
            match move_file(&decode(&it.from), &decode(&it.to)) {
                Ok(()) => {
                    self.conn.lock().unwrap().execute("UPDATE moved SET done=1 WHERE batch=?1 AND src=?2", params![batch, it.from]).org(&self.db)?;
                    done.push(it.clone());
                }
                Err(e) => skipped.push(MoveSkip { path: it.from.clone(), reason: e.to_string() }),
            }
        }
        Ok(MoveBatch { id: batch, at, items: done, skipped, undone: false })
    }

    /// Moves the files of a batch back where they were (those still at their new place).
    pub fn undo_move(&self, batch: i64) -> Result<MoveBatch, Error> {
        let (at, undone): (f64, bool) = {
            let c = self.conn.lock().unwrap();
            c.query_row("SELECT at, undone FROM moves WHERE id=?1", [batch], |r| Ok((r.get(0)?, r.get(1)?))).optional().org(&self.db)?.ok_or_else(|| Error::Invalid(format!("no move {batch}")))?
        };
        if undone {
            return Err(Error::Invalid(format!("move {batch} was already undone")));
        }
        let items = self.batch_items(batch)?;
        let mut back = Vec::new();
        let mut skipped = Vec::new();
        for it in items {
            match move_file(&decode(&it.to), &decode(&it.from)) {
                Ok(()) => {
                    self.conn.lock().unwrap().execute("UPDATE moved SET done=0 WHERE batch=?1 AND src=?2", params![batch, it.from]).org(&self.db)?;
                    back.push(it);
                }
                Err(e) => skipped.push(MoveSkip { path: it.to.clone(), reason: e.to_string() }),
            }
        }
        if skipped.is_empty() {
            self.conn.lock().unwrap().execute("UPDATE moves SET undone=1 WHERE id=?1", [batch]).org(&self.db)?;
        }
        Ok(MoveBatch { id: batch, at, items: back, skipped: skipped.clone(), undone: skipped.is_empty() })
    }

    fn batch_items(&self, batch: i64) -> Result<Vec<MoveItem>, Error> {
        let c = self.conn.lock().unwrap();
        let mut st = c.prepare_cached("SELECT session_id, src, dst FROM moved WHERE batch=?1 AND done=1 ORDER BY rowid").org(&self.db)?;
        let rows = st.query_map([batch], |r| Ok(MoveItem { session_id: r.get(0)?, from: r.get(1)?, to: r.get(2)? })).org(&self.db)?;
        rows.collect::<Result<_, _>>().org(&self.db)
    }

    /// The last moves not undone, newest first (at most `n`).
    pub fn recent_moves(&self, n: usize) -> Result<Vec<MoveBatch>, Error> {
        let ids: Vec<(i64, f64)> = {
            let c = self.conn.lock().unwrap();
            let mut st = c.prepare_cached("SELECT id, at FROM moves WHERE undone=0 ORDER BY id DESC LIMIT ?1").org(&self.db)?;
            let rows = st.query_map([n as i64], |r| Ok((r.get(0)?, r.get(1)?))).org(&self.db)?;
            rows.collect::<Result<_, _>>().org(&self.db)?
        };
        let mut out = Vec::new();
        for (id, at) in ids {
            let items = self.batch_items(id)?;
            if !items.is_empty() {
                out.push(MoveBatch { id, at, items, skipped: Vec::new(), undone: false });
            }
        }
        Ok(out)
    }
}

/// What moving the archived sessions' files would do, for the user to confirm.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MovePlan {
    pub items: Vec<MoveItem>,
    /// Archived sessions whose files stay, with the reason.
    pub skipped: Vec<MoveSkip>,
    /// The archive folders the files go to (one per root).
    pub dirs: Vec<String>,
}

/// Files written to this recently are left alone: pi may still be appending to them.
pub const QUIET_SECS: u64 = 60;

/// The plan for the archived sessions among `sessions` (session id, file): each file into its
/// root's archive folder; files in a read-only root (or all, when `read_only`), symbolic
/// links and files written in the last minute are skipped.
pub fn plan_archived(org: &Organiser, sessions: &[(Option<String>, PathBuf)], roots: &pi_session::roots::Roots, read_only: bool) -> Result<MovePlan, Error> {
    let marks = org.all()?;
    let mut plan = MovePlan::default();
    for (id, file) in sessions {
        let Some(id) = id.as_deref().filter(|id| marks.get(*id).is_some_and(|m| m.archived)) else { continue };
        let skip = |reason: &str| MoveSkip { path: encode(file), reason: reason.into() };
        let Some(root) = roots.holding(file) else {
            plan.skipped.push(skip("outside every sessions root"));
            continue;
        };
        if read_only || root.read_only {
            plan.skipped.push(skip("its root is read-only"));
            continue;
        }
        let Ok(meta) = file.symlink_metadata() else {
            plan.skipped.push(skip("cannot be read"));
            continue;
        };
        if meta.file_type().is_symlink() {
            plan.skipped.push(skip("a symbolic link (left where it is)"));
            continue;
        }
        let age = meta.modified().ok().and_then(|m| std::time::SystemTime::now().duration_since(m).ok());
        if age.is_none_or(|a| a.as_secs() < QUIET_SECS) {
            plan.skipped.push(skip("written to in the last minute (pi may still be using it)"));
            continue;
        }
        let Some(item) = planned_item(id, &root.path, file) else { continue };
        let dir = encode(&archive_dir_of(&root.path));
        if !plan.dirs.contains(&dir) {
            plan.dirs.push(dir);
        }
        plan.items.push(item);
    }
    Ok(plan)
}

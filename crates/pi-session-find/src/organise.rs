//! Tags, pins and archive: the app's own marks on sessions, in SQLite in the app's data folder
//! (`$PI_EXPLORER_DATA_DIR`, else the platform data folder), keyed by the session id of the
//! header, so they follow a file that is renamed or moved. Session files are never touched:
//! archiving hides a session from the default list, nothing more.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::{DbResult, Error};

/// The marks of one session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Marks {
    pub tags: Vec<String>,
    pub pinned: bool,
    pub archived: bool,
}

impl Marks {
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty() && !self.pinned && !self.archived
    }
}

/// A tag and how many sessions carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct TagCount {
    pub tag: String,
    pub sessions: usize,
}

pub struct Organiser {
    pub(crate) db: PathBuf,
    pub(crate) conn: Mutex<Connection>,
}

/// `$PI_EXPLORER_DATA_DIR/organise.sqlite` (the app's data folder), else `<platform data folder>/pi-session-explorer/organise.sqlite`.
pub fn default_db_path() -> Result<PathBuf, Error> {
    let dir = std::env::var_os("PI_EXPLORER_DATA_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| dirs::data_dir().map(|d| d.join("pi-session-explorer")))
        .ok_or(Error::NoFolder)?;
    Ok(dir.join("organise.sqlite"))
}

/// A tag: trimmed, 1 to 64 characters, no control characters.
pub fn normalise_tag(t: &str) -> Result<String, Error> {
    let t = t.trim();
    if t.is_empty() || t.chars().count() > 64 || t.chars().any(char::is_control) {
        return Err(Error::Invalid(format!("invalid tag {t:?}: 1 to 64 characters, no control characters")));
    }
    Ok(t.to_string())
}

/// Why the database at `db` is damaged, if it is: empty or shorter than its header says, not
/// a database, or failing SQLite's `quick_check`. Read through a read-only connection, which
/// writes nothing (not even a checkpoint of its log) into the file. `None` for no file yet.
fn damage_of(db: &Path) -> Result<Option<String>, Error> {
    use rusqlite::OpenFlags;
    match std::fs::metadata(db) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(Error::Io { path: db.to_path_buf(), source }),
        // SQLite writes a header as soon as it creates our tables: an empty file lost them.
        Ok(m) if m.len() == 0 => return Ok(Some("the file is empty".into())),
        Ok(_) => {}
    }
    if let Some(why) = crate::damage::cut_short(db) {
        return Ok(Some(why));
    }
    // `immutable`: the file alone, no lock, no log or shared-memory file made beside it.
    let uri = format!("file:{}?immutable=1", uri_path(db));
    let check = Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .and_then(|c| c.query_row("PRAGMA quick_check", [], |r| r.get::<_, String>(0)));
    match check {
        Ok(ok) if ok == "ok" => Ok(None),
        Ok(problem) => Ok(Some(problem)),
        Err(e) if crate::damage::is_damage(&e) => Ok(Some(e.to_string())),
        Err(source) => Err(Error::Db { path: db.to_path_buf(), source }),
    }
}

/// `path` for a `file:` URI: every byte but letters, digits and `/-_.~` percent-encoded.
fn uri_path(path: &Path) -> String {
    let bytes = path.as_os_str().as_encoded_bytes();
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Sets the damaged database at `db` aside (renamed beside it, `.damaged-<time>`, with its
/// log; never deleted) so that the next [`Organiser::open`] starts a new one. Refused, with
/// nothing moved, when the file is not damaged.
pub fn set_aside(db: &Path) -> Result<crate::damage::SetAside, Error> {
    match damage_of(db)? {
        Some(reason) => crate::damage::set_aside(db, &reason).map_err(|source| Error::Io { path: db.to_path_buf(), source }),
        None => Err(Error::Invalid(format!("{} is not damaged: nothing was set aside", db.display()))),
    }
}

fn check_id(id: &str) -> Result<(), Error> {
    if id.is_empty() || id.len() > 256 {
        return Err(Error::Invalid("a session without an id in its header cannot be tagged, pinned or archived".into()));
    }
    Ok(())
}

impl Organiser {
    /// Opens (or creates) the database at `db`. A damaged one is refused with
    /// [`Error::OrganiserDamaged`] before anything is written to it: it stays as it is until
    /// the user sets it aside ([`set_aside`]).
    pub fn open(db: &Path) -> Result<Organiser, Error> {
        if let Some(dir) = db.parent() {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
        }
        if let Some(reason) = damage_of(db)? {
            return Err(Error::OrganiserDamaged { path: db.to_path_buf(), reason });
        }
        let conn = Connection::open(db).org(db)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA busy_timeout=5000;
             CREATE TABLE IF NOT EXISTS marks(session_id TEXT PRIMARY KEY, pinned INTEGER NOT NULL DEFAULT 0, archived INTEGER NOT NULL DEFAULT 0);
             CREATE TABLE IF NOT EXISTS tags(session_id TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY(session_id, tag));
             CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag);",
        )
        .org(db)?;
        Organiser::init_moves(&conn).org(db)?;
        Ok(Organiser { db: db.to_path_buf(), conn: Mutex::new(conn) })
    }

    pub fn open_default() -> Result<Organiser, Error> {
        Organiser::open(&default_db_path()?)
    }

    pub fn db_path(&self) -> &Path {
        &self.db
    }

    pub fn add_tag(&self, session_id: &str, tag: &str) -> Result<Marks, Error> {
        check_id(session_id)?;
        let tag = normalise_tag(tag)?;
        self.conn.lock().unwrap().execute("INSERT OR IGNORE INTO tags(session_id, tag) VALUES(?1, ?2)", params![session_id, tag]).org(&self.db)?;
        self.get(session_id)
    }

    pub fn remove_tag(&self, session_id: &str, tag: &str) -> Result<Marks, Error> {
        check_id(session_id)?;
        self.conn.lock().unwrap().execute("DELETE FROM tags WHERE session_id=?1 AND tag=?2", params![session_id, tag.trim()]).org(&self.db)?;
        self.get(session_id)
    }

    pub fn set_pinned(&self, session_id: &str, pinned: bool) -> Result<Marks, Error> {
        check_id(session_id)?;
        self.conn
            .lock()
            .unwrap()
            .execute("INSERT INTO marks(session_id, pinned) VALUES(?1, ?2) ON CONFLICT(session_id) DO UPDATE SET pinned=excluded.pinned", params![session_id, pinned])
            .org(&self.db)?;
        self.get(session_id)
    }

    pub fn set_archived(&self, session_id: &str, archived: bool) -> Result<Marks, Error> {
        check_id(session_id)?;
        self.conn
            .lock()
            .unwrap()
            .execute("INSERT INTO marks(session_id, archived) VALUES(?1, ?2) ON CONFLICT(session_id) DO UPDATE SET archived=excluded.archived", params![session_id, archived])
            .org(&self.db)?;
        self.get(session_id)
    }

    pub fn get(&self, session_id: &str) -> Result<Marks, Error> {
        Ok(self.all()?.remove(session_id).unwrap_or_default())
    }

    /// The marks of every session that has any, by session id.
    pub fn all(&self) -> Result<BTreeMap<String, Marks>, Error> {
        let c = self.conn.lock().unwrap();
        let mut out: BTreeMap<String, Marks> = BTreeMap::new();
        let mut st = c.prepare_cached("SELECT session_id, pinned, archived FROM marks").org(&self.db)?;
        for r in st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?, r.get::<_, bool>(2)?))).org(&self.db)? {
            let (id, pinned, archived) = r.org(&self.db)?;
            let m = out.entry(id).or_default();
            m.pinned = pinned;
            m.archived = archived;
        }
        let mut st = c.prepare_cached("SELECT session_id, tag FROM tags ORDER BY session_id, tag").org(&self.db)?;
        for r in st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).org(&self.db)? {
            let (id, tag) = r.org(&self.db)?;
            out.entry(id).or_default().tags.push(tag);
        }
        out.retain(|_, m| !m.is_empty());
        Ok(out)
    }

    /// Every tag in use, most used first.
    pub fn tags(&self) -> Result<Vec<TagCount>, Error> {
        let c = self.conn.lock().unwrap();
        let mut st = c.prepare_cached("SELECT tag, count(*) FROM tags GROUP BY tag ORDER BY count(*) DESC, tag").org(&self.db)?;
        let rows = st.query_map([], |r| Ok(TagCount { tag: r.get(0)?, sessions: r.get::<_, i64>(1)? as usize })).org(&self.db)?;
        rows.collect::<Result<_, _>>().org(&self.db)
    }
}

/// Which sessions a list shows: archived ones only when asked; with a tag filter, only
/// sessions carrying every tag; a text filter matches a tag by substring (case-insensitive).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MarkFilter {
    pub show_archived: bool,
    pub only_archived: bool,
    pub tags: Vec<String>,
    pub tag_text: Option<String>,
    pub only_pinned: bool,
}

impl MarkFilter {
    pub fn keeps(&self, m: Option<&Marks>) -> bool {
        let empty = Marks::default();
        let m = m.unwrap_or(&empty);
        if m.archived && !self.show_archived && !self.only_archived {
            return false;
        }
        if self.only_archived && !m.archived {
            return false;
        }
        if self.only_pinned && !m.pinned {
            return false;
        }
        if !self.tags.iter().all(|t| m.tags.iter().any(|x| x == t)) {
            return false;
        }
        if let Some(t) = self.tag_text.as_deref().map(str::to_lowercase).filter(|t| !t.is_empty()) {
            if !m.tags.iter().any(|x| x.to_lowercase().contains(&t)) {
                return false;
            }
        }
        true
    }
}

/// Which sessions a [`MarkFilter`] keeps: the marked sessions kept (by id), and whether a
/// session without marks is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct MarkSelection {
    pub ids: Vec<String>,
    pub unmarked: bool,
}

impl Organiser {
    /// The sessions `filter` keeps, for a list to show.
    pub fn select(&self, filter: &MarkFilter) -> Result<MarkSelection, Error> {
        let ids = self.all()?.into_iter().filter(|(_, m)| filter.keeps(Some(m))).map(|(id, _)| id).collect();
        Ok(MarkSelection { ids, unmarked: filter.keeps(None) })
    }
}

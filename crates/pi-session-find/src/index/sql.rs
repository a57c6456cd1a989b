//! The index's tables, and the SQL of a query without words (filters only).
//!
//! * `files`: one row per session file: stamp, how many bytes and lines are indexed, a hash of
//!   the indexed tail, header fields, name, title;
//! * `entries`: one row per entry line with an id (not `leaf` lines): id, line, role, type,
//!   tools, `provider/model`, timestamp, and where the line is in the file (offset, length);
//! * `blocks`: runs of consecutive entries of one file (about 16 kB of searchable text each),
//!   the unit of the posting lists;
//! * `segments`: the posting files (`segment.rs`: per key — an n-gram, a word pair, a tool, see
//!   [`crate::grams`] — the ids of the blocks holding it) and the blocks each covers; segment
//!   ids follow block order;
//! * `labels`: the labels in effect;
//! * `stamps`: a copy of every file's stamp in one blob, for a search's look at the files
//!   (`stamps.rs`).
//!
//! No text is stored: a candidate is checked, and a hit's snippet cut, from the session file
//! itself at the offset its entry row keeps.

use rusqlite::{Connection, OptionalExtension};

use crate::query::Query;

pub(super) const SCHEMA_VERSION: i64 = 10;

/// How long a statement waits for another connection's lock.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The schema before `stamps`: the same tables, so an index of it gets the table and is kept.
const WITHOUT_STAMPS: &str = "9";

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(
  id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER, mtime_ns INTEGER, ino INTEGER,
  indexed_bytes INTEGER, indexed_lines INTEGER, tail_hash INTEGER,
  session_id TEXT, cwd TEXT, parent_session TEXT, name TEXT, title TEXT, modified REAL);
CREATE TABLE IF NOT EXISTS entries(
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, entry_id TEXT, line INTEGER, role TEXT, kind TEXT,
  tools TEXT, model TEXT, ts REAL, off INTEGER, len INTEGER);
CREATE INDEX IF NOT EXISTS entries_file ON entries(file_id, entry_id);
CREATE INDEX IF NOT EXISTS entries_role ON entries(role);
CREATE TABLE IF NOT EXISTS labels(file_id INTEGER, entry_id TEXT, text TEXT, PRIMARY KEY(file_id, entry_id));
CREATE TABLE IF NOT EXISTS blocks(id INTEGER PRIMARY KEY AUTOINCREMENT, file_id INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS blocks_file ON blocks(file_id);
CREATE TABLE IF NOT EXISTS segments(id INTEGER PRIMARY KEY, first_block INTEGER NOT NULL, last_block INTEGER NOT NULL, bytes INTEGER NOT NULL, file TEXT NOT NULL);
";

/// Opens the database at `db` with the index's settings and schema (an older schema is
/// dropped: the index is a cache).
pub(super) fn connect(db: &std::path::Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(db)?;
    // The log file is cut back to 64 MB after each checkpoint (SQLite leaves it at its
    // largest size otherwise).
    conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA journal_size_limit=67108864;")?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let has_meta: bool = conn.query_row("SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'meta'", [], |r| r.get(0))?;
    let version: Option<String> = if has_meta { conn.query_row("SELECT value FROM meta WHERE key='schema'", [], |r| r.get(0)).optional()? } else { None };
    if version.as_deref() == Some(&SCHEMA_VERSION.to_string()) {
        // Nothing written: a process that only reads leaves the files as they were.
        return Ok(conn);
    }
    if version.as_deref() == Some(WITHOUT_STAMPS) {
        // Not added now (another writer held the lock past the wait, or the file may not be
        // written): this connection works as schema 9 did, without the blob (`stamps.rs`).
        if conn.execute_batch(&format!("BEGIN IMMEDIATE; {} UPDATE meta SET value = '{SCHEMA_VERSION}' WHERE key = 'schema'; COMMIT;", super::stamps::SCHEMA)).is_err() && !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        return Ok(conn);
    }
    // Another version (2 kept an FTS5 table): dropped, the index is a cache.
    conn.execute_batch(
        "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS entries; DROP TABLE IF EXISTS labels; DROP TABLE IF EXISTS fts_vocab; DROP TABLE IF EXISTS fts;
         DROP TABLE IF EXISTS blocks; DROP TABLE IF EXISTS postings; DROP TABLE IF EXISTS segments; DROP TABLE IF EXISTS stamps; DROP TABLE IF EXISTS meta;",
    )?;
    if has_meta {
        // Give the old tables' pages back to the file system.
        conn.execute_batch("VACUUM")?;
    }
    conn.execute_batch(SCHEMA)?;
    conn.execute_batch(super::stamps::SCHEMA)?;
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('schema', ?1)", [SCHEMA_VERSION.to_string()])?;
    Ok(conn)
}

pub(super) fn like_escape(s: &str) -> String {
    let mut o = String::from("%");
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            o.push('\\');
        }
        o.push(c);
    }
    o.push('%');
    o
}

/// The columns every hit query selects (see [`super::lookup::Row`]).
pub(super) const HIT_COLUMNS: &str = "e.id, e.file_id, e.entry_id, e.line, e.role, e.kind, e.ts, e.off, e.len";

/// The files a query's `cwd:` and `name:` keep, or `None` when it has neither.
pub(super) fn files_kept(c: &rusqlite::Connection, q: &Query) -> rusqlite::Result<Option<std::collections::HashSet<i64>>> {
    if q.cwd.is_none() && q.name.is_none() {
        return Ok(None);
    }
    let mut st = c.prepare_cached("SELECT id FROM files WHERE (?1 IS NULL OR lower(cwd) LIKE ?1 ESCAPE '\\') AND (?2 IS NULL OR lower(name) LIKE ?2 ESCAPE '\\')")?;
    let rows = st.query_map(rusqlite::params![q.cwd.as_deref().map(like_escape), q.name.as_deref().map(like_escape)], |r| r.get::<_, i64>(0))?;
    Ok(Some(rows.collect::<Result<_, _>>()?))
}

/// The entry-level conditions of a query (role, tool, model, label, dates, file) over
/// `entries e JOIN files f`, with their arguments.
pub(super) fn filters(q: &Query, only_file: Option<i64>) -> (Vec<String>, Vec<rusqlite::types::Value>) {
    use rusqlite::types::Value as V;
    let mut wh: Vec<String> = Vec::new();
    let mut args: Vec<V> = Vec::new();
    let mut push = |cond: &str, v: V, wh: &mut Vec<String>| {
        args.push(v);
        wh.push(cond.replace("?N", &format!("?{}", args.len())));
    };
    if let Some(r) = &q.role {
        push("e.role = ?N", V::Text(r.clone()), &mut wh);
    }
    if let Some(t) = &q.tool {
        push("instr(e.tools, ?N) > 0", V::Text(format!(" {t} ")), &mut wh);
    }
    if let Some(m) = &q.model {
        push("lower(e.model) LIKE ?N ESCAPE '\\'", V::Text(like_escape(m)), &mut wh);
    }
    // The files first (few), then their entries by index.
    if let Some(c) = &q.cwd {
        push("e.file_id IN (SELECT id FROM files WHERE lower(cwd) LIKE ?N ESCAPE '\\')", V::Text(like_escape(c)), &mut wh);
    }
    if let Some(n) = &q.name {
        push("e.file_id IN (SELECT id FROM files WHERE lower(name) LIKE ?N ESCAPE '\\')", V::Text(like_escape(n)), &mut wh);
    }
    if let Some(l) = &q.label {
        // One lookup of the entry's label by its key (an `IN` list here was built again for
        // every row: 20 times slower on a file of 400 labels).
        push(
            "EXISTS (SELECT 1 FROM labels l WHERE l.file_id = e.file_id AND l.entry_id = e.entry_id AND lower(l.text) LIKE ?N ESCAPE '\\')",
            V::Text(like_escape(l)),
            &mut wh,
        );
    }
    if let Some(a) = q.after {
        push("e.ts >= ?N", V::Real(a), &mut wh);
    }
    if let Some(b) = q.before {
        push("e.ts < ?N", V::Real(b), &mut wh);
    }
    if let Some(id) = only_file {
        push("e.file_id = ?N", V::Integer(id), &mut wh);
    }
    (wh, args)
}

/// The SQL of a query without words: the entries its filters keep, newest first. A label
/// drives it from its table, else a role from its index; otherwise the entries are walked newest first and
/// the first `limit` kept.
pub(super) fn filter_only_sql(q: &Query, limit: usize, only_file: Option<i64>, skip: &std::collections::HashSet<i64>) -> (String, Vec<rusqlite::types::Value>) {
    // A label drives from its own rows: their text is the condition (not a lookup of each
    // entry's label again, for every label of the root).
    let (mut wh, mut args) = filters(&Query { label: None, ..q.clone() }, only_file);
    if let Some(l) = &q.label {
        args.push(rusqlite::types::Value::Text(like_escape(l)));
        wh.push(format!("lower(lb.text) LIKE ?{} ESCAPE '\\'", args.len()));
    }
    if !skip.is_empty() {
        wh.push(format!("e.file_id NOT IN ({})", skip.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")));
    }
    let cond = if wh.is_empty() { "1".to_string() } else { wh.join(" AND ") };
    let sql = if q.label.is_some() {
        // The (small) labels table first, then their entries by index.
        // One label per entry (the table's key): no entry twice.
        format!(
            "SELECT {HIT_COLUMNS} FROM labels lb CROSS JOIN entries e ON e.file_id = lb.file_id AND e.entry_id = lb.entry_id
             WHERE {cond} ORDER BY e.id DESC LIMIT {limit}"
        )
    } else {
        format!("SELECT {HIT_COLUMNS} FROM entries e JOIN files f ON f.id = e.file_id WHERE {cond} ORDER BY e.id DESC LIMIT {limit}")
    };
    (sql, args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::stamps;

    /// An index with one file's row, as schema 9 left it: no `stamps` table, no triggers.
    fn schema_9_index(dir: &std::path::Path) -> std::path::PathBuf {
        let db = dir.join("search.sqlite");
        let c = connect(&db).unwrap();
        c.execute("INSERT INTO files(path, size, mtime_ns, ino) VALUES('/a', 1, 2, 3)", []).unwrap();
        c.execute_batch("DROP TABLE stamps; UPDATE meta SET value = '9' WHERE key = 'schema';").unwrap();
        db
    }

    fn version(c: &Connection) -> String {
        c.query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn an_index_of_the_schema_before_gets_the_table_and_keeps_its_rows() {
        let dir = tempfile::tempdir().unwrap();
        let db = schema_9_index(dir.path());
        let c = connect(&db).unwrap();
        assert_eq!(version(&c), SCHEMA_VERSION.to_string());
        assert_eq!(c.query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0)).unwrap(), 1);
        stamps::write_if_missing(&c).unwrap();
        assert_eq!(stamps::read(&c).unwrap().map(|s| s.len()), Some(1));
        // The triggers came with the table.
        c.execute("UPDATE files SET size = 7", []).unwrap();
        assert!(!c.query_row("SELECT EXISTS(SELECT 1 FROM stamps)", [], |r| r.get::<_, bool>(0)).unwrap());
    }

    /// An index of schema 9 opened while another connection holds the write lock (past the
    /// wait) works without the blob, and gets it at a later open.
    #[test]
    fn an_index_of_the_schema_before_that_cannot_be_written_now_works_without_the_blob() {
        let dir = tempfile::tempdir().unwrap();
        let db = schema_9_index(dir.path());
        let other = Connection::open(&db).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let c = connect(&db).unwrap();
        assert_eq!(version(&c), "9");
        assert_eq!(stamps::read(&c).unwrap(), None);
        stamps::write_if_missing(&c).unwrap();
        other.execute_batch("COMMIT").unwrap();
        drop(c);
        let c = connect(&db).unwrap();
        assert_eq!(version(&c), SCHEMA_VERSION.to_string());
        stamps::write_if_missing(&c).unwrap();
        assert_eq!(stamps::read(&c).unwrap().map(|s| s.len()), Some(1));
    }
}

//! The search index: one SQLite database per sessions root, in the cache folder.
//!
//! Tables: `files` (one row per session file: stamp, how many bytes and lines are indexed, a
//! hash of the indexed tail, header fields, name, title), `entries` (one row per entry line:
//! id, line, role, tools, model, timestamp), `fts` (FTS5, trigram tokenizer, rowid = the entry
//! row: its searchable text) and `labels` (the labels in effect).
//!
//! An update compares each file under the root with its row: unchanged files cost a `stat`; a
//! file that grew past its indexed bytes with the same indexed tail gets only its new complete
//! lines parsed and inserted; anything else (shrunk, replaced) is indexed again; a file that
//! is gone leaves the index. A last line without its newline waits for it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use pi_session_format::entry::{Detail, Kind};
use pi_session::text::searchable_text;
use pi_session::pathstr::encode;
use pi_session::summary::SessionSummary;
use pi_session::{Session, SessionIndex};
use rayon::prelude::*;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

mod sql;

use sql::{build_sql_in, short_terms};

use crate::damage::SetAside;
use crate::query::Query;
pub use crate::snippet::snippet;
use crate::{DbResult, Error};

const SCHEMA_VERSION: i64 = 2;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(
  id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER, mtime_ns INTEGER, ino INTEGER,
  indexed_bytes INTEGER, indexed_lines INTEGER, tail_hash INTEGER,
  session_id TEXT, cwd TEXT, parent_session TEXT, name TEXT, title TEXT, modified REAL);
CREATE TABLE IF NOT EXISTS entries(
  id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, entry_id TEXT, line INTEGER, role TEXT,
  tools TEXT, model TEXT, ts REAL);
CREATE INDEX IF NOT EXISTS entries_file ON entries(file_id, entry_id);
CREATE TABLE IF NOT EXISTS labels(file_id INTEGER, entry_id TEXT, text TEXT, PRIMARY KEY(file_id, entry_id));
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(text, tokenize = 'trigram');
CREATE VIRTUAL TABLE IF NOT EXISTS fts_vocab USING fts5vocab(fts, 'row');
";

/// Appended to every indexed text: the last characters of a text then start a trigram too, so
/// a term of one or two characters is found through the trigrams it starts (see
/// [`sql::short_terms`]).
const PAD: &str = "  ";

/// What an update did.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct UpdateStats {
    pub files: usize,
    pub added: usize,
    pub appended: usize,
    pub reindexed: usize,
    pub removed: usize,
    pub unchanged: usize,
    pub entries_added: usize,
}

/// Progress of a build: files looked at / files to look at.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SearchIndexProgress {
    pub done: usize,
    pub total: usize,
}

/// One hit.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct IndexHit {
    pub id: String,
    pub line: u32,
    /// The message role, or the entry type for other entries.
    pub role: String,
    pub ts: Option<f64>,
    pub snippet: String,
    /// `[start, length]` of each highlighted match in `snippet`, in UTF-16 code units.
    pub highlights: Vec<[u32; 2]>,
}

/// The hits of one session.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SessionHits {
    pub path: String,
    pub session_id: Option<String>,
    pub title: String,
    pub cwd: Option<String>,
    pub hits: Vec<IndexHit>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SearchResults {
    pub query: String,
    pub sessions: Vec<SessionHits>,
    pub total_hits: usize,
    /// More hits matched than `limit`.
    pub truncated: bool,
    pub files_indexed: usize,
}

/// What the app shows about the index.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SearchIndexStatus {
    pub building: bool,
    pub progress: SearchIndexProgress,
    pub files_indexed: usize,
    pub bytes_on_disk: u64,
    /// The last update's error, if it failed.
    pub error: Option<String>,
    /// The index was found damaged (SQLite: malformed, not a database, or cut short): the
    /// damaged file was set aside (kept, renamed) and the index built again.
    pub damaged: Option<SetAside>,
}

pub struct SearchIndex {
    root: PathBuf,
    db: PathBuf,
    conn: Mutex<Connection>,
    building: AtomicBool,
    /// Set when the index was found damaged and set aside.
    damage: Mutex<Option<SetAside>>,
    /// Bumped each time the database is set aside and started anew.
    generation: AtomicU64,
}

/// Opens the database at `db` with the index's settings and schema (an older schema is
/// dropped: the index is a cache).
fn connect(db: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(db)?;
    // The log file is cut back to 64 MB after each checkpoint (SQLite leaves it at its
    // largest size otherwise).
    conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000; PRAGMA journal_size_limit=67108864;")?;
    let has_meta: bool = conn.query_row("SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'meta'", [], |r| r.get(0))?;
    let version: Option<String> = if has_meta { conn.query_row("SELECT value FROM meta WHERE key='schema'", [], |r| r.get(0)).optional()? } else { None };
    if version.as_deref() != Some(&SCHEMA_VERSION.to_string()) {
        conn.execute_batch("DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS entries; DROP TABLE IF EXISTS labels; DROP TABLE IF EXISTS fts_vocab; DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS meta;")?;
    }
    conn.execute_batch(SCHEMA)?;
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('schema', ?1)", [SCHEMA_VERSION.to_string()])?;
    Ok(conn)
}

/// The index file of a root: beside the listing cache (`$PI_SESSION_CACHE_DIR` or the platform
/// cache folder), never under the sessions root.
pub fn default_db_path(root: &Path) -> Result<PathBuf, Error> {
    let list = pi_session::cache::ListCache::file_for(root).ok_or(Error::NoFolder)?;
    let name = list.file_name().map(|n| n.to_string_lossy().replace("list-", "search-").replace(".json", ".sqlite")).ok_or(Error::NoFolder)?;
    Ok(list.with_file_name(name))
}

fn fnv(bytes: &[u8]) -> i64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h as i64
}

/// The hash of the (up to) 256 bytes before `end`.
fn tail_hash(bytes: &[u8], end: usize) -> i64 {
    fnv(&bytes[end.saturating_sub(256)..end])
}

struct Row {
    entry_id: String,
    line: u32,
    role: String,
    tools: String,
    model: String,
    ts: Option<f64>,
    text: String,
}

/// What indexing (part of) one file produced.
struct FileRows {
    path: PathBuf,
    /// `Some(file id)` for an append to an indexed file.
    append_to: Option<i64>,
    stamp: pi_session_format::FileStamp,
    indexed_bytes: u64,
    indexed_lines: u64,
    tail_hash: i64,
    summary: Option<SessionSummary>,
    /// Label changes in file order (target, text or None to clear); for a full index, the
    /// labels in effect.
    labels: Vec<(String, Option<String>)>,
    name: Option<Option<String>>,
    rows: Vec<Row>,
}

/// The rows of entries of `ix` (lines numbered from `line0 + 1`).
fn rows_of(ix: &SessionIndex, bytes: &[u8], line0: u32) -> Vec<Row> {
    let mut rows = Vec::new();
    for e in &ix.entries {
        if e.id.is_none() || e.kind == Kind::Leaf {
            continue;
        }
        let line = bytes.get(e.offset as usize..(e.offset + e.len as u64) as usize).unwrap_or_default();
        let text = searchable_text(e, &String::from_utf8_lossy(line));
        rows.push(Row {
            entry_id: e.id_str().to_string(),
            line: e.line + line0,
            role: e.role().and_then(|r| r.as_str()).map(str::to_string).unwrap_or_else(|| e.kind.as_str().to_string()),
            tools: tools_of(e, line),
            model: e.meta().map(|m| format!("{}/{}", m.provider.as_deref().unwrap_or(""), m.model.as_deref().unwrap_or(""))).filter(|m| m != "/").unwrap_or_default(),
            ts: (!e.ts.is_nan()).then_some(e.ts),
            text,
        });
    }
    rows
}

/// ` name1 name2 ` of the tools an entry calls or reports (padded for exact matching).
fn tools_of(e: &pi_session::Entry, line: &[u8]) -> String {
    let mut names: Vec<String> = Vec::new();
    if let Some(t) = e.meta().and_then(|m| m.tool_name.as_deref()) {
        names.push(t.to_string());
    }
    if matches!(e.role(), Some(pi_session::Role::Assistant)) && memchr::memmem::find(line, b"toolCall").is_some() {
        let v = pi_session::text::line_value(&String::from_utf8_lossy(line));
        for b in v.pointer("/message/content").and_then(|c| c.as_array()).into_iter().flatten() {
            if b.get("type").and_then(|t| t.as_str()) == Some("toolCall") {
                if let Some(n) = b.get("name").and_then(|n| n.as_str()) {
                    names.push(n.to_string());
                }
            }
        }
    }
    if names.is_empty() {
        String::new()
    } else {
        format!(" {} ", names.join(" "))
    }
}

/// Files per transaction, at most.
const BATCH_FILES: usize = 64;
/// Session bytes per transaction, at most (one bigger file makes a batch of its own). The
/// write-ahead log holds a whole transaction (the index is about 2.7 times the text), so this
/// bounds it, and an interrupted build keeps all but the last batch.
const BATCH_BYTES: u64 = 8 << 20;

/// `work` cut into transactions of at most [`BATCH_FILES`] files and [`BATCH_BYTES`] bytes.
fn batches<T>(work: &[(PathBuf, T, u64)]) -> Vec<&[(PathBuf, T, u64)]> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (i, w) in work.iter().enumerate() {
        if i > start && (i - start == BATCH_FILES || bytes + w.2 > BATCH_BYTES) {
            out.push(&work[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += w.2;
    }
    if start < work.len() {
        out.push(&work[start..]);
    }
    out
}

enum Plan {
    Full,
    Append { file_id: i64, from: u64, lines: u64 },
}

fn index_file(path: &Path, plan: &Plan) -> Result<FileRows, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let meta = std::fs::metadata(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let stamp = pi_session_format::FileStamp::of(&meta);
    // Complete lines only.
    let end = bytes.iter().rposition(|&b| b == b'\n').map(|p| p + 1).unwrap_or(0);
    let hash = tail_hash(&bytes, end);
    match *plan {
        Plan::Full => {
            let s = Session::from_bytes(path, &bytes[..end]);
            let summary = SessionSummary::of_bytes(&s, stamp.len, &bytes[..end]);
            let rows = rows_of(&s.index, &bytes[..end], 0);
            let labels = s.tree.labels.iter().map(|(id, l)| (id.to_string(), Some(l.text.clone()))).collect();
            let lines = bytes[..end].iter().filter(|&&b| b == b'\n').count() as u64;
            Ok(FileRows { path: path.to_path_buf(), append_to: None, stamp, indexed_bytes: end as u64, indexed_lines: lines, tail_hash: hash, summary: Some(summary), labels, name: Some(s.tree.name.clone()), rows })
        }
        Plan::Append { file_id, from, lines } => {
            let chunk = &bytes[from as usize..end.max(from as usize)];
            let ix = SessionIndex::from_bytes(path, chunk);
            let rows = rows_of(&ix, chunk, lines as u32);
            let mut labels = Vec::new();
            let mut name = None;
            for e in &ix.entries {
                match &e.detail {
                    Detail::Label { target: Some(t), label } => labels.push((t.to_string(), label.clone())),
                    Detail::SessionInfo { name: n } => name = Some(n.clone()),
                    _ => {}
                }
            }
            let new_lines = chunk.iter().filter(|&&b| b == b'\n').count() as u64;
            Ok(FileRows { path: path.to_path_buf(), append_to: Some(file_id), stamp, indexed_bytes: end as u64, indexed_lines: lines + new_lines, tail_hash: hash, summary: None, labels, name, rows })
        }
    }
}

impl SearchIndex {
    /// Opens (or creates) the index of `root` at `db`. An index that SQLite finds damaged (or
    /// that is shorter than its header says) is set aside ([`crate::damage::set_aside`]) and a
    /// new one started; [`SearchIndex::damage`] says so, and the next update builds it.
    pub fn open(root: &Path, db: &Path) -> Result<SearchIndex, Error> {
        if let Some(dir) = db.parent() {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
        }
        let canon_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let canon_db = db.parent().and_then(|d| std::fs::canonicalize(d).ok()).unwrap_or_default();
        if canon_db.starts_with(&canon_root) {
            return Err(Error::Invalid(format!("the search index {} must not live under the sessions root {}", db.display(), root.display())));
        }
        let mut damage = None;
        let reason = match crate::damage::cut_short(db) {
            Some(why) => Some(why),
            None => match connect(db) {
                Ok(conn) => return Ok(SearchIndex::with(root, db, conn, None)),
                Err(e) if crate::damage::is_damage(&e) => Some(e.to_string()),
                Err(e) => return Err(Error::Db { path: db.to_path_buf(), source: e }),
            },
        };
        if let Some(reason) = reason {
            damage = Some(crate::damage::set_aside(db, &reason).map_err(|source| Error::Io { path: db.to_path_buf(), source })?);
        }
        let conn = connect(db).at(db)?;
        Ok(SearchIndex::with(root, db, conn, damage))
    }

    fn with(root: &Path, db: &Path, conn: Connection, damage: Option<SetAside>) -> SearchIndex {
        SearchIndex { root: root.to_path_buf(), db: db.to_path_buf(), conn: Mutex::new(conn), building: AtomicBool::new(false), damage: Mutex::new(damage), generation: AtomicU64::new(0) }
    }

    /// The last time this index was found damaged and set aside (in this process), if ever.
    pub fn damage(&self) -> Option<SetAside> {
        self.damage.lock().unwrap().clone()
    }

    /// Sets the damaged index aside and starts a new, empty one, unless another caller did so
    /// since `generation` was read (then the index in use is already the new one).
    fn set_aside(&self, generation: u64, reason: &rusqlite::Error) -> Result<(), Error> {
        let mut c = self.conn.lock().unwrap();
        if self.generation.load(Ordering::SeqCst) != generation {
            return Ok(());
        }
        // Closed first: nothing of the old connection may write into the renamed files.
        drop(std::mem::replace(&mut *c, Connection::open_in_memory().at(&self.db)?));
        let aside = crate::damage::set_aside(&self.db, &reason.to_string()).map_err(|source| Error::Io { path: self.db.clone(), source })?;
        *c = connect(&self.db).at(&self.db)?;
        self.generation.fetch_add(1, Ordering::SeqCst);
        *self.damage.lock().unwrap() = Some(aside);
        Ok(())
    }

    /// Runs `op`; when SQLite finds the index damaged, the index is set aside, started anew,
    /// built again when `rebuild` (else `op` is the build) and `op` runs once more.
    fn healing<T>(&self, rebuild: bool, op: impl Fn() -> Result<T, Error>) -> Result<T, Error> {
        let generation = self.generation.load(Ordering::SeqCst);
        match op() {
            Err(Error::Db { source, .. }) if crate::damage::is_damage(&source) => {
                self.set_aside(generation, &source)?;
                if rebuild {
                    self.update_inner(&|_| {})?;
                }
                op()
            }
            r => r,
        }
    }

    /// Opens the index of `root` in the cache folder.
    pub fn open_default(root: &Path) -> Result<SearchIndex, Error> {
        SearchIndex::open(root, &default_db_path(root)?)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn db_path(&self) -> &Path {
        &self.db
    }

    /// True while an update runs.
    pub fn is_building(&self) -> bool {
        self.building.load(Ordering::Relaxed)
    }

    /// Brings the index up to date with the files under the root; `progress` is called after
    /// each batch. Files are parsed on all cores in batches, each written in one transaction
    /// (queries run between batches).
    pub fn update(&self, progress: impl Fn(SearchIndexProgress)) -> Result<UpdateStats, Error> {
        self.building.store(true, Ordering::Relaxed);
        let r = self.healing(false, || self.update_inner(&progress));
        self.building.store(false, Ordering::Relaxed);
        r
    }

    fn update_inner(&self, progress: &dyn Fn(SearchIndexProgress)) -> Result<UpdateStats, Error> {
        let found = pi_session::scan::scan(&self.root).files;
        let mut stats = UpdateStats { files: found.len(), ..Default::default() };
        let known: std::collections::HashMap<String, (i64, u64, i64, u64, u64, u64, i64)> = {
            let c = self.conn.lock().unwrap();
            let mut st = c.prepare("SELECT path, id, size, mtime_ns, ino, indexed_bytes, indexed_lines, tail_hash FROM files").at(&self.db)?;
            let rows = st
                .query_map([], |r| Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get::<_, i64>(2)? as u64, r.get(3)?, r.get::<_, i64>(4)? as u64, r.get::<_, i64>(5)? as u64, r.get::<_, i64>(6)? as u64, r.get(7)?))))
                .at(&self.db)?;
            rows.collect::<Result<_, _>>().at(&self.db)?
        };
        // Gone files.
        let present: std::collections::HashSet<String> = found.iter().map(|f| encode(&f.path)).collect();
        let gone: Vec<i64> = known.iter().filter(|(p, _)| !present.contains(*p)).map(|(_, v)| v.0).collect();
        if !gone.is_empty() {
            let mut c = self.conn.lock().unwrap();
            let tx = c.transaction().at(&self.db)?;
            for id in &gone {
                delete_file(&tx, *id).at(&self.db)?;
            }
            tx.commit().at(&self.db)?;
            stats.removed = gone.len();
        }
        // (path, plan, bytes to read)
        let mut work: Vec<(PathBuf, Plan, u64)> = Vec::new();
        for f in &found {
            let key = encode(&f.path);
            match known.get(&key) {
                None => work.push((f.path.clone(), Plan::Full, f.stamp.len)),
                Some(&(id, size, mtime, ino, ib, il, th)) => {
                    if size == f.stamp.len && mtime == f.stamp.mtime_ns && ino == f.stamp.ino {
                        stats.unchanged += 1;
                    } else if ino == f.stamp.ino && f.stamp.len >= ib && same_tail(&f.path, ib, th) {
                        work.push((f.path.clone(), Plan::Append { file_id: id, from: ib, lines: il }, f.stamp.len - ib));
                    } else {
                        work.push((f.path.clone(), Plan::Full, f.stamp.len));
                    }
                }
            }
        }
        let total = work.len();
        progress(SearchIndexProgress { done: 0, total });
        let mut done = 0;
        for batch in batches(&work) {
            let results: Vec<Result<FileRows, Error>> = batch.par_iter().map(|(p, plan, _)| index_file(p, plan)).collect();
            let mut c = self.conn.lock().unwrap();
            let tx = c.transaction().at(&self.db)?;
            for r in results {
                // A file that vanished or became unreadable since the scan: the next update sees it.
                let Ok(fr) = r else { continue };
                stats.entries_added += fr.rows.len();
                match fr.append_to {
                    Some(_) => stats.appended += 1,
                    None if known.contains_key(&encode(&fr.path)) => stats.reindexed += 1,
                    None => stats.added += 1,
                }
                write_file(&tx, &fr).at(&self.db)?;
            }
            tx.commit().at(&self.db)?;
            drop(c);
            done += batch.len();
            progress(SearchIndexProgress { done, total });
        }
        if stats.added + stats.appended + stats.reindexed + stats.removed > 0 {
            let c = self.conn.lock().unwrap();
            if stats.added + stats.reindexed > 16 {
                // After a build: merge the FTS segments (faster queries, smaller file).
                c.execute("INSERT INTO fts(fts) VALUES('optimize')", []).at(&self.db)?;
            }
            // Fold the write-ahead log back into the database file.
            c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).at(&self.db)?;
        }
        Ok(stats)
    }

    /// Number of files in the index.
    pub fn file_count(&self) -> Result<usize, Error> {
        self.healing(false, || self.file_count_inner())
    }

    fn file_count_inner(&self) -> Result<usize, Error> {
        let c = self.conn.lock().unwrap();
        c.query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0)).map(|n| n as usize).at(&self.db)
    }

    /// Runs a query; at most `limit` hits (1..=10,000), the most recently indexed lines first
    /// (FTS5 walks its rowids in order, so the first hits come without sorting every match),
    /// grouped by session in the order of their first hit.
    /// An index found damaged is set aside, built again and asked again.
    pub fn search(&self, text: &str, limit: usize) -> Result<SearchResults, Error> {
        self.healing(true, || self.search_inner(text, limit))
    }

    fn search_inner(&self, text: &str, limit: usize) -> Result<SearchResults, Error> {
        let q = Query::parse(text)?;
        let limit = limit.clamp(1, 10_000);
        let files_indexed = self.file_count_inner()?;
        if q.is_empty() {
            return Ok(SearchResults { query: text.into(), sessions: vec![], total_hits: 0, truncated: false, files_indexed });
        }
        let c = self.conn.lock().unwrap();
        let short = short_terms(&c, &q).at(&self.db)?;
        let (sql, args) = build_sql_in(&q, limit + 1, None, &short);
        let mut st = c.prepare_cached(&sql).at(&self.db)?;
        let rows = st
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    IndexHit { id: r.get(5)?, line: r.get::<_, i64>(6)? as u32, role: r.get(7)?, ts: r.get(8)?, snippet: r.get(9)?, highlights: vec![] },
                ))
            })
            .at(&self.db)?;
        let mut sessions: Vec<SessionHits> = Vec::new();
        let mut by_file: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
        let mut total = 0;
        let mut truncated = false;
        for r in rows {
            let (fid, path, sid, title, cwd, mut hit) = r.at(&self.db)?;
            if total == limit {
                truncated = true;
                break;
            }
            total += 1;
            let (snip, hl) = snippet(hit.snippet.strip_suffix(PAD).unwrap_or(&hit.snippet), &q.terms);
            hit.snippet = snip;
            hit.highlights = hl;
            let k = *by_file.entry(fid).or_insert_with(|| {
                sessions.push(SessionHits { path: path.clone(), session_id: sid.clone(), title: title.clone().unwrap_or_default(), cwd: cwd.clone(), hits: vec![] });
                sessions.len() - 1
            });
            sessions[k].hits.push(hit);
        }
        Ok(SearchResults { query: text.into(), sessions, total_hits: total, truncated, files_indexed })
    }

    /// Ids of every entry of one file that the query matches (for marking hits in a tree).
    pub fn hits_in_file(&self, text: &str, path: &str) -> Result<Vec<String>, Error> {
        self.healing(true, || self.hits_in_file_inner(text, path))
    }

    fn hits_in_file_inner(&self, text: &str, path: &str) -> Result<Vec<String>, Error> {
        let q = Query::parse(text)?;
        if q.is_empty() {
            return Ok(vec![]);
        }
        let c = self.conn.lock().unwrap();
        let short = short_terms(&c, &q).at(&self.db)?;
        let (sql, args) = build_sql_in(&q, 100_000, Some(path), &short);
        let mut st = c.prepare_cached(&sql).at(&self.db)?;
        let ids = st.query_map(rusqlite::params_from_iter(args.iter()), |r| r.get::<_, String>(5)).at(&self.db)?;
        ids.collect::<Result<Vec<_>, _>>().at(&self.db)
    }

    /// Bytes the index takes on disk (database and its WAL).
    pub fn size_on_disk(&self) -> u64 {
        let wal = PathBuf::from(format!("{}-wal", self.db.display()));
        [self.db.clone(), wal].iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum()
    }
}

fn same_tail(path: &Path, indexed: u64, hash: i64) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else { return false };
    let from = indexed.saturating_sub(256);
    let mut buf = vec![0u8; (indexed - from) as usize];
    f.seek(SeekFrom::Start(from)).is_ok() && f.read_exact(&mut buf).is_ok() && fnv(&buf) == hash
}

fn delete_file(tx: &rusqlite::Transaction<'_>, id: i64) -> rusqlite::Result<()> {
    tx.execute("DELETE FROM fts WHERE rowid IN (SELECT id FROM entries WHERE file_id = ?1)", [id])?;
    tx.execute("DELETE FROM entries WHERE file_id = ?1", [id])?;
    tx.execute("DELETE FROM labels WHERE file_id = ?1", [id])?;
    tx.execute("DELETE FROM files WHERE id = ?1", [id])?;
    Ok(())
}

fn write_file(tx: &rusqlite::Transaction<'_>, fr: &FileRows) -> rusqlite::Result<()> {
    // As the listing shows it: a name that is not UTF-8 stays one the UI can send back.
    let path = encode(&fr.path);
    let file_id = match fr.append_to {
        Some(id) => {
            tx.execute(
                "UPDATE files SET size=?2, mtime_ns=?3, ino=?4, indexed_bytes=?5, indexed_lines=?6, tail_hash=?7 WHERE id=?1",
                params![id, fr.stamp.len as i64, fr.stamp.mtime_ns, fr.stamp.ino as i64, fr.indexed_bytes as i64, fr.indexed_lines as i64, fr.tail_hash],
            )?;
            if let Some(name) = &fr.name {
                tx.execute("UPDATE files SET name=?2, title=coalesce(?2, title) WHERE id=?1", params![id, name])?;
            }
            for (target, text) in &fr.labels {
                match text {
                    Some(t) => tx.execute("INSERT OR REPLACE INTO labels(file_id, entry_id, text) VALUES(?1, ?2, ?3)", params![id, target, t])?,
                    None => tx.execute("DELETE FROM labels WHERE file_id=?1 AND entry_id=?2", params![id, target])?,
                };
            }
            if let Some(max) = fr.rows.iter().filter_map(|r| r.ts).reduce(f64::max) {
                tx.execute("UPDATE files SET modified = max(coalesce(modified, 0), ?2) WHERE id=?1", params![id, max])?;
            }
            id
        }
        None => {
            if let Some(old) = tx.query_row("SELECT id FROM files WHERE path=?1", [&*path], |r| r.get::<_, i64>(0)).optional()? {
                delete_file(tx, old)?;
            }
            let s = fr.summary.as_ref();
            tx.execute(
                "INSERT INTO files(path, size, mtime_ns, ino, indexed_bytes, indexed_lines, tail_hash, session_id, cwd, parent_session, name, title, modified)
                 VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    &*path,
                    fr.stamp.len as i64,
                    fr.stamp.mtime_ns,
                    fr.stamp.ino as i64,
                    fr.indexed_bytes as i64,
                    fr.indexed_lines as i64,
                    fr.tail_hash,
                    s.and_then(|s| s.id.clone()),
                    s.and_then(|s| s.cwd.clone()),
                    s.and_then(|s| s.parent_session.clone()),
                    s.and_then(|s| s.name.clone()),
                    s.map(pi_session::text::title_of),
                    s.and_then(|s| s.modified),
                ],
            )?;
            let id = tx.last_insert_rowid();
            for (target, text) in &fr.labels {
                if let Some(t) = text {
                    tx.execute("INSERT OR REPLACE INTO labels(file_id, entry_id, text) VALUES(?1, ?2, ?3)", params![id, target, t])?;
                }
            }
            id
        }
    };
    let mut ins = tx.prepare_cached("INSERT INTO entries(file_id, entry_id, line, role, tools, model, ts) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    let mut fts = tx.prepare_cached("INSERT INTO fts(rowid, text) VALUES(?1, ?2)")?;
    for r in &fr.rows {
        ins.execute(params![file_id, r.entry_id, r.line as i64, r.role, r.tools, r.model, r.ts])?;
        let rowid = tx.last_insert_rowid();
        fts.execute(params![rowid, format!("{}{PAD}", r.text)])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transactions_hold_at_most_64_files_and_8_mb_and_every_file_once() {
        let w = |sizes: &[u64]| -> Vec<(PathBuf, (), u64)> { sizes.iter().enumerate().map(|(i, &n)| (PathBuf::from(i.to_string()), (), n)).collect() };
        let lens = |work: &[(PathBuf, (), u64)]| batches(work).iter().map(|b| b.len()).collect::<Vec<_>>();
        assert_eq!(lens(&w(&[1; 130])), vec![64, 64, 2]);
        let mb = 1 << 20;
        // 3 MB files: two fit in 8 MB, a third would not.
        assert_eq!(lens(&w(&[3 * mb; 5])), vec![2, 2, 1]);
        // A file bigger than a batch goes alone; the small ones around it are not split off it.
        assert_eq!(lens(&w(&[mb, 20 * mb, mb, mb])), vec![1, 1, 2]);
        assert!(batches(&w(&[])).is_empty());
    }
}

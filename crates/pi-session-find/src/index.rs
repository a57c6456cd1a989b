//! The search index: one SQLite database per sessions root, in the cache folder, holding no
//! text: per entry its place in the session file and the fields the filters ask for, and per
//! block of entries (about 4 kB of text) the posting lists of their n-grams, word pairs and
//! tools ([`crate::grams`]). A query takes the blocks holding all of its keys and checks their
//! entries against the session files themselves (see `lookup.rs`, `verify.rs`); the tables
//! are described in `sql.rs`.
//!
//! An update compares each file under the root with its row: unchanged files cost a `stat`; a
//! file that grew past its indexed bytes with the same indexed tail gets only its new complete
//! lines parsed and inserted; anything else (shrunk, replaced) is indexed again; a file that
//! is gone leaves the index. A last line without its newline waits for it. A build can be
//! paused between batches ([`SearchIndex::set_paused`]); what it committed stays.
//!
//! Files the index does not hold as they are now (not indexed yet, changed since) are searched
//! by reading them ([`crate::scan`]), so an answer is whole while the index builds, and says
//! how many files it read so ([`SearchResults::scanned_files`]).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use pi_session::pathstr::encode;
use rusqlite::Connection;
use serde::Serialize;

mod build;
mod lookup;
mod plan;
mod postings;
mod segment;
mod sql;
mod stamps;
mod verify;

pub use crate::hits::{IndexHit, SessionHits};
use build::{batches, delete_file, merge_segments, read_ahead, write_file, FileRows, ReadBatch, FLUSH_BYTES};
use plan::{scan_and_plan, Work};
use postings::Postings;
use sql::connect;

use crate::damage::SetAside;
use crate::query::Query;
pub use crate::snippet::snippet;
use crate::{DbResult, Error};

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
    /// The update stopped early because the index is paused; files are left to do.
    pub paused: bool,
}

/// Progress of a build: files and session bytes looked at / to look at, and what is left.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SearchIndexProgress {
    pub done: usize,
    pub total: usize,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bytes_done: u64,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bytes_total: u64,
    /// The index's size on disk when this build is done (estimated from what it wrote so far).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub estimated_bytes: u64,
    /// Seconds left at the speed so far, once there is a speed to go by.
    pub seconds_left: Option<f64>,
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
    /// Files searched by reading them, not through the index: not indexed yet (a build under
    /// way or paused), changed since, or every file when the index is turned off.
    pub scanned_files: usize,
}

/// What the app shows about the index.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SearchIndexStatus {
    pub building: bool,
    /// A build was paused and waits to be resumed.
    pub paused: bool,
    /// The index is turned off: searches read the files.
    pub off: bool,
    pub progress: SearchIndexProgress,
    pub files_indexed: usize,
    pub bytes_on_disk: u64,
    /// The last update's error, if it failed.
    pub error: Option<String>,
    /// The index was found damaged (SQLite: malformed, not a database, or cut short; a posting
    /// list that does not decode): the damaged file was set aside (kept, renamed) and the
    /// index built again.
    pub damaged: Option<SetAside>,
}

/// The files the index does not hold as they are now, as of some moment.
struct Pending {
    at: Instant,
    /// As listed (encoded) and as a path.
    files: Vec<(String, PathBuf)>,
}

pub struct SearchIndex {
    root: PathBuf,
    db: PathBuf,
    /// The connection that writes (updates, merges, setting aside).
    conn: Mutex<Connection>,
    /// The connection queries read with: they see the last committed batch while a build runs.
    read: Mutex<Connection>,
    building: AtomicBool,
    paused: AtomicBool,
    progress: Mutex<SearchIndexProgress>,
    /// Set by each update: what it left to do.
    pending: Mutex<Option<Pending>>,
    /// Set when the index was found damaged and set aside.
    damage: Mutex<Option<SetAside>>,
    /// Bumped each time the database is set aside and started anew.
    generation: AtomicU64,
}

/// The index file of a root: beside the listing cache (`$PI_SESSION_CACHE_DIR` or the platform
/// cache folder), never under the sessions root.
pub fn default_db_path(root: &Path) -> Result<PathBuf, Error> {
    let list = pi_session::cache::ListCache::file_for(root).ok_or(Error::NoFolder)?;
    let name = list.file_name().map(|n| n.to_string_lossy().replace("list-", "search-").replace(".json", ".sqlite")).ok_or(Error::NoFolder)?;
    Ok(list.with_file_name(name))
}

/// An uncommitted write, rolled back when dropped before `commit`.
struct Tx<'c> {
    c: &'c Connection,
    open: bool,
}

impl<'c> Tx<'c> {
    fn begin(c: &'c Connection) -> rusqlite::Result<Tx<'c>> {
        c.execute_batch("BEGIN IMMEDIATE")?;
        Ok(Tx { c, open: true })
    }
    fn commit(mut self) -> rusqlite::Result<()> {
        self.open = false;
        self.c.execute_batch("COMMIT")
    }

    /// A read over several statements, ended when dropped: one lock and one look at the log
    /// for all of them, and all see the same commit (statement by statement, a query that
    /// checked 2,000 blocks made 15,000 lock and stat calls).
    fn read(c: &'c Connection) -> rusqlite::Result<Tx<'c>> {
        c.execute_batch("BEGIN")?;
        Ok(Tx { c, open: true })
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.c.execute_batch("ROLLBACK");
        }
    }
}

/// What writes the batches of an update: the connection (taken out of its lock while the
/// next batch is read), the posting lists held in memory, the transaction open since the
/// last segment.
struct Writer<'w> {
    conn: Connection,
    postings: Postings,
    dir: PathBuf,
    open: bool,
    dead: i64,
    written: u64,
    stats: UpdateStats,
    /// The files read whole that were indexed before.
    replaced: &'w HashSet<PathBuf>,
}

impl Writer<'_> {
    /// Writes one batch's rows and adds its blocks to the lists; writes a segment and commits
    /// when the lists are big enough (true then).
    fn take(&mut self, results: Vec<Result<FileRows, Error>>) -> rusqlite::Result<bool> {
        if !self.open {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            self.open = true;
        }
        let mut blocks = Vec::new();
        for r in results {
            // A file that vanished or became unreadable since the scan: the next update sees it.
            let Ok(fr) = r else { continue };
            self.stats.entries_added += fr.rows.len();
            match fr.append_to {
                Some(_) => self.stats.appended += 1,
                None if self.replaced.contains(&fr.path) => self.stats.reindexed += 1,
                None => self.stats.added += 1,
            }
            let (b, d) = write_file(&self.conn, fr)?;
            blocks.extend(b);
            self.dead += d;
        }
        // In pieces of at most a million keys: the sort's memory stays small for a big file.
        let mut from = 0;
        while from < blocks.len() {
            let mut to = from;
            let mut n = 0;
            while to < blocks.len() && (to == from || n + blocks[to].1.len() <= 1 << 20) {
                n += blocks[to].1.len();
                to += 1;
            }
            self.postings.add(&blocks[from..to]);
            from = to;
        }
        if self.postings.bytes >= FLUSH_BYTES {
            self.commit()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Writes the lists held as a segment and commits it with the rows it covers.
    fn commit(&mut self) -> rusqlite::Result<()> {
        if !self.open {
            return Ok(());
        }
        self.written += self.postings.flush(&self.conn, &self.dir)?;
        add_dead(&self.conn, std::mem::take(&mut self.dead))?;
        self.conn.execute_batch("COMMIT")?;
        self.open = false;
        Ok(())
    }

    /// After an error: the open transaction rolled back (what was committed stays).
    fn abandon(&mut self) {
        if self.open {
            let _ = self.conn.execute_batch("ROLLBACK");
            self.open = false;
        }
    }
}

fn add_dead(c: &Connection, n: i64) -> rusqlite::Result<()> {
    if n > 0 {
        c.execute("INSERT INTO meta(key, value) VALUES('dead_blocks', ?1) ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + ?1", [n])?;
    }
    Ok(())
}

/// The reading connection's settings: its pages mapped, not read one system call at a time (a
/// query that checks 2,000 blocks read 30,000 pages of a cold process with `pread`); at most
/// 256 MB of it, the rest read as before.
const READ_PRAGMAS: &str = "PRAGMA busy_timeout=5000; PRAGMA mmap_size=268435456;";

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
            None => match connect(db).and_then(|c| Ok((c, Connection::open(db)?))) {
                Ok((conn, read)) => return Ok(SearchIndex::with(root, db, conn, read, None)),
                Err(e) if crate::damage::is_damage(&e) => Some(e.to_string()),
                Err(e) => return Err(Error::Db { path: db.to_path_buf(), source: e }),
            },
        };
        if let Some(reason) = reason {
            damage = Some(crate::damage::set_aside(db, &reason).map_err(|source| Error::Io { path: db.to_path_buf(), source })?);
        }
        let conn = connect(db).at(db)?;
        let read = Connection::open(db).at(db)?;
        Ok(SearchIndex::with(root, db, conn, read, damage))
    }

    fn with(root: &Path, db: &Path, conn: Connection, read: Connection, damage: Option<SetAside>) -> SearchIndex {
        let _ = read.execute_batch(READ_PRAGMAS);
        // Posting files no segment names: left by an interrupted write, or by an older index.
        if let Ok(segs) = build::segments(&conn) {
            segment::remove_others(&segment::dir_of(db), &segs.into_iter().map(|s| s.file).collect::<Vec<_>>());
        }
        SearchIndex {
            root: root.to_path_buf(),
            db: db.to_path_buf(),
            conn: Mutex::new(conn),
            read: Mutex::new(read),
            building: AtomicBool::new(false),
            paused: AtomicBool::new(false),
            progress: Mutex::new(SearchIndexProgress::default()),
            pending: Mutex::new(None),
            damage: Mutex::new(damage),
            generation: AtomicU64::new(0),
        }
    }

    /// The last time this index was found damaged and set aside (in this process), if ever.
    pub fn damage(&self) -> Option<SetAside> {
        self.damage.lock().unwrap().clone()
    }

    /// Sets the damaged index aside and starts a new, empty one, unless another caller did so
    /// since `generation` was read (then the index in use is already the new one).
    fn set_aside(&self, generation: u64, reason: &rusqlite::Error) -> Result<(), Error> {
        let mut c = self.conn.lock().unwrap();
        let mut r = self.read.lock().unwrap();
        if self.generation.load(Ordering::SeqCst) != generation {
            return Ok(());
        }
        // Closed first: nothing of the old connections may write into the renamed files.
        drop(std::mem::replace(&mut *c, Connection::open_in_memory().at(&self.db)?));
        drop(std::mem::replace(&mut *r, Connection::open_in_memory().at(&self.db)?));
        let aside = crate::damage::set_aside(&self.db, &reason.to_string()).map_err(|source| Error::Io { path: self.db.clone(), source })?;
        *c = connect(&self.db).at(&self.db)?;
        *r = Connection::open(&self.db).at(&self.db)?;
        let _ = r.execute_batch(READ_PRAGMAS);
        *self.pending.lock().unwrap() = None;
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

    /// Pauses (or resumes) the build: a running update stops after its batch, keeping what it
    /// did; while paused, updates do nothing and searches read the files left to do.
    pub fn set_paused(&self, paused: bool) {
        self.paused.store(paused, Ordering::SeqCst);
    }

    pub fn is_paused(&self) -> bool {
        self.paused.load(Ordering::SeqCst)
    }

    /// The last build's progress.
    pub fn progress(&self) -> SearchIndexProgress {
        *self.progress.lock().unwrap()
    }

    /// Brings the index up to date with the files under the root; `progress` is called after
    /// each batch. Files are read on all cores in batches; rows and posting lists are
    /// committed together every few batches (queries see each commit). Paused: nothing.
    pub fn update(&self, progress: impl Fn(SearchIndexProgress)) -> Result<UpdateStats, Error> {
        self.building.store(true, Ordering::Relaxed);
        let r = self.healing(false, || self.update_inner(&progress));
        self.building.store(false, Ordering::Relaxed);
        r
    }

    fn publish(&self, files: Vec<(String, PathBuf)>) {
        *self.pending.lock().unwrap() = Some(Pending { at: Instant::now(), files });
    }

    fn update_inner(&self, progress: &dyn Fn(SearchIndexProgress)) -> Result<UpdateStats, Error> {
        let at = |source| Error::Db { path: self.db.clone(), source };
        let c = self.conn.lock().unwrap();
        let mut stats = UpdateStats::default();
        let Work { files: work, gone, replaced, from_blob } = scan_and_plan(&self.root, &c, &self.db, &mut stats)?;
        if !gone.is_empty() {
            let tx = Tx::begin(&c).map_err(at)?;
            let mut dead = 0;
            for id in &gone {
                dead += delete_file(&c, *id).map_err(at)?;
            }
            add_dead(&c, dead).map_err(at)?;
            tx.commit().map_err(at)?;
            stats.removed = gone.len();
        }
        let left = |from: usize| work[from..].iter().map(|w| (encode(&w.0), w.0.clone())).collect::<Vec<_>>();
        self.publish(left(0));
        if self.is_paused() && !work.is_empty() {
            stats.paused = true;
            return Ok(stats);
        }
        if work.is_empty() && stats.removed == 0 {
            // Nothing to read or write (a search's look at the files, most of the time). Files
            // removed go on below: their dead blocks may call for a merge, the log for a fold.
            // (An index made before the blob of stamps, or whose blob a change dropped, gets
            // it here, once; a plan made from the blob has it.)
            if !from_blob {
                stamps::write_if_missing_now(&c).map_err(at)?;
            }
            let p = SearchIndexProgress { estimated_bytes: self.size_on_disk(), ..SearchIndexProgress::default() };
            *self.progress.lock().unwrap() = p;
            progress(p);
            return Ok(stats);
        }
        let bytes_total: u64 = work.iter().map(|w| w.2).sum();
        let start = Instant::now();
        let size_before = self.size_on_disk();
        let mut p = SearchIndexProgress { done: 0, total: work.len(), bytes_done: 0, bytes_total, estimated_bytes: size_before + bytes_total * 3 / 10, seconds_left: None };
        *self.progress.lock().unwrap() = p;
        progress(p);
        let dir = segment::dir_of(&self.db);
        let first_seg: i64 = c.query_row("SELECT coalesce(max(id), 0) + 1 FROM segments", [], |r| r.get(0)).map_err(at)?;
        // The writer takes the connection while the threads read the next batch: each batch is
        // read while the one before is written.
        let mut c = c;
        let mut w = Writer { conn: std::mem::replace(&mut *c, Connection::open_in_memory().at(&self.db)?), postings: Postings::new(), dir: dir.clone(), open: false, dead: 0, written: 0, stats, replaced: &replaced };
        // Batches read and waiting for the writer (the threads read ahead while it writes).
        let mut ready: std::collections::VecDeque<ReadBatch> = Default::default();
        let mut next = 0;
        let mut failed = None;
        let all = batches(&work);
        loop {
            let job = ready.pop_front();
            let (held, held_bytes) = (ready.len(), ready.iter().map(|r| r.2).sum::<u64>());
            let writing = AtomicBool::new(job.is_some());
            let busy = &writing;
            let ((back, r), read) = rayon::join(
                move || {
                    let r = match job {
                        Some((res, files, bytes)) => w.take(res).map(|flushed| (files, bytes, flushed)),
                        None => Ok((0, 0, false)),
                    };
                    busy.store(false, Ordering::Release);
                    (w, r)
                },
                || read_ahead(&all[next..], held, held_bytes, busy, || self.is_paused()),
            );
            w = back;
            next += read.len();
            ready.extend(read);
            match r {
                Err(e) => {
                    failed = Some(e);
                    break;
                }
                Ok((files, bytes, flushed)) => {
                    p.done += files;
                    p.bytes_done += bytes;
                    if flushed {
                        self.publish(left(p.done));
                    }
                }
            }
            // The estimate: the size before plus what this build wrote (or holds) per byte read.
            let so_far = w.written + w.postings.bytes as u64 + w.stats.entries_added as u64 * 80;
            let per_byte = if p.bytes_done > 32 << 20 { so_far as f64 / p.bytes_done as f64 } else { 0.3 };
            p.estimated_bytes = size_before + (bytes_total as f64 * per_byte) as u64;
            let secs = start.elapsed().as_secs_f64();
            p.seconds_left = (p.bytes_done > 0 && secs > 1.0).then(|| secs / p.bytes_done as f64 * (bytes_total - p.bytes_done) as f64);
            *self.progress.lock().unwrap() = p;
            progress(p);
            if ready.is_empty() {
                // Nothing read is left to write: done, or paused before the rest.
                w.stats.paused |= next < all.len();
                break;
            }
        }
        let r = match failed {
            Some(e) => Err(e),
            None => w.commit(),
        };
        if r.is_err() {
            w.abandon();
        }
        *c = w.conn;
        r.map_err(at)?;
        stats = w.stats;
        self.publish(left(p.done));
        // `files` changed: its triggers dropped the blob of stamps, made again from the rows
        // (before the log is folded back).
        stamps::write_if_missing(&c).map_err(at)?;
        if stats.added + stats.appended + stats.reindexed + stats.removed > 0 {
            merge_segments(&c, &dir, Some(first_seg)).map_err(at)?;
            // Fold the write-ahead log back into the database file.
            c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).map_err(at)?;
        }
        p.estimated_bytes = self.size_on_disk();
        p.seconds_left = None;
        *self.progress.lock().unwrap() = p;
        Ok(stats)
    }

    /// True when the index holds no file yet (its first build is to come).
    pub fn is_empty(&self) -> Result<bool, Error> {
        self.healing(false, || {
            let c = self.read.lock().unwrap();
            c.query_row("SELECT NOT EXISTS(SELECT 1 FROM files)", [], |r| r.get(0)).at(&self.db)
        })
    }

    /// Number of files in the index.
    pub fn file_count(&self) -> Result<usize, Error> {
        self.healing(false, || self.file_count_inner())
    }

    fn file_count_inner(&self) -> Result<usize, Error> {
        let c = self.read.lock().unwrap();
        c.query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0)).map(|n| n as usize).at(&self.db)
    }

    /// The files the index does not hold as they are now: those the running build has left,
    /// else those a scan of the root finds new or changed (unless an update just looked).
    fn pending_files(&self, c: &Connection) -> Result<Vec<(String, PathBuf)>, Error> {
        if let Some(p) = self.pending.lock().unwrap().as_ref() {
            // Paused, no update looks at the files: they are looked at here.
            if self.is_building() || (!self.is_paused() && p.at.elapsed().as_secs_f64() < 2.0) {
                return Ok(p.files.clone());
            }
        }
        let mut stats = UpdateStats::default();
        Ok(scan_and_plan(&self.root, c, &self.db, &mut stats)?.files.into_iter().map(|w| (encode(&w.0), w.0)).collect())
    }

    /// Runs a query; at most `limit` hits (1..=10,000), the most recently indexed lines first,
    /// grouped by session in the order of their first hit; the files the index does not hold
    /// yet are read (first: they are the newest). An index found damaged is set aside, built
    /// again and asked again.
    pub fn search(&self, text: &str, limit: usize) -> Result<SearchResults, Error> {
        self.healing(true, || self.search_inner(text, limit, false))
    }

    /// [`SearchIndex::search`] on the index as it is, without a look at the files: for a
    /// caller that brings the index up to date at the same time and keeps this answer only
    /// when that update found nothing to do (`pi-session search`). An index found damaged is
    /// set aside, not built again here.
    pub fn search_as_indexed(&self, text: &str, limit: usize) -> Result<SearchResults, Error> {
        self.healing(false, || self.search_inner(text, limit, true))
    }

    fn search_inner(&self, text: &str, limit: usize, as_indexed: bool) -> Result<SearchResults, Error> {
        let q = Query::parse(text)?;
        let limit = limit.clamp(1, 10_000);
        let files_indexed = self.file_count_inner()?;
        if q.is_empty() {
            return Ok(SearchResults { query: text.into(), sessions: vec![], total_hits: 0, truncated: false, files_indexed, scanned_files: 0 });
        }
        let c = self.read.lock().unwrap();
        let pending = if as_indexed { Vec::new() } else { self.pending_files(&c)? };
        let skip = lookup::ids_of(&c, &pending.iter().map(|p| p.0.clone()).collect()).at(&self.db)?;
        let (mut sessions, mut truncated) = crate::scan::search_files(&pending.iter().map(|p| p.1.clone()).collect::<Vec<_>>(), &q, limit);
        // Begun after the files read by hand (a build under way may leave many): a read open
        // that long would hold the build's checkpoint back.
        let _read = Tx::read(&c).at(&self.db)?;
        let mut total: usize = sessions.iter().map(|s| s.hits.len()).sum();
        if total < limit || !truncated {
            let hits = lookup::find(&c, &self.db, &q, limit - total.min(limit), None, &skip, true)?;
            let mut by_file: std::collections::HashMap<i64, usize> = std::collections::HashMap::new();
            for h in hits {
                if total == limit {
                    truncated = true;
                    break;
                }
                total += 1;
                let (snip, hl) = h.snippet;
                let hit = IndexHit { id: h.id, line: h.line, role: h.role, ts: h.ts, snippet: snip, highlights: hl };
                let k = match by_file.get(&h.file_id) {
                    Some(&k) => k,
                    None => {
                        let Some(f) = lookup::file_info(&c, h.file_id).at(&self.db)? else { continue };
                        sessions.push(SessionHits { path: f.path, session_id: f.session_id, title: f.title.unwrap_or_default(), cwd: f.cwd, hits: vec![] });
                        by_file.insert(h.file_id, sessions.len() - 1);
                        sessions.len() - 1
                    }
                };
                sessions[k].hits.push(hit);
            }
        }
        Ok(SearchResults { query: text.into(), sessions, total_hits: total, truncated, files_indexed, scanned_files: pending.len() })
    }

    /// Ids of every entry of one file that the query matches (for marking hits in a tree).
    pub fn hits_in_file(&self, text: &str, path: &str) -> Result<Vec<String>, Error> {
        self.healing(true, || self.hits_in_file_inner(text, path))
    }

    fn hits_in_file_inner(&self, text: &str, path: &str) -> Result<Vec<String>, Error> {
        const ALL: usize = 100_000;
        let q = Query::parse(text)?;
        if q.is_empty() {
            return Ok(vec![]);
        }
        let c = self.read.lock().unwrap();
        let pending = self.pending_files(&c)?;
        if let Some((_, p)) = pending.iter().find(|(listed, _)| listed == path) {
            return Ok(crate::scan::search_file(p, &q, ALL).map(|g| g.hits.into_iter().map(|h| h.id).collect()).unwrap_or_default());
        }
        let _read = Tx::read(&c).at(&self.db)?;
        let Some(id) = lookup::ids_of(&c, &HashSet::from([path.to_string()])).at(&self.db)?.into_iter().next() else { return Ok(vec![]) };
        Ok(lookup::find(&c, &self.db, &q, ALL, Some(id), &HashSet::new(), false)?.into_iter().map(|h| h.id).collect())
    }

    /// Bytes the index takes on disk (database, its WAL, its posting files).
    pub fn size_on_disk(&self) -> u64 {
        let wal = PathBuf::from(format!("{}-wal", self.db.display()));
        let files: u64 = std::fs::read_dir(segment::dir_of(&self.db)).into_iter().flatten().flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum();
        files + [self.db.clone(), wal].iter().filter_map(|p| std::fs::metadata(p).ok()).map(|m| m.len()).sum::<u64>()
    }
}

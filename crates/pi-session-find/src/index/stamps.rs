//! The stamps of the indexed files in one row: what a search's look at the files compares
//! with, read at once.
//!
//! Before each query an update stats every file under the root and compares it with its row
//! in `files`. Read row by row, those rows (paths, titles, folders) took 10 ms of a query's
//! 33 ms on 10,000 files, beside the stats on the same two cores. The `stamps` table keeps one
//! blob instead: per file the hash of its path as listed, its row's id and its stamp (length,
//! mtime, inode), 40 bytes, sorted by hash.
//!
//! The blob is a copy of `files`, never the truth: triggers delete it in the same transaction
//! as any insert, delete, or change of a path or stamp in `files`, and an update that finds it
//! missing writes it again from `files` when it is done. A blob that is missing, cut short or
//! of another format is not used (the rows are read as before).

use rusqlite::{Connection, OptionalExtension};

/// The blob's first bytes: its format.
const MAGIC: &[u8; 8] = b"stamps01";
const ENTRY: usize = 40;

/// The table and the triggers that keep it from going stale.
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS stamps(id INTEGER PRIMARY KEY CHECK (id = 1), data BLOB NOT NULL);
CREATE TRIGGER IF NOT EXISTS stamps_insert AFTER INSERT ON files BEGIN DELETE FROM stamps; END;
CREATE TRIGGER IF NOT EXISTS stamps_update AFTER UPDATE OF id, path, size, mtime_ns, ino ON files BEGIN DELETE FROM stamps; END;
CREATE TRIGGER IF NOT EXISTS stamps_delete AFTER DELETE ON files BEGIN DELETE FROM stamps; END;
";

/// A file's stamp as its row has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    pub hash: u64,
    pub id: i64,
    pub len: u64,
    pub mtime_ns: i64,
    pub ino: u64,
}

/// Every indexed file's stamp, sorted by the hash of its path (no hash twice).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Stamps(Vec<Stamp>);

/// The hash of a path as listed (the `files.path` string): FNV-1a over 8-byte words, then
/// mixed. Defined here, not taken from a crate, so a blob written by one build is read the
/// same by the next.
pub(super) fn path_hash(path: &str) -> u64 {
    let b = path.as_bytes();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ b.len() as u64;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        h = (h ^ u64::from_le_bytes(w.try_into().unwrap())).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
    let mut last = [0u8; 8];
    last[..words.remainder().len()].copy_from_slice(words.remainder());
    h = (h ^ u64::from_le_bytes(last)).wrapping_mul(0x0000_0100_0000_01b3);
    // splitmix64's finish: every input bit reaches every output bit.
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// Each stamp's place in [`Stamps::all`], by its path's hash.
pub(super) type Places = rustc_hash::FxHashMap<u64, usize>;

impl Stamps {
    pub(super) fn places(&self) -> Places {
        let mut m = Places::with_capacity_and_hasher(self.0.len(), Default::default());
        m.extend(self.0.iter().enumerate().map(|(i, s)| (s.hash, i)));
        m
    }

    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    pub(super) fn all(&self) -> &[Stamp] {
        &self.0
    }

    fn decode(data: &[u8]) -> Option<Stamps> {
        let body = data.strip_prefix(MAGIC)?;
        if body.len() % ENTRY != 0 {
            return None;
        }
        let word = |e: &[u8], k: usize| u64::from_le_bytes(e[k * 8..k * 8 + 8].try_into().unwrap());
        let v: Vec<Stamp> = body.chunks_exact(ENTRY).map(|e| Stamp { hash: word(e, 0), id: word(e, 1) as i64, len: word(e, 2), mtime_ns: word(e, 3) as i64, ino: word(e, 4) }).collect();
        // Sorted, no hash twice: else it is not a blob this module wrote.
        v.windows(2).all(|w| w[0].hash < w[1].hash).then_some(Stamps(v))
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(MAGIC.len() + self.0.len() * ENTRY);
        out.extend_from_slice(MAGIC);
        for s in &self.0 {
            for w in [s.hash, s.id as u64, s.len, s.mtime_ns as u64, s.ino] {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
        out
    }

    /// The stamps of the rows of `files`, or `None` when two paths hash the same (then the
    /// rows are read each time).
    pub(super) fn of_files(c: &Connection) -> rusqlite::Result<Option<Stamps>> {
        let mut st = c.prepare_cached("SELECT path, id, size, mtime_ns, ino FROM files")?;
        let mut v = st.query_map([], |r| Ok(Stamp { hash: path_hash(&r.get::<_, String>(0)?), id: r.get(1)?, len: r.get::<_, i64>(2)? as u64, mtime_ns: r.get(3)?, ino: r.get::<_, i64>(4)? as u64 }))?.collect::<rusqlite::Result<Vec<_>>>()?;
        v.sort_unstable_by_key(|s| s.hash);
        Ok(v.windows(2).all(|w| w[0].hash < w[1].hash).then_some(Stamps(v)))
    }
}

/// Whether the database has the table (an index of schema 9 that could not be given it yet
/// has not).
fn has_table(c: &Connection) -> rusqlite::Result<bool> {
    c.prepare_cached("SELECT EXISTS(SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'stamps')")?.query_row([], |r| r.get(0))
}

/// The stamps as the blob has them, or `None` when there is no usable blob.
pub(super) fn read(c: &Connection) -> rusqlite::Result<Option<Stamps>> {
    if !has_table(c)? {
        return Ok(None);
    }
    let data: Option<Vec<u8>> = c.query_row("SELECT data FROM stamps WHERE id = 1", [], |r| r.get(0)).optional()?;
    Ok(data.as_deref().and_then(Stamps::decode))
}

/// Writes the blob from `files` when it is missing (after an update changed `files`, or in
/// an index made before the blob existed). Its own transaction.
pub(super) fn write_if_missing(c: &Connection) -> rusqlite::Result<()> {
    if !has_table(c)? {
        return Ok(());
    }
    let missing: bool = c.query_row("SELECT NOT EXISTS(SELECT 1 FROM stamps)", [], |r| r.get(0))?;
    if !missing {
        return Ok(());
    }
    c.execute_batch("BEGIN IMMEDIATE")?;
    let r = (|| {
        if let Some(s) = Stamps::of_files(c)? {
            c.execute("INSERT OR REPLACE INTO stamps(id, data) VALUES(1, ?1)", [s.encode()])?;
        }
        c.execute_batch("COMMIT")
    })();
    if r.is_err() {
        let _ = c.execute_batch("ROLLBACK");
    }
    r
}

/// [`write_if_missing`] for a look at the files that found nothing to do: it does not wait
/// for another writer (a build elsewhere holds its lock for a whole batch), and a database
/// it may not write is no error; the blob is then written by a later update.
pub(super) fn write_if_missing_now(c: &Connection) -> rusqlite::Result<()> {
    let wait: u64 = c.query_row("PRAGMA busy_timeout", [], |r| r.get(0))?;
    c.busy_timeout(std::time::Duration::ZERO)?;
    let r = write_if_missing(c);
    c.busy_timeout(std::time::Duration::from_millis(wait))?;
    match r {
        Err(rusqlite::Error::SqliteFailure(e, _)) if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked | rusqlite::ErrorCode::ReadOnly) => Ok(()),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch("CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER, mtime_ns INTEGER, ino INTEGER, title TEXT);").unwrap();
        c.execute_batch(SCHEMA).unwrap();
        c
    }

    fn present(c: &Connection) -> bool {
        c.query_row("SELECT EXISTS(SELECT 1 FROM stamps)", [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn the_blob_is_the_rows_and_any_change_to_a_stamp_drops_it() {
        let c = db();
        for i in 0..50 {
            c.execute("INSERT INTO files(path, size, mtime_ns, ino) VALUES(?1, ?2, ?3, ?4)", rusqlite::params![format!("/r/--p--/s{i}.jsonl"), i * 10, -(i as i64), 1000 + i]).unwrap();
        }
        write_if_missing(&c).unwrap();
        let s = read(&c).unwrap().expect("written");
        assert_eq!(s.len(), 50);
        assert_eq!(Some(&s), Stamps::of_files(&c).unwrap().as_ref());
        let places = s.places();
        let st = s.all()[places[&path_hash("/r/--p--/s7.jsonl")]];
        assert_eq!((st.len, st.mtime_ns, st.ino), (70, -7, 1007));
        assert!(!places.contains_key(&path_hash("/r/--p--/s50.jsonl")));

        // A title is not a stamp: the blob stays.
        c.execute("UPDATE files SET title = 't' WHERE id = 3", []).unwrap();
        assert!(present(&c));
        // Each change the blob copies drops it.
        for sql in [
            "UPDATE files SET size = size + 1 WHERE id = 3",
            "UPDATE files SET mtime_ns = 5 WHERE id = 3",
            "UPDATE files SET ino = 5 WHERE id = 3",
            "UPDATE files SET path = '/r/x.jsonl' WHERE id = 3",
            "INSERT INTO files(path, size, mtime_ns, ino) VALUES('/r/new.jsonl', 1, 1, 1)",
            "DELETE FROM files WHERE id = 4",
        ] {
            write_if_missing(&c).unwrap();
            assert!(present(&c));
            c.execute(sql, []).unwrap();
            assert!(!present(&c), "{sql} left the blob");
        }
        write_if_missing(&c).unwrap();
        assert_eq!(read(&c).unwrap(), Stamps::of_files(&c).unwrap());
    }

    /// A look that found nothing to do leaves the blob to a later update when another
    /// connection holds the write lock, without an error.
    #[test]
    fn a_look_does_not_wait_for_another_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let c = Connection::open(&path).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER, mtime_ns INTEGER, ino INTEGER);").unwrap();
        c.execute_batch(SCHEMA).unwrap();
        c.execute("INSERT INTO files(path, size, mtime_ns, ino) VALUES('/a', 1, 2, 3)", []).unwrap();
        // Were it to wait, it would fail after this long (the write lock is not given back).
        c.busy_timeout(std::time::Duration::from_secs(20)).unwrap();
        let other = Connection::open(&path).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        write_if_missing_now(&c).unwrap();
        assert!(!present(&c));
        // The connection waits as long as before for its other statements.
        assert_eq!(c.query_row("PRAGMA busy_timeout", [], |r| r.get::<_, i64>(0)).unwrap(), 20_000);
        other.execute_batch("COMMIT").unwrap();
        write_if_missing_now(&c).unwrap();
        assert!(present(&c));
    }

    #[test]
    fn a_blob_of_another_format_or_cut_short_is_not_used() {
        let c = db();
        c.execute("INSERT INTO files(path, size, mtime_ns, ino) VALUES('/a', 1, 2, 3), ('/b', 4, 5, 6)", []).unwrap();
        write_if_missing(&c).unwrap();
        let good: Vec<u8> = c.query_row("SELECT data FROM stamps", [], |r| r.get(0)).unwrap();
        assert_eq!(good.len(), 8 + 2 * ENTRY);
        let mut swapped = good.clone();
        swapped[8..].rotate_left(ENTRY);
        for bad in [good[..good.len() - 1].to_vec(), [b"stamps02", &good[8..]].concat(), swapped, Vec::new()] {
            c.execute("UPDATE stamps SET data = ?1", [bad]).unwrap();
            assert_eq!(read(&c).unwrap(), None);
        }
    }

    #[test]
    fn the_path_hash_is_fixed_and_sees_every_byte() {
        // Fixed values: a blob written by one build is read by the next.
        assert_eq!([path_hash(""), path_hash("/s/--a--/x.jsonl")], [2737183428366584608, 17195950608436555941]);
        let a = "/home/me/.pi/agent/sessions/--home-me-app--/2026-01-01T00-00-00-000Z_0199.jsonl";
        let mut seen = std::collections::HashSet::new();
        seen.insert(path_hash(a));
        for i in 0..a.len() {
            let mut b = a.as_bytes().to_vec();
            b[i] ^= 1;
            assert!(seen.insert(path_hash(std::str::from_utf8(&b).unwrap())), "byte {i}");
        }
        assert!(seen.insert(path_hash(&a[..a.len() - 1])));
        assert!(seen.insert(path_hash(&format!("{a}\0"))));
    }
}

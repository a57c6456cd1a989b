//! What an update has to do: each file under the root compared with its row in the index
//! (through the blob of stamps when there is one, `stamps.rs`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension};

use super::build::{same_tail, Plan};
use super::stamps;
use super::UpdateStats;
use crate::{DbResult as _, Error};

/// (id, size, mtime, inode, indexed bytes, indexed lines, tail hash) of each indexed file, by
/// path as listed.
type Known = rustc_hash::FxHashMap<String, KnownRow>;

fn known_files(c: &Connection) -> rusqlite::Result<Known> {
    let mut st = c.prepare_cached("SELECT path, id, size, mtime_ns, ino, indexed_bytes, indexed_lines, tail_hash FROM files")?;
    let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, (r.get(1)?, r.get::<_, i64>(2)? as u64, r.get(3)?, r.get::<_, i64>(4)? as u64, r.get::<_, i64>(5)? as u64, r.get::<_, i64>(6)? as u64, r.get(7)?))))?;
    // Gathered first, then hashed into a table of the right size (not grown step by step).
    let rows: Vec<_> = rows.collect::<rusqlite::Result<_>>()?;
    let mut known = Known::with_capacity_and_hasher(rows.len(), Default::default());
    known.extend(rows);
    Ok(known)
}

/// The files under the root, and what an update has to do with them. The folders are read
/// on the pool's threads; this one meanwhile reads the blob of stamps, or when there is none
/// the index's rows of every file (a query's freshness check on 10,000 files did one after
/// the other).
///
/// The stamps are compared on the pool's threads too, from the thread that read the folders:
/// this one holds the index's connection and only waits. (A pool thread that waits inside a
/// parallel part may take up other work of the pool meanwhile, an update of this same index
/// among it, which would then wait for the connection its own thread holds.)
pub(super) fn scan_and_plan(root: &Path, c: &Connection, db: &Path, stats: &mut UpdateStats) -> Result<Work, Error> {
    let (blob, blob_read) = std::sync::mpsc::channel::<Option<(stamps::Stamps, stamps::Places)>>();
    std::thread::scope(|s| {
        let scan = s.spawn(move || {
            let found = pi_session::scan::scan(root).files;
            let compared = blob_read.recv().ok().flatten().map(|(st, places)| {
                let same = same_stamps(&found, &st, &places);
                (st, same)
            });
            (found, compared)
        });
        // The places by hash are made while the folders are read.
        let rows = match stamps::read(c) {
            Ok(Some(st)) => {
                let places = st.places();
                let _ = blob.send(Some((st, places)));
                Ok(None)
            }
            Ok(None) => {
                let _ = blob.send(None);
                known_files(c).map(Some)
            }
            Err(e) => {
                let _ = blob.send(None);
                Err(e)
            }
        };
        let (found, compared) = scan_result(scan.join(), root)?;
        stats.files = found.len();
        match (rows.at(db)?, compared) {
            (None, Some((st, same))) => plan_by_stamps(&found, &st, same, c, stats).at(db),
            (Some(known), _) => Ok(plan(&found, &known, stats)),
            // The blob was sent but not received (cannot happen while the thread runs to its
            // end): the rows, as when there is no blob.
            (None, None) => Ok(plan(&found, &known_files(c).at(db)?, stats)),
        }
    })
}

/// The folders' scan as its thread ended. A panic there is an error: planned from an empty
/// list, the update would count every indexed file as gone and drop its rows.
fn scan_result<T>(joined: std::thread::Result<T>, root: &Path) -> Result<T, Error> {
    joined.map_err(|p| {
        let why = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "it panicked".into());
        Error::Io { path: root.to_path_buf(), source: std::io::Error::other(format!("reading the sessions folders failed: {why}")) }
    })
}

/// What an update has to do: each file's work (path, plan, bytes to read), the ids of the
/// indexed files that are gone, and which of the files read whole were indexed before (they
/// are counted as indexed again); the unchanged files are counted in `stats`.
pub(super) struct Work {
    pub files: Vec<(PathBuf, Plan, u64)>,
    pub gone: Vec<i64>,
    pub replaced: HashSet<PathBuf>,
    /// The plan was made from the blob of stamps (so the blob is there: a look that found
    /// nothing to do need not ask for it again).
    pub from_blob: bool,
}

/// One file's row as a plan needs it: (id, size, mtime, inode, indexed bytes, indexed lines,
/// tail hash).
type KnownRow = (i64, u64, i64, u64, u64, u64, i64);

/// A file's plan, given its row (if it has one): nothing when its stamp is the row's.
fn plan_one(f: &pi_session::scan::Found, row: Option<&KnownRow>, work: &mut Work, stats: &mut UpdateStats) {
    match row {
        None => work.files.push((f.path.clone(), Plan::Full, f.stamp.len)),
        Some(&(id, size, mtime, ino, ib, il, th)) => {
            if size == f.stamp.len && mtime == f.stamp.mtime_ns && ino == f.stamp.ino {
                stats.unchanged += 1;
            } else if ino == f.stamp.ino && f.stamp.len >= ib && same_tail(&f.path, ib, th) {
                work.files.push((f.path.clone(), Plan::Append { file_id: id, from: ib, lines: il }, f.stamp.len - ib));
            } else {
                work.files.push((f.path.clone(), Plan::Full, f.stamp.len));
                work.replaced.insert(f.path.clone());
            }
        }
    }
}

fn plan(found: &[pi_session::scan::Found], known: &Known, stats: &mut UpdateStats) -> Work {
    let mut work = Work { files: Vec::new(), gone: Vec::new(), replaced: HashSet::new(), from_blob: false };
    let mut matched = 0;
    for f in found {
        let row = known.get(pi_session::pathstr::encoded(&f.path).as_ref());
        matched += row.is_some() as usize;
        plan_one(f, row, &mut work, stats);
    }
    // Every row found again (the common case): none is gone, without a set of the paths.
    if matched != known.len() {
        let present: HashSet<_> = found.iter().map(|f| pi_session::pathstr::encoded(&f.path)).collect();
        work.gone = known.iter().filter(|(p, _)| !present.contains(p.as_str())).map(|(_, v)| v.0).collect();
    }
    work
}

/// For each file, the place of its stamp in the blob when the blob has its path with the
/// same stamp (`places`: each stamp's place by its path's hash); compared on the pool's
/// threads.
fn same_stamps(found: &[pi_session::scan::Found], st: &stamps::Stamps, places: &stamps::Places) -> Vec<Option<usize>> {
    use rayon::prelude::*;
    found
        .par_iter()
        .with_min_len(256)
        .map(|f| {
            let i = *places.get(&stamps::path_hash(&pi_session::pathstr::encoded(&f.path)))?;
            let s = &st.all()[i];
            (s.len == f.stamp.len && s.mtime_ns == f.stamp.mtime_ns && s.ino == f.stamp.ino).then_some(i)
        })
        .collect()
}

/// [`plan`] from the blob of stamps (`same`: [`same_stamps`]): a file whose stamp is the
/// blob's is unchanged; any other has its row read by its path (the blob keeps no more than
/// the stamp). The rows the blob lists that no file matched are gone.
fn plan_by_stamps(found: &[pi_session::scan::Found], st: &stamps::Stamps, same: Vec<Option<usize>>, c: &Connection, stats: &mut UpdateStats) -> rusqlite::Result<Work> {
    let mut work = Work { files: Vec::new(), gone: Vec::new(), replaced: HashSet::new(), from_blob: true };
    let mut matched = vec![false; st.len()];
    let mut row_of = c.prepare_cached("SELECT id, size, mtime_ns, ino, indexed_bytes, indexed_lines, tail_hash FROM files WHERE path = ?1")?;
    // The blob's place of each row id, made when a file is not unchanged.
    let mut by_id = None;
    for (f, same) in found.iter().zip(same) {
        if let Some(i) = same {
            matched[i] = true;
            stats.unchanged += 1;
            continue;
        }
        let path = pi_session::pathstr::encoded(&f.path);
        let row: Option<KnownRow> = row_of
            .query_row([&*path], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64, r.get(2)?, r.get::<_, i64>(3)? as u64, r.get::<_, i64>(4)? as u64, r.get::<_, i64>(5)? as u64, r.get(6)?)))
            .optional()?;
        if let Some(id) = row.map(|r| r.0) {
            let at = by_id.get_or_insert_with(|| st.all().iter().enumerate().map(|(i, s)| (s.id, i)).collect::<rustc_hash::FxHashMap<i64, usize>>());
            if let Some(&i) = at.get(&id) {
                matched[i] = true;
            }
        }
        plan_one(f, row.as_ref(), &mut work, stats);
    }
    work.gone = st.all().iter().zip(&matched).filter(|(_, &m)| !m).map(|(s, _)| s.id).collect();
    Ok(work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_session::scan::Found;
    use pi_session::FileStamp;

    #[test]
    fn a_scan_that_panicked_is_an_error_not_an_empty_folder() {
        let root = Path::new("/sessions");
        let joined = std::thread::scope(|s| s.spawn(|| -> Vec<Found> { panic!("a folder could not be read") }).join());
        let e = scan_result(joined, root).expect_err("no plan from a scan that did not finish");
        assert_eq!(e.code(), "io");
        assert!(e.to_string().contains("/sessions") && e.to_string().contains("a folder could not be read"), "{e}");
        let joined = std::thread::scope(|s| s.spawn(Vec::<Found>::new).join());
        assert!(scan_result(joined, root).unwrap().is_empty(), "an empty folder is no error");
    }

    /// What a plan says, in an order that does not depend on the planner.
    fn outline(w: &Work, stats: &UpdateStats) -> (Vec<String>, Vec<i64>, Vec<PathBuf>, usize) {
        let mut files: Vec<String> = w
            .files
            .iter()
            .map(|(p, plan, bytes)| match plan {
                Plan::Full => format!("full {} {bytes}", p.display()),
                Plan::Append { file_id, from, lines } => format!("append {} {file_id} {from} {lines} {bytes}", p.display()),
            })
            .collect();
        files.sort();
        let mut gone = w.gone.clone();
        gone.sort();
        let mut replaced: Vec<PathBuf> = w.replaced.iter().cloned().collect();
        replaced.sort();
        (files, gone, replaced, stats.unchanged)
    }

    /// Both planners, from the rows and from the blob, on one index and one look at the files:
    /// unchanged, appended to, replaced, shrunk, new and gone files, and a file whose path is in
    /// the blob with another stamp.
    #[test]
    fn the_blob_of_stamps_plans_what_the_rows_plan() {
        let dir = tempfile::tempdir().unwrap();
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER, mtime_ns INTEGER, ino INTEGER,
               indexed_bytes INTEGER, indexed_lines INTEGER, tail_hash INTEGER, title TEXT);",
        )
        .unwrap();
        c.execute_batch(stamps::SCHEMA).unwrap();
        let line = "{\"type\":\"message\"}\n";
        let mut found = Vec::new();
        for i in 0..40u64 {
            let path = dir.path().join(format!("s{i:02}.jsonl"));
            let indexed = line.repeat(3);
            std::fs::write(&path, &indexed).unwrap();
            let th = super::super::build::tail_hash(indexed.as_bytes(), indexed.len());
            let stamp = FileStamp { len: indexed.len() as u64, mtime_ns: 1_000 + i as i64, ino: 500 + i };
            let p = pi_session::pathstr::encode(&path);
            if i < 36 {
                c.execute(
                    "INSERT INTO files(path, size, mtime_ns, ino, indexed_bytes, indexed_lines, tail_hash) VALUES(?1, ?2, ?3, ?4, ?5, 3, ?6)",
                    rusqlite::params![p, stamp.len as i64, stamp.mtime_ns, stamp.ino as i64, indexed.len() as i64, th],
                )
                .unwrap();
            }
            let now = match i {
                // Appended to: the same file, grown, its indexed tail the same.
                0..=3 => {
                    let grown = format!("{indexed}{line}");
                    std::fs::write(&path, &grown).unwrap();
                    FileStamp { len: grown.len() as u64, mtime_ns: 9_000, ..stamp }
                }
                // Replaced (another inode), shrunk, rewritten in place with another tail.
                4 | 5 => FileStamp { ino: 9_000 + i, ..stamp },
                6 => FileStamp { len: 2, mtime_ns: 9_000, ..stamp },
                7 => {
                    std::fs::write(&path, format!("{}{line}", "{\"type\":\"mess\"}    \n".repeat(3))).unwrap();
                    FileStamp { len: stamp.len + line.len() as u64, mtime_ns: 9_000, ..stamp }
                }
                // Touched: only the time.
                8 => FileStamp { mtime_ns: 9_000, ..stamp },
                // Gone: rows without a file.
                30..=35 => continue,
                _ => stamp,
            };
            found.push(Found { path, size: now.len, symlink: false, stamp: now });
        }
        let (mut by_rows, mut by_blob) = (UpdateStats::default(), UpdateStats::default());
        let rows = plan(&found, &known_files(&c).unwrap(), &mut by_rows);
        stamps::write_if_missing(&c).unwrap();
        let st = stamps::read(&c).unwrap().expect("a blob");
        let blob = plan_by_stamps(&found, &st, same_stamps(&found, &st, &st.places()), &c, &mut by_blob).unwrap();
        let (files, gone, replaced, unchanged) = outline(&rows, &by_rows);
        assert_eq!((files.len(), gone.len(), replaced.len(), unchanged), (4 + 4 + 1 + 4, 6, 4, 21), "{files:#?}");
        // The touched file too: its indexed tail is the same (an append of nothing).
        assert_eq!(files.iter().filter(|f| f.starts_with("append")).count(), 5, "{files:#?}");
        assert_eq!(outline(&blob, &by_blob), outline(&rows, &by_rows));
        assert_eq!(by_blob, by_rows);
    }

    /// Each update that changes the rows (files added, appended to, removed) leaves the blob
    /// again, equal to the rows, and the next look at the files goes by it.
    #[test]
    fn an_update_leaves_the_blob_of_the_rows_it_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sessions");
        let folder = root.join("--w--");
        std::fs::create_dir_all(&folder).unwrap();
        let header = |i: u32| format!("{{\"type\":\"session\",\"version\":3,\"id\":\"s{i}\",\"timestamp\":\"2026-03-02T10:00:00.000Z\",\"cwd\":\"/w\"}}\n");
        let line = |id: &str, text: &str| format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":null,\"timestamp\":\"2026-03-02T10:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"{text}\"}}}}\n");
        let file = |i: u32| folder.join(format!("2026-03-02T10-00-00-000Z_s{i}.jsonl"));
        for i in 0..3 {
            std::fs::write(file(i), header(i) + &line("a1", "first words")).unwrap();
        }
        let ix = crate::SearchIndex::open(&root, &dir.path().join("cache/search.sqlite")).unwrap();
        let same = |ix: &crate::SearchIndex| {
            let c = ix.conn.lock().unwrap();
            let blob = stamps::read(&c).unwrap().expect("a blob after the update");
            assert_eq!(Some(blob), stamps::Stamps::of_files(&c).unwrap());
        };
        assert_eq!(ix.update(|_| {}).unwrap().added, 3);
        same(&ix);
        use std::io::Write;
        std::fs::OpenOptions::new().append(true).open(file(1)).unwrap().write_all(line("a2", "later words").as_bytes()).unwrap();
        std::fs::remove_file(file(2)).unwrap();
        std::fs::write(file(3), header(3) + &line("a1", "new words")).unwrap();
        let s = ix.update(|_| {}).unwrap();
        assert_eq!((s.appended, s.removed, s.added, s.unchanged), (1, 1, 1, 1));
        same(&ix);
        // Nothing changed since: the blob says so.
        let s = ix.update(|_| {}).unwrap();
        assert_eq!((s.unchanged, s.files), (3, 3));
        assert_eq!(ix.search("later", 10).unwrap().total_hits, 1);
    }
}

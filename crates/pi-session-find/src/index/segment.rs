//! Posting lists on disk: one file per segment in the folder `<index>-postings` beside the
//! index's database, written once (temporary name, fsync, rename) and never changed; a merge
//! writes a new file and the database's `segments` table says which files are current (a file
//! it does not name is a leftover of an interrupted write, removed on open).
//!
//! A file: `PIPOST02`, the lists, the key table (per key, ascending: key u32, last id u32,
//! offset u64 into the lists, length u32), the number of keys (u32), of list bytes (u64), and a
//! check of everything before it (u64, [`Check`]: 8 bytes a step). Little-endian; written in
//! one pass (lists as they come, the table at the end). A file whose length, magic or check
//! does not add up is damage: the whole index is set aside and built again.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"PIPOST02";
const TAIL: u64 = 4 + 8 + 8;
const ENTRY: u64 = 20;

/// Where a segment's lists are read from.
pub(super) struct Segment {
    file: File,
    keys: u64,
    /// Where the key table starts.
    table: u64,
}

/// A posting file that does not add up, as the damage SQLite reports (so the index heals the
/// same way).
pub(super) fn damaged(path: &Path, why: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT), Some(format!("posting file {}: {why}", path.display())))
}

/// The check of a posting file: a multiply-rotate hash of its bytes taken 8 at a time (a byte
/// at a time, FNV-1a, cost a few percent of a build). It finds damage, not forgery.
struct Check {
    h: u64,
    buf: [u8; 8],
    n: usize,
    len: u64,
}

impl Check {
    fn new() -> Check {
        Check { h: 0xcbf2_9ce4_8422_2325, buf: [0; 8], n: 0, len: 0 }
    }

    #[inline(always)]
    fn word(&mut self, w: u64) {
        self.h = (self.h.rotate_left(23) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn add(&mut self, mut b: &[u8]) {
        self.len += b.len() as u64;
        if self.n > 0 {
            let take = (8 - self.n).min(b.len());
            self.buf[self.n..self.n + take].copy_from_slice(&b[..take]);
            self.n += take;
            b = &b[take..];
            if self.n < 8 {
                return;
            }
            self.word(u64::from_le_bytes(self.buf));
            self.n = 0;
        }
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes(w.try_into().unwrap()));
        }
        let rest = words.remainder();
        self.buf[..rest.len()].copy_from_slice(rest);
        self.n = rest.len();
    }

    fn finish(mut self) -> u64 {
        self.buf[self.n..].fill(0);
        self.word(u64::from_le_bytes(self.buf));
        let len = self.len;
        self.word(len);
        self.h
    }
}

/// The folder of the posting files of the index at `db`.
pub(super) fn dir_of(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push("-postings");
    PathBuf::from(s)
}

/// A segment file being written: lists as they come (ascending keys), the table at the end.
pub(super) struct Writer {
    dir: PathBuf,
    name: String,
    tmp: PathBuf,
    out: std::io::BufWriter<File>,
    h: Check,
    table: Vec<u8>,
    off: u64,
    /// Bytes put so far, and those already handed to the disk ([`Writer::write_back`]).
    put: u64,
    handed: u64,
}

/// Bytes written between two hand-offs to the disk.
const WRITE_BACK: u64 = 8 << 20;

impl Writer {
    pub(super) fn new(dir: &Path, name: &str) -> std::io::Result<Writer> {
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(".{name}.tmp"));
        let out = std::io::BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        let mut w = Writer { dir: dir.to_path_buf(), name: name.to_string(), tmp, out, h: Check::new(), table: Vec::new(), off: 0, put: 0, handed: 0 };
        w.put(MAGIC)?;
        Ok(w)
    }

    fn put(&mut self, b: &[u8]) -> std::io::Result<()> {
        self.h.add(b);
        self.out.write_all(b)?;
        self.put += b.len() as u64;
        if self.put - self.handed >= WRITE_BACK {
            self.write_back()?;
        }
        Ok(())
    }

    /// Starts the disk's write of the bytes put since the last call, without waiting for it
    /// (Linux): the sync at the end then waits for the last few megabytes, not for the whole
    /// file (a first build of 2,000 files waited 150 ms in its segments' syncs, one core idle).
    fn write_back(&mut self) -> std::io::Result<()> {
        self.out.flush()?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: sync_file_range reads no memory of ours; a failure only loses the head start.
            unsafe {
                libc::sync_file_range(self.out.get_ref().as_raw_fd(), self.handed as i64, (self.put - self.handed) as i64, libc::SYNC_FILE_RANGE_WRITE);
            }
        }
        self.handed = self.put;
        Ok(())
    }

    /// Adds the list of `key` (keys ascending), its last id `last`.
    pub(super) fn push(&mut self, key: u32, last: u32, list: &[u8]) -> std::io::Result<()> {
        self.table.extend_from_slice(&key.to_le_bytes());
        self.table.extend_from_slice(&last.to_le_bytes());
        self.table.extend_from_slice(&self.off.to_le_bytes());
        self.table.extend_from_slice(&(list.len() as u32).to_le_bytes());
        self.off += list.len() as u64;
        self.put(list)
    }

    /// Writes the table and the check, syncs and renames the file into place; returns the list
    /// bytes.
    pub(super) fn finish(mut self) -> std::io::Result<u64> {
        let table = std::mem::take(&mut self.table);
        self.put(&table)?;
        self.put(&((table.len() as u64 / ENTRY) as u32).to_le_bytes())?;
        let off = self.off;
        self.put(&off.to_le_bytes())?;
        let h = std::mem::replace(&mut self.h, Check::new()).finish();
        self.out.write_all(&h.to_le_bytes())?;
        let f = self.out.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&self.tmp, self.dir.join(&self.name))?;
        Ok(off)
    }
}

/// Writes `lists` (ascending keys: key, last id, list) as the file `name` in `dir`.
pub(super) fn write(dir: &Path, name: &str, lists: &[(u32, u32, Vec<u8>)]) -> std::io::Result<u64> {
    let mut w = Writer::new(dir, name)?;
    for (k, last, l) in lists {
        w.push(*k, *last, l)?;
    }
    w.finish()
}

/// A key table entry: (key, last id, offset, length).
fn decode_entry(e: &[u8]) -> (u32, u32, u64, u32) {
    (u32::from_le_bytes(e[0..4].try_into().unwrap()), u32::from_le_bytes(e[4..8].try_into().unwrap()), u64::from_le_bytes(e[8..16].try_into().unwrap()), u32::from_le_bytes(e[16..20].try_into().unwrap()))
}

fn read_exact_at(f: &File, buf: &mut [u8], off: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(f, buf, off)
    }
    #[cfg(windows)]
    {
        let mut got = 0;
        while got < buf.len() {
            let n = std::os::windows::fs::FileExt::seek_read(f, &mut buf[got..], off + got as u64)?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            got += n;
        }
        Ok(())
    }
}

/// Lists read through a window of [`WINDOW`] bytes: a merge asks for every list of a segment
/// once, in the file's order, so one read serves thousands of lists (a first build of 2,000
/// files made 348,333 reads with one per list, 78,498 in all with the window).
pub(super) struct Lists<'a> {
    seg: &'a Segment,
    buf: Vec<u8>,
    /// The list offset `buf` starts at.
    at: u64,
}

const WINDOW: usize = 1 << 20;

impl Lists<'_> {
    /// The bytes of a list found in the key table, checked as [`Segment::list`] checks them.
    pub(super) fn get(&mut self, off: u64, len: u32) -> std::io::Result<&[u8]> {
        let end = off.checked_add(len as u64).filter(|&e| e <= self.seg.table - 8);
        let Some(end) = end else {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a list past the lists"));
        };
        if off < self.at || end > self.at + self.buf.len() as u64 {
            let n = (self.seg.table - 8 - off).min(WINDOW.max(len as usize) as u64) as usize;
            self.buf.resize(n, 0);
            read_exact_at(&self.seg.file, &mut self.buf, 8 + off)?;
            self.at = off;
        }
        let from = (off - self.at) as usize;
        Ok(&self.buf[from..from + len as usize])
    }
}

impl Segment {
    /// Opens a segment's file and checks its length and magic (`full`: its check too, reading
    /// it whole).
    pub(super) fn open(path: &Path, full: bool) -> rusqlite::Result<Segment> {
        let file = File::open(path).map_err(|e| damaged(path, &e.to_string()))?;
        let len = file.metadata().map_err(|e| damaged(path, &e.to_string()))?.len();
        let mut magic = [0u8; 8];
        let mut tail = [0u8; TAIL as usize];
        if len < 8 + TAIL || read_exact_at(&file, &mut magic, 0).is_err() || read_exact_at(&file, &mut tail, len - TAIL).is_err() {
            return Err(damaged(path, "shorter than a posting file"));
        }
        if &magic != MAGIC {
            return Err(damaged(path, "not a posting file"));
        }
        let keys = u32::from_le_bytes(tail[0..4].try_into().unwrap()) as u64;
        let bytes = u64::from_le_bytes(tail[4..12].try_into().unwrap());
        let want = 8u64.checked_add(bytes).and_then(|x| x.checked_add(keys * ENTRY + TAIL));
        if want != Some(len) {
            return Err(damaged(path, &format!("{len} bytes where its counts make {want:?}")));
        }
        if full {
            let all = std::fs::read(path).map_err(|e| damaged(path, &e.to_string()))?;
            let mut h = Check::new();
            h.add(&all[..all.len() - 8]);
            if h.finish().to_le_bytes()[..] != all[all.len() - 8..] {
                return Err(damaged(path, "its check does not match its bytes"));
            }
        }
        Ok(Segment { file, keys, table: 8 + bytes })
    }

    fn entry(&self, i: u64) -> std::io::Result<(u32, u32, u64, u32)> {
        let mut e = [0u8; ENTRY as usize];
        read_exact_at(&self.file, &mut e, self.table + i * ENTRY)?;
        Ok(decode_entry(&e))
    }

    /// (last id, offset, length) of `key`'s list, found by bisecting the key table.
    pub(super) fn find(&self, key: u32) -> std::io::Result<Option<(u32, u64, u32)>> {
        let (mut lo, mut hi) = (0u64, self.keys);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let (k, last, off, len) = self.entry(mid)?;
            match k.cmp(&key) {
                std::cmp::Ordering::Equal => return Ok(Some((last, off, len))),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        Ok(None)
    }

    /// (last id, offset, length) of the lists of the keys `lo..=hi`: the first found by
    /// bisecting the key table, the rest read after it (a range is at most 256 keys).
    pub(super) fn range(&self, lo: u32, hi: u32) -> std::io::Result<Vec<(u32, u64, u32)>> {
        let (mut a, mut b) = (0u64, self.keys);
        while a < b {
            let mid = (a + b) / 2;
            if self.entry(mid)?.0 < lo {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        let n = (self.keys - a).min(hi.saturating_sub(lo) as u64 + 1);
        let mut t = vec![0u8; (n * ENTRY) as usize];
        read_exact_at(&self.file, &mut t, self.table + a * ENTRY)?;
        Ok(t.chunks(ENTRY as usize)
            .map(decode_entry)
            .take_while(|e| e.0 <= hi)
            .map(|(_, last, off, len)| (last, off, len))
            .collect())
    }

    /// The bytes of a list found by [`Segment::find`].
    pub(super) fn list(&self, off: u64, len: u32) -> std::io::Result<Vec<u8>> {
        if off + len as u64 > self.table - 8 {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "a list past the lists"));
        }
        let mut buf = vec![0u8; len as usize];
        read_exact_at(&self.file, &mut buf, 8 + off)?;
        Ok(buf)
    }

    /// A reader of this segment's lists in ascending order (a merge's).
    pub(super) fn lists(&self) -> Lists<'_> {
        Lists { seg: self, buf: Vec::new(), at: 0 }
    }

    /// The key table: (key, last id, offset, length), ascending keys.
    pub(super) fn table(&self) -> std::io::Result<Vec<(u32, u32, u64, u32)>> {
        let mut t = vec![0u8; (self.keys * ENTRY) as usize];
        read_exact_at(&self.file, &mut t, self.table)?;
        Ok(t.chunks(ENTRY as usize).map(decode_entry).collect())
    }
}
/// Removes from `dir` the posting files (and temporary files) that `keep` does not name.
pub(super) fn remove_others(dir: &Path, keep: &[String]) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = (name.starts_with("seg-") && name.ends_with(".post")) || (name.starts_with(".seg-") && name.ends_with(".tmp"));
        if ours && !keep.contains(&name) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_does_not_depend_on_how_the_bytes_are_cut() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        let whole = {
            let mut c = Check::new();
            c.add(&bytes);
            c.finish()
        };
        for cut in [1, 3, 8, 13, 500] {
            let mut c = Check::new();
            for part in bytes.chunks(cut) {
                c.add(part);
            }
            assert_eq!(c.finish(), whole, "cut every {cut}");
        }
        // One byte changed, or one more zero byte, changes it.
        let mut other = bytes.clone();
        other[500] ^= 1;
        let mut c = Check::new();
        c.add(&other);
        assert_ne!(c.finish(), whole);
        other[500] ^= 1;
        other.push(0);
        let mut c = Check::new();
        c.add(&other);
        assert_ne!(c.finish(), whole);
    }

    #[test]
    fn lists_read_through_a_window_are_the_lists() {
        let dir = tempfile::tempdir().unwrap();
        // Lists of every size around the window's: each read from the window or a new read.
        // More than one hand-off to the disk in all (every WRITE_BACK bytes).
        let sizes = [1usize, 5, WINDOW - 3, 2, WINDOW + 10, 7, 3 * WINDOW, 1, 9 * WINDOW, 3, 7 * WINDOW];
        assert!(sizes.iter().sum::<usize>() as u64 > 2 * WRITE_BACK);
        let lists: Vec<(u32, u32, Vec<u8>)> = sizes.iter().enumerate().map(|(i, &n)| (i as u32, 1, (0..n).map(|b| (b * 7 + i) as u8).collect())).collect();
        write(dir.path(), "seg-1-1.post", &lists).unwrap();
        let s = Segment::open(&dir.path().join("seg-1-1.post"), true).unwrap();
        let table = s.table().unwrap();
        let mut r = s.lists();
        for &(k, _, off, len) in &table {
            assert_eq!(r.get(off, len).unwrap(), &lists[k as usize].2[..], "key {k}");
        }
        // Backwards too (each a new read), and nothing past the lists.
        for &(k, _, off, len) in table.iter().rev() {
            assert_eq!(r.get(off, len).unwrap(), &lists[k as usize].2[..], "key {k}");
        }
        let (_, _, off, len) = table[table.len() - 1];
        assert!(r.get(off, len + 1).is_err());
        assert!(r.get(u64::MAX - 1, 4).is_err());
    }

    #[test]
    fn a_segment_file_round_trips_and_its_damage_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let lists = vec![(1u32, 9u32, vec![1u8, 8]), (7, 300, vec![0xac, 0x02]), (1 << 24 | 5, 4, vec![4])];
        write(dir.path(), "seg-1-1.post", &lists).unwrap();
        let p = dir.path().join("seg-1-1.post");
        let s = Segment::open(&p, true).unwrap();
        assert_eq!(s.find(7).unwrap(), Some((300, 2, 2)));
        assert_eq!(s.list(2, 2).unwrap(), vec![0xac, 0x02]);
        assert_eq!(s.find(8).unwrap(), None);
        assert_eq!(s.find(1 << 24 | 5).unwrap(), Some((4, 4, 1)));
        assert_eq!(s.range(0, 7).unwrap(), vec![(9, 0, 2), (300, 2, 2)]);
        assert_eq!(s.range(2, 8).unwrap(), vec![(300, 2, 2)]);
        assert_eq!(s.range(8, 1 << 24).unwrap(), vec![]);
        assert_eq!(s.range(8, u32::MAX).unwrap(), vec![(4, 4, 1)]);
        assert_eq!(s.table().unwrap().len(), 3);
        let good = std::fs::read(&p).unwrap();
        let mut bad = good.clone();
        bad[9] ^= 1;
        std::fs::write(&p, &bad).unwrap();
        assert!(Segment::open(&p, false).is_ok(), "the quick check reads the header alone");
        assert!(crate::damage::is_damage(&Segment::open(&p, true).err().unwrap()));
        std::fs::write(&p, &good[..good.len() - 1]).unwrap();
        assert!(crate::damage::is_damage(&Segment::open(&p, false).err().unwrap()));
        // Leftovers go; named files stay.
        std::fs::write(dir.path().join(".seg-2-2.post.tmp"), b"x").unwrap();
        std::fs::write(dir.path().join("seg-3-3.post"), b"x").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"x").unwrap();
        remove_others(dir.path(), &["seg-1-1.post".to_string()]);
        let mut left: Vec<String> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        left.sort();
        assert_eq!(left, vec!["notes.txt", "seg-1-1.post"]);
    }
}

//! Building the index: each file read on a core of the background pool (its entries, their
//! searchable text cut into blocks, each block's keys), then written by one thread: the rows
//! of a batch of files, and the blocks' ids appended to in-memory posting lists, flushed as a
//! *segment* (one row per key) in the same transaction as the rows they cover. Segments of
//! about the same size are merged four at a time, so a key has a few rows, not one per update.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use pi_session_format::entry::{Detail, Kind};
use pi_session::pathstr::encode;
use pi_session::summary::SessionSummary;
use pi_session::{Session, SessionIndex};
use rusqlite::{params, Connection, OptionalExtension};

use super::segment;
use crate::hits::describe;
use crate::grams::{self, GramSet};
use crate::text;
use crate::Error;

/// Searchable text per block, about: a block is checked as a whole when all of a query's keys
/// are in it, so smaller blocks mean fewer lines read for nothing, larger ones smaller lists.
const BLOCK_TEXT: usize = 16_384;

/// Posting bytes held in memory before they are written as a segment.
pub(super) const FLUSH_BYTES: usize = 64 << 20;

pub(super) struct Row {
    pub entry_id: String,
    pub line: u32,
    pub role: String,
    pub kind: String,
    pub tools: String,
    pub model: String,
    pub ts: Option<f64>,
    pub off: u64,
    pub len: u32,
}

/// A block: rows `first..=last` of its file's rows, and its keys (sorted).
pub(super) struct BlockKeys {
    first: usize,
    last: usize,
    keys: Vec<u32>,
}

/// What indexing (part of) one file produced.
pub(super) struct FileRows {
    pub path: PathBuf,
    /// `Some(file id)` for an append to an indexed file.
    pub append_to: Option<i64>,
    pub stamp: pi_session_format::FileStamp,
    pub indexed_bytes: u64,
    pub indexed_lines: u64,
    pub tail_hash: i64,
    pub summary: Option<SessionSummary>,
    /// Label changes in file order (target, text or None to clear); for a full index, the
    /// labels in effect.
    pub labels: Vec<(String, Option<String>)>,
    pub name: Option<Option<String>>,
    pub rows: Vec<Row>,
    pub blocks: Vec<BlockKeys>,
}

pub(super) enum Plan {
    Full,
    Append { file_id: i64, from: u64, lines: u64 },
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
pub(super) fn tail_hash(bytes: &[u8], end: usize) -> i64 {
    fnv(&bytes[end.saturating_sub(256)..end])
}

pub(super) fn same_tail(path: &Path, indexed: u64, hash: i64) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut f) = std::fs::File::open(path) else { return false };
    let from = indexed.saturating_sub(256);
    let mut buf = vec![0u8; (indexed - from) as usize];
    f.seek(SeekFrom::Start(from)).is_ok() && f.read_exact(&mut buf).is_ok() && fnv(&buf) == hash
}

thread_local! {
    /// One gram set per thread (its bitmaps are 2.3 MB, cleared after each block).
    static GRAMS: RefCell<GramSet> = RefCell::new(GramSet::default());
}

/// Line bytes per piece of a big file: its pieces are read on all of the pool's threads (the
/// 165 MB session was one thread's work while the other waited).
const PIECE_BYTES: u64 = 4 << 20;

/// The rows and blocks of the entries of `ix` (lines numbered from `line0 + 1`, offsets from
/// `base`): a big file in pieces of about [`PIECE_BYTES`] on the pool's threads, their blocks
/// joined end to end (a block never spans two pieces).
fn rows_of(ix: &SessionIndex, bytes: &[u8], base: u64, line0: u32) -> (Vec<Row>, Vec<BlockKeys>) {
    use rayon::prelude::*;
    let entries = &ix.entries[..];
    let mut cuts = vec![0];
    let mut acc = 0u64;
    for (i, e) in entries.iter().enumerate() {
        acc += e.len as u64;
        if acc >= PIECE_BYTES {
            cuts.push(i + 1);
            acc = 0;
        }
    }
    if *cuts.last().unwrap() < entries.len() {
        cuts.push(entries.len());
    }
    if cuts.len() <= 2 {
        return rows_of_piece(entries, bytes, base, line0);
    }
    let pieces: Vec<(Vec<Row>, Vec<BlockKeys>)> = cuts.par_windows(2).map(|w| rows_of_piece(&entries[w[0]..w[1]], bytes, base, line0)).collect();
    let mut rows = Vec::with_capacity(pieces.iter().map(|p| p.0.len()).sum());
    let mut blocks = Vec::with_capacity(pieces.iter().map(|p| p.1.len()).sum());
    for (r, b) in pieces {
        let at = rows.len();
        blocks.extend(b.into_iter().map(|b| BlockKeys { first: b.first + at, last: b.last + at, keys: b.keys }));
        rows.extend(r);
    }
    (rows, blocks)
}

fn rows_of_piece(entries: &[pi_session::Entry], bytes: &[u8], base: u64, line0: u32) -> (Vec<Row>, Vec<BlockKeys>) {
    let mut rows = Vec::with_capacity(entries.len());
    let mut blocks = Vec::new();
    GRAMS.with(|g| {
        let mut g = g.borrow_mut();
        let mut text_in_block = 0;
        let mut first = 0;
        for e in entries {
            if e.id.is_none() || e.kind == Kind::Leaf {
                continue;
            }
            let line = bytes.get(e.offset as usize..(e.offset + e.len as u64) as usize).unwrap_or_default();
            let d = describe(e, line);
            for n in &d.tools {
                g.add_key(grams::tool_key(n));
            }
            g.add_key(grams::role_key(&d.role));
            let text = d.text;
            let lower = text::lowercase(&text);
            g.add_text(lower.as_bytes());
            text_in_block += lower.len();
            rows.push(Row {
                entry_id: e.id_str().to_string(),
                line: e.line + line0,
                role: d.role,
                kind: e.kind.as_str().to_string(),
                tools: if d.tools.is_empty() { String::new() } else { format!(" {} ", d.tools.join(" ")) },
                model: d.model,
                ts: (!e.ts.is_nan()).then_some(e.ts),
                off: base + e.offset,
                len: e.len,
            });
            if text_in_block >= BLOCK_TEXT {
                blocks.push(BlockKeys { first, last: rows.len() - 1, keys: g.take() });
                first = rows.len();
                text_in_block = 0;
            }
        }
        if first < rows.len() {
            blocks.push(BlockKeys { first, last: rows.len() - 1, keys: g.take() });
        } else {
            g.take();
        }
    });
    (rows, blocks)
}

/// The bytes of `path` from `start` to its end, and its stamp taken after; an error when the
/// file ends before `held` (shorter than the part the index holds: rewritten since the look).
fn read_from(path: &Path, start: u64, held: u64) -> std::io::Result<(Vec<u8>, pi_session_format::FileStamp)> {
    use std::io::{Read, Seek, SeekFrom};
    let shorter = || std::io::Error::new(std::io::ErrorKind::InvalidData, "shorter than what the index holds of it");
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    if len < held {
        return Err(shorter());
    }
    f.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::with_capacity((len - start) as usize + 1);
    f.read_to_end(&mut bytes)?;
    if start + (bytes.len() as u64) < held {
        return Err(shorter());
    }
    let meta = f.metadata()?;
    Ok((bytes, pi_session_format::FileStamp::of(&meta)))
}

pub(super) fn index_file(path: &Path, plan: &Plan) -> Result<FileRows, Error> {
    // An append reads what follows the part indexed, and the 256 bytes before its new end
    // (the tail's hash): not the whole file again (a line added to the 165 MB session read
    // all of it).
    let (start, held) = match *plan {
        Plan::Full => (0, 0),
        Plan::Append { from, .. } => (from.saturating_sub(256), from),
    };
    let (bytes, stamp) = read_from(path, start, held).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    // Complete lines only.
    let end = bytes.iter().rposition(|&b| b == b'\n').map(|p| p + 1).unwrap_or(0);
    let hash = tail_hash(&bytes, end);
    match *plan {
        Plan::Full => {
            let s = Session::from_bytes(path, &bytes[..end]);
            let summary = SessionSummary::of_bytes(&s, stamp.len, &bytes[..end]);
            let (rows, blocks) = rows_of(&s.index, &bytes[..end], 0, 0);
            let labels = s.tree.labels.iter().map(|(id, l)| (id.to_string(), Some(l.text.clone()))).collect();
            let lines = memchr::memchr_iter(b'\n', &bytes[..end]).count() as u64;
            Ok(FileRows { path: path.to_path_buf(), append_to: None, stamp, indexed_bytes: end as u64, indexed_lines: lines, tail_hash: hash, summary: Some(summary), labels, name: Some(s.tree.name.clone()), rows, blocks })
        }
        Plan::Append { file_id, from, lines } => {
            let at = (from - start) as usize;
            let chunk = &bytes[at..end.max(at)];
            let ix = SessionIndex::from_bytes(path, chunk);
            let (rows, blocks) = rows_of(&ix, chunk, from, lines as u32);
            let mut labels = Vec::new();
            let mut name = None;
            for e in &ix.entries {
                match &e.detail {
                    Detail::Label { target: Some(t), label } => labels.push((t.to_string(), label.clone())),
                    Detail::SessionInfo { name: n } => name = Some(n.clone()),
                    _ => {}
                }
            }
            let new_lines = memchr::memchr_iter(b'\n', chunk).count() as u64;
            Ok(FileRows { path: path.to_path_buf(), append_to: Some(file_id), stamp, indexed_bytes: start + end.max(at) as u64, indexed_lines: lines + new_lines, tail_hash: hash, summary: None, labels, name, rows, blocks })
        }
    }
}

/// Deletes a file's rows; returns how many blocks it had (their ids stay in the posting
/// lists, dead, until a merge drops them).
pub(super) fn delete_file(c: &Connection, id: i64) -> rusqlite::Result<i64> {
    let blocks: i64 = c.query_row("SELECT count(*) FROM blocks WHERE file_id = ?1", [id], |r| r.get(0))?;
    c.execute("DELETE FROM blocks WHERE file_id = ?1", [id])?;
    c.execute("DELETE FROM entries WHERE file_id = ?1", [id])?;
    c.execute("DELETE FROM labels WHERE file_id = ?1", [id])?;
    c.execute("DELETE FROM files WHERE id = ?1", [id])?;
    Ok(blocks)
}

/// Writes one file's rows; returns its blocks' ids with their keys (for the posting lists) and
/// how many blocks of an older copy of the file it replaced.
pub(super) fn write_file(c: &Connection, fr: FileRows) -> rusqlite::Result<(Vec<(u32, Vec<u32>)>, i64)> {
    // As the listing shows it: a name that is not UTF-8 stays one the UI can send back.
    let path = encode(&fr.path);
    let mut dead = 0;
    let file_id = match fr.append_to {
        Some(id) => {
            c.execute(
                "UPDATE files SET size=?2, mtime_ns=?3, ino=?4, indexed_bytes=?5, indexed_lines=?6, tail_hash=?7 WHERE id=?1",
                params![id, fr.stamp.len as i64, fr.stamp.mtime_ns, fr.stamp.ino as i64, fr.indexed_bytes as i64, fr.indexed_lines as i64, fr.tail_hash],
            )?;
            if let Some(name) = &fr.name {
                c.execute("UPDATE files SET name=?2, title=coalesce(?2, title) WHERE id=?1", params![id, name])?;
            }
            for (target, text) in &fr.labels {
                match text {
                    Some(t) => c.execute("INSERT OR REPLACE INTO labels(file_id, entry_id, text) VALUES(?1, ?2, ?3)", params![id, target, t])?,
                    None => c.execute("DELETE FROM labels WHERE file_id=?1 AND entry_id=?2", params![id, target])?,
                };
            }
            if let Some(max) = fr.rows.iter().filter_map(|r| r.ts).reduce(f64::max) {
                c.execute("UPDATE files SET modified = max(coalesce(modified, 0), ?2) WHERE id=?1", params![id, max])?;
            }
            id
        }
        None => {
            if let Some(old) = c.query_row("SELECT id FROM files WHERE path=?1", [&*path], |r| r.get::<_, i64>(0)).optional()? {
                dead += delete_file(c, old)?;
            }
            let s = fr.summary.as_ref();
            c.execute(
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
            let id = c.last_insert_rowid();
            for (target, text) in &fr.labels {
                if let Some(t) = text {
                    c.execute("INSERT OR REPLACE INTO labels(file_id, entry_id, text) VALUES(?1, ?2, ?3)", params![id, target, t])?;
                }
            }
            id
        }
    };
    let mut ins = c.prepare_cached("INSERT INTO entries(file_id, entry_id, line, role, kind, tools, model, ts, off, len) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")?;
    let mut ids = Vec::with_capacity(fr.rows.len());
    for r in &fr.rows {
        ins.execute(params![file_id, r.entry_id, r.line as i64, r.role, r.kind, r.tools, r.model, r.ts, r.off as i64, r.len as i64])?;
        ids.push(c.last_insert_rowid());
    }
    let mut blk = c.prepare_cached("INSERT INTO blocks(file_id, first, last) VALUES(?1, ?2, ?3)")?;
    let mut out = Vec::with_capacity(fr.blocks.len());
    for b in fr.blocks {
        blk.execute(params![file_id, ids[b.first], ids[b.last]])?;
        out.push((c.last_insert_rowid() as u32, b.keys));
    }
    Ok((out, dead))
}

/// A new posting file's name for segment `seg` (a counter in `meta` keeps names unique).
pub(super) fn file_name(c: &Connection, seg: i64) -> rusqlite::Result<String> {
    c.execute("INSERT INTO meta(key, value) VALUES('files', 1) ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1", [])?;
    let n: i64 = c.query_row("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'files'", [], |r| r.get(0))?;
    Ok(format!("seg-{seg}-{n}.post"))
}

/// A segment's row.
#[derive(Clone)]
pub(super) struct SegRow {
    pub id: i64,
    pub first: i64,
    pub last: i64,
    pub bytes: i64,
    pub file: String,
}

/// Segments, oldest blocks first.
pub(super) fn segments(c: &Connection) -> rusqlite::Result<Vec<SegRow>> {
    let mut st = c.prepare_cached("SELECT id, first_block, last_block, bytes, file FROM segments ORDER BY first_block")?;
    let rows = st.query_map([], |r| Ok(SegRow { id: r.get(0)?, first: r.get(1)?, last: r.get(2)?, bytes: r.get(3)?, file: r.get(4)? }))?;
    rows.collect()
}

/// Merges segments after an update: first the ones it wrote (`from`: the first of them) into
/// one; then the newest two while the newer is at least a quarter of the older (so sizes fall
/// by four at least from the oldest: a few segments, each byte rewritten a few times over the
/// index's life); all of them when dead blocks (of removed or rewritten files) make a quarter
/// of the blocks. Each merge is its own transaction.
pub(super) fn merge_segments(c: &Connection, dir: &Path, from: Option<i64>) -> rusqlite::Result<()> {
    if let Some(from) = from {
        let mine: Vec<SegRow> = segments(c)?.into_iter().filter(|s| s.id >= from).collect();
        if mine.len() >= 2 {
            merge(c, dir, &mine)?;
        }
    }
    loop {
        let segs = segments(c)?;
        let dead: i64 = c.query_row("SELECT CAST(coalesce((SELECT value FROM meta WHERE key='dead_blocks'), 0) AS INTEGER)", [], |r| r.get(0))?;
        let live: i64 = c.query_row("SELECT count(*) FROM blocks", [], |r| r.get(0))?;
        if dead > 0 && dead * 4 > live && !segs.is_empty() {
            merge(c, dir, &segs)?;
            return Ok(());
        }
        let n = segs.len();
        if n >= 2 && segs[n - 1].bytes * 4 >= segs[n - 2].bytes {
            merge(c, dir, &segs[n - 2..])?;
        } else {
            return Ok(());
        }
    }
}

/// Merges `group` (consecutive segments, in block order) into one new file that keeps the
/// first's id: the lists of each key joined end to end (the next list's first id rewritten as
/// a difference); where blocks died (files removed or indexed again) in the group's range, the
/// lists are decoded and the dead ids dropped. The rows change in one transaction, after the
/// new file is in place; the old files go after it.
fn merge(c: &Connection, dir: &Path, group: &[SegRow]) -> rusqlite::Result<()> {
    let (lo, hi) = (group.iter().map(|s| s.first).min().unwrap_or(0), group.iter().map(|s| s.last).max().unwrap_or(0));
    let live_count: i64 = c.query_row("SELECT count(*) FROM blocks WHERE id BETWEEN ?1 AND ?2", [lo, hi], |r| r.get(0))?;
    let in_range: i64 = group.iter().map(|s| s.last - s.first + 1).sum();
    // The live blocks of the range, as a bitmap, when some died.
    let live: Option<Vec<u64>> = if live_count < in_range {
        let mut bits = vec![0u64; ((hi - lo) as usize >> 6) + 1];
        let mut st = c.prepare("SELECT id FROM blocks WHERE id BETWEEN ?1 AND ?2")?;
        for id in st.query_map([lo, hi], |r| r.get::<_, i64>(0))? {
            let k = (id? - lo) as usize;
            bits[k >> 6] |= 1 << (k & 63);
        }
        Some(bits)
    } else {
        None
    };
    let segs: Vec<segment::Segment> = group.iter().map(|g| segment::Segment::open(&dir.join(&g.file), false)).collect::<Result<_, _>>()?;
    let io = |e: std::io::Error| segment::damaged(dir, &e.to_string());
    // (key, rank of the segment, last, offset, length), by key then segment.
    let mut all: Vec<(u32, usize, u32, u64, u32)> = Vec::new();
    for (r, s) in segs.iter().enumerate() {
        all.extend(s.table().map_err(io)?.into_iter().map(|(k, last, off, len)| (k, r, last, off, len)));
    }
    all.sort_unstable_by_key(|e| (e.0, e.1));
    let keep = group[0].id;
    let name = file_name(c, keep)?;
    let mut w = segment::Writer::new(dir, &name).map_err(io)?;
    let (mut buf, mut out) = (Vec::new(), Vec::new());
    let mut lists: Vec<segment::Lists<'_>> = segs.iter().map(|s| s.lists()).collect();
    let mut i = 0;
    while i < all.len() {
        let k = all[i].0;
        let mut j = i;
        while j < all.len() && all[j].0 == k {
            j += 1;
        }
        out.clear();
        let mut last: Option<u32> = None;
        match &live {
            None => {
                for &(_, r, l, off, len) in &all[i..j] {
                    append_list(&mut out, last, lists[r].get(off, len).map_err(io)?);
                    last = Some(l);
                }
            }
            Some(bits) => {
                buf.clear();
                for &(_, r, _, off, len) in &all[i..j] {
                    grams::decode_into(lists[r].get(off, len).map_err(io)?, &mut buf).map_err(|why| segment::damaged(dir, &format!("list of key {k:#x}: {why}")))?;
                }
                buf.retain(|&id| {
                    let x = id as i64 - lo;
                    !(0..=hi - lo).contains(&x) || bits[x as usize >> 6] & (1 << (x & 63)) != 0
                });
                out = grams::encode(&buf);
                last = buf.last().copied();
            }
        }
        if let Some(last) = last.filter(|_| !out.is_empty()) {
            w.push(k, last, &out).map_err(io)?;
        }
        i = j;
    }
    let bytes = w.finish().map_err(io)?;
    // A merge of every segment drops every dead id.
    let whole = live.is_some() && group.len() == segments_count(c)?;
    c.execute_batch("BEGIN IMMEDIATE")?;
    let r = (|| {
        for g in group {
            c.execute("DELETE FROM segments WHERE id = ?1", [g.id])?;
        }
        c.execute("INSERT INTO segments(id, first_block, last_block, bytes, file) VALUES(?1, ?2, ?3, ?4, ?5)", params![keep, lo, hi, bytes as i64, name])?;
        if whole {
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('dead_blocks', 0)", [])?;
        }
        Ok(())
    })();
    match r {
        Ok(()) => c.execute_batch("COMMIT")?,
        Err(e) => {
            let _ = c.execute_batch("ROLLBACK");
            let _ = std::fs::remove_file(dir.join(&name));
            return Err(e);
        }
    }
    for g in group {
        let _ = std::fs::remove_file(dir.join(&g.file));
    }
    Ok(())
}

fn segments_count(c: &Connection) -> rusqlite::Result<usize> {
    c.query_row("SELECT count(*) FROM segments", [], |r| r.get::<_, i64>(0)).map(|n| n as usize)
}

/// Appends list `b` (its first id absolute) to `out`, whose last id is `last`.
fn append_list(out: &mut Vec<u8>, last: Option<u32>, b: &[u8]) {
    let Some(last) = last else {
        out.extend_from_slice(b);
        return;
    };
    // The first varint of `b`, rewritten as a difference from `last`.
    let mut v: u32 = 0;
    let mut n = 0;
    for (k, &x) in b.iter().enumerate() {
        v |= ((x & 0x7f) as u32) << (7 * k);
        if x & 0x80 == 0 {
            n = k + 1;
            break;
        }
    }
    grams::put_varint(out, v.wrapping_sub(last));
    out.extend_from_slice(&b[n..]);
}

/// Files per batch, at most.
const BATCH_FILES: usize = 64;
/// Session bytes per batch, at most (one bigger file makes a batch of its own): what the
/// threads read before the writer takes their rows.
const BATCH_BYTES: u64 = 16 << 20;

/// `work` cut into batches of at most [`BATCH_FILES`] files and [`BATCH_BYTES`] bytes.
pub(super) fn batches<T>(work: &[(PathBuf, T, u64)]) -> Vec<&[(PathBuf, T, u64)]> {
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

/// Reads a batch's files on all cores, the biggest first (so no big file is left for last,
/// one core reading it while the other waits); the rows come back in the batch's order.
fn read_batch(b: &[(PathBuf, Plan, u64)]) -> Vec<Result<FileRows, Error>> {
    use rayon::prelude::*;
    let mut order: Vec<usize> = (0..b.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(b[i].2));
    let mut read: Vec<(usize, Result<FileRows, Error>)> = order.into_par_iter().with_max_len(1).map(|i| (i, index_file(&b[i].0, &b[i].1))).collect();
    read.sort_unstable_by_key(|r| r.0);
    read.into_iter().map(|r| r.1).collect()
}

/// Session bytes read ahead of the writer, at most, beyond the one batch always read: while
/// the writer is busy (a big file's rows, a segment written), the threads go on reading.
const AHEAD_BYTES: u64 = 64 << 20;

/// A batch read: each file's rows (or why not), how many files, their bytes.
pub(super) type ReadBatch = (Vec<Result<FileRows, Error>>, usize, u64);

/// Reads the next batches of `todo` while the writer works (`writing`): one when the writer
/// holds none (`held_bytes` of sessions are read and waiting, in `held` batches), then more
/// while it is still busy and less than [`AHEAD_BYTES`] wait; none once `paused`. With one
/// batch read per write, a core waited while the other wrote the 200,000 rows of a big file.
pub(super) fn read_ahead(todo: &[&[(PathBuf, Plan, u64)]], held: usize, held_bytes: u64, writing: &AtomicBool, paused: impl Fn() -> bool) -> Vec<ReadBatch> {
    let mut out: Vec<ReadBatch> = Vec::new();
    let mut bytes = held_bytes;
    for b in todo {
        let wanted = held + out.len() == 0 || (writing.load(Ordering::Acquire) && bytes < AHEAD_BYTES);
        if !wanted || paused() {
            break;
        }
        let n: u64 = b.iter().map(|x| x.2).sum();
        out.push((read_batch(b), b.len(), n));
        bytes += n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threads_read_ahead_of_a_busy_writer_up_to_a_bound_and_keep_the_files_order() {
        let dir = tempfile::tempdir().unwrap();
        let line = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hello"}}"#;
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/w"}"#;
        // Files of different sizes (the biggest is read first); their rows come back in order.
        let mb = 1u64 << 20;
        let work: Vec<(PathBuf, Plan, u64)> = (0..12)
            .map(|i| {
                let p = dir.path().join(format!("{i:02}.jsonl"));
                std::fs::write(&p, format!("{header}\n{}", format!("{line}\n").repeat(1 + (i * 7) % 5))).unwrap();
                (p, Plan::Full, 24 * mb + (i as u64 * 7) % 5)
            })
            .collect();
        let all: Vec<&[(PathBuf, Plan, u64)]> = work.chunks(3).collect();
        let busy = AtomicBool::new(true);
        let idle = AtomicBool::new(false);
        let files = |read: &[ReadBatch]| read.iter().flat_map(|r| r.0.iter().map(|f| f.as_ref().unwrap().path.clone())).collect::<Vec<_>>();
        // The writer busy, nothing held: batches until 64 MB of sessions wait (72 MB, 3 x 24).
        let read = read_ahead(&all, 0, 0, &busy, || false);
        assert_eq!(read.len(), 1, "the first batch alone is 72 MB");
        assert_eq!(files(&read), work[..3].iter().map(|w| w.0.clone()).collect::<Vec<_>>());
        assert_eq!(read[0].2, 72 * mb + 6);
        let small: Vec<&[(PathBuf, Plan, u64)]> = work.chunks(1).collect();
        let read = read_ahead(&small, 0, 0, &busy, || false);
        assert_eq!(read.len(), 3, "24 and 48 MB are under the bound, 72 MB is not");
        let read = read_ahead(&small, 1, 10 * mb, &busy, || false);
        assert_eq!(read.len(), 3, "10, 34 and 58 MB are under it");
        // The writer done: one batch when none waits, none when one does.
        assert_eq!(read_ahead(&small, 0, 0, &idle, || false).len(), 1);
        assert_eq!(read_ahead(&small, 1, mb, &idle, || false).len(), 0);
        // Paused: nothing, even with nothing held.
        assert_eq!(read_ahead(&small, 0, 0, &busy, || true).len(), 0);
        // A whole batch read on all cores, the biggest file first: the batch's order.
        let got = read_batch(&work);
        assert_eq!(got.iter().map(|f| f.as_ref().unwrap().path.clone()).collect::<Vec<_>>(), work.iter().map(|w| w.0.clone()).collect::<Vec<_>>());
    }

    #[test]
    fn batches_hold_at_most_64_files_and_16_mb_and_every_file_once() {
        let w = |sizes: &[u64]| -> Vec<(PathBuf, (), u64)> { sizes.iter().enumerate().map(|(i, &n)| (PathBuf::from(i.to_string()), (), n)).collect() };
        let lens = |work: &[(PathBuf, (), u64)]| batches(work).iter().map(|b| b.len()).collect::<Vec<_>>();
        assert_eq!(lens(&w(&[1; 130])), vec![64, 64, 2]);
        let mb = 1 << 20;
        // 6 MB files: two fit in 16 MB, a third would not.
        assert_eq!(lens(&w(&[6 * mb; 5])), vec![2, 2, 1]);
        // A file bigger than a batch goes alone; the small ones around it are not split off it.
        assert_eq!(lens(&w(&[mb, 40 * mb, mb, mb])), vec![1, 1, 2]);
        assert!(batches(&w(&[])).is_empty());
    }

    #[test]
    fn an_append_to_a_file_found_shorter_than_the_part_indexed_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        let line = r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hello"}}"#;
        let text = format!("{line}\n").repeat(10);
        let n = text.len() as u64;
        let append = Plan::Append { file_id: 1, from: n, lines: 10 };
        // Indexed up to `n`, then rewritten shorter: within the 256 bytes read before the old
        // end, before them, or empty.
        for len in [n - 100, 10, 0] {
            std::fs::write(&p, &text.as_bytes()[..len as usize]).unwrap();
            assert!(index_file(&p, &append).is_err(), "{len}");
        }
        // Grown by a line: that line alone, at its place in the file.
        std::fs::write(&p, format!("{text}{line}\n")).unwrap();
        let fr = index_file(&p, &append).unwrap();
        assert_eq!((fr.rows.len(), fr.rows[0].off, fr.rows[0].line, fr.indexed_bytes, fr.indexed_lines), (1, n, 11, n + line.len() as u64 + 1, 11));
        assert_eq!(fr.tail_hash, tail_hash(&std::fs::read(&p).unwrap(), fr.indexed_bytes as usize));
    }

    #[test]
    fn lists_join_end_to_end() {
        let (a, b) = (vec![3, 9, 200], vec![201, 5000, 5001]);
        let mut out = grams::encode(&a);
        append_list(&mut out, Some(200), &grams::encode(&b));
        let mut back = Vec::new();
        grams::decode_into(&out, &mut back).unwrap();
        assert_eq!(back, [a, b].concat());
    }
}

//! Building the index: each file read on a core of the background pool (its entries, their
//! searchable text cut into blocks, each block's keys), then written by one thread: the rows
//! of a batch of files, and the blocks' ids appended to in-memory posting lists, flushed as a
//! *segment* (one row per key) in the same transaction as the rows they cover. Segments of
//! about the same size are merged four at a time, so a key has a few rows, not one per update.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};

use pi_session::entry::{Detail, Kind};
use pi_session::pathstr::encode;
use pi_session::summary::SessionSummary;
use pi_session::{Session, SessionIndex};
use rayon::prelude::*;
use rusqlite::{params, Connection, OptionalExtension};

use crate::grams::{self, GramSet};
use crate::text;
use crate::Error;

/// Searchable text per block, about: a block is checked as a whole when all of a query's keys
/// are in it, so smaller blocks mean fewer lines read for nothing, larger ones smaller lists.
const BLOCK_TEXT: usize = 4096;

/// Posting bytes held in memory before they are written as a segment.
pub(super) const FLUSH_BYTES: usize = 32 << 20;

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
    pub stamp: pi_session::session::FileStamp,
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
    /// One gram set per thread (its bitmaps are 4 MB, cleared after each block).
    static GRAMS: RefCell<GramSet> = RefCell::new(GramSet::default());
}

/// The rows and blocks of the entries of `ix` (lines numbered from `line0 + 1`, offsets from
/// `base`).
fn rows_of(ix: &SessionIndex, bytes: &[u8], base: u64, line0: u32) -> (Vec<Row>, Vec<BlockKeys>) {
    let mut rows = Vec::with_capacity(ix.entries.len());
    let mut blocks = Vec::new();
    GRAMS.with(|g| {
        let mut g = g.borrow_mut();
        let mut text_in_block = 0;
        let mut first = 0;
        for e in &ix.entries {
            if e.id.is_none() || e.kind == Kind::Leaf {
                continue;
            }
            let line = bytes.get(e.offset as usize..(e.offset + e.len as u64) as usize).unwrap_or_default();
            let d = describe(e, line);
            for n in &d.tools {
                g.add_key(grams::tool_key(n));
            }
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

/// What the index keeps of an entry, and its searchable text.
pub(crate) struct Described {
    /// The message role, or the entry type for other entries.
    pub role: String,
    /// The tools it calls or reports.
    pub tools: Vec<String>,
    /// `provider/model`, or empty.
    pub model: String,
    pub text: String,
}

pub(crate) fn describe(e: &pi_session::Entry, line: &[u8]) -> Described {
    let line_text = String::from_utf8_lossy(line);
    let assistant = matches!(e.role(), Some(pi_session::Role::Assistant));
    let (text, calls) = match text::read_entry(&e.kind, &line_text) {
        Some((t, calls)) => (t, if assistant { calls } else { Vec::new() }),
        None => (text::searchable(&e.kind, &line_text), if assistant { tool_calls(line) } else { Vec::new() }),
    };
    let mut tools: Vec<String> = e.meta().and_then(|m| m.tool_name.as_deref().map(str::to_string)).into_iter().collect();
    tools.extend(calls);
    Described {
        role: e.role().and_then(|r| r.as_str()).map(str::to_string).unwrap_or_else(|| e.kind.as_str().to_string()),
        tools,
        model: e.meta().map(|m| format!("{}/{}", m.provider.as_deref().unwrap_or(""), m.model.as_deref().unwrap_or(""))).filter(|m| m != "/").unwrap_or_default(),
        text,
    }
}

/// The names of the tools an assistant line calls, read from its JSON tree (for the lines the
/// streaming reader leaves to the core).
fn tool_calls(line: &[u8]) -> Vec<String> {
    let v = pi_session::preview::line_value(&String::from_utf8_lossy(line));
    v.pointer("/message/content")
        .and_then(|c| c.as_array())
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("toolCall"))
        .filter_map(|b| b.get("name").and_then(|n| n.as_str()).map(str::to_string))
        .collect()
}

pub(super) fn index_file(path: &Path, plan: &Plan) -> Result<FileRows, Error> {
    let bytes = std::fs::read(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let meta = std::fs::metadata(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let stamp = pi_session::session::FileStamp::of(&meta);
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
            let chunk = &bytes[from as usize..end.max(from as usize)];
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
            Ok(FileRows { path: path.to_path_buf(), append_to: Some(file_id), stamp, indexed_bytes: end as u64, indexed_lines: lines + new_lines, tail_hash: hash, summary: None, labels, name, rows, blocks })
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
                    s.map(pi_session::explorer::title_of),
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

/// A hasher for the `u32` keys (multiplicative; the keys are already spread).
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
    }
    fn write_u32(&mut self, k: u32) {
        let x = (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = x ^ (x >> 29);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type KeyMap<V> = HashMap<u32, V, BuildHasherDefault<KeyHasher>>;

/// Posting lists being built: per key, its last block id and its list so far. Split by key
/// over the cores (`parts`), each part filled by one thread.
pub(super) struct Postings {
    parts: Vec<KeyMap<(u32, Vec<u8>)>>,
    pub bytes: usize,
    pub first_block: Option<u32>,
    pub last_block: u32,
}

impl Postings {
    pub fn new() -> Postings {
        let n = rayon::current_num_threads().clamp(1, 8);
        Postings { parts: (0..n).map(|_| KeyMap::default()).collect(), bytes: 0, first_block: None, last_block: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.first_block.is_none()
    }

    /// Appends `blocks` (ascending ids, after every id added before).
    pub fn add(&mut self, blocks: &[(u32, Vec<u32>)]) {
        let Some(&(first, _)) = blocks.first() else { return };
        self.first_block.get_or_insert(first);
        self.last_block = blocks.last().map(|b| b.0).unwrap_or(first);
        let n = self.parts.len() as u32;
        let added: usize = self
            .parts
            .par_iter_mut()
            .enumerate()
            .map(|(p, map)| {
                let mut added = 0;
                for (id, keys) in blocks {
                    for &k in keys {
                        if (k.wrapping_mul(0x9e37_79b1) >> 16) % n != p as u32 {
                            continue;
                        }
                        let (last, list) = map.entry(k).or_insert((0, Vec::new()));
                        let before = list.len();
                        grams::put_varint(list, *id - *last);
                        *last = *id;
                        added += list.len() - before;
                    }
                }
                added
            })
            .sum();
        self.bytes += added;
    }

    /// Writes the lists as segment `seg` and empties them; returns the bytes written.
    pub fn flush(&mut self, c: &Connection) -> rusqlite::Result<u64> {
        let Some(first) = self.first_block else { return Ok(0) };
        let seg: i64 = c.query_row("SELECT coalesce(max(id), 0) + 1 FROM segments", [], |r| r.get(0))?;
        let mut all: Vec<(u32, Vec<u8>)> = self.parts.iter_mut().flat_map(|m| m.drain().map(|(k, (_, l))| (k, l))).collect();
        all.sort_unstable_by_key(|e| e.0);
        let mut ins = c.prepare_cached("INSERT INTO postings(key, seg, list) VALUES(?1, ?2, ?3)")?;
        let mut bytes = 0u64;
        for (k, l) in &all {
            ins.execute(params![*k as i64, seg, l])?;
            bytes += l.len() as u64;
        }
        c.execute("INSERT INTO segments(id, first_block, last_block, bytes) VALUES(?1, ?2, ?3, ?4)", params![seg, first as i64, self.last_block as i64, bytes as i64])?;
        self.bytes = 0;
        self.first_block = None;
        Ok(bytes)
    }
}

/// The size class of a segment: segments of one class are merged four at a time.
fn level(bytes: i64) -> u32 {
    let mb = (bytes.max(0) as u64) >> 20;
    if mb == 0 {
        0
    } else {
        1 + (63 - mb.leading_zeros()) / 2
    }
}

/// Merges segments while the four newest are of one size class, or all of them when dead
/// blocks (of removed or rewritten files) make a fifth of the lists; each merge in its own
/// transaction.
pub(super) fn merge_segments(c: &Connection) -> rusqlite::Result<()> {
    loop {
        let segs: Vec<(i64, i64, i64, i64)> = {
            let mut st = c.prepare("SELECT id, first_block, last_block, bytes FROM segments ORDER BY first_block")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let dead: i64 = c.query_row("SELECT CAST(coalesce((SELECT value FROM meta WHERE key='dead_blocks'), 0) AS INTEGER)", [], |r| r.get(0))?;
        let live: i64 = c.query_row("SELECT count(*) FROM blocks", [], |r| r.get(0))?;
        let group: &[(i64, i64, i64, i64)] = if dead > 0 && dead * 4 > live && !segs.is_empty() {
            &segs
        } else if segs.len() >= 4 && segs[segs.len() - 4..].iter().all(|s| level(s.3) == level(segs[segs.len() - 1].3)) {
            &segs[segs.len() - 4..]
        } else {
            return Ok(());
        };
        let all = group.len() == segs.len();
        c.execute_batch("BEGIN IMMEDIATE")?;
        let r = merge(c, group);
        match r {
            Ok(()) => {
                if all {
                    c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('dead_blocks', 0)", [])?;
                }
                c.execute_batch("COMMIT")?;
            }
            Err(e) => {
                let _ = c.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
        if all {
            return Ok(());
        }
    }
}

/// Merges `group` (consecutive segments, in block order) into one, dropping the ids of blocks
/// that no longer exist.
fn merge(c: &Connection, group: &[(i64, i64, i64, i64)]) -> rusqlite::Result<()> {
    let (lo, hi) = (group.iter().map(|s| s.1).min().unwrap_or(0), group.iter().map(|s| s.2).max().unwrap_or(0));
    let live: std::collections::HashSet<u32> = {
        let mut st = c.prepare("SELECT id FROM blocks WHERE id BETWEEN ?1 AND ?2")?;
        let rows = st.query_map([lo, hi], |r| r.get::<_, i64>(0).map(|v| v as u32))?;
        rows.collect::<Result<_, _>>()?
    };
    let ids: Vec<i64> = group.iter().map(|s| s.0).collect();
    let list = ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let seg: i64 = c.query_row("SELECT coalesce(max(id), 0) + 1 FROM segments", [], |r| r.get(0))?;
    let keys: Vec<i64> = {
        let mut st = c.prepare(&format!("SELECT DISTINCT key FROM postings WHERE seg IN ({list}) ORDER BY key"))?;
        let rows = st.query_map([], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut bytes = 0u64;
    let mut ids_buf = Vec::new();
    for chunk in keys.chunks(2048) {
        let (a, b) = (chunk[0], chunk[chunk.len() - 1]);
        let rows: Vec<(i64, Vec<u8>)> = {
            let mut st = c.prepare_cached(&format!("SELECT key, list FROM postings WHERE key BETWEEN ?1 AND ?2 AND seg IN ({list}) ORDER BY key, seg"))?;
            let rows = st.query_map([a, b], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let mut ins = c.prepare_cached("INSERT INTO postings(key, seg, list) VALUES(?1, ?2, ?3)")?;
        let mut i = 0;
        while i < rows.len() {
            let k = rows[i].0;
            ids_buf.clear();
            while i < rows.len() && rows[i].0 == k {
                // A list that does not decode is not ours to keep: its ids are dropped.
                let _ = grams::decode_into(&rows[i].1, &mut ids_buf);
                i += 1;
            }
            ids_buf.sort_unstable();
            ids_buf.dedup();
            ids_buf.retain(|id| live.contains(id));
            if !ids_buf.is_empty() {
                let l = grams::encode(&ids_buf);
                bytes += l.len() as u64;
                ins.execute(params![k, seg, l])?;
            }
        }
    }
    c.execute(&format!("DELETE FROM postings WHERE seg IN ({list})"), [])?;
    c.execute(&format!("DELETE FROM segments WHERE id IN ({list})"), [])?;
    c.execute("INSERT INTO segments(id, first_block, last_block, bytes) VALUES(?1, ?2, ?3, ?4)", params![seg, lo, hi, bytes as i64])?;
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn segment_sizes_fall_in_classes_of_four() {
        assert_eq!(level(0), 0);
        assert_eq!(level(1 << 19), 0);
        assert_eq!(level(1 << 20), 1);
        assert_eq!(level(3 << 20), 1);
        assert_eq!(level(4 << 20), 2);
        assert_eq!(level(16 << 20), 3);
        assert_eq!(level(64 << 20), 4);
    }
}

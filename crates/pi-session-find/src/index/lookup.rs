//! A query on the index: the blocks holding every key of its terms (posting lists intersected,
//! shortest first), newest first; in each, the entries its filters keep, checked against the
//! terms on the bytes of their lines, read back from the session file.

use std::collections::{HashMap, HashSet};
use std::fs::File;

use memchr::memmem;
use rusqlite::{params_from_iter, Connection, OptionalExtension};

use super::sql::{filter_only_sql, filters, HIT_COLUMNS};
use super::segment::Segment;
use super::verify::{checkable, may_hold_all};
use crate::grams;
use crate::query::Query;
use crate::text;
use crate::Error;

/// An entry the query matched, with its searchable text (for the snippet).
pub(super) struct Hit {
    pub file_id: i64,
    pub id: String,
    pub line: u32,
    pub role: String,
    pub ts: Option<f64>,
    /// The window of the entry's text around the first match, with the matches marked
    /// ([`crate::snippet`]); empty when the caller asked for none.
    pub snippet: (String, Vec<[u32; 2]>),
}

/// One row of [`HIT_COLUMNS`].
struct Row {
    file_id: i64,
    id: String,
    line: u32,
    role: String,
    kind: String,
    ts: Option<f64>,
    off: u64,
    len: u32,
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    Ok(Row {
        file_id: r.get(1)?,
        id: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
        line: r.get::<_, i64>(3)? as u32,
        role: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
        kind: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
        ts: r.get(6)?,
        off: r.get::<_, i64>(7)? as u64,
        len: r.get::<_, i64>(8)? as u32,
    })
}

/// The session files a query reads: each file's path looked up once, and the last few files
/// kept open. Not every file a query meets: a query can meet thousands of files, past the 1,024
/// open files a process may have by default on Linux (each further one then failed to open and
/// its hits were lost), and a table of thousands of open files is slow to grow (1,564 files
/// took 38 ms to open in a fresh process, 6 ms once its table had grown). A file's blocks are
/// read one after the other, newest first, so a few open files serve nearly every read.
#[derive(Default)]
struct Files {
    paths: HashMap<i64, Option<std::path::PathBuf>>,
    /// (file id, the file or None when it is gone), the most recently used last.
    open: Vec<(i64, Option<File>)>,
}

/// Open session files a query keeps, at most.
const OPEN_FILES: usize = 8;

impl Files {
    fn get(&mut self, c: &Connection, db: &std::path::Path, id: i64) -> Result<Option<&File>, Error> {
        if let Some(i) = self.open.iter().position(|(f, _)| *f == id) {
            let e = self.open.remove(i);
            self.open.push(e);
            return Ok(self.open.last().and_then(|(_, f)| f.as_ref()));
        }
        if !self.paths.contains_key(&id) {
            let path: Option<String> = c.prepare_cached("SELECT path FROM files WHERE id = ?1").and_then(|mut st| st.query_row([id], |r| r.get(0)).optional()).map_err(|source| Error::Db { path: db.to_path_buf(), source })?;
            self.paths.insert(id, path.map(|p| pi_session::pathstr::decode(&p)));
        }
        // A file gone since it was indexed has no hits (the next update drops it).
        let f = self.paths[&id].as_ref().and_then(|p| File::open(p).ok());
        if self.open.len() == OPEN_FILES {
            self.open.remove(0);
        }
        self.open.push((id, f));
        Ok(self.open.last().and_then(|(_, f)| f.as_ref()))
    }
}

/// Bytes `off..off+len` of `f` (fewer when the file is shorter now), read into `buf`: one
/// buffer serves a query's reads, growing only.
fn read_at<'b>(f: &File, off: u64, len: usize, buf: &'b mut Vec<u8>) -> &'b [u8] {
    if buf.len() < len {
        buf.resize(len, 0);
    }
    let mut got = 0;
    while got < len {
        match read_some(f, &mut buf[got..len], off + got as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    &buf[..got]
}

#[cfg(unix)]
fn read_some(f: &File, buf: &mut [u8], off: u64) -> std::io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(f, buf, off)
}

#[cfg(windows)]
fn read_some(f: &File, buf: &mut [u8], off: u64) -> std::io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(f, buf, off)
}

/// The terms, lowercased, each with its searcher (made once per query); and those the raw
/// line can answer for.
struct Terms<'a> {
    all: Vec<memmem::Finder<'a>>,
    checkable: Vec<(&'a str, memmem::Finder<'a>)>,
}

impl<'a> Terms<'a> {
    fn new(q: &'a Query) -> Terms<'a> {
        Terms {
            all: q.terms.iter().map(|t| memmem::Finder::new(t.as_bytes())).collect(),
            checkable: q.terms.iter().filter(|t| checkable(t)).map(|t| (t.as_str(), memmem::Finder::new(t.as_bytes()))).collect(),
        }
    }

    /// False when the raw line, ASCII-lowercased (`lower`), shows the entry cannot hold every
    /// term ([`may_hold_all`]); a pass over its bytes, no parse.
    fn may_hold(&self, lower: &[u8]) -> bool {
        self.checkable.is_empty() || may_hold_all(&self.checkable, lower)
    }

    /// The entry's searchable text when it holds every term (with its lowercase when long).
    fn check(&self, kind: &str, raw: &[u8]) -> Option<(String, Option<String>)> {
        let t = text::searchable(&pi_session_format::entry::Kind::parse(kind), &crate::hits::as_text(raw));
        let low = text::lowercase(&t);
        if !self.all.iter().all(|term| term.find(low.as_bytes()).is_some()) {
            return None;
        }
        let lower = (t.len() > 2048).then(|| low.into_owned());
        Some((t, lower))
    }
}

/// What a block must hold for a query: a key, or one of a range of keys.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Need {
    Key(u32),
    Range(u32, u32),
}

/// Every key the query's terms, tool and role need.
fn keys_of(q: &Query) -> Vec<Need> {
    let mut keys: Vec<Need> = Vec::new();
    for t in &q.terms {
        let n = grams::term_needs(t.as_bytes());
        keys.extend(n.all.into_iter().map(Need::Key));
        keys.extend(n.any.into_iter().map(|(lo, hi)| Need::Range(lo, hi)));
    }
    if let Some(t) = &q.tool {
        keys.push(Need::Key(grams::tool_key(t)));
    }
    if let Some(r) = &q.role {
        keys.push(Need::Key(grams::role_key(r)));
    }
    keys.sort();
    keys.dedup();
    keys
}

/// The blocks holding every key (a superset of those holding the query): lists read shortest
/// first; once the candidates are few, a list much longer than them is left out (checking a
/// few more blocks costs less than reading it). For a range: the union of the lists of its
/// keys (a term of two bytes: the trigrams it starts; a phrase ending in a word of two bytes:
/// the pairs of the words it starts).
fn candidates(c: &Connection, dir: &std::path::Path, keys: &[Need]) -> rusqlite::Result<Vec<u32>> {
    let segs: Vec<(super::build::SegRow, Segment)> = super::build::segments(c)?.into_iter().map(|r| Segment::open(&dir.join(&r.file), false).map(|s| (r, s))).collect::<Result<_, _>>()?;
    let io = |e: std::io::Error| super::segment::damaged(dir, &e.to_string());
    // Per need: where its lists are, and their bytes.
    let mut found: Vec<(u64, Vec<(usize, u32, u64, u32)>)> = Vec::with_capacity(keys.len());
    for need in keys {
        let mut at = Vec::new();
        let mut bytes = 0u64;
        for (i, (_, seg)) in segs.iter().enumerate() {
            let lists = match *need {
                Need::Key(k) => seg.find(k).map_err(io)?.into_iter().collect::<Vec<_>>(),
                Need::Range(lo, hi) => seg.range(lo, hi).map_err(io)?,
            };
            for (last, off, len) in lists {
                at.push((i, last, off, len));
                bytes += len as u64;
            }
        }
        if at.is_empty() {
            return Ok(Vec::new());
        }
        found.push((bytes, at));
    }
    found.sort_by_key(|f| f.0);
    let mut cands: Option<Vec<u32>> = None;
    let mut list = Vec::new();
    for (bytes, at) in found {
        if let Some(c) = &cands {
            if c.is_empty() || (bytes as usize) > 64 * c.len() + 65_536 {
                break;
            }
        }
        list.clear();
        for &(i, last, off, len) in &at {
            let from = list.len();
            grams::decode_into(&segs[i].1.list(off, len).map_err(io)?, &mut list).map_err(|why| super::segment::damaged(dir, why))?;
            // A list must rise and end at the id its table says.
            let l = &list[from..];
            if !l.windows(2).all(|w| w[0] < w[1]) || l.last() != Some(&last) {
                return Err(super::segment::damaged(&dir.join(&segs[i].0.file), "a posting list that does not match its table"));
            }
        }
        if at.len() > 1 {
            // Several segments or keys: in block order, once each.
            list.sort_unstable();
            list.dedup();
        }
        cands = Some(match cands {
            None => std::mem::take(&mut list),
            Some(c) => grams::intersect(&c, &list),
        });
    }
    Ok(cands.unwrap_or_default())
}

/// The hits of `q`, newest first, at most `limit + 1` (one more says there are more), in
/// the file `only_file` if given, never in the files `skip` (being indexed again).
/// With `snippets`, each hit's snippet is made (on the cores that checked it), else none.
pub(super) fn find(c: &Connection, db: &std::path::Path, q: &Query, limit: usize, only_file: Option<i64>, skip: &HashSet<i64>, snippets: bool) -> Result<Vec<Hit>, Error> {
    let dir = super::segment::dir_of(db);
    let at = |source| Error::Db { path: db.to_path_buf(), source };
    let mut files = Files::default();
    let terms = Terms::new(q);
    let mut hits = Vec::new();
    let words = !q.terms.is_empty() || q.tool.is_some();
    let (mut buf, mut own) = (Vec::new(), Vec::new());
    // `cwd:` and `name:` keep files: checked per block below, not per entry in SQL.
    let kept = super::sql::files_kept(c, q).map_err(at)?;
    if !words && (kept.is_none() || q.label.is_some()) {
        // Filters only: the entries table drives; the text is read for the hits alone.
        let (sql, args) = filter_only_sql(q, limit + 1, only_file, skip);
        let mut st = c.prepare_cached(&sql).map_err(at)?;
        let rows: Vec<Row> = st.query_map(params_from_iter(args.iter()), row).map_err(at)?.collect::<Result<_, _>>().map_err(at)?;
        for r in rows {
            if hits.len() > limit {
                break;
            }
            let raw = match files.get(c, db, r.file_id)? {
                Some(f) => read_at(f, r.off, r.len as usize, &mut buf),
                None => continue,
            };
            let snippet = if snippets { crate::snippet::snippet(&text::searchable(&pi_session_format::entry::Kind::parse(&r.kind), &crate::hits::as_text(raw)), &q.terms) } else { Default::default() };
            hits.push(Hit { file_id: r.file_id, id: r.id, line: r.line, role: r.role, ts: r.ts, snippet });
        }
        return Ok(hits);
    }
    let cands = match &kept {
        // The blocks of the files kept, newest first like every answer (a walk of the entries
        // newest first, each tested against the files kept, read all of an old file's rows).
        Some(files) if !words => blocks_of(c, files).map_err(at)?,
        _ => candidates(c, &dir, &keys_of(q)).map_err(at)?,
    };
    if cands.is_empty() {
        return Ok(hits);
    }
    let per_entry = Query { cwd: None, name: None, ..q.clone() };
    let (wh, mut args) = filters(&per_entry, only_file);
    let n = args.len();
    args.push(rusqlite::types::Value::Integer(0));
    args.push(rusqlite::types::Value::Integer(0));
    let cond = wh.iter().map(|w| format!(" AND {w}")).collect::<String>();
    // The block's file is known: no join (a lookup of the file's row for each entry).
    let sql = format!("SELECT {HIT_COLUMNS} FROM entries e WHERE e.id BETWEEN ?{} AND ?{}{cond} ORDER BY e.id DESC", n + 1, n + 2);
    let mut entries = c.prepare_cached(&sql).map_err(at)?;
    let mut block = c.prepare_cached("SELECT file_id, first, last FROM blocks WHERE id = ?1").map_err(at)?;
    // Many candidates close together: the blocks table walked once over their span, newest
    // first, beside the candidates (one statement, not one per candidate).
    let (lo_b, hi_b) = (cands[0] as i64, cands[cands.len() - 1] as i64);
    let dense = cands.len() >= 64 && cands.len() as i64 * 8 >= hi_b - lo_b + 1;
    let mut span = c.prepare_cached("SELECT id, file_id, first, last FROM blocks WHERE id BETWEEN ?1 AND ?2 ORDER BY id DESC").map_err(at)?;
    let mut walk = if dense { Some(span.query([lo_b, hi_b]).map_err(at)?) } else { None };
    let mut ahead: Option<(i64, i64, i64, i64)> = None;
    let mut lower = Vec::new();
    // The lines of the blocks read so far and not yet checked, newest first: checked on every
    // core once they make a batch (a query matching long tool outputs parses megabytes of
    // their text).
    let mut batch = Batch { snippets: snippets.then_some(q.terms.as_slice()), ..Batch::default() };
    for &b in cands.iter().rev() {
        if hits.len() > limit {
            break;
        }
        let found = match walk.as_mut() {
            None => block.query_row([b as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))).optional().map_err(at)?,
            Some(rows) => loop {
                let r = match ahead.take() {
                    Some(r) => r,
                    None => match rows.next().map_err(at)? {
                        Some(r) => (r.get(0).map_err(at)?, r.get(1).map_err(at)?, r.get(2).map_err(at)?, r.get(3).map_err(at)?),
                        None => break None,
                    },
                };
                if r.0 > b as i64 {
                    continue;
                }
                if r.0 < b as i64 {
                    ahead = Some(r);
                    break None;
                }
                break Some((r.1, r.2, r.3));
            },
        };
        let Some((fid, first, last)) = found else {
            // A block of a file removed or indexed again since.
            continue;
        };
        if skip.contains(&fid) || only_file.is_some_and(|o| o != fid) || kept.as_ref().is_some_and(|k| !k.contains(&fid)) {
            continue;
        }
        args[n] = rusqlite::types::Value::Integer(first);
        args[n + 1] = rusqlite::types::Value::Integer(last);
        let rows: Vec<Row> = entries.query_map(params_from_iter(args.iter()), row).map_err(at)?.collect::<Result<_, _>>().map_err(at)?;
        if rows.is_empty() {
            continue;
        }
        let Some(f) = files.get(c, db, fid)? else { continue };
        let lo = rows.iter().map(|r| r.off).min().unwrap_or(0);
        let hi = rows.iter().map(|r| r.off + r.len as u64).max().unwrap_or(0);
        // The block's span in one read, unless the rows kept are a small part of it (a role
        // kept: a few short lines among long ones), then each row alone.
        let wanted: u64 = rows.iter().map(|r| r.len as u64).sum();
        let span = (wanted * 2 >= hi - lo).then(|| read_at(f, lo, (hi - lo) as usize, &mut buf));
        for r in rows {
            let line = match &span {
                Some(raw) => raw.get((r.off - lo) as usize..(r.off - lo) as usize + r.len as usize),
                None => {
                    let own = read_at(f, r.off, r.len as usize, &mut own);
                    (own.len() == r.len as usize).then_some(own)
                }
            };
            let Some(line) = line else { continue };
            // The lines the prefilter lets through wait for the exact check (most lines of a
            // rare term's blocks stop here).
            lower.clear();
            lower.extend(line.iter().map(|b| b.to_ascii_lowercase()));
            if !terms.may_hold(&lower) {
                continue;
            }
            batch.bytes += line.len();
            batch.lines.push((r, line.to_vec()));
        }
        // A huge line (tool output of megabytes) is not held three times over while it is
        // checked: the read and its lowercase are let go.
        for b in [&mut buf, &mut own, &mut lower] {
            if b.capacity() > KEEP_BUFFER {
                *b = Vec::new();
            }
        }
        // Checked once they are many bytes, or as many lines as the hits still wanted (most
        // lines the prefilter lets through are hits: no blocks read past the answer's end).
        if batch.bytes >= batch.goal || hits.len() + batch.lines.len() > limit {
            batch.check_into(&terms, &mut hits, limit);
        }
    }
    batch.check_into(&terms, &mut hits, limit);
    Ok(hits)
}

/// The bytes of lines a query's first batch holds, and its batches at most: each batch twice
/// the last, so a query answered by its first lines checks few more than it needs.
const FIRST_BATCH: usize = 64 * 1024;
const MAX_BATCH: usize = 1024 * 1024;
/// A query's read buffers are kept from one block to the next up to this size.
const KEEP_BUFFER: usize = 4 * 1024 * 1024;

/// Candidate lines read, in the order of the answer, waiting to be checked.
struct Batch<'q> {
    lines: Vec<(Row, Vec<u8>)>,
    bytes: usize,
    /// The bytes at which this batch is checked.
    goal: usize,
    /// The query's terms, when the hits' snippets are wanted.
    snippets: Option<&'q [String]>,
}

impl Default for Batch<'_> {
    fn default() -> Self {
        Batch { lines: Vec::new(), bytes: 0, goal: FIRST_BATCH, snippets: None }
    }
}

impl Batch<'_> {
    /// Checks the lines on every core and adds the hits in order, up to `limit + 1`.
    fn check_into(&mut self, terms: &Terms<'_>, hits: &mut Vec<Hit>, limit: usize) {
        let lines = std::mem::take(&mut self.lines);
        self.bytes = 0;
        self.goal = (self.goal * 2).min(MAX_BATCH);
        let snippets = self.snippets;
        let check = |(r, line): &(Row, Vec<u8>)| {
            let (text, text_lower) = terms.check(&r.kind, line)?;
            Some(snippets.map(|t| crate::snippet::snippet_lowered(&text, text_lower.as_deref(), t)).unwrap_or_default())
        };
        let checked: Vec<Option<(String, Vec<[u32; 2]>)>> = if lines.len() > 1 {
            use rayon::prelude::*;
            lines.par_iter().map(check).collect()
        } else {
            lines.iter().map(check).collect()
        };
        for ((r, _), c) in lines.into_iter().zip(checked) {
            if hits.len() > limit {
                break;
            }
            if let Some(snippet) = c {
                hits.push(Hit { file_id: r.file_id, id: r.id, line: r.line, role: r.role, ts: r.ts, snippet });
            }
        }
    }
}

/// The ids of the blocks of `files`, in order.
fn blocks_of(c: &Connection, files: &HashSet<i64>) -> rusqlite::Result<Vec<u32>> {
    let mut st = c.prepare_cached("SELECT id FROM blocks WHERE file_id = ?1")?;
    let mut out = Vec::new();
    for f in files {
        for id in st.query_map([f], |r| r.get::<_, i64>(0))? {
            out.push(id? as u32);
        }
    }
    out.sort_unstable();
    Ok(out)
}

/// Where a file of the index is: its path (as listed) and the fields a hit group shows.
pub(super) struct FileInfo {
    pub path: String,
    pub session_id: Option<String>,
    pub title: Option<String>,
    pub cwd: Option<String>,
}

pub(super) fn file_info(c: &Connection, id: i64) -> rusqlite::Result<Option<FileInfo>> {
    c.prepare_cached("SELECT path, session_id, title, cwd FROM files WHERE id = ?1")?.query_row([id], |r| Ok(FileInfo { path: r.get(0)?, session_id: r.get(1)?, title: r.get(2)?, cwd: r.get(3)? })).optional()
}

/// The file ids of `paths` (as listed), those the index has.
pub(super) fn ids_of(c: &Connection, paths: &HashSet<String>) -> rusqlite::Result<HashSet<i64>> {
    let mut st = c.prepare_cached("SELECT id FROM files WHERE path = ?1")?;
    let mut out = HashSet::new();
    for p in paths {
        if let Some(id) = st.query_row([p], |r| r.get::<_, i64>(0)).optional()? {
            out.insert(id);
        }
    }
    Ok(out)
}

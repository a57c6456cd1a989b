//! One session file, indexed: its header, a skeleton per entry line, the id map and the
//! diagnostics of reading. Bodies stay on disk and are read by offset when shown.
//!
//! Reading follows pi 0.73.1's `loadEntriesFromFile` (docs/format.md, "Loading"): blank lines and lines
//! that fail to parse are skipped, the first parsed object must be the header, later headers
//! are ignored. A file that grows is read from where the last read stopped.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use pi_session_format::diag::{DiagKind, Diagnostic};
use pi_session_format::entry::{Detail, Entry, Id, Kind, Parent, Parsed, Role};
pub use pi_session_format::header::{FileStamp, Header, ReadOnlyReason};
use pi_session_format::js::is_js_space;
use pi_session_format::json;
use pi_session_format::lines::{BatchReader, OwnedBatch, RawLine};
use pi_session_format::skeleton::{scan_line, ScanError};

use crate::Error;

mod ahead;
mod file_bytes;
mod ids;
mod metas;
mod snapshot;
mod take;
pub use ahead::Cores;
use ahead::{parse_batch, parse_text, Pre, PARALLEL_BATCH};
pub use ids::IdMap;
use ids::LaterIds;
use metas::Metas;
pub use snapshot::{cache_dir, CacheUse, Encoded, SkeletonCache};

/// Bytes read per batch of lines.
const BATCH: usize = 4 * 1024 * 1024;
/// The next batch, noting in `names_files` whether it holds `.jsonl` after the file's first
/// line (a fork's header names its parent's file; a batch is whole lines, so the bytes cannot
/// span two batches). Searched in the buffer just read, while its bytes are in the cache.
fn next_noted<R: io::Read>(reader: &mut BatchReader<R>, names_files: &mut bool) -> io::Result<Option<OwnedBatch>> {
    let b = reader.next_batch()?;
    if let Some(b) = b.as_ref().filter(|_| !*names_files) {
        let from = b.lines.first().filter(|l| l.offset == 0).map_or(0, |l| l.end);
        *names_files = memchr::memmem::find(&b.buf[from..], b".jsonl").is_some();
    }
    Ok(b)
}

/// Where reading stands while batches are applied.
struct Applying {
    committed_len: u64,
    checkpointed: bool,
    pending: Vec<Diagnostic>,
}

/// Lines above this size are flagged (they are still read).
pub const HUGE_LINE: usize = 30 * 1024 * 1024;
/// At most this many findings of one kind are kept per file; the rest are counted.
const DIAG_CAP: usize = 50;

/// What a refresh found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refresh {
    Unchanged,
    /// New lines were read from the end; entries from this index on are new.
    Appended { first_new_entry: usize },
    /// The file was rewritten, truncated or replaced: read again from the start.
    Reloaded,
}

/// The indexed file.
#[derive(Debug, Clone)]
pub struct SessionIndex {
    pub path: PathBuf,
    pub header: Option<Header>,
    /// Every entry line (not headers), in file order.
    pub entries: Vec<Entry>,
    /// Ordinal of each entry among the parsed JSON values of the file (header = 0).
    pub(crate) ordinals: Vec<u32>,
    /// id → index into `entries` of the last line with that id.
    pub by_id: IdMap,
    pub diagnostics: Vec<Diagnostic>,
    /// True when the first parsed JSON value was a valid header (pi accepts the file).
    pub header_ok: bool,
    pub stamp: FileStamp,
    /// Byte length of the file as last read.
    pub read_len: u64,
    /// End of the last complete (`\n`-terminated) line.
    pub(crate) committed_len: u64,
    pub(crate) committed: Checkpoint,
    scan: ScanState,
    /// How many entries only pi 1.x writes ([`Entry::is_pi1_only`]): the file's dialect.
    pub(crate) pi1_only: u32,
    /// The metas of the messages indexed since the last block was closed.
    metas: Metas,
    /// A line after the first holds `.jsonl`: the session's tool calls and results may name
    /// session files ([`crate::forks::spawn::named_files`] reads the file again only then).
    /// Never reset by a refresh; true when not known (an index decoded from a snapshot).
    names_files: bool,
    /// The first user message with text, taken as the lines were read (a listing's title
    /// without reading the line again).
    first_user: FirstUser,
    /// A fresh read's ids, mapped at its end.
    later_ids: LaterIds,
}

/// What the read found of the session's first user message with text: pi's list shows the
/// text of the first of them that has any (text blocks joined by a space), looking at 64 at most.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FirstUser {
    /// Not known: an index decoded from a snapshot (the summary reads the line).
    Unknown,
    /// `seen` user messages read, none with text.
    Looking { seen: u32 },
    /// Entry `entry`'s text.
    Found { entry: u32, text: String },
}

/// User messages looked at for the first one with text.
pub(crate) const FIRST_USER_LOOKS: u32 = 64;

#[derive(Debug, Clone, Default)]
pub(crate) struct Checkpoint {
    entries: usize,
    diagnostics: usize,
    scan: ScanState,
    header: Option<Header>,
    header_ok: bool,
}

#[derive(Debug, Clone, Default)]
struct ScanState {
    next_line: u32,
    parsed_values: u32,
    crlf_seen: bool,
    diag_counts: HashMap<DiagKind, usize>,
    blank_lines: u32,
    last_line_terminated: bool,
    /// A line with content (not blank) was seen: later lines keep their leading spaces.
    seen_content: bool,
    /// The latest line with content, when it parses only without its trailing Unicode
    /// spaces: pi (which trims the whole file) accepts it if no other content follows.
    tail_candidate: Option<TailCandidate>,
}

#[derive(Debug, Clone)]
struct TailCandidate {
    number: u32,
    offset: u64,
    len: u32,
    /// The line without its trailing spaces.
    text: String,
    /// Why the untrimmed line does not parse.
    error: String,
}

impl SessionIndex {
    /// Reads and indexes a session file.
    pub fn load(path: impl AsRef<Path>) -> Result<SessionIndex, Error> {
        SessionIndex::load_on(path, Cores::All)
    }

    /// [`SessionIndex::load`] on the given cores (the same index either way).
    pub fn load_on(path: impl AsRef<Path>, cores: Cores) -> Result<SessionIndex, Error> {
        let path = path.as_ref().to_path_buf();
        let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
        if !meta.is_file() {
            return Err(Error::NotAFile(path));
        }
        let mut ix = SessionIndex::empty(path);
        ix.stamp = FileStamp::of(&meta);
        // About one entry per 700 bytes: reserve once instead of growing by copies.
        let guess = (meta.len() / 700).min(4_000_000) as usize;
        ix.entries.reserve(guess);
        pi_session_format::pages::huge_pages(&mut ix.entries);
        ix.ordinals.reserve(guess);
        // (The id map is sized when the read maps its ids, at its end.)
        ix.later_ids.pairs.reserve(guess);
        if meta.len() < PARALLEL_BATCH as u64 || cores == Cores::One {
            // Read in order (a bigger file's lines parsed ahead keep their own metas).
            ix.metas.reserve(guess);
        }
        let f = File::open(&ix.path).map_err(|e| Error::io(&ix.path, e))?;
        // Read once, front to back: a larger readahead when the pages are not cached.
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: advice on a descriptor we hold open; no memory is involved.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
        }
        ix.read_from(f, 0, cores).map_err(|e| Error::io(&ix.path, e))?;
        ix.finish();
        Ok(ix)
    }

    /// Reads and indexes the file open at `f` (from its start; `path` names it), without
    /// opening it again.
    fn load_open(path: &Path, f: &File) -> Result<SessionIndex, Error> {
        let meta = f.metadata().map_err(|e| Error::io(path, e))?;
        let mut ix = SessionIndex::empty(path.to_path_buf());
        ix.stamp = FileStamp::of(&meta);
        let mut r = f;
        r.seek(SeekFrom::Start(0)).map_err(|e| Error::io(path, e))?;
        ix.read_from(r, 0, Cores::All).map_err(|e| Error::io(path, e))?;
        ix.finish();
        Ok(ix)
    }

    /// Indexes bytes held in memory (tests, fuzzing).
    pub fn from_bytes(path: impl Into<PathBuf>, bytes: &[u8]) -> SessionIndex {
        let mut ix = SessionIndex::empty(path.into());
        ix.stamp.len = bytes.len() as u64;
        ix.read_from(bytes, 0, Cores::All).expect("reading from memory cannot fail");
        ix.finish();
        ix
    }

    fn empty(path: PathBuf) -> SessionIndex {
        SessionIndex {
            path,
            header: None,
            entries: Vec::new(),
            ordinals: Vec::new(),
            by_id: IdMap::default(),
            diagnostics: Vec::new(),
            header_ok: false,
            stamp: FileStamp::default(),
            read_len: 0,
            committed_len: 0,
            committed: Checkpoint::default(),
            scan: ScanState { next_line: 1, ..Default::default() },
            pi1_only: 0,
            metas: Metas::default(),
            names_files: false,
            first_user: FirstUser::Looking { seen: 0 },
            later_ids: LaterIds::default(),
        }
    }

    /// Reads what was appended since the last read. A file that shrank, was replaced, or
    /// whose last read line changed is read again from the start.
    pub fn refresh(&mut self) -> Result<Refresh, Error> {
        let meta = std::fs::metadata(&self.path).map_err(|e| Error::io(&self.path, e))?;
        if FileStamp::of(&meta) == self.stamp {
            return Ok(Refresh::Unchanged);
        }
        let f = File::open(&self.path).map_err(|e| Error::io(&self.path, e))?;
        self.refresh_open(&f)
    }

    /// [`SessionIndex::refresh`] through a descriptor already open on the file: never opens it
    /// again (a writer holding a lease on it must not break its own lease), reads only what
    /// follows the last complete line read, and a reload reads from the same descriptor.
    pub fn refresh_open(&mut self, f: &File) -> Result<Refresh, Error> {
        let meta = f.metadata().map_err(|e| Error::io(&self.path, e))?;
        let stamp = FileStamp::of(&meta);
        if stamp == self.stamp {
            return Ok(Refresh::Unchanged);
        }
        let replaced = stamp.ino != self.stamp.ino || stamp.len < self.committed_len || !self.tail_matches(f);
        if replaced || self.needs_full_reload() {
            *self = SessionIndex::load_open(&self.path, f)?;
            return Ok(Refresh::Reloaded);
        }
        if stamp.len == self.read_len && stamp.len == self.committed_len {
            self.stamp = stamp;
            return Ok(Refresh::Unchanged);
        }
        self.rollback_to_committed();
        let first_new_entry = self.entries.len();
        let mut r = f;
        r.seek(SeekFrom::Start(self.committed_len)).map_err(|e| Error::io(&self.path, e))?;
        let start = self.committed_len;
        self.stamp.len = stamp.len;
        self.read_from(r, start, Cores::All).map_err(|e| Error::io(&self.path, e))?;
        if self.needs_full_reload() {
            // A v1/v2 header came with these lines: its migration rewrites the earlier entries too.
            *self = SessionIndex::load_open(&self.path, f)?;
            return Ok(Refresh::Reloaded);
        }
        self.stamp = stamp;
        self.stamp.len = self.read_len.max(stamp.len);
        self.finish();
        Ok(Refresh::Appended { first_new_entry })
    }

    /// Takes in a line we appended ourselves, from memory: `bytes` (whole lines) were written
    /// at `at`, right after the last complete line read, and `stamp` is the file as seen
    /// right after (its length capped at the end of `bytes`, so whatever another writer
    /// appended after them is read by the next refresh). Returns `None`, changing nothing,
    /// when the bytes do not follow what was read (the caller refreshes from the file).
    pub fn take_own(&mut self, at: u64, bytes: &[u8], stamp: FileStamp) -> Option<Refresh> {
        let follows = at == self.read_len && at == self.committed_len && bytes.last() == Some(&b'\n');
        if !follows || self.needs_full_reload() || stamp.len < at + bytes.len() as u64 {
            return None;
        }
        self.rollback_to_committed();
        let first_new_entry = self.entries.len();
        self.stamp.len = at + bytes.len() as u64;
        self.read_from(bytes, at, Cores::One).ok()?;
        self.stamp = FileStamp { len: self.read_len, ..stamp };
        self.finish();
        Some(Refresh::Appended { first_new_entry })
    }

    /// Whether a line after the first may name a session file (holds `.jsonl`; true when not
    /// known): [`crate::forks::spawn::named_files`] reads the file again only then.
    pub fn names_files(&self) -> bool {
        self.names_files
    }

    /// The text of the session's first user message that has any (`Some(None)`: none among
    /// the first [`FIRST_USER_LOOKS`]), as the read took it; `None` when not known (the line
    /// must be read).
    pub(crate) fn first_user_text(&self) -> Option<Option<&str>> {
        match &self.first_user {
            FirstUser::Unknown => None,
            FirstUser::Looking { .. } => Some(None),
            FirstUser::Found { text, .. } => Some(Some(text)),
        }
    }

    /// Notes entry `idx`, a user message whose line is `raw`, while looking for the first one
    /// with text.
    fn note_user(&mut self, idx: u32, raw: &[u8]) {
        if let FirstUser::Looking { seen } = self.first_user {
            if seen < FIRST_USER_LOOKS {
                self.first_user = match crate::text::user_text_of_line(&crate::text::line_str(raw)).filter(|t| !t.is_empty()) {
                    Some(text) => FirstUser::Found { entry: idx, text },
                    None => FirstUser::Looking { seen: seen + 1 },
                };
            }
        }
    }

    /// v1/v2 files are migrated as a whole; any change means reading them again.
    fn needs_full_reload(&self) -> bool {
        self.header.as_ref().map(|h| h.effective_version() < 3.0).unwrap_or(false)
    }

    /// The byte before the committed end must still be the `\n` we saw, and the last
    /// committed entry line must still hold the same id.
    fn tail_matches(&self, f: &File) -> bool {
        if self.committed_len == 0 {
            return true;
        }
        let Some(last) = self.entries[..self.committed.entries].last() else {
            return read_at(f, self.committed_len - 1, 1).map(|b| b == b"\n").unwrap_or(false);
        };
        match read_at(f, last.offset, last.len as usize + 1) {
            Ok(bytes) => {
                bytes.last() == Some(&b'\n') && {
                    let text = String::from_utf8_lossy(&bytes[..bytes.len() - 1]);
                    scan_line(&text).ok().map(|f| f.id.map(str::to_owned)) == Some(last.id.as_ref().map(|i| format!("\"{i}\"")))
                        || last.id.is_none()
                }
            }
            Err(_) => false,
        }
    }

    fn rollback_to_committed(&mut self) {
        self.metas.close(&mut self.entries);
        let keep = self.committed.entries;
        let dropped: Vec<Entry> = self.entries.drain(keep..).collect();
        self.ordinals.truncate(keep);
        for e in dropped {
            self.pi1_only -= e.is_pi1_only() as u32;
            let Some(id) = e.id else { continue };
            if self.by_id.get(&id).is_some_and(|&i| i as usize >= keep) {
                // The dropped line had shadowed an earlier one with the same id, or was the only one.
                match self.entries.iter().rposition(|x| x.id.as_ref() == Some(&id)) {
                    Some(p) => self.by_id.insert(&id, p as u32),
                    None => self.by_id.remove(&id),
                };
            }
        }
        // The user messages dropped are looked at again when their lines are read again.
        if matches!(self.first_user, FirstUser::Found { entry, .. } if entry as usize >= keep) || matches!(self.first_user, FirstUser::Looking { .. }) {
            // Counted up to the limit only: a long session stops at its 64th user message.
            let seen = self.entries.iter().filter(|e| e.is_user()).take(FIRST_USER_LOOKS as usize).count() as u32;
            self.first_user = FirstUser::Looking { seen };
        }
        self.diagnostics.truncate(self.committed.diagnostics);
        self.scan = self.committed.scan.clone();
        self.header = self.committed.header.clone();
        self.header_ok = self.committed.header_ok;
        self.read_len = self.committed_len;
    }

    /// Reads from `r` (at `offset` of the file) to its end, then closes the block of metas, so
    /// every message read holds its meta even when the read failed part way.
    fn read_from<R: io::Read>(&mut self, r: R, offset: u64, cores: Cores) -> io::Result<()> {
        // A read from the start maps its ids at its end, a read of appended lines one by one.
        if self.entries.is_empty() && self.by_id.is_empty() {
            self.later_ids.on = true;
        }
        let read = self.read_batches(r, offset, cores);
        self.map_later_ids();
        self.later_ids = LaterIds::default();
        self.metas.close(&mut self.entries);
        // Lines taken before the failure were not searched for a file's name.
        self.names_files |= read.is_err();
        read
    }

    fn read_batches<R: io::Read>(&mut self, r: R, offset: u64, cores: Cores) -> io::Result<()> {
        let first_line = self.scan.next_line.max(1);
        let expected = self.stamp.len.checked_sub(offset).filter(|&n| n > 0);
        let target = expected.map(|n| (n as usize).saturating_add(1).clamp(4096, BATCH)).unwrap_or(BATCH);
        let mut reader = BatchReader::new(r, offset, first_line, target);
        let mut st = Applying { committed_len: self.committed_len, checkpointed: false, pending: Vec::new() };
        // Big files: while one batch is applied in file order (header, ids, findings), the next
        // one is parsed on the other cores and this thread reads the one after it.
        let mut names_files = self.names_files;
        let ahead = |b: &OwnedBatch, into: &mut Vec<Option<Pre>>| if cores == Cores::All { parse_batch(b, into) } else { into.clear() };
        let mut cur = next_noted(&mut reader, &mut names_files)?.map(|b| {
            let mut p = Vec::new();
            ahead(&b, &mut p);
            (b, p)
        });
        let mut next = match cur {
            Some(_) => next_noted(&mut reader, &mut names_files)?,
            None => None,
        };
        // The lines parsed ahead go to the list of the batch applied before (emptied by then).
        let mut spare: Vec<Option<Pre>> = Vec::new();
        while let Some((b, mut pre)) = cur.take() {
            let mut next_pre = std::mem::take(&mut spare);
            let after = match &next {
                Some(n) if cores == Cores::All && n.bytes() >= PARALLEL_BATCH => rayon::in_place_scope(|s| {
                    s.spawn(|_| {
                        rayon::join(|| parse_batch(n, &mut next_pre), || self.apply_batch(&b, &mut pre, &mut st));
                    });
                    next_noted(&mut reader, &mut names_files)
                })?,
                Some(n) => {
                    self.apply_batch(&b, &mut pre, &mut st);
                    ahead(n, &mut next_pre);
                    next_noted(&mut reader, &mut names_files)?
                }
                None => {
                    self.apply_batch(&b, &mut pre, &mut st);
                    None
                }
            };
            spare = pre;
            reader.recycle(b);
            cur = next.take().map(|n| (n, next_pre));
            next = after;
        }
        self.names_files = names_files;
        if !st.checkpointed {
            self.map_later_ids();
            self.committed = self.checkpoint();
        }
        self.committed_len = st.committed_len;
        self.read_len = offset + reader.consumed();
        Ok(())
    }

    /// Indexes the lines of one batch in file order, using the lines parsed ahead.
    fn apply_batch(&mut self, batch: &OwnedBatch, pre: &mut Vec<Option<Pre>>, st: &mut Applying) {
        let mut pre = pre.drain(..);
        for span in &batch.lines {
            let line = batch.line(span);
            let terminated = line.terminated;
            let end = line.offset + line.bytes.len() as u64 + 1;
            if !terminated {
                // Only the last line can lack its newline: remember the state before it, so a
                // later refresh can read it again once it is complete.
                self.map_later_ids();
                self.committed = self.checkpoint();
                st.checkpointed = true;
            }
            self.scan.next_line = line.number + 1;
            self.scan.last_line_terminated = terminated;
            // By reference: a line parsed ahead is over 160 bytes, and most lines have none.
            let mut p = pre.next().flatten();
            self.take_line(line, &mut p, &mut st.pending);
            if !st.pending.is_empty() {
                self.diagnostics.append(&mut st.pending);
            }
            if terminated {
                st.committed_len = end;
            }
        }
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            entries: self.entries.len(),
            diagnostics: self.diagnostics.len(),
            scan: self.scan.clone(),
            header: self.header.clone(),
            header_ok: self.header_ok,
        }
    }

    /// File-level findings and the in-memory migration of v1/v2 files.
    fn finish(&mut self) {
        // Only blank lines followed the held-back line: it is the file's last line with
        // content, and pi reads it without its trailing spaces. (The read checkpoint was
        // taken before this, so a refresh that finds more content rolls it back.)
        if let Some(c) = self.scan.tail_candidate.take() {
            let mut out = Vec::new();
            if let Err(e) = self.take_text(c.number, c.offset, c.len, &c.text, c.text.as_bytes(), &mut None, &mut out) {
                out.push(Diagnostic::new(Some(c.number), DiagKind::MalformedLine, format!("not valid JSON ({e}); skipped")));
            }
            self.diagnostics.append(&mut out);
            self.metas.close(&mut self.entries);
        }
        // Drop file-level findings from an earlier pass (they are recomputed).
        self.diagnostics.retain(|d| d.line.is_some() || !matches!(d.kind, DiagKind::EmptyFile | DiagKind::HeaderOnly | DiagKind::OldVersion | DiagKind::FutureVersion | DiagKind::NotASession));
        for (kind, count) in &self.scan.diag_counts {
            if *count > DIAG_CAP {
                let extra = *count - DIAG_CAP;
                self.diagnostics.retain(|d| !(d.line.is_none() && d.kind == *kind && d.message.starts_with("and ")));
                self.diagnostics.push(Diagnostic::new(None, *kind, format!("and {extra} more lines like this")));
            }
        }
        if self.read_len == 0 {
            self.diagnostics.push(Diagnostic::new(None, DiagKind::EmptyFile, "the file is empty"));
        } else if self.header.is_some() && self.entries.is_empty() && self.header_ok {
            self.diagnostics.push(Diagnostic::new(None, DiagKind::HeaderOnly, "a header and no entries"));
        }
        if let Some(h) = &self.header {
            let v = h.effective_version();
            if h.v4 {
                // Reported on the header line already.
            } else if v < 3.0 {
                self.diagnostics.push(Diagnostic::new(
                    None,
                    DiagKind::OldVersion,
                    format!("version {v}: migrated in memory, read-only (pi rewrites it with new random ids on open)"),
                ));
                self.migrate(v);
            } else if v > 3.0 {
                self.diagnostics.push(Diagnostic::new(None, DiagKind::FutureVersion, format!("version {v}: shown read-only")));
            }
        } else if self.read_len > 0 && !self.diagnostics.iter().any(|d| d.kind == DiagKind::MissingHeader) {
            self.diagnostics.push(Diagnostic::new(None, DiagKind::MissingHeader, "no session header"));
        }
        // No header and not one line of a pi entry type: some other file that ends in .jsonl.
        if self.read_len > 0 && self.header.is_none() && self.entries.iter().all(|e| matches!(e.kind, Kind::Other(_))) {
            self.diagnostics.push(Diagnostic::new(None, DiagKind::NotASession, "no session header and no line of a pi entry type"));
        }
    }

    /// pi's `migrateV1ToV2` / `migrateV2ToV3`, in memory. Ids are synthetic (`v1-<line>`):
    /// pi draws random ones when it rewrites the file.
    fn migrate(&mut self, version: f64) {
        if version < 2.0 {
            let mut prev: Option<Id> = None;
            let mut by_ordinal: HashMap<u32, usize> = HashMap::new();
            for (i, e) in self.entries.iter_mut().enumerate() {
                let id = Id::from(format!("v1-{}", e.line));
                e.id = Some(id.clone());
                e.parent = match prev.take() {
                    Some(p) => Parent::Id(p),
                    None => Parent::Null,
                };
                prev = Some(id);
                by_ordinal.insert(self.ordinals[i], i);
            }
            let ids: Vec<Option<Id>> = self.entries.iter().map(|e| e.id.clone()).collect();
            for e in self.entries.iter_mut() {
                if let Detail::Compaction { first_kept, first_kept_index, .. } = &mut e.detail {
                    if let Some(ix) = first_kept_index.take() {
                        if ix >= 0 {
                            if let Some(&target) = by_ordinal.get(&(ix as u32)) {
                                *first_kept = ids[target].clone();
                            }
                        }
                    }
                }
            }
            self.by_id = self.entries.iter().enumerate().filter_map(|(i, e)| e.id.as_deref().map(|id| (id, i as u32))).collect();
            self.diagnostics.retain(|d| d.kind != DiagKind::DuplicateId && d.kind != DiagKind::MissingId);
        }
        for e in self.entries.iter_mut() {
            if let Detail::Message { role, .. } = &mut e.detail {
                if *role == Role::HookMessage {
                    *role = Role::Custom;
                }
            }
        }
    }

    /// Why this session is read-only, if it is.
    pub fn read_only(&self) -> Option<ReadOnlyReason> {
        match &self.header {
            _ if !self.header_ok => Some(ReadOnlyReason::NoHeader),
            Some(h) if h.effective_version() < 3.0 => Some(ReadOnlyReason::OldVersion),
            Some(h) if h.effective_version() > 3.0 || h.v4 => Some(ReadOnlyReason::FutureVersion),
            None => Some(ReadOnlyReason::NoHeader),
            _ => None,
        }
    }

    /// True when the file's last byte is not `\n` (a torn tail or an unterminated last line).
    pub fn has_unterminated_tail(&self) -> bool {
        self.read_len > self.committed_len
    }

    /// How many findings of `kind` reading has made (including those beyond the kept cap).
    pub fn count(&self, kind: DiagKind) -> usize {
        self.scan.diag_counts.get(&kind).copied().unwrap_or(0)
    }

    pub fn version(&self) -> f64 {
        self.header.as_ref().map(|h| h.effective_version()).unwrap_or(3.0)
    }

    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.by_id.get(id).map(|&i| &self.entries[i as usize])
    }

    pub fn index_of(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    /// Reads the raw bytes of an entry line from disk.
    pub fn line_bytes(&self, e: &Entry) -> Result<Vec<u8>, Error> {
        let mut f = File::open(&self.path).map_err(|err| Error::io(&self.path, err))?;
        read_at(&mut f, e.offset, e.len as usize).map_err(|err| Error::io(&self.path, err))
    }
}

/// Reads `len` bytes at `offset`.
pub fn read_at(f: &File, offset: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len];
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(f, &mut buf, offset)?;
    }
    #[cfg(not(unix))]
    {
        use std::io::Read;
        let mut f = f;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(&mut buf)?;
    }
    Ok(buf)
}

//! The snapshot's encoding: little-endian, fixed width, strings as a u32 length and UTF-8.
//! The payload holds the session file's canonical path, the probe hashes, the index (entries
//! behind a table of where each starts, so they decode on all cores; the id map in a section of
//! its own, so it is rebuilt on one core while the rest decodes on another) and the tree.

use std::path::Path;
use std::sync::Arc;

use compact_str::CompactString;
use pi_session_format::diag::{DiagKind, Diagnostic, Severity};
use pi_session_format::entry::{Detail, Entry, Id, Kind, MessageMeta, MetaRef, Parent, Replacement, Role, Usage};
use pi_session_format::header::{FileStamp, Header};
use pi_session_format::meta::{LazyBlock, LoadMetas};

use super::super::{Checkpoint, ScanState, SessionIndex, TailCandidate};
use super::lazy::{BlockAt, MetaSource, BLOCK};
use crate::session::IdMap;
use crate::tree::{Children, LabelInfo, Leaf, Tree, NONE};
use crate::Session;

mod write;
pub(super) use write::Writer;

/// Encodes the index into `w` (the payload) and its messages' metas into `metas` (the section
/// after the payload, in blocks of [`BLOCK`] entries that decode on first read).
pub(super) fn encode(w: &mut Vec<u8>, metas: &mut Vec<u8>, ix: &SessionIndex, probe: (u64, u64)) {
    let mut w = Writer(w);
    w.u64(probe.0);
    w.u64(probe.1);
    w.stamp(&ix.stamp);
    w.u64(ix.read_len);
    w.u64(ix.committed_len);
    w.opt_header(ix.header.as_ref());
    w.bool(ix.header_ok);
    w.u32(ix.pi1_only);
    // Entries: a table of where each starts (so they decode on all cores), then the entries.
    w.u32(ix.entries.len() as u32);
    // The id map's order (a sort of every id) is worked out on another core meanwhile.
    let (ids, ()) = rayon::join(|| ids_in_slot_order(ix), || encode_entries(&mut w, metas, ix));
    for &o in &ix.ordinals {
        w.u32(o);
    }
    let at = w.0.len();
    w.u64(0);
    w.u32(ids.len() as u32);
    for (_, id, i) in ids {
        w.str(&id);
        w.u32(i);
    }
    let len = (w.0.len() - at - 8) as u64;
    w.0[at..at + 8].copy_from_slice(&len.to_le_bytes());
    w.diags(&ix.diagnostics);
    w.scan(&ix.scan);
    let c = &ix.committed;
    w.u64(c.entries as u64);
    w.u64(c.diagnostics as u64);
    w.scan(&c.scan);
    w.opt_header(c.header.as_ref());
    w.bool(c.header_ok);
}

/// The id map, ids in the order of the slots the decoder's table puts them in: its inserts
/// then walk the table front to back instead of touching it at random.
fn ids_in_slot_order(ix: &SessionIndex) -> Vec<(u64, Id, u32)> {
    let n = ix.by_id.len();
    let mut ids: Vec<(u64, Id, u32)> = ix.by_id.iter().map(|(k, v)| (IdMap::slot_of(&k, n).unwrap_or(u64::MAX), k, v)).collect();
    ids.sort_unstable_by_key(|x| (x.0, x.2));
    ids
}

/// The entries (behind a table of where each starts) and where each block's metas are.
fn encode_entries(w: &mut Writer<'_>, metas: &mut Vec<u8>, ix: &SessionIndex) {
    let table = w.0.len();
    w.0.resize(table + 4 * ix.entries.len() + 8, 0);
    let start = w.0.len();
    let mut blocks = Vec::with_capacity(ix.entries.len().div_ceil(BLOCK));
    for (b, block) in ix.entries.chunks(BLOCK).enumerate() {
        let (from, mut count) = (metas.len(), 0);
        for (j, e) in block.iter().enumerate() {
            let k = b * BLOCK + j;
            let at = (w.0.len() - start) as u32;
            w.0[table + 4 * k..table + 4 * k + 4].copy_from_slice(&at.to_le_bytes());
            count += w.entry(e, &mut Writer(metas)) as u32;
        }
        let bytes = &metas[from..];
        blocks.push(BlockAt { count, at: from as u64, len: bytes.len() as u32, sum: super::checksum(bytes) });
    }
    let len = (w.0.len() - start) as u64;
    w.0[start - 8..start].copy_from_slice(&len.to_le_bytes());
    // Where each block's metas are in the section after the payload.
    w.u64(metas.len() as u64);
    for b in &blocks {
        w.block_at(b);
    }
}

/// Decodes a snapshot's payload: the entries on all cores, the id map and the rest (findings,
/// read state, tree) beside them, each on a core as one comes free. The messages' metas stay in
/// the section after the payload (`metas_len` bytes of the snapshot file, read through
/// `source` when first used).
pub(super) fn decode(b: &[u8], path: &Path, key: &str, metas_len: u64, source: impl FnOnce(u64) -> Arc<MetaSource>) -> Option<(Session, (u64, u64))> {
    let mut r = Reader { b, at: 0 };
    // A snapshot of another file whose name hashes alike is no snapshot of this one.
    if r.str()? != key {
        return None;
    }
    let probe = (r.u64()?, r.u64()?);
    let mut ix = SessionIndex::empty(path.to_path_buf());
    // Not kept in the snapshot: a session file may be named (named_files reads to know).
    ix.names_files = true;
    // Nor the first user message's text (the summary reads its line).
    ix.first_user = super::super::FirstUser::Unknown;
    ix.stamp = r.stamp()?;
    ix.read_len = r.u64()?;
    ix.committed_len = r.u64()?;
    ix.header = r.opt_header()?;
    ix.header_ok = r.bool()?;
    ix.pi1_only = r.u32()?;
    let n = r.count(4 + 26)?;
    let table = r.take(4 * n)?;
    let len = usize::try_from(r.u64()?).ok()?;
    let body = r.take(len)?;
    if r.u64()? != metas_len {
        return None;
    }
    let blocks = r.take(n.div_ceil(BLOCK).checked_mul(24)?)?;
    ix.ordinals = r.u32s(n, u32::MAX, false)?;
    let len = usize::try_from(r.u64()?).ok()?;
    let ids = r.take(len)?;
    // The entries on all cores; the id map and the rest on whichever core is free.
    let source = source(ix.stamp.ino);
    let (entries, (by_id, rest)) = rayon::join(
        || decode_entries(table, body, blocks, metas_len, &source),
        || {
            rayon::join(
                || by_id(ids, n),
                || {
                    let diagnostics = r.diags()?;
                    let scan = r.scan()?;
                    let committed = Checkpoint {
                        entries: r.u64()? as usize,
                        diagnostics: r.u64()? as usize,
                        scan: r.scan()?,
                        header: r.opt_header()?,
                        header_ok: r.bool()?,
                    };
                    let tree = r.tree(n)?;
                    (r.at == r.b.len()).then_some((diagnostics, scan, committed, tree))
                },
            )
        },
    );
    ix.entries = entries?;
    let (diagnostics, scan, committed, tree) = rest?;
    ix.by_id = by_id?;
    (ix.diagnostics, ix.scan, ix.committed) = (diagnostics, scan, committed);
    let c = &ix.committed;
    let sane = c.entries <= ix.entries.len() && c.diagnostics <= ix.diagnostics.len() && ix.committed_len <= ix.read_len;
    sane.then_some((Session { index: ix, tree }, probe))
}

/// The id map of `n` entries from its section: ids in the order of the slots they fill.
fn by_id(b: &[u8], n: usize) -> Option<IdMap> {
    let mut r = Reader { b, at: 0 };
    let k = r.count(8)?;
    let mut map = IdMap::default();
    map.reserve(k);
    for _ in 0..k {
        let id = r.str()?;
        let i = r.u32()?;
        // (Not compared with the entry's own id: that is a random read per id. The checksum
        // vouches for what the encoder wrote, and it wrote the map it had.)
        if i as usize >= n {
            return None;
        }
        map.insert(id, i);
    }
    (r.at == b.len()).then_some(map)
}

/// The last value of each text field of a message's meta (provider, model, stop reason, tool
/// name) decoded in a block: one message mostly repeats the one before.
#[derive(Default)]
struct Repeats<'a>([Option<(&'a [u8], CompactString)>; 4]);

/// Decodes the entries on all cores, a block of [`BLOCK`] at a time: `table` holds where each
/// starts in `body`, and each must end where the next starts; `blocks` where each block's metas
/// are in the metas section (of `metas_len` bytes, read through `source`).
fn decode_entries(table: &[u8], body: &[u8], blocks: &[u8], metas_len: u64, source: &Arc<MetaSource>) -> Option<Vec<Entry>> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    let n = table.len() / 4;
    let start = |k: usize| u32::from_le_bytes(table[4 * k..4 * k + 4].try_into().unwrap()) as usize;
    let bad = AtomicBool::new(false);
    let mut out: Vec<Entry> = Vec::with_capacity(n);
    pi_session_format::pages::huge_pages(&mut out);
    out.spare_capacity_mut()[..n].par_chunks_mut(BLOCK).enumerate().for_each(|(b, slots)| {
        let place = Reader { b: &blocks[24 * b..24 * b + 24], at: 0 }
            .block_at()
            .filter(|p| p.at.checked_add(p.len as u64).is_some_and(|end| end <= metas_len));
        let Some(place) = place else {
            bad.store(true, Ordering::Relaxed);
            for slot in slots.iter_mut() {
                slot.write(placeholder());
            }
            return;
        };
        let block = Arc::new(LazyBlock::new(LazyMetas { source: source.clone(), first: (b * BLOCK) as u32, place }));
        let mut with_meta = 0u32;
        for (j, slot) in slots.iter_mut().enumerate() {
            let k = b * BLOCK + j;
            let end = if k + 1 < n { start(k + 1) } else { body.len() };
            let entry = body.get(start(k)..end).and_then(|bytes| {
                let mut r = Reader { b: bytes, at: 0 };
                let (mut e, has_meta) = r.entry().filter(|_| r.at == bytes.len())?;
                if let (Detail::Message { meta, .. }, true) = (&mut e.detail, has_meta) {
                    if with_meta == place.count {
                        return None;
                    }
                    *meta = Some(MetaRef::lazy(&block, with_meta));
                    with_meta += 1;
                }
                Some(e)
            });
            slot.write(entry.unwrap_or_else(|| {
                bad.store(true, Ordering::Relaxed);
                placeholder()
            }));
        }
        if with_meta != place.count {
            bad.store(true, Ordering::Relaxed);
        }
    });
    // SAFETY: every one of the first `n` slots was written (a placeholder where decoding failed).
    unsafe { out.set_len(n) };
    (!bad.load(Ordering::Relaxed)).then_some(out)
}

/// What a slot holds where an entry could not be decoded (the snapshot is then discarded).
fn placeholder() -> Entry {
    Entry { line: 0, offset: 0, len: 0, kind: Kind::Message, id: None, parent: Parent::Missing, ts: 0.0, detail: Detail::None }
}

/// The metas of one block of entries of a snapshot, decoded on first read ([`LazyBlock`]).
struct LazyMetas {
    source: Arc<MetaSource>,
    /// The block's first entry.
    first: u32,
    place: BlockAt,
}

impl LoadMetas for LazyMetas {
    fn load(&self) -> Box<[MessageMeta]> {
        let p = self.place;
        let decoded = self.source.block(&p).and_then(|b| decode_metas(&b, p.count as usize));
        let mut metas = match decoded {
            Some(m) => m,
            None => self.source.from_session(self.first),
        };
        // Every message pointing here finds its meta, whatever happened.
        metas.resize(p.count as usize, MessageMeta::default());
        metas.into_boxed_slice()
    }
}

/// A block's `count` metas from its bytes in the metas section (each one after the other, to
/// the end of `b`).
fn decode_metas(b: &[u8], count: usize) -> Option<Vec<MessageMeta>> {
    let mut r = Reader { b, at: 0 };
    let mut seen = Repeats::default();
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let [provider, model, stop_reason, tool_name] = &mut seen.0;
        out.push(MessageMeta {
            provider: r.opt_cs_seen(provider)?,
            model: r.opt_cs_seen(model)?,
            stop_reason: r.opt_cs_seen(stop_reason)?,
            usage: r.usage()?,
            tool_name: r.opt_cs_seen(tool_name)?,
            is_error: r.bool()?,
        });
    }
    (r.at == b.len()).then_some(out)
}

/// `b` as text: short ASCII (ids, names) without the general UTF-8 check.
fn utf8(b: &[u8]) -> Option<&str> {
    if b.is_ascii() {
        // SAFETY: ASCII is UTF-8.
        Some(unsafe { std::str::from_utf8_unchecked(b) })
    } else {
        std::str::from_utf8(b).ok()
    }
}

/// The little-endian u32s of `b` (whose length is a multiple of 4), in one copy.
fn u32s_of(b: &[u8]) -> Vec<u32> {
    let n = b.len() / 4;
    let mut v: Vec<u32> = Vec::with_capacity(n);
    if cfg!(target_endian = "little") {
        // SAFETY: `n` u32s of room; a little-endian u32 has the bytes of its encoding.
        unsafe {
            std::ptr::copy_nonoverlapping(b.as_ptr(), v.as_mut_ptr().cast::<u8>(), 4 * n);
            v.set_len(n);
        }
    } else {
        v.extend(le_u32s(b));
    }
    v
}

/// One entry's children from their encoding (a multiple of 4 bytes).
fn children_of(b: &[u8]) -> Children {
    let n = b.len() / 4;
    if n <= 4 {
        let mut buf = [0u32; 4];
        for (slot, c) in buf.iter_mut().zip(le_u32s(b)) {
            *slot = c;
        }
        Children::from_buf_and_len(buf, n)
    } else {
        Children::from_vec(u32s_of(b))
    }
}

/// The little-endian u32s of `b` (whose length is a multiple of 4).
fn le_u32s(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

const KINDS: [Kind; 12] = [
    Kind::Message,
    Kind::ThinkingLevelChange,
    Kind::ModelChange,
    Kind::Compaction,
    Kind::BranchSummary,
    Kind::Custom,
    Kind::CustomMessage,
    Kind::Label,
    Kind::SessionInfo,
    Kind::Leaf,
    Kind::Usage,
    Kind::ContextEdit,
];
const ROLES: [Role; 8] = [Role::User, Role::Assistant, Role::ToolResult, Role::BashExecution, Role::Custom, Role::System, Role::HookMessage, Role::None];
const REPLACEMENTS: [Replacement; 3] = [Replacement::Drop, Replacement::Content, Replacement::Invalid];
const SEVERITIES: [Severity; 3] = [Severity::Info, Severity::Warning, Severity::Error];

/// Every read is bounds-checked: a damaged snapshot decodes to `None`, never a panic.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.b.get(self.at..end)?;
        self.at = end;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }
    fn bool(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_bits(self.u64()?))
    }
    /// A count of items at least `min` bytes each: larger than what is left means damage.
    fn count(&mut self, min: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n.saturating_mul(min) <= self.b.len() - self.at).then_some(n)
    }
    fn str(&mut self) -> Option<&'a str> {
        let n = self.u32()? as usize;
        utf8(self.take(n)?)
    }
    fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => f(self).map(Some),
            _ => None,
        }
    }
    fn opt_cs(&mut self) -> Option<Option<CompactString>> {
        self.opt(|r| r.str().map(CompactString::from))
    }
    /// [`Reader::opt_cs`] for a field whose value mostly repeats from one entry to the next:
    /// the same bytes as `seen`'s give a copy of its string (no UTF-8 check, no new string).
    fn opt_cs_seen(&mut self, seen: &mut Option<(&'a [u8], CompactString)>) -> Option<Option<CompactString>> {
        self.opt(|r| {
            let n = r.u32()? as usize;
            let bytes = r.take(n)?;
            match seen {
                Some((b, s)) if *b == bytes => Some(s.clone()),
                _ => {
                    let s = CompactString::from(utf8(bytes)?);
                    *seen = Some((bytes, s.clone()));
                    Some(s)
                }
            }
        })
    }
    fn opt_string(&mut self) -> Option<Option<String>> {
        self.opt(|r| r.str().map(str::to_owned))
    }
    fn opt_u64(&mut self) -> Option<Option<u64>> {
        self.opt(Self::u64)
    }
    fn opt_f64(&mut self) -> Option<Option<f64>> {
        self.opt(Self::f64)
    }
    fn stamp(&mut self) -> Option<FileStamp> {
        Some(FileStamp { len: self.u64()?, mtime_ns: self.u64()? as i64, ino: self.u64()? })
    }
    fn block_at(&mut self) -> Option<BlockAt> {
        Some(BlockAt { count: self.u32()?, at: self.u64()?, len: self.u32()?, sum: self.u64()? })
    }
    fn usage(&mut self) -> Option<Option<Usage>> {
        self.opt(|r| Some(Usage { input: r.f64()?, output: r.f64()?, cache_read: r.f64()?, cache_write: r.f64()?, total_tokens: r.f64()?, cost: r.f64()? }))
    }
    fn opt_header(&mut self) -> Option<Option<Header>> {
        self.opt(|r| {
            Some(Header {
                line: r.u32()?,
                version: r.opt_f64()?,
                id: r.opt_string()?,
                timestamp: r.opt_string()?,
                cwd: r.opt_string()?,
                parent_session: r.opt_string()?,
                v4: r.bool()?,
                raw: r.str()?.to_owned(),
            })
        })
    }
    fn kind(&mut self) -> Option<DiagKind> {
        let s = self.str()?;
        DiagKind::ALL.iter().copied().find(|k| k.as_str() == s)
    }
    fn diags(&mut self) -> Option<Vec<Diagnostic>> {
        let n = self.count(14)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let line = self.opt_u64()?.map(|l| u32::try_from(l).ok()).map_or(Some(None), |l| l.map(Some))?;
            let kind = self.kind()?;
            let severity = *SEVERITIES.get(self.u8()? as usize)?;
            out.push(Diagnostic { line, kind, severity, message: self.str()?.to_owned() });
        }
        Some(out)
    }
    fn scan(&mut self) -> Option<ScanState> {
        let next_line = self.u32()?;
        let parsed_values = self.u32()?;
        let crlf_seen = self.bool()?;
        let n = self.count(12)?;
        let mut diag_counts = std::collections::HashMap::with_capacity(n);
        for _ in 0..n {
            let k = self.kind()?;
            diag_counts.insert(k, self.u64()? as usize);
        }
        Some(ScanState {
            next_line,
            parsed_values,
            crlf_seen,
            diag_counts,
            blank_lines: self.u32()?,
            last_line_terminated: self.bool()?,
            seen_content: self.bool()?,
            tail_candidate: self.opt(|r| {
                Some(TailCandidate { number: r.u32()?, offset: r.u64()?, len: r.u32()?, text: r.str()?.to_owned(), error: r.str()?.to_owned() })
            })?,
        })
    }
    /// `n` little-endian u32s, each below `below` (or [`NONE`] when `none` allows it).
    fn u32s(&mut self, n: usize, below: u32, none: bool) -> Option<Vec<u32>> {
        let v = u32s_of(self.take(n.checked_mul(4)?)?);
        let bad = if none { v.iter().fold(false, |bad, &x| bad | (x >= below && x != NONE)) } else { v.iter().fold(false, |bad, &x| bad | (x >= below)) };
        (!bad).then_some(v)
    }
    fn bools(&mut self, n: usize) -> Option<Vec<bool>> {
        let b = self.take(n)?;
        b.iter().all(|&x| x <= 1).then(|| b.iter().map(|&x| x == 1).collect())
    }
    /// The tree of an index of `n` entries.
    fn tree(&mut self, n: usize) -> Option<Tree> {
        if self.u32()? as usize != n {
            return None;
        }
        let below = n as u32;
        let parent = self.u32s(n, below, true)?;
        let depth = self.u32s(n, u32::MAX, false)?;
        let pre = self.u32s(n, below, true)?;
        let post = self.u32s(n, below, true)?;
        let in_tree = self.bools(n)?;
        let in_cycle = self.bools(n)?;
        // Each entry's number of children, then all children: read in place (no copies).
        let counts = self.take(n.checked_mul(4)?)?;
        let total = le_u32s(counts).try_fold(0usize, |a, c| (c <= below).then(|| a.checked_add(c as usize)).flatten())?;
        let flat = self.take(total.checked_mul(4)?)?;
        if !le_u32s(flat).all(|c| c < below) {
            return None;
        }
        let mut children = Vec::with_capacity(n);
        pi_session_format::pages::huge_pages(&mut children);
        let mut at = 0;
        for c in le_u32s(counts) {
            let end = at + 4 * c as usize;
            children.push(children_of(&flat[at..end]));
            at = end;
        }
        let roots = {
            let k = self.count(4)?;
            self.u32s(k, below, false)?
        };
        let k = self.count(16)?;
        let mut labels = indexmap::IndexMap::with_capacity(k);
        for _ in 0..k {
            let id = CompactString::from(self.str()?);
            let text = self.str()?.to_owned();
            let (line, entry) = (self.u32()?, self.u32()?);
            labels.insert(id, LabelInfo { text, line, entry });
        }
        let name = self.opt_string()?;
        let leaf = match self.u8()? {
            0 => Leaf::Null,
            1 => Leaf::Entry(Some(self.u32()?).filter(|&i| i < below)?),
            _ => return None,
        };
        let diagnostics = self.diags()?;
        let k = self.count(4)?;
        let mut unresolved = std::collections::HashSet::with_capacity(k);
        for _ in 0..k {
            unresolved.insert(CompactString::from(self.str()?));
        }
        Some(Tree { parent, children, roots, in_tree, depth, pre, post, labels, name, leaf, diagnostics, in_cycle, unresolved })
    }
    /// An entry, and whether it is a message with a meta (left `None` for the caller to point at
    /// its place in the metas section).
    fn entry(&mut self) -> Option<(Entry, bool)> {
        let line = self.u32()?;
        let offset = self.u64()?;
        let len = self.u32()?;
        let ts = self.f64()?;
        let kind = match self.u8()? {
            255 => Kind::parse(self.str()?),
            k => KINDS.get(k as usize)?.clone(),
        };
        let id = self.opt_cs()?;
        let parent = match self.u8()? {
            0 => Parent::Null,
            1 => Parent::Missing,
            2 => Parent::Id(CompactString::from(self.str()?)),
            3 => Parent::Invalid,
            _ => return None,
        };
        let mut has_meta = false;
        let detail = self.detail(&mut has_meta)?;
        Some((Entry { line, offset, len, kind, id, parent, ts, detail }, has_meta))
    }
    fn detail(&mut self, has_meta: &mut bool) -> Option<Detail> {
        Some(match self.u8()? {
            0 => Detail::None,
            1 => {
                let role = match self.u8()? {
                    255 => Role::Other(self.str()?.into()),
                    r => ROLES.get(r as usize)?.clone(),
                };
                let msg_ts = self.opt_f64()?;
                // The caller points the message at its meta in the metas section.
                *has_meta = self.bool()?;
                Detail::Message { role, msg_ts, meta: None }
            }
            2 => Detail::ThinkingLevel(self.opt_cs()?),
            3 => Detail::ModelChange { provider: self.opt_cs()?, model_id: self.opt_cs()? },
            4 => Detail::Compaction {
                first_kept: self.opt_cs()?,
                first_kept_index: self.opt_u64()?.map(|v| v as i64),
                retained_tail: self.opt_u64()?.map(|v| u32::try_from(v).ok()).map_or(Some(None), |v| v.map(Some))?,
                system_message: self.bool()?,
                usage: self.usage()?.map(Box::new),
            },
            5 => Detail::BranchSummary { from_id: self.opt_cs()?, summary_truthy: self.bool()?, usage: self.usage()?.map(Box::new) },
            6 => Detail::Usage { usage: self.usage()?.map(Box::new) },
            7 => Detail::ContextEdit { target: self.opt_cs()?, replacement: *REPLACEMENTS.get(self.u8()? as usize)? },
            8 => Detail::Label { target: self.opt_cs()?, label: self.opt_string()? },
            9 => Detail::SessionInfo { name: self.opt_string()? },
            10 => Detail::Leaf { target: self.opt_cs()?, target_valid: self.bool()? },
            11 => Detail::CustomMessage { custom_type: self.opt_cs()? },
            12 => Detail::Custom { custom_type: self.opt_cs()? },
            _ => return None,
        })
    }
}

//! Parsing a file's lines: in file order on the reading thread, or, for a big file read alone,
//! ahead on the other cores while the in-order pass applies the batch before.

use pi_session_format::entry::{classify, classify_with, MessageMeta, Parsed};
use pi_session_format::json;
use pi_session_format::lines::{OwnedBatch, RawLine};
use pi_session_format::skeleton::ScanError;

/// Batches at least this big are parsed in parallel.
pub(super) const PARALLEL_BATCH: usize = 1024 * 1024;

/// The cores one file's read may parse on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cores {
    /// A big file's lines are parsed ahead on the other cores while the read goes on in order:
    /// one file opened alone.
    All,
    /// Every line parsed in order on the reading thread: for many files indexed at once, whose
    /// reads already keep every core busy (parsing ahead would only add its hand-offs).
    One,
}

/// A line parsed ahead of the in-order pass: the object's skeleton (`None`: JSON but not an
/// object), or why it is not JSON.
pub(super) struct Pre {
    pub(super) parsed: Result<Option<Parsed>, ScanError>,
    pub(super) lone_surrogate: bool,
    /// The line ends with `\r`: noted here, where its bytes are in the cache (the in-order
    /// pass reading a line's last byte itself missed the cache on almost every line).
    pub(super) ends_cr: bool,
}

/// Parses a line's text (as trimmed by the in-order pass): its skeleton, and whether it holds
/// a lone surrogate escape. A message's meta goes to `meta`, or without one into a box in the
/// entry.
#[inline]
pub(super) fn parse_text(n: u32, offset: u64, len: u32, text: &str, meta: Option<impl FnOnce(MessageMeta)>) -> (Result<Option<Parsed>, ScanError>, bool) {
    // The fields are scanned in place (they are over 500 bytes: no copy of them per line).
    let mut f = pi_session_format::json::LineFields::default();
    let mut surrogate = true;
    let parsed = pi_session_format::skeleton::scan_line_into(text, &mut f).map(|()| {
        surrogate = f.surrogate_escape;
        f.is_object.then(|| match meta {
            Some(meta) => classify_with(&f, n, offset, len, meta),
            None => classify(&f, n, offset, len),
        })
    });
    // The scanner saw every escape of a line that parses: without a surrogate escape there is
    // no lone one (the exact test runs only on the rare lines with one).
    (parsed, surrogate && json::has_lone_surrogate(text))
}

/// Parses the lines of a big batch on all cores into `into` (emptied first; small batches are
/// parsed in order and leave it empty). `into` is the list of a batch applied before: its
/// memory is used again (a fresh one per 4 MB batch was about 850 kB of new pages).
pub(super) fn parse_batch(b: &OwnedBatch, into: &mut Vec<Option<Pre>>) {
    if b.bytes() < PARALLEL_BATCH {
        into.clear();
        return;
    }
    use rayon::prelude::*;
    b.lines.par_iter().map(|s| pre_parse(&b.line(s))).collect_into_vec(into);
}

/// Parses a line ahead of the in-order pass when the pass would parse it unchanged: a complete
/// line of valid UTF-8 that starts with `{` and is not the file's first line.
fn pre_parse(line: &RawLine<'_>) -> Option<Pre> {
    if !line.terminated || line.offset == 0 || line.bytes.first() != Some(&b'{') {
        return None;
    }
    let text = simdutf8::basic::from_utf8(line.bytes).ok()?;
    // Parsed on another thread: a message keeps its meta in a box of its own.
    let (parsed, lone_surrogate) = parse_text(line.number, line.offset, line.bytes.len() as u32, text, None::<fn(MessageMeta)>);
    Some(Pre { parsed, lone_surrogate, ends_cr: line.bytes.last() == Some(&b'\r') })
}

//! One line per session for the list: the `pi-session list --json` shape.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use pi_session_format::diag::{DiagKind, Diagnostic, Severity};
use pi_session_format::entry::{Detail, Role};

use crate::context::BodyReader;
use crate::{ReadOnlyReason, Session};

/// A file and its summary (or why it could not be read).
pub type Indexed = (PathBuf, Result<SessionSummary, crate::Error>);

/// The list entry of one session file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    #[serde(with = "crate::pathstr::serde_path")]
    pub path: PathBuf,
    pub id: Option<String>,
    pub cwd: Option<String>,
    pub timestamp: Option<String>,
    pub version: Option<f64>,
    pub parent_session: Option<String>,
    pub name: Option<String>,
    pub entry_count: usize,
    pub leaf_id: Option<String>,
    pub first_user_message: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// Bytes on disk.
    pub size: u64,
    /// Milliseconds since the epoch: the newest message timestamp, else the header's, else mtime.
    pub modified: Option<f64>,
    pub message_count: usize,
    pub tokens: f64,
    pub cost: f64,
    /// Branch points as the default view draws them ([`Session::branch_points`]).
    pub branch_points: usize,
    pub read_only: Option<ReadOnlyReason>,
    /// Absolute `*.jsonl` paths named in the session's tool calls and results, with where
    /// ([`crate::forks::spawn::named_files`]): how a child written outside the roots is found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub named_files: Vec<crate::forks::spawn::NamedFile>,
}

impl SessionSummary {
    pub fn of(s: &Session, size: u64) -> SessionSummary {
        Self::summarise(s, size, None)
    }

    /// [`SessionSummary::of`] for a session indexed from `bytes` in memory.
    pub fn of_bytes(s: &Session, size: u64, bytes: &[u8]) -> SessionSummary {
        Self::summarise(s, size, Some(bytes))
    }

    fn summarise(s: &Session, size: u64, bytes: Option<&[u8]>) -> SessionSummary {
        let ix = &s.index;
        let h = ix.header.as_ref();
        let mut message_count = 0;
        let (mut tokens, mut cost) = (0.0, 0.0);
        let mut newest: Option<f64> = None;
        let mut first_user = None;
        for (i, e) in ix.entries.iter().enumerate() {
            // Tokens and cost as pi 1.6.0's `getSessionStats` adds them up (every entry of the
            // file, compacted history included).
            if let Some(u) = counted_usage(e) {
                tokens += u.tokens();
                cost += u.cost;
            }
            if let Detail::Message { role, msg_ts, .. } = &e.detail {
                message_count += 1;
                if matches!(role, Role::User | Role::Assistant) {
                    let t = msg_ts.unwrap_or(e.ts);
                    if !t.is_nan() {
                        newest = Some(newest.map_or(t, |n: f64| n.max(t)));
                    }
                }
                if first_user.is_none() && *role == Role::User {
                    first_user = Some(i as u32);
                }
            }
        }
        let header_ts = h.and_then(|h| h.timestamp.as_deref()).and_then(pi_session_format::js::parse_iso_ms);
        let mtime = (ix.stamp.mtime_ns > 0).then_some((ix.stamp.mtime_ns / 1_000_000) as f64);
        // pi's list: the text of the first user message that has any (text blocks joined by a
        // space), as written.
        let read_first_user = || first_user.and_then(|first| {
            let mut r = match bytes {
                Some(b) => BodyReader::from_memory(ix, b),
                None => BodyReader::open(ix).ok()?,
            };
            ix.entries[first as usize..]
                .iter()
                .enumerate()
                .filter(|(_, e)| e.is_user())
                .take(crate::session::FIRST_USER_LOOKS as usize)
                .find_map(|(k, _)| r.line(first + k as u32).ok().and_then(|t| crate::text::user_text_of_line(&t)).filter(|t| !t.is_empty()))
        });
        // Taken by the read, when it was (an index decoded from a snapshot reads the line).
        let first_user_message = match ix.first_user_text() {
            Some(t) => t.map(str::to_owned),
            None => read_first_user(),
        };
        SessionSummary {
            path: ix.path.clone(),
            id: h.and_then(|h| h.id.clone()),
            cwd: h.and_then(|h| h.cwd.clone()),
            timestamp: h.and_then(|h| h.timestamp.clone()),
            version: h.and_then(|h| h.version),
            parent_session: h.and_then(|h| h.parent_session.clone()),
            name: s.tree.name.clone(),
            entry_count: ix.entries.len(),
            leaf_id: s.leaf_id().map(str::to_string),
            first_user_message,
            diagnostics: s.diagnostics(),
            size,
            modified: newest.or(header_ts).or(mtime),
            message_count,
            tokens,
            cost,
            branch_points: s.branch_points(),
            read_only: ix.read_only(),
            named_files: crate::forks::spawn::named_files(s, bytes),
        }
    }

    /// A header-only summary from the first 16 KB (id, cwd, parent, first user message), for
    /// listing a file before its full index is built. Counts are zero.
    pub fn quick(path: &Path, size: u64) -> SessionSummary {
        use std::io::Read;
        let mut head = Vec::new();
        if let Ok(f) = std::fs::File::open(path) {
            let _ = f.take(16 * 1024).read_to_end(&mut head);
        }
        let end = head.iter().rposition(|&b| b == b'\n').map(|p| p + 1).unwrap_or(0);
        head.truncate(end);
        let s = Session::from_bytes(path, &head);
        let mut q = SessionSummary::of_bytes(&s, size, &head);
        q.entry_count = 0;
        q.message_count = 0;
        q.leaf_id = None;
        q.diagnostics.clear();
        q.branch_points = 0;
        q.named_files.clear();
        q
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    /// True when the file holds no pi session at all (no header anywhere and no line of a pi
    /// entry type).
    pub fn is_session(&self) -> bool {
        (self.id.is_some() || self.entry_count > 0) && !self.diagnostics.iter().any(|d| d.kind == DiagKind::NotASession && d.line.is_none())
    }
}

/// The usage an entry adds to a session's tokens and cost (one rule for the list, the
/// dashboard and anything else that sums usage).
/// It is pi 1.6.0's `getSessionStats` rule ([`crate::Entry::billed_usage`]); add up
/// [`pi_session_format::entry::Usage::tokens`], not `total_tokens`.
pub fn counted_usage(e: &crate::Entry) -> Option<&pi_session_format::entry::Usage> {
    e.billed_usage()
}

/// Summaries of `files` (path, size), indexed in parallel, biggest first; `progress(done, total)`
/// is called as files finish. Results come back in the order given.
pub fn index_all(files: Vec<(PathBuf, u64)>, progress: impl Fn(usize, usize) + Sync) -> Vec<Indexed> {
    let total = files.len();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i].1));
    let cores = cores_per_file(files.iter().map(|f| f.1));
    // One file per task: rayon otherwise runs a quarter of the list (the biggest files) as
    // one sequential piece that no idle core can take a file from (one of two cores sat idle
    // for the last 0.3 s of a 1.8 s index of 10,000 files).
    let mut out: Vec<(usize, Indexed)> = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| {
            let (path, size) = &files[i];
            let r = Session::open_on(path, cores(*size)).map(|s| SessionSummary::of(&s, *size));
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(n, total);
            (i, (path.clone(), r))
        })
        .collect();
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// The cores a listing's index pass reads each file on, by its size, for files of these sizes.
/// Enough files to keep every core busy: each file is read on one core (parsing a big one ahead
/// on the others would only add hand-offs). A few files: each on all of them. So is a file of
/// more than one core's share of the bytes (a root that is mostly one 165 MB session): on one
/// core it alone would set the time of the whole listing.
pub(crate) fn cores_per_file(sizes: impl Iterator<Item = u64>) -> impl Fn(u64) -> crate::session::Cores {
    use crate::session::Cores;
    let threads = rayon::current_num_threads() as u64;
    let (files, bytes) = sizes.fold((0u64, 0u64), |(n, b), s| (n + 1, b + s));
    move |size| if files <= 4 * threads || size.saturating_mul(threads) > bytes { Cores::All } else { Cores::One }
}

/// (path, size) of found files, as [`index_all`] takes them.
pub fn sizes(found: &[crate::scan::Found]) -> Vec<(PathBuf, u64)> {
    found.iter().map(|f| (f.path.clone(), f.size)).collect()
}

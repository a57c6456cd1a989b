//! Search without the index: every entry of the given files read and checked, as the index
//! would answer (the same text, filters and order within a file). Used for the files the index
//! does not hold yet (a first build under way or paused, a file changed since) and for every
//! file when the index is turned off; the results say how many files were read so.

use std::path::{Path, PathBuf};

use pi_session_format::entry::Kind;
use pi_session::summary::SessionSummary;
use pi_session::Session;
use rayon::prelude::*;

use crate::hits::{describe, IndexHit, SessionHits};
use crate::query::Query;
use crate::snippet::snippet;
use crate::text;

/// The hits of one file, newest line first, at most `limit + 1`, in a group (none without hits).
pub fn search_file(path: &Path, q: &Query, limit: usize) -> Option<SessionHits> {
    let bytes = std::fs::read(path).ok()?;
    // Complete lines only, as the index.
    let end = bytes.iter().rposition(|&b| b == b'\n').map(|p| p + 1).unwrap_or(0);
    let bytes = &bytes[..end];
    let s = Session::from_bytes(path, bytes);
    let sum = SessionSummary::of_bytes(&s, bytes.len() as u64, bytes);
    let has = |v: &Option<String>, want: &Option<String>| want.as_ref().is_none_or(|w| v.as_deref().is_some_and(|v| v.to_lowercase().contains(w.as_str())));
    if !has(&sum.cwd, &q.cwd) || !has(&sum.name, &q.name) {
        return None;
    }
    let terms: Vec<memchr::memmem::Finder<'_>> = q.terms.iter().map(|t| memchr::memmem::Finder::new(t.as_bytes())).collect();
    let mut hits = Vec::new();
    for e in s.index.entries.iter().rev() {
        if hits.len() > limit {
            break;
        }
        if e.id.is_none() || e.kind == Kind::Leaf {
            continue;
        }
        if q.after.is_some_and(|a| e.ts.is_nan() || e.ts < a) || q.before.is_some_and(|b| e.ts.is_nan() || e.ts >= b) {
            continue;
        }
        if let Some(l) = &q.label {
            if !s.tree.labels.get(e.id_str()).is_some_and(|x| x.text.to_lowercase().contains(l.as_str())) {
                continue;
            }
        }
        let line = &bytes[e.offset as usize..(e.offset + e.len as u64) as usize];
        let d = describe(e, line);
        if q.role.as_ref().is_some_and(|r| *r != d.role) || q.tool.as_ref().is_some_and(|t| !d.tools.contains(t)) || q.model.as_ref().is_some_and(|m| d.model.is_empty() || !d.model.to_lowercase().contains(m.as_str())) {
            continue;
        }
        if !q.terms.is_empty() {
            let low = text::lowercase(&d.text);
            if !terms.iter().all(|t| t.find(low.as_bytes()).is_some()) {
                continue;
            }
        }
        let (snip, hl) = snippet(&d.text, &q.terms);
        hits.push(IndexHit { id: e.id_str().to_string(), line: e.line, role: d.role, ts: (!e.ts.is_nan()).then_some(e.ts), snippet: snip, highlights: hl });
    }
    (!hits.is_empty()).then(|| SessionHits { path: pi_session::pathstr::encode(path), session_id: sum.id.clone(), title: pi_session::text::title_of(&sum), cwd: sum.cwd.clone(), hits })
}

/// The hits of `paths` (read on all cores), files newest modified first: the groups, and
/// whether more than `limit` hits matched.
pub fn search_files(paths: &[PathBuf], q: &Query, limit: usize) -> (Vec<SessionHits>, bool) {
    let mut by_time: Vec<(i64, &PathBuf)> = paths.iter().map(|p| (std::fs::metadata(p).ok().and_then(|m| m.modified().ok()).and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_nanos() as i64).unwrap_or(0), p)).collect();
    by_time.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let found: Vec<Option<SessionHits>> = by_time.par_iter().map(|(_, p)| search_file(p, q, limit)).collect();
    let mut out = Vec::new();
    let mut left = limit;
    let mut more = false;
    for mut g in found.into_iter().flatten() {
        if left == 0 {
            more = true;
            break;
        }
        if g.hits.len() > left {
            g.hits.truncate(left);
            more = true;
        }
        left -= g.hits.len();
        out.push(g);
    }
    (out, more)
}

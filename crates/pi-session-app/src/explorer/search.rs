//! Search: within one session (ids of matching entries) and across all sessions (snippets).

use pi_session::summary::SessionSummary;
use pi_session::text::{searchable_text, title_of};
use pi_session::{Error, Session};

use super::Explorer;
use crate::api::*;

impl Explorer {
    // ------------------------------------------------------------------ search

    /// Entries of one session whose text, label or tool name contains `text` (case-insensitive).
    pub fn find_in_session(&self, path: &str, text: &str) -> Result<FindResult, Error> {
        const CAP: usize = 10_000;
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let needle = text.to_lowercase();
        if needle.trim().is_empty() {
            return Ok(FindResult { ids: vec![], truncated: false });
        }
        let mut ids = Vec::new();
        let mut truncated = false;
        let bytes = std::fs::read(&s.index.path).map_err(|e| Error::io(&s.index.path, e))?;
        for (i, e) in s.index.entries.iter().enumerate() {
            if !s.tree.in_tree[i] {
                continue;
            }
            let label_hit = e.id.as_ref().and_then(|id| s.tree.labels.get(id)).is_some_and(|l| l.text.to_lowercase().contains(&needle));
            let hit = label_hit || {
                let line = bytes.get(e.offset as usize..(e.offset + e.len as u64) as usize).unwrap_or_default();
                entry_matches(e, line, &needle)
            };
            if hit {
                if ids.len() == CAP {
                    truncated = true;
                    break;
                }
                ids.push(e.id_str().to_string());
            }
        }
        Ok(FindResult { ids, truncated })
    }

    /// Message text, labels and session names across all sessions.
    pub fn search(&self, query: &str, limit: usize) -> SearchResult {
        use rayon::prelude::*;
        let snap = self.recent_snapshot();
        // With several roots, the merged listing (see multi.rs).
        let merged = self.is_multi().then(|| self.merged_summaries());
        let sessions = merged.as_deref().unwrap_or(&snap.listing.sessions);
        let needle = query.to_lowercase();
        if needle.trim().is_empty() {
            return SearchResult { query: query.into(), hits: vec![], truncated: false, files_searched: 0 };
        }
        let limit = limit.clamp(1, 1000);
        let mut per_file: Vec<(usize, Vec<SearchHit>)> = sessions
            .par_iter()
            .enumerate()
            // One more than the limit per file, so a file with more hits marks the result truncated.
            .map(|(k, sum)| (k, search_file(sum, &needle, limit + 1)))
            .collect();
        per_file.sort_by_key(|(k, _)| std::cmp::Reverse(sessions[*k].modified.map(|m| m as i64).unwrap_or(0)));
        let mut hits = Vec::new();
        let mut truncated = false;
        for (_, h) in per_file {
            for hit in h {
                if hits.len() >= limit {
                    truncated = true;
                    break;
                }
                hits.push(hit);
            }
        }
        SearchResult { query: query.into(), hits, truncated, files_searched: sessions.len() as u32 }
    }
}

/// Case-insensitive match of an entry's searchable text (message text, tool names and
/// arguments, summaries, names).
fn entry_matches(e: &pi_session::Entry, line: &[u8], needle: &str) -> bool {
    // Cheap prefilter on the raw bytes (ASCII case folding).
    if needle.is_ascii() {
        let lower: Vec<u8> = line.iter().map(|b| b.to_ascii_lowercase()).collect();
        if memchr::memmem::find(&lower, needle.as_bytes()).is_none() && !line.contains(&b'\\') {
            return false;
        }
    }
    let text = String::from_utf8_lossy(line);
    searchable_text(e, &text).to_lowercase().contains(needle)
}

fn search_file(sum: &SessionSummary, needle: &str, limit: usize) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    let title = title_of(sum);
    if let Some(n) = &sum.name {
        if let Some(h) = snippet(n, needle) {
            hits.push(SearchHit { path: pi_session::pathstr::encode(&sum.path), session_title: title.clone(), id: None, line: 1, field: HitField::Name, role: None, snippet: h.0, match_start: h.1, match_len: h.2 });
        }
    }
    let Ok(s) = Session::open(&sum.path) else { return hits };
    let Ok(bytes) = std::fs::read(&s.index.path) else { return hits };
    for (tid, l) in &s.tree.labels {
        if let Some(h) = snippet(&l.text, needle) {
            hits.push(SearchHit {
                path: pi_session::pathstr::encode(&sum.path),
                session_title: title.clone(),
                id: Some(tid.to_string()),
                line: s.index.entry(tid).map(|e| e.line).unwrap_or(l.line),
                field: HitField::Label,
                role: None,
                snippet: h.0,
                match_start: h.1,
                match_len: h.2,
            });
        }
    }
    for (i, e) in s.index.entries.iter().enumerate() {
        if hits.len() >= limit {
            break;
        }
        if !s.tree.in_tree[i] || e.kind.is_bookkeeping() {
            continue;
        }
        let line = bytes.get(e.offset as usize..(e.offset + e.len as u64) as usize).unwrap_or_default();
        if !entry_matches(e, line, needle) {
            continue;
        }
        let text = searchable_text(e, &String::from_utf8_lossy(line));
        if let Some(h) = snippet(&text, needle) {
            hits.push(SearchHit {
                path: pi_session::pathstr::encode(&sum.path),
                session_title: title.clone(),
                id: Some(e.id_str().to_string()),
                line: e.line,
                field: HitField::Message,
                role: e.role().and_then(|r| r.as_str()).map(str::to_string).or_else(|| Some(e.kind.as_str().to_string())),
                snippet: h.0,
                match_start: h.1,
                match_len: h.2,
            });
        }
    }
    hits
}

/// Text around the first case-insensitive match: (snippet, start, len) in UTF-16 units.
fn snippet(text: &str, needle: &str) -> Option<(String, u32, u32)> {
    let chars: Vec<char> = text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
    let lower: Vec<char> = chars.iter().map(|c| c.to_lowercase().next().unwrap_or(*c)).collect();
    let nd: Vec<char> = needle.chars().collect();
    if nd.is_empty() || nd.len() > lower.len() {
        return None;
    }
    let pos = (0..=lower.len() - nd.len()).find(|&k| lower[k..k + nd.len()] == nd[..])?;
    let from = pos.saturating_sub(60);
    let to = (pos + nd.len() + 100).min(chars.len());
    let mut snip: String = chars[from..to].iter().collect();
    let mut start: usize = chars[from..pos].iter().map(|c| c.len_utf16()).sum();
    if from > 0 {
        snip.insert(0, '…');
        start += 1;
    }
    if to < chars.len() {
        snip.push('…');
    }
    let len: usize = chars[pos..pos + nd.len()].iter().map(|c| c.len_utf16()).sum();
    Some((snip, start as u32, len as u32))
}

//! Helpers of the search tests: a generated corpus, and the answer of a query found by reading
//! every file (what the index must equal).
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pi_session_format::entry::Kind;
use pi_session::text::searchable_text;
use pi_session::text::line_value;
use pi_session::Session;
use pi_session_find::{Query, SearchIndex};
use serde_json::Value;

pub fn corpus(dir: &Path, files: usize, bytes: u64) -> PathBuf {
    pi_session_bench::corpus::generate(&pi_session_bench::corpus::Options { out: dir.to_path_buf(), seed: 7, files, total_bytes: bytes, big_entries: None, threads: 2, short: false }).unwrap();
    dir.join("sessions")
}

/// (path, entry id, line) of every entry the query matches, by reading every file.
pub fn brute_force(root: &Path, q: &Query) -> BTreeSet<(String, String, u32)> {
    let mut out = BTreeSet::new();
    for f in pi_session::scan::scan(root).files {
        let bytes = std::fs::read(&f.path).unwrap();
        let end = bytes.iter().rposition(|&b| b == b'\n').map(|p| p + 1).unwrap_or(0);
        let s = Session::from_bytes(&f.path, &bytes[..end]);
        let h = s.index.header.as_ref();
        let cwd = h.and_then(|h| h.cwd.clone()).unwrap_or_default().to_lowercase();
        let name = s.tree.name.clone().unwrap_or_default().to_lowercase();
        if q.cwd.as_ref().is_some_and(|c| !cwd.contains(c.as_str())) || q.name.as_ref().is_some_and(|n| !name.contains(n.as_str())) {
            continue;
        }
        for e in &s.index.entries {
            if e.id.is_none() || e.kind == Kind::Leaf {
                continue;
            }
            let line = String::from_utf8_lossy(&bytes[e.offset as usize..(e.offset + e.len as u64) as usize]).into_owned();
            let text = searchable_text(e, &line).to_lowercase();
            if !q.terms.iter().all(|t| text.contains(t.as_str())) {
                continue;
            }
            let v = line_value(&line);
            let role = v.pointer("/message/role").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| e.kind.as_str().to_string());
            let role = if e.kind == Kind::Message && v.pointer("/message/role").and_then(Value::as_str).is_none() { "message".to_string() } else { role };
            if q.role.as_ref().is_some_and(|r| *r != role) {
                continue;
            }
            if let Some(t) = &q.tool {
                let mut tools: Vec<String> = v.pointer("/message/toolName").and_then(Value::as_str).map(str::to_string).into_iter().collect();
                if role == "assistant" {
                    for b in v.pointer("/message/content").and_then(Value::as_array).into_iter().flatten() {
                        if b.get("type").and_then(Value::as_str) == Some("toolCall") {
                            tools.extend(b.get("name").and_then(Value::as_str).map(str::to_string));
                        }
                    }
                }
                if !tools.contains(t) {
                    continue;
                }
            }
            if let Some(m) = &q.model {
                let model = format!("{}/{}", v.pointer("/message/provider").and_then(Value::as_str).unwrap_or(""), v.pointer("/message/model").and_then(Value::as_str).unwrap_or("")).to_lowercase();
                if model == "/" || !model.contains(m.as_str()) {
                    continue;
                }
            }
            if let Some(l) = &q.label {
                if !s.tree.labels.get(e.id_str()).is_some_and(|x| x.text.to_lowercase().contains(l.as_str())) {
                    continue;
                }
            }
            if q.after.is_some_and(|a| e.ts.is_nan() || e.ts < a) || q.before.is_some_and(|b| e.ts.is_nan() || e.ts >= b) {
                continue;
            }
            out.insert((f.path.to_string_lossy().into_owned(), e.id_str().to_string(), e.line));
        }
    }
    out
}

pub fn indexed(ix: &SearchIndex, q: &str) -> BTreeSet<(String, String, u32)> {
    let r = ix.search(q, 10_000).unwrap();
    assert!(!r.truncated, "{q}: more than 10,000 hits; pick a narrower query");
    r.sessions.iter().flat_map(|s| s.hits.iter().map(move |h| (s.path.clone(), h.id.clone(), h.line))).collect()
}

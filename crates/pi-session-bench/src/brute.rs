//! The answer of a search query found by reading every file with the core alone (its JSON
//! tree, its `searchable_text`, its tree of labels): what the search index must equal. Used by
//! the index's tests and by `pi-search-bench`'s correctness count.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use pi_session::Kind;
use pi_session::text::searchable_text;
use pi_session::text::line_value;
use pi_session::Session;
use pi_session_find::Query;
use serde_json::Value;

/// What the queries ask of an entry, read once.
struct Seen<'a> {
    text: String,
    role: String,
    tools: Vec<String>,
    model: String,
    label: Option<String>,
    e: &'a pi_session::Entry,
}

fn seen<'a>(s: &Session, e: &'a pi_session::Entry, line: &str) -> Seen<'a> {
    let text = searchable_text(e, line).to_lowercase();
    let v = line_value(line);
    let role = v.pointer("/message/role").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| e.kind.as_str().to_string());
    let role = if e.kind == Kind::Message && v.pointer("/message/role").and_then(Value::as_str).is_none() { "message".to_string() } else { role };
    let mut tools: Vec<String> = v.pointer("/message/toolName").and_then(Value::as_str).map(str::to_string).into_iter().collect();
    if role == "assistant" {
        for b in v.pointer("/message/content").and_then(Value::as_array).into_iter().flatten() {
            if b.get("type").and_then(Value::as_str) == Some("toolCall") {
                tools.extend(b.get("name").and_then(Value::as_str).map(str::to_string));
            }
        }
    }
    let model = format!("{}/{}", v.pointer("/message/provider").and_then(Value::as_str).unwrap_or(""), v.pointer("/message/model").and_then(Value::as_str).unwrap_or("")).to_lowercase();
    let label = s.tree.labels.get(e.id_str()).map(|x| x.text.to_lowercase());
    Seen { text, role, tools, model, label, e }
}

fn holds(q: &Query, x: &Seen<'_>) -> bool {
    q.terms.iter().all(|t| x.text.contains(t.as_str()))
        && q.role.as_ref().is_none_or(|r| *r == x.role)
        && q.tool.as_ref().is_none_or(|t| x.tools.contains(t))
        && q.model.as_ref().is_none_or(|m| x.model != "/" && x.model.contains(m.as_str()))
        && q.label.as_ref().is_none_or(|l| x.label.as_ref().is_some_and(|t| t.contains(l.as_str())))
        && !q.after.is_some_and(|a| x.e.ts.is_nan() || x.e.ts < a)
        && !q.before.is_some_and(|b| x.e.ts.is_nan() || x.e.ts >= b)
}

/// For each file (complete lines only, as the index), the entries of each query it matches:
/// `f(file, query index, entry)`.
fn each_hit(path: &Path, queries: &[Query], mut f: impl FnMut(usize, &pi_session::Entry)) {
    let Ok(bytes) = std::fs::read(path) else { return };
    let end = bytes.iter().rposition(|&b| b == b'\n').map(|p| p + 1).unwrap_or(0);
    let s = Session::from_bytes(path, &bytes[..end]);
    let h = s.index.header.as_ref();
    let cwd = h.and_then(|h| h.cwd.clone()).unwrap_or_default().to_lowercase();
    let name = s.tree.name.clone().unwrap_or_default().to_lowercase();
    let file_ok: Vec<bool> = queries.iter().map(|q| !(q.cwd.as_ref().is_some_and(|c| !cwd.contains(c.as_str())) || q.name.as_ref().is_some_and(|n| !name.contains(n.as_str())))).collect();
    if !file_ok.iter().any(|&b| b) {
        return;
    }
    for e in &s.index.entries {
        if e.id.is_none() || e.kind == Kind::Leaf {
            continue;
        }
        let line = String::from_utf8_lossy(&bytes[e.offset as usize..(e.offset + e.len as u64) as usize]).into_owned();
        let x = seen(&s, e, &line);
        for (k, q) in queries.iter().enumerate() {
            if file_ok[k] && holds(q, &x) {
                f(k, e);
            }
        }
    }
}

/// (path as listed, entry id, line) of every entry the query matches, by reading every file
/// under `root` (complete lines only, as the index).
pub fn brute_force(root: &Path, q: &Query) -> BTreeSet<(String, String, u32)> {
    let mut out = BTreeSet::new();
    for f in pi_session::scan::scan(root).files {
        let p = pi_session::pathstr::encode(&f.path);
        each_hit(&f.path, std::slice::from_ref(q), |_, e| {
            out.insert((p.clone(), e.id_str().to_string(), e.line));
        });
    }
    out
}

/// The answers of many queries in one read of every file (on all cores): per query, the
/// (file, line) of each hit, files numbered as in the returned list (paths as listed).
pub fn brute_force_many(root: &Path, queries: &[Query]) -> (Vec<String>, Vec<HashSet<(u32, u32)>>) {
    use rayon::prelude::*;
    let files: Vec<_> = pi_session::scan::scan(root).files;
    let per_file: Vec<Vec<(usize, u32)>> = files
        .par_iter()
        .map(|f| {
            let mut v = Vec::new();
            each_hit(&f.path, queries, |k, e| v.push((k, e.line)));
            v
        })
        .collect();
    let mut out = vec![HashSet::new(); queries.len()];
    for (i, hits) in per_file.into_iter().enumerate() {
        for (k, line) in hits {
            out[k].insert((i as u32, line));
        }
    }
    (files.iter().map(|f| pi_session::pathstr::encode(&f.path)).collect(), out)
}

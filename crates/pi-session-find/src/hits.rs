//! What a search answers (its hits, by session) and what an entry is searched by (role, tools,
//! model, searchable text): shared by the index ([`crate::index`]) and the reading of files it
//! does not hold ([`crate::scan`]).

use serde::Serialize;

use crate::text;

/// One hit.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct IndexHit {
    pub id: String,
    pub line: u32,
    /// The message role, or the entry type for other entries.
    pub role: String,
    pub ts: Option<f64>,
    pub snippet: String,
    /// `[start, length]` of each highlighted match in `snippet`, in UTF-16 code units.
    pub highlights: Vec<[u32; 2]>,
}

/// The hits of one session.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SessionHits {
    pub path: String,
    pub session_id: Option<String>,
    pub title: String,
    pub cwd: Option<String>,
    pub hits: Vec<IndexHit>,
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

/// `line` as text: borrowed when it is valid UTF-8 (checked with SIMD: the lossy decoder, and
/// the standard library's check too, each took a few percent of an index build), else with
/// U+FFFD for each invalid sequence.
pub(crate) fn as_text(line: &[u8]) -> std::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(line) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(line),
    }
}

pub(crate) fn describe(e: &pi_session::Entry, line: &[u8]) -> Described {
    let line_text = as_text(line);
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
    let v = pi_session::text::line_value(&as_text(line));
    v.pointer("/message/content")
        .and_then(|c| c.as_array())
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("toolCall"))
        .filter_map(|b| b.get("name").and_then(|n| n.as_str()).map(str::to_string))
        .collect()
}

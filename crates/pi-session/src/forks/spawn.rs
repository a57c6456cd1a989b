//! Spawned sessions: where in its parent a child that shares no entry with it was started.
//!
//! A subagent run (pi-subagents' `SessionManager.create(cwd, dir, { parentSession })`, an
//! extension's `newSession({ parentSession })`) is a session of its own whose header names the
//! parent; it shares no entry with it, so it has no fork point. The entry that started it is
//! found by the child's session id, or the uuid or name of its file, in the arguments of a tool
//! call or the text of a tool result of the parent (docs/format.md, "Forks and spawned
//! sessions"):
//!
//! * only the parent's assistant messages and tool results are read, by offset from the index,
//!   at most [`SCAN_BYTES`] of them; a line is parsed only when its bytes hold a name;
//! * a name in a tool call's arguments gives that assistant entry and that tool call; a name in
//!   a tool result's text (or its `details`) gives the assistant entry whose tool call the result
//!   answers (the result's own id when that entry is not found) and the result's `toolCallId`;
//! * the earliest mention in file order wins (later ones read or resume the child);
//! * failing any mention, the last parent entry at or before the child's header time, marked as
//!   a guess.
//!
//! The same pass collects the session files a session names ([`named_files`]): absolute paths
//! ending in `.jsonl` in its tool calls and results, which is how a child written outside the
//! sessions roots is found.

use std::io::Read;
use std::path::Path;

use memchr::memmem;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::BodyReader;
use pi_session_format::entry::Role;
use crate::Session;

/// Bytes of tool calls and results read per parent when looking for its spawns.
pub const SCAN_BYTES: u64 = 64 << 20;

/// Session files named per session, at most.
pub const NAMED_MAX: usize = 64;

/// The entry of a parent that started a spawned child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpawnSite {
    /// The assistant entry holding the tool call (or the tool result naming the child, when the
    /// call is not found; or, for a guess, the last entry before the child began).
    pub entry_id: String,
    /// The tool call's id (`toolCall.id`, a result's `toolCallId`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// No tool call or result names the child: the last entry before its header time.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guess: bool,
}

/// A child to look for in its parent.
#[derive(Debug, Clone)]
pub struct Child<'a> {
    /// Header `id`.
    pub id: Option<&'a str>,
    pub path: &'a Path,
    /// Header time (ms since the epoch).
    pub created: Option<f64>,
}

impl Child<'_> {
    /// The strings that name this child: its session id, the uuid of its file name, its file
    /// name (when it is not pi's `<time>_<uuid>.jsonl`). Short strings name nothing reliably.
    fn needles(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |s: &str| {
            if s.len() >= 8 && !out.iter().any(|o| o == s) {
                out.push(s.to_string());
            }
        };
        if let Some(id) = self.id {
            add(id);
        }
        let name = self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match uuid_in_name(&name) {
            Some(u) => add(u),
            None => add(&name),
        }
        out
    }
}

/// The uuid of a session file name `<time>_<uuid>.jsonl` (or a bare `<uuid>.jsonl`), when the
/// name holds one (8-4-4-4-12 hex digits).
pub fn uuid_in_name(path_or_name: &str) -> Option<&str> {
    let name = path_or_name.rsplit(['/', '\\']).next()?;
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    let id = stem.rsplit_once('_').map_or(stem, |(_, id)| id);
    is_uuid(id).then_some(id)
}

fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36 && b.iter().enumerate().all(|(i, &c)| if matches!(i, 8 | 13 | 18 | 23) { c == b'-' } else { c.is_ascii_hexdigit() })
}

/// Where each child (same order) was spawned in `parent`: one bounded pass over the parent's
/// tool calls and results for all of them.
pub fn spawn_sites(parent: &Session, children: &[Child<'_>]) -> Vec<Option<SpawnSite>> {
    let needles: Vec<Vec<String>> = children.iter().map(Child::needles).collect();
    let finders: Vec<Vec<memmem::Finder<'_>>> = needles.iter().map(|ns| ns.iter().map(|n| memmem::Finder::new(n.as_bytes())).collect()).collect();
    let mut out: Vec<Option<SpawnSite>> = vec![None; children.len()];
    let ix = &parent.index;
    if let Ok(mut reader) = BodyReader::open(ix) {
        let mut budget = SCAN_BYTES;
        for (i, e) in ix.entries.iter().enumerate() {
            if out.iter().all(Option::is_some) || budget == 0 {
                break;
            }
            if !matches!(e.role(), Some(Role::Assistant | Role::ToolResult)) || !parent.tree.in_tree[i] {
                continue;
            }
            budget = budget.saturating_sub(e.len as u64);
            let Ok(text) = reader.line(i as u32) else { continue };
            let mut parsed: Option<Option<Value>> = None;
            for (k, fs) in finders.iter().enumerate() {
                if out[k].is_some() || !fs.iter().any(|f| f.find(text.as_bytes()).is_some()) {
                    continue;
                }
                let Some(v) = parsed.get_or_insert_with(|| serde_json::from_str::<Value>(&text).ok()) else { break };
                let msg = &v["message"];
                out[k] = match e.role() {
                    Some(Role::Assistant) => tool_call_naming(msg, &needles[k]).map(|call| SpawnSite { entry_id: e.id_str().to_string(), tool_call_id: call, guess: false }),
                    _ => result_names(msg, &needles[k]).then(|| {
                        let call = msg["toolCallId"].as_str().map(str::to_string);
                        let holder = call.as_deref().and_then(|c| assistant_with_call(parent, &mut reader, i as u32, c));
                        SpawnSite { entry_id: holder.unwrap_or_else(|| e.id_str().to_string()), tool_call_id: call, guess: false }
                    }),
                };
            }
        }
    }
    for (k, c) in children.iter().enumerate() {
        if out[k].is_none() {
            out[k] = guess(parent, c.created);
        }
    }
    out
}

/// The id of the first tool call block of an assistant message whose arguments hold a needle.
fn tool_call_naming(msg: &Value, needles: &[String]) -> Option<Option<String>> {
    msg["content"]
        .as_array()?
        .iter()
        .filter(|b| b["type"] == "toolCall")
        .find(|b| holds(&b["arguments"], needles))
        .map(|b| b["id"].as_str().map(str::to_string))
}

/// True when a tool result's text (or its `details`) holds a needle.
fn result_names(msg: &Value, needles: &[String]) -> bool {
    let text = match &msg["content"] {
        Value::String(s) => needles.iter().any(|n| s.contains(n.as_str())),
        Value::Array(parts) => parts.iter().filter(|p| p["type"] == "text").any(|p| p["text"].as_str().is_some_and(|t| needles.iter().any(|n| t.contains(n.as_str())))),
        _ => false,
    };
    text || holds(&msg["details"], needles)
}

/// True when any string inside `v` holds a needle (iterative: arguments may nest deeply).
fn holds(v: &Value, needles: &[String]) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) if needles.iter().any(|n| s.contains(n.as_str())) => return true,
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    false
}

/// The assistant entry above tool result `i` (up its parent chain, a few steps) whose tool
/// calls include `call`.
fn assistant_with_call(s: &Session, reader: &mut BodyReader<'_>, i: u32, call: &str) -> Option<String> {
    let mut cur = s.tree.parent[i as usize];
    for _ in 0..64 {
        let e = s.index.entries.get(cur as usize)?;
        if matches!(e.role(), Some(Role::Assistant)) {
            let text = reader.line(cur).ok()?;
            if text.contains(call) {
                let v: Value = serde_json::from_str(&text).ok()?;
                let has = v["message"]["content"].as_array().is_some_and(|c| c.iter().any(|b| b["type"] == "toolCall" && b["id"] == call));
                if has {
                    return Some(e.id_str().to_string());
                }
            }
        }
        cur = s.tree.parent[cur as usize];
    }
    None
}

/// The last entry of the parent (file order) at or before the child's header time.
fn guess(parent: &Session, created: Option<f64>) -> Option<SpawnSite> {
    let t = created?;
    let ix = &parent.index;
    let i = (0..ix.entries.len()).rev().find(|&i| parent.tree.in_tree[i] && !ix.entries[i].kind.is_bookkeeping() && ix.entries[i].ts <= t)?;
    Some(SpawnSite { entry_id: ix.entries[i].id_str().to_string(), tool_call_id: None, guess: true })
}

/// A session file a session names in a tool call or result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NamedFile {
    /// The absolute path as written.
    pub path: String,
    /// Where it is named, as for a spawn.
    #[serde(flatten)]
    pub site: SpawnSite,
}

/// The absolute `*.jsonl` paths named in the tool calls and results of a session, with where
/// (at most [`NAMED_MAX`], each once): one sequential read of the file for `.jsonl`, and only
/// the lines it is found in are parsed. `bytes`: the file's bytes when they are in memory.
pub fn named_files(s: &Session, bytes: Option<&[u8]>) -> Vec<NamedFile> {
    let ix = &s.index;
    // No line after the header holds `.jsonl` (seen while the file was indexed).
    if !ix.names_files() {
        return Vec::new();
    }
    let owned;
    let data: &[u8] = match bytes {
        Some(b) => b,
        None => {
            // Files without a tool result have nothing to name.
            if !ix.entries.iter().any(|e| matches!(e.role(), Some(Role::ToolResult | Role::Assistant))) {
                return Vec::new();
            }
            let mut buf = Vec::new();
            let Ok(f) = std::fs::File::open(&ix.path) else { return Vec::new() };
            if f.take(ix.read_len).read_to_end(&mut buf).is_err() {
                return Vec::new();
            }
            owned = buf;
            &owned
        }
    };
    let finder = memmem::Finder::new(b".jsonl");
    let mut out: Vec<NamedFile> = Vec::new();
    let mut last_line = usize::MAX;
    for at in finder.find_iter(data) {
        if out.len() >= NAMED_MAX {
            break;
        }
        // The entry whose line holds this byte.
        let k = ix.entries.partition_point(|e| e.offset <= at as u64);
        let Some(i) = k.checked_sub(1) else { continue };
        let e = &ix.entries[i];
        if i == last_line || at as u64 >= e.offset + e.len as u64 || !matches!(e.role(), Some(Role::Assistant | Role::ToolResult)) {
            continue;
        }
        last_line = i;
        let Some(line) = data.get(e.offset as usize..(e.offset + e.len as u64) as usize) else { continue };
        let Ok(v) = serde_json::from_slice::<Value>(line) else { continue };
        let msg = &v["message"];
        let mut found: Vec<(String, Option<String>)> = Vec::new();
        if matches!(e.role(), Some(Role::Assistant)) {
            for b in msg["content"].as_array().into_iter().flatten().filter(|b| b["type"] == "toolCall") {
                for p in jsonl_paths(&b["arguments"]) {
                    found.push((p, b["id"].as_str().map(str::to_string)));
                }
            }
        } else {
            let call = msg["toolCallId"].as_str().map(str::to_string);
            let mut paths = jsonl_paths(&msg["content"]);
            paths.extend(jsonl_paths(&msg["details"]));
            found.extend(paths.into_iter().map(|p| (p, call.clone())));
        }
        for (p, call) in found {
            if out.len() < NAMED_MAX && !out.iter().any(|o| o.path == p) {
                out.push(NamedFile { path: p, site: SpawnSite { entry_id: e.id_str().to_string(), tool_call_id: call, guess: false } });
            }
        }
    }
    out
}

/// Absolute paths ending in `.jsonl` inside the strings of `v`.
fn jsonl_paths(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                for (end, _) in s.match_indices(".jsonl") {
                    let end = end + ".jsonl".len();
                    // The path runs back to a space, a quote or a bracket.
                    let start = s[..end].rfind(|c: char| c.is_whitespace() || "\"'`<>()[]{},;=".contains(c)).map_or(0, |p| p + 1);
                    let p = &s[start..end];
                    let next_ok = s[end..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != '-');
                    if next_ok && is_absolute(p) && !out.iter().any(|o: &String| o == p) {
                        out.push(p.to_string());
                    }
                }
            }
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    out
}

/// Absolute on this system or as a Windows path (`C:\…`, `\\server\…`).
fn is_absolute(p: &str) -> bool {
    Path::new(p).is_absolute() || p.starts_with('/') || p.starts_with("\\\\") || (p.len() > 2 && p.as_bytes()[1] == b':' && matches!(p.as_bytes()[2], b'\\' | b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_of_names() {
        assert_eq!(uuid_in_name("/s/--w--/2026-01-01T00-00-00-000Z_0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"), Some("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"));
        assert_eq!(uuid_in_name("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"), Some("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"));
        assert_eq!(uuid_in_name("/s/parent.jsonl"), None);
        assert_eq!(uuid_in_name("/s/x_0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5.jsonl"), None);
    }

    #[test]
    fn paths_in_text() {
        let v = serde_json::json!([{"type": "text", "text": "Session: /tmp/sub/2026_abc.jsonl (done). See `/a b/x.jsonl`, ./rel.jsonl and /x.jsonlines"}]);
        assert_eq!(jsonl_paths(&v), vec!["/tmp/sub/2026_abc.jsonl".to_string()]);
        let w = serde_json::json!({"file": "C:\\Users\\a\\s.jsonl"});
        assert_eq!(jsonl_paths(&w), vec!["C:\\Users\\a\\s.jsonl".to_string()]);
    }
}

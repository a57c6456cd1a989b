//! The rows of one session file: its `sessions` row and its new `entries` and `usage` rows.
//! Figures (tokens, cost, counts) come from the core ([`SessionSummary`], [`Entry::usage`]),
//! so they equal `pi-session list --json`.

use std::collections::HashSet;
use std::path::Path;

use pi_session::summary::SessionSummary;
use pi_session::{Entry, Parent, Session};
use serde_json::Value;

use crate::table::{Cell, Columns, Ty};
use crate::ArchiveError;

pub const SESSIONS: Columns = &[
    ("id", Ty::Str),
    ("path", Ty::Str),
    ("root", Ty::Str),
    ("cwd", Ty::Str),
    ("name", Ty::Str),
    ("created", Ty::Ts),
    ("modified", Ty::Ts),
    ("leaf_id", Ty::Str),
    ("parent_session", Ty::Str),
    ("parent_path", Ty::Str),
    ("parent_id", Ty::Str),
    ("link_status", Ty::Str),
    ("kind", Ty::Str),
    ("fork_point_id", Ty::Str),
    ("spawned_by", Ty::Str),
    ("spawned_by_tool_call", Ty::Str),
    ("version", Ty::F64),
    ("entry_count", Ty::I64),
    ("message_count", Ty::I64),
    ("branch_points", Ty::I64),
    ("tokens", Ty::F64),
    ("cost", Ty::F64),
    ("own_tokens", Ty::F64),
    ("own_cost", Ty::F64),
    ("size", Ty::I64),
    ("export_seq", Ty::I64),
    ("exported_at", Ty::Ts),
];

pub const ENTRIES: Columns = &[
    ("session_id", Ty::Str),
    ("path", Ty::Str),
    ("id", Ty::Str),
    ("parent_id", Ty::Str),
    ("type", Ty::Str),
    ("role", Ty::Str),
    ("timestamp", Ty::Ts),
    ("provider", Ty::Str),
    ("model", Ty::Str),
    ("input_tokens", Ty::F64),
    ("output_tokens", Ty::F64),
    ("cache_read_tokens", Ty::F64),
    ("cache_write_tokens", Ty::F64),
    ("total_tokens", Ty::F64),
    ("cost", Ty::F64),
    ("tool_name", Ty::Str),
    ("line", Ty::I64),
    ("byte_offset", Ty::I64),
    ("byte_length", Ty::I64),
    ("on_active_path", Ty::Bool),
    ("hidden_by_compaction", Ty::Bool),
    ("text", Ty::Str),
    ("export_seq", Ty::I64),
];

pub const USAGE: Columns = &[
    ("session_id", Ty::Str),
    ("path", Ty::Str),
    ("id", Ty::Str),
    ("parent_id", Ty::Str),
    ("timestamp", Ty::Ts),
    ("kind", Ty::Str),
    ("provider", Ty::Str),
    ("model", Ty::Str),
    ("note", Ty::Str),
    ("input_tokens", Ty::F64),
    ("output_tokens", Ty::F64),
    ("cache_read_tokens", Ty::F64),
    ("cache_write_tokens", Ty::F64),
    ("total_tokens", Ty::F64),
    ("cost", Ty::F64),
    ("line", Ty::I64),
    ("byte_offset", Ty::I64),
    ("export_seq", Ty::I64),
];

pub(crate) struct FileCtx<'a> {
    #[allow(dead_code)]
    pub machine: &'a str,
    pub root: &'a Path,
    pub with_text: bool,
    pub seq: u64,
    pub exported_at: i64,
    /// The file's lineage over the exported roots (relinked parents, fork or spawn), and its
    /// parent's session id.
    pub link: Option<&'a pi_session::forks::ForkInfo>,
    pub parent_id: Option<&'a str>,
}

pub(crate) struct FileRows {
    pub session: Vec<Cell>,
    pub session_month: String,
    /// (month, row)
    pub entries: Vec<(String, Vec<Cell>)>,
    pub usage: Vec<(String, Vec<Cell>)>,
    /// Entries starting before this byte are exported after this run.
    pub end: u64,
    pub size: u64,
}

fn s(v: Option<&str>) -> Cell {
    Cell::S(v.map(str::to_string))
}

fn ms(v: f64) -> Option<i64> {
    (!v.is_nan() && v.is_finite()).then_some(v as i64)
}

fn month_of(ms: Option<i64>) -> Option<String> {
    chrono::DateTime::from_timestamp_millis(ms?).map(|d| d.format("%Y-%m").to_string())
}

fn parent_str(p: &Parent) -> Option<&str> {
    match p {
        Parent::Id(id) => Some(id.as_ref()),
        _ => None,
    }
}

/// The text parts of a message line's `content` (a string or `[{type:"text",text}]`),
/// or a summary's `summary`.
fn text_of(line: &Value) -> Option<String> {
    let m = line.get("message");
    let content = m.and_then(|m| m.get("content")).or_else(|| line.get("content"));
    let mut out = String::new();
    match content {
        Some(Value::String(t)) => out.push_str(t),
        Some(Value::Array(parts)) => {
            for p in parts {
                if let Some(t) = p.get("text").and_then(Value::as_str) {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(t);
                }
            }
        }
        _ => {}
    }
    if out.is_empty() {
        if let Some(t) = line.get("summary").and_then(Value::as_str) {
            out.push_str(t);
        }
    }
    (!out.is_empty()).then_some(out)
}

fn num(v: Option<&Value>) -> Option<f64> {
    v.and_then(Value::as_f64)
}

/// Reads `path` and returns its rows for entries starting at or after byte `from`.
pub(crate) fn file_rows(path: &Path, from: u64, ctx: &FileCtx<'_>) -> Result<FileRows, ArchiveError> {
    let size = std::fs::metadata(path).map_err(|e| ArchiveError::io(path, e))?.len();
    let session = Session::open(path)?;
    let sum = SessionSummary::of(&session, size);
    let ix = &session.index;
    let seq = ctx.seq as i64;
    let created = sum.timestamp.as_deref().and_then(pi_session_format::js::parse_iso_ms).and_then(ms);
    let session_month = month_of(created).or_else(|| month_of(sum.modified.and_then(ms))).unwrap_or_else(|| "unknown".into());
    let path_str = path.to_string_lossy().into_owned();
    let link = ctx.link;
    let session_row = vec![
        s(sum.id.as_deref()),
        Cell::S(Some(path_str.clone())),
        Cell::S(Some(ctx.root.to_string_lossy().into_owned())),
        s(sum.cwd.as_deref()),
        s(sum.name.as_deref()),
        Cell::T(created),
        Cell::T(sum.modified.and_then(ms)),
        s(sum.leaf_id.as_deref()),
        s(sum.parent_session.as_deref()),
        Cell::S(link.and_then(|f| f.parent_path.as_deref()).map(|p| p.to_string_lossy().into_owned())),
        s(ctx.parent_id),
        Cell::S(link.filter(|f| f.parent_session.is_some()).and_then(|f| serde_json::to_value(f.status).ok()).and_then(|v| v.as_str().map(str::to_string))),
        Cell::S(link.and_then(|f| f.kind).and_then(|k| serde_json::to_value(k).ok()).and_then(|v| v.as_str().map(str::to_string))),
        s(link.and_then(|f| f.fork_point_id.as_deref())),
        s(link.and_then(|f| f.spawned_by.as_deref())),
        s(link.and_then(|f| f.spawned_by_tool_call.as_deref())),
        Cell::F(sum.version),
        Cell::I(Some(sum.entry_count as i64)),
        Cell::I(Some(sum.message_count as i64)),
        Cell::I(Some(sum.branch_points as i64)),
        Cell::F(Some(sum.tokens)),
        Cell::F(Some(sum.cost)),
        Cell::F(Some(link.map_or(sum.tokens, |f| f.own_tokens))),
        Cell::F(Some(link.map_or(sum.cost, |f| f.own_cost))),
        Cell::I(Some(size as i64)),
        Cell::I(Some(seq)),
        Cell::T(Some(ctx.exported_at)),
    ];
    let new: Vec<u32> = (0..ix.entries.len() as u32).filter(|&i| ix.entries[i as usize].offset >= from).collect();
    let mut out = FileRows { session: session_row, session_month: session_month.clone(), entries: Vec::new(), usage: Vec::new(), end: from, size };
    if new.is_empty() {
        return Ok(out);
    }
    let active: HashSet<u32> = session.tree.active_path().into_iter().collect();
    let hidden: HashSet<u32> = session.context(session.tree.leaf).hidden.into_iter().collect();
    let needs_json = |e: &Entry| ctx.with_text || e.kind.as_str() == "usage";
    let bytes = if new.iter().any(|&i| needs_json(&ix.entries[i as usize])) { Some(std::fs::read(path).map_err(|e| ArchiveError::io(path, e))?) } else { None };
    let json_of = |e: &Entry| -> Option<Value> {
        let b = bytes.as_ref()?;
        let line = b.get(e.offset as usize..e.offset as usize + e.len as usize)?;
        serde_json::from_slice(line).ok()
    };
    for &i in &new {
        let e = &ix.entries[i as usize];
        let ts = ms(e.ts);
        let month = month_of(ts).unwrap_or_else(|| session_month.clone());
        let meta = e.meta();
        // The usage pi 1.6's getSessionStats counts (a `usage` entry's, a compaction's, ...):
        // the entries' sums per session equal `list`.
        let u = e.billed_usage();
        let line_json = if needs_json(e) { json_of(e) } else { None };
        let text = if ctx.with_text { line_json.as_ref().and_then(text_of) } else { None };
        out.entries.push((
            month.clone(),
            vec![
                s(sum.id.as_deref()),
                Cell::S(Some(path_str.clone())),
                s(e.id.as_deref()),
                s(parent_str(&e.parent)),
                Cell::S(Some(e.kind.as_str().to_string())),
                s(e.role().and_then(|r| r.as_str())),
                Cell::T(ts),
                s(meta.and_then(|m| m.provider.as_deref())),
                s(meta.and_then(|m| m.model.as_deref())),
                Cell::F(u.map(|u| u.input)),
                Cell::F(u.map(|u| u.output)),
                Cell::F(u.map(|u| u.cache_read)),
                Cell::F(u.map(|u| u.cache_write)),
                Cell::F(u.map(|u| u.tokens())),
                Cell::F(u.map(|u| u.cost)),
                s(meta.and_then(|m| m.tool_name.as_deref())),
                Cell::I(Some(e.line as i64)),
                Cell::I(Some(e.offset as i64)),
                Cell::I(Some(e.len as i64)),
                Cell::B(Some(active.contains(&i))),
                Cell::B(Some(hidden.contains(&i))),
                Cell::S(text),
                Cell::I(Some(seq)),
            ],
        ));
        if e.kind.as_str() == "usage" {
            // pi 1.6 `usage` entries: {kind, provider, model, usage: {input, output, cacheRead,
            // cacheWrite, totalTokens, cost: {total}}, note}.
            let v = line_json.unwrap_or(Value::Null);
            let uv = v.get("usage");
            let g = |k: &str| num(uv.and_then(|u| u.get(k)));
            out.usage.push((
                month,
                vec![
                    s(sum.id.as_deref()),
                    Cell::S(Some(path_str.clone())),
                    s(e.id.as_deref()),
                    s(parent_str(&e.parent)),
                    Cell::T(ts),
                    s(v.get("kind").and_then(Value::as_str)),
                    s(v.get("provider").and_then(Value::as_str)),
                    s(v.get("model").and_then(Value::as_str)),
                    s(v.get("note").and_then(Value::as_str)),
                    Cell::F(g("input")),
                    Cell::F(g("output")),
                    Cell::F(g("cacheRead")),
                    Cell::F(g("cacheWrite")),
                    Cell::F(g("totalTokens")),
                    Cell::F(num(uv.and_then(|u| u.get("cost")).and_then(|c| c.get("total")))),
                    Cell::I(Some(e.line as i64)),
                    Cell::I(Some(e.offset as i64)),
                    Cell::I(Some(seq)),
                ],
            ));
        }
        out.end = out.end.max(e.offset + e.len as u64 + 1).min(ix.read_len.max(e.offset + e.len as u64));
    }
    Ok(out)
}

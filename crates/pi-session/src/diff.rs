//! Branch diff: two nodes of one session, or of two sessions of one fork family, compared from
//! their common ancestor (docs/cli.md "`pi-session diff`").
//!
//! The common ancestor is the deepest entry of A's root→A path whose id is on B's path: in one
//! file that is the tree's lowest common ancestor; across a fork (`parentSession`), ids are
//! copied into the new file, so it is the fork point (also for a slim fork, whose copied path
//! starts later). Two different files must be one fork family: their `parentSession` chains
//! meet (or one is in the other's chain), else `not-related`.
//!
//! Each side lists its entries after the ancestor (messages, tool calls with arguments), the
//! files its edit and write tool calls name, and its tokens and cost. Rows align the sides by
//! turn (a user message starts a turn). The contexts the model saw at the two tips (pi's
//! `buildSessionContext`, see [`crate::context`]) are compared message by message.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use pi_session_format::entry::{Detail, Kind, Role, Usage};

use crate::context::BodyReader;
use crate::{Error, Leaf, ModelRef, Session};

/// At most this many steps per side are listed (files, tokens and cost cover all of them).
pub const MAX_STEPS: usize = 2000;
/// Text previews are cut at this many characters.
pub const PREVIEW_CHARS: usize = 240;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct BranchDiff {
    /// The deepest common entry; `None` when the two paths share no entry (both start at the
    /// root).
    pub ancestor: Option<Ancestor>,
    pub a: DiffSide,
    pub b: DiffSide,
    /// The sides' steps aligned by turn: indexes into `a.steps` and `b.steps`.
    pub rows: Vec<DiffRow>,
    /// The contexts at the two tips, message by message.
    pub context: Vec<ContextRow>,
    /// Messages of the two contexts that are equal.
    pub context_shared: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Ancestor {
    pub id: String,
    /// Its depth on A's path and on B's path (0 = first entry).
    pub depth_a: usize,
    pub depth_b: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DiffSide {
    pub file: String,
    pub tip: String,
    /// The tip entry, for naming the side: its role (or type) and its plain text (cut).
    pub tip_role: String,
    pub tip_text: String,
    /// Entries after the ancestor, up to the tip (at most [`MAX_STEPS`]).
    pub steps: Vec<DiffStep>,
    /// Entries after the ancestor, all of them.
    pub step_count: usize,
    /// Paths named by edit and write tool calls, in order of first appearance.
    pub files_touched: Vec<String>,
    /// Sum of the assistant messages' usage after the ancestor.
    pub usage: Usage,
    /// The context at the tip.
    pub context_messages: usize,
    pub model: Option<ModelRef>,
    pub thinking_level: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DiffStep {
    pub id: String,
    /// The entry type (`message`, `compaction`, `model_change`, …).
    pub kind: crate::EntryType,
    pub role: Option<crate::MessageRole>,
    /// Plain text, cut at [`PREVIEW_CHARS`] characters.
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    /// Turn number on this side (a user message starts the next turn).
    pub turn: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ToolCall {
    pub name: String,
    /// The call's arguments as JSON text, cut at 2000 characters.
    pub arguments: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DiffRow {
    pub turn: usize,
    pub a: Option<usize>,
    pub b: Option<usize>,
}

/// One message of the contexts at the tips: in both (`same`), only in A's, or only in B's.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ContextRow {
    /// `same`, `a` or `b`.
    pub op: String,
    /// Position in A's and B's context.
    pub a: Option<usize>,
    pub b: Option<usize>,
    pub role: String,
    pub text: String,
}

/// Compares node `a` of session `sa` with node `b` of session `sb` (the same session or one of
/// its fork family).
pub fn diff(sa: &Session, a: &str, sb: &Session, b: &str) -> Result<BranchDiff, Error> {
    let na = sa.node(a)?;
    let nb = sb.node(b)?;
    let same_file = canon(&sa.index.path) == canon(&sb.index.path);
    if !same_file && !one_family(&sa.index.path, &sb.index.path) {
        return Err(Error::NotRelated { a: sa.index.path.clone(), b: sb.index.path.clone() });
    }
    if sa.tree.path_hits_cycle(na) || sb.tree.path_hits_cycle(nb) {
        let (s, id) = if sa.tree.path_hits_cycle(na) { (sa, a) } else { (sb, b) };
        return Err(Error::InCycle { path: s.index.path.clone(), id: id.to_string() });
    }
    let pa = sa.tree.path_to(na);
    let pb = sb.tree.path_to(nb);
    let on_b: std::collections::HashMap<&str, usize> = pb.iter().enumerate().map(|(k, &i)| (sb.id_of(i), k)).collect();
    let found = pa.iter().enumerate().rev().find_map(|(k, &i)| on_b.get(sa.id_of(i)).map(|&kb| (k, kb)));
    let ancestor = found.map(|(ka, kb)| Ancestor { id: sa.id_of(pa[ka]).to_string(), depth_a: ka, depth_b: kb });
    let (from_a, from_b) = found.map(|(ka, kb)| (ka + 1, kb + 1)).unwrap_or((0, 0));

    let (side_a, msgs_a) = side(sa, na, &pa[from_a..])?;
    let (side_b, msgs_b) = side(sb, nb, &pb[from_b..])?;
    let rows = align(&side_a.steps, &side_b.steps);
    let (context, context_shared) = context_rows(&msgs_a, &msgs_b);
    Ok(BranchDiff { ancestor, a: side_a, b: side_b, rows, context, context_shared })
}

fn canon(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The file and the files its `parentSession` chain names (resolved; at most 64).
fn chain(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![canon(path)];
    while out.len() < 64 {
        let last = out.last().expect("not empty").clone();
        let Some(parent) = header_parent(&last) else { break };
        let p = Path::new(&parent);
        let p = if p.is_absolute() { p.to_path_buf() } else { last.parent().map(|d| d.join(p)).unwrap_or_else(|| p.to_path_buf()) };
        let p = canon(&p);
        if out.contains(&p) {
            break;
        }
        out.push(p);
    }
    out
}

/// `parentSession` of a file's header (its first line), read without loading the file.
fn header_parent(path: &Path) -> Option<String> {
    // A header is small; a first line of more than 1 MiB is no header we follow.
    let f = std::fs::File::open(path).ok()?;
    let mut line = String::new();
    BufReader::new(f.take(1 << 20)).read_line(&mut line).ok()?;
    let v: Value = serde_json::from_str(line.trim_matches(pi_session_format::js::is_js_space)).ok()?;
    (v.get("type")?.as_str()? == "session").then_some(())?;
    v.get("parentSession")?.as_str().map(str::to_string)
}

/// Two files are one fork family when their `parentSession` chains meet.
pub fn one_family(a: &Path, b: &Path) -> bool {
    let ca = chain(a);
    chain(b).iter().any(|p| ca.contains(p))
}

fn side(s: &Session, tip: u32, steps_path: &[u32]) -> Result<(DiffSide, Vec<Value>), Error> {
    let mut reader = BodyReader::open(&s.index)?;
    let mut steps = Vec::new();
    let mut files: Vec<String> = Vec::new();
    let mut usage = Usage::default();
    let mut turn = 0;
    for (k, &i) in steps_path.iter().enumerate() {
        let e = &s.index.entries[i as usize];
        if e.is_user() && k > 0 {
            turn += 1;
        }
        if let (Some(u), Some(Role::Assistant)) = (e.usage(), e.role()) {
            usage.input += u.input;
            usage.output += u.output;
            usage.cache_read += u.cache_read;
            usage.cache_write += u.cache_write;
            usage.total_tokens += u.total_tokens;
            usage.cost += u.cost;
        }
        let needs_body = matches!(e.kind, Kind::Message | Kind::CustomMessage | Kind::BranchSummary | Kind::Compaction);
        let v: Value = if needs_body { serde_json::from_str(&reader.line(i)?).unwrap_or(Value::Null) } else { Value::Null };
        let calls = tool_calls(&v);
        for c in &calls {
            if is_file_tool(&c.0) {
                if let Some(p) = c.1.get("path").or_else(|| c.1.get("file_path")).and_then(|p| p.as_str()) {
                    if !files.iter().any(|f| f == p) {
                        files.push(p.to_string());
                    }
                }
            }
        }
        if steps.len() < MAX_STEPS {
            steps.push(DiffStep {
                id: s.id_of(i).to_string(),
                kind: crate::EntryType::from(&e.kind),
                role: crate::MessageRole::of(e),
                text: step_text(e, &v),
                tool_calls: calls.iter().map(|(n, a)| ToolCall { name: n.clone(), arguments: cut(&a.to_string(), 2000) }).collect(),
                turn,
            });
        }
    }
    let tip_entry = &s.index.entries[tip as usize];
    let tip_text = cut(&crate::text::preview(tip_entry, Some(&reader.line(tip)?)).text, 200);
    let tip_role = tip_entry.role().and_then(|r| r.as_str()).unwrap_or(tip_entry.kind.as_str()).to_string();
    let plan = s.context(Leaf::Entry(tip));
    let msgs: Vec<Value> = plan.materialize(&s.index)?.iter().map(|m| serde_json::from_str(m.get()).unwrap_or(Value::Null)).collect();
    Ok((
        DiffSide {
            file: crate::pathstr::encode(&s.index.path),
            tip: s.id_of(tip).to_string(),
            tip_role,
            tip_text,
            steps,
            step_count: steps_path.len(),
            files_touched: files,
            usage,
            context_messages: msgs.len(),
            model: plan.model.clone(),
            thinking_level: plan.thinking_level.clone(),
        },
        msgs,
    ))
}

/// Tools whose `path` argument is a file the call changes.
fn is_file_tool(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(n.as_str(), "edit" | "write" | "multi_edit" | "multiedit" | "str_replace" | "create")
}

fn tool_calls(line: &Value) -> Vec<(String, Value)> {
    let Some(Value::Array(blocks)) = line.get("message").and_then(|m| m.get("content")) else { return Vec::new() };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("toolCall"))
        .map(|b| (b.get("name").and_then(|n| n.as_str()).unwrap_or("?").to_string(), b.get("arguments").cloned().unwrap_or(Value::Null)))
        .collect()
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

fn step_text(e: &crate::Entry, v: &Value) -> String {
    let text = match (&e.kind, &e.detail) {
        (Kind::Message, _) => v.get("message").map(message_text).unwrap_or_default(),
        (Kind::CustomMessage, _) => v.get("content").map(crate::text::content_text).unwrap_or_default(),
        (Kind::BranchSummary, _) | (Kind::Compaction, _) => v.get("summary").and_then(|s| s.as_str()).unwrap_or("").to_string(),
        (_, Detail::ModelChange { provider, model_id }) => format!("{}/{}", provider.as_deref().unwrap_or("?"), model_id.as_deref().unwrap_or("?")),
        (_, Detail::ThinkingLevel(l)) => l.as_deref().unwrap_or("?").to_string(),
        (_, Detail::Label { target, label }) => format!("{} → {}", target.as_deref().unwrap_or("?"), label.as_deref().unwrap_or("(cleared)")),
        (_, Detail::SessionInfo { name }) => name.clone().unwrap_or_default(),
        _ => String::new(),
    };
    crate::text::fold(&text, PREVIEW_CHARS)
}

fn message_text(m: &Value) -> String {
    match m.get("role").and_then(|r| r.as_str()) {
        Some("compactionSummary" | "branchSummary") => m.get("summary").and_then(|s| s.as_str()).unwrap_or("").to_string(),
        Some("bashExecution") => m.get("command").and_then(|s| s.as_str()).unwrap_or("").to_string(),
        _ => m.get("content").map(crate::text::content_text).unwrap_or_default(),
    }
}

/// Pairs the steps turn by turn: turn `t`'s steps of A beside turn `t`'s steps of B.
fn align(a: &[DiffStep], b: &[DiffStep]) -> Vec<DiffRow> {
    let turns = a.iter().chain(b).map(|s| s.turn + 1).max().unwrap_or(0);
    let mut rows = Vec::new();
    let (mut ia, mut ib) = (0, 0);
    for t in 0..turns {
        let sa = ia;
        while ia < a.len() && a[ia].turn == t {
            ia += 1;
        }
        let sb = ib;
        while ib < b.len() && b[ib].turn == t {
            ib += 1;
        }
        for k in 0..(ia - sa).max(ib - sb) {
            rows.push(DiffRow { turn: t, a: (sa + k < ia).then_some(sa + k), b: (sb + k < ib).then_some(sb + k) });
        }
    }
    rows
}

/// The two contexts as a message-level diff: common prefix and suffix, then a longest common
/// subsequence of the middle (when it is small enough; else the middles differ whole).
fn context_rows(a: &[Value], b: &[Value]) -> (Vec<ContextRow>, usize) {
    let row = |op: &str, ia: Option<usize>, ib: Option<usize>, m: &Value| ContextRow {
        op: op.to_string(),
        a: ia,
        b: ib,
        role: m.get("role").and_then(|r| r.as_str()).unwrap_or("?").to_string(),
        text: crate::text::fold(&message_text(m), PREVIEW_CHARS),
    };
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..].iter().rev().zip(b[pre..].iter().rev()).take_while(|(x, y)| x == y).count();
    let (ma, mb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut out: Vec<ContextRow> = (0..pre).map(|k| row("same", Some(k), Some(k), &a[k])).collect();
    let mut shared = pre + suf;
    if ma.len().saturating_mul(mb.len()) <= 4_000_000 {
        // lcs[i][j]: length of the LCS of ma[i..] and mb[j..].
        let w = mb.len() + 1;
        let mut lcs = vec![0u32; (ma.len() + 1) * w];
        for i in (0..ma.len()).rev() {
            for j in (0..mb.len()).rev() {
                lcs[i * w + j] = if ma[i] == mb[j] { lcs[(i + 1) * w + j + 1] + 1 } else { lcs[(i + 1) * w + j].max(lcs[i * w + j + 1]) };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < ma.len() || j < mb.len() {
            if i < ma.len() && j < mb.len() && ma[i] == mb[j] {
                out.push(row("same", Some(pre + i), Some(pre + j), &ma[i]));
                shared += 1;
                i += 1;
                j += 1;
            } else if i < ma.len() && (j == mb.len() || lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) {
                out.push(row("a", Some(pre + i), None, &ma[i]));
                i += 1;
            } else {
                out.push(row("b", None, Some(pre + j), &mb[j]));
                j += 1;
            }
        }
    } else {
        out.extend(ma.iter().enumerate().map(|(k, m)| row("a", Some(pre + k), None, m)));
        out.extend(mb.iter().enumerate().map(|(k, m)| row("b", None, Some(pre + k), m)));
    }
    out.extend((0..suf).map(|k| row("same", Some(a.len() - suf + k), Some(b.len() - suf + k), &a[a.len() - suf + k])));
    (out, shared)
}

/// A node named on the command line or in the UI: `ID` (in the default file), `FILE:ID`, or
/// `FILE:` (that file's leaf). Returns the file and the id (`None`: the file's leaf).
pub fn parse_node_spec<'a>(spec: &'a str, default_file: &'a Path) -> (PathBuf, Option<&'a str>) {
    match spec.rsplit_once(':') {
        Some((file, id)) if !file.is_empty() => (PathBuf::from(file), (!id.is_empty()).then_some(id)),
        _ => (default_file.to_path_buf(), Some(spec)),
    }
}

/// Text for a terminal: the ancestor, each side's totals, the aligned steps in two columns and
/// the context diff.
pub fn ascii(d: &BranchDiff, width: usize) -> String {
    use std::fmt::Write;
    let col = width.saturating_sub(3) / 2;
    let mut s = String::new();
    match &d.ancestor {
        Some(an) => writeln!(s, "common ancestor {} (depth {} in A, {} in B)", an.id, an.depth_a, an.depth_b).ok(),
        None => writeln!(s, "no common entry: both sides from the start").ok(),
    };
    for (name, side) in [("A", &d.a), ("B", &d.b)] {
        let model = side.model.as_ref().map(|m| format!("{}/{}", m.provider.as_deref().unwrap_or("?"), m.model_id.as_deref().unwrap_or("?"))).unwrap_or_else(|| "none".into());
        writeln!(
            s,
            "{name}: {} @ {} — {} entries; tokens in {} out {}; cost ${:.4}; model {model}, thinking {}",
            side.file,
            side.tip,
            side.step_count,
            side.usage.input,
            side.usage.output,
            side.usage.cost,
            side.thinking_level.as_deref().unwrap_or("?")
        )
        .ok();
        writeln!(s, "   files touched: {}", if side.files_touched.is_empty() { "none".to_string() } else { side.files_touched.join(", ") }).ok();
    }
    let cell = |side: &DiffSide, i: Option<usize>| -> String {
        let Some(st) = i.map(|i| &side.steps[i]) else { return String::new() };
        let mut t = format!("{}: {}", st.role.as_ref().map_or(st.kind.as_str(), |r| r.as_str()), st.text);
        for c in &st.tool_calls {
            let _ = write!(t, " [{} {}]", c.name, c.arguments);
        }
        pad(&crate::text::fold(&t, col), col)
    };
    writeln!(s, "\n{} | B", pad("A", col)).ok();
    writeln!(s, "{}-+-{}", "-".repeat(col), "-".repeat(col)).ok();
    let mut last_turn = None;
    for r in &d.rows {
        if last_turn.is_some() && last_turn != Some(r.turn) {
            writeln!(s, "{} |", pad("", col)).ok();
        }
        last_turn = Some(r.turn);
        writeln!(s, "{} | {}", cell(&d.a, r.a), cell(&d.b, r.b).trim_end()).ok();
    }
    writeln!(s, "\ncontext at the tips: A {} messages, B {} messages, {} shared", d.a.context_messages, d.b.context_messages, d.context_shared).ok();
    for r in &d.context {
        let mark = match r.op.as_str() {
            "same" => "  ",
            "a" => "A ",
            _ => "B ",
        };
        writeln!(s, "{mark}{:<18} {}", r.role, crate::text::fold(&r.text, width.saturating_sub(22))).ok();
    }
    s
}

fn pad(t: &str, n: usize) -> String {
    let len = t.chars().count();
    if len >= n {
        t.chars().take(n).collect()
    } else {
        format!("{t}{}", " ".repeat(n - len))
    }
}

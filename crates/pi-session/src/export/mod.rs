//! Export of a path or a whole session tree as one self-contained HTML file or as Markdown.
//!
//! Both renderers draw the same model ([`Doc`]): entries turned into plain-text [`Block`]s.
//! No session text is ever written unescaped (see [`html`] and [`md`] for the rules).
//!
//! * **Path** (`Scope::Path`): the root→leaf path. A compaction is a card; the path entries it
//!   summarises (those before its `firstKeptEntryId`, not already folded into an earlier
//!   compaction) are folded inside the card in a `<details>` (Markdown: a quoted list).
//! * **Tree** (`Scope::Tree`): every entry of the tree, depth-first in pi's child order; each
//!   branch below a branch point is a section (HTML: `<details>`, open on the active path).
//!   Compactions are cards with their summary; the entries they summarise stay in place,
//!   because in a tree they are shared with the other branches.

pub mod html;
pub mod md;

use serde_json::Value;
use pi_session_format::entry::{Detail, Kind};

use crate::context::BodyReader;
use crate::text::line_value;
use crate::{Error, Leaf, Session};

/// Where an export was written (the window), or the export itself (`pi-session serve`: the
/// browser downloads `text` as `out`, a file name).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ExportResult {
    pub out: String,
    pub bytes: u32,
    /// The export's text, when nothing was written on the serving machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub text: Option<String>,
}

/// The format of an export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum ExportFormat {
    /// One self-contained page, no script.
    Html,
    /// Markdown that carries no live HTML.
    Md,
}

impl ExportFormat {
    /// The file name's extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Html => "html",
            ExportFormat::Md => "md",
        }
    }
}

/// What to export.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    /// The root→leaf path of this leaf.
    Path(Leaf),
    /// Every branch.
    Tree,
}

/// A piece of an entry, as plain text.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Text(String),
    /// Preformatted (tool arguments, tool output, bash); `lang` is a hint only.
    Code { lang: &'static str, body: String },
    /// A small caption (tool name, stop reason).
    Note(String),
}

/// One entry, rendered.
#[derive(Debug, Clone)]
pub struct Item {
    pub id: String,
    pub line: u32,
    /// `user`, `assistant`, `toolResult`, `compaction`, … (drives the style).
    pub class: String,
    pub title: String,
    pub label: Option<String>,
    pub ts: Option<String>,
    pub blocks: Vec<Block>,
    /// For a compaction on a path: the entries it summarises.
    pub folded: Vec<Item>,
}

/// A section of the tree export: a run of entries, then the branches below its last one.
#[derive(Debug, Clone)]
pub struct Section {
    pub items: Vec<Item>,
    pub branches: Vec<Branch>,
}

#[derive(Debug, Clone)]
pub struct Branch {
    pub on_active_path: bool,
    pub title: String,
    pub section: Section,
}

#[derive(Debug, Clone)]
pub struct Doc {
    pub title: String,
    pub meta: Vec<(String, String)>,
    pub body: DocBody,
}

#[derive(Debug, Clone)]
pub enum DocBody {
    Path(Vec<Item>),
    Tree(Vec<Section>),
}

pub fn to_html(s: &Session, scope: Scope) -> Result<String, Error> {
    Ok(html::render(&build(s, scope)?))
}

pub fn to_markdown(s: &Session, scope: Scope) -> Result<String, Error> {
    Ok(md::render(&build(s, scope)?))
}

/// Builds the model of an export.
pub fn build(s: &Session, scope: Scope) -> Result<Doc, Error> {
    let mut reader = BodyReader::open(&s.index)?;
    let h = s.index.header.as_ref();
    let title = s.tree.name.clone().unwrap_or_else(|| format!("Session {}", h.and_then(|h| h.id.as_deref()).unwrap_or("")));
    let mut meta = Vec::new();
    if let Some(h) = h {
        for (k, v) in [("id", &h.id), ("cwd", &h.cwd), ("started", &h.timestamp), ("parent session", &h.parent_session)] {
            if let Some(v) = v {
                meta.push((k.to_string(), v.clone()));
            }
        }
    }
    meta.push(("file".into(), s.index.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default()));
    let body = match scope {
        Scope::Path(leaf) => {
            let nodes = match leaf {
                Leaf::Null => Vec::new(),
                Leaf::Entry(i) => s.tree.path_to(i),
            };
            DocBody::Path(path_items(s, &mut reader, &nodes)?)
        }
        Scope::Tree => {
            let active: std::collections::HashSet<u32> = s.tree.active_path().into_iter().collect();
            let mut out = Vec::new();
            for &r in &s.tree.roots {
                out.push(section(s, &mut reader, r, &active)?);
            }
            DocBody::Tree(out)
        }
    };
    Ok(Doc { title, meta, body })
}

fn shown(kind: &Kind) -> bool {
    !kind.is_bookkeeping()
}

/// Path items with compaction folding.
fn path_items(s: &Session, reader: &mut BodyReader<'_>, nodes: &[u32]) -> Result<Vec<Item>, Error> {
    // folded_into[k] = position of the compaction that summarises path position k.
    let mut folded_into: Vec<Option<usize>> = vec![None; nodes.len()];
    for (p, &i) in nodes.iter().enumerate() {
        if let Detail::Compaction { first_kept: Some(k), .. } = &s.index.entries[i as usize].detail {
            let kept = nodes[..p].iter().position(|&n| s.index.entries[n as usize].id.as_ref() == Some(k)).unwrap_or(p);
            for slot in folded_into.iter_mut().take(kept) {
                if slot.is_none() {
                    *slot = Some(p);
                }
            }
        }
    }
    let mut items: Vec<Item> = Vec::new();
    let mut pending: Vec<(usize, Item)> = Vec::new();
    for (p, &i) in nodes.iter().enumerate() {
        let e = &s.index.entries[i as usize];
        if !shown(&e.kind) {
            continue;
        }
        let mut it = item(s, reader, i)?;
        if let Some(c) = folded_into[p] {
            pending.push((c, it));
            continue;
        }
        if e.kind == Kind::Compaction {
            let (mine, rest): (Vec<_>, Vec<_>) = pending.into_iter().partition(|(c, _)| *c == p);
            pending = rest;
            it.folded = mine.into_iter().map(|(_, x)| x).collect();
        }
        items.push(it);
    }
    Ok(items)
}

fn section(s: &Session, reader: &mut BodyReader<'_>, start: u32, active: &std::collections::HashSet<u32>) -> Result<Section, Error> {
    let mut items = Vec::new();
    let mut cur = start;
    loop {
        if shown(&s.index.entries[cur as usize].kind) {
            items.push(item(s, reader, cur)?);
        }
        let kids: Vec<u32> = s.tree.children[cur as usize].to_vec();
        let visible: Vec<u32> = kids.iter().copied().filter(|&k| shown(&s.index.entries[k as usize].kind) || !s.tree.children[k as usize].is_empty()).collect();
        match visible.len() {
            0 => return Ok(Section { items, branches: vec![] }),
            1 => cur = visible[0],
            _ => {
                let mut branches = Vec::new();
                for (n, &k) in visible.iter().enumerate() {
                    let sec = section(s, reader, k, active)?;
                    let first = sec.items.first().map(|i| i.title.clone()).unwrap_or_default();
                    branches.push(Branch { on_active_path: active.contains(&k), title: format!("Branch {} of {} — {}", n + 1, visible.len(), first), section: sec });
                }
                return Ok(Section { items, branches });
            }
        }
    }
}

fn s_of(v: &Value, k: &str) -> String {
    v.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

/// One entry as blocks of plain text.
pub fn item(s: &Session, reader: &mut BodyReader<'_>, i: u32) -> Result<Item, Error> {
    let e = &s.index.entries[i as usize];
    let v = line_value(&reader.line(i)?);
    let mut blocks = Vec::new();
    let mut class = e.kind.as_str().to_string();
    let title;
    match &e.kind {
        Kind::Message => {
            let m = v.get("message").unwrap_or(&Value::Null);
            let role = m.get("role").and_then(Value::as_str).unwrap_or("message").to_string();
            class = role.clone();
            let content = m.get("content").unwrap_or(&Value::Null);
            match role.as_str() {
                "assistant" => {
                    title = match (m.get("provider").and_then(Value::as_str), m.get("model").and_then(Value::as_str)) {
                        (Some(p), Some(mo)) => format!("Assistant ({p}/{mo})"),
                        (_, Some(mo)) => format!("Assistant ({mo})"),
                        _ => "Assistant".into(),
                    };
                    match content {
                        Value::String(t) => blocks.push(Block::Text(t.clone())),
                        Value::Array(a) => {
                            for b in a {
                                match b.get("type").and_then(Value::as_str) {
                                    Some("text") => blocks.push(Block::Text(s_of(b, "text"))),
                                    Some("thinking") => blocks.push(Block::Code { lang: "thinking", body: s_of(b, "thinking") }),
                                    Some("toolCall") => {
                                        blocks.push(Block::Note(format!("Tool call: {}", s_of(b, "name"))));
                                        blocks.push(Block::Code { lang: "json", body: serde_json::to_string_pretty(b.get("arguments").unwrap_or(&Value::Null)).unwrap_or_default() });
                                    }
                                    _ => {}
                                }
                            }
                        }
                        _ => {}
                    }
                    if let Some(err) = m.get("errorMessage").and_then(Value::as_str) {
                        blocks.push(Block::Note(format!("Error: {err}")));
                    }
                }
                "toolResult" => {
                    title = format!("Tool result: {}", s_of(m, "toolName"));
                    blocks.push(Block::Code { lang: "", body: crate::text::content_text(content) });
                }
                "bashExecution" => {
                    title = "Bash".into();
                    blocks.push(Block::Code { lang: "sh", body: format!("$ {}\n{}", s_of(m, "command"), s_of(m, "output")) });
                }
                "user" => {
                    title = "User".into();
                    blocks.push(Block::Text(crate::text::content_text(content)));
                }
                other => {
                    title = if other.is_empty() { "Message".into() } else { other.to_string() };
                    blocks.push(Block::Text(crate::text::content_text(content)));
                }
            }
        }
        Kind::CustomMessage => {
            title = format!("Custom message: {}", s_of(&v, "customType"));
            blocks.push(Block::Text(crate::text::content_text(v.get("content").unwrap_or(&Value::Null))));
        }
        Kind::Compaction => {
            title = "Compaction".into();
            blocks.push(Block::Text(s_of(&v, "summary")));
        }
        Kind::BranchSummary => {
            title = "Branch summary".into();
            blocks.push(Block::Text(s_of(&v, "summary")));
        }
        Kind::ModelChange => {
            title = format!("Model: {}/{}", s_of(&v, "provider"), s_of(&v, "modelId"));
        }
        Kind::ThinkingLevelChange => {
            title = format!("Thinking level: {}", s_of(&v, "thinkingLevel"));
        }
        other => {
            title = other.as_str().to_string();
        }
    }
    Ok(Item {
        id: e.id_str().to_string(),
        line: e.line,
        class,
        title,
        label: s.tree.labels.get(e.id_str()).map(|l| l.text.clone()),
        ts: v.get("timestamp").and_then(Value::as_str).map(str::to_string),
        blocks,
        folded: Vec::new(),
    })
}

/// Writes an export to `out` crash-safely (temporary file beside it, fsync, rename). Refuses a
/// `.jsonl` target, so an export can never land on a session file.
pub fn write_out(out: &std::path::Path, text: &str) -> Result<(), Error> {
    if out.extension().is_some_and(|e| e.eq_ignore_ascii_case("jsonl")) {
        return Err(Error::Invalid(format!("{}: refusing to write an export over a .jsonl file", out.display())));
    }
    out.file_name().ok_or_else(|| Error::Invalid(format!("{}: not a file name", out.display())))?;
    crate::atomic::replace(out, text.as_bytes()).map_err(|e| Error::io(out, e))
}

//! What the LLM sees at a node: pi's `buildSessionContext` (docs/format.md), as a plan over
//! entry indexes, then materialised into pi's message objects by reading bodies by offset.
//!
//! One reader serves both dialects. **Rule:** a file that holds any entry only pi 1.x writes
//! (a `usage` or `context_edit` entry, a `system` message, a compaction with `systemMessage` or
//! `usage`, a branch summary with `usage`: [`crate::Entry::is_pi1_only`]) was written by pi 1.x
//! and gets pi 1.6.0's context rules; any other file gets pi 0.73.1's. The two differ on the
//! same bytes only where pi 0.73.1 has nothing to say (those entries) and on missing or null
//! message content (0.73.1 passes it on verbatim, 1.6.0 makes it `[]`, or `""` for a system
//! message). The 1.x rules on top of 0.73.1's:
//! - a compaction emits its `systemMessage` first, then its summary;
//! - `system` messages inside a compaction's kept range are left out;
//! - for each target, the latest `context_edit` among the context entries replaces the target's
//!   message content (`replacement.content`; a string becomes one text block for assistant and
//!   tool-result messages) or, with a `null` replacement, drops its messages.

use std::borrow::Cow;
use std::fmt;
use std::fs::File;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use pi_session_format::entry::{Detail, Kind, Replacement, Role};
use pi_session_format::json;

use crate::session::{read_at, SessionIndex};
use crate::tree::{Leaf, Tree};
use crate::Error;

/// Where a context message comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ItemKind {
    /// A `message` entry's message, verbatim.
    Message,
    /// A `custom_message` entry as a `custom` message.
    CustomMessage,
    /// A non-empty `branch_summary`.
    BranchSummary,
    /// The summary of the last compaction on the path.
    CompactionSummary,
    /// Message `n` of a compaction's `retainedTail` (newer harness).
    RetainedTail(u32),
    /// pi 1.x: the `systemMessage` of the last compaction on the path, before its summary.
    CompactionSystem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    pub entry: u32,
    pub kind: ItemKind,
    /// pi 1.x: the `context_edit` entry whose replacement applies to this message.
    pub edit: Option<u32>,
}

impl Item {
    pub fn new(entry: u32, kind: ItemKind) -> Item {
        Item { entry, kind, edit: None }
    }
}

/// Which pi's context rules a file gets (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Dialect {
    /// pi 0.73.1 (`@mariozechner/pi-coding-agent`).
    Pi0,
    /// pi 1.x (`@earendil-works/pi-coding-agent`, 1.6.0).
    Pi1,
}

impl Dialect {
    pub fn of(ix: &SessionIndex) -> Dialect {
        if ix.pi1_only > 0 {
            Dialect::Pi1
        } else {
            Dialect::Pi0
        }
    }
}

/// A context entry that a `context_edit` changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditRecord {
    /// The edited entry.
    pub target: u32,
    /// The `context_edit` entry in effect (the latest one for the target).
    pub edit: u32,
    /// The replacement is `null`: the target's messages leave the context.
    pub dropped: bool,
}

/// `{provider, modelId}` of the last `model_change` or assistant message on the path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct ModelRef {
    pub provider: Option<String>,
    pub model_id: Option<String>,
}

/// The context at a leaf, before bodies are read.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextPlan {
    pub leaf: Leaf,
    pub path: Vec<u32>,
    pub model: Option<ModelRef>,
    pub thinking_level: Option<String>,
    pub items: Vec<Item>,
    /// The last compaction on the path.
    pub compaction: Option<u32>,
    /// Path entries the context leaves out: those before the compaction's kept range (and,
    /// in pi 1.x, the system messages inside it).
    pub hidden: Vec<u32>,
    /// How many path entries come before the context's range (`path[..kept_from]` is what the
    /// compaction hid; 0 without a compaction).
    pub kept_from: usize,
    /// The compaction's `firstKeptEntryId` is set but not on its path before it (and is not
    /// the compaction's own id, pi 1.x's "keep nothing").
    pub first_kept_dangling: bool,
    pub dialect: Dialect,
    /// Context entries changed by a `context_edit` (pi 1.x), in path order.
    pub edits: Vec<EditRecord>,
}

impl ContextPlan {
    pub fn build(ix: &SessionIndex, tree: &Tree, leaf: Leaf) -> ContextPlan {
        let path = match leaf {
            Leaf::Null => Vec::new(),
            Leaf::Entry(i) => tree.path_to(i),
        };
        // The last thinking level, model and compaction on the path, found walking up from the
        // leaf until all three are (the path of a long session passes many thousand entries;
        // strings are made once, at the end).
        let mut thinking_entry = None;
        let mut model_entry = None;
        let mut compaction_pos = None;
        for (pos, &i) in path.iter().enumerate().rev() {
            let e = &ix.entries[i as usize];
            match (&e.kind, &e.detail) {
                (Kind::ThinkingLevelChange, Detail::ThinkingLevel(_)) => _ = thinking_entry.get_or_insert(i),
                (Kind::ModelChange, Detail::ModelChange { .. }) | (Kind::Message, Detail::Message { role: Role::Assistant, .. }) => _ = model_entry.get_or_insert(i),
                (Kind::Compaction, _) => _ = compaction_pos.get_or_insert(pos),
                _ => {}
            }
            if thinking_entry.is_some() && model_entry.is_some() && compaction_pos.is_some() {
                break;
            }
        }
        let thinking_level = match thinking_entry.map(|i| &ix.entries[i as usize].detail) {
            Some(Detail::ThinkingLevel(l)) => l.as_ref().map(|s| s.to_string()),
            _ => Some("off".to_string()),
        };
        let model = model_entry.map(|i| match &ix.entries[i as usize].detail {
            Detail::ModelChange { provider, model_id } => {
                ModelRef { provider: provider.as_ref().map(|s| s.to_string()), model_id: model_id.as_ref().map(|s| s.to_string()) }
            }
            Detail::Message { meta, .. } => {
                let m = meta.as_deref();
                ModelRef {
                    provider: m.and_then(|m| m.provider.as_ref()).map(|s| s.to_string()),
                    model_id: m.and_then(|m| m.model.as_ref()).map(|s| s.to_string()),
                }
            }
            _ => unreachable!("only model changes and assistant messages are noted"),
        });
        let dialect = Dialect::of(ix);
        let pi1 = dialect == Dialect::Pi1;
        let is_system = |i: u32| matches!(ix.entries[i as usize].role(), Some(Role::System));
        // pi 1.6.0's `buildContextEntries`: the compaction, its kept range, what follows it.
        let mut ctx: Vec<u32> = Vec::with_capacity(path.len());
        let mut hidden = Vec::new();
        let mut first_kept_dangling = false;
        let mut kept_from = 0;
        let mut retained = None;
        match compaction_pos {
            None => ctx.extend_from_slice(&path),
            Some(cpos) => {
                let c = path[cpos];
                ctx.push(c);
                let first_kept = match &ix.entries[c as usize].detail {
                    Detail::Compaction { first_kept, retained_tail, .. } => {
                        retained = *retained_tail;
                        first_kept.clone()
                    }
                    _ => None,
                };
                if retained.is_some() {
                    // Newer harness: summary, then the retained messages; nothing before it.
                    hidden.extend_from_slice(&path[..cpos]);
                    kept_from = cpos;
                } else {
                    // Where the first kept entry sits on the path: entry `j` at depth `d` is
                    // `path[d]` when it is on the path at all (paths start at a root).
                    let start = first_kept.as_ref().and_then(|fk| {
                        let j = *ix.by_id.get(fk)?;
                        let d = *tree.depth.get(j as usize)? as usize;
                        (d < cpos && path[d] == j).then_some(d)
                    });
                    match start {
                        Some(st) => {
                            hidden.extend_from_slice(&path[..st]);
                            kept_from = st;
                            for &i in &path[st..cpos] {
                                if pi1 && is_system(i) {
                                    hidden.push(i);
                                } else {
                                    ctx.push(i);
                                }
                            }
                        }
                        None => {
                            // pi 1.x writes "keep nothing" as the compaction's own id.
                            first_kept_dangling = first_kept.as_ref().is_some_and(|fk| ix.entries[c as usize].id.as_ref() != Some(fk));
                            hidden.extend_from_slice(&path[..cpos]);
                            kept_from = cpos;
                        }
                    }
                }
                ctx.extend_from_slice(&path[cpos + 1..]);
            }
        }
        // The latest edit per target among the context entries (pi 1.x).
        let mut latest: std::collections::HashMap<&str, (u32, bool)> = std::collections::HashMap::new();
        if pi1 {
            for &i in &ctx {
                if let Detail::ContextEdit { target: Some(t), replacement } = &ix.entries[i as usize].detail {
                    match replacement {
                        Replacement::Drop => latest.insert(t.as_str(), (i, true)),
                        Replacement::Content => latest.insert(t.as_str(), (i, false)),
                        Replacement::Invalid => None,
                    };
                }
            }
        }
        let mut items = Vec::new();
        let mut edits = Vec::new();
        for (k, &i) in ctx.iter().enumerate() {
            let e = &ix.entries[i as usize];
            let mut mine: Vec<Item> = Vec::new();
            match (&e.kind, &e.detail) {
                (Kind::Compaction, Detail::Compaction { system_message, .. }) => {
                    // Only the newest compaction (first) contributes; an older one inside its
                    // kept range gives nothing.
                    if k == 0 && compaction_pos.is_some() {
                        if pi1 && *system_message {
                            mine.push(Item::new(i, ItemKind::CompactionSystem));
                        }
                        mine.push(Item::new(i, ItemKind::CompactionSummary));
                        if let Some(n) = retained {
                            mine.extend((0..n).map(|t| Item::new(i, ItemKind::RetainedTail(t))));
                        }
                    }
                }
                (Kind::Message, _) => mine.push(Item::new(i, ItemKind::Message)),
                (Kind::CustomMessage, _) => mine.push(Item::new(i, ItemKind::CustomMessage)),
                (Kind::BranchSummary, Detail::BranchSummary { summary_truthy: true, .. }) => mine.push(Item::new(i, ItemKind::BranchSummary)),
                _ => {}
            }
            let edit = e.id.as_deref().and_then(|id| latest.get(id)).copied();
            match edit {
                Some((ed, dropped)) if !mine.is_empty() => {
                    edits.push(EditRecord { target: i, edit: ed, dropped });
                    if !dropped {
                        items.extend(mine.into_iter().map(|it| Item { edit: Some(ed), ..it }));
                    }
                }
                _ => items.extend(mine),
            }
        }
        ContextPlan {
            leaf,
            model,
            thinking_level,
            items,
            compaction: compaction_pos.map(|p| path[p]),
            hidden,
            kept_from,
            first_kept_dangling,
            dialect,
            edits,
            path,
        }
    }

    /// Reads the bodies and builds pi's message objects.
    pub fn materialize(&self, ix: &SessionIndex) -> Result<Vec<Box<RawValue>>, Error> {
        let mut reader = BodyReader::open(ix)?;
        self.items.iter().map(|it| message_for_item(ix, &mut reader, *it)).collect()
    }
}

/// Reads entry lines by offset from one open file handle.
pub struct BodyReader<'a> {
    ix: &'a SessionIndex,
    file: Option<File>,
    memory: Option<&'a [u8]>,
    dialect: Option<Dialect>,
}

impl<'a> BodyReader<'a> {
    pub fn open(ix: &'a SessionIndex) -> Result<BodyReader<'a>, Error> {
        let file = File::open(&ix.path).map_err(|e| Error::io(&ix.path, e))?;
        Ok(BodyReader { ix, file: Some(file), memory: None, dialect: None })
    }

    /// Reads from bytes in memory instead of the file (tests, fuzzing).
    pub fn from_memory(ix: &'a SessionIndex, bytes: &'a [u8]) -> BodyReader<'a> {
        BodyReader { ix, file: None, memory: Some(bytes), dialect: None }
    }

    /// The file's dialect (computed once per reader).
    pub fn dialect(&mut self) -> Dialect {
        *self.dialect.get_or_insert_with(|| Dialect::of(self.ix))
    }

    /// The text of entry `i`'s line (lossy UTF-8, lone surrogates kept as escapes).
    pub fn line(&mut self, i: u32) -> Result<String, Error> {
        let e = &self.ix.entries[i as usize];
        let bytes = match (self.memory, self.file.as_mut()) {
            (Some(m), _) => m.get(e.offset as usize..e.offset as usize + e.len as usize).unwrap_or_default().to_vec(),
            (None, Some(f)) => read_at(f, e.offset, e.len as usize).map_err(|err| Error::io(&self.ix.path, err))?,
            (None, None) => Vec::new(),
        };
        Ok(crate::text::line_text(bytes))
    }
}

/// Top-level fields of an object line as raw JSON (the last of duplicate keys wins).
pub fn object_fields(text: &str) -> Result<Vec<(String, &RawValue)>, serde_json::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out: Vec<(String, &'de RawValue)> = Vec::new();
            while let Some(k) = map.next_key::<Cow<'de, str>>()? {
                let v: &'de RawValue = map.next_value()?;
                if let Some(slot) = out.iter_mut().find(|(key, _)| key == k.as_ref()) {
                    slot.1 = v;
                } else {
                    out.push((k.into_owned(), v));
                }
            }
            Ok(out)
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Vec::new())
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let v = (&mut de).deserialize_any(V)?;
    de.end()?;
    Ok(v)
}

fn with_fields<T>(text: &str, f: impl FnOnce(&[(String, &RawValue)]) -> T) -> Result<T, serde_json::Error> {
    match object_fields(text) {
        Ok(fields) => Ok(f(&fields)),
        Err(e) if json::has_lone_surrogate(text) => {
            let fixed = json::replace_lone_surrogates(text);
            let fields = object_fields(&fixed).map_err(|_| e)?;
            Ok(f(&fields))
        }
        Err(e) => Err(e),
    }
}

fn get<'a>(fields: &'a [(String, &'a RawValue)], key: &str) -> Option<&'a RawValue> {
    fields.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

/// `new Date(timestamp).getTime()` as JSON (`null` for NaN, as `JSON.stringify` writes it).
fn ts_json(raw: Option<&RawValue>) -> String {
    let ms = raw.map(|r| pi_session_format::js::js_date_ms(&json::Loose::from_raw(r.get()))).unwrap_or(f64::NAN);
    if ms.is_nan() {
        "null".into()
    } else {
        format!("{}", ms as i64)
    }
}

/// Writes `{"k":v,…}` skipping absent values (JavaScript drops `undefined` keys).
fn object(pairs: &[(&str, Option<Cow<'_, str>>)]) -> Box<RawValue> {
    let mut s = String::from("{");
    for (k, v) in pairs {
        if let Some(v) = v {
            if s.len() > 1 {
                s.push(',');
            }
            s.push_str(&serde_json::to_string(k).unwrap_or_default());
            s.push(':');
            s.push_str(v);
        }
    }
    s.push('}');
    RawValue::from_string(s).unwrap_or_else(|_| RawValue::from_string("null".into()).expect("null is JSON"))
}

fn raw_opt(r: Option<&RawValue>) -> Option<Cow<'_, str>> {
    r.map(|r| Cow::Borrowed(r.get()))
}

/// pi's message object for one context item.
pub fn message_for_item(ix: &SessionIndex, reader: &mut BodyReader<'_>, it: Item) -> Result<Box<RawValue>, Error> {
    let pi1 = reader.dialect() == Dialect::Pi1;
    let text = reader.line(it.entry)?;
    let bad = |e: serde_json::Error| Error::Corrupt { path: ix.path.clone(), line: ix.entries[it.entry as usize].line, message: e.to_string() };
    let hook = ix.version() < 3.0;
    let message = with_fields(&text, |f| match it.kind {
        ItemKind::Message => {
            let m = get(f, "message").map(|r| r.get()).unwrap_or("null");
            if hook {
                if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(m) {
                    if v.get("role").and_then(|r| r.as_str()) == Some("hookMessage") {
                        v["role"] = "custom".into();
                        return serde_json::value::to_raw_value(&v).expect("a value serialises");
                    }
                }
            }
            if pi1 {
                if let Some(fixed) = pi1_default_content(m) {
                    return fixed;
                }
            }
            RawValue::from_string(m.to_owned()).expect("raw JSON stays JSON")
        }
        ItemKind::CustomMessage => object(&[
            ("role", Some("\"custom\"".into())),
            ("customType", raw_opt(get(f, "customType"))),
            ("content", match get(f, "content") {
                // pi 1.x: `entry.content ?? []`.
                Some(r) if pi1 && r.get() == "null" => Some("[]".into()),
                None if pi1 => Some("[]".into()),
                other => raw_opt(other),
            }),
            ("display", raw_opt(get(f, "display"))),
            ("details", raw_opt(get(f, "details"))),
            ("timestamp", Some(ts_json(get(f, "timestamp")).into())),
        ]),
        ItemKind::BranchSummary => object(&[
            ("role", Some("\"branchSummary\"".into())),
            ("summary", raw_opt(get(f, "summary"))),
            ("fromId", raw_opt(get(f, "fromId"))),
            ("timestamp", Some(ts_json(get(f, "timestamp")).into())),
        ]),
        ItemKind::CompactionSummary => object(&[
            ("role", Some("\"compactionSummary\"".into())),
            ("summary", raw_opt(get(f, "summary"))),
            ("tokensBefore", raw_opt(get(f, "tokensBefore"))),
            ("timestamp", Some(ts_json(get(f, "timestamp")).into())),
        ]),
        ItemKind::CompactionSystem => get(f, "systemMessage").map(|r| r.to_owned()).unwrap_or_else(null_raw),
        ItemKind::RetainedTail(k) => {
            let tail = get(f, "retainedTail").map(|r| r.get()).unwrap_or("[]");
            let items: Vec<&RawValue> = serde_json::from_str(tail).unwrap_or_default();
            items.get(k as usize).map(|r| (*r).to_owned()).unwrap_or_else(null_raw)
        }
    })
    .map_err(bad)?;
    match it.edit {
        None => Ok(message),
        Some(ed) => {
            let edit_text = reader.line(ed)?;
            let bad = |e: serde_json::Error| Error::Corrupt { path: ix.path.clone(), line: ix.entries[ed as usize].line, message: e.to_string() };
            let replacement = with_fields(&edit_text, |f| get(f, "replacement").map(|r| r.get().to_owned())).map_err(bad)?;
            Ok(apply_replacement(message, replacement.as_deref()))
        }
    }
}

fn null_raw() -> Box<RawValue> {
    RawValue::from_string("null".into()).expect("null is JSON")
}

/// Sets (in place, or appended when absent) or removes (`None`) a key of a JSON object text,
/// keeping the other keys in order, as `{...message, key: value}` does in JavaScript.
fn set_key(obj: &str, key: &str, value: Option<&str>) -> Option<Box<RawValue>> {
    if !obj.trim_start().starts_with('{') {
        return None;
    }
    let fields = object_fields(obj).ok()?;
    let mut pairs: Vec<(&str, Option<Cow<'_, str>>)> = Vec::with_capacity(fields.len() + 1);
    let mut seen = false;
    for (k, v) in &fields {
        if k == key {
            seen = true;
            pairs.push((k.as_str(), value.map(Cow::Borrowed)));
        } else {
            pairs.push((k.as_str(), Some(Cow::Borrowed(v.get()))));
        }
    }
    if !seen {
        pairs.push((key, value.map(Cow::Borrowed)));
    }
    Some(object(&pairs))
}

fn role_of(message: &str) -> Option<String> {
    let fields = object_fields(message).ok()?;
    let r = get(&fields, "role")?;
    serde_json::from_str::<String>(r.get()).ok()
}

/// pi 1.x: missing or null `content` becomes `""` for a system message and `[]` for a user,
/// assistant or tool-result message. `None` when nothing changes.
fn pi1_default_content(m: &str) -> Option<Box<RawValue>> {
    let fields = object_fields(m).ok()?;
    let role = get(&fields, "role").and_then(|r| serde_json::from_str::<String>(r.get()).ok())?;
    let empty = match role.as_str() {
        "system" => "\"\"",
        "user" | "assistant" | "toolResult" => "[]",
        _ => return None,
    };
    match get(&fields, "content") {
        Some(c) if c.get() != "null" => None,
        _ => set_key(m, "content", Some(empty)),
    }
}

/// pi 1.6.0's `projectContextEntry` with a non-null replacement: the content of a user,
/// assistant, tool-result or custom message becomes `replacement.content` (a string becomes
/// one text block for assistant and tool-result messages); other messages stay as they are.
fn apply_replacement(message: Box<RawValue>, replacement: Option<&str>) -> Box<RawValue> {
    let Some(role) = role_of(message.get()) else { return message };
    if !matches!(role.as_str(), "user" | "assistant" | "toolResult" | "custom") {
        return message;
    }
    let content: Option<String> = replacement
        .and_then(|r| object_fields(r).ok())
        .and_then(|f| get(&f, "content").map(|c| c.get().to_owned()));
    let content = match content {
        Some(c) if matches!(role.as_str(), "assistant" | "toolResult") && c.trim_start().starts_with('"') => {
            Some(format!("[{{\"type\":\"text\",\"text\":{c}}}]"))
        }
        other => other,
    };
    set_key(message.get(), "content", content.as_deref()).unwrap_or(message)
}

//! What the LLM sees at a node: pi's `buildSessionContext` (SEMANTICS.md §7), as a plan over
//! entry indexes, then materialised into pi's message objects by reading bodies by offset.

use std::borrow::Cow;
use std::fmt;
use std::fs::File;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::entry::{Detail, Kind, Role};
use crate::json;
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item {
    pub entry: u32,
    pub kind: ItemKind,
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
    /// Path entries the context leaves out: those before the compaction's kept range.
    pub hidden: Vec<u32>,
    /// The compaction's `firstKeptEntryId` is set but not on its path before it.
    pub first_kept_dangling: bool,
}

impl ContextPlan {
    pub fn build(ix: &SessionIndex, tree: &Tree, leaf: Leaf) -> ContextPlan {
        let path = match leaf {
            Leaf::Null => Vec::new(),
            Leaf::Entry(i) => tree.path_to(i),
        };
        let mut thinking_level = Some("off".to_string());
        let mut model = None;
        let mut compaction_pos = None;
        for (pos, &i) in path.iter().enumerate() {
            let e = &ix.entries[i as usize];
            match (&e.kind, &e.detail) {
                (Kind::ThinkingLevelChange, Detail::ThinkingLevel(l)) => thinking_level = l.as_ref().map(|s| s.to_string()),
                (Kind::ModelChange, Detail::ModelChange { provider, model_id }) => {
                    model = Some(ModelRef { provider: provider.as_ref().map(|s| s.to_string()), model_id: model_id.as_ref().map(|s| s.to_string()) })
                }
                (Kind::Message, Detail::Message { role: Role::Assistant, meta, .. }) => {
                    let m = meta.as_deref();
                    model = Some(ModelRef {
                        provider: m.and_then(|m| m.provider.as_ref()).map(|s| s.to_string()),
                        model_id: m.and_then(|m| m.model.as_ref()).map(|s| s.to_string()),
                    })
                }
                (Kind::Compaction, _) => compaction_pos = Some(pos),
                _ => {}
            }
        }
        let mut items = Vec::new();
        let mut hidden = Vec::new();
        let mut first_kept_dangling = false;
        let push = |items: &mut Vec<Item>, i: u32| {
            let e = &ix.entries[i as usize];
            let kind = match (&e.kind, &e.detail) {
                (Kind::Message, _) => ItemKind::Message,
                (Kind::CustomMessage, _) => ItemKind::CustomMessage,
                (Kind::BranchSummary, Detail::BranchSummary { summary_truthy: true, .. }) => ItemKind::BranchSummary,
                _ => return,
            };
            items.push(Item { entry: i, kind });
        };
        match compaction_pos {
            None => {
                for &i in &path {
                    push(&mut items, i);
                }
            }
            Some(cpos) => {
                let c = path[cpos];
                items.push(Item { entry: c, kind: ItemKind::CompactionSummary });
                let (first_kept, retained) = match &ix.entries[c as usize].detail {
                    Detail::Compaction { first_kept, retained_tail, .. } => (first_kept.clone(), *retained_tail),
                    _ => (None, None),
                };
                if let Some(n) = retained {
                    // Newer harness: summary, then the retained messages; nothing before it.
                    for k in 0..n {
                        items.push(Item { entry: c, kind: ItemKind::RetainedTail(k) });
                    }
                    hidden.extend_from_slice(&path[..cpos]);
                } else {
                    let start = first_kept.as_ref().and_then(|fk| path[..cpos].iter().position(|&i| ix.entries[i as usize].id.as_ref() == Some(fk)));
                    match start {
                        Some(s) => {
                            hidden.extend_from_slice(&path[..s]);
                            for &i in &path[s..cpos] {
                                push(&mut items, i);
                            }
                        }
                        None => {
                            first_kept_dangling = first_kept.is_some();
                            hidden.extend_from_slice(&path[..cpos]);
                        }
                    }
                }
                for &i in &path[cpos + 1..] {
                    push(&mut items, i);
                }
            }
        }
        ContextPlan {
            leaf,
            model,
            thinking_level,
            items,
            compaction: compaction_pos.map(|p| path[p]),
            hidden,
            first_kept_dangling,
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
}

impl<'a> BodyReader<'a> {
    pub fn open(ix: &'a SessionIndex) -> Result<BodyReader<'a>, Error> {
        let file = File::open(&ix.path).map_err(|e| Error::io(&ix.path, e))?;
        Ok(BodyReader { ix, file: Some(file), memory: None })
    }

    /// Reads from bytes in memory instead of the file (tests, fuzzing).
    pub fn from_memory(ix: &'a SessionIndex, bytes: &'a [u8]) -> BodyReader<'a> {
        BodyReader { ix, file: None, memory: Some(bytes) }
    }

    /// The text of entry `i`'s line (lossy UTF-8, lone surrogates kept as escapes).
    pub fn line(&mut self, i: u32) -> Result<String, Error> {
        let e = &self.ix.entries[i as usize];
        let bytes = match (self.memory, self.file.as_mut()) {
            (Some(m), _) => m.get(e.offset as usize..e.offset as usize + e.len as usize).unwrap_or_default().to_vec(),
            (None, Some(f)) => read_at(f, e.offset, e.len as usize).map_err(|err| Error::io(&self.ix.path, err))?,
            (None, None) => Vec::new(),
        };
        let mut text = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
        };
        // The index read the first and the last line with content without their surrounding
        // (Unicode) spaces, as pi's `content.trim()` does; a BOM is one of them.
        let trimmed = text.trim_matches(json::is_js_space);
        if trimmed.len() != text.len() {
            text = trimmed.to_owned();
        }
        Ok(text)
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
    let ms = raw.map(|r| json::js_date_ms(&json::Loose::from_raw(r.get()))).unwrap_or(f64::NAN);
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
    let text = reader.line(it.entry)?;
    let bad = |e: serde_json::Error| Error::Corrupt { path: ix.path.clone(), line: ix.entries[it.entry as usize].line, message: e.to_string() };
    let hook = ix.version() < 3.0;
    with_fields(&text, |f| match it.kind {
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
            RawValue::from_string(m.to_owned()).expect("raw JSON stays JSON")
        }
        ItemKind::CustomMessage => object(&[
            ("role", Some("\"custom\"".into())),
            ("customType", raw_opt(get(f, "customType"))),
            ("content", raw_opt(get(f, "content"))),
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
        ItemKind::RetainedTail(k) => {
            let tail = get(f, "retainedTail").map(|r| r.get()).unwrap_or("[]");
            let items: Vec<&RawValue> = serde_json::from_str(tail).unwrap_or_default();
            items.get(k as usize).map(|r| (*r).to_owned()).unwrap_or_else(|| RawValue::from_string("null".into()).expect("null is JSON"))
        }
    })
    .map_err(bad)
}

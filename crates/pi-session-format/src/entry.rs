//! The per-line skeleton: what the index keeps of each entry line (never its body).

use compact_str::CompactString;
use serde::Serialize;

use crate::js::{js_date_ms, js_trim};
use crate::json::{LineFields, Loose, MessageFields};
pub use crate::meta::{MessageMeta, MetaRef, Usage};

pub type Id = CompactString;

/// Entry types (docs/format.md, "Entry types"; pi 0.73.1 and pi 1.x). Unknown types keep their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Message,
    ThinkingLevelChange,
    ModelChange,
    Compaction,
    BranchSummary,
    Custom,
    CustomMessage,
    Label,
    SessionInfo,
    Leaf,
    /// pi 1.x: tokens and cost spent outside the transcript (`kind`, `provider`, `model`, `usage`).
    Usage,
    /// pi 1.x: replaces (or, with a `null` replacement, drops) another entry's message in the
    /// context from here on.
    ContextEdit,
    Other(Box<str>),
}

impl Kind {
    pub fn parse(s: &str) -> Kind {
        match s {
            "message" => Kind::Message,
            "thinking_level_change" => Kind::ThinkingLevelChange,
            "model_change" => Kind::ModelChange,
            "compaction" => Kind::Compaction,
            "branch_summary" => Kind::BranchSummary,
            "custom" => Kind::Custom,
            "custom_message" => Kind::CustomMessage,
            "label" => Kind::Label,
            "session_info" => Kind::SessionInfo,
            "leaf" => Kind::Leaf,
            "usage" => Kind::Usage,
            "context_edit" => Kind::ContextEdit,
            other => Kind::Other(other.into()),
        }
    }
    pub fn as_str(&self) -> &str {
        match self {
            Kind::Message => "message",
            Kind::ThinkingLevelChange => "thinking_level_change",
            Kind::ModelChange => "model_change",
            Kind::Compaction => "compaction",
            Kind::BranchSummary => "branch_summary",
            Kind::Custom => "custom",
            Kind::CustomMessage => "custom_message",
            Kind::Label => "label",
            Kind::SessionInfo => "session_info",
            Kind::Leaf => "leaf",
            Kind::Usage => "usage",
            Kind::ContextEdit => "context_edit",
            Kind::Other(s) => s,
        }
    }
    /// Lines that only move pointers or names: drawn transparent in the default graph.
    pub fn is_bookkeeping(&self) -> bool {
        matches!(self, Kind::Label | Kind::Leaf | Kind::SessionInfo)
    }
}

impl Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Message roles (`message.role`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
    BashExecution,
    Custom,
    /// pi 1.x: a stored system message (`content`, `sections`, `toolsAdded`, `toolsRemoved`).
    System,
    /// v2 files only; migrated to `custom`.
    HookMessage,
    Other(Box<str>),
    /// No `role` string, or no `message` object.
    None,
}

impl Role {
    fn from_loose(l: Option<Loose<'_>>) -> Role {
        match l.as_ref().and_then(|l| l.as_str()) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("toolResult") => Role::ToolResult,
            Some("bashExecution") => Role::BashExecution,
            Some("custom") => Role::Custom,
            Some("system") => Role::System,
            Some("hookMessage") => Role::HookMessage,
            Some(o) => Role::Other(o.into()),
            None => Role::None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        Some(match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::ToolResult => "toolResult",
            Role::BashExecution => "bashExecution",
            Role::Custom => "custom",
            Role::System => "system",
            Role::HookMessage => "hookMessage",
            Role::Other(s) => s,
            Role::None => return None,
        })
    }
}

/// `parentId` as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parent {
    /// `"parentId": null` (a root).
    Null,
    /// No `parentId` key.
    Missing,
    Id(Id),
    /// A value that is neither a string nor null.
    Invalid,
}

impl Parent {
    pub fn id(&self) -> Option<&Id> {
        match self {
            Parent::Id(id) => Some(id),
            _ => None,
        }
    }
}

/// The type-specific fields indexing needs.
#[derive(Debug, Clone, PartialEq)]
pub enum Detail {
    None,
    Message {
        role: Role,
        /// `message.timestamp` (ms) when it is a number.
        msg_ts: Option<f64>,
        /// Model, usage and tool fields, when the message has any (kept out of line so that
        /// the skeleton of every line stays small).
        meta: Option<MetaRef>,
    },
    ThinkingLevel(Option<CompactString>),
    ModelChange { provider: Option<CompactString>, model_id: Option<CompactString> },
    Compaction {
        first_kept: Option<Id>,
        /// v1 files: index into the parsed objects (header = 0).
        first_kept_index: Option<i64>,
        /// Number of `retainedTail` messages (newer harness), when the key holds an array.
        retained_tail: Option<u32>,
        /// pi 1.x: a truthy `systemMessage`, emitted before the summary.
        system_message: bool,
        /// pi 1.x: what the summarisation cost (boxed: rare, and the skeleton of every line
        /// stays small).
        usage: Option<Box<Usage>>,
    },
    BranchSummary {
        from_id: Option<Id>,
        summary_truthy: bool,
        /// pi 1.x: what the summarisation cost (boxed: rare, and the skeleton of every line
        /// stays small).
        usage: Option<Box<Usage>>,
    },
    /// pi 1.x `usage` entry.
    Usage { usage: Option<Box<Usage>> },
    /// pi 1.x `context_edit` entry.
    ContextEdit { target: Option<Id>, replacement: Replacement },
    Label { target: Option<Id>, label: Option<String> },
    SessionInfo { name: Option<String> },
    /// `targetId`: `None` when null (navigate to before the first entry).
    Leaf { target: Option<Id>, target_valid: bool },
    CustomMessage { custom_type: Option<CompactString> },
    Custom { custom_type: Option<CompactString> },
}

/// A `context_edit`'s `replacement`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replacement {
    /// `null`: the target's messages leave the context.
    Drop,
    /// Any other value: its `content` (absent unless it is an object with one) replaces the
    /// target's content.
    Content,
    /// No `replacement` key (pi 1.6.0 throws building the context); the edit is ignored.
    Invalid,
}

/// One entry line of a session file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: u32,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// Length in bytes without the line terminator.
    pub len: u32,
    pub kind: Kind,
    pub id: Option<Id>,
    pub parent: Parent,
    /// `new Date(timestamp).getTime()`; NaN when invalid.
    pub ts: f64,
    pub detail: Detail,
}

impl Entry {
    /// Model, usage and tool fields of a message entry.
    pub fn meta(&self) -> Option<&MessageMeta> {
        match &self.detail {
            Detail::Message { meta, .. } => meta.as_deref(),
            _ => None,
        }
    }

    /// The usage of a message entry (`message.usage`).
    pub fn usage(&self) -> Option<&Usage> {
        self.meta().and_then(|m| m.usage.as_ref())
    }

    /// The usage pi 1.6.0's `getSessionStats` counts for this entry: an assistant message's or
    /// a tool result's `usage`, a `usage` entry's, a compaction's or a branch summary's.
    pub fn billed_usage(&self) -> Option<&Usage> {
        match &self.detail {
            Detail::Message { role: Role::Assistant | Role::ToolResult, meta, .. } => meta.as_deref().and_then(|m| m.usage.as_ref()),
            Detail::Usage { usage } | Detail::Compaction { usage, .. } | Detail::BranchSummary { usage, .. } => usage.as_deref(),
            _ => None,
        }
    }

    /// Written only by pi 1.x: a `usage` or `context_edit` entry, a `system` message, a
    /// compaction with a `systemMessage` or `usage`, a branch summary with `usage`.
    pub fn is_pi1_only(&self) -> bool {
        match &self.detail {
            Detail::Usage { .. } | Detail::ContextEdit { .. } => true,
            Detail::Message { role: Role::System, .. } => true,
            Detail::Compaction { system_message, usage, .. } => *system_message || usage.is_some(),
            Detail::BranchSummary { usage, .. } => usage.is_some(),
            _ => false,
        }
    }

    pub fn role(&self) -> Option<&Role> {
        match &self.detail {
            Detail::Message { role, .. } => Some(role),
            _ => None,
        }
    }
    pub fn is_user(&self) -> bool {
        matches!(self.role(), Some(Role::User))
    }
    pub fn id_str(&self) -> &str {
        self.id.as_deref().unwrap_or("")
    }
}

fn cs(raw: Option<&str>) -> Option<CompactString> {
    raw.map(Loose::from_raw).and_then(|l| match l {
        Loose::Str(s) => Some(CompactString::from(s.as_ref())),
        _ => None,
    })
}

fn num(raw: Option<&str>) -> Option<f64> {
    match raw.map(Loose::from_raw) {
        Some(Loose::Num(n)) => Some(n),
        _ => None,
    }
}

fn usage_of(raw: &str) -> Option<Usage> {
    // The shape pi writes, scanned in place (no serde); anything else takes the paths below.
    if let Some([input, output, cache_read, cache_write, total_tokens, cost]) = crate::skeleton::usage_numbers(raw) {
        return Some(Usage { input, output, cache_read, cache_write, total_tokens, cost });
    }
    // Other shapes serde can still read field by field; anything else takes the lenient path.
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Fast {
        input: Option<f64>,
        output: Option<f64>,
        cache_read: Option<f64>,
        cache_write: Option<f64>,
        total_tokens: Option<f64>,
        cost: Option<FastCost>,
    }
    #[derive(serde::Deserialize)]
    struct FastCost {
        total: Option<f64>,
    }
    if let Ok(u) = serde_json::from_str::<Fast>(raw) {
        return Some(Usage {
            input: u.input.unwrap_or(0.0),
            output: u.output.unwrap_or(0.0),
            cache_read: u.cache_read.unwrap_or(0.0),
            cache_write: u.cache_write.unwrap_or(0.0),
            total_tokens: u.total_tokens.unwrap_or(0.0),
            cost: u.cost.and_then(|c| c.total).unwrap_or(0.0),
        });
    }
    #[derive(serde::Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct U {
        input: Option<serde_json::Value>,
        output: Option<serde_json::Value>,
        cache_read: Option<serde_json::Value>,
        cache_write: Option<serde_json::Value>,
        total_tokens: Option<serde_json::Value>,
        cost: Option<serde_json::Value>,
    }
    let u: U = serde_json::from_str(raw).ok()?;
    let f = |v: &Option<serde_json::Value>| v.as_ref().and_then(|v| v.as_f64()).unwrap_or(0.0);
    let cost = match &u.cost {
        Some(serde_json::Value::Object(o)) => o.get("total").and_then(|v| v.as_f64()).unwrap_or(0.0),
        Some(v) => v.as_f64().unwrap_or(0.0),
        None => 0.0,
    };
    Some(Usage {
        input: f(&u.input),
        output: f(&u.output),
        cache_read: f(&u.cache_read),
        cache_write: f(&u.cache_write),
        total_tokens: f(&u.total_tokens),
        cost,
    })
}

/// What a parsed object line is. (Not boxed: entries are the hot path, headers are rare.)
#[allow(clippy::large_enum_variant)]
pub enum Parsed {
    /// A `type:"session"` line.
    Header(Box<crate::header::Header>),
    /// A v4 (`kind:"header"`) header line.
    HeaderV4(Box<crate::header::Header>),
    Entry(Entry),
}

/// Builds the skeleton of one parsed object line.
pub fn classify(f: &LineFields<'_>, line: u32, offset: u64, len: u32) -> Parsed {
    let mut meta = None;
    let mut parsed = classify_with(f, line, offset, len, |m| meta = Some(m));
    if let (Parsed::Entry(Entry { detail: Detail::Message { meta: slot, .. }, .. }), Some(m)) = (&mut parsed, meta) {
        *slot = Some(MetaRef::from(m));
    }
    parsed
}

/// [`classify`], with a message's [`MessageMeta`] handed to `meta` (built in place where
/// `meta` pushes it) instead of boxed in its entry, whose `meta` stays `None`: the index keeps
/// the metas of many messages in one block, one allocation instead of one per message.
#[inline]
pub fn classify_with(f: &LineFields<'_>, line: u32, offset: u64, len: u32, meta: impl FnOnce(MessageMeta)) -> Parsed {
    let ty = f.r#type.map(Loose::from_raw);
    let ty_str = ty.as_ref().and_then(|t| t.as_str()).unwrap_or("");
    if ty_str == "session" {
        return Parsed::Header(Box::new(crate::header::Header::from_fields(f, line)));
    }
    if f.r#type.is_none() && f.kind.map(Loose::from_raw).and_then(|k| k.as_str().map(|s| s == "header")) == Some(true) {
        return Parsed::HeaderV4(Box::new(crate::header::Header::from_v4_fields(f, line)));
    }
    let kind = Kind::parse(ty_str);
    let id = f.id.map(Loose::from_raw).and_then(|l| match l {
        Loose::Str(s) => Some(Id::from(s.as_ref())),
        _ => None,
    });
    let parent = match f.parent_id.map(Loose::from_raw) {
        None => Parent::Missing,
        Some(Loose::Null) => Parent::Null,
        Some(Loose::Str(s)) => Parent::Id(Id::from(s.as_ref())),
        Some(_) => Parent::Invalid,
    };
    let ts = f.timestamp.map(|r| js_date_ms(&Loose::from_raw(r))).unwrap_or(f64::NAN);
    let detail = match kind {
        Kind::Message => message_detail(f.message.as_ref(), meta),
        Kind::ThinkingLevelChange => Detail::ThinkingLevel(cs(f.thinking_level)),
        Kind::ModelChange => Detail::ModelChange { provider: cs(f.provider), model_id: cs(f.model_id) },
        Kind::Compaction => Detail::Compaction {
            first_kept: cs(f.first_kept_entry_id),
            first_kept_index: num(f.first_kept_entry_index).filter(|n| n.fract() == 0.0).map(|n| n as i64),
            retained_tail: f
                .retained_tail
                .and_then(|r| serde_json::from_str::<Vec<serde::de::IgnoredAny>>(r).ok())
                .map(|v| v.len() as u32),
            system_message: f.system_message.map(|r| Loose::from_raw(r).truthy()).unwrap_or(false),
            usage: f.usage.and_then(usage_of).map(Box::new),
        },
        Kind::BranchSummary => Detail::BranchSummary {
            from_id: cs(f.from_id),
            summary_truthy: f.summary.map(|r| Loose::from_raw(r).truthy()).unwrap_or(false),
            usage: f.usage.and_then(usage_of).map(Box::new),
        },
        Kind::Usage => Detail::Usage { usage: f.usage.and_then(usage_of).map(Box::new) },
        Kind::ContextEdit => Detail::ContextEdit {
            target: cs(f.target_id),
            replacement: match f.replacement.map(Loose::from_raw) {
                Some(Loose::Null) => Replacement::Drop,
                Some(_) => Replacement::Content,
                None => Replacement::Invalid,
            },
        },
        Kind::Label => Detail::Label {
            target: cs(f.target_id),
            label: f.label.map(Loose::from_raw).and_then(|l| match l {
                Loose::Str(s) if !s.is_empty() => Some(s.into_owned()),
                Loose::Str(_) => None,
                other if other.truthy() => f.label.map(str::to_owned),
                _ => None,
            }),
        },
        Kind::SessionInfo => Detail::SessionInfo {
            name: f.name.map(Loose::from_raw).and_then(|l| match l {
                Loose::Str(s) => Some(js_trim(&s).to_owned()).filter(|s| !s.is_empty()),
                _ => None,
            }),
        },
        Kind::Leaf => {
            let t = f.target_id.map(Loose::from_raw);
            Detail::Leaf {
                target_valid: matches!(t, Some(Loose::Str(_)) | Some(Loose::Null)),
                target: t.and_then(|l| l.as_str().map(Id::from)),
            }
        }
        Kind::CustomMessage => Detail::CustomMessage { custom_type: cs(f.custom_type) },
        Kind::Custom => Detail::Custom { custom_type: cs(f.custom_type) },
        Kind::Other(_) => Detail::None,
    };
    Parsed::Entry(Entry { line, offset, len, kind, id, parent, ts, detail })
}

/// A message's detail (its `meta` left `None`); its meta, when it has any of those fields,
/// goes to `meta`.
#[inline]
fn message_detail(m: Option<&MessageFields<'_>>, meta: impl FnOnce(MessageMeta)) -> Detail {
    let Some(m) = m else {
        return Detail::Message { role: Role::None, msg_ts: None, meta: None };
    };
    let role = Role::from_loose(m.role.map(Loose::from_raw));
    if m.provider.is_some() || m.model.is_some() || m.stop_reason.is_some() || m.usage.is_some() || m.tool_name.is_some() || m.is_error.is_some() {
        meta(MessageMeta {
            provider: cs(m.provider),
            model: cs(m.model),
            stop_reason: cs(m.stop_reason),
            usage: match m.usage_numbers {
                Some([input, output, cache_read, cache_write, total_tokens, cost]) => Some(Usage { input, output, cache_read, cache_write, total_tokens, cost }),
                None => m.usage.and_then(usage_of),
            },
            tool_name: cs(m.tool_name),
            is_error: m.is_error == Some("true"),
        });
    }
    Detail::Message { msg_ts: num(m.timestamp), meta: None, role }
}

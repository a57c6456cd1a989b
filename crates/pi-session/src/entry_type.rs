//! An entry's `type` and a message's `role` as the UI receives them: pi's, or any other string
//! a file holds.

use serde::{Deserialize, Serialize};

use crate::Kind;

/// An entry's `type` as written: pi's entry types, `fold` for a tree row that stands for
/// folded entries, or any other string a file holds (untrusted).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum EntryType {
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
    /// pi 1.x: tokens and cost spent outside the transcript.
    Usage,
    /// pi 1.x: replaces or drops another entry's message in the context from here on.
    ContextEdit,
    /// A tree row standing for entries folded away (tree rows only).
    Fold,
    /// Any other type string.
    #[serde(untagged)]
    Other(String),
}

impl EntryType {
    pub fn as_str(&self) -> &str {
        match self {
            EntryType::Message => "message",
            EntryType::ThinkingLevelChange => "thinking_level_change",
            EntryType::ModelChange => "model_change",
            EntryType::Compaction => "compaction",
            EntryType::BranchSummary => "branch_summary",
            EntryType::Custom => "custom",
            EntryType::CustomMessage => "custom_message",
            EntryType::Label => "label",
            EntryType::SessionInfo => "session_info",
            EntryType::Leaf => "leaf",
            EntryType::Usage => "usage",
            EntryType::ContextEdit => "context_edit",
            EntryType::Fold => "fold",
            EntryType::Other(s) => s,
        }
    }
}

impl From<&Kind> for EntryType {
    fn from(k: &Kind) -> EntryType {
        match k {
            Kind::Message => EntryType::Message,
            Kind::ThinkingLevelChange => EntryType::ThinkingLevelChange,
            Kind::ModelChange => EntryType::ModelChange,
            Kind::Compaction => EntryType::Compaction,
            Kind::BranchSummary => EntryType::BranchSummary,
            Kind::Custom => EntryType::Custom,
            Kind::CustomMessage => EntryType::CustomMessage,
            Kind::Label => EntryType::Label,
            Kind::SessionInfo => EntryType::SessionInfo,
            Kind::Leaf => EntryType::Leaf,
            Kind::Usage => EntryType::Usage,
            Kind::ContextEdit => EntryType::ContextEdit,
            Kind::Other(s) => EntryType::Other(s.to_string()),
        }
    }
}

/// A message's role as written (`message.role`, or the role of the message an entry becomes
/// in the context): pi's roles, or any other string a file holds (untrusted).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum MessageRole {
    User,
    Assistant,
    ToolResult,
    BashExecution,
    Custom,
    /// v2 files only (pi migrates it to `custom`).
    HookMessage,
    /// A compaction's summary in the context.
    CompactionSummary,
    /// A branch summary in the context.
    BranchSummary,
    /// Any other role string.
    #[serde(untagged)]
    Other(String),
}

impl MessageRole {
    /// The role of a string as written.
    pub fn parse(s: &str) -> MessageRole {
        match s {
            "user" => MessageRole::User,
            "assistant" => MessageRole::Assistant,
            "toolResult" => MessageRole::ToolResult,
            "bashExecution" => MessageRole::BashExecution,
            "custom" => MessageRole::Custom,
            "hookMessage" => MessageRole::HookMessage,
            "compactionSummary" => MessageRole::CompactionSummary,
            "branchSummary" => MessageRole::BranchSummary,
            o => MessageRole::Other(o.to_string()),
        }
    }

    /// The role of an entry's message (`None` when it has none).
    pub fn of(e: &crate::Entry) -> Option<MessageRole> {
        e.role().and_then(|r| r.as_str()).map(MessageRole::parse)
    }

    pub fn as_str(&self) -> &str {
        match self {
            MessageRole::User => "user",
            MessageRole::Assistant => "assistant",
            MessageRole::ToolResult => "toolResult",
            MessageRole::BashExecution => "bashExecution",
            MessageRole::Custom => "custom",
            MessageRole::HookMessage => "hookMessage",
            MessageRole::CompactionSummary => "compactionSummary",
            MessageRole::BranchSummary => "branchSummary",
            MessageRole::Other(s) => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each type goes on the wire as the string pi writes, and an unknown one as itself.
    #[test]
    fn wire_strings_are_the_types_as_written() {
        for s in ["message", "thinking_level_change", "model_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info", "leaf", "usage", "context_edit", "someday_type"] {
            let t = EntryType::from(&Kind::parse(s));
            assert_eq!(serde_json::to_value(&t).unwrap(), serde_json::json!(s));
            assert_eq!(serde_json::from_value::<EntryType>(serde_json::json!(s)).unwrap(), t);
            assert_eq!(t.as_str(), s);
        }
        assert_eq!(serde_json::to_value(EntryType::Fold).unwrap(), serde_json::json!("fold"));
    }
}

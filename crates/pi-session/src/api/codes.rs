//! The enums and the error of the UI's API: each carries a fixed string on the wire (the
//! strings the UI and `pi-session serve` clients branch on).

use serde::{Deserialize, Serialize};

#[cfg(feature = "ts")]
use ts_rs::TS;

#[cfg(test)]
use super::ForkStatus;

/// An error as the UI sees it: branch on `code`, show `message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl From<crate::Error> for ApiError {
    fn from(e: crate::Error) -> Self {
        ApiError { code: e.error_code(), message: e.to_string() }
    }
}

/// The stable error codes (docs/ipc.md): one per [`crate::Error`] variant, plus `internal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub enum ErrorCode {
    /// The file does not exist.
    NotFound,
    Io,
    NotAFile,
    Corrupt,
    UnknownId,
    /// The file cannot be written (its version or header).
    ReadOnly,
    InCycle,
    /// Another process is writing a line to the file right now: nothing was written; the
    /// same write may be tried again.
    Busy,
    OutsideRoot,
    InvalidId,
    /// The app (or the command line) is in read-only mode.
    ReadOnlyMode,
    /// A slim fork where the path has no compaction (the ordinary fork fits).
    NoCompaction,
    /// Two nodes of files that are not of one fork family (compare).
    NotRelated,
    /// A running pi could not be reached or answered outside the protocol (docs/pi-link.md).
    PiLink,
    /// The search index (its database) failed.
    Index,
    /// No cache or data folder could be found for the search index or the tags.
    NoFolder,
    /// The database of tags, pins and archive marks is damaged: left as it is until the user
    /// sets it aside (the message names the file).
    OrganiserDamaged,
    Invalid,
    /// A failure outside the core (a transport, a crash): anything that did not come as
    /// `{code, message}`.
    Internal,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "not-found",
            ErrorCode::Io => "io",
            ErrorCode::NotAFile => "not-a-file",
            ErrorCode::Corrupt => "corrupt",
            ErrorCode::UnknownId => "unknown-id",
            ErrorCode::ReadOnly => "read-only",
            ErrorCode::InCycle => "in-cycle",
            ErrorCode::Busy => "busy",
            ErrorCode::OutsideRoot => "outside-root",
            ErrorCode::InvalidId => "invalid-id",
            ErrorCode::ReadOnlyMode => "read-only-mode",
            ErrorCode::NoCompaction => "no-compaction",
            ErrorCode::NotRelated => "not-related",
            ErrorCode::PiLink => "pi-link",
            ErrorCode::Index => "index",
            ErrorCode::NoFolder => "no-folder",
            ErrorCode::OrganiserDamaged => "organiser-damaged",
            ErrorCode::Invalid => "invalid",
            ErrorCode::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The centre views of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub enum View {
    #[default]
    Tree,
    Forks,
    Transcript,
}

impl View {
    /// `tree`, `forks` or `transcript`; anything else is `None`.
    pub fn parse(s: &str) -> Option<View> {
        match s {
            "tree" => Some(View::Tree),
            "forks" => Some(View::Forks),
            "transcript" => Some(View::Transcript),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            View::Tree => "tree",
            View::Forks => "forks",
            View::Transcript => "transcript",
        }
    }
}

/// A message's role as written (`message.role`, or the role of the message an entry becomes
/// in the context): pi's roles, or any other string a file holds (untrusted).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
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

/// Where a search hit matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub enum HitField {
    /// The session's name.
    Name,
    /// A label.
    Label,
    /// An entry's text.
    Message,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The enums carry the same strings on the wire as the plain strings they replaced.
    #[test]
    fn enums_keep_their_wire_strings() {
        let codes = [
            ErrorCode::NotFound,
            ErrorCode::Io,
            ErrorCode::NotAFile,
            ErrorCode::Corrupt,
            ErrorCode::UnknownId,
            ErrorCode::ReadOnly,
            ErrorCode::InCycle,
            ErrorCode::Busy,
            ErrorCode::OutsideRoot,
            ErrorCode::InvalidId,
            ErrorCode::ReadOnlyMode,
            ErrorCode::NoCompaction,
            ErrorCode::NotRelated,
            ErrorCode::PiLink,
            ErrorCode::Index,
            ErrorCode::NoFolder,
            ErrorCode::OrganiserDamaged,
            ErrorCode::Invalid,
            ErrorCode::Internal,
        ];
        for c in codes {
            assert_eq!(serde_json::to_value(c).unwrap(), json!(c.as_str()));
            assert_eq!(serde_json::from_value::<ErrorCode>(json!(c.as_str())).unwrap(), c);
        }
        let e = crate::Error::UnknownId { path: "/x.jsonl".into(), id: "abc".into() };
        assert_eq!(serde_json::to_value(ApiError::from(e)).unwrap(), json!({"code": "unknown-id", "message": "entry abc is not in /x.jsonl"}));
        let missing = crate::Error::io(std::path::Path::new("/nope"), std::io::Error::from(std::io::ErrorKind::NotFound));
        assert_eq!(missing.code(), "not-found");

        for (s, v) in [
            (ForkStatus::Ok, "ok"),
            (ForkStatus::Relinked, "relinked"),
            (ForkStatus::ParentMissing, "parent-missing"),
            (ForkStatus::ParentMismatch, "parent-mismatch"),
            (ForkStatus::ParentOutside, "parent-outside"),
            (ForkStatus::Cycle, "cycle"),
            (ForkStatus::OutsideRoots, "outside-roots"),
        ] {
            assert_eq!(serde_json::to_value(s).unwrap(), json!(v));
        }
        for (s, v) in [(View::Tree, "tree"), (View::Forks, "forks"), (View::Transcript, "transcript")] {
            assert_eq!(serde_json::to_value(s).unwrap(), json!(v));
            assert_eq!(View::parse(v), Some(s));
        }
        assert_eq!(View::parse("graph"), None);
        for (f, v) in [(HitField::Name, "name"), (HitField::Label, "label"), (HitField::Message, "message")] {
            assert_eq!(serde_json::to_value(f).unwrap(), json!(v));
        }
        for r in ["user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage", "compactionSummary", "branchSummary", "somethingElse", ""] {
            let role = MessageRole::parse(r);
            assert_eq!(role.as_str(), r);
            assert_eq!(serde_json::to_value(&role).unwrap(), json!(r));
            assert_eq!(serde_json::from_value::<MessageRole>(json!(r)).unwrap(), role);
        }
        assert_eq!(MessageRole::parse("weird"), MessageRole::Other("weird".into()));
    }
}

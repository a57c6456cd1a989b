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

impl From<pi_session::Error> for ApiError {
    fn from(e: pi_session::Error) -> Self {
        ApiError { code: ErrorCode::from(&e), message: e.to_string() }
    }
}

impl From<pi_session_find::Error> for ApiError {
    fn from(e: pi_session_find::Error) -> Self {
        ApiError { code: ErrorCode::from(&e), message: e.to_string() }
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
    /// A command of the window only, called over HTTP (`pi-session serve`).
    WindowOnly,
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
            ErrorCode::WindowOnly => "window-only",
            ErrorCode::Internal => "internal",
        }
    }
}

impl From<&pi_session::Error> for ErrorCode {
    fn from(e: &pi_session::Error) -> ErrorCode {
        use pi_session::Error as E;
        match e {
            E::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => ErrorCode::NotFound,
            E::Io { .. } => ErrorCode::Io,
            E::NotAFile(_) => ErrorCode::NotAFile,
            E::Corrupt { .. } => ErrorCode::Corrupt,
            E::UnknownId { .. } => ErrorCode::UnknownId,
            E::ReadOnly { .. } => ErrorCode::ReadOnly,
            E::InCycle { .. } => ErrorCode::InCycle,
            E::Busy { .. } => ErrorCode::Busy,
            E::OutsideRoot { .. } => ErrorCode::OutsideRoot,
            E::InvalidId(_) => ErrorCode::InvalidId,
            E::ReadOnlyMode => ErrorCode::ReadOnlyMode,
            E::NoCompaction { .. } => ErrorCode::NoCompaction,
            E::NotRelated { .. } => ErrorCode::NotRelated,
            E::PiLink { .. } => ErrorCode::PiLink,
            E::Invalid(_) => ErrorCode::Invalid,
        }
    }
}

impl From<&pi_session_find::Error> for ErrorCode {
    fn from(e: &pi_session_find::Error) -> ErrorCode {
        use pi_session_find::Error as E;
        match e {
            E::Db { .. } => ErrorCode::Index,
            E::Io { .. } => ErrorCode::Io,
            E::Core(e) => ErrorCode::from(e),
            E::Invalid(_) => ErrorCode::Invalid,
            E::NoFolder => ErrorCode::NoFolder,
            E::OrganiserDamaged { .. } => ErrorCode::OrganiserDamaged,
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
    pub fn of(e: &pi_session::Entry) -> Option<MessageRole> {
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

    const ALL: &[ErrorCode] = &[
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
        ErrorCode::WindowOnly,
        ErrorCode::Internal,
    ];

    /// Each lower crate's `code()` is the string of the code the app maps its error to.
    #[test]
    fn every_error_maps_to_the_code_its_crate_names() {
        use pi_session::Error as E;
        let p = || std::path::PathBuf::from("/x.jsonl");
        let io = |k| std::io::Error::from(k);
        let core = [
            E::Io { path: p(), source: io(std::io::ErrorKind::NotFound) },
            E::Io { path: p(), source: io(std::io::ErrorKind::PermissionDenied) },
            E::NotAFile(p()),
            E::Corrupt { path: p(), line: 1, message: "x".into() },
            E::UnknownId { path: p(), id: "a".into() },
            E::ReadOnly { path: p(), message: "x".into() },
            E::InCycle { path: p(), id: "a".into() },
            E::Busy { path: p() },
            E::OutsideRoot { path: p(), root: p() },
            E::InvalidId("a".into()),
            E::ReadOnlyMode,
            E::NoCompaction { path: p(), id: "a".into() },
            E::NotRelated { a: p(), b: p() },
            E::PiLink { socket: p(), message: "x".into() },
            E::Invalid("x".into()),
        ];
        let mut seen = std::collections::HashSet::new();
        for e in &core {
            assert_eq!(ErrorCode::from(e).as_str(), e.code(), "{e:?}");
            seen.insert(ErrorCode::from(e));
        }
        use pi_session_find::Error as F;
        let find = [
            F::Db { path: p(), source: rusqlite::Error::QueryReturnedNoRows },
            F::Io { path: p(), source: io(std::io::ErrorKind::Other) },
            F::Core(E::Busy { path: p() }),
            F::Invalid("x".into()),
            F::NoFolder,
            F::OrganiserDamaged { path: p(), reason: "x".into() },
        ];
        for e in &find {
            assert_eq!(ErrorCode::from(e).as_str(), e.code(), "{e:?}");
            seen.insert(ErrorCode::from(e));
        }
        // Every code but `internal` (a failure outside the crates) and `window-only` (the command
        // table's refusal over serve) comes from some error.
        assert_eq!(seen.len(), ALL.len() - 2);
    }

    /// The enums carry the same strings on the wire as the plain strings they replaced.
    #[test]
    fn enums_keep_their_wire_strings() {
        for &c in ALL {
            assert_eq!(serde_json::to_value(c).unwrap(), json!(c.as_str()));
            assert_eq!(serde_json::from_value::<ErrorCode>(json!(c.as_str())).unwrap(), c);
        }
        let e = pi_session::Error::UnknownId { path: "/x.jsonl".into(), id: "abc".into() };
        assert_eq!(serde_json::to_value(ApiError::from(e)).unwrap(), json!({"code": "unknown-id", "message": "entry abc is not in /x.jsonl"}));
        let missing = pi_session::Error::io(std::path::Path::new("/nope"), std::io::Error::from(std::io::ErrorKind::NotFound));
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

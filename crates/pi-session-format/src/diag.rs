//! Findings about a session file: every kind of damage becomes one of these, never a panic.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum Severity {
    Info,
    Warning,
    Error,
}

macro_rules! diag_kinds {
    ($($variant:ident = $name:literal, $sev:ident, $doc:literal;)*) => {
        /// The kinds of findings. The string form (`kind` in JSON) is stable.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
        pub enum DiagKind {
            $(#[doc = $doc] #[serde(rename = $name)] $variant,)*
        }

        impl DiagKind {
            pub const ALL: &'static [DiagKind] = &[$(DiagKind::$variant,)*];
            pub fn as_str(self) -> &'static str {
                match self { $(DiagKind::$variant => $name,)* }
            }
            pub fn severity(self) -> Severity {
                match self { $(DiagKind::$variant => Severity::$sev,)* }
            }
            pub fn describe(self) -> &'static str {
                match self { $(DiagKind::$variant => $doc,)* }
            }
        }
    };
}

diag_kinds! {
    TornTail = "torn-tail", Warning, "The last line has no newline and is not valid JSON (a write was cut off); it is skipped.";
    MalformedLine = "malformed-line", Error, "A line is not valid JSON; it is skipped, as pi skips it.";
    NotAnObject = "not-an-object", Error, "A line is valid JSON but not an object; it is skipped.";
    BlankLine = "blank-line", Info, "Blank lines are skipped.";
    Bom = "bom", Info, "The file starts with a UTF-8 byte order mark (pi 0.73.1 strips it, `pi -c` does not see the file; pi 1.x refuses the file, see refused-by-pi1).";
    RefusedByPi1 = "refused-by-pi1", Warning, "Text before the header that JSON.parse rejects (a byte order mark, U+00A0 or another Unicode space): pi 1.x does not load the file (not a valid pi session; /resume hides it), pi 0.73.1 trims it and reads it. We read it as 0.73.1 does.";
    Crlf = "crlf", Info, "Lines end with CR LF.";
    InvalidUtf8 = "invalid-utf8", Warning, "A line holds bytes that are not UTF-8; they read as U+FFFD, as in pi.";
    LoneSurrogate = "lone-surrogate", Warning, "A string holds a lone UTF-16 surrogate escape; it reads as U+FFFD.";
    TooDeep = "too-deep", Error, "A line nests JSON deeper than the parser's limit (128); it is skipped.";
    HugeLine = "huge-line", Warning, "A line is larger than 30 MB.";
    MissingHeader = "missing-header", Error, "The first JSON line is not a session header; pi would replace this file with an empty session on open.";
    SecondHeader = "second-header", Warning, "A session header line after the first one; it is ignored.";
    EmptyFile = "empty-file", Warning, "The file is empty.";
    HeaderOnly = "header-only", Info, "The session has a header and no entries.";
    OldVersion = "old-version", Warning, "A version 1 or 2 file, migrated in memory and read-only (pi rewrites such files with new random ids).";
    FutureVersion = "future-version", Warning, "A version newer than 3; shown read-only.";
    UnknownType = "unknown-type", Info, "An entry type this reader does not know; kept as a plain tree node.";
    MissingId = "missing-id", Error, "An entry without a string id; it cannot be part of the tree.";
    MissingParent = "missing-parent", Warning, "An entry whose parentId is not in the file; shown as an extra root.";
    SelfParent = "self-parent", Error, "An entry whose parentId is its own id; shown as a root.";
    ParentCycle = "parent-cycle", Error, "Entries whose parents form a cycle (pi loops forever on them); the cycle is broken at its first line.";
    DuplicateId = "duplicate-id", Error, "An id used by more than one line; the later line wins.";
    DanglingFirstKept = "dangling-first-kept", Warning, "A compaction's firstKeptEntryId is not on its path; nothing before the compaction is kept.";
    DanglingTarget = "dangling-target", Warning, "A label or leaf line's targetId is not in the file.";
    DanglingFrom = "dangling-from", Warning, "A branch summary's fromId is not in the file (not reported in a fork, whose fromId may be pi 1.x's old leaf left in the parent session).";
    ParentSessionMissing = "parent-session-missing", Warning, "The parentSession file does not exist.";
    ParentSessionRelative = "parent-session-relative", Info, "parentSession is a relative path; it was resolved against the header cwd, then the sessions root.";
    ParentSessionCycle = "parent-session-cycle", Error, "Sessions whose parentSession links form a cycle.";
    ParentSessionRelinked = "parent-session-relinked", Info, "The parentSession path does not hold the parent here (moved, copied, outside the root or through a link leaving it); the parent was found in the root by its session id.";
    ParentSessionMismatch = "parent-session-mismatch", Warning, "The parentSession path holds another session (its header id is not the id the path names): the link is not trusted.";
    ParentSessionOutside = "parent-session-outside", Info, "The parentSession file lies outside the sessions root and no session of the root has its id; it is read only for the fork point.";
    NotAFile = "not-a-file", Warning, "A directory or special file named *.jsonl.";
    NotASession = "not-a-session", Warning, "A .jsonl file that holds no pi session.";
    Symlink = "symlink", Info, "A symbolic link inside the sessions root: read as the file it points to (once, when that file is listed itself), never written through.";
    SymlinkOutsideRoot = "symlink-outside-root", Warning, "A symbolic link (to a file or a folder) whose target lies outside the sessions root: not read by anything (not listed, searched, counted or opened); add its target as another root to read it.";
    Unreadable = "unreadable", Error, "The file could not be read.";
    ToolResultOrphan = "tool-result-orphan", Warning, "The kept range of a compaction starts with a tool result whose call was hidden.";
}

impl std::fmt::Display for DiagKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding. `line` is 1-based; `None` for findings about the whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Diagnostic {
    pub line: Option<u32>,
    pub kind: DiagKind,
    pub severity: Severity,
    pub message: String,
}

impl Diagnostic {
    pub fn new(line: Option<u32>, kind: DiagKind, message: impl Into<String>) -> Self {
        Diagnostic { line, kind, severity: kind.severity(), message: message.into() }
    }
}

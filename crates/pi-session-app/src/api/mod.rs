//! The shapes the desktop app exchanges with its web UI (IPC view models). TypeScript types
//! are generated from these by `scripts/bindings` into `ui/src/lib/bindings/` and committed;
//! `scripts/test` fails when they differ (`scripts/bindings --check`).
//!
//! Everything session-derived here is untrusted text: the UI renders it as text or
//! sanitised Markdown, never as HTML.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

// The shapes of the lower crates that the UI receives, so that the shells take every IPC shape
// from here.
pub use pi_session::context::ModelRef;
pub use pi_session::dashboard::{BucketSize, Dashboard, DashboardQuery, Figure, SessionUsage, Totals};
pub use pi_session::diff::{Ancestor, BranchDiff, ContextRow, DiffRow, DiffSide, DiffStep, ToolCall};
pub use pi_session::edits::EditedEntry;
pub use pi_session::export::{ExportFormat, ExportResult};
pub use pi_session::forks::{ForkStatus, LinkKind};
pub use pi_session_find::damage::SetAside;
pub use pi_session_find::moves::{MoveBatch, MoveItem, MovePlan, MoveSkip};
pub use pi_session_find::organise::{MarkFilter, MarkSelection, Marks, TagCount};
pub use pi_session_find::{IndexHit, SearchIndexProgress, SearchIndexStatus, SearchResults, SessionHits, UpdateStats};
pub use pi_session_format::diag::{DiagKind, Diagnostic, Severity};
pub use pi_session_format::entry::Usage;

mod codes;
pub use codes::{ApiError, ErrorCode, HitField, MessageRole, View};
pub use pi_session::EntryType;
mod pilink;
pub use pilink::{Follower, Moved, OfferAnswer, PiAnswer, ResumeInPi};

/// What the app is looking at.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct AppInfo {
    /// The sessions root in use.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    #[serde(with = "pi_session::pathstr::serde_path")]
    pub root: PathBuf,
    /// `flag`, `env-session-dir`, `env-agent-dir`, `default` or `demo`.
    pub root_source: String,
    /// True when the root did not exist and the bundled demo sessions are shown instead.
    pub demo: bool,
    /// The root the app would have used (shown when the demo is open).
    #[cfg_attr(feature = "ts", ts(type = "string | null"))]
    #[serde(with = "pi_session::pathstr::serde_opt_path")]
    pub wanted_root: Option<PathBuf>,
    /// No write path is reachable.
    pub read_only: bool,
    /// Started with `--read-only`: the mode cannot be switched off from the window.
    pub read_only_locked: bool,
    /// The centre view to start in.
    pub initial_view: View,
    /// The session to open first (`--session FILE`; absent: the most recent one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub initial_session: Option<String>,
    /// The entry to select in it (`--select ID`; absent: its leaf).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub initial_entry: Option<String>,
    pub version: String,
    /// Several roots in one view (absent with one root): names, folders, read-only flags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub roots: Option<Vec<RootInfo>>,
}

/// A sessions root of a view with several (see `pi_session::roots`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct RootInfo {
    pub name: String,
    pub path: String,
    pub read_only: bool,
}

/// One session in the sidebar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct SessionRow {
    pub path: String,
    pub id: Option<String>,
    pub cwd: Option<String>,
    /// Session name, else the first user message, else the file name.
    pub title: String,
    pub name: Option<String>,
    /// Header timestamp (ISO).
    pub created: Option<String>,
    /// Milliseconds since the epoch.
    pub modified: Option<f64>,
    pub entry_count: u32,
    pub message_count: u32,
    /// Branch points as the default view draws them ([`crate::Session::branch_points`]).
    pub branch_points: u32,
    pub tokens: f64,
    pub cost: f64,
    pub size: f64,
    pub leaf_id: Option<String>,
    /// Path of the parent session file when this is a fork.
    pub parent_path: Option<String>,
    pub fork_point_id: Option<String>,
    pub fork_status: ForkStatus,
    /// `parentSession` as the header records it (the parent may have been found elsewhere:
    /// `relinked`).
    pub parent_session: Option<String>,
    /// Fork or spawn, when the parent could be read.
    pub kind: Option<LinkKind>,
    /// A spawn: the parent's entry holding the tool call that started it.
    pub spawned_by: Option<String>,
    /// That tool call's id.
    pub spawned_by_tool_call: Option<String>,
    /// `spawnedBy` is the last parent entry before the spawn began (no tool call names it).
    pub spawned_by_guess: bool,
    /// Tokens and cost of the entries this file added (a fork's copied entries are its parent's).
    pub own_tokens: f64,
    pub own_cost: f64,
    /// Own figures of the session and its spawns, recursively (docs/format.md, "Family").
    pub family_tokens: f64,
    pub family_cost: f64,
    /// Sessions in the family (the session and its spawns, recursively).
    pub family_size: u32,
    /// A slim fork or a pruned copy (read from the lines it holds: `forks::copy_kind`).
    pub copy: Option<pi_session::forks::CopyKind>,
    /// The file holds entries (a header-only summary, before indexing: a user message in its
    /// first 16 KB). The app starts on the newest session that has some.
    pub has_entries: bool,
    /// What pi does with this file when that differs from reading it (an empty file, one
    /// without a valid header, one pi 1.x refuses, an old version), in a sentence.
    pub pi_note: Option<String>,
    /// Why the session is read-only (`no-header`, `old-version`, `future-version`), if it is.
    pub read_only: Option<String>,
    pub errors: u32,
    pub warnings: u32,
    /// The root's name, in a view with several roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub root: Option<String>,
    /// Another root holds a different copy of this session: the byte offset where they part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub diverged_at: Option<f64>,
}

/// The sidebar list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct SessionList {
    pub root: String,
    pub sessions: Vec<SessionRow>,
    /// Files under the root that are not sessions (with why).
    pub other: Vec<PathNote>,
    /// Indexing progress: files done of total (equal when complete).
    pub indexed: u32,
    pub total: u32,
    /// Only the most recently modified sessions are listed (a first screen; ask again without
    /// a limit for all of them).
    pub limited: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct PathNote {
    pub path: String,
    pub diagnostic: Diagnostic,
    /// What pi does with this path, in a sentence (`explorer::listing::what_pi_does`).
    pub pi_note: Option<String>,
}

/// Which entries the tree shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub enum TreeFilter {
    /// Everything but bookkeeping lines (label, leaf, session_info).
    #[default]
    Default,
    /// User messages only.
    UserOnly,
    /// Labeled entries only.
    Labeled,
    /// Every entry line.
    All,
}

/// How the UI wants the tree drawn. The backend keeps the layout of the last state.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct TreeQuery {
    pub path: String,
    pub filter: TreeFilter,
    /// Fold segments the user opened (by `fold.id`).
    pub expanded: Vec<String>,
    /// Entries whose subtrees the user closed.
    pub collapsed: Vec<String>,
    /// Draw forks of this session inside it, at their fork points.
    pub unified: bool,
}

/// Meta of a laid-out tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct TreeMeta {
    pub path: String,
    pub title: String,
    pub total_rows: u32,
    /// Number of lanes (columns) the graph needs.
    pub lanes: u32,
    /// The file's leaf as pi reads it (its last line's; may be a label or leaf line).
    pub leaf_id: Option<String>,
    /// The entry pi resumes at: the leaf, or the entry above it when the leaf is a bookkeeping
    /// line (a label line does not move it). What the status bar and the leaf chip show.
    pub effective_leaf_id: Option<String>,
    /// Row of the leaf in this layout (if visible).
    pub leaf_row: Option<u32>,
    pub entry_count: u32,
    /// Branch points as the default view draws them ([`crate::Session::branch_points`]).
    pub branch_points: u32,
    pub compactions: u32,
    pub labels: u32,
    pub read_only: Option<String>,
    /// Another process appended to the file within the last few seconds.
    pub live: bool,
    pub diagnostics: Vec<Diagnostic>,
    /// Sessions drawn in a unified view (index = `TreeRow.session`); the first is this one.
    pub sessions: Vec<String>,
}

/// A folded run of single-child entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct Fold {
    pub id: String,
    pub count: u32,
    pub users: u32,
    pub assistants: u32,
    pub tools: u32,
    pub others: u32,
    pub first_ts: Option<f64>,
    pub last_ts: Option<f64>,
    /// The run contains entries of the active path.
    pub on_path: bool,
}

/// One row of the tree graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct TreeRow {
    pub row: u32,
    /// Entry id (for a fold row: the id of the first folded entry).
    pub id: String,
    pub parent_id: Option<String>,
    pub line: u32,
    /// Entry type (`message`, `compaction`, …) or `fold`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(rename = "type"))]
    pub kind: EntryType,
    pub role: Option<MessageRole>,
    /// Milliseconds since the epoch.
    pub ts: Option<f64>,
    pub label: Option<String>,
    pub on_path: bool,
    pub is_leaf: bool,
    pub child_count: u32,
    /// Children hidden because the user collapsed this node (count of hidden entries).
    pub collapsed: Option<u32>,
    /// Short plain text of the entry (≤ 200 chars).
    pub preview: String,
    /// Tool name for tool calls/results, model for model changes.
    pub detail: Option<String>,
    pub is_error: bool,
    pub tokens: Option<f64>,
    pub cost: Option<f64>,
    pub fold: Option<Fold>,
    /// Worst diagnostic on this line.
    pub diagnostic: Option<pi_session_format::diag::Severity>,
    /// Index into `TreeMeta.sessions` (unified view); 0 otherwise.
    pub session: u32,
    // --- graph ---
    pub lane: u32,
    /// Lanes whose vertical lines pass through this row (not the node's lane).
    pub pass: Vec<u32>,
    /// The node's lane has a line from the row above.
    pub up: bool,
    /// The node's lane continues to the row below.
    pub down: bool,
    /// First row of a side branch: the lane its curve comes from.
    pub branch_from: Option<u32>,
    /// Lane colour index (stable per branch).
    pub color: u32,
    /// Sessions forked from this entry (their fork point is here), when there are any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub forks: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct TreePage {
    pub meta: TreeMeta,
    pub start: u32,
    pub rows: Vec<TreeRow>,
}

/// The inspector's view of one entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct EntryDetail {
    pub path: String,
    pub id: String,
    pub parent_id: Option<String>,
    pub line: u32,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(rename = "type"))]
    pub kind: EntryType,
    pub role: Option<MessageRole>,
    pub timestamp: Option<f64>,
    pub label: Option<String>,
    pub on_path: bool,
    pub is_leaf: bool,
    pub depth: u32,
    pub child_ids: Vec<String>,
    /// The whole line as written (untrusted).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub raw: serde_json::Value,
    pub usage: Option<Usage>,
    /// Sums along root → this entry.
    pub path_tokens: f64,
    pub path_cost: f64,
    /// Model in effect at this entry.
    pub model: Option<ModelRef>,
    pub thinking_level: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// For a user message: forking "before" it is possible (pi's /fork offers both).
    pub can_fork_before: bool,
    /// What "Resume pi here" on this entry writes and what pi then does (pi's `/tree` rule).
    pub resume: ResumeAt,
}

/// Where pi resumes after "Resume pi here" on an entry, by the rule of pi's own `/tree`: on a
/// user (or custom) message the leaf goes to the message's parent and pi puts the message's text
/// back in its editor; on any other entry the leaf goes to the entry itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct ResumeAt {
    /// The entry the `leaf` line names (null: before the first entry).
    pub target_id: Option<String>,
    /// pi already resumes there: nothing to write.
    pub current: bool,
    /// pi would put the message's text back in its editor (a user or custom message).
    pub to_editor: bool,
    /// What pi will do, in one sentence.
    pub note: String,
}

/// One message of a context preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct ContextMessage {
    pub index: u32,
    pub entry_id: String,
    pub line: u32,
    pub role: MessageRole,
    /// pi's message object (untrusted).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub message: serde_json::Value,
    /// pi's `estimateTokens` of this message.
    pub tokens: f64,
    /// Kept from before the compaction (inside its kept range).
    pub kept: bool,
}

/// A path entry the context leaves out (hidden by compaction).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct HiddenEntry {
    pub id: String,
    pub line: u32,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(rename = "type"))]
    pub kind: EntryType,
    pub role: Option<MessageRole>,
    pub preview: String,
    pub tokens: f64,
}

/// The compaction in effect at a node, audited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct CompactionAudit {
    pub id: String,
    pub line: u32,
    pub summary: String,
    pub tokens_before: Option<f64>,
    pub first_kept_entry_id: Option<String>,
    /// `firstKeptEntryId` is not on the path before the compaction.
    pub first_kept_dangling: bool,
    /// The kept range starts with a tool result whose tool call was hidden.
    pub kept_starts_with_orphan_tool_result: bool,
    /// The compaction line was copied from a parent session by a fork.
    pub copied_from_parent: bool,
    /// Earlier compactions on the path (ids), oldest first.
    pub earlier: Vec<String>,
}

/// What the LLM sees at a node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct ContextView {
    pub path: String,
    pub leaf_id: Option<String>,
    pub model: Option<ModelRef>,
    pub thinking_level: Option<String>,
    /// pi's `estimateContextTokens` on these messages.
    pub token_estimate: f64,
    pub total_messages: u32,
    /// The first page of messages (see `context_page` for more).
    pub messages: Vec<ContextMessage>,
    pub compaction: Option<CompactionAudit>,
    pub hidden_total: u32,
    /// The first page of hidden entries (see `hidden_page`).
    pub hidden: Vec<HiddenEntry>,
    /// Context entries a pi 1.x `context_edit` replaces or drops, in path order.
    pub edited: Vec<EditedEntry>,
}

/// Result of navigate / label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct WriteResult {
    pub file: String,
    /// The line appended (JSON text).
    pub line: String,
    /// Set when another process appended to this file moments ago.
    pub warning: Option<String>,
}

/// Result of a fork.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct ForkResult {
    /// The new session file.
    pub file: String,
    pub leaf_id: Option<String>,
}

/// Where to fork relative to the chosen entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub enum ForkPosition {
    /// Up to and including the entry.
    At,
    /// Up to its parent (for user messages, as pi's /fork offers).
    Before,
}

/// A hit of the search across all sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct SearchHit {
    pub path: String,
    pub session_title: String,
    pub id: Option<String>,
    pub line: u32,
    pub field: HitField,
    /// The entry's role, else its type (`compaction`, …).
    pub role: Option<String>,
    /// Text around the match.
    pub snippet: String,
    /// Match position inside `snippet` (UTF-16 code units, for the UI).
    pub match_start: u32,
    pub match_len: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct SearchResult {
    pub query: String,
    pub hits: Vec<SearchHit>,
    /// More hits exist than were returned.
    pub truncated: bool,
    pub files_searched: u32,
}

/// A node of the fork graph (one session file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct ForkNode {
    pub path: String,
    pub id: Option<String>,
    pub title: String,
    pub cwd: Option<String>,
    pub created: Option<String>,
    pub modified: Option<f64>,
    pub entry_count: u32,
    pub parent_path: Option<String>,
    pub fork_point_id: Option<String>,
    /// Line of the fork point in the parent.
    pub fork_point_line: Option<u32>,
    /// Short text of the fork point entry: the message where the fork happened.
    pub fork_point_preview: Option<String>,
    /// The fork point's position in the parent: entry `forkPointEntry` (1-based, file order)
    /// of `parentEntries`.
    pub fork_point_entry: Option<u32>,
    pub parent_entries: Option<u32>,
    /// A slim fork or a pruned copy.
    pub copy: Option<pi_session::forks::CopyKind>,
    pub status: ForkStatus,
    /// `parentSession` as the header records it (the parent may have been found elsewhere:
    /// `relinked`).
    pub parent_session: Option<String>,
    /// Fork or spawn, when the parent could be read.
    pub kind: Option<LinkKind>,
    /// A spawn: the parent's entry holding the tool call that started it.
    pub spawned_by: Option<String>,
    /// That tool call's id.
    pub spawned_by_tool_call: Option<String>,
    /// `spawnedBy` is the last parent entry before the spawn began (no tool call names it).
    pub spawned_by_guess: bool,
    /// Tokens and cost of the entries this file added (a fork's copied entries are its parent's).
    pub own_tokens: f64,
    pub own_cost: f64,
    /// Own figures of the session and its spawns, recursively (docs/format.md, "Family").
    pub family_tokens: f64,
    pub family_cost: f64,
    /// Sessions in the family (the session and its spawns, recursively).
    pub family_size: u32,
    /// The root's name, in a view with several roots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub root: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct ForkGraph {
    pub nodes: Vec<ForkNode>,
}

/// A sibling switcher at a branch point of the transcript ("‹ k/n ›").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct Siblings {
    /// 1-based position of this entry among its siblings.
    pub index: u32,
    pub count: u32,
    pub prev_id: Option<String>,
    pub next_id: Option<String>,
}

/// One item of the transcript (the active path, in the default filter).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct TranscriptItem {
    pub index: u32,
    pub id: String,
    pub line: u32,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(rename = "type"))]
    pub kind: EntryType,
    pub role: Option<MessageRole>,
    pub ts: Option<f64>,
    pub label: Option<String>,
    /// The line as written (untrusted).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub raw: serde_json::Value,
    pub siblings: Option<Siblings>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct TranscriptPage {
    pub path: String,
    pub leaf_id: Option<String>,
    pub total: u32,
    pub start: u32,
    pub items: Vec<TranscriptItem>,
}

/// Where the view goes when the transcript steps to a sibling branch: shown, never written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct SwitchResult {
    /// The view-only leaf (the newest entry of the sibling's subtree).
    pub leaf_id: String,
}

/// Pushed to the UI when files under the root change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct RootChanged {
    /// Files whose content grew or changed.
    pub changed: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

/// Pushed while the full index builds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct IndexProgress {
    pub done: u32,
    pub total: u32,
}

/// Where an entry is in a laid-out tree; `query` has the folds opened that hid it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct LocateResult {
    pub row: Option<u32>,
    pub query: TreeQuery,
}

/// Entries of one session whose text matches (type-to-search), in file order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct FindResult {
    pub ids: Vec<String>,
    pub truncated: bool,
}

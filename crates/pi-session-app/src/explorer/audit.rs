//! The compaction audit as a view of its own: one row per compaction on the path to an entry,
//! each with its full summary, tokens before and after, and the entries it hid (messages and
//! bookkeeping lines counted apart).
//!
//! Compaction k's context is its summary, then the path from its `firstKeptEntryId` on. So it
//! hides the path entries from where the previous compaction's context started (its kept
//! start, or the root) up to its own kept start; compaction lines themselves are not counted
//! as hidden (each one's summary is shown in its own row).
//!
//! The same view carries the pi 1.x context edits in effect at the entry (see `edits.rs`): each
//! edited or dropped original beside what pi 1.6 sends instead.

use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(feature = "ts")]
use ts_rs::TS;
use pi_session_format::entry::{Detail, Kind};
use pi_session::edits::EditedEntry;
use pi_session::context::{BodyReader, ContextPlan};
use pi_session::text::{estimate_tokens, line_value, preview};
use pi_session::tree::Leaf;
use pi_session::Error;

use super::Explorer;

/// The audit of every compaction on the path to an entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct AuditView {
    pub path: String,
    /// The entry audited (its path); null: the session's leaf.
    pub leaf_id: Option<String>,
    /// Oldest first; the last one is the compaction in effect.
    pub compactions: Vec<AuditCompaction>,
    /// Context entries a pi 1.x `context_edit` on the path replaces or drops, in path order
    /// (the same answer as `ContextView::edited` at this entry).
    pub edited: Vec<EditedEntry>,
    /// Compactions of the file on other branches (not on this path), in file order, at most
    /// [`AUDIT_ELSEWHERE_MAX`]: where to look when this path has none.
    pub elsewhere: Vec<AuditElsewhere>,
}

/// A compaction of the file that is not on the audited path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct AuditElsewhere {
    pub id: String,
    pub line: u32,
    /// `tokensBefore` as pi recorded it.
    pub tokens_before: Option<f64>,
}

/// One compaction on the path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct AuditCompaction {
    pub id: String,
    pub line: u32,
    /// The whole summary (untrusted text).
    pub summary: String,
    /// `tokensBefore` as pi recorded it.
    pub tokens_before: Option<f64>,
    /// pi's token estimate of the context right after this compaction: its summary and the
    /// messages it kept.
    pub tokens_after: f64,
    /// pi's token estimate of the summary alone (the summary message pi sends).
    pub summary_tokens: f64,
    /// Messages the context right after it keeps besides the summary.
    pub kept_messages: u32,
    pub first_kept_entry_id: Option<String>,
    /// Messages (user, assistant, tool results, custom messages, branch summaries) it hid.
    pub hidden_messages: u32,
    /// Other lines it hid: model and thinking changes, labels, leaf and name lines, custom
    /// entries: bookkeeping, not part of what the LLM saw.
    pub hidden_bookkeeping: u32,
    /// The entries it hid, in path order.
    pub hidden: Vec<AuditHidden>,
}

/// An entry a compaction hid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct AuditHidden {
    pub id: String,
    pub line: u32,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(rename = "type"))]
    pub kind: String,
    pub role: Option<String>,
    /// A message the LLM saw before (false: a bookkeeping line).
    pub message: bool,
    /// Short plain text (≤ 200 chars); the whole entry comes from `entry_detail`.
    pub preview: String,
    pub tokens: f64,
}

/// Whether an entry is a message the LLM sees (else a bookkeeping line for the audit).
pub fn is_context_message(k: &Kind) -> bool {
    matches!(k, Kind::Message | Kind::CustomMessage | Kind::BranchSummary)
}

/// Entries hidden per compaction: at most this many are listed (the counts are exact).
pub const AUDIT_HIDDEN_MAX: usize = 5000;

/// Compactions off the path listed by an audit.
pub const AUDIT_ELSEWHERE_MAX: usize = 50;

impl Explorer {
    /// Every compaction on the path to `leaf` (the session's leaf when `None`), audited.
    pub fn audit_view(&self, path: &str, leaf: Option<&str>) -> Result<AuditView, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let node = match leaf {
            Some(id) => Some(s.node(id)?),
            None => s.tree.leaf_index(),
        };
        let path_nodes = node.map(|n| s.tree.path_to(n)).unwrap_or_default();
        let mut reader = BodyReader::open(&s.index)?;
        let mut compactions = Vec::new();
        let mut from = 0usize; // where the previous compaction's context started
        for (pos, &c) in path_nodes.iter().enumerate() {
            let e = &s.index.entries[c as usize];
            if e.kind != Kind::Compaction {
                continue;
            }
            let first_kept = match &e.detail {
                Detail::Compaction { first_kept, .. } => first_kept.as_ref().map(|k| k.to_string()),
                _ => None,
            };
            // The kept start: firstKeptEntryId on the path before the compaction, else the compaction.
            let kept = first_kept
                .as_deref()
                .and_then(|k| path_nodes[..pos].iter().position(|&x| s.id_of(x) == k))
                .unwrap_or(pos);
            let mut hidden = Vec::new();
            let (mut msgs, mut books) = (0u32, 0u32);
            for &i in path_nodes.get(from..kept.max(from)).unwrap_or_default() {
                let he = &s.index.entries[i as usize];
                if he.kind == Kind::Compaction {
                    continue;
                }
                let message = is_context_message(&he.kind);
                if message {
                    msgs += 1;
                } else {
                    books += 1;
                }
                if hidden.len() < AUDIT_HIDDEN_MAX {
                    let text = reader.line(i)?;
                    let tokens = if he.kind == Kind::Message { line_value(&text).get("message").map(estimate_tokens).unwrap_or(0.0) } else { 0.0 };
                    hidden.push(AuditHidden {
                        id: he.id_str().to_string(),
                        line: he.line,
                        kind: he.kind.as_str().to_string(),
                        role: he.role().and_then(|r| r.as_str()).map(str::to_string),
                        message,
                        preview: preview(he, Some(&text)).text,
                        tokens,
                    });
                }
            }
            let v = line_value(&reader.line(c)?);
            let after = ContextPlan::build(&s.index, &s.tree, Leaf::Entry(c));
            let (mut tokens_after, mut summary_tokens, mut kept_messages) = (0.0, 0.0, 0u32);
            for it in &after.items {
                let raw = pi_session::context::message_for_item(&s.index, &mut reader, *it)?;
                let t = estimate_tokens(&serde_json::from_str::<Value>(raw.get()).unwrap_or(Value::Null));
                tokens_after += t;
                if it.kind == pi_session::context::ItemKind::CompactionSummary {
                    summary_tokens += t;
                } else {
                    kept_messages += 1;
                }
            }
            compactions.push(AuditCompaction {
                id: e.id_str().to_string(),
                line: e.line,
                summary: v.get("summary").and_then(Value::as_str).unwrap_or("").to_string(),
                tokens_before: v.get("tokensBefore").and_then(Value::as_f64),
                tokens_after,
                summary_tokens,
                kept_messages,
                first_kept_entry_id: first_kept,
                hidden_messages: msgs,
                hidden_bookkeeping: books,
                hidden,
            });
            from = kept.max(from);
        }
        let plan = ContextPlan::build(&s.index, &s.tree, node.map(Leaf::Entry).unwrap_or(Leaf::Null));
        let edited = pi_session::edits::edited_entries(&s, &plan, &mut reader)?;
        let on_path: std::collections::HashSet<u32> = path_nodes.iter().copied().collect();
        let mut elsewhere = Vec::new();
        for (i, e) in s.index.entries.iter().enumerate() {
            if e.kind != Kind::Compaction || !s.tree.in_tree[i] || on_path.contains(&(i as u32)) {
                continue;
            }
            if elsewhere.len() == AUDIT_ELSEWHERE_MAX {
                break;
            }
            let tokens_before = line_value(&reader.line(i as u32)?).get("tokensBefore").and_then(Value::as_f64);
            elsewhere.push(AuditElsewhere { id: e.id_str().to_string(), line: e.line, tokens_before });
        }
        Ok(AuditView { path: pi_session::pathstr::encode(&s.index.path), leaf_id: leaf.map(str::to_string), compactions, edited, elsewhere })
    }
}

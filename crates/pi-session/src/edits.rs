//! The audit of pi 1.x `context_edit` entries: every context entry an edit replaces or drops,
//! with its original beside the replacement and the edit's line (as entries hidden by a
//! compaction are audited, see the app's `HiddenEntry`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use pi_session_format::entry::Kind;

use crate::context::{message_for_item, BodyReader, ContextPlan, Item, ItemKind};
use crate::text::preview::MAX;
use crate::text::{content_text, estimate_tokens, fold, line_value, message_preview, preview};
use crate::{Error, Session};

/// A context entry that a pi 1.x `context_edit` replaces or drops: the original beside the
/// replacement, with the edit's line (see `edits.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct EditedEntry {
    /// The edited entry.
    pub id: String,
    pub line: u32,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "ts", ts(rename = "type"))]
    pub kind: String,
    pub role: Option<String>,
    /// Plain-text preview of the original.
    pub preview: String,
    /// pi's `estimateTokens` of the original message.
    pub tokens: f64,
    /// The original message, as the context would hold it without the edit (untrusted).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub original: serde_json::Value,
    /// The replacement is `null`: the entry's messages leave the context.
    pub dropped: bool,
    /// Plain-text preview of the replacement content (`None` when dropped).
    pub replacement_preview: Option<String>,
    /// The message as the context holds it (`None` when dropped; untrusted).
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub replacement: Option<serde_json::Value>,
    /// The `context_edit` entry in effect (the latest for this target on the path).
    pub edit_id: String,
    pub edit_line: u32,
    pub edit_timestamp: Option<String>,
}

/// The entries of `plan` that a `context_edit` changes, in path order.
pub fn edited_entries(s: &Session, plan: &ContextPlan, reader: &mut BodyReader<'_>) -> Result<Vec<EditedEntry>, Error> {
    let mut out = Vec::with_capacity(plan.edits.len());
    for rec in &plan.edits {
        let e = &s.index.entries[rec.target as usize];
        let ed = &s.index.entries[rec.edit as usize];
        let text = reader.line(rec.target)?;
        // The target's message(s) as they would be without the edit.
        let kind = match e.kind {
            Kind::Message => Some(ItemKind::Message),
            Kind::CustomMessage => Some(ItemKind::CustomMessage),
            Kind::BranchSummary => Some(ItemKind::BranchSummary),
            Kind::Compaction => Some(ItemKind::CompactionSummary),
            _ => None,
        };
        let original: Value = match kind {
            Some(k) => serde_json::from_str(message_for_item(&s.index, reader, Item::new(rec.target, k))?.get()).unwrap_or(Value::Null),
            None => Value::Null,
        };
        let replaced: Option<Value> = match (kind, rec.dropped) {
            (Some(k), false) => {
                let it = Item { entry: rec.target, kind: k, edit: Some(rec.edit) };
                Some(serde_json::from_str(message_for_item(&s.index, reader, it)?.get()).unwrap_or(Value::Null))
            }
            _ => None,
        };
        let original_preview = if original.is_null() { preview(e, Some(&text)).text } else { message_preview(&original).text };
        let replacement_preview = replaced.as_ref().map(|m| fold(&m.get("content").map(content_text).unwrap_or_default(), MAX));
        let edit_value = line_value(&reader.line(rec.edit)?);
        out.push(EditedEntry {
            id: e.id_str().to_string(),
            line: e.line,
            kind: e.kind.as_str().to_string(),
            role: e.role().and_then(|r| r.as_str()).map(str::to_string),
            preview: original_preview,
            tokens: if original.is_null() { 0.0 } else { estimate_tokens(&original) },
            original,
            dropped: rec.dropped,
            replacement_preview,
            replacement: replaced,
            edit_id: ed.id_str().to_string(),
            edit_line: ed.line,
            edit_timestamp: edit_value.get("timestamp").and_then(Value::as_str).map(str::to_string),
        });
    }
    Ok(out)
}

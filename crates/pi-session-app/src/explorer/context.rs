//! The context view: what the LLM sees at an entry, what compaction hid, the compaction audit.

use std::collections::HashMap;

use serde_json::Value;
use pi_session_format::entry::{Detail, Kind, Role};
use pi_session::context::{BodyReader, ContextPlan, ItemKind};
use pi_session::text::{estimate_tokens, line_value, preview};
use pi_session::tree::Leaf;
use pi_session::{Error, Session};

use super::{Explorer, CONTEXT_PAGE};
use crate::api::*;

impl Explorer {
    // ------------------------------------------------------------------ context

    fn plan(&self, s: &Session, leaf: Option<&str>) -> Result<ContextPlan, Error> {
        let leaf = match leaf {
            None => Leaf::Null,
            Some(id) => Leaf::Entry(s.node(id)?),
        };
        Ok(ContextPlan::build(&s.index, &s.tree, leaf))
    }

    pub fn context_view(&self, path: &str, leaf: Option<&str>) -> Result<ContextView, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let plan = self.plan(&s, leaf)?;
        let mut reader = BodyReader::open(&s.index)?;
        let messages = context_messages(&s, &plan, &mut reader, 0, CONTEXT_PAGE)?;
        let token_estimate = token_estimate(&s, &plan, &mut reader)?;
        let compaction = match plan.compaction {
            Some(c) => Some(self.audit(&s, &plan, c, &mut reader)?),
            None => None,
        };
        Ok(ContextView {
            path: pi_session::pathstr::encode(&s.index.path),
            leaf_id: leaf.map(str::to_string),
            model: plan.model.clone(),
            thinking_level: plan.thinking_level.clone(),
            token_estimate,
            total_messages: plan.items.len() as u32,
            messages,
            compaction,
            hidden_total: plan.hidden.len() as u32,
            hidden: hidden_entries(&s, &plan, &mut reader, 0, CONTEXT_PAGE)?,
            edited: pi_session::edits::edited_entries(&s, &plan, &mut reader)?,
        })
    }

    pub fn context_page(&self, path: &str, leaf: Option<&str>, start: usize, count: usize) -> Result<Vec<ContextMessage>, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let plan = self.plan(&s, leaf)?;
        let mut reader = BodyReader::open(&s.index)?;
        context_messages(&s, &plan, &mut reader, start, count.min(2000))
    }

    pub fn hidden_page(&self, path: &str, leaf: Option<&str>, start: usize, count: usize) -> Result<Vec<HiddenEntry>, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let plan = self.plan(&s, leaf)?;
        let mut reader = BodyReader::open(&s.index)?;
        hidden_entries(&s, &plan, &mut reader, start, count.min(2000))
    }

    fn audit(&self, s: &Session, plan: &ContextPlan, c: u32, reader: &mut BodyReader<'_>) -> Result<CompactionAudit, Error> {
        let e = &s.index.entries[c as usize];
        let v = line_value(&reader.line(c)?);
        let first_kept = match &e.detail {
            Detail::Compaction { first_kept, .. } => first_kept.as_ref().map(|k| k.to_string()),
            _ => None,
        };
        // The first kept message: a tool result whose call was hidden breaks the pairing.
        let kept_first = plan.items.iter().skip(1).find(|it| {
            let p = plan.path.iter().position(|&x| x == it.entry);
            let cpos = plan.path.iter().position(|&x| x == c);
            matches!((p, cpos), (Some(p), Some(cp)) if p < cp)
        });
        let orphan = kept_first.is_some_and(|it| s.index.entries[it.entry as usize].role() == Some(&Role::ToolResult));
        let copied_from_parent = s
            .index
            .header
            .as_ref()
            .and_then(|h| h.parent_session.as_deref())
            .map(|ps| pi_session::forks::resolve_parent(ps, s.index.header.as_ref().and_then(|h| h.cwd.as_deref()), &self.root).0)
            .and_then(|pp| std::fs::canonicalize(pp).ok())
            .and_then(|real| self.session_at(&real).ok())
            .is_some_and(|ps| ps.read().unwrap().index.by_id.contains_key(e.id_str()));
        let earlier = plan
            .path
            .iter()
            .filter(|&&x| x != c && s.index.entries[x as usize].kind == Kind::Compaction)
            .map(|&x| s.id_of(x).to_string())
            .collect();
        Ok(CompactionAudit {
            id: e.id_str().to_string(),
            line: e.line,
            summary: v.get("summary").and_then(Value::as_str).unwrap_or("").to_string(),
            tokens_before: v.get("tokensBefore").and_then(Value::as_f64),
            first_kept_entry_id: first_kept,
            first_kept_dangling: plan.first_kept_dangling,
            kept_starts_with_orphan_tool_result: orphan,
            copied_from_parent,
            earlier,
        })
    }
}

fn context_messages(s: &Session, plan: &ContextPlan, reader: &mut BodyReader<'_>, start: usize, count: usize) -> Result<Vec<ContextMessage>, Error> {
    let cpos = plan.compaction.and_then(|c| plan.path.iter().position(|&x| x == c));
    let pos_of: HashMap<u32, usize> = if cpos.is_some() { plan.path.iter().enumerate().map(|(k, &x)| (x, k)).collect() } else { HashMap::new() };
    let end = (start + count).min(plan.items.len());
    let mut out = Vec::new();
    for k in start..end {
        let it = plan.items[k];
        let e = &s.index.entries[it.entry as usize];
        let raw = pi_session::context::message_for_item(&s.index, reader, it)?;
        let message: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
        let role = MessageRole::parse(message.get("role").and_then(Value::as_str).unwrap_or(""));
        let kept = match (cpos, it.kind) {
            (Some(cp), ItemKind::Message | ItemKind::CustomMessage | ItemKind::BranchSummary) => pos_of.get(&it.entry).is_some_and(|&p| p < cp),
            _ => false,
        };
        out.push(ContextMessage { index: k as u32, entry_id: e.id_str().to_string(), line: e.line, role, tokens: estimate_tokens(&message), message, kept });
    }
    Ok(out)
}

/// pi's estimate: the last usable assistant usage plus estimates of later messages (only the
/// bodies after that assistant are read).
fn token_estimate(s: &Session, plan: &ContextPlan, reader: &mut BodyReader<'_>) -> Result<f64, Error> {
    let last = plan.items.iter().rposition(|it| {
        it.kind == ItemKind::Message
            && matches!(&s.index.entries[it.entry as usize].detail,
                Detail::Message { role: Role::Assistant, meta: Some(m), .. }
                    if m.usage.is_some() && !matches!(m.stop_reason.as_deref(), Some("aborted") | Some("error")))
    });
    let from = last.unwrap_or(0);
    let mut msgs = Vec::new();
    for it in &plan.items[from..] {
        let raw = pi_session::context::message_for_item(&s.index, reader, *it)?;
        msgs.push(serde_json::from_str(raw.get()).unwrap_or(Value::Null));
    }
    Ok(pi_session::text::estimate_context_tokens(&msgs))
}

fn hidden_entries(s: &Session, plan: &ContextPlan, reader: &mut BodyReader<'_>, start: usize, count: usize) -> Result<Vec<HiddenEntry>, Error> {
    let end = (start + count).min(plan.hidden.len());
    let mut out = Vec::new();
    for &i in plan.hidden.get(start..end).unwrap_or_default() {
        let e = &s.index.entries[i as usize];
        let text = reader.line(i)?;
        let p = preview(e, Some(&text));
        let tokens = if e.kind == Kind::Message { line_value(&text).get("message").map(estimate_tokens).unwrap_or(0.0) } else { 0.0 };
        out.push(HiddenEntry {
            id: e.id_str().to_string(),
            line: e.line,
            kind: e.kind.as_str().to_string(),
            role: MessageRole::of(e),
            preview: p.text,
            tokens,
        });
    }
    Ok(out)
}

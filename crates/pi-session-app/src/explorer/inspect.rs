//! The inspector: one entry in detail.

use pi_session::context::{BodyReader, ContextPlan};
use pi_session::text::line_value;
use pi_session::tree::Leaf;
use pi_session::Error;

use super::Explorer;
use crate::api::*;

impl Explorer {
    // ------------------------------------------------------------------ inspector

    pub fn entry_detail(&self, path: &str, id: &str) -> Result<EntryDetail, Error> {
        let s = self.session(path)?;
        let s = s.read().unwrap();
        let i = s.node(id)?;
        let e = &s.index.entries[i as usize];
        let mut reader = BodyReader::open(&s.index)?;
        let raw = line_value(&reader.line(i)?);
        let path_nodes = s.tree.path_to(i);
        let (mut path_tokens, mut path_cost) = (0.0, 0.0);
        for &p in &path_nodes {
            if let Some(u) = s.index.entries[p as usize].billed_usage() {
                path_tokens += u.tokens();
                path_cost += u.cost;
            }
        }
        let plan = ContextPlan::build(&s.index, &s.tree, Leaf::Entry(i));
        let on_path: std::collections::HashSet<u32> = s.tree.active_path().into_iter().collect();
        Ok(EntryDetail {
            path: pi_session::pathstr::encode(&s.index.path),
            id: id.to_string(),
            parent_id: e.parent.id().map(|p| p.to_string()),
            line: e.line,
            kind: EntryType::from(&e.kind),
            role: MessageRole::of(e),
            timestamp: (!e.ts.is_nan()).then_some(e.ts),
            label: s.tree.labels.get(id).map(|l| l.text.clone()),
            on_path: on_path.contains(&i),
            is_leaf: s.effective_leaf() == Some(i),
            depth: s.tree.depth[i as usize],
            // Bookkeeping lines (a label line hangs off the leaf) are not children a user sees.
            child_ids: super::transcript::visible_children_of(&s, &s.tree.children[i as usize]).iter().map(|&c| s.id_of(c).to_string()).collect(),
            raw,
            usage: e.usage().copied(),
            path_tokens,
            path_cost,
            model: plan.model,
            thinking_level: plan.thinking_level,
            diagnostics: s.diagnostics().into_iter().filter(|d| d.line == Some(e.line)).collect(),
            can_fork_before: e.is_user() && s.index.read_only().is_none(),
            resume: super::resume::resume_at(&s, i),
        })
    }
}

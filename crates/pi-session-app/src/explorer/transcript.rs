//! The transcript: the active path as a page of messages, sibling steps, Markdown.

use pi_session_format::entry::Kind;
use pi_session::context::BodyReader;
use pi_session::text::line_value;
use pi_session::tree::NONE;
use pi_session::{Error, Session};

use super::Explorer;
use crate::api::*;

impl Explorer {
    // ------------------------------------------------------------------ transcript

    /// The active path in the default filter (no bookkeeping, model or thinking changes).
    fn transcript_nodes(s: &Session) -> Vec<u32> {
        s.tree.active_path().into_iter().filter(|&i| in_transcript(&s.index.entries[i as usize].kind)).collect()
    }

    pub fn transcript_page(&self, path: &str, start: usize, count: usize) -> Result<TranscriptPage, Error> {
        self.transcript_page_at(path, None, start, count)
    }

    /// The transcript of the path to `view_leaf` instead of the session's leaf (a view-only
    /// override: read-only branch switching shows the other branch without writing). `None` is
    /// the session's own active path.
    pub fn transcript_page_at(&self, path: &str, view_leaf: Option<&str>, start: usize, count: usize) -> Result<TranscriptPage, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let nodes = match view_leaf {
            None => Self::transcript_nodes(&s),
            Some(id) => {
                let i = s.node(id)?;
                s.tree.path_to(i).into_iter().filter(|&k| in_transcript(&s.index.entries[k as usize].kind)).collect()
            }
        };
        let mut reader = BodyReader::open(&s.index)?;
        let end = (start + count.min(1000)).min(nodes.len());
        let mut items = Vec::with_capacity(end.saturating_sub(start));
        for (k, &i) in nodes.iter().enumerate().take(end).skip(start) {
            let e = &s.index.entries[i as usize];
            items.push(TranscriptItem {
                index: k as u32,
                id: e.id_str().to_string(),
                line: e.line,
                kind: EntryType::from(&e.kind),
                role: MessageRole::of(e),
                ts: (!e.ts.is_nan()).then_some(e.ts),
                label: s.tree.labels.get(e.id_str()).map(|l| l.text.clone()),
                raw: line_value(&reader.line(i)?),
                siblings: siblings(&s, i),
            });
        }
        Ok(TranscriptPage {
            path: pi_session::pathstr::encode(&s.index.path),
            leaf_id: match view_leaf {
                Some(id) => Some(id.to_string()),
                None => s.leaf_id().map(str::to_string),
            },
            total: nodes.len() as u32,
            start: start as u32,
            items,
        })
    }

    /// Steps to sibling `to`: the view moves to the newest entry (in file order) of its
    /// subtree. Shown, never written: browsing branches leaves the file as it is (the window's
    /// "Resume pi here" is the write).
    pub fn switch_branch(&self, path: &str, to: &str) -> Result<SwitchResult, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let i = s.node(to)?;
        Ok(SwitchResult { leaf_id: newest_in_subtree(&s, i) })
    }

    /// The active path (or the given entries) as Markdown.
    pub fn transcript_markdown(&self, path: &str, ids: Option<&[String]>) -> Result<String, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let nodes: Vec<u32> = match ids {
            Some(ids) => ids.iter().filter_map(|id| s.node(id).ok()).collect(),
            None => Self::transcript_nodes(&s),
        };
        pi_session::text::markdown::transcript(&s, &nodes)
    }
}

fn in_transcript(k: &Kind) -> bool {
    // pi 1.x `usage` and `context_edit` entries are shown too (distinct items in the UI).
    matches!(k, Kind::Message | Kind::CustomMessage | Kind::Compaction | Kind::BranchSummary | Kind::Usage | Kind::ContextEdit)
}

/// Visible (default filter) siblings of a transcript entry, whatever their kinds (user,
/// assistant, tool result, branch summary, compaction, custom message): every branch point on
/// the path gets a switcher. Bookkeeping lines are transparent.
pub(crate) fn siblings(s: &Session, i: u32) -> Option<Siblings> {
    if !in_transcript(&s.index.entries[i as usize].kind) {
        return None;
    }
    // The nearest visible ancestor.
    let mut vp = s.tree.parent[i as usize];
    while vp != NONE && s.index.entries[vp as usize].kind.is_bookkeeping() {
        vp = s.tree.parent[vp as usize];
    }
    let first: &[u32] = if vp == NONE { &s.tree.roots } else { &s.tree.children[vp as usize] };
    let sibs: Vec<u32> = visible_children_of(s, first).into_iter().filter(|&c| in_transcript(&s.index.entries[c as usize].kind)).collect();
    if sibs.len() < 2 {
        return None;
    }
    let k = sibs.iter().position(|&x| x == i)?;
    Some(Siblings {
        index: k as u32 + 1,
        count: sibs.len() as u32,
        prev_id: k.checked_sub(1).map(|p| s.id_of(sibs[p]).to_string()),
        next_id: sibs.get(k + 1).map(|&n| s.id_of(n).to_string()),
    })
}

/// The children of a node as the default view draws them: a bookkeeping child (a label or leaf
/// line) is transparent, its own children stand in its place, in order.
pub(crate) fn visible_children_of(s: &Session, first: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack: Vec<u32> = first.iter().rev().copied().collect();
    while let Some(c) = stack.pop() {
        if s.index.entries[c as usize].kind.is_bookkeeping() {
            stack.extend(s.tree.children[c as usize].iter().rev());
        } else {
            out.push(c);
        }
    }
    out
}

/// The id of the entry of `i`'s subtree written last (largest line), not a bookkeeping line.
pub fn newest_in_subtree(s: &Session, i: u32) -> String {
    let mut best = i;
    let mut stack = vec![i];
    while let Some(n) = stack.pop() {
        if n > best && !s.index.entries[n as usize].kind.is_bookkeeping() {
            best = n;
        }
        stack.extend(s.tree.children[n as usize].iter().copied());
    }
    s.id_of(best).to_string()
}

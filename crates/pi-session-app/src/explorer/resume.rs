//! "Resume pi here": where pi resumes when the leaf is moved to an entry, by pi's own `/tree`
//! rule (pi 0.73.1 and 1.6.0 alike, `AgentSession.navigateTree`): on a user message or a custom
//! message the leaf goes to the message's parent and pi puts the message's text back in its
//! editor, to edit and send as another branch; on any other entry the leaf goes to the entry
//! and the editor stays empty. Browsing (the tree, the transcript's switcher) never writes; this
//! is the one action that moves the leaf, and the window says what pi will do before it does.

use pi_session::tree::NONE;
use pi_session::Session;
use pi_session_format::entry::Kind;

use crate::api::ResumeAt;

/// Where "Resume pi here" on entry `i` puts pi's leaf, and what pi does then.
///
/// A parent that is a bookkeeping line (a label or leaf line pi appended after) stands for the
/// entry above it: pi's context there is the same, and the `leaf` line names an entry both pis
/// resolve. A bookkeeping entry itself resumes at the entry above it, as its leaf chip shows.
pub fn resume_at(s: &Session, i: u32) -> ResumeAt {
    let e = &s.index.entries[i as usize];
    let to_editor = e.is_user() || e.kind == Kind::CustomMessage;
    let mut at = if to_editor { s.tree.parent[i as usize] } else { i };
    while at != NONE && s.index.entries[at as usize].kind.is_bookkeeping() {
        at = s.tree.parent[at as usize];
    }
    let target = (at != NONE).then_some(at);
    let current = s.effective_leaf() == target;
    let what = if e.kind == Kind::CustomMessage { "custom message" } else { "message" };
    let note = match (to_editor, target) {
        (true, Some(t)) => format!(
            "pi resumes at the entry before this {what} ({}) and puts the {what}'s text back in its editor, as pi's /tree does: edit it and send it to start another branch.",
            short(s.id_of(t))
        ),
        (true, None) => format!("pi resumes before the first entry and puts this {what}'s text back in its editor, as pi's /tree does: edit it and send it to start another branch."),
        (false, _) => "pi resumes at this entry: the next message sent in pi continues from here (the editor stays empty).".to_string(),
    };
    ResumeAt { target_id: target.map(|t| s.id_of(t).to_string()), current, to_editor, note }
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

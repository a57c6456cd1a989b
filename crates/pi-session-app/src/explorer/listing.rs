//! The sidebar list and the fork graph.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pi_session_format::diag::{DiagKind, Severity};
use pi_session::summary::SessionSummary;
use pi_session::text::title_of;

use super::{Explorer, ProgressSink, Snapshot};
use crate::api::*;

impl Explorer {
    // ------------------------------------------------------------------ list and forks

    /// Where indexing progress goes.
    pub fn set_progress_sink(&self, sink: ProgressSink) {
        *self.lister.progress.lock().unwrap() = Some(sink);
    }

    /// The listing: unchanged files from the persistent cache, a few changed ones indexed now,
    /// many (a first start on a big root) in the background with progress reports, showing
    /// header-only summaries meanwhile.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.lister.snapshot()
    }

    /// From now on a watcher reports every change under the root ([`Explorer::root_changed`]):
    /// listings are reused until one comes.
    pub fn set_watched(&self) {
        self.lister.state.lock().unwrap().watched = true;
    }

    /// Files under the root changed: the next listing reads them again.
    pub fn root_changed(&self) {
        self.lister.state.lock().unwrap().invalidate();
        self.other_roots_changed();
    }

    /// Builds the listing ahead of the first request (the app calls this while its window
    /// starts), after the watcher is set, so the first `list_sessions` finds it ready.
    pub fn prepare(&self) {
        let _ = self.lister.snapshot_on(false);
    }

    /// The last snapshot if it is recent, else a new one.
    pub(super) fn recent_snapshot(&self) -> Arc<Snapshot> {
        if let Some(s) = self.lister.state.lock().unwrap().last.clone() {
            if s.at.elapsed() < Duration::from_millis(1500) {
                return s;
            }
        }
        self.snapshot()
    }

    /// The sidebar list; with `limit`, only that many of the most recently modified sessions
    /// (and the parents they were forked from), for a quick first screen.
    pub fn list_sessions(&self, limit: Option<usize>) -> SessionList {
        if self.is_multi() {
            return self.list_sessions_multi(limit);
        }
        let snap = self.snapshot();
        let l = &snap.listing;
        let (keep, limited) = most_recent(&l.sessions, &snap.forks, limit);
        let sessions: Vec<SessionRow> = keep.iter().map(|&i| session_row(&l.sessions[i], &snap.forks[i])).collect();
        SessionList {
            root: pi_session::pathstr::encode(&self.root),
            sessions,
            other: l.other.iter().map(|o| path_note(&o.path, &o.diagnostic)).collect(),
            indexed: snap.indexed as u32,
            total: snap.total as u32,
            limited,
        }
    }

    pub fn fork_graph(&self) -> ForkGraph {
        if self.is_multi() {
            return self.fork_graph_multi();
        }
        let snap = self.recent_snapshot();
        let l = &snap.listing;
        let forks = &snap.forks;
        let mut nodes: Vec<ForkNode> = l
            .sessions
            .iter()
            .zip(forks.iter())
            .map(|(s, f)| fork_node(s, f, None))
            .collect();
        nodes.extend(snap.outside.iter().map(outside_node));
        ForkGraph { nodes }
    }
}

/// A session of the fork graph, with its link to its parent (`root`: in a view of several).
pub(super) fn fork_node(s: &SessionSummary, f: &pi_session::forks::ForkInfo, root: Option<String>) -> ForkNode {
    ForkNode {
        path: pi_session::pathstr::encode(&s.path),
        id: s.id.clone(),
        title: title_of(s),
        cwd: s.cwd.clone(),
        created: s.timestamp.clone(),
        modified: s.modified,
        entry_count: s.entry_count as u32,
        parent_path: f.parent_path.as_ref().map(|p| pi_session::pathstr::encode(p)),
        fork_point_id: f.fork_point_id.clone(),
        fork_point_line: f.fork_point_line,
        fork_point_preview: f.fork_point_preview.clone(),
        fork_point_entry: f.fork_point_entry,
        parent_entries: f.parent_entries,
        copy: f.copy,
        status: f.status,
        parent_session: f.parent_session.clone(),
        kind: f.kind,
        spawned_by: f.spawned_by.clone(),
        spawned_by_tool_call: f.spawned_by_tool_call.clone(),
        spawned_by_guess: f.spawned_by_guess,
        own_tokens: f.own_tokens,
        own_cost: f.own_cost,
        family_tokens: f.family_tokens,
        family_cost: f.family_cost,
        family_size: f.family_size,
        root,
    }
}

/// A child outside the roots (status `outside-roots`): its path, its id and its link; nothing
/// else of it is read.
pub(super) fn outside_node(f: &pi_session::forks::ForkInfo) -> ForkNode {
    let s = SessionSummary { path: f.path.clone(), id: f.id.clone(), parent_session: f.parent_session.clone(), ..Default::default() };
    fork_node(&s, f, None)
}

/// The sessions a listing with `limit` keeps (indexes, in listing order): the `limit` most
/// recently modified ones and, transitively, the sessions they were forked from. Whether
/// anything was left out.
pub(super) fn most_recent(sessions: &[SessionSummary], forks: &[pi_session::forks::ForkInfo], limit: Option<usize>) -> (Vec<usize>, bool) {
    let mut keep: Vec<usize> = (0..sessions.len()).collect();
    let Some(n) = limit.filter(|&n| n < keep.len()) else { return (keep, false) };
    keep.sort_by(|&a, &b| sessions[b].modified.unwrap_or(0.0).total_cmp(&sessions[a].modified.unwrap_or(0.0)));
    keep.truncate(n);
    let by_path: HashMap<&Path, usize> = sessions.iter().enumerate().map(|(i, s)| (s.path.as_path(), i)).collect();
    let mut seen: std::collections::HashSet<usize> = keep.iter().copied().collect();
    let mut k = 0;
    while k < keep.len() {
        let parent = forks[keep[k]].parent_path.as_deref().and_then(|p| by_path.get(p)).copied();
        if let Some(p) = parent.filter(|p| seen.insert(*p)) {
            keep.push(p);
        }
        k += 1;
    }
    keep.sort_unstable();
    (keep, true)
}

pub(super) fn session_row(s: &SessionSummary, f: &pi_session::forks::ForkInfo) -> SessionRow {
    let count = |sev| s.diagnostics.iter().filter(|d| d.severity == sev).count() as u32;
    SessionRow {
        path: pi_session::pathstr::encode(&s.path),
        id: s.id.clone(),
        cwd: s.cwd.clone(),
        title: title_of(s),
        name: s.name.clone(),
        created: s.timestamp.clone(),
        modified: s.modified,
        entry_count: s.entry_count as u32,
        message_count: s.message_count as u32,
        branch_points: s.branch_points as u32,
        tokens: s.tokens,
        cost: s.cost,
        size: s.size as f64,
        leaf_id: s.leaf_id.clone(),
        parent_path: f.parent_path.as_ref().map(|p| pi_session::pathstr::encode(p)),
        fork_point_id: f.fork_point_id.clone(),
        fork_status: f.status,
        parent_session: f.parent_session.clone(),
        kind: f.kind,
        spawned_by: f.spawned_by.clone(),
        spawned_by_tool_call: f.spawned_by_tool_call.clone(),
        spawned_by_guess: f.spawned_by_guess,
        own_tokens: f.own_tokens,
        own_cost: f.own_cost,
        family_tokens: f.family_tokens,
        family_cost: f.family_cost,
        family_size: f.family_size,
        copy: f.copy,
        has_entries: s.entry_count > 0 || s.first_user_message.is_some(),
        pi_note: s.diagnostics.iter().find_map(|d| what_pi_does(d.kind)).map(str::to_string),
        read_only: s.read_only.as_ref().map(|r| serde_json::to_value(r).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        root: None,
        diverged_at: None,
    }
}

/// A path under the root that is not listed as a session, with what pi does with it.
pub(super) fn path_note(path: &Path, d: &pi_session_format::diag::Diagnostic) -> PathNote {
    PathNote { path: pi_session::pathstr::encode(path), diagnostic: d.clone(), pi_note: what_pi_does(d.kind).map(str::to_string) }
}

/// What pi 0.73.1 and pi 1.6.0 do with a file that has this finding, when it is not what they
/// do with any session (docs/differences.md rows 1, 2 and 10; docs/damage.md).
pub fn what_pi_does(kind: DiagKind) -> Option<&'static str> {
    Some(match kind {
        DiagKind::NotASession | DiagKind::MissingHeader => {
            "pi's session list (/resume) leaves it out: it has no valid header. Opened with pi --session: pi 0.73.1 drops its lines and overwrites the file with an empty session; pi 1.6.0 refuses it (\"not a valid pi session\") and leaves it alone."
        }
        DiagKind::EmptyFile => "pi's session list (/resume) leaves it out: it has no header. Opened with pi --session, pi 0.73.1 and 1.6.0 write a fresh header into it and start an empty session.",
        DiagKind::RefusedByPi1 => "pi 0.73.1 trims the bytes before the header and reads it; pi 1.6.0 refuses it (\"not a valid pi session\") and /resume hides it.",
        DiagKind::OldVersion => "pi (0.73.1 and 1.6.0) converts it when it opens it and rewrites the file, with new random ids for a version 1 file.",
        DiagKind::Unreadable => "pi's session list (/resume) leaves out a file it cannot read.",
        _ => return None,
    })
}

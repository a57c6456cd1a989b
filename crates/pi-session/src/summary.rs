//! One line per session for the list: the `pi-session list --json` shape.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Serialize;

use crate::context::BodyReader;
use crate::diag::{DiagKind, Diagnostic, Severity};
use crate::entry::{Detail, Role};
use crate::scan::{scan, Scan};
use crate::{ReadOnlyReason, Session};

/// The list entry of one session file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub path: PathBuf,
    pub id: Option<String>,
    pub cwd: Option<String>,
    pub timestamp: Option<String>,
    pub version: Option<f64>,
    pub parent_session: Option<String>,
    pub name: Option<String>,
    pub entry_count: usize,
    pub leaf_id: Option<String>,
    pub first_user_message: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// Bytes on disk.
    pub size: u64,
    /// Milliseconds since the epoch: the newest message timestamp, else the header's, else mtime.
    pub modified: Option<f64>,
    pub message_count: usize,
    pub tokens: f64,
    pub cost: f64,
    /// Entries with more than one child.
    pub branch_points: usize,
    pub read_only: Option<ReadOnlyReason>,
}

impl SessionSummary {
    pub fn of(s: &Session, size: u64) -> SessionSummary {
        let ix = &s.index;
        let h = ix.header.as_ref();
        let mut message_count = 0;
        let (mut tokens, mut cost) = (0.0, 0.0);
        let mut newest: Option<f64> = None;
        let mut first_user = None;
        for (i, e) in ix.entries.iter().enumerate() {
            if let Detail::Message { role, usage, msg_ts, .. } = &e.detail {
                message_count += 1;
                if let Some(u) = usage {
                    tokens += u.total_tokens;
                    cost += u.cost;
                }
                if matches!(role, Role::User | Role::Assistant) {
                    let t = msg_ts.unwrap_or(e.ts);
                    if !t.is_nan() {
                        newest = Some(newest.map_or(t, |n: f64| n.max(t)));
                    }
                }
                if first_user.is_none() && *role == Role::User {
                    first_user = Some(i as u32);
                }
            }
        }
        let header_ts = h.and_then(|h| h.timestamp.as_deref()).and_then(crate::json::parse_iso_ms);
        let mtime = (ix.stamp.mtime_ns > 0).then_some((ix.stamp.mtime_ns / 1_000_000) as f64);
        let first_user_message = first_user.and_then(|i| {
            let mut r = BodyReader::open(ix).ok()?;
            let text = r.line(i).ok()?;
            Some(crate::view::first_text_of_line(&text, 500))
        });
        SessionSummary {
            path: ix.path.clone(),
            id: h.and_then(|h| h.id.clone()),
            cwd: h.and_then(|h| h.cwd.clone()),
            timestamp: h.and_then(|h| h.timestamp.clone()),
            version: h.and_then(|h| h.version),
            parent_session: h.and_then(|h| h.parent_session.clone()),
            name: s.tree.name.clone(),
            entry_count: ix.entries.len(),
            leaf_id: s.leaf_id().map(str::to_string),
            first_user_message,
            diagnostics: s.diagnostics(),
            size,
            modified: newest.or(header_ts).or(mtime),
            message_count,
            tokens,
            cost,
            branch_points: s.tree.children.iter().filter(|c| c.len() > 1).count(),
            read_only: ix.read_only(),
        }
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }

    /// True when the file holds no pi session at all (no header anywhere and no entries).
    pub fn is_session(&self) -> bool {
        self.id.is_some() || self.entry_count > 0
    }
}

/// The `list` answer.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    pub root: PathBuf,
    pub sessions: Vec<SessionSummary>,
    /// Paths under the root that are not readable session files.
    pub other: Vec<PathFinding>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PathFinding {
    pub path: PathBuf,
    #[serde(flatten)]
    pub diagnostic: Diagnostic,
}

/// Indexes every session under `root` in parallel (biggest files first) and summarises each.
pub fn list(root: &Path) -> Listing {
    let Scan { mut files, findings } = scan(root);
    files.sort_by_key(|f| std::cmp::Reverse(f.size));
    let mut results: Vec<(PathBuf, Result<SessionSummary, crate::Error>)> = files
        .par_iter()
        .map(|f| (f.path.clone(), Session::open(&f.path).map(|s| SessionSummary::of(&s, f.size))))
        .collect();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    let mut sessions = Vec::new();
    let mut other: Vec<PathFinding> = findings.into_iter().map(|(path, diagnostic)| PathFinding { path, diagnostic }).collect();
    for (path, r) in results {
        match r {
            Ok(s) => {
                if !s.is_session() && s.size > 0 {
                    other.push(PathFinding {
                        path,
                        diagnostic: Diagnostic::new(None, DiagKind::NotASession, "a .jsonl file without a pi session header or entries"),
                    });
                } else {
                    sessions.push(s);
                }
            }
            Err(e) => other.push(PathFinding { path, diagnostic: Diagnostic::new(None, DiagKind::Unreadable, e.to_string()) }),
        }
    }
    Listing { root: root.to_path_buf(), sessions, other }
}

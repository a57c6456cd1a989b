//! How the CLI prints: link and summary lines, sizes, diagnostics, a context, `list --json`'s rows.

use pi_session::forks::ForkStatus;
use pi_session::summary::SessionSummary;
use pi_session::view::ContextJson;
use pi_session::{Leaf, Session};
use serde::Serialize;

/// A session of `list --json` with its lineage fields.
#[derive(Serialize)]
pub(crate) struct Listed<'a, S: Serialize> {
    #[serde(flatten)]
    pub session: &'a S,
    #[serde(flatten)]
    pub lineage: pi_session::forks::ListFields<'a>,
}

/// `PARENT <- CHILD  fork at ID` / `spawn by ENTRY (tool call C)`, and the status when not ok.
pub(crate) fn link_line(f: &pi_session::forks::ForkInfo) -> String {
    use pi_session::forks::LinkKind;
    let how = match f.kind {
        Some(LinkKind::Fork) => format!("fork at {}", f.fork_point_id.as_deref().unwrap_or("?")),
        Some(LinkKind::Spawn) => {
            let call = f.spawned_by_tool_call.as_deref().map(|c| format!(" (tool call {c})")).unwrap_or_default();
            format!("spawned by {}{call}{}", f.spawned_by.as_deref().unwrap_or("?"), if f.spawned_by_guess { " (guessed from the time)" } else { "" })
        }
        None => "not read".to_string(),
    };
    let status = match f.status {
        ForkStatus::Ok => String::new(),
        ForkStatus::Relinked => format!("  [relinked: recorded {}]", f.parent_session.as_deref().unwrap_or("")),
        ForkStatus::ParentMissing => "  [parent missing]".into(),
        ForkStatus::ParentMismatch => format!("  [recorded path holds another session: {}]", f.stale_path_id.as_deref().unwrap_or("?")),
        ForkStatus::ParentOutside => "  [parent outside the root]".into(),
        ForkStatus::Cycle => "  [cycle]".into(),
        ForkStatus::OutsideRoots => "  [child outside the roots]".into(),
    };
    format!("{} <- {}  {how}{status}", f.parent_path.as_deref().map(|p| p.display().to_string()).unwrap_or_default(), f.path.display())
}

pub(crate) fn summary_line(s: &SessionSummary) -> String {
    let title = s.name.clone().or_else(|| s.first_user_message.clone()).unwrap_or_else(|| "(no messages)".into());
    let title = pi_session::text::fold(&title, 60);
    let flag = if s.has_errors() { " !" } else { "" };
    format!(
        "  {}  {:>6} entries  {}  {}{}\n      {}",
        s.timestamp.as_deref().unwrap_or("?"),
        s.entry_count,
        s.cwd.as_deref().unwrap_or("?"),
        title,
        flag,
        s.path.display()
    )
}

/// A byte count for people: `812 B`, `45.2 KB`, `12.3 MB`.
pub(crate) fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} KB", b as f64 / 1e3),
        b if b < 1_000_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b => format!("{:.2} GB", b as f64 / 1e9),
    }
}

pub(crate) fn print_diags(d: &[pi_session::Diagnostic]) {
    for d in d {
        let line = d.line.map(|l| format!("line {l}: ")).unwrap_or_default();
        println!("  {:?} {}: {}{}", d.severity, d.kind, line, d.message);
    }
}

pub(crate) fn print_context(s: &Session, leaf: Leaf, c: &ContextJson) {
    let at = match leaf {
        Leaf::Null => "before the first entry".to_string(),
        Leaf::Entry(i) => format!("entry {}", s.id_of(i)),
    };
    let model = c.model.as_ref().map(|m| format!("{}/{}", m.provider.as_deref().unwrap_or("?"), m.model_id.as_deref().unwrap_or("?")));
    println!(
        "context at {at}: {} messages, model {}, thinking {}",
        c.messages.len(),
        model.as_deref().unwrap_or("none"),
        c.thinking_level.as_deref().unwrap_or("?")
    );
    for (m, id) in c.messages.iter().zip(&c.entry_ids) {
        let v: serde_json::Value = serde_json::from_str(m.get()).unwrap_or_default();
        let role = v.get("role").and_then(|r| r.as_str()).unwrap_or("?").to_string();
        let text = match role.as_str() {
            "compactionSummary" | "branchSummary" => v.get("summary").and_then(|s| s.as_str()).unwrap_or("").to_string(),
            _ => v.get("content").map(pi_session::text::content_text).unwrap_or_default(),
        };
        println!("  {id:>10}  {role:<18} {}", pi_session::text::fold(&text, 90));
    }
    if !c.hidden_entry_ids.is_empty() {
        println!("  hidden by compaction: {} entries", c.hidden_entry_ids.len());
    }
}

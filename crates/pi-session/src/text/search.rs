//! The searchable text of an entry: what the scan of the window's search and the full-text index
//! (`pi-session-find`) both match.

use pi_session_format::entry::{Entry, Kind};
use serde_json::Value;

use super::plain::{content_text, line_value};

/// The searchable text of an entry line: message text, tool names and arguments, thinking,
/// summaries, names, labels, model changes (one rule for the scan and the search index).
pub fn searchable_text(e: &Entry, line: &str) -> String {
    let v = line_value(line);
    match &e.kind {
        Kind::Message => {
            let m = v.get("message").unwrap_or(&Value::Null);
            let mut t = content_text(m.get("content").unwrap_or(&Value::Null));
            if let Some(a) = m.get("content").and_then(Value::as_array) {
                for b in a {
                    match b.get("type").and_then(Value::as_str) {
                        Some("toolCall") => {
                            t.push(' ');
                            t.push_str(b.get("name").and_then(Value::as_str).unwrap_or(""));
                            t.push(' ');
                            t.push_str(&b.get("arguments").map(|a| a.to_string()).unwrap_or_default());
                        }
                        Some("thinking") => {
                            t.push(' ');
                            t.push_str(b.get("thinking").and_then(Value::as_str).unwrap_or(""));
                        }
                        _ => {}
                    }
                }
            }
            for k in ["command", "output", "toolName", "errorMessage"] {
                if let Some(x) = m.get(k).and_then(Value::as_str) {
                    t.push(' ');
                    t.push_str(x);
                }
            }
            t
        }
        Kind::Compaction | Kind::BranchSummary => v.get("summary").and_then(Value::as_str).unwrap_or("").to_string(),
        Kind::CustomMessage => content_text(v.get("content").unwrap_or(&Value::Null)),
        Kind::SessionInfo => v.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
        Kind::Label => v.get("label").and_then(Value::as_str).unwrap_or("").to_string(),
        Kind::ModelChange => format!("{} {}", v.get("provider").and_then(Value::as_str).unwrap_or(""), v.get("modelId").and_then(Value::as_str).unwrap_or("")),
        _ => String::new(),
    }
}

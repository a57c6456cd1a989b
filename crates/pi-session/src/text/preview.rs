//! One-line plain-text previews of entries, for tree rows, hidden-entry lists and search.

use pi_session_format::entry::{Detail, Entry, Kind};
use serde_json::Value;

use super::plain::{content_text, fold, line_value};

/// A short plain-text view of an entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preview {
    /// At most `MAX` characters, whitespace folded.
    pub text: String,
    /// Tool name, custom type, model, exit code…
    pub detail: Option<String>,
    pub is_error: bool,
}

pub const MAX: usize = 200;

/// Previews an entry. `line` is the text of its line (when the body is needed).
pub fn preview(e: &Entry, line: Option<&str>) -> Preview {
    // Entries whose skeleton says it all.
    match &e.detail {
        Detail::ModelChange { provider, model_id } => {
            let m = format!("{}/{}", provider.as_deref().unwrap_or("?"), model_id.as_deref().unwrap_or("?"));
            return Preview { text: m.clone(), detail: Some(m), is_error: false };
        }
        Detail::ThinkingLevel(l) => return Preview { text: format!("thinking {}", l.as_deref().unwrap_or("?")), ..Default::default() },
        Detail::Label { target, label } => {
            let t = target.as_deref().unwrap_or("?");
            let text = match label {
                Some(l) => format!("label {t}: {}", fold(l, MAX)),
                None => format!("clear label on {t}"),
            };
            return Preview { text, ..Default::default() };
        }
        Detail::SessionInfo { name } => {
            return Preview { text: format!("name: {}", name.as_deref().unwrap_or("(cleared)")), ..Default::default() };
        }
        Detail::Leaf { target, .. } => {
            return Preview { text: format!("leaf → {}", target.as_deref().unwrap_or("before the first entry")), ..Default::default() };
        }
        Detail::Custom { custom_type } => {
            return Preview { text: format!("extension state {}", custom_type.as_deref().unwrap_or("")), detail: custom_type.as_ref().map(|s| s.to_string()), is_error: false };
        }
        _ => {}
    }
    let Some(line) = line else { return Preview { text: e.kind.as_str().to_string(), ..Default::default() } };
    let v = line_value(line);
    match &e.kind {
        Kind::Message => message_preview(v.get("message").unwrap_or(&Value::Null)),
        Kind::Compaction => Preview {
            text: fold(v.get("summary").and_then(Value::as_str).unwrap_or(""), MAX),
            detail: v.get("tokensBefore").and_then(Value::as_f64).map(|t| format!("{t} tokens before")),
            is_error: false,
        },
        Kind::BranchSummary => Preview { text: fold(v.get("summary").and_then(Value::as_str).unwrap_or(""), MAX), ..Default::default() },
        // pi 1.x entries.
        Kind::Usage => {
            let f = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
            let tokens = match &e.detail {
                Detail::Usage { usage: Some(u) } => format!(" · {} tokens", u.tokens()),
                _ => String::new(),
            };
            let note = v.get("note").and_then(Value::as_str).map(|n| format!(" · {n}")).unwrap_or_default();
            Preview { text: fold(&format!("{} {}/{}{tokens}{note}", f("kind"), f("provider"), f("model")), MAX), detail: v.get("kind").and_then(Value::as_str).map(str::to_string), is_error: false }
        }
        Kind::ContextEdit => {
            let target = v.get("targetId").and_then(Value::as_str).unwrap_or("?");
            let text = match v.get("replacement") {
                Some(Value::Null) => format!("drops {target} from the context"),
                Some(r) => format!("replaces {target}: {}", r.get("content").map(content_text).unwrap_or_default()),
                None => format!("edit of {target} without a replacement"),
            };
            Preview { text: fold(&text, MAX), detail: Some(target.to_string()), is_error: false }
        }
        Kind::CustomMessage => Preview {
            text: fold(&v.get("content").map(content_text).unwrap_or_default(), MAX),
            detail: v.get("customType").and_then(Value::as_str).map(str::to_string),
            is_error: false,
        },
        other => {
            Preview { text: fold(&format!("{} {}", other.as_str(), compact_json(&v, 160)), MAX), ..Default::default() }
        }
    }
}

fn compact_json(v: &Value, max: usize) -> String {
    let mut s = serde_json::to_string(v).unwrap_or_default();
    if s.len() > max {
        let mut cut = max;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

/// Preview of a message object (any role).
pub fn message_preview(m: &Value) -> Preview {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let content = m.get("content").unwrap_or(&Value::Null);
    match role {
        "assistant" => {
            let text = content_text(content);
            let calls: Vec<String> = content
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
                        .map(|b| {
                            let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                            let arg = b.get("arguments").map(first_arg).unwrap_or_default();
                            if arg.is_empty() {
                                name.to_string()
                            } else {
                                format!("{name} {arg}")
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            let shown = if !text.trim().is_empty() {
                text
            } else if !calls.is_empty() {
                calls.join(" · ")
            } else if content.as_array().is_some_and(|a| a.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("thinking"))) {
                "(thinking)".to_string()
            } else {
                m.get("errorMessage").and_then(Value::as_str).unwrap_or("").to_string()
            };
            let stop = m.get("stopReason").and_then(Value::as_str);
            Preview {
                text: fold(&shown, MAX),
                detail: calls.first().map(|c| c.split(' ').next().unwrap_or("").to_string()),
                is_error: matches!(stop, Some("error") | Some("aborted")),
            }
        }
        "toolResult" => Preview {
            text: fold(&content_text(content), MAX),
            detail: m.get("toolName").and_then(Value::as_str).map(str::to_string),
            is_error: m.get("isError").and_then(Value::as_bool).unwrap_or(false),
        },
        "bashExecution" => {
            let cmd = m.get("command").and_then(Value::as_str).unwrap_or("");
            let code = m.get("exitCode").and_then(Value::as_i64);
            Preview {
                text: fold(&format!("$ {cmd}"), MAX),
                detail: code.map(|c| format!("exit {c}")),
                is_error: code.is_some_and(|c| c != 0),
            }
        }
        "custom" | "hookMessage" => Preview {
            text: fold(&content_text(content), MAX),
            detail: m.get("customType").and_then(Value::as_str).map(str::to_string),
            is_error: false,
        },
        _ => {
            let mut text = content_text(content);
            if text.is_empty() && content.as_array().is_some_and(|a| a.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("image"))) {
                text = "[image]".into();
            }
            Preview { text: fold(&text, MAX), ..Default::default() }
        }
    }
}

/// The most telling argument of a tool call (a path, a command, a pattern).
fn first_arg(args: &Value) -> String {
    for key in ["path", "file_path", "command", "pattern", "url", "query"] {
        if let Some(s) = args.get(key).and_then(Value::as_str) {
            return fold(s, 80);
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn previews() {
        let p = message_preview(&json!({"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{"path":"src/a.ts"}}]}));
        assert_eq!(p.text, "read src/a.ts");
        assert_eq!(p.detail.as_deref(), Some("read"));
        let b = message_preview(&json!({"role":"bashExecution","command":"npm test","exitCode":1}));
        assert!(b.is_error);
        assert_eq!(b.text, "$ npm test");
    }
}

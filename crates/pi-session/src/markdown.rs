//! Entries as Markdown ("Copy as Markdown" of a transcript).

use serde_json::Value;

use crate::entry::{Entry, Kind};
use crate::view::content_text;

fn fence(out: &mut String, lang: &str, body: &str) {
    // A fence longer than any backtick run inside.
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let f = "`".repeat(longest.max(2) + 1);
    out.push_str(&format!("{f}{lang}\n{body}\n{f}\n\n"));
}

/// Appends the Markdown of one entry (its line parsed as `v`).
pub fn entry_markdown(e: &Entry, v: &Value, out: &mut String) {
    match &e.kind {
        Kind::Message => {
            let m = v.get("message").unwrap_or(&Value::Null);
            let role = m.get("role").and_then(Value::as_str).unwrap_or("message");
            match role {
                "user" => {
                    out.push_str("## User\n\n");
                    out.push_str(content_text(m.get("content").unwrap_or(&Value::Null)).trim());
                    out.push_str("\n\n");
                }
                "assistant" => {
                    out.push_str("## Assistant\n\n");
                    for b in m.get("content").and_then(Value::as_array).into_iter().flatten() {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => {
                                out.push_str(b.get("text").and_then(Value::as_str).unwrap_or("").trim());
                                out.push_str("\n\n");
                            }
                            Some("toolCall") => {
                                let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                                out.push_str(&format!("**Tool call:** `{name}`\n\n"));
                                let args = serde_json::to_string_pretty(b.get("arguments").unwrap_or(&Value::Null)).unwrap_or_default();
                                fence(out, "json", &args);
                            }
                            _ => {}
                        }
                    }
                }
                "toolResult" => {
                    let name = m.get("toolName").and_then(Value::as_str).unwrap_or("tool");
                    out.push_str(&format!("**Tool result** (`{name}`)\n\n"));
                    fence(out, "", content_text(m.get("content").unwrap_or(&Value::Null)).trim_end());
                }
                "bashExecution" => {
                    out.push_str("**Bash**\n\n");
                    let cmd = m.get("command").and_then(Value::as_str).unwrap_or("");
                    let output = m.get("output").and_then(Value::as_str).unwrap_or("");
                    fence(out, "sh", format!("$ {cmd}\n{output}").trim_end());
                }
                other => {
                    out.push_str(&format!("## {other}\n\n"));
                    out.push_str(content_text(m.get("content").unwrap_or(&Value::Null)).trim());
                    out.push_str("\n\n");
                }
            }
        }
        Kind::CustomMessage => {
            let t = v.get("customType").and_then(Value::as_str).unwrap_or("custom");
            out.push_str(&format!("## {t}\n\n"));
            out.push_str(content_text(v.get("content").unwrap_or(&Value::Null)).trim());
            out.push_str("\n\n");
        }
        Kind::Compaction => {
            out.push_str("> **Compaction summary**\n>\n");
            for l in v.get("summary").and_then(Value::as_str).unwrap_or("").lines() {
                out.push_str("> ");
                out.push_str(l);
                out.push('\n');
            }
            out.push('\n');
        }
        Kind::BranchSummary => {
            out.push_str("> **Branch summary**\n>\n");
            for l in v.get("summary").and_then(Value::as_str).unwrap_or("").lines() {
                out.push_str("> ");
                out.push_str(l);
                out.push('\n');
            }
            out.push('\n');
        }
        _ => {}
    }
}

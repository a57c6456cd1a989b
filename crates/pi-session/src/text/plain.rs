//! The text of a line and of a message's content, and text cut to one short line.

use pi_session_format::json;
use serde_json::Value;

/// A line's bytes as text, as the context's reader of message bodies gives it: lossy UTF-8,
/// without the (Unicode) spaces around it.
pub fn line_text(bytes: Vec<u8>) -> String {
    let mut text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
    };
    let trimmed = trim(&text);
    if trimmed.len() != text.len() {
        text = trimmed.to_owned();
    }
    text
}

/// [`line_text`] of a line in memory: borrowed when it is UTF-8 (no copy of a line of 30 MB).
pub fn line_str(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => trim(s).into(),
        Err(_) => trim(&String::from_utf8_lossy(bytes)).to_owned().into(),
    }
}

/// The index read the first and the last line with content without their surrounding
/// (Unicode) spaces, as pi's `content.trim()` does; a BOM is one of them.
fn trim(text: &str) -> &str {
    text.trim_matches(pi_session_format::js::is_js_space)
}

/// The line parsed as a JSON value (lenient about lone surrogates).
pub fn line_value(text: &str) -> Value {
    match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => serde_json::from_str(&json::replace_lone_surrogates(text)).unwrap_or(Value::Null),
    }
}

/// The text of a message's `content` (a string, or the text blocks of an array).
pub fn content_text(content: &serde_json::Value) -> String {
    match content {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(blocks) => {
            let mut out = String::new();
            for b in blocks {
                if b.get("type").and_then(|t| t.as_str()) == Some("text") {
                    if let Some(t) = b.get("text").and_then(|t| t.as_str()) {
                        if !out.is_empty() {
                            out.push(' ');
                        }
                        out.push_str(t);
                    }
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// The text pi's session list takes from a message line: a string `content` as is, else the
/// `text` of its text blocks joined by a space. `None` when the message has no `content`.
pub fn user_text_of_line(line: &str) -> Option<String> {
    let mut v = line_value(line);
    // Taken out of the parsed line, not copied.
    let content = v.get_mut("message")?.get_mut("content")?.take();
    Some(match content {
        serde_json::Value::String(s) => s,
        serde_json::Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("text"))
            .map(|b| b.get("text").and_then(|t| t.as_str()).unwrap_or(""))
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    })
}

/// The first `max` characters of the text of a message line's content, whitespace folded.
pub fn first_text_of_line(line: &str, max: usize) -> String {
    let fixed;
    let text = if json::has_lone_surrogate(line) {
        fixed = json::replace_lone_surrogates(line);
        &fixed
    } else {
        line
    };
    #[derive(serde::Deserialize)]
    struct L {
        message: Option<M>,
    }
    #[derive(serde::Deserialize)]
    struct M {
        content: Option<serde_json::Value>,
    }
    let content = serde_json::from_str::<L>(text).ok().and_then(|l| l.message).and_then(|m| m.content);
    let t = content.map(|c| content_text(&c)).unwrap_or_default();
    fold(&t, max)
}

/// Folds runs of whitespace to one space and cuts at `max` characters (with `…`).
pub fn fold(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max * 4));
    let mut n = 0;
    let mut space = false;
    for c in s.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
            n += 1;
        }
        space = false;
        if n >= max {
            out.push('…');
            return out;
        }
        out.push(c);
        n += 1;
    }
    out
}

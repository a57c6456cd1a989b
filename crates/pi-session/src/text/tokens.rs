//! How long a message is, as pi estimates it: its characters (UTF-16 units, as JavaScript's
//! `String.length` counts) over four.

use pi_session_format::js::js_len;
use serde_json::Value;

/// pi's `estimateTokens(message)` (chars / 4, rounded up; an image counts 4,800 chars in
/// custom and tool results).
pub fn estimate_tokens(m: &Value) -> f64 {
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(js_len).unwrap_or(0);
    let chars: usize = match role {
        "user" => match m.get("content") {
            Some(Value::String(t)) => js_len(t),
            Some(Value::Array(a)) => a.iter().filter(|b| b.get("type").and_then(Value::as_str) == Some("text")).map(|b| s(b.get("text"))).sum(),
            _ => 0,
        },
        "assistant" => m
            .get("content")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("text") => s(b.get("text")),
                        Some("thinking") => s(b.get("thinking")),
                        Some("toolCall") => s(b.get("name")) + js_len(&serde_json::to_string(b.get("arguments").unwrap_or(&Value::Null)).unwrap_or_default()),
                        _ => 0,
                    })
                    .sum()
            })
            .unwrap_or(0),
        "custom" | "toolResult" => match m.get("content") {
            Some(Value::String(t)) => js_len(t),
            Some(Value::Array(a)) => a
                .iter()
                .map(|b| match b.get("type").and_then(Value::as_str) {
                    Some("text") => s(b.get("text")),
                    Some("image") => 4800,
                    _ => 0,
                })
                .sum(),
            _ => 0,
        },
        "bashExecution" => s(m.get("command")) + s(m.get("output")),
        // pi 1.x: content, the section texts, and the JSON of `toolsAdded`.
        "system" => {
            let content = match m.get("content") {
                Some(Value::String(t)) => js_len(t),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("text") => s(b.get("text")),
                        Some("image") => 4800,
                        _ => 0,
                    })
                    .sum(),
                _ => 0,
            };
            let sections: usize = m.get("sections").and_then(Value::as_object).map(|o| o.values().map(|v| s(Some(v))).sum()).unwrap_or(0);
            let tools = m.get("toolsAdded").filter(|v| !v.is_null()).map(|v| js_len(&serde_json::to_string(v).unwrap_or_default())).unwrap_or(0);
            content + sections + tools
        }
        "branchSummary" | "compactionSummary" => s(m.get("summary")),
        _ => 0,
    };
    (chars as f64 / 4.0).ceil()
}

/// pi's `estimateContextTokens`: the usage of the last assistant message that was not aborted
/// or an error, plus `estimateTokens` of each later message.
pub fn estimate_context_tokens(messages: &[Value]) -> f64 {
    let last = messages.iter().enumerate().rev().find_map(|(i, m)| {
        let stop = m.get("stopReason").and_then(Value::as_str);
        if m.get("role").and_then(Value::as_str) == Some("assistant") && !matches!(stop, Some("aborted") | Some("error")) {
            m.get("usage").filter(|u| !u.is_null()).map(|u| (i, u))
        } else {
            None
        }
    });
    match last {
        None => messages.iter().map(estimate_tokens).sum(),
        Some((i, u)) => {
            let f = |k: &str| u.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            let total = f("totalTokens");
            let usage = if total != 0.0 { total } else { f("input") + f("output") + f("cacheRead") + f("cacheWrite") };
            usage + messages[i + 1..].iter().map(estimate_tokens).sum::<f64>()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn token_estimates_follow_pi() {
        assert_eq!(estimate_tokens(&json!({"role":"user","content":"hello"})), 2.0);
        assert_eq!(estimate_tokens(&json!({"role":"toolResult","content":[{"type":"image"}]})), 1200.0);
        let msgs = vec![
            json!({"role":"user","content":"abcd"}),
            json!({"role":"assistant","content":[],"usage":{"totalTokens":100},"stopReason":"stop"}),
            json!({"role":"user","content":"12345678"}),
        ];
        assert_eq!(estimate_context_tokens(&msgs), 102.0);
    }
}

//! The query language of the indexed search.
//!
//! `QUERY` is a list of space-separated parts:
//! * `word` — the entry's searchable text contains it (case-insensitive substring);
//! * `"a phrase"` — the same, spaces included;
//! * `role:R` — the message role (`user`, `assistant`, `toolResult`, `bashExecution`, …) or, for
//!   entries that are not messages, the entry type (`compaction`, `branch_summary`, …); exact;
//! * `tool:T` — a tool call or tool result of tool `T` (exact name);
//! * `model:M` — `provider/model` of the assistant message contains `M`;
//! * `cwd:P` — the session's cwd contains `P`;
//! * `label:L` — the entry's current label contains `L`; `name:N` — the session name contains `N`;
//! * `after:YYYY-MM-DD`, `before:YYYY-MM-DD` — the entry's timestamp (UTC; `before` excludes the day).
//!
//! Every part must hold (AND). A filter's value may be quoted (`cwd:"my project"`).

use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Query {
    /// Words and phrases, lowercased.
    pub terms: Vec<String>,
    pub role: Option<String>,
    pub tool: Option<String>,
    pub model: Option<String>,
    pub cwd: Option<String>,
    pub label: Option<String>,
    pub name: Option<String>,
    /// Milliseconds since the epoch (inclusive).
    pub after: Option<f64>,
    /// Milliseconds since the epoch (exclusive).
    pub before: Option<f64>,
}

fn day_ms(s: &str) -> Option<f64> {
    let d = chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()?;
    Some(d.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis() as f64)
}

/// Splits on spaces outside quotes; a quoted part keeps its spaces.
fn parts(q: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut had = false;
    for c in q.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                had = true;
            }
            c if c.is_whitespace() && !quoted => {
                if had || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                had = false;
            }
            c => cur.push(c),
        }
    }
    if had || !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter().filter(|p| !p.is_empty()).collect()
}

impl Query {
    pub fn parse(q: &str) -> Result<Query, crate::Error> {
        let mut out = Query::default();
        for p in parts(q) {
            let (key, val) = match p.split_once(':') {
                Some((k, v)) if ["role", "tool", "model", "cwd", "label", "name", "after", "before"].contains(&k) && !v.is_empty() => (k, v.to_string()),
                _ => {
                    out.terms.push(p.to_lowercase());
                    continue;
                }
            };
            let bad = || crate::Error::Invalid(format!("{key}: expects a date YYYY-MM-DD, got {val:?}"));
            match key {
                "role" => out.role = Some(val),
                "tool" => out.tool = Some(val),
                "model" => out.model = Some(val.to_lowercase()),
                "cwd" => out.cwd = Some(val.to_lowercase()),
                "label" => out.label = Some(val.to_lowercase()),
                "name" => out.name = Some(val.to_lowercase()),
                "after" => out.after = Some(day_ms(&val).ok_or_else(bad)?),
                "before" => out.before = Some(day_ms(&val).ok_or_else(bad)?),
                _ => unreachable!(),
            }
        }
        Ok(out)
    }

    pub fn is_empty(&self) -> bool {
        *self == Query::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_words_phrases_and_filters() {
        let q = Query::parse(r#"Foo "bar baz" role:user tool:bash cwd:"my proj" after:2026-01-02 x:y"#).unwrap();
        assert_eq!(q.terms, vec!["foo", "bar baz", "x:y"]);
        assert_eq!(q.role.as_deref(), Some("user"));
        assert_eq!(q.tool.as_deref(), Some("bash"));
        assert_eq!(q.cwd.as_deref(), Some("my proj"));
        assert_eq!(q.after, Some(1_767_312_000_000.0));
        assert!(Query::parse("before:yesterday").is_err());
    }
}

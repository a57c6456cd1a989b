//! Export: hostile session text comes out inert in HTML and Markdown; compactions fold the
//! entries they summarise; the tree export holds every branch.

use pi_session::export::{to_html, to_markdown, Scope};
use pi_session::Session;

const HOSTILE: &[&str] = &[
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "<a href=\"javascript:alert(3)\">click</a>",
    "[click](javascript:alert(4))",
    "\"><svg onload=alert(5)>",
    "&lt;script&gt;",
];

fn hostile_session(dir: &std::path::Path) -> std::path::PathBuf {
    let mut lines = vec![r#"{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w/<script>x</script>"}"#.to_string()];
    let mut parent = "null".to_string();
    for (k, h) in HOSTILE.iter().enumerate() {
        let t = serde_json::to_string(h).unwrap();
        let id = format!("u{k}");
        lines.push(format!(r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:0{k}.000Z","message":{{"role":"user","content":{t}}}}}"#));
        parent = format!("\"{id}\"");
        let id = format!("a{k}");
        lines.push(format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:0{k}.500Z","message":{{"role":"assistant","provider":{t},"model":"m","content":[{{"type":"text","text":{t}}},{{"type":"toolCall","id":"c","name":{t},"arguments":{{"x":{t}}}}}]}}}}"#
        ));
        parent = format!("\"{id}\"");
    }
    // A role that is itself hostile, a label and a name.
    lines.push(format!(r#"{{"type":"message","id":"r","parentId":{parent},"timestamp":"2026-01-01T00:01:00.000Z","message":{{"role":"<img src=x onerror=alert(6)>","content":"x"}}}}"#));
    lines.push(r#"{"type":"label","id":"l1","parentId":"r","timestamp":"2026-01-01T00:01:01.000Z","targetId":"u0","label":"<b onmouseover=alert(7)>"}"#.into());
    lines.push(r#"{"type":"session_info","id":"n1","parentId":"l1","timestamp":"2026-01-01T00:01:02.000Z","name":"<script>name</script>"}"#.into());
    let p = dir.join("hostile.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

/// The tags the HTML renderer itself writes; anything else would come from session text.
const ALLOWED: &[&str] = &["!DOCTYPE", "html", "head", "meta", "title", "style", "body", "h1", "dl", "dt", "dd", "section", "header", "span", "small", "p", "pre", "div", "details", "summary"];

fn assert_inert_html(html: &str) {
    let lower = html.to_lowercase();
    for bad in ["<script", "<img", "<svg", "<a ", "<b "] {
        assert!(!lower.contains(bad), "found {bad:?} in the export");
    }
    // Every tag is one the renderer writes, and its attributes are only class/id/open/lang/
    // charset/http-equiv/content/name.
    let mut rest = html;
    while let Some(p) = rest.find('<') {
        let after = &rest[p + 1..];
        let end = after.find('>').expect("unclosed tag");
        let tag = &after[..end];
        let name = tag.trim_start_matches('/').split(|c: char| c.is_whitespace()).next().unwrap();
        assert!(ALLOWED.contains(&name), "unexpected tag <{tag}>");
        for (an, value) in attributes(tag) {
            assert!((name == "!DOCTYPE" && an == "html") || ["class", "id", "open", "lang", "charset", "http-equiv", "content", "name"].contains(&an.as_str()), "unexpected attribute {an}={value:?} in <{tag}>");
            assert!(!value.contains('<') && !value.contains('>'), "markup in an attribute: {value:?}");
        }
        rest = &after[end + 1..];
    }
}

/// (name, value) of the attributes of a tag's inside (`name a="x" b`): values are double-quoted.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut c = tag.chars().peekable();
    while c.peek().is_some_and(|c| !c.is_whitespace()) {
        c.next();
    }
    loop {
        while c.peek().is_some_and(|c| c.is_whitespace()) {
            c.next();
        }
        let mut name = String::new();
        while let Some(&ch) = c.peek() {
            if ch == '=' || ch.is_whitespace() {
                break;
            }
            name.push(ch);
            c.next();
        }
        if name.is_empty() {
            return out;
        }
        let mut value = String::new();
        if c.peek() == Some(&'=') {
            c.next();
            assert_eq!(c.next(), Some('"'), "unquoted attribute {name} in <{tag}>");
            for ch in c.by_ref() {
                if ch == '"' {
                    break;
                }
                value.push(ch);
            }
        }
        out.push((name, value));
    }
}

#[test]
fn html_export_of_hostile_content_is_inert() {
    let dir = tempfile::tempdir().unwrap();
    let p = hostile_session(dir.path());
    let s = Session::open(&p).unwrap();
    for scope in [Scope::Path(s.tree.leaf), Scope::Tree] {
        let html = to_html(&s, scope).unwrap();
        assert_inert_html(&html);
        // The text is there, escaped.
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("onerror=alert(2)"), "the text stays readable");
        assert!(html.contains("&amp;lt;script&amp;gt;"));
        assert!(html.contains("&lt;b onmouseover=alert(7)&gt;"), "labels are shown, escaped");
        assert!(html.contains("Content-Security-Policy"));
    }
}

#[test]
fn markdown_export_of_hostile_content_is_inert() {
    let dir = tempfile::tempdir().unwrap();
    let p = hostile_session(dir.path());
    let s = Session::open(&p).unwrap();
    for scope in [Scope::Path(s.tree.leaf), Scope::Tree] {
        let md = to_markdown(&s, scope).unwrap();
        // Outside code fences: no raw tag can open and no link can form.
        let mut in_fence = false;
        for l in md.lines() {
            let t = l.trim_start_matches("> ").trim_start_matches('>');
            if t.starts_with("```") {
                in_fence = !in_fence;
                continue;
            }
            if in_fence {
                continue;
            }
            assert!(!l.contains('<'), "raw < in prose: {l}");
            assert!(!l.contains("](") || l.contains("\\]\\("), "a link can form: {l}");
        }
        assert!(!in_fence, "fences are balanced");
        assert!(md.contains("&lt;script&gt;alert\\(1\\)&lt;/script&gt;"));
    }
}

#[test]
fn compaction_folds_the_entries_it_summarises_and_tree_export_holds_every_branch() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("c.jsonl");
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"FIRST-OLD"}}"#,
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"SECOND-OLD"}]}}"#,
        r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"KEPT"}}"#,
        r#"{"type":"compaction","id":"k","parentId":"c","timestamp":"2026-01-01T00:00:04.000Z","summary":"THE-SUMMARY","firstKeptEntryId":"c","tokensBefore":10}"#,
        r#"{"type":"message","id":"d","parentId":"k","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"AFTER"}}"#,
        r#"{"type":"message","id":"x","parentId":"b","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"user","content":"OTHER-BRANCH"}}"#,
        r#"{"type":"leaf","id":"lf","parentId":"x","timestamp":"2026-01-01T00:00:07.000Z","targetId":"d"}"#,
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let s = Session::open(&p).unwrap();
    let html = to_html(&s, Scope::Path(s.tree.leaf)).unwrap();
    let card = html.find("THE-SUMMARY").unwrap();
    let details = html.find("2 entries summarised by this compaction").expect("folded entries");
    assert!(card < details && details < html.find("FIRST-OLD").unwrap() && html.find("SECOND-OLD").unwrap() < html.find("AFTER").unwrap());
    assert!(html.find("KEPT").unwrap() < card, "kept entries stay on the path before the card");
    assert!(!html.contains("OTHER-BRANCH"), "a path export holds only the path");
    let md = to_markdown(&s, Scope::Path(s.tree.leaf)).unwrap();
    assert!(md.contains("> *2 entries summarised by this compaction:*"));
    assert!(md.contains("> FIRST-OLD"));

    let tree = to_html(&s, Scope::Tree).unwrap();
    for t in ["FIRST-OLD", "SECOND-OLD", "KEPT", "THE-SUMMARY", "AFTER", "OTHER-BRANCH"] {
        assert_eq!(tree.matches(t).count(), 1, "{t} once in the tree export");
    }
    assert_eq!(tree.matches("<details class=\"branch\" open>").count(), 1, "the active branch is open");
    assert_eq!(tree.matches("<details class=\"branch\">").count(), 1, "the other branch is folded");
    let tmd = to_markdown(&s, Scope::Tree).unwrap();
    assert!(tmd.contains("OTHER-BRANCH") && tmd.contains("AFTER") && tmd.contains("(active)"));
}

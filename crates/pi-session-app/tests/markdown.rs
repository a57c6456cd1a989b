//! The Markdown we write (the transcript's "Copy as Markdown" and the export) carries no live
//! HTML from a session, as a CommonMark renderer with GitHub's extensions (pulldown-cmark)
//! reads it: no raw HTML block or inline HTML anywhere; and the code in a session (fences,
//! code spans) stays as written.

use pi_session_app::explorer::Explorer;
use pi_session::export::{to_markdown, Scope};
use pi_session::text::markdown::escape_html;
use pi_session::Session;
use proptest::prelude::*;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_FOOTNOTES | Options::ENABLE_TASKLISTS | Options::ENABLE_MATH | Options::ENABLE_DEFINITION_LIST
}

/// The raw HTML a renderer would pass through, if any: as pulldown-cmark reads the text, and
/// as renderers that first turn every `\r\n` and lone `\r` into `\n` do (CommonMark's line
/// endings; markdown-it, commonmark.js).
fn raw_html(md: &str) -> Vec<String> {
    let normalised = md.replace("\r\n", "\n").replace('\r', "\n");
    [md, normalised.as_str()]
        .into_iter()
        .flat_map(|m| Parser::new_ext(m, options()).collect::<Vec<_>>())
        .filter_map(|e| match e {
            Event::Html(h) | Event::InlineHtml(h) => Some(h.to_string()),
            _ => None,
        })
        .collect()
}

/// The text of every fenced code block and code span.
fn code(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<String> = None;
    for e in Parser::new_ext(md, options()) {
        match e {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => block = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => out.extend(block.take()),
            Event::Text(t) if block.is_some() => block.as_mut().unwrap().push_str(&t),
            Event::Code(c) => out.push(c.to_string()),
            _ => {}
        }
    }
    out
}

/// Pieces of Markdown and HTML that, strung together, try to get a tag past the escaping.
fn piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "<b>", "<!--", "-->", "<http://x>", "&lt;", "&", ">", "`", "``", "```", "````", "~~~",
        "\n", "\r", "\r\n", "\n\n", " ", "   ", "    ", "\t", "\\", "- ", "1. ", "> ", "|", "| a | b |\n|---|---|\n", "[a]: ", "'", "\"", "[x](y)", "$$", "# ", "x", "html", "*",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn escaped_text_carries_no_html_wherever_it_is_written(pieces in prop::collection::vec(piece(), 0..24)) {
        let text: String = pieces.concat();
        let md = escape_html(&text);
        prop_assert_eq!(raw_html(&md), Vec::<String>::new(), "{:?} → {:?}", text, md);
        // After a heading, as a message is written; and quoted line by line, as a summary is.
        let after = format!("## User\n\n{md}\n\n## Assistant\n\n{md}\n\n");
        prop_assert_eq!(raw_html(&after), Vec::<String>::new(), "{:?}", after);
        let quoted: String = pi_session::text::markdown::lines(&md).map(|l| format!("> {l}\n")).collect();
        prop_assert_eq!(raw_html(&quoted), Vec::<String>::new(), "{:?}", quoted);
    }
}

#[test]
fn math_cannot_pair_with_a_backtick_to_free_a_tag() {
    // `$$` opened math that took the first `` ` `` run, so the second run paired with the
    // third and the `<script>` between them was no longer in a code span.
    let text = ["<script>alert(1)</script>", "$$", "``", "$$", "<script>alert(1)</script>", "``"].concat();
    let md = escape_html(&text);
    assert!(raw_html(&md).is_empty(), "{md}");
    assert!(md.contains("\\$\\$"), "{md}");
}

#[test]
fn code_stays_as_written() {
    let text = "Fix:\n```html\n<img src=x onerror=alert(1)>\n<script>x()</script>\n```\nthen `<b>` & `a < b`.";
    let md = escape_html(text);
    assert!(raw_html(&md).is_empty(), "{md}");
    assert_eq!(code(&md), ["<img src=x onerror=alert(1)>\n<script>x()</script>\n", "<b>", "a < b"]);
    assert!(md.contains("&amp;"), "{md}");
}

const HOSTILE: &[&str] = &["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "```\n<script>in a fence</script>\n```", "x\r<img src=x onerror=alert(3)>", "`<b>` and ``<i>``", "```\n<b>left open"];

/// A session with hostile text in every place the writers put session text: user and
/// assistant messages, tool calls and results (one with a lone `\r`), a custom message and a
/// custom role, a compaction that folds them (the export quotes folded entries), a branch
/// summary, a label and a name.
fn hostile_session(dir: &std::path::Path) -> std::path::PathBuf {
    let mut lines = vec![r#"{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_string()];
    let mut parent = "null".to_string();
    let mut n = 0;
    let mut push = |lines: &mut Vec<String>, body: String| {
        n += 1;
        let id = format!("e{n}");
        lines.push(format!(r#"{{"type":{body},"id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:{:02}.000Z"}}"#, n % 60));
        parent = format!("\"{id}\"");
        id
    };
    let mut first = None;
    for h in HOSTILE {
        let t = serde_json::to_string(h).unwrap();
        let u = push(&mut lines, format!(r#""message","message":{{"role":"user","content":{t}}}"#));
        first.get_or_insert(u);
        push(&mut lines, format!(r#""message","message":{{"role":"assistant","content":[{{"type":"text","text":{t}}},{{"type":"toolCall","id":"c","name":{t},"arguments":{{"x":{t}}}}}]}}"#));
        push(&mut lines, format!(r#""message","message":{{"role":"toolResult","toolCallId":"c","toolName":{t},"content":[{{"type":"text","text":{t}}}]}}"#));
        push(&mut lines, format!(r#""custom_message","customType":{t},"content":{t},"display":true"#));
        push(&mut lines, format!(r#""message","message":{{"role":{t},"content":{t}}}"#));
    }
    let kept = push(&mut lines, r#""message","message":{"role":"user","content":"kept"}"#.into());
    let t = serde_json::to_string(HOSTILE.join("\n").as_str()).unwrap();
    push(&mut lines, format!(r#""compaction","summary":{t},"firstKeptEntryId":"{kept}","tokensBefore":10"#));
    push(&mut lines, format!(r#""branch_summary","summary":{t},"fromId":"{kept}""#));
    push(&mut lines, format!(r#""label","targetId":"{}","label":{t}"#, first.unwrap()));
    push(&mut lines, format!(r#""session_info","name":{t}"#));
    let p = dir.join("hostile.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

#[test]
fn both_markdown_writers_carry_no_html_of_a_hostile_session() {
    let dir = tempfile::tempdir().unwrap();
    let p = hostile_session(dir.path());
    let s = Session::open(&p).unwrap();
    let ex = Explorer::new(dir.path().to_path_buf(), "flag", true);
    let copied = ex.transcript_markdown(&p.display().to_string(), None).unwrap();
    let all_ids: Vec<String> = s.index.entries.iter().filter_map(|e| e.id.as_ref().map(|i| i.to_string())).collect();
    let picked = ex.transcript_markdown(&p.display().to_string(), Some(&all_ids)).unwrap();
    for (name, md) in [("transcript", copied), ("transcript, every entry", picked), ("export, path", to_markdown(&s, Scope::Path(s.tree.leaf)).unwrap()), ("export, tree", to_markdown(&s, Scope::Tree).unwrap())] {
        assert_eq!(raw_html(&md), Vec::<String>::new(), "{name}:\n{md}");
        // The text is there, readable.
        assert!(md.contains("&lt;script&gt;alert") || md.contains("&lt;script&gt;alert\\(1\\)"), "{name}: {md}");
        // The HTML a session holds in code is kept as code.
        assert!(code(&md).iter().any(|c| c.contains("<script>in a fence</script>")), "{name}: {:?}", code(&md));
    }
}

#[test]
fn a_tab_before_a_fence_inside_a_fence_cannot_close_it_in_a_quote() {
    // `\t~~~` inside a `~~~` fence is code (the tab reaches column 4); quoted as `> \t~~~` it
    // was indented by two columns and closed the fence, and the `<script>` after it was live.
    let text = ["<script>alert(1)</script>", "| a | b |\n|---|---|\n", "~~~", "\n", "\t", "~~~", "\n", "<script>alert(1)</script>"].concat();
    let md = escape_html(&text);
    assert!(raw_html(&md).is_empty(), "{md}");
    let quoted: String = pi_session::text::markdown::lines(&md).map(|l| format!("> {l}\n")).collect();
    assert!(raw_html(&quoted).is_empty(), "{quoted}");
    assert_eq!(code(&md).len(), 1, "the fence still holds its lines: {md}");
}

#[test]
fn a_fence_closed_with_a_tab_after_it_is_closed_for_every_reader() {
    // CommonMark closes a fence at `` ```\t ``; pulldown-cmark read it as code, so the next
    // fence closed it instead, and the `<script>` between was live.
    let md = escape_html("```\n<script>alert(1)</script>\n```\t");
    let after = format!("## User\n\n{md}\n\n## Assistant\n\n{md}\n\n");
    assert!(raw_html(&after).is_empty(), "{after:?}");
    assert_eq!(code(&after), ["<script>alert(1)</script>\n", "<script>alert(1)</script>\n"]);
}

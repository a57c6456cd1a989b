//! The one Markdown writer: the transcript's "Copy as Markdown" ([`entry_markdown`],
//! [`transcript`]) and the export ([`crate::export::md`]) both write through a [`Writer`], which
//! differ only in how prose is escaped ([`Prose`]).
//!
//! Session text is untrusted: a Markdown file we write carries no live HTML from a session.
//! Copied text keeps its Markdown (an assistant writes Markdown), with `<`, `>` and `&` written
//! as entities wherever a renderer would read them as markup ([`escape_html`]); code (fences and
//! code spans) stays as written, which a renderer shows literally. The export writes prose as
//! plain text: every character that could form a tag, an entity, a link, an image or emphasis
//! gets a backslash or an entity ([`escape_all`]). Code goes in fences longer than any backtick
//! run inside, every line of a quoted one quoted.

use pi_session_format::entry::{Entry, Kind};
use serde_json::Value;

use super::plain::{content_text, line_value};
use crate::context::BodyReader;
use crate::{Error, Session};

/// How a [`Writer`] escapes prose and headings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prose {
    /// The author's Markdown kept, HTML made inert ([`escape_html`]; headings [`heading_text`]).
    Markdown,
    /// Plain text: every Markdown character escaped ([`escape_all`]).
    Plain,
}

/// Writes Markdown: headings, paragraphs, fenced code, block quotes, every line prefixed with
/// the quote it is in.
pub struct Writer {
    out: String,
    prose: Prose,
    /// The prefix of every line (`> ` per block quote it is in).
    quote: String,
}

impl Writer {
    pub fn new(prose: Prose) -> Writer {
        Writer { out: String::new(), prose, quote: String::new() }
    }

    /// Appends to what `out` holds.
    pub fn on(out: String, prose: Prose) -> Writer {
        Writer { out, prose, quote: String::new() }
    }

    pub fn finish(self) -> String {
        self.out
    }

    /// Prose escaped as this writer escapes it.
    pub fn escape(&self, s: &str) -> String {
        match self.prose {
            Prose::Markdown => escape_html(s),
            Prose::Plain => escape_all(s),
        }
    }

    /// Text as is (already Markdown).
    pub fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// A heading of `level` (`#` repeated): `text` escaped, then `tail` as is, then a (quoted)
    /// blank line.
    pub fn heading(&mut self, level: usize, text: &str, tail: &str) {
        let text = match self.prose {
            Prose::Markdown => heading_text(text),
            Prose::Plain => escape_all(text),
        };
        let q = &self.quote;
        self.out.push_str(&format!("{q}{} {text}{tail}\n{q}\n", "#".repeat(level)));
    }

    /// One line of Markdown as is, then a (quoted) blank line.
    pub fn line(&mut self, markdown: &str) {
        let q = &self.quote;
        self.out.push_str(&format!("{q}{markdown}\n{q}\n"));
    }

    /// Session text as paragraphs (trimmed, escaped), then a (quoted) blank line.
    pub fn paragraphs(&mut self, text: &str) {
        self.lines_of(text.trim());
        self.out.push_str(&self.quote);
        self.out.push('\n');
    }

    /// Every line of the escaped `text`, quoted.
    pub fn lines_of(&mut self, text: &str) {
        for l in lines(&self.escape(text)) {
            self.out.push_str(&self.quote);
            self.out.push_str(l);
            self.out.push('\n');
        }
    }

    /// A fenced code block ([`fence`]) in the current quote.
    pub fn fence(&mut self, lang: &str, body: &str) {
        fence(&mut self.out, lang, body, &self.quote);
    }

    /// A block quote: its first line `title` (Markdown, as is), a quoted blank line, then what
    /// `inner` writes, every line of it quoted; then a blank line.
    pub fn quoted(&mut self, title: &str, inner: impl FnOnce(&mut Writer)) {
        let q = self.quote.clone();
        self.out.push_str(&format!("{q}> {title}\n{q}>\n"));
        self.quote.push_str("> ");
        inner(self);
        self.quote = q;
        self.out.push('\n');
    }
}

/// Escapes prose for Markdown as plain text: no raw HTML, no links, no emphasis surprises
/// (`<`, `>` and `&` become entities; a backslash, a backtick and `* _ [ ] ( ) ! # |` get a
/// backslash).
pub fn escape_all(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '&' => o.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '#' | '|' => {
                o.push('\\');
                o.push(c);
            }
            c => o.push(c),
        }
    }
    o
}

/// The lines of `s` as a Markdown renderer sees them: `\r\n`, `\r` and `\n` all end a line.
pub fn lines(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.find(['\r', '\n']) {
            Some(i) => {
                let skip = if r[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&r[i + skip..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for ch in s.chars() {
        run = if ch == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// A fenced code block: a fence longer than any backtick run inside, every line prefixed with
/// `quote` (so no line break inside the body can leave a quote), then a (quoted) blank line.
pub fn fence(out: &mut String, lang: &str, body: &str, quote: &str) {
    let f = "`".repeat(longest_run(body, '`').max(2) + 1);
    let lang: String = lang.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    out.push_str(&format!("{quote}{f}{lang}\n"));
    for l in lines(body) {
        out.push_str(quote);
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&format!("{quote}{f}\n{quote}\n"));
}

/// Text as an inline code span, on one line.
pub fn code_span(s: &str) -> String {
    let s = lines(s).collect::<Vec<_>>().join(" ");
    let f = "`".repeat(longest_run(&s, '`') + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    format!("{f}{pad}{s}{pad}{f}")
}

/// Text for a heading: on one line, every `<`, `>` and `&` an entity.
pub fn heading_text(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for (i, l) in lines(s.trim()).enumerate() {
        if i > 0 {
            o.push(' ');
        }
        push_escaped(&mut o, l);
    }
    o
}

fn entity(c: char) -> Option<&'static str> {
    match c {
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '&' => Some("&amp;"),
        _ => None,
    }
}

fn push_escaped(o: &mut String, s: &str) {
    for c in s.chars() {
        match entity(c) {
            Some(e) => o.push_str(e),
            None => o.push(c),
        }
    }
}

/// The opening fence of a line, as (character, length): only at the line's very start (an
/// indented one could belong to a list item that a later line leaves), three or more
/// backticks or tildes, and for backticks an info string without one.
fn opening_fence(line: &str) -> Option<(char, usize)> {
    let c = line.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = line.len() - line.trim_start_matches(c).len();
    if n < 3 || (c == '`' && line[n..].contains('`')) {
        return None;
    }
    Some((c, n))
}

/// True when `line` closes a fence of `n` times `c` (CommonMark: up to three spaces, `n` or
/// more of `c`, then only spaces or tabs).
fn closes(line: &str, c: char, n: usize) -> bool {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return false;
    }
    let run = t.len() - t.trim_start_matches(c).len();
    run >= n && t[run..].chars().all(|ch| ch == ' ' || ch == '\t')
}

/// A line inside a fence of `n` times `c` that does not close it, written so that it closes it
/// nowhere: a line indented by a tab, then the fence, is code here (the tab reaches column 4)
/// but would close the fence inside a block quote, where `> ` moves the tab stops (`> \t~~~`
/// is indented by two columns). Its indent is written as the spaces it spans here; the rest of
/// the line, and every other line, as it is.
fn push_never_closing(o: &mut String, line: &str, c: char, n: usize) {
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    let (lead, rest) = line.split_at(indent);
    if !lead.contains('\t') || !closes(rest, c, n) {
        o.push_str(line);
        return;
    }
    let mut col = 0;
    for ch in lead.chars() {
        let w = if ch == '\t' { 4 - col % 4 } else { 1 };
        o.extend(std::iter::repeat_n(' ', w));
        col += w;
    }
    o.push_str(rest);
}

/// True when a paragraph starting with `line` could be a link reference definition (or a
/// footnote), whose destination or title may run on over the next lines, a fence line included.
fn may_define_a_link(line: &str) -> bool {
    let t = line.trim_start_matches(' ');
    line.len() - t.len() <= 3 && t.starts_with('[')
}

/// Session text as Markdown that carries no live HTML. Outside code, `<`, `>` and `&` become
/// entities (a backslash-escaped one too), and `$` gets a backslash (no math opens). Code is kept as written where a renderer is sure
/// to read it as code, as CommonMark and GitHub's tables parse:
///
/// * a fenced code block opened at the very start of a line, outside a paragraph that may be
///   a link definition; one left open is closed, so it cannot swallow what follows. Any
///   other run of three or more backticks or tildes gets backslashes, so that no fence opens
///   where this reading saw none;
/// * a code span opened and closed on one line, with no `|` inside (a table cell would split
///   it) and no unpaired backtick run before it in the paragraph (which a renderer could pair
///   with it instead).
///
/// Line ends become `\n`.
pub fn escape_html(text: &str) -> String {
    let mut o = String::with_capacity(text.len() + 16);
    let mut open: Option<(char, usize)> = None;
    // Since the paragraph began: an unpaired backtick run (code spans after it are not
    // trusted), and whether it may be a link definition (no fence opens in it).
    let mut unpaired = false;
    let mut definition = false;
    let mut in_paragraph = false;
    for line in lines(text) {
        if let Some((c, n)) = open {
            if closes(line, c, n) {
                // Without what follows the fence: pulldown-cmark reads `` ```\t `` as a line of
                // code (CommonMark as a close), and the two must agree.
                o.push_str(line.trim_end_matches([' ', '\t']));
                open = None;
            } else {
                push_never_closing(&mut o, line, c, n);
            }
        } else if let Some((c, n)) = opening_fence(line).filter(|_| !definition) {
            o.push_str(&line[..n]);
            push_escaped(&mut o, &line[n..]);
            open = Some((c, n));
            (unpaired, definition, in_paragraph) = (false, false, false);
        } else if line.trim().is_empty() {
            o.push_str(line);
            (unpaired, definition, in_paragraph) = (false, false, false);
        } else {
            if !in_paragraph {
                definition = may_define_a_link(line);
                in_paragraph = true;
            }
            escape_line(&mut o, line, &mut unpaired);
        }
        o.push('\n');
    }
    if let Some((c, n)) = open {
        o.push_str(&c.to_string().repeat(n));
        o.push('\n');
    }
    o.pop();
    o
}

fn escape_line(o: &mut String, line: &str, unpaired: &mut bool) {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() && b[i + 1].is_ascii_punctuation() {
            // `\<` shows `<`, as `&lt;` does.
            match entity(b[i + 1] as char) {
                Some(e) => o.push_str(e),
                None => o.push_str(&line[i..i + 2]),
            }
            i += 2;
        } else if b[i] == b'`' {
            let n = run_at(b, i, b'`');
            let inside = i + n;
            match (!*unpaired).then(|| find_run(&b[inside..], n)).flatten() {
                Some(j) => {
                    let end = inside + j;
                    o.push_str(&line[i..inside]);
                    if line[inside..end].contains('|') {
                        push_escaped(o, &line[inside..end]);
                    } else {
                        o.push_str(&line[inside..end]);
                    }
                    o.push_str(&line[end..end + n]);
                    i = end + n;
                }
                None => {
                    *unpaired = true;
                    push_run(o, '`', n);
                    i = inside;
                }
            }
        } else if b[i] == b'~' {
            let n = run_at(b, i, b'~');
            push_run(o, '~', n);
            i += n;
        } else {
            let ch = line[i..].chars().next().unwrap_or('\u{fffd}');
            match entity(ch) {
                Some(e) => o.push_str(e),
                // A `$` could open math (GitHub's `$…$`, `$$…$$`), which a renderer may let
                // swallow a backtick that this reading paired into a code span.
                None if ch == '$' => o.push_str("\\$"),
                None => o.push(ch),
            }
            i += ch.len_utf8();
        }
    }
}

/// A run of `n` backticks or tildes outside code: from three on, each with a backslash, so it
/// cannot open a fence (behind a `>` or a list marker, say).
fn push_run(o: &mut String, c: char, n: usize) {
    for _ in 0..n {
        if n >= 3 {
            o.push('\\');
        }
        o.push(c);
    }
}

/// The length of the run of `c` at `i`.
fn run_at(b: &[u8], i: usize, c: u8) -> usize {
    b[i..].iter().take_while(|&&x| x == c).count()
}

/// Where the first run of exactly `n` backticks starts in `b`.
fn find_run(b: &[u8], n: usize) -> Option<usize> {
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let run = run_at(b, i, b'`');
            if run == n {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

/// The Markdown of the entries `nodes` of a session (the transcript's "Copy as Markdown"):
/// the session's name as the title, then each entry.
pub fn transcript(s: &Session, nodes: &[u32]) -> Result<String, Error> {
    let mut reader = BodyReader::open(&s.index)?;
    let mut w = Writer::new(Prose::Markdown);
    if let Some(n) = &s.tree.name {
        w.heading(1, n, "");
    }
    for &i in nodes {
        let v = line_value(&reader.line(i)?);
        write_entry(&mut w, &s.index.entries[i as usize], &v);
    }
    Ok(w.finish())
}

/// Appends the Markdown of one entry (its line parsed as `v`).
pub fn entry_markdown(e: &Entry, v: &Value, out: &mut String) {
    let mut w = Writer::on(std::mem::take(out), Prose::Markdown);
    write_entry(&mut w, e, v);
    *out = w.finish();
}

fn write_entry(w: &mut Writer, e: &Entry, v: &Value) {
    match &e.kind {
        Kind::Message => {
            let m = v.get("message").unwrap_or(&Value::Null);
            let role = m.get("role").and_then(Value::as_str).unwrap_or("message");
            match role {
                "user" => {
                    w.heading(2, "User", "");
                    w.paragraphs(&content_text(m.get("content").unwrap_or(&Value::Null)));
                }
                "assistant" => {
                    w.heading(2, "Assistant", "");
                    for b in m.get("content").and_then(Value::as_array).into_iter().flatten() {
                        match b.get("type").and_then(Value::as_str) {
                            Some("text") => w.paragraphs(b.get("text").and_then(Value::as_str).unwrap_or("")),
                            Some("toolCall") => {
                                let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                                w.line(&format!("**Tool call:** {}", code_span(name)));
                                let args = serde_json::to_string_pretty(b.get("arguments").unwrap_or(&Value::Null)).unwrap_or_default();
                                w.fence("json", &args);
                            }
                            _ => {}
                        }
                    }
                }
                "toolResult" => {
                    let name = m.get("toolName").and_then(Value::as_str).unwrap_or("tool");
                    w.line(&format!("**Tool result** ({})", code_span(name)));
                    w.fence("", content_text(m.get("content").unwrap_or(&Value::Null)).trim_end());
                }
                "bashExecution" => {
                    w.line("**Bash**");
                    let cmd = m.get("command").and_then(Value::as_str).unwrap_or("");
                    let output = m.get("output").and_then(Value::as_str).unwrap_or("");
                    w.fence("sh", format!("$ {cmd}\n{output}").trim_end());
                }
                other => {
                    w.heading(2, other, "");
                    w.paragraphs(&content_text(m.get("content").unwrap_or(&Value::Null)));
                }
            }
        }
        Kind::CustomMessage => {
            w.heading(2, v.get("customType").and_then(Value::as_str).unwrap_or("custom"), "");
            w.paragraphs(&content_text(v.get("content").unwrap_or(&Value::Null)));
        }
        Kind::Compaction => summary(w, "Compaction summary", v),
        Kind::BranchSummary => summary(w, "Branch summary", v),
        _ => {}
    }
}

/// A summary as a block quote: every line quoted, the lines of its fences included.
fn summary(w: &mut Writer, title: &str, v: &Value) {
    let text = v.get("summary").and_then(Value::as_str).unwrap_or("");
    w.quoted(&format!("**{title}**"), |w| w.lines_of(text));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_every_line_break_a_renderer_knows() {
        assert_eq!(lines("a\nb\r\nc\rd").collect::<Vec<_>>(), ["a", "b", "c", "d"]);
        assert_eq!(lines("").collect::<Vec<_>>(), [""]);
        assert_eq!(lines("a\n").collect::<Vec<_>>(), ["a", ""]);
    }

    #[test]
    fn html_outside_code_becomes_entities_and_code_stays() {
        assert_eq!(escape_html("<script>alert(1)</script> & co"), "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co");
        assert_eq!(escape_html("see `<b>` and ``a`<i>`b``"), "see `<b>` and ``a`<i>`b``");
        assert_eq!(escape_html("```html\n<img src=x onerror=alert(1)>\n```\n<b>"), "```html\n<img src=x onerror=alert(1)>\n```\n&lt;b&gt;");
        assert_eq!(escape_html("~~~\n<i>\n~~~"), "~~~\n<i>\n~~~");
        // A backslash-escaped `<` shows `<` either way.
        assert_eq!(escape_html(r"\<b> \` <i>"), r"&lt;b&gt; \` &lt;i&gt;");
        // Line ends become `\n`.
        assert_eq!(escape_html("a\r\nb\rc"), "a\nb\nc");
    }

    #[test]
    fn code_is_trusted_only_where_a_renderer_surely_reads_code() {
        // An escaped backtick does not open a span.
        assert_eq!(escape_html(r"\`<script>`"), r"\`&lt;script&gt;`");
        // An unpaired run earlier in the paragraph could pair with the next line's run.
        assert_eq!(escape_html("a ` <x\nb ` <script> `"), "a ` &lt;x\nb ` &lt;script&gt; `");
        // A new paragraph starts afresh.
        assert_eq!(escape_html("a `\n\n`<b>`"), "a `\n\n`<b>`");
        // A table cell would split a span at `|`.
        assert_eq!(escape_html("| `<b>|` |"), "| `&lt;b&gt;|` |");
        // An indented fence could belong to a list item that the next line leaves: it is no
        // fence here, and its backticks get backslashes so that it is none for a renderer.
        assert_eq!(escape_html("- a\n  ```\n<script>\n```\n<b>\n```"), "- a\n  \\`\\`\\`\n&lt;script&gt;\n```\n<b>\n```");
        assert_eq!(escape_html("> ~~~\n> <i>"), "&gt; \\~\\~\\~\n&gt; &lt;i&gt;");
        assert_eq!(escape_html("~~strike~~ ``a``"), "~~strike~~ ``a``");
        // A backtick fence whose info string holds a backtick is no fence (a code span).
        assert_eq!(escape_html("``` a`b\n<i>"), "\\`\\`\\` a`b\n&lt;i&gt;");
        // The info string is escaped.
        assert_eq!(escape_html("```<x>\ny\n```"), "```&lt;x&gt;\ny\n```");
        // A fence left open is closed: the next entry's text cannot close it instead.
        assert_eq!(escape_html("```\n<b>"), "```\n<b>\n```");
        // Four spaces do not close a fence (CommonMark): what follows stays inside it.
        assert_eq!(escape_html("```\nx\n    ```\n<b>\n```\n<i>"), "```\nx\n    ```\n<b>\n```\n&lt;i&gt;");
        assert_eq!(escape_html("```\nx\n   ``` \t\n<i>"), "```\nx\n   ```\n&lt;i&gt;");
        // A tab before a fence inside a fence: code here, and code inside a block quote too.
        assert_eq!(escape_html("~~~\n\t~~~\n<i>\n \t~~~ \n\tx ~~~"), "~~~\n    ~~~\n<i>\n    ~~~ \n\tx ~~~\n~~~");
        // A link definition's title may run on over a fence line: no fence opens in it.
        assert_eq!(escape_html("[a]: /u '\n```\n<script>\n'"), "[a]: /u '\n\\`\\`\\`\n&lt;script&gt;\n'");
        assert_eq!(escape_html("[a]: /u\n\n```\n<i>\n```"), "[a]: /u\n\n```\n<i>\n```");
    }

    #[test]
    fn spans_and_headings_of_untrusted_names() {
        assert_eq!(code_span("read"), "`read`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(code_span("a\nb"), "`a b`");
        assert_eq!(heading_text("<img src=x onerror=alert(1)>\n# x"), "&lt;img src=x onerror=alert(1)&gt; # x");
    }
}

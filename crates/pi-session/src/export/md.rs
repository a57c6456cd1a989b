//! The Markdown renderer. Prose is escaped so that no HTML tag, entity, link or image can form
//! from session text (`< > & [ ] ( ) ! \` and backticks get a backslash or an entity); code goes
//! in fences longer than any backtick run inside ([`crate::markdown::fence`]), every line of a
//! quoted one quoted.

use super::{Block, Doc, DocBody, Item, Section};
use crate::markdown::{fence, lines};

/// Escapes prose for Markdown: no raw HTML, no links, no emphasis surprises.
pub fn esc(s: &str) -> String {
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

pub fn render(doc: &Doc) -> String {
    let mut o = String::new();
    o.push_str(&format!("# {}\n\n", esc(&doc.title)));
    for (k, v) in &doc.meta {
        o.push_str(&format!("- **{}:** {}\n", esc(k), esc(v)));
    }
    o.push('\n');
    match &doc.body {
        DocBody::Path(items) => items.iter().for_each(|it| item(&mut o, it, "", 2)),
        DocBody::Tree(sections) => sections.iter().for_each(|s| section(&mut o, s, 2)),
    }
    o
}

fn section(o: &mut String, s: &Section, depth: usize) {
    for it in &s.items {
        item(o, it, "", depth.min(6));
    }
    for b in &s.branches {
        o.push_str(&format!("{} {}{}\n\n", "#".repeat(depth.min(5)), esc(&b.title), if b.on_active_path { " (active)" } else { "" }));
        section(o, &b.section, depth + 1);
    }
}

fn item(o: &mut String, it: &Item, quote: &str, level: usize) {
    let h = "#".repeat(level.clamp(2, 6));
    let label = it.label.as_deref().map(|l| format!(" — label: {}", esc(l))).unwrap_or_default();
    o.push_str(&format!("{quote}{h} {}{label}\n{quote}\n", esc(&it.title)));
    for b in &it.blocks {
        match b {
            Block::Text(t) if t.trim().is_empty() => {}
            Block::Text(t) => {
                for l in lines(t.trim()) {
                    o.push_str(quote);
                    o.push_str(&esc(l));
                    o.push('\n');
                }
                o.push_str(&format!("{quote}\n"));
            }
            Block::Code { lang, body } => fence(o, lang, body, quote),
            Block::Note(n) => o.push_str(&format!("{quote}*{}*\n{quote}\n", esc(n))),
        }
    }
    if !it.folded.is_empty() {
        o.push_str(&format!("{quote}> *{} entries summarised by this compaction:*\n{quote}>\n", it.folded.len()));
        let q = format!("{quote}> ");
        for f in &it.folded {
            item(o, f, &q, level + 1);
        }
        o.push('\n');
    }
}

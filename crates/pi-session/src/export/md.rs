//! The Markdown renderer of an export: the [`Doc`] through the one Markdown writer
//! ([`crate::text::markdown`]), its prose as plain text ([`Prose::Plain`]: no HTML tag, entity,
//! link or image can form from session text), code in fences, the entries a compaction
//! summarises in a block quote.

use super::{Block, Doc, DocBody, Item, Section};
use crate::text::markdown::{Prose, Writer};

pub fn render(doc: &Doc) -> String {
    let mut w = Writer::new(Prose::Plain);
    w.heading(1, &doc.title, "");
    for (k, v) in &doc.meta {
        let line = format!("- **{}:** {}\n", w.escape(k), w.escape(v));
        w.raw(&line);
    }
    w.raw("\n");
    match &doc.body {
        DocBody::Path(items) => items.iter().for_each(|it| item(&mut w, it, 2)),
        DocBody::Tree(sections) => sections.iter().for_each(|s| section(&mut w, s, 2)),
    }
    w.finish()
}

fn section(w: &mut Writer, s: &Section, depth: usize) {
    for it in &s.items {
        item(w, it, depth.min(6));
    }
    for b in &s.branches {
        w.heading(depth.min(5), &b.title, if b.on_active_path { " (active)" } else { "" });
        section(w, &b.section, depth + 1);
    }
}

fn item(w: &mut Writer, it: &Item, level: usize) {
    let label = it.label.as_deref().map(|l| format!(" — label: {}", w.escape(l))).unwrap_or_default();
    w.heading(level.clamp(2, 6), &it.title, &label);
    for b in &it.blocks {
        match b {
            Block::Text(t) if t.trim().is_empty() => {}
            Block::Text(t) => w.paragraphs(t),
            Block::Code { lang, body } => w.fence(lang, body),
            Block::Note(n) => {
                let note = format!("*{}*", w.escape(n));
                w.line(&note);
            }
        }
    }
    if !it.folded.is_empty() {
        w.quoted(&format!("*{} entries summarised by this compaction:*", it.folded.len()), |w| {
            for f in &it.folded {
                item(w, f, level + 1);
            }
        });
    }
}

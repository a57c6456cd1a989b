//! The HTML renderer: one self-contained file, no scripts, no links, no external resources.
//!
//! Every piece of session text goes through [`esc`] (`& < > " '`) and only ever lands in text
//! content, never in an attribute name, a URL or a style. A restrictive CSP `<meta>` forbids
//! scripts even if a browser were tricked. Themes follow `prefers-color-scheme`.

use super::{Block, Doc, DocBody, Item, Section};

/// Escapes text for HTML text and quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

const CSS: &str = "
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#57606a;--card:#f6f8fa;--line:#d0d7de;--user:#0969da;--asst:#8250df;--tool:#1a7f37;--comp:#9a6700}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--card:#161b22;--line:#30363d;--user:#4493f8;--asst:#ab7df8;--tool:#3fb950;--comp:#d29922}}
body{background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
h1{font-size:1.4rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;color:var(--muted)}dd{margin:0;word-break:break-all}
.e{border-left:3px solid var(--line);padding:.3rem .8rem;margin:.8rem 0}
.e>header{font-weight:600;display:flex;gap:.6rem;flex-wrap:wrap}.e>header small{color:var(--muted);font-weight:400}
.user{border-color:var(--user)}.assistant{border-color:var(--asst)}.toolResult,.bashExecution{border-color:var(--tool)}
.compaction,.branch_summary{border:1px solid var(--comp);border-radius:6px;background:var(--card)}
.label{background:var(--comp);color:var(--bg);border-radius:4px;padding:0 .4rem;font-size:.8rem}
p{white-space:pre-wrap;margin:.3rem 0}pre{white-space:pre-wrap;word-break:break-word;background:var(--card);padding:.5rem;border-radius:4px;font-size:13px;max-height:40rem;overflow:auto}
.note{color:var(--muted);font-size:.9rem}details{margin:.5rem 0}summary{cursor:pointer;color:var(--muted)}
.branch{border-left:2px dashed var(--line);padding-left:.8rem;margin-left:.4rem}
";

pub fn render(doc: &Doc) -> String {
    let mut o = String::with_capacity(1 << 16);
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    o.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">");
    o.push_str("<meta name=\"viewport\" content=\"width=device-width\">");
    o.push_str(&format!("<title>{}</title><style>{CSS}</style></head><body>\n", esc(&doc.title)));
    o.push_str(&format!("<h1>{}</h1>\n<dl>", esc(&doc.title)));
    for (k, v) in &doc.meta {
        o.push_str(&format!("<dt>{}</dt><dd>{}</dd>", esc(k), esc(v)));
    }
    o.push_str("</dl>\n");
    match &doc.body {
        DocBody::Path(items) => {
            for it in items {
                item(&mut o, it);
            }
        }
        DocBody::Tree(sections) => {
            for s in sections {
                section(&mut o, s);
            }
        }
    }
    o.push_str("</body></html>\n");
    o
}

fn section(o: &mut String, s: &Section) {
    for it in &s.items {
        item(o, it);
    }
    for b in &s.branches {
        o.push_str(if b.on_active_path { "<details class=\"branch\" open>" } else { "<details class=\"branch\">" });
        o.push_str(&format!("<summary>{}{}</summary>\n", esc(&b.title), if b.on_active_path { " (active)" } else { "" }));
        section(o, &b.section);
        o.push_str("</details>\n");
    }
}

fn item(o: &mut String, it: &Item) {
    // The class is one of a fixed set of words the core produces, but it comes from the file
    // (the role): keep only [A-Za-z_].
    let class: String = it.class.chars().filter(|c| c.is_ascii_alphabetic() || *c == '_').collect();
    o.push_str(&format!("<section class=\"e {class}\" id=\"e-{}\"><header>{}", esc(&it.id), esc(&it.title)));
    if let Some(l) = &it.label {
        o.push_str(&format!("<span class=\"label\">{}</span>", esc(l)));
    }
    o.push_str(&format!("<small>line {}{}</small></header>\n", it.line, it.ts.as_deref().map(|t| format!(" · {}", esc(t))).unwrap_or_default()));
    for b in &it.blocks {
        match b {
            Block::Text(t) if t.trim().is_empty() => {}
            Block::Text(t) => o.push_str(&format!("<p>{}</p>\n", esc(t.trim()))),
            Block::Code { lang, body } if *lang == "thinking" => o.push_str(&format!("<details><summary>Thinking</summary><pre>{}</pre></details>\n", esc(body))),
            Block::Code { body, .. } => o.push_str(&format!("<pre>{}</pre>\n", esc(body))),
            Block::Note(n) => o.push_str(&format!("<div class=\"note\">{}</div>\n", esc(n))),
        }
    }
    if !it.folded.is_empty() {
        o.push_str(&format!("<details><summary>{} entries summarised by this compaction</summary>\n", it.folded.len()));
        for f in &it.folded {
            item(o, f);
        }
        o.push_str("</details>\n");
    }
    o.push_str("</section>\n");
}

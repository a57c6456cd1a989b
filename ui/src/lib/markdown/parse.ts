// Markdown → a small tree of plain data, rendered by Svelte components (Markdown.svelte).
// Session text is untrusted: nothing here produces HTML. Raw HTML in the source becomes a `raw`
// node that is shown as literal text; links keep their href only as text; images are never loaded.

import { Lexer, type Token, type Tokens } from "marked";

export type Inline =
  | { k: "text"; text: string }
  | { k: "strong"; children: Inline[] }
  | { k: "em"; children: Inline[] }
  | { k: "del"; children: Inline[] }
  | { k: "code"; text: string }
  | { k: "br" }
  | { k: "link"; href: string; safe: boolean; children: Inline[] }
  | { k: "image"; alt: string; src: string }
  | { k: "raw"; text: string };

export type Block =
  | { k: "p"; children: Inline[] }
  | { k: "h"; level: number; children: Inline[] }
  | { k: "code"; lang: string; text: string }
  | { k: "quote"; children: Block[] }
  | { k: "list"; ordered: boolean; start: number; items: { task: boolean; checked: boolean; children: Block[] }[] }
  | { k: "hr" }
  | { k: "table"; header: Inline[][]; align: ("left" | "right" | "center" | null)[]; rows: Inline[][][] }
  | { k: "raw"; text: string }
  | { k: "text"; children: Inline[] };

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Decodes the few character references Markdown text may carry (the result is only ever text). */
export function decodeEntities(s: string): string {
  if (!s.includes("&")) return s;
  return s.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]{2,8});/g, (m, body: string) => {
    if (body[0] === "#") {
      const n = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(n) || n <= 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return m;
      return String.fromCodePoint(n);
    }
    return ENTITIES[body] ?? m;
  });
}

/** Only http(s) and mailto links count as links at all; the UI never navigates by itself. */
export function isSafeHref(href: string): boolean {
  const h = href.trim().toLowerCase();
  return h.startsWith("https://") || h.startsWith("http://") || h.startsWith("mailto:");
}

const MAX_DEPTH = 24;

function inline(tokens: Token[] | undefined, depth = 0): Inline[] {
  if (!tokens) return [];
  if (depth > MAX_DEPTH) return [{ k: "text", text: tokens.map((t) => t.raw).join("") }];
  const out: Inline[] = [];
  for (const t of tokens) {
    switch (t.type) {
      case "text": {
        const tt = t as Tokens.Text;
        if (tt.tokens && tt.tokens.length) out.push(...inline(tt.tokens, depth + 1));
        else out.push({ k: "text", text: decodeEntities(tt.text) });
        break;
      }
      case "escape":
        out.push({ k: "text", text: (t as Tokens.Escape).text });
        break;
      case "strong":
        out.push({ k: "strong", children: inline((t as Tokens.Strong).tokens, depth + 1) });
        break;
      case "em":
        out.push({ k: "em", children: inline((t as Tokens.Em).tokens, depth + 1) });
        break;
      case "del":
        out.push({ k: "del", children: inline((t as Tokens.Del).tokens, depth + 1) });
        break;
      case "codespan":
        out.push({ k: "code", text: decodeEntities((t as Tokens.Codespan).text) });
        break;
      case "br":
        out.push({ k: "br" });
        break;
      case "link": {
        const l = t as Tokens.Link;
        out.push({ k: "link", href: l.href, safe: isSafeHref(l.href), children: inline(l.tokens, depth + 1) });
        break;
      }
      case "image": {
        const im = t as Tokens.Image;
        out.push({ k: "image", alt: im.text, src: im.href });
        break;
      }
      case "html":
        out.push({ k: "raw", text: t.raw });
        break;
      default:
        out.push({ k: "text", text: t.raw ?? "" });
    }
  }
  return out;
}

function blocks(tokens: Token[], depth = 0): Block[] {
  const out: Block[] = [];
  if (depth > MAX_DEPTH) return [{ k: "raw", text: tokens.map((t) => t.raw).join("") }];
  for (const t of tokens) {
    switch (t.type) {
      case "space":
      case "def":
        break;
      case "paragraph":
        out.push({ k: "p", children: inline((t as Tokens.Paragraph).tokens) });
        break;
      case "heading": {
        const h = t as Tokens.Heading;
        out.push({ k: "h", level: Math.min(6, Math.max(1, h.depth)), children: inline(h.tokens) });
        break;
      }
      case "code": {
        const c = t as Tokens.Code;
        out.push({ k: "code", lang: (c.lang ?? "").split(/\s/)[0].slice(0, 24), text: c.text });
        break;
      }
      case "blockquote":
        out.push({ k: "quote", children: blocks((t as Tokens.Blockquote).tokens, depth + 1) });
        break;
      case "list": {
        const l = t as Tokens.List;
        const start = typeof l.start === "number" ? l.start : 1;
        out.push({
          k: "list",
          ordered: l.ordered,
          start,
          items: l.items.map((it) => ({ task: it.task, checked: !!it.checked, children: blocks(it.tokens, depth + 1) })),
        });
        break;
      }
      case "hr":
        out.push({ k: "hr" });
        break;
      case "table": {
        const tb = t as Tokens.Table;
        out.push({
          k: "table",
          header: tb.header.map((c) => inline(c.tokens)),
          align: tb.align,
          rows: tb.rows.map((r) => r.map((c) => inline(c.tokens))),
        });
        break;
      }
      case "html":
        out.push({ k: "raw", text: t.raw.replace(/\n+$/, "") });
        break;
      case "text": {
        const tt = t as Tokens.Text;
        out.push({ k: "text", children: tt.tokens ? inline(tt.tokens) : [{ k: "text", text: decodeEntities(tt.text) }] });
        break;
      }
      default:
        out.push({ k: "raw", text: t.raw ?? "" });
    }
  }
  return out;
}

/** Parses Markdown into blocks. Very long input is cut (the rest is shown as plain text by callers). */
export function parseMarkdown(src: string): Block[] {
  try {
    return blocks(new Lexer({ gfm: true, breaks: false }).lex(src));
  } catch {
    return [{ k: "raw", text: src }];
  }
}

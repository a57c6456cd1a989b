// Helpers to read pi's (untrusted) entry JSON for display. Everything returns plain strings.

import type { IconName } from "./ui/icons";

export type Obj = Record<string, unknown>;

export function obj(v: unknown): Obj | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : null;
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : v === null || v === undefined ? "" : String(v);
}

export function blocks(content: unknown): Obj[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (Array.isArray(content)) return content.filter((b): b is Obj => !!obj(b));
  return [];
}

export function toolIcon(name: string | null | undefined): IconName {
  const n = (name ?? "").toLowerCase();
  if (n === "read" || n === "ls" || n === "find" || n === "grep") return "file";
  if (n === "edit" || n === "write") return "pencil";
  if (n === "bash") return "term";
  return "tool";
}

/** "read src/x.ts", "bash npm test", or the tool name and a short JSON of its arguments. */
export function toolSummary(name: string, args: unknown): string {
  const a = obj(args) ?? {};
  for (const k of ["path", "file_path", "command", "pattern", "query", "url"]) {
    if (typeof a[k] === "string") return `${name} ${a[k]}`;
  }
  const s = JSON.stringify(args ?? {});
  return `${name} ${s.length > 80 ? s.slice(0, 79) + "…" : s}`;
}

export function pretty(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}

/** The kind of an entry for its pill: user, assistant, toolResult, compaction, … */
export function kindOf(type: string, role: string | null): string {
  if (type === "message") return role ?? "message";
  return type;
}

export function pillClass(kind: string): string {
  if (kind === "user") return "user";
  if (kind === "assistant") return "assistant";
  if (kind === "toolResult" || kind === "bashExecution") return "tool";
  return "meta";
}

/** A one-line preview of a context message (pi's message object). */
export function messagePreview(m: unknown): string {
  const o = obj(m);
  if (!o) return "";
  const role = str(o.role);
  if (role === "compactionSummary" || role === "branchSummary") return plainMarkdown(str(o.summary));
  if (role === "bashExecution") return `$ ${str(o.command)}`;
  if (role === "toolResult") {
    // The tool's name is on the badge beside it.
    return blocks(o.content).filter((b) => b.type === "text").map((b) => str(b.text)).join(" ");
  }
  const bs = blocks(o.content);
  const text = bs.filter((b) => b.type === "text").map((b) => str(b.text)).join(" ");
  if (text) return plainMarkdown(text);
  const calls = bs.filter((b) => b.type === "toolCall").map((b) => toolSummary(str(b.name), b.arguments));
  return calls.join(", ");
}

/** Markdown reduced to one plain line (for clamped previews). */
export function plainMarkdown(s: string): string {
  return s
    .replace(/```[^\n]*\n?/g, " ")
    .replace(/^\s{0,3}#{1,6}\s+(.*)$/gm, "$1:")
    .replace(/^\s*[-*+]\s+/gm, "")
    .replace(/\*\*([^*]+)\*\*/g, "$1")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

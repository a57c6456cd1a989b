// An in-memory session file for the fake backend: the lines as written, and the tree read from them
// with the rules of DESIGN.md (leaf = last line, `leaf` lines give their target, labels replayed,
// children by timestamp with ties in file order).

export type Raw = {
  type: string;
  id?: string;
  parentId?: string | null;
  timestamp?: string;
  [k: string]: unknown;
};

export interface Header {
  type: "session";
  version: number;
  id: string;
  timestamp: string;
  cwd: string;
  parentSession?: string;
}

export interface FakeFile {
  path: string;
  header: Header;
  /** Entry lines (after the header), in file order. */
  lines: Raw[];
  /** Extra findings the fixture wants the file to carry (damaged lines and the like). */
  diagnostics: { line: number | null; kind: string; severity: "info" | "warning" | "error"; message: string }[];
  /** Why the file is read-only, if it is. */
  readOnly: string | null;
  /** Bumped on every append. */
  version: number;
  modified: number;
  /** Appended by another process moments ago. */
  liveUntil: number;
}

export interface Node {
  id: string;
  parentId: string | null;
  /** 1-based line number in the file (the header is line 1). */
  line: number;
  raw: Raw;
  ts: number | null;
  type: string;
  role: string | null;
  children: Node[];
  parent: Node | null;
  depth: number;
}

export interface Tree {
  byId: Map<string, Node>;
  roots: Node[];
  labels: Map<string, string>;
  name: string | null;
  /** The leaf as the file says (a label line id, a leaf line's target…). */
  leafId: string | null;
  /** Nodes in file order. */
  order: Node[];
}

export const BOOKKEEPING = new Set(["label", "leaf", "session_info"]);

export function roleOf(raw: Raw): string | null {
  if (raw.type === "message") {
    const m = raw.message as { role?: unknown } | undefined;
    return typeof m?.role === "string" ? m.role : null;
  }
  return null;
}

export function tsOf(raw: Raw): number | null {
  if (typeof raw.timestamp !== "string") return null;
  const t = Date.parse(raw.timestamp);
  return Number.isNaN(t) ? null : t;
}

const treeCache = new WeakMap<FakeFile, { version: number; tree: Tree }>();

export function treeOf(file: FakeFile): Tree {
  const c = treeCache.get(file);
  if (c && c.version === file.version) return c.tree;
  const tree = buildTree(file.lines);
  treeCache.set(file, { version: file.version, tree });
  return tree;
}

export function buildTree(lines: Raw[]): Tree {
  const byId = new Map<string, Node>();
  const order: Node[] = [];
  const labels = new Map<string, string>();
  let name: string | null = null;
  let leafId: string | null = null;
  lines.forEach((raw, i) => {
    if (typeof raw.id !== "string") return;
    const node: Node = {
      id: raw.id,
      parentId: typeof raw.parentId === "string" ? raw.parentId : null,
      line: i + 2,
      raw,
      ts: tsOf(raw),
      type: raw.type,
      role: roleOf(raw),
      children: [],
      parent: null,
      depth: 0,
    };
    byId.set(node.id, node);
    order.push(node);
    if (raw.type === "label" && typeof raw.targetId === "string") {
      if (typeof raw.label === "string" && raw.label !== "") labels.set(raw.targetId, raw.label);
      else labels.delete(raw.targetId);
    }
    if (raw.type === "session_info") {
      const n = typeof raw.name === "string" ? raw.name.trim() : "";
      name = n === "" ? null : n;
    }
    leafId = raw.type === "leaf" ? ((raw.targetId as string | null) ?? null) : node.id;
  });
  const roots: Node[] = [];
  for (const n of order) {
    const p = n.parentId && n.parentId !== n.id ? byId.get(n.parentId) : undefined;
    if (p) {
      n.parent = p;
      p.children.push(n);
    } else roots.push(n);
  }
  for (const n of order) {
    if (n.children.length > 1) {
      // Stable: ties keep file order.
      n.children.sort((a, b) => (a.ts ?? 0) - (b.ts ?? 0));
    }
  }
  // Depths, iteratively.
  const stack = [...roots];
  while (stack.length) {
    const n = stack.pop()!;
    for (const c of n.children) {
      c.depth = n.depth + 1;
      stack.push(c);
    }
  }
  return { byId, roots, labels, name, leafId, order };
}

/** Root → node. */
export function pathTo(node: Node | null): Node[] {
  const out: Node[] = [];
  for (let n = node; n; n = n.parent) out.push(n);
  return out.reverse();
}

export function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (b && typeof b === "object" && (b as { type?: string }).type === "text" ? String((b as { text?: unknown }).text ?? "") : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

/** All searchable text of an entry (message text, thinking, tool arguments, summaries). */
export function entryText(raw: Raw): string {
  const parts: string[] = [];
  if (raw.type === "message") {
    const m = raw.message as Record<string, unknown>;
    const c = m.content;
    if (typeof c === "string") parts.push(c);
    else if (Array.isArray(c)) {
      for (const b of c as Record<string, unknown>[]) {
        if (b.type === "text") parts.push(String(b.text ?? ""));
        else if (b.type === "thinking") parts.push(String(b.thinking ?? ""));
        else if (b.type === "toolCall") parts.push(String(b.name ?? ""), JSON.stringify(b.arguments ?? {}));
      }
    }
    if (m.role === "toolResult") parts.push(String(m.toolName ?? ""));
    if (m.role === "bashExecution") parts.push(String(m.command ?? ""), String(m.output ?? ""));
  } else if (raw.type === "compaction" || raw.type === "branch_summary") {
    parts.push(String(raw.summary ?? ""));
  } else if (raw.type === "custom_message") {
    parts.push(textOfContent(raw.content));
  } else if (raw.type === "model_change") {
    parts.push(String(raw.provider ?? ""), String(raw.modelId ?? ""));
  } else if (raw.type === "session_info") {
    parts.push(String(raw.name ?? ""));
  }
  return parts.join("\n");
}

/** pi's `estimateTokens`: ceil(chars / 4), an image counting 4,800 chars. */
export function estimateTokens(raw: Raw | Record<string, unknown>): number {
  let chars = 0;
  const m = (raw as Raw).type === "message" ? ((raw as Raw).message as Record<string, unknown>) : raw;
  const c = (m as Record<string, unknown>).content;
  if (typeof c === "string") chars += c.length;
  else if (Array.isArray(c)) {
    for (const b of c as Record<string, unknown>[]) {
      if (b.type === "image") chars += 4800;
      else if (b.type === "text") chars += String(b.text ?? "").length;
      else if (b.type === "thinking") chars += String(b.thinking ?? "").length;
      else if (b.type === "toolCall") chars += String(b.name ?? "").length + JSON.stringify(b.arguments ?? {}).length;
    }
  }
  const mm = m as Record<string, unknown>;
  if (typeof mm.summary === "string") chars += mm.summary.length;
  if (typeof mm.command === "string") chars += mm.command.length;
  if (typeof mm.output === "string") chars += mm.output.length;
  return Math.ceil(chars / 4);
}

/** A one-line plain preview of an entry (≤ 200 chars) and its detail (tool name, model). */
export function previewOf(raw: Raw, toolCalls?: Map<string, { name: string; args: Record<string, unknown> }>): {
  preview: string;
  detail: string | null;
  isError: boolean;
} {
  const cut = (s: string) => {
    const one = s
      .replace(/^#{1,6}\s+/gm, "")
      .replace(/\*\*([^*]+)\*\*/g, "$1")
      .replace(/```[a-z]*\n?/g, "")
      .replace(/\s+/g, " ")
      .trim();
    return one.length > 200 ? one.slice(0, 199) + "…" : one;
  };
  switch (raw.type) {
    case "message": {
      const m = raw.message as Record<string, unknown>;
      const role = m.role;
      if (role === "user") return { preview: cut(textOfContent(m.content)), detail: null, isError: false };
      if (role === "assistant") {
        const blocks = Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : [];
        const text = blocks.filter((b) => b.type === "text").map((b) => String(b.text ?? "")).join(" ");
        const calls = blocks
          .filter((b) => b.type === "toolCall")
          .map((b) => {
            const arg = firstArg((b.arguments ?? {}) as Record<string, unknown>);
            return arg ? `${b.name} ${arg}` : String(b.name ?? "tool");
          });
        const shown = text.trim() ? text : calls.length ? calls.join(" · ") : blocks.some((b) => b.type === "thinking") ? "(thinking)" : String(m.errorMessage ?? "");
        return { preview: cut(shown), detail: calls.length ? calls[0].split(" ")[0] : null, isError: m.stopReason === "error" || m.stopReason === "aborted" };
      }
      if (role === "toolResult") {
        return { preview: cut(textOfContent(m.content)), detail: String(m.toolName ?? "tool"), isError: m.isError === true };
      }
      if (role === "bashExecution") {
        const code = typeof m.exitCode === "number" ? m.exitCode : null;
        return { preview: cut(`$ ${m.command ?? ""}`), detail: code === null ? null : `exit ${code}`, isError: code !== null && code !== 0 };
      }
      if (role === "custom") return { preview: cut(textOfContent(m.content)), detail: String(m.customType ?? ""), isError: false };
      return { preview: cut(textOfContent(m.content)), detail: null, isError: false };
    }
    case "compaction":
      return { preview: cut(String(raw.summary ?? "")), detail: typeof raw.tokensBefore === "number" ? `${raw.tokensBefore} tokens before` : null, isError: false };
    case "branch_summary":
      return { preview: cut(String(raw.summary ?? "")), detail: null, isError: false };
    case "model_change":
      return { preview: `${raw.provider ?? ""}/${raw.modelId ?? ""}`, detail: String(raw.modelId ?? ""), isError: false };
    case "thinking_level_change":
      return { preview: `thinking ${raw.thinkingLevel ?? ""}`, detail: String(raw.thinkingLevel ?? ""), isError: false };
    case "custom_message":
      return { preview: cut(textOfContent(raw.content)), detail: String(raw.customType ?? ""), isError: false };
    case "custom":
      return { preview: cut(String(raw.customType ?? "")), detail: String(raw.customType ?? ""), isError: false };
    case "label":
      return { preview: raw.label ? `label ${raw.targetId} “${raw.label}”` : `clear label of ${raw.targetId}`, detail: null, isError: false };
    case "leaf":
      return { preview: `leaf → ${raw.targetId ?? "null"}`, detail: null, isError: false };
    case "session_info":
      return { preview: `name “${raw.name ?? ""}”`, detail: null, isError: false };
    default:
      return { preview: cut(JSON.stringify(raw)), detail: null, isError: false };
  }
}

/** The most telling argument of a tool call (a path, a command, a pattern). */
export function firstArg(args: Record<string, unknown>): string {
  for (const k of ["path", "file_path", "command", "pattern", "url", "query"]) {
    if (typeof args[k] === "string") return (args[k] as string).length > 80 ? (args[k] as string).slice(0, 79) + "…" : (args[k] as string);
  }
  return "";
}

export function summarizeArgs(name: string, args: Record<string, unknown>): string {
  if (typeof args.path === "string") return args.path;
  if (typeof args.command === "string") return args.command;
  if (typeof args.pattern === "string") return args.pattern;
  const s = JSON.stringify(args);
  return `${name} ${s.length > 80 ? s.slice(0, 79) + "…" : s}`;
}

/** Tool calls of a file by call id (for tool-result previews). */
const callCache = new WeakMap<FakeFile, { version: number; calls: Map<string, { name: string; args: Record<string, unknown> }> }>();

export function toolCallsOf(file: FakeFile): Map<string, { name: string; args: Record<string, unknown> }> {
  const c = callCache.get(file);
  if (c && c.version === file.version) return c.calls;
  const calls = scanToolCalls(file);
  callCache.set(file, { version: file.version, calls });
  return calls;
}

function scanToolCalls(file: FakeFile): Map<string, { name: string; args: Record<string, unknown> }> {
  const m = new Map<string, { name: string; args: Record<string, unknown> }>();
  for (const raw of file.lines) {
    if (raw.type !== "message") continue;
    const msg = raw.message as Record<string, unknown>;
    if (msg.role !== "assistant" || !Array.isArray(msg.content)) continue;
    for (const b of msg.content as Record<string, unknown>[]) {
      if (b.type === "toolCall") m.set(String(b.id), { name: String(b.name ?? ""), args: (b.arguments ?? {}) as Record<string, unknown> });
    }
  }
  return m;
}

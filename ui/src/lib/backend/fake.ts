// An in-memory implementation of `Backend` over a realistic fixture (see fake/fixture.ts).
// It follows docs/ipc.md and DESIGN.md closely enough for the UI to be developed and tested in a
// plain browser: tree pages with lanes and folds, context previews with the compaction audit,
// search, and the writes (navigate, label, fork, switch) appended to the in-memory files.

import type { Backend, Unsubscribe } from "./index";
import { ApiError } from "./index";
import type { AppInfo } from "../bindings/AppInfo";
import type { CompactionAudit } from "../bindings/CompactionAudit";
import type { ContextMessage } from "../bindings/ContextMessage";
import type { ContextView } from "../bindings/ContextView";
import type { Diagnostic } from "../bindings/Diagnostic";
import type { EntryDetail } from "../bindings/EntryDetail";
import type { FindResult } from "../bindings/FindResult";
import type { ForkGraph } from "../bindings/ForkGraph";
import type { ForkNode } from "../bindings/ForkNode";
import type { ForkPosition } from "../bindings/ForkPosition";
import type { ForkResult } from "../bindings/ForkResult";
import type { HiddenEntry } from "../bindings/HiddenEntry";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { LocateResult } from "../bindings/LocateResult";
import type { ModelRef } from "../bindings/ModelRef";
import type { RootChanged } from "../bindings/RootChanged";
import type { SearchHit } from "../bindings/SearchHit";
import type { SearchResult } from "../bindings/SearchResult";
import type { SessionList } from "../bindings/SessionList";
import type { SessionRow } from "../bindings/SessionRow";
import type { Siblings } from "../bindings/Siblings";
import type { SwitchResult } from "../bindings/SwitchResult";
import type { TranscriptItem } from "../bindings/TranscriptItem";
import type { TranscriptPage } from "../bindings/TranscriptPage";
import type { TreePage } from "../bindings/TreePage";
import type { TreeQuery } from "../bindings/TreeQuery";
import type { Usage } from "../bindings/Usage";
import type { WriteResult } from "../bindings/WriteResult";
import { hex, iso, fileName, uuid7, rng } from "./fake/builder";
import { buildFixture, forkLines, ROOT } from "./fake/fixture";
import { layoutSession, type LaidTree, type SessionSource, visibleIn } from "./fake/project";
import {
  BOOKKEEPING,
  entryText,
  estimateTokens,
  pathTo,
  previewOf,
  textOfContent,
  toolCallsOf,
  treeOf,
  type FakeFile,
  type Node,
  type Raw,
  type Tree,
} from "./fake/session";

export interface FakeOptions {
  /** Adds a session of about this many entries. */
  bigSession?: number;
  /** Pretend the sessions root did not exist and these are the bundled demo sessions. */
  demo?: boolean;
  /** Simulate the full index building for this long (ms) after start. */
  indexingMs?: number;
  /** Append to a session every few seconds, as a running pi would. */
  live?: boolean;
  /** Artificial latency per command (ms). */
  latency?: number;
  now?: number;
  files?: FakeFile[];
}

const CONTEXT_PAGE = 50;
const HIDDEN_PAGE = 50;

export function createFakeBackend(opts: FakeOptions = {}): FakeBackend {
  return new FakeBackend(opts);
}

interface ForkInfo {
  parentPath: string | null;
  forkPointId: string | null;
  forkPointLine: number | null;
  status: "ok" | "parent-missing" | "cycle";
}

interface ContextPlan {
  leafId: string | null;
  model: ModelRef | null;
  thinkingLevel: string | null;
  messages: ContextMessage[];
  hidden: HiddenEntry[];
  compaction: CompactionAudit | null;
  tokenEstimate: number;
}

export class FakeBackend implements Backend {
  readonly kind = "fake" as const;
  readonly files = new Map<string, FakeFile>();
  private readOnlyMode = false;
  private demo: boolean;
  private viewLeaf = new Map<string, string | null>();
  private rootListeners = new Set<(e: RootChanged) => void>();
  private progressListeners = new Set<(e: IndexProgress) => void>();
  private layoutCache = new Map<string, LaidTree>();
  private r = rng(1234);
  private indexedUntil: number;
  private latency: number;
  private liveTimer: ReturnType<typeof setInterval> | null = null;

  constructor(opts: FakeOptions = {}) {
    const files = opts.files ?? buildFixture({ now: opts.now, bigSession: opts.bigSession });
    for (const f of files) this.files.set(f.path, f);
    this.demo = opts.demo ?? false;
    this.latency = opts.latency ?? 0;
    this.indexedUntil = opts.indexingMs ? Date.now() + opts.indexingMs : 0;
    if (opts.indexingMs) this.simulateIndexing(opts.indexingMs);
    if (opts.live) this.liveTimer = setInterval(() => this.tickLive(), 4000);
  }

  dispose() {
    if (this.liveTimer) clearInterval(this.liveTimer);
  }

  // ------------------------------------------------------------------ helpers

  private async wait() {
    if (this.latency > 0) await new Promise((r) => setTimeout(r, this.latency));
    else await Promise.resolve();
  }

  private file(path: string): FakeFile {
    const f = this.files.get(path);
    if (!f) throw new ApiError("not-found", `${path}: no such session file`);
    return f;
  }

  private tree(f: FakeFile): Tree {
    return treeOf(f);
  }

  /** The leaf the views use: the file's, or one the user switched to in read-only mode. */
  private leafOf(f: FakeFile): string | null {
    if (this.viewLeaf.has(f.path)) return this.viewLeaf.get(f.path)!;
    return this.tree(f).leafId;
  }

  private node(f: FakeFile, id: string): Node {
    const n = this.tree(f).byId.get(id);
    if (!n) throw new ApiError("unknown-id", `entry ${id} is not in ${f.path}`);
    return n;
  }

  private emit(e: RootChanged) {
    for (const cb of this.rootListeners) cb(e);
  }

  private checkWritable(f: FakeFile) {
    if (this.readOnlyMode) throw new ApiError("read-only-mode", "read-only mode: nothing is written");
    if (f.readOnly) throw new ApiError("read-only", `${f.path}: the file is read-only (${f.readOnly})`);
  }

  private newId(f: FakeFile): string {
    const t = this.tree(f);
    for (;;) {
      const id = hex(this.r, 8);
      if (!t.byId.has(id)) return id;
    }
  }

  private append(f: FakeFile, line: Raw): WriteResult {
    f.lines.push(line);
    f.version++;
    f.modified = Date.now();
    this.viewLeaf.delete(f.path);
    this.layoutCache.clear();
    const warning = f.liveUntil > Date.now() ? "pi is appending to this session right now: its next message continues from its own leaf" : null;
    queueMicrotask(() => this.emit({ changed: [f.path], added: [], removed: [] }));
    return { file: f.path, line: JSON.stringify(line), warning };
  }

  private simulateIndexing(ms: number) {
    const total = this.files.size;
    const start = Date.now();
    const timer = setInterval(() => {
      const done = Math.min(total, Math.floor(((Date.now() - start) / ms) * total));
      for (const cb of this.progressListeners) cb({ done, total });
      if (done >= total) clearInterval(timer);
    }, 150);
  }

  /** Appends a user/assistant pair to the newest session, as a running pi would. */
  tickLive(path?: string) {
    const f = path ? this.file(path) : [...this.files.values()].sort((a, b) => b.modified - a.modified)[0];
    if (!f || f.readOnly) return;
    const leaf = this.tree(f).leafId;
    const now = Date.now();
    const u = this.newId(f);
    f.lines.push({ type: "message", id: u, parentId: leaf, timestamp: iso(now), message: { role: "user", content: "keep going", timestamp: now } });
    const a = hex(this.r, 8);
    f.lines.push({
      type: "message",
      id: a,
      parentId: u,
      timestamp: iso(now + 1),
      message: {
        role: "assistant",
        content: [{ type: "text", text: `Continuing (live update at ${new Date(now).toLocaleTimeString()}).` }],
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: { input: 120, output: 30, cacheRead: 9000, cacheWrite: 0, totalTokens: 9150, cost: { total: 0.003 } },
        stopReason: "stop",
        timestamp: now + 1,
      },
    });
    f.version++;
    f.modified = now;
    f.liveUntil = now + 5000;
    this.layoutCache.clear();
    this.emit({ changed: [f.path], added: [], removed: [] });
  }

  private forkInfo(f: FakeFile): ForkInfo {
    const parentPath = f.header.parentSession ?? null;
    if (!parentPath) return { parentPath: null, forkPointId: null, forkPointLine: null, status: "ok" };
    const parent = this.files.get(parentPath);
    if (!parent) return { parentPath, forkPointId: null, forkPointLine: null, status: "parent-missing" };
    // cycle: walk up parents
    const seen = new Set<string>([f.path]);
    let p: FakeFile | undefined = parent;
    while (p) {
      if (seen.has(p.path)) return { parentPath, forkPointId: null, forkPointLine: null, status: "cycle" };
      seen.add(p.path);
      p = p.header.parentSession ? this.files.get(p.header.parentSession) : undefined;
    }
    const pt = this.tree(parent);
    const t = this.tree(f);
    const leaf = t.leafId ? t.byId.get(t.leafId) ?? null : null;
    let point: Node | null = null;
    for (const n of pathTo(leaf)) if (pt.byId.has(n.id)) point = pt.byId.get(n.id)!;
    return { parentPath, forkPointId: point?.id ?? null, forkPointLine: point?.line ?? null, status: "ok" };
  }

  private title(f: FakeFile): { title: string; name: string | null; first: string | null } {
    const t = this.tree(f);
    let first: string | null = null;
    for (const l of f.lines) {
      if (l.type === "message" && (l.message as { role?: string }).role === "user") {
        first = textOfContent((l.message as { content?: unknown }).content).replace(/\s+/g, " ").trim().slice(0, 200);
        break;
      }
    }
    const base = f.path.split("/").pop() ?? f.path;
    return { title: t.name ?? first ?? base, name: t.name, first };
  }

  private sessionRow(f: FakeFile): SessionRow {
    const t = this.tree(f);
    const fi = this.forkInfo(f);
    const { title, name, first } = this.title(f);
    let tokens = 0;
    let cost = 0;
    let messages = 0;
    let modified: number | null = null;
    for (const l of f.lines) {
      if (l.type !== "message") continue;
      messages++;
      const m = l.message as Record<string, unknown>;
      if (m.role === "assistant") {
        const u = m.usage as { input?: number; output?: number; cost?: { total?: number } } | undefined;
        tokens += (u?.input ?? 0) + (u?.output ?? 0);
        cost += u?.cost?.total ?? 0;
      }
      if (m.role === "user" || m.role === "assistant") {
        const ts = typeof m.timestamp === "number" ? m.timestamp : null;
        if (ts !== null && (modified === null || ts > modified)) modified = ts;
      }
    }
    let branchPoints = 0;
    for (const n of t.order) if (n.children.filter((c) => !BOOKKEEPING.has(c.type)).length > 1) branchPoints++;
    const errors = f.diagnostics.filter((d) => d.severity === "error").length;
    const warnings = f.diagnostics.filter((d) => d.severity === "warning").length;
    return {
      path: f.path,
      id: f.header.id,
      cwd: f.header.cwd,
      title,
      name,
      created: f.header.timestamp,
      modified: modified ?? f.modified,
      entryCount: t.order.length,
      messageCount: messages,
      branchPoints,
      tokens,
      cost,
      size: f.lines.reduce((s, l) => s + JSON.stringify(l).length + 1, 0),
      leafId: this.leafOf(f),
      parentPath: fi.parentPath,
      forkPointId: fi.forkPointId,
      forkStatus: fi.status,
      readOnly: f.readOnly,
      errors,
      warnings,
    };
  }

  private diagnostics(f: FakeFile): Diagnostic[] {
    return f.diagnostics.map((d) => ({ line: d.line, kind: d.kind as Diagnostic["kind"], severity: d.severity, message: d.message }));
  }

  /** Session 0 = `f`; with `unified`, every fork below it (breadth first; cycles not followed). */
  private sources(f: FakeFile, unified: boolean): { sources: SessionSource[]; parents: (number | null)[] } {
    const sources: SessionSource[] = [{ file: f, tree: this.tree(f), toolCalls: toolCallsOf(f) }];
    const parents: (number | null)[] = [null];
    if (!unified) return { sources, parents };
    const seen = new Set([f.path]);
    for (let i = 0; i < sources.length; i++) {
      const p = sources[i].file;
      for (const c of this.files.values()) {
        if (c.header.parentSession !== p.path || seen.has(c.path)) continue;
        if (this.forkInfo(c).status !== "ok") continue;
        seen.add(c.path);
        sources.push({ file: c, tree: this.tree(c), toolCalls: toolCallsOf(c) });
        parents.push(i);
      }
    }
    return { sources, parents };
  }

  private layout(query: TreeQuery): { laid: LaidTree; sessions: string[] } {
    const f = this.file(query.path);
    const { sources, parents } = this.sources(f, query.unified);
    const key = JSON.stringify([query, sources.map((s) => `${s.file.path}@${s.file.version}`), this.leafOf(f)]);
    let laid = this.layoutCache.get(key);
    if (!laid) {
      laid = layoutSession(sources, parents, query, this.leafOf(f));
      if (this.layoutCache.size > 16) this.layoutCache.clear();
      this.layoutCache.set(key, laid);
    }
    return { laid, sessions: sources.map((s) => s.file.path) };
  }

  private statsCache = new WeakMap<FakeFile, { version: number; compactions: number; branchPoints: number }>();
  private stats(f: FakeFile): { compactions: number; branchPoints: number } {
    const c = this.statsCache.get(f);
    if (c && c.version === f.version) return c;
    const t = this.tree(f);
    let compactions = 0;
    let branchPoints = 0;
    for (const n of t.order) {
      if (n.type === "compaction") compactions++;
      if (n.children.length > 1 && this.shownChildren(t, n).length > 1) branchPoints++;
    }
    const out = { version: f.version, compactions, branchPoints };
    this.statsCache.set(f, out);
    return out;
  }

  private pathOf(f: FakeFile, leafId: string | null): Node[] {
    if (leafId === null) return [];
    return pathTo(this.node(f, leafId));
  }

  private contextPlan(f: FakeFile, leafId: string | null): ContextPlan {
    const path = this.pathOf(f, leafId);
    let model: ModelRef | null = null;
    let thinking: string | null = null;
    let ci = -1;
    const compactions: number[] = [];
    path.forEach((n, i) => {
      const raw = n.raw;
      if (raw.type === "thinking_level_change") thinking = String(raw.thinkingLevel ?? "off");
      if (raw.type === "model_change") model = { provider: (raw.provider as string) ?? null, modelId: (raw.modelId as string) ?? null };
      if (raw.type === "message" && n.role === "assistant") {
        const m = raw.message as Record<string, unknown>;
        model = { provider: (m.provider as string) ?? null, modelId: (m.model as string) ?? null };
      }
      if (raw.type === "compaction") {
        ci = i;
        compactions.push(i);
      }
    });
    if (leafId !== null && thinking === null) thinking = "off";
    const convert = (n: Node): Record<string, unknown> | null => {
      const raw = n.raw;
      if (raw.type === "message") return raw.message as Record<string, unknown>;
      if (raw.type === "custom_message")
        return { role: "custom", customType: raw.customType, content: raw.content, display: raw.display, details: raw.details, timestamp: n.ts };
      if (raw.type === "branch_summary" && raw.summary) return { role: "branchSummary", summary: raw.summary, fromId: raw.fromId, timestamp: n.ts };
      return null;
    };
    const messages: ContextMessage[] = [];
    const hidden: HiddenEntry[] = [];
    const push = (n: Node, msg: Record<string, unknown>, kept: boolean) =>
      messages.push({ index: messages.length, entryId: n.id, line: n.line, role: String(msg.role ?? n.type), message: structuredClone(msg), tokens: estimateTokens(msg), kept });
    let compaction: CompactionAudit | null = null;
    if (ci < 0) {
      for (const n of path) {
        const m = convert(n);
        if (m) push(n, m, false);
      }
    } else {
      const c = path[ci];
      const firstKept = (c.raw.firstKeptEntryId as string | null) ?? null;
      let keptStart = firstKept ? path.findIndex((n, i) => i < ci && n.id === firstKept) : -1;
      const dangling = firstKept !== null && keptStart < 0;
      if (keptStart < 0) keptStart = ci;
      push(c, { role: "compactionSummary", summary: c.raw.summary, tokensBefore: c.raw.tokensBefore, timestamp: c.ts }, false);
      for (let i = 0; i < keptStart; i++) {
        const m = convert(path[i]);
        if (m) {
          const pv = previewOf(path[i].raw);
          hidden.push({ id: path[i].id, line: path[i].line, type: path[i].type, role: path[i].role, preview: pv.preview, tokens: estimateTokens(m) });
        }
      }
      const hiddenIds = new Set(hidden.map((h) => h.id));
      let orphan = false;
      for (let i = keptStart; i < ci; i++) {
        const m = convert(path[i]);
        if (!m) continue;
        if (i === keptStart || messages.length === 1) {
          if (m.role === "toolResult") {
            const callId = String(m.toolCallId ?? "");
            orphan = path.some(
              (n) =>
                hiddenIds.has(n.id) &&
                n.role === "assistant" &&
                Array.isArray((n.raw.message as Record<string, unknown>).content) &&
                ((n.raw.message as { content: { type: string; id?: string }[] }).content.some((b) => b.type === "toolCall" && b.id === callId)),
            );
          }
        }
        push(path[i], m, true);
      }
      for (let i = ci + 1; i < path.length; i++) {
        const m = convert(path[i]);
        if (m) push(path[i], m, false);
      }
      const parent = f.header.parentSession ? this.files.get(f.header.parentSession) : undefined;
      compaction = {
        id: c.id,
        line: c.line,
        summary: String(c.raw.summary ?? ""),
        tokensBefore: typeof c.raw.tokensBefore === "number" ? c.raw.tokensBefore : null,
        firstKeptEntryId: firstKept,
        firstKeptDangling: dangling,
        keptStartsWithOrphanToolResult: orphan,
        copiedFromParent: parent ? this.tree(parent).byId.has(c.id) : false,
        earlier: compactions.filter((i) => i !== ci).map((i) => path[i].id),
      };
    }
    // pi's estimateContextTokens: last usable assistant usage + estimates of later messages.
    let tokenEstimate = 0;
    let lastUsage = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i].message as Record<string, unknown>;
      if (m.role === "assistant" && m.stopReason !== "aborted" && m.stopReason !== "error" && m.usage) {
        lastUsage = i;
        break;
      }
    }
    if (lastUsage >= 0) {
      const u = (messages[lastUsage].message as { usage: Record<string, number> }).usage;
      tokenEstimate = u.totalTokens || (u.input ?? 0) + (u.output ?? 0) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0);
      for (let i = lastUsage + 1; i < messages.length; i++) tokenEstimate += messages[i].tokens;
    } else {
      for (const m of messages) tokenEstimate += m.tokens;
    }
    return { leafId, model, thinkingLevel: thinking, messages, hidden, compaction, tokenEstimate };
  }

  /** The active path as the transcript shows it (default filter). */
  private transcriptPath(f: FakeFile): Node[] {
    const t = this.tree(f);
    return this.pathOf(f, this.leafOf(f)).filter((n) => visibleIn("default", { entry: n, label: t.labels.get(n.id) ?? null }));
  }

  /** Children of `n` as the default filter shows them (looking through bookkeeping lines). */
  private shownChildren(t: Tree, n: Node | null): Node[] {
    const out: Node[] = [];
    const stack = [...(n ? n.children : t.roots)].reverse();
    while (stack.length) {
      const c = stack.pop()!;
      if (!BOOKKEEPING.has(c.type)) out.push(c);
      else for (let i = c.children.length - 1; i >= 0; i--) stack.push(c.children[i]);
    }
    return out;
  }

  /** The newest shown entry of a subtree. */
  private newestIn(n: Node): Node {
    let best = n;
    const stack = [n];
    while (stack.length) {
      const c = stack.pop()!;
      if (!BOOKKEEPING.has(c.type) && (c.ts ?? 0) >= (best.ts ?? 0)) best = c;
      for (const k of c.children) stack.push(k);
    }
    return best;
  }

  // ------------------------------------------------------------------ commands

  async appInfo(): Promise<AppInfo> {
    await this.wait();
    return {
      root: this.demo ? "/home/dev/.local/share/pi-session-explorer/demo" : ROOT,
      rootSource: this.demo ? "demo" : "default",
      demo: this.demo,
      wantedRoot: this.demo ? ROOT : null,
      readOnly: this.readOnlyMode,
      readOnlyLocked: false,
      initialView: "tree",
      version: "0.1.0",
    };
  }

  async listSessions(limit?: number): Promise<SessionList> {
    await this.wait();
    const all = [...this.files.values()];
    const total = all.length;
    const indexed = this.indexedUntil > Date.now() ? Math.floor(total * (1 - (this.indexedUntil - Date.now()) / 2000)) : total;
    return {
      root: ROOT,
      sessions: all
        .map((f) => this.sessionRow(f))
        .sort((a, b) => (b.modified ?? 0) - (a.modified ?? 0))
        .slice(0, limit ?? all.length),
      other: [
        {
          path: `${ROOT}/notes.txt`,
          diagnostic: { line: null, kind: "not-a-session", severity: "info", message: "not a .jsonl file" },
        },
      ],
      indexed: Math.max(0, Math.min(total, indexed)),
      total,
      limited: limit !== undefined && limit < total,
    };
  }

  async forkGraph(): Promise<ForkGraph> {
    await this.wait();
    const nodes: ForkNode[] = [...this.files.values()].map((f) => {
      const fi = this.forkInfo(f);
      const row = this.sessionRow(f);
      return {
        path: f.path,
        id: f.header.id,
        title: row.title,
        cwd: f.header.cwd,
        created: f.header.timestamp,
        modified: row.modified,
        entryCount: row.entryCount,
        parentPath: fi.parentPath,
        forkPointId: fi.forkPointId,
        forkPointLine: fi.forkPointLine,
        status: fi.status,
      };
    });
    return { nodes };
  }

  async treePage(query: TreeQuery, start: number, count: number): Promise<TreePage> {
    await this.wait();
    const f = this.file(query.path);
    const { laid, sessions } = this.layout(query);
    const t = this.tree(f);
    const { compactions, branchPoints } = this.stats(f);
    const s = Math.max(0, start);
    const rows = [];
    for (let i = s; i < Math.min(laid.total, s + Math.max(0, count)); i++) {
      const r = laid.row(i);
      rows.push({ ...r, pass: [...r.pass] });
    }
    return {
      meta: {
        path: f.path,
        title: this.title(f).title,
        totalRows: laid.total,
        lanes: laid.lanes,
        leafId: this.leafOf(f),
        leafRow: laid.leafRow,
        entryCount: t.order.length,
        branchPoints,
        compactions,
        labels: t.labels.size,
        readOnly: f.readOnly,
        live: f.liveUntil > Date.now(),
        diagnostics: this.diagnostics(f),
        sessions,
      },
      start: s,
      rows,
    };
  }

  async locateRow(query: TreeQuery, id: string): Promise<LocateResult> {
    await this.wait();
    const f = this.file(query.path);
    let q: TreeQuery = { ...query, expanded: [...query.expanded], collapsed: [...query.collapsed] };
    // Open collapsed ancestors.
    const n = this.tree(f).byId.get(id);
    if (n) {
      const anc = new Set(pathTo(n.parent).map((x) => x.id));
      q.collapsed = q.collapsed.filter((c) => !anc.has(c));
    }
    for (let tries = 0; tries < 4; tries++) {
      const { laid } = this.layout(q);
      const row = laid.rowOf.get(id);
      if (row === undefined) return { row: null, query: q };
      const r = laid.row(row);
      if (r.type === "fold" && r.fold) {
        q = { ...q, expanded: [...q.expanded, r.fold.id] };
        continue;
      }
      return { row, query: q };
    }
    return { row: null, query: q };
  }

  async findInSession(path: string, text: string): Promise<FindResult> {
    await this.wait();
    const f = this.file(path);
    const t = this.tree(f);
    const needle = text.toLowerCase();
    const ids: string[] = [];
    if (!needle) return { ids, truncated: false };
    for (const n of t.order) {
      if (BOOKKEEPING.has(n.type)) continue;
      const hay = `${entryText(n.raw)}\n${t.labels.get(n.id) ?? ""}`.toLowerCase();
      if (hay.includes(needle)) {
        ids.push(n.id);
        if (ids.length >= 1000) return { ids, truncated: true };
      }
    }
    return { ids, truncated: false };
  }

  async entryDetail(path: string, id: string): Promise<EntryDetail> {
    await this.wait();
    const f = this.file(path);
    const t = this.tree(f);
    const n = this.node(f, id);
    const leaf = this.leafOf(f);
    const leafNode = leaf ? t.byId.get(leaf) ?? null : null;
    const onPath = new Set(pathTo(leafNode).map((x) => x.id));
    const chain = pathTo(n);
    let pathTokens = 0;
    let pathCost = 0;
    let model: ModelRef | null = null;
    let thinking: string | null = null;
    for (const p of chain) {
      if (p.type === "thinking_level_change") thinking = String(p.raw.thinkingLevel ?? "off");
      if (p.type === "model_change") model = { provider: (p.raw.provider as string) ?? null, modelId: (p.raw.modelId as string) ?? null };
      if (p.role === "assistant") {
        const m = p.raw.message as Record<string, unknown>;
        model = { provider: (m.provider as string) ?? null, modelId: (m.model as string) ?? null };
        const u = m.usage as { input?: number; output?: number; cost?: { total?: number } } | undefined;
        pathTokens += (u?.input ?? 0) + (u?.output ?? 0);
        pathCost += u?.cost?.total ?? 0;
      }
    }
    let usage: Usage | null = null;
    if (n.role === "assistant") {
      const u = (n.raw.message as Record<string, unknown>).usage as Record<string, unknown> | undefined;
      if (u) {
        usage = {
          input: Number(u.input ?? 0),
          output: Number(u.output ?? 0),
          cacheRead: Number(u.cacheRead ?? 0),
          cacheWrite: Number(u.cacheWrite ?? 0),
          totalTokens: Number(u.totalTokens ?? 0),
          cost: Number((u.cost as { total?: number } | undefined)?.total ?? 0),
        };
      }
    }
    return {
      path,
      id,
      parentId: n.parentId,
      line: n.line,
      type: n.type,
      role: n.role,
      timestamp: n.ts,
      label: t.labels.get(id) ?? null,
      onPath: onPath.has(id),
      isLeaf: leaf === id,
      depth: n.depth,
      childIds: n.children.map((c) => c.id),
      raw: structuredClone(n.raw),
      usage,
      pathTokens,
      pathCost,
      model,
      thinkingLevel: thinking ?? "off",
      diagnostics: this.diagnostics(f).filter((d) => d.line === n.line),
      canForkBefore: n.role === "user",
    } as EntryDetail;
  }

  async contextView(path: string, leafId: string | null): Promise<ContextView> {
    await this.wait();
    const f = this.file(path);
    const plan = this.contextPlan(f, leafId);
    return {
      path,
      leafId,
      model: plan.model,
      thinkingLevel: plan.thinkingLevel,
      tokenEstimate: plan.tokenEstimate,
      totalMessages: plan.messages.length,
      messages: plan.messages.slice(0, CONTEXT_PAGE),
      compaction: plan.compaction,
      hiddenTotal: plan.hidden.length,
      hidden: plan.hidden.slice(0, HIDDEN_PAGE),
    };
  }

  async contextPage(path: string, leafId: string | null, start: number, count: number): Promise<ContextMessage[]> {
    await this.wait();
    return this.contextPlan(this.file(path), leafId).messages.slice(start, start + count);
  }

  async hiddenPage(path: string, leafId: string | null, start: number, count: number): Promise<HiddenEntry[]> {
    await this.wait();
    return this.contextPlan(this.file(path), leafId).hidden.slice(start, start + count);
  }

  async navigate(path: string, id: string | null): Promise<WriteResult> {
    await this.wait();
    const f = this.file(path);
    this.checkWritable(f);
    if (id !== null) this.node(f, id);
    return this.append(f, { type: "leaf", id: this.newId(f), parentId: id, timestamp: iso(Date.now()), targetId: id });
  }

  async setLabel(path: string, id: string, label: string | null): Promise<WriteResult> {
    await this.wait();
    const f = this.file(path);
    this.checkWritable(f);
    this.node(f, id);
    const line: Raw = { type: "label", id: this.newId(f), parentId: this.tree(f).leafId, timestamp: iso(Date.now()), targetId: id };
    if (label !== null && label !== "") line.label = label;
    return this.append(f, line);
  }

  async forkSession(path: string, id: string, position: ForkPosition): Promise<ForkResult> {
    await this.wait();
    const f = this.file(path);
    this.checkWritable(f);
    const n = this.node(f, id);
    let at: string | null = id;
    if (position === "before") {
      if (n.role !== "user") throw new ApiError("invalid", "fork before: only for user messages");
      at = n.parentId;
    }
    const now = Date.now();
    const hid = uuid7(this.r, now);
    const dir = f.path.slice(0, f.path.lastIndexOf("/"));
    const newPath = `${dir}/${fileName(now, hid)}`;
    const used = new Set<string>();
    const lines = forkLines(f, at, () => {
      for (;;) {
        const x = hex(this.r, 8);
        if (!used.has(x) && !this.tree(f).byId.has(x)) {
          used.add(x);
          return x;
        }
      }
    }, now);
    const nf: FakeFile = {
      path: newPath,
      header: { type: "session", version: 3, id: hid, timestamp: iso(now), cwd: f.header.cwd, parentSession: f.path },
      lines,
      diagnostics: [],
      readOnly: null,
      version: 1,
      modified: now,
      liveUntil: 0,
    };
    this.files.set(newPath, nf);
    this.layoutCache.clear();
    queueMicrotask(() => this.emit({ changed: [], added: [newPath], removed: [] }));
    return { file: newPath, leafId: at };
  }

  async search(query: string, limit: number): Promise<SearchResult> {
    await this.wait();
    const q = query.trim().toLowerCase();
    const hits: SearchHit[] = [];
    let truncated = false;
    if (!q) return { query, hits, truncated, filesSearched: 0 };
    const snippet = (text: string, at: number, len: number) => {
      const flat = text.replace(/\s/g, " ");
      const s = Math.max(0, at - 40);
      const e = Math.min(flat.length, at + len + 60);
      const pre = s > 0 ? "…" : "";
      return { snippet: pre + flat.slice(s, e) + (e < flat.length ? "…" : ""), matchStart: pre.length + at - s };
    };
    outer: for (const f of this.files.values()) {
      const t = this.tree(f);
      const title = this.title(f).title;
      if (t.name && t.name.toLowerCase().includes(q)) {
        const at = t.name.toLowerCase().indexOf(q);
        hits.push({ path: f.path, sessionTitle: title, id: null, line: 1, field: "name", role: null, ...snippet(t.name, at, q.length), matchLen: q.length });
      }
      for (const n of t.order) {
        if (BOOKKEEPING.has(n.type)) continue;
        const text = entryText(n.raw);
        const at = text.toLowerCase().indexOf(q);
        if (at >= 0) {
          hits.push({ path: f.path, sessionTitle: title, id: n.id, line: n.line, field: "message", role: n.role, ...snippet(text, at, q.length), matchLen: q.length });
        } else {
          const label = t.labels.get(n.id);
          const la = label ? label.toLowerCase().indexOf(q) : -1;
          if (label && la >= 0) hits.push({ path: f.path, sessionTitle: title, id: n.id, line: n.line, field: "label", role: n.role, ...snippet(label, la, q.length), matchLen: q.length });
        }
        if (hits.length >= limit) {
          truncated = true;
          break outer;
        }
      }
    }
    return { query, hits, truncated, filesSearched: this.files.size };
  }

  async transcriptPage(path: string, start: number, count: number): Promise<TranscriptPage> {
    await this.wait();
    const f = this.file(path);
    const t = this.tree(f);
    const items = this.transcriptPath(f);
    const out: TranscriptItem[] = [];
    for (let i = Math.max(0, start); i < Math.min(items.length, start + count); i++) {
      const n = items[i];
      const parent = i > 0 ? items[i - 1] : null;
      const sibs = this.shownChildren(t, parent);
      let siblings: Siblings | null = null;
      if (sibs.length > 1) {
        const k = sibs.findIndex((s) => s.id === n.id);
        siblings = { index: k + 1, count: sibs.length, prevId: k > 0 ? sibs[k - 1].id : null, nextId: k < sibs.length - 1 ? sibs[k + 1].id : null };
      }
      out.push({ index: i, id: n.id, line: n.line, type: n.type, role: n.role, ts: n.ts, label: t.labels.get(n.id) ?? null, raw: structuredClone(n.raw), siblings });
    }
    return { path, leafId: this.leafOf(f), total: items.length, start, items: out };
  }

  async switchBranch(path: string, toId: string): Promise<SwitchResult> {
    await this.wait();
    const f = this.file(path);
    const n = this.node(f, toId);
    const target = this.newestIn(n);
    if (this.readOnlyMode || f.readOnly) {
      this.viewLeaf.set(f.path, target.id);
      this.layoutCache.clear();
      return { leafId: target.id, write: null, note: "Read-only: the view switched branches; nothing was written." };
    }
    const write = this.append(f, { type: "leaf", id: this.newId(f), parentId: target.id, timestamp: iso(Date.now()), targetId: target.id });
    return { leafId: target.id, write, note: null };
  }

  async transcriptMarkdown(path: string, ids: string[] | null): Promise<string> {
    await this.wait();
    const f = this.file(path);
    let items = this.transcriptPath(f);
    if (ids) {
      const want = new Set(ids);
      items = items.filter((n) => want.has(n.id));
    }
    const parts: string[] = [`# ${this.title(f).title}`, ""];
    for (const n of items) {
      const raw = n.raw;
      if (raw.type === "message") {
        const m = raw.message as Record<string, unknown>;
        if (m.role === "user") parts.push("## User", "", textOfContent(m.content), "");
        else if (m.role === "assistant") {
          parts.push("## Assistant", "");
          for (const b of (m.content as Record<string, unknown>[]) ?? []) {
            if (b.type === "text") parts.push(String(b.text), "");
            if (b.type === "toolCall") parts.push(`**${b.name}** \`${JSON.stringify(b.arguments)}\``, "");
          }
        } else if (m.role === "toolResult") parts.push(`### Tool result: ${m.toolName}`, "", "```", textOfContent(m.content), "```", "");
        else if (m.role === "bashExecution") parts.push("### Bash", "", "```sh", `$ ${m.command}`, String(m.output ?? ""), "```", "");
        else parts.push(`### ${String(m.role)}`, "", textOfContent(m.content), "");
      } else if (raw.type === "compaction") parts.push("## Compaction summary", "", String(raw.summary ?? ""), "");
      else if (raw.type === "branch_summary") parts.push("## Branch summary", "", String(raw.summary ?? ""), "");
      else if (raw.type === "custom_message") parts.push(`### ${raw.customType}`, "", textOfContent(raw.content), "");
    }
    return parts.join("\n");
  }

  async setReadOnly(on: boolean): Promise<AppInfo> {
    this.readOnlyMode = on;
    return this.appInfo();
  }

  onRootChanged(cb: (e: RootChanged) => void): Unsubscribe {
    this.rootListeners.add(cb);
    return () => this.rootListeners.delete(cb);
  }

  onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe {
    this.progressListeners.add(cb);
    return () => this.progressListeners.delete(cb);
  }

  // Issue 14 (indexed search, dashboard, marks, export) has no fake: the fake is being retired.
  private unsupported(): Promise<never> {
    return Promise.reject(new ApiError("unsupported", "not available in the in-memory fake backend"));
  }
  searchIndexStatus() {
    return this.unsupported();
  }
  searchIndexed() {
    return this.unsupported();
  }
  searchHitsInSession() {
    return this.unsupported();
  }
  dashboard() {
    return this.unsupported();
  }
  sessionMarks() {
    return this.unsupported();
  }
  sessionTags() {
    return this.unsupported();
  }
  addSessionTag() {
    return this.unsupported();
  }
  removeSessionTag() {
    return this.unsupported();
  }
  setSessionPinned() {
    return this.unsupported();
  }
  setSessionArchived() {
    return this.unsupported();
  }
  exportSession() {
    return this.unsupported();
  }
  onSearchIndexProgress(): Unsubscribe {
    return () => {};
  }
}

// Builds session files line by line for the fake backend's fixture.

import type { FakeFile, Header, Raw } from "./session";

/** A small deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function hex(r: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += Math.floor(r() * 16).toString(16);
  return s;
}

export function uuid7(r: () => number, ms: number): string {
  const t = Math.floor(ms).toString(16).padStart(12, "0");
  const h = hex(r, 20);
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${h.slice(0, 3)}-${"89ab"[Math.floor(r() * 4)]}${h.slice(3, 6)}-${h.slice(6, 18)}`;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function fileName(ms: number, id: string): string {
  return `${iso(ms).replace(/[:.]/g, "-")}_${id}.jsonl`;
}

export function encodeCwd(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

export interface ModelInfo {
  provider: string;
  model: string;
  api: string;
}

export const SONNET: ModelInfo = { provider: "anthropic", model: "claude-sonnet-4-5", api: "anthropic-messages" };
export const CODEX: ModelInfo = { provider: "openai", model: "gpt-5.1-codex", api: "openai-responses" };

export class Builder {
  readonly lines: Raw[] = [];
  leaf: string | null = null;
  t: number;
  model: ModelInfo = SONNET;
  private ids = new Set<string>();
  private ctx = 3200;
  private callNo = 0;

  constructor(
    readonly r: () => number,
    start: number,
    readonly header: Header,
  ) {
    this.t = start;
  }

  /** A fresh 8-hex id, unique in this file. */
  newId(): string {
    for (;;) {
      const id = hex(this.r, 8);
      if (!this.ids.has(id)) {
        this.ids.add(id);
        return id;
      }
    }
  }

  tick(min = 3, max = 40): number {
    this.t += Math.round((min + this.r() * (max - min)) * 1000);
    return this.t;
  }

  /** Appends an entry under the current leaf (or `parent`), which becomes the leaf. */
  add(type: string, fields: Record<string, unknown>, parent: string | null = this.leaf): string {
    const id = this.newId();
    this.tick();
    this.lines.push({ type, id, parentId: parent, timestamp: iso(this.t), ...fields });
    if (type === "leaf") this.leaf = (fields.targetId as string | null) ?? null;
    else this.leaf = id;
    return id;
  }

  /** Adopts lines copied from elsewhere (a fork), keeping their ids. */
  adopt(lines: Raw[]) {
    for (const l of lines) {
      this.lines.push(l);
      if (typeof l.id === "string") this.ids.add(l.id);
    }
    const last = lines[lines.length - 1];
    if (last) this.leaf = last.type === "leaf" ? ((last.targetId as string | null) ?? null) : (last.id as string);
  }

  at(id: string | null): this {
    this.leaf = id;
    return this;
  }

  user(text: string): string {
    return this.add("message", { message: { role: "user", content: text, timestamp: this.t + 1 } });
  }

  private usage(outChars: number) {
    const output = Math.max(20, Math.round(outChars / 4 + this.r() * 200));
    const input = Math.round(200 + this.r() * 1800);
    this.ctx += input + output;
    const cacheRead = Math.max(0, this.ctx - input - output);
    const cost = {
      input: input * 3e-6,
      output: output * 15e-6,
      cacheRead: cacheRead * 0.3e-6,
      cacheWrite: 0,
      total: 0,
    };
    cost.total = cost.input + cost.output + cost.cacheRead;
    return { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost };
  }

  /** An assistant message: text, optional thinking, optional tool calls. */
  assistant(
    text: string,
    opts: { thinking?: string; calls?: { name: string; args: Record<string, unknown> }[]; stop?: string } = {},
  ): { id: string; callIds: string[] } {
    const content: Record<string, unknown>[] = [];
    if (opts.thinking) content.push({ type: "thinking", thinking: opts.thinking });
    if (text) content.push({ type: "text", text });
    const callIds: string[] = [];
    for (const c of opts.calls ?? []) {
      const id = `toolu_${hex(this.r, 6)}${++this.callNo}`;
      callIds.push(id);
      content.push({ type: "toolCall", id, name: c.name, arguments: c.args });
    }
    const chars = text.length + (opts.thinking?.length ?? 0) + 60 * callIds.length;
    const id = this.add("message", {
      message: {
        role: "assistant",
        content,
        api: this.model.api,
        provider: this.model.provider,
        model: this.model.model,
        usage: this.usage(chars),
        stopReason: opts.stop ?? (callIds.length ? "toolUse" : "stop"),
        timestamp: this.t + 1,
      },
    });
    return { id, callIds };
  }

  toolResult(callId: string, name: string, text: string, isError = false): string {
    return this.add("message", {
      message: {
        role: "toolResult",
        toolCallId: callId,
        toolName: name,
        content: [{ type: "text", text }],
        isError,
        timestamp: this.t + 1,
      },
    });
  }

  /** An assistant tool call and its result. Returns the result's id. */
  tool(name: string, args: Record<string, unknown>, result: string, opts: { text?: string; isError?: boolean } = {}): string {
    const a = this.assistant(opts.text ?? "", { calls: [{ name, args }] });
    return this.toolResult(a.callIds[0], name, result, opts.isError ?? false);
  }

  bash(command: string, output: string, exitCode = 0): string {
    return this.add("message", {
      message: { role: "bashExecution", command, output, exitCode, cancelled: false, truncated: false, timestamp: this.t + 1 },
    });
  }

  label(targetId: string, label: string | null): string {
    const f: Record<string, unknown> = { targetId };
    if (label) f.label = label;
    return this.add("label", f);
  }

  name(name: string): string {
    return this.add("session_info", { name });
  }

  compaction(summary: string, firstKeptEntryId: string | null, tokensBefore: number): string {
    return this.add("compaction", {
      summary,
      firstKeptEntryId,
      tokensBefore,
      details: { readFiles: ["src/auth/login.ts"], modifiedFiles: ["src/auth/validate.ts"] },
    });
  }

  branchSummary(fromId: string, summary: string): string {
    return this.add("branch_summary", { fromId, summary }, fromId);
  }

  modelChange(m: ModelInfo): string {
    this.model = m;
    return this.add("model_change", { provider: m.provider, modelId: m.model });
  }

  thinking(level: string): string {
    return this.add("thinking_level_change", { thinkingLevel: level });
  }

  customMessage(customType: string, content: string, display = true): string {
    return this.add("custom_message", { customType, content, display });
  }

  file(path: string): FakeFile {
    return {
      path,
      header: this.header,
      lines: this.lines,
      diagnostics: [],
      readOnly: null,
      version: 1,
      modified: this.t,
      liveUntil: 0,
    };
  }
}

// ---- filler conversation -------------------------------------------------------------------

const FILES = [
  "src/auth/login.ts",
  "src/auth/validate.ts",
  "src/config/loader.ts",
  "src/config/schema.ts",
  "src/api/session.ts",
  "src/server/routes.ts",
  "test/login.test.ts",
  "src/ui/Form.tsx",
  "package.json",
  "src/lib/rate-limit.ts",
  "crates/core/src/index.rs",
  "crates/core/src/tree.rs",
];
const ASKS = [
  "Can you check why the handler throws on an undefined body?",
  "Run the tests again, please",
  "Now add a test for the happy path",
  "What does `validateCredentials` return for null?",
  "Keep the public API the same",
  "Make the error message friendlier",
  "Split this into two functions",
  "Also update the docs",
  "Does this work on Windows paths?",
  "Show me the diff before you commit",
  "Use the existing helper instead of a new one",
  "Why is this test flaky on CI?",
];
const SAYS = [
  "Let me look at the handler first.",
  "The check compares with `=== \"\"`, so `undefined` slips through.",
  "Running the suite.",
  "I'll add a focused test for that case.",
  "Updated the function and its call sites.",
  "That helper already exists in `src/lib/util.ts`; switching to it.",
  "The flake comes from a shared temp dir between two tests.",
  "Done. The diff is small: two lines in the validator and one new test.",
  "Reading the config schema to see which fields are optional.",
  "Here is the plan:\n\n1. trim the input\n2. reject empty strings\n3. add tests for both",
];

const SNIPPETS = [
  'import { validateCredentials } from "./validate";\n\nexport async function login(body: LoginBody) {\n  const creds = validateCredentials(body);',
  'export interface Config {\n  port: number;\n  host: string;\n  watch?: string[];\n}',
  'use std::collections::HashMap;\n\npub struct Tree {\n    pub children: Vec<Vec<u32>>,\n}',
  'describe("login", () => {\n  it("rejects an empty password", async () => {\n    expect(await login({ password: "" })).toMatchObject({ status: 400 });',
  'const buckets = new Map<string, Bucket>();\n\nexport function take(ip: string, now = Date.now()): boolean {',
  '{\n  "name": "acme-web",\n  "version": "1.4.0",\n  "scripts": { "test": "vitest run" }\n}',
];

export function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** `n` entries of plausible back-and-forth (user, assistant, tools). */
export function filler(b: Builder, n: number) {
  const start = b.lines.length;
  let sinceUser = 99;
  while (b.lines.length - start < n) {
    const left = n - (b.lines.length - start);
    const x = b.r();
    if (sinceUser > 8 && left >= 1 && x < 0.35) {
      b.user(pick(b.r, ASKS));
      sinceUser = 0;
      continue;
    }
    sinceUser++;
    if (left >= 2 && x < 0.8) {
      const kind = b.r();
      if (kind < 0.45) {
        const f = pick(b.r, FILES);
        const lines = 20 + Math.floor(b.r() * 300);
        b.tool("read", { path: f }, `${pick(b.r, SNIPPETS)}\n\n[${lines} lines]`);
      } else if (kind < 0.7) {
        const f = pick(b.r, FILES);
        b.tool("edit", { path: f, oldText: "const pw = c.password", newText: "const pw = c.password?.trim()" }, `Edited ${f}: +${1 + Math.floor(b.r() * 9)} −${Math.floor(b.r() * 5)}`);
      } else {
        const cmd = pick(b.r, ["npm test", "npm run typecheck", "rg -n \"password\" src", "git status --short", "cargo test -p core"]);
        const fail = b.r() < 0.12;
        b.tool("bash", { command: cmd }, fail ? "Error: 2 failing tests\n  ✗ rejects whitespace\n  ✗ trims input" : `ok — ${Math.floor(b.r() * 60) + 1} passed`, { isError: fail });
      }
    } else {
      b.assistant(pick(b.r, SAYS), b.r() < 0.3 ? { thinking: "Checking the call sites before changing the signature." } : {});
    }
  }
}

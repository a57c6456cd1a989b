// The fake backend's sessions: several cwds, forks three deep, a session with three branches at one
// user message, two compactions, labels, untrusted HTML in content, damaged and read-only files, a
// missing fork parent, a fork cycle, and a ~2000-entry session (plus an optional huge one).

import { Builder, CODEX, encodeCwd, fileName, filler, iso, pick, rng, uuid7 } from "./builder";
import type { FakeFile, Header, Raw } from "./session";
import { buildTree, pathTo } from "./session";

export const ROOT = "/home/dev/.pi/agent/sessions";
export const CWD_WEB = "/home/dev/work/acme/web-app";
export const CWD_PI = "/home/dev/code/pi-mono";
export const CWD_TAURI = "/home/dev/work/acme/tauri-app";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

function newHeader(r: () => number, ms: number, cwd: string, parentSession?: string, version = 3): Header {
  const h: Header = { type: "session", version, id: uuid7(r, ms), timestamp: iso(ms), cwd };
  if (parentSession) h.parentSession = parentSession;
  return h;
}

function pathFor(h: Header, ms: number): string {
  return `${ROOT}/${encodeCwd(h.cwd)}/${fileName(ms, h.id)}`;
}

/**
 * The lines of a fork at `id` (DESIGN.md): the root → id path copied as is, a label line for each
 * label in effect on the path whose label line is not on it, then a `leaf` line for `id`.
 */
export function forkLines(src: FakeFile, id: string | null, newId: () => string, now: number): Raw[] {
  const tree = buildTree(src.lines);
  const out: Raw[] = [];
  if (id === null) return out;
  const node = tree.byId.get(id);
  if (!node) return out;
  const path = pathTo(node);
  for (const n of path) out.push(structuredClone(n.raw));
  let last = id;
  for (const n of path) {
    const label = tree.labels.get(n.id);
    if (!label) continue;
    const hasLine = path.some((p) => p.type === "label" && p.raw.targetId === n.id);
    if (hasLine) continue;
    const lid = newId();
    out.push({ type: "label", id: lid, parentId: last, timestamp: iso(now), targetId: n.id, label });
    last = lid;
  }
  out.push({ type: "leaf", id: newId(), parentId: id, timestamp: iso(now), targetId: id });
  return out;
}

export interface FixtureOptions {
  now?: number;
  /** Adds a session with about this many entries (to exercise virtualisation); 0 = none. */
  bigSession?: number;
}

export function buildFixture(opts: FixtureOptions = {}): FakeFile[] {
  const now = opts.now ?? Date.now();
  const files: FakeFile[] = [];
  const r = rng(7);

  // ---------------------------------------------------------------- web-app: the main session
  const t1 = now - 3 * HOUR - 30 * MIN;
  const h1 = newHeader(r, t1, CWD_WEB);
  const b1 = new Builder(r, t1, h1);
  b1.user("Fix the login form's empty-password check — submitting with an empty password returns a 500");
  b1.assistant("I'll start with the form handler and its validation.", {
    thinking: "The 500 probably comes from the API throwing on `undefined`. Read the handler first.",
  });
  b1.tool("read", { path: "src/auth/login.ts" }, "import { validateCredentials } from './validate';\n\nexport async function login(body) {\n  const creds = validateCredentials(body);\n  …\n}\n(182 lines)");
  b1.tool("bash", { command: 'rg -n "password" src/auth' }, "src/auth/login.ts:88:  if (body.password === \"\") {\nsrc/auth/validate.ts:12:  password: string;\n(9 matches)");
  filler(b1, 206);
  const firstKept = b1.lines[b1.lines.length - 26].id as string;
  b1.compaction(
    "## Goal\nFix the empty-password check in the login form.\n\n## Done\n- traced the 500 to `login.ts:88`; the server throws on `undefined`\n- read `validate.ts` and the API session code\n\n## Next\n- validate on the client, trim input, add tests",
    firstKept,
    55_210,
  );
  b1.user("Also reject whitespace-only passwords and add a test for it");
  b1.assistant("Updating `validateCredentials()` to trim before the empty check.");
  b1.tool("edit", { path: "src/auth/validate.ts", oldText: "const pw = c.password", newText: "const pw = c.password?.trim()" }, "Edited src/auth/validate.ts: +6 −2");
  b1.tool("bash", { command: "npm test" }, "Test Files  6 passed (6)\n     Tests  42 passed (42)");
  const checkpoint = b1.assistant(
    "**All 42 tests pass.** The fix is in `src/auth/validate.ts`:\n\n```ts\nexport function validateCredentials(c: Creds) {\n  const pw = c.password?.trim() ?? \"\";\n  if (!pw) return fail(\"password_required\");\n  return ok({ ...c, password: pw });\n}\n```\n\nThe form now shows *“Password is required”* instead of a 500. New cases are in `login.test.ts`.",
  ).id;
  b1.label(checkpoint, "checkpoint-1");
  // side branch: the TOML attempt
  b1.at(checkpoint);
  b1.user("Migrate the config loader to TOML instead");
  b1.assistant("Adding `@iarna/toml` and rewriting `src/config/loader.ts`.");
  b1.tool("bash", { command: "npm i @iarna/toml" }, "added 1 package in 2s");
  b1.tool("edit", { path: "src/config/loader.ts", oldText: "JSON.parse", newText: "TOML.parse" }, "Edited src/config/loader.ts: +54 −61");
  // back at the checkpoint with a summary of the abandoned branch
  b1.branchSummary(checkpoint, "TOML attempt abandoned (4 entries): adds a dependency, no gain over JSON; loader rewrite reverted.");
  b1.user("Refactor the config loader to JSON");
  b1.assistant("Reading the current loader and its call sites first.");
  b1.tool("read", { path: "src/config/loader.ts" }, "export function loadConfig() {\n  …\n}\n(96 lines)");
  filler(b1, 37);
  b1.modelChange(CODEX);
  b1.tool("bash", { command: "npm run typecheck" }, "src/config/schema.ts(14,3): error TS2322: Type 'string' is not assignable to type 'number'.\nsrc/config/schema.ts(21,3): error TS2322\nFound 2 errors.", { isError: true });
  const typeErr = b1.assistant("Two type errors in `src/config/schema.ts`: `port` is now a string.").id;
  b1.user("Just cast port with `Number()` and move on");
  b1.assistant("Cast added in `schema.ts:14` — typecheck passes.");
  b1.at(typeErr);
  b1.user("Keep the YAML fallback for one release");
  b1.assistant("Done — `loadConfig()` reads `config.json` first and falls back to `config.yaml` with a warning.");
  const f1 = b1.file(pathFor(h1, t1));
  files.push(f1);

  // forks three deep: f1 → f2 → f3 → f4
  const fork = (src: FakeFile, at: string, start: number, cwd: string, name: string, extra: (b: Builder) => void) => {
    const h = newHeader(r, start, cwd, src.path);
    const b = new Builder(r, start, h);
    b.adopt(forkLines(src, at, () => b.newId(), start));
    b.t = start;
    b.name(name);
    extra(b);
    const f = b.file(pathFor(h, start));
    files.push(f);
    return { f, b };
  };
  const f2 = fork(f1, checkpoint, now - 2 * HOUR - 40 * MIN, CWD_WEB, "Try zod for credential validation", (b) => {
    b.user("Try zod for the credential validation instead of the hand-written checks");
    b.assistant("Sketching a schema with `z.object({ email, password })`.", { thinking: "zod is already a transitive dependency." });
    b.tool("bash", { command: "npm ls zod" }, "acme-web@1.4.0\n└── zod@3.23.8");
    filler(b, 30);
    b.assistant("The zod version passes all 42 tests and removes 30 lines.");
  });
  const zodDone = f2.b.leaf!;
  const f3 = fork(f2.f, zodDone, now - 2 * HOUR - 15 * MIN, CWD_WEB, "zod: async refinements for the email check", (b) => {
    b.user("Can the email check be an async refinement that hits the API?");
    b.assistant("Yes, with `superRefine` and `parseAsync`. Writing it now.");
    filler(b, 12);
  });
  fork(f3.f, f3.b.leaf!, now - 2 * HOUR, CWD_WEB, "zod: error map with i18n keys", (b) => {
    b.user("Map zod issues to our i18n keys");
    b.assistant("Added `errorMap` that returns `auth.password_required` and friends.");
    filler(b, 8);
  });

  // rate limiting: plain, medium length
  {
    const t = now - 1 * DAY - 3 * HOUR;
    const h = newHeader(r, t, CWD_WEB);
    const b = new Builder(r, t, h);
    b.user("Add rate limiting to POST /api/login — 5 attempts per minute per IP");
    b.assistant("I'll add a small token bucket in `src/lib/rate-limit.ts` and wire it into the route.");
    filler(b, 100);
    // A compaction whose firstKeptEntryId is not on the path (dangling): nothing before it is kept.
    b.compaction("## Goal\nRate-limit the login route.\n\n## Done\n- token bucket in `src/lib/rate-limit.ts`", "deadbeef", 64_000);
    filler(b, 36);
    b.assistant("Rate limiting is in. Over the limit the route answers `429` with a `Retry-After` header.");
    files.push(b.file(pathFor(h, t)));
  }

  // untrusted content: HTML, scripts, javascript: links in messages and tool output
  {
    const t = now - 3 * DAY;
    const h = newHeader(r, t, CWD_WEB);
    const b = new Builder(r, t, h);
    b.user("why does vite dev reload the page twice on save? The console shows `<script>` tags being injected twice.\n\n<img src=x onerror=alert(1)>");
    b.assistant(
      "Two watchers see the same file. Things I checked:\n\n- the HMR client: `<script type=\"module\" src=\"/@vite/client\">` appears **twice**\n- a plugin writes to `public/`\n\n<script>alert('this is only text')</script>\n\n<div onclick=\"alert(2)\">raw html stays text</div>\n\nSee [the docs](javascript:alert(document.cookie)) and [vite config](https://vitejs.dev/config/).\n\n> Tip: `server.watch.ignored` takes globs.\n\n| option | value |\n|---|---|\n| `server.watch.ignored` | `['**/public/**']` |",
    );
    b.tool("read", { path: "index.html" }, '<!doctype html>\n<html>\n<head><script>window.evil = 1</script></head>\n<body onload="alert(3)"><div id="app"></div></body>\n</html>');
    b.bash("curl -s localhost:5173 | head -5", '<!doctype html>\n<script type="module" src="/@vite/client"></script>\n<script type="module" src="/@vite/client"></script>', 0);
    b.assistant("Found it: `vite-plugin-copy` writes into `public/` on every build, which triggers a second reload. Ignoring `public/**` in `server.watch` fixes it.");
    filler(b, 16);
    files.push(b.file(pathFor(h, t)));
  }

  // ---------------------------------------------------------------- pi-mono
  // /tree keyboard folding: named, two compactions, three branches at one user message
  let treeFile: FakeFile;
  {
    const t = now - 5 * HOUR - 20 * MIN;
    const h = newHeader(r, t, CWD_PI);
    const b = new Builder(r, t, h);
    b.thinking("medium");
    b.user("Add folding to the /tree selector: long single-child runs should collapse into one row");
    b.assistant("Looking at `tree-selector.ts` and how it flattens the tree.", { calls: [] });
    filler(b, 60);
    const keep1 = b.lines[b.lines.length - 12].id as string;
    b.compaction("## Goal\nFold long runs in /tree.\n\n## Done\n- read `tree-selector.ts`, `flattenTree`\n- wrote the run detection", keep1, 81_400);
    filler(b, 40);
    const ask = b.user("Which key should toggle a fold?");
    // three answers (regenerated), each a branch
    b.at(ask);
    b.assistant("Use **Space** — it is free in the selector and matches file managers.");
    filler(b, 6);
    b.at(ask);
    b.assistant("Use **←/→**: left folds, right unfolds, like a tree view.");
    const lr = b.leaf!;
    filler(b, 8);
    b.label(lr, "keys-lr");
    b.at(ask);
    const enter = b.assistant("Use **Enter** on a fold row and keep Space for selection.").id;
    b.label(enter, "chosen");
    filler(b, 24);
    const keep2 = b.lines[b.lines.length - 10].id as string;
    b.compaction("## Goal\nFold long runs in /tree.\n\n## Decisions\n- Enter toggles a fold (Space kept for selection)\n\n## Done\n- run detection, fold rows, tests", keep2, 96_030);
    b.user("Also skip labels when folding, a labeled entry must stay visible");
    b.assistant("Labeled entries now break a run, so they always get their own row.");
    filler(b, 10);
    b.name("/tree keyboard folding");
    treeFile = b.file(pathFor(h, t));
    files.push(treeFile);
  }
  {
    const lastUser = [...treeFile.lines].reverse().find((l) => l.type === "message" && (l.message as { role: string }).role === "user");
    fork(treeFile, lastUser!.id as string, now - 5 * HOUR + 10 * MIN, CWD_PI, "use ←/→ for fold instead of space", (b) => {
      b.user("Actually, use ←/→ for fold instead of space");
      b.assistant("Switched: ← folds, → unfolds; Space selects again.");
      filler(b, 20);
    });
  }

  // a long session (~2000 entries) with a few branches and a compaction
  {
    const t = now - 2 * DAY - 6 * HOUR;
    const h = newHeader(r, t, CWD_PI);
    const b = new Builder(r, t, h);
    b.user("Port the session indexer to Rust and keep the JSON output byte-identical");
    b.assistant("Starting with the line splitter and the skeleton index.");
    const branchAt: string[] = [];
    for (let k = 0; k < 20; k++) {
      filler(b, 90);
      if (k % 5 === 2) branchAt.push(b.leaf!);
      if (k === 12) b.compaction("## Goal\nPort the indexer.\n\n## Done\n- splitter, skeleton, tree", b.lines[b.lines.length - 30].id as string, 142_000);
    }
    const mainLeaf = b.leaf;
    for (const at of branchAt) {
      b.at(at);
      b.user(pick(r, ["Try a memory-mapped reader instead", "What if we parse lazily?", "Revert and use serde_json::from_slice"]));
      filler(b, 12);
    }
    b.at(mainLeaf);
    b.assistant("The Rust indexer matches the JSON output on all 312 fixture files.");
    b.label(b.leaf!, "done");
    files.push(b.file(pathFor(h, t)));
  }

  // a fork whose parent file is gone
  {
    const t = now - 4 * DAY;
    const h = newHeader(r, t, CWD_PI, `${ROOT}/${encodeCwd(CWD_PI)}/2025-01-01T00-00-00-000Z_deleted.jsonl`);
    const b = new Builder(r, t, h);
    b.user("Flaky test in agent-session.test.ts on CI");
    b.assistant("The test races the file watcher; awaiting the first event fixes it.");
    filler(b, 30);
    const f = b.file(pathFor(h, t));
    f.diagnostics.push({ line: 1, kind: "parent-session-missing", severity: "warning", message: "parentSession does not exist" });
    files.push(f);
  }

  // ---------------------------------------------------------------- tauri-app
  {
    const t = now - 6 * DAY;
    const h = newHeader(r, t, CWD_TAURI);
    const b = new Builder(r, t, h);
    b.thinking("high");
    b.user("Set up tauri-driver e2e tests on CI");
    b.assistant("Plan: install `webkit2gtk-driver`, build the app, run WebdriverIO against `tauri-driver`.", {
      thinking: "CI is Linux, so WebKitWebDriver is the driver to use.",
    });
    b.customMessage("reminder", "Remember: **no** network in CI — cache the driver in the image.");
    b.bash("cargo install tauri-driver --locked", "    Finished `release` profile [optimized] target(s) in 41.2s\n  Installed package `tauri-driver v2.0.4`", 0);
    filler(b, 30);
    // A compaction whose kept range starts with a tool result whose call it hides.
    const call = b.assistant("", { calls: [{ name: "read", args: { path: ".github/workflows/e2e.yml" } }] });
    const orphanResult = b.toolResult(call.callIds[0], "read", "name: e2e\non: [push]\njobs:\n  e2e:\n    runs-on: ubuntu-latest");
    filler(b, 6);
    b.compaction("## Goal\nE2E on CI.\n\n## Done\n- driver installed, workflow read", orphanResult, 48_500);
    filler(b, 4);
    b.bash("xvfb-run npm run e2e", "Spec Files:  1 failed, 1 total\nError: session not created", 1);
    b.assistant("The driver needs a display; `xvfb-run` was missing from the CI image.");
    filler(b, 20);
    files.push(b.file(pathFor(h, t)));
  }
  // two files whose parentSession point at each other (a cycle)
  {
    const t = now - 8 * DAY;
    const ha = newHeader(r, t, CWD_TAURI);
    const hb = newHeader(r, t + HOUR, CWD_TAURI);
    const pa = pathFor(ha, t);
    const pb = pathFor(hb, t + HOUR);
    ha.parentSession = pb;
    hb.parentSession = pa;
    const ba = new Builder(r, t, ha);
    ba.user("Icons: generate all sizes from one SVG");
    ba.assistant("`tauri icon app-icon.svg` writes every size into `icons/`.");
    filler(ba, 10);
    const bb = new Builder(r, t + HOUR, hb);
    bb.user("Icons: the Windows .ico looks blurry");
    bb.assistant("The 256 px layer is missing; regenerate from a 1024 px PNG.");
    filler(bb, 8);
    const fa = ba.file(pa);
    const fb = bb.file(pb);
    for (const f of [fa, fb]) f.diagnostics.push({ line: 1, kind: "parent-session-cycle", severity: "warning", message: "parentSession forms a cycle" });
    files.push(fa, fb);
  }
  // an old (v2) file: read-only, with a malformed line
  {
    const t = now - 14 * DAY;
    const h = newHeader(r, t, CWD_TAURI, undefined, 2);
    const b = new Builder(r, t, h);
    b.user("Bump tauri to 2.5 and fix the capability warnings");
    b.assistant("Bumped `tauri` and `tauri-build`; the capability warnings came from an old `allowlist` key.");
    filler(b, 10);
    const f = b.file(pathFor(h, t));
    f.readOnly = "old-version";
    f.diagnostics.push(
      { line: null, kind: "old-version", severity: "info", message: "version 2 file: read-only (pi would rewrite it)" },
      { line: 7, kind: "malformed-line", severity: "error", message: "line 7: expected ',' or '}' after object member" },
    );
    files.push(f);
  }

  if (opts.bigSession && opts.bigSession > 0) files.push(bigSession(opts.bigSession, now));
  return files;
}

/** A session of about `n` entries, cheap to generate, with rare branches. */
export function bigSession(n: number, now: number): FakeFile {
  const r = rng(99);
  const t = now - 10 * DAY;
  const h = newHeader(r, t, CWD_PI);
  const b = new Builder(r, t, h);
  b.user(`Stress: a session with ${n} entries`);
  const roles = ["assistant", "toolResult", "assistant", "user"];
  let i = 1;
  while (i < n) {
    const role = roles[i % 4];
    if (role === "user") b.user(`step ${i}: continue`);
    else if (role === "assistant") b.assistant(`working on step ${i}`);
    else b.toolResult(`toolu_${i}`, "bash", `ok ${i}`);
    if (i % 5000 === 0) {
      const back = b.lines[b.lines.length - 3].id as string;
      const keep = b.leaf;
      b.at(back);
      b.user(`side branch at ${i}`);
      b.assistant("an abandoned idea");
      b.at(keep);
      i += 2;
    }
    i++;
  }
  b.name(`Stress test (${n} entries)`);
  return b.file(`${ROOT}/${encodeCwd(CWD_PI)}/${fileName(t, h.id)}`);
}

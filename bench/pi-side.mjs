#!/usr/bin/env node
// pi-side.mjs — times the real pi's own work on a sessions corpus, for pi-bench.
//
//   node pi-side.mjs listall <agentDir>
//       SessionManager.listAll() with PI_CODING_AGENT_DIR=<agentDir> (pi lists
//       <agentDir>/sessions/*/*.jsonl, one level of sub-folders).
//   node pi-side.mjs open <fileList> [--budget-ms N] [--tmp DIR]
//       For each path in <fileList> (one a line, in that order): copy it into a throw-away
//       folder, then time SessionManager.open(copy) + getTree() + buildSessionContext().
//       Stops after --budget-ms of wall time (the result says how far it got). pi rewrites
//       a file on open in some cases (migration, bad header); the copy is checked afterwards
//       and any rewrite is counted. With --in-place the paths are opened as they are (the
//       caller's throw-away copies: nothing but pi's own work runs in the process, so the
//       process's whole time can be compared, and a cold copy stays cold).
//
// Prints one JSON line. The pinned pi package is imported by absolute path:
// $PI_PACKAGE (a package folder) or ../tests/pi-oracle/node_modules/@mariozechner/pi-coding-agent.

import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const here = fileURLToPath(new URL(".", import.meta.url));
const pkgDir = resolve(process.env.PI_PACKAGE ?? join(here, "../tests/pi-oracle/node_modules/@mariozechner/pi-coding-agent"));

const [mode, target, ...rest] = process.argv.slice(2);
const opt = (name, dflt) => {
	const i = rest.indexOf(name);
	return i >= 0 ? rest[i + 1] : dflt;
};
if (!mode || !target || !["listall", "open"].includes(mode)) {
	console.error("usage: node pi-side.mjs listall <agentDir> | open <fileList> [--budget-ms N] [--tmp DIR] [--in-place]");
	process.exit(2);
}
if (mode === "listall") process.env.PI_CODING_AGENT_DIR = resolve(target);

const piVersion = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")).version;
const tImport = performance.now();
const { SessionManager } = await import(pathToFileURL(join(pkgDir, "dist/index.js")).href);
const importMs = performance.now() - tImport;
const baseRssKB = Math.round(process.memoryUsage().rss / 1024);
const out = { mode, piVersion, node: process.version, importMs, baseRssKB };

if (mode === "listall") {
	const t0 = performance.now();
	const sessions = await SessionManager.listAll();
	out.ms = performance.now() - t0;
	out.sessions = sessions.length;
	out.messages = sessions.reduce((n, s) => n + s.messageCount, 0);
} else {
	const files = readFileSync(target, "utf8").split("\n").filter(Boolean);
	const budget = Number(opt("--budget-ms", "Infinity"));
	const inPlace = rest.includes("--in-place");
	const tmp = mkdtempSync(join(opt("--tmp", tmpdir()), "pi-side-"));
	const start = performance.now();
	let done = 0, bytes = 0, openMs = 0, treeMs = 0, ctxMs = 0, rewrote = 0, entries = 0, messages = 0, maxFileMs = 0;
	try {
		for (const f of files) {
			if (performance.now() - start > budget) break;
			const copy = inPlace ? f : join(tmp, basename(f));
			if (!inPlace) copyFileSync(f, copy);
			const before = statSync(copy);
			const t0 = performance.now();
			const sm = SessionManager.open(copy);
			const t1 = performance.now();
			const tree = sm.getTree();
			const t2 = performance.now();
			const ctx = sm.buildSessionContext();
			const t3 = performance.now();
			const after = statSync(copy);
			if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) rewrote++;
			openMs += t1 - t0;
			treeMs += t2 - t1;
			ctxMs += t3 - t2;
			maxFileMs = Math.max(maxFileMs, t3 - t0);
			entries += sm.getEntries().length;
			messages += ctx.messages.length + (tree.length > 0 ? 0 : 0);
			bytes += before.size;
			done++;
			if (!inPlace) unlinkSync(copy);
		}
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
	Object.assign(out, { files: files.length, done, complete: done === files.length, bytes, entries, contextMessages: messages, ms: openMs + treeMs + ctxMs, openMs, treeMs, ctxMs, maxFileMs, rewrote, wallMs: performance.now() - start });
}
out.maxRssKB = process.resourceUsage().maxRSS;
console.log(JSON.stringify(out));

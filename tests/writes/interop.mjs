#!/usr/bin/env node
// interop.mjs — our writes, read back by the real pi (and pi's writes after ours, read back by us).
//
//   PI_SESSION_BIN=target/debug/pi-session node tests/writes/interop.mjs [--pi-dir DIR] [--verbose] [--keep]
//
// The pi is the one in DIR's node_modules: by default tests/pi-oracle (pi 0.73.1); with
// `--pi-dir tests/pi-oracle/pi16` pi 1.6.0, run with Node >= 22.19 (.tools/bin/node24). With pi 1.x
// the session pi writes also holds what only 1.x writes: a system message, context edits (a
// replacement and a drop), a `usage` entry, and a compaction and a branch summary with usage.
//
// pi writes the sessions (SessionManager.create + append*), always in a temporary folder, then:
//   (a) after `pi-session navigate FILE X`, pi's SessionManager.open(FILE).buildSessionContext()
//       equals `pi-session context FILE --json` (at X), and pi's path runs through X;
//   (b) after `pi-session label FILE X t`, pi reports the label, and its context is unchanged;
//   (c) after `pi-session fork FILE X`, pi opens the new file: its path, labels and context
//       equal the source's at X;
//   (d) pi continues a file we navigated: its next message is a child of our leaf line, whose
//       parent is X; our tree shows it there and our context equals pi's.
// Exit status 0 when every check passed, 1 otherwise, 2 on a setup error. The last line is a summary.

import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { findPi, installDeterminism, loadPi, useAgentDir } from "../lib/pi.mjs";
import { cost, message, mulberry32, text, toolCall, usage } from "../lib/sessions.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const verbose = process.argv.includes("--verbose");
const keep = process.argv.includes("--keep");
const bin = resolve(process.env.PI_SESSION_BIN || join(repo, "target/debug/pi-session"));
if (!existsSync(bin)) setupError(`no pi-session binary at ${bin} (build it, or set PI_SESSION_BIN)`);

// pi must never see a real agent folder: point it at a fresh temporary one before loading it.
const work = realpathSync(mkdtempSync(join(tmpdir(), "pi-session-writes-interop-")));
const root = join(work, "sessions");
mkdirSync(root, { recursive: true });
useAgentDir(join(work, "agent"));

const piDirArg = process.argv.indexOf("--pi-dir");
const piHome = resolve(piDirArg > 0 ? process.argv[piDirArg + 1] ?? "" : join(here, "../pi-oracle"));
const found = findPi(piHome);
if (!found) setupError(`pi is not installed in ${piHome}: run scripts/setup all`);
const piVersion = found.version;
// The package line: 0 = @mariozechner (0.73.1 and older), 1 = @earendil-works (what only 1.x writes).
const piMajor = found.line;
if (piMajor >= 1 && Number(process.versions.node.split(".")[0]) < 22) setupError(`pi ${piVersion} needs Node >= 22.19 (this is ${process.versions.node})`);
const { SessionManager } = await loadPi(piHome);

function setupError(msg) {
	console.error(`interop: setup error: ${msg}`);
	process.exit(2);
}

// ---------------------------------------------------------------- checks
let passed = 0;
const failures = [];
function check(name, ok, detail) {
	if (ok) {
		passed++;
		if (verbose) console.log(`ok   ${name}`);
	} else {
		failures.push(name);
		console.log(`FAIL ${name}${detail === undefined ? "" : `\n     ${typeof detail === "string" ? detail : JSON.stringify(detail).slice(0, 2000)}`}`);
	}
}
function same(name, got, want) {
	const ok = isDeepStrictEqual(got, want);
	check(name, ok, ok ? undefined : `got  ${JSON.stringify(got)?.slice(0, 1500)}\n     want ${JSON.stringify(want)?.slice(0, 1500)}`);
	return ok;
}

// ---------------------------------------------------------------- our CLI
function ours(...args) {
	const out = execFileSync(bin, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PI_CODING_AGENT_SESSION_DIR: root } });
	return JSON.parse(out);
}
const navigate = (file, x) => ours("navigate", file, ...(x === null ? ["--root"] : [x]), "--sessions-dir", root);
const label = (file, x, t) => ours("label", file, x, ...(t === undefined ? ["--clear"] : [t]), "--sessions-dir", root);
const fork = (file, x) => ours("fork", file, x, "--sessions-dir", root);
const tree = (file) => ours("tree", file, "--json");
const context = (file, leaf) => ours("context", file, ...(leaf === undefined ? [] : ["--leaf", leaf ?? "null"]), "--json");

// ---------------------------------------------------------------- pi
/** pi's view of a file; checks that opening it did not change a byte. */
function pi(file, leaf) {
	const before = readFileSync(file);
	const sm = SessionManager.open(file, root);
	if (leaf !== undefined) leaf === null ? sm.resetLeaf() : sm.branch(leaf);
	const ctx = sm.buildSessionContext();
	const view = {
		sm,
		leafId: sm.getLeafId(),
		leafType: sm.getLeafEntry()?.type,
		branch: sm.getBranch().map((e) => ({ id: e.id, type: e.type })),
		messages: JSON.parse(JSON.stringify(ctx.messages)),
		model: ctx.model ?? null,
		thinkingLevel: ctx.thinkingLevel,
		header: sm.getHeader(),
		entries: sm.getEntries(),
	};
	check(`pi left ${short(file)} as it was`, Buffer.compare(before, readFileSync(file)) === 0);
	return view;
}
/** Our context JSON, in pi's shape. */
function ourContext(file, leaf) {
	const c = context(file, leaf);
	return { leafId: c.leafId, messages: c.messages, model: c.model ? { provider: c.model.provider, modelId: c.model.modelId } : null, thinkingLevel: c.thinkingLevel };
}
const short = (p) => p.slice(work.length + 1);
const pathIds = (view) => view.branch.filter((e) => e.type !== "leaf").map((e) => e.id);

// ---------------------------------------------------------------- pi writes sessions
// pi's ids and clock are seeded (tests/lib/pi.mjs): every message a second after the one before.
const env = installDeterminism({ random: mulberry32(piMajor + 1), start: Date.UTC(2026, 2, 2, 10, 0, 0) });
const tick = () => env.clock.advance(1000);
const userMsg = (say) => message.user(say, tick());
function assistantMsg(say, call) {
	const content = [text(say), ...(call ? [toolCall(call.id, call.name, call.args)] : [])];
	return message.assistant({ content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage({ input: 1500, output: 120 }), stopReason: call ? "toolUse" : "stop", timestamp: tick() });
}

const usage1x = () => usage({ input: 900, output: 40, cacheRead: 100, cost: cost({ input: 0.0027, output: 0.0006, cacheRead: 0.00003, total: 0.00333 }) });

/** A session with every kind of entry, two in-file branches, a branch summary, a compaction and labels. */
function piSession(cwd) {
	const sm = SessionManager.create(cwd, root);
	const ids = {};
	ids.model = sm.appendModelChange("anthropic", "claude-sonnet-4-5");
	ids.thinking = sm.appendThinkingLevelChange("medium");
	ids.u1 = sm.appendMessage(userMsg("The login form accepts an empty password, can you fix it?"));
	ids.a1 = sm.appendMessage(assistantMsg("Let me read the form.", { id: "call_1", name: "read", args: { path: "src/login.ts" } }));
	ids.t1 = sm.appendMessage(message.toolResult({ toolCallId: "call_1", toolName: "read", content: [text("export function login() {}")], timestamp: tick() }));
	ids.a1b = sm.appendMessage(assistantMsg("Fixed: empty passwords are rejected now."));
	if (piMajor >= 1) {
		// What only pi 1.x writes: a system message, context edits, usage.
		ids.sys = sm.appendMessage(message.system({ content: "Be brief.", toolsAdded: [{ name: "read", description: "Read a file", parameters: { type: "object" } }], timestamp: tick() }));
		ids.ce1 = sm.appendContextEdit(ids.t1, { content: "[output removed]" });
		ids.ce2 = sm.appendContextEdit(ids.a1, null);
		ids.us = sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage1x()).id; // returns the entry
	}
	ids.l1 = sm.appendLabelChange(ids.u1, "start");
	ids.name = sm.appendSessionInfo("Interop session");
	ids.u2 = sm.appendMessage(userMsg("Add a unit test for it."));
	ids.a2 = sm.appendMessage(assistantMsg("Added tests/login.test.ts."));
	ids.u3 = sm.appendMessage(userMsg("Now try an on-disk cache."));
	ids.a3 = sm.appendMessage(assistantMsg("Cache on disk, in .cache/."));
	// a plain in-file branch from a2
	sm.branch(ids.a2);
	ids.u4 = sm.appendMessage(userMsg("Actually, keep the cache in memory."));
	ids.a4 = sm.appendMessage(assistantMsg("In-memory LRU with 500 entries."));
	ids.l2 = sm.appendLabelChange(ids.a4, "memory cache");
	// a branch with a summary, back to a1b
	ids.bs = sm.branchWithSummary(ids.a1b, "Tried two caches (disk, memory); abandoned.", { readFiles: ["src/cache.ts"], modifiedFiles: [] }, false, ...(piMajor >= 1 ? [usage1x()] : []));
	ids.u5 = sm.appendMessage(userMsg("Let's look at the build instead."));
	ids.a5 = sm.appendMessage(assistantMsg("The build fails on Windows paths."));
	ids.c = sm.appendCompaction("Fixed login, tried caches, looked at the build.", ids.u5, 24000, { readFiles: [], modifiedFiles: [] }, false, ...(piMajor >= 1 ? [usage1x()] : []));
	ids.u6 = sm.appendMessage(userMsg("Normalise the paths."));
	ids.cm = sm.appendCustomMessageEntry("reminder", "Run the tests before committing.", true, { from: "ext" });
	ids.cu = sm.appendCustomEntry("todo-ext", { items: 2 });
	ids.tl2 = sm.appendThinkingLevelChange("high");
	ids.a6 = sm.appendMessage(assistantMsg("Paths go through path.posix now."));
	ids.u7 = sm.appendMessage(userMsg("Thanks."));
	ids.a7 = sm.appendMessage(assistantMsg("You're welcome."));
	return { file: sm.getSessionFile(), ids };
}

function copyOf(file, name) {
	const dest = join(root, name);
	copyFileSync(file, dest);
	return dest;
}

// ================================================================ run
const base = piSession("/home/alice/projects/webapp");
check("pi wrote the base session", existsSync(base.file));
const { ids } = base;
const content = ["u1", "a1", "t1", "a1b", ...(piMajor >= 1 ? ["sys", "ce1", "ce2", "us"] : []), "l1", "name", "u2", "a2", "u3", "a3", "u4", "a4", "l2", "bs", "u5", "a5", "c", "u6", "cm", "cu", "tl2", "a6", "u7", "a7", "model", "thinking"];
let figures = { navigate: 0, label: 0, fork: 0, continued: 0 };

// (a) navigate: pi resumes at X
{
	const file = copyOf(base.file, "a-navigate.jsonl");
	for (const key of [...content, null]) {
		const x = key === null ? null : ids[key];
		const before = readFileSync(file);
		const w = navigate(file, x);
		figures.navigate++;
		const after = readFileSync(file);
		check(`(a) navigate ${key}: one line appended`, after.length === before.length + Buffer.byteLength(w.line) + 1 && after.subarray(0, before.length).equals(before));
		const p = pi(file);
		const me = ourContext(file);
		same(`(a) navigate ${key}: our leaf`, me.leafId, x);
		check(`(a) navigate ${key}: pi's last line is our leaf line`, p.leafType === "leaf" && p.leafId === JSON.parse(w.line).id, { leafId: p.leafId, leafType: p.leafType });
		same(`(a) navigate ${key}: pi's path ends at X`, pathIds(p).at(-1) ?? null, x);
		same(`(a) navigate ${key}: our active path = pi's path`, tree(file).activePath, pathIds(p));
		same(`(a) navigate ${key}: context messages`, me.messages, p.messages);
		same(`(a) navigate ${key}: model`, me.model, p.model);
		same(`(a) navigate ${key}: thinking level`, me.thinkingLevel, p.thinkingLevel);
		// and pi's own view of X (sm.branch(X)) is the same context
		if (x !== null) same(`(a) navigate ${key}: = pi's branch(X) context`, p.messages, pi(file, x).messages);
	}
}

// (b) label: pi reports it, the context does not move
{
	const file = copyOf(base.file, "b-label.jsonl");
	const steps = [
		["u2", "checkpoint"],
		["a3", "off the path"],
		["u1", "start v2"],
		["c", "compaction here"],
		["u2", undefined],
		["a4", ""],
		["u6", "ünïcødé \"quoted\" ✓"],
		["nav", "a2"],
		["a2", "after navigate"],
		["a2", undefined],
		["nav", null],
		["u1", "with a null leaf"],
	];
	for (const [key, text] of steps) {
		if (key === "nav") {
			navigate(file, text === null ? null : ids[text]);
			continue;
		}
		const x = ids[key];
		const p0 = pi(file);
		const me0 = ourContext(file);
		label(file, x, text);
		figures.label++;
		const p1 = pi(file);
		const t = tree(file);
		same(`(b) label ${key}=${JSON.stringify(text)}: pi's label`, p1.sm.getLabel(x), text ? text : undefined);
		same(`(b) label ${key}: our label`, t.labels[x], text ? text : undefined);
		same(`(b) label ${key}: pi's context unchanged`, p1.messages, p0.messages);
		same(`(b) label ${key}: pi's model/thinking unchanged`, [p1.model, p1.thinkingLevel], [p0.model, p0.thinkingLevel]);
		same(`(b) label ${key}: our context unchanged`, ourContext(file).messages, me0.messages);
		same(`(b) label ${key}: our context = pi's`, ourContext(file).messages, p1.messages);
		same(`(b) label ${key}: pi's path = ours`, pathIds(p1), t.activePath);
		// every label, both sides
		const piLabels = Object.fromEntries(p1.entries.map((e) => [e.id, p1.sm.getLabel(e.id)]).filter(([, l]) => l !== undefined));
		same(`(b) label ${key}: all labels`, t.labels, piLabels);
	}
}

// (c) fork: pi opens the new file and finds the source's path, labels and context at X
{
	const src = copyOf(base.file, "c-source.jsonl");
	// labels whose lines are off the forked paths, and one cleared off the path
	label(src, ids.u2, "set off the path");
	navigate(src, ids.a3);
	label(src, ids.a1b, "set on a side branch");
	label(src, ids.u1, undefined); // clears "start", which l1 set on the path
	navigate(src, ids.a7);
	const srcBytes = readFileSync(src);
	for (const key of ["u1", "a1b", ...(piMajor >= 1 ? ["ce2", "us"] : []), "l1", "a2", "a3", "a4", "l2", "bs", "u5", "c", "cm", "a7"]) {
		const x = ids[key];
		const w = fork(src, x);
		figures.fork++;
		check(`(c) fork ${key}: source unchanged`, Buffer.compare(readFileSync(src), srcBytes) === 0);
		check(`(c) fork ${key}: new file beside the source`, dirname(w.file) === dirname(src) && w.leafId === x);
		const pf = pi(w.file);
		const ps = pi(src, x);
		same(`(c) fork ${key}: pi's header parentSession`, pf.header.parentSession, src);
		same(`(c) fork ${key}: pi's header cwd`, pf.header.cwd, ps.header.cwd);
		same(`(c) fork ${key}: pi's header version`, pf.header.version, 3);
		same(`(c) fork ${key}: pi's path in the fork = the source's path to X`, pathIds(pf), pathIds(ps));
		same(`(c) fork ${key}: our path in the fork`, tree(w.file).activePath, pathIds(ps));
		same(`(c) fork ${key}: our leaf in the fork`, tree(w.file).leafId, x);
		const want = Object.fromEntries(pathIds(ps).map((id) => [id, ps.sm.getLabel(id)]));
		const got = Object.fromEntries(pathIds(ps).map((id) => [id, pf.sm.getLabel(id)]));
		same(`(c) fork ${key}: pi's labels on the path`, got, want);
		same(`(c) fork ${key}: pi's context in the fork = pi's context at X in the source`, pf.messages, ps.messages);
		same(`(c) fork ${key}: model/thinking`, [pf.model, pf.thinkingLevel], [ps.model, ps.thinkingLevel]);
		same(`(c) fork ${key}: our context at X = pi's context in the fork`, ourContext(src, x).messages, pf.messages);
		same(`(c) fork ${key}: our context in the fork = pi's`, ourContext(w.file).messages, pf.messages);
		// the copied lines are the source's bytes
		const srcLines = new Set(readFileSync(src, "utf8").split("\n"));
		const forkLines = readFileSync(w.file, "utf8").split("\n").filter(Boolean);
		const copied = forkLines.slice(1, 1 + w.copied);
		check(`(c) fork ${key}: ${w.copied} lines copied verbatim`, copied.length === pathIds(ps).length && copied.every((l) => srcLines.has(l)));
	}
}

// (d) pi continues a file we navigated
{
	const file = copyOf(base.file, "d-continue.jsonl");
	for (const key of ["a2", "a4", "u5", "a6"]) {
		const x = ids[key];
		const w = navigate(file, x);
		const L = JSON.parse(w.line).id;
		const before = readFileSync(file, "utf8").split("\n").filter(Boolean).length;
		const sm = SessionManager.open(file, root);
		const newId = sm.appendMessage(userMsg(`continue from ${key}`));
		const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
		figures.continued++;
		check(`(d) ${key}: pi appended exactly one line`, lines.length === before + 1);
		const last = JSON.parse(lines.at(-1));
		same(`(d) ${key}: pi's line is a child of our leaf line`, [last.id, last.parentId], [newId, L]);
		const t = tree(file);
		const entry = t.entries.find((e) => e.id === newId);
		same(`(d) ${key}: our tree: parent of pi's message`, entry?.parentId, L);
		same(`(d) ${key}: our tree: the leaf line hangs under X`, t.entries.find((e) => e.id === L)?.parentId, x);
		check(`(d) ${key}: our tree: children of the leaf line`, t.children[L]?.includes(newId));
		same(`(d) ${key}: our leaf = pi's message`, t.leafId, newId);
		same(`(d) ${key}: our active path runs X → leaf line → pi's message`, t.activePath.slice(-3), [x, L, newId]);
		const p = pi(file);
		same(`(d) ${key}: pi's path = ours`, p.branch.map((e) => e.id), t.activePath);
		const me = ourContext(file);
		same(`(d) ${key}: context = ours`, me.messages, p.messages);
		same(`(d) ${key}: context = context at X + the new message`, me.messages, [...ourContext(file, x).messages, p.messages.at(-1)]);
		// pi answers; both still agree
		const sm2 = SessionManager.open(file, root);
		sm2.appendMessage(assistantMsg(`answer after ${key}`));
		same(`(d) ${key}: after pi's answer, context = ours`, ourContext(file).messages, pi(file).messages);
	}
	// pi continues after our label line too
	label(file, ids.u1, "late label");
	const lines0 = readFileSync(file, "utf8").split("\n").filter(Boolean);
	const labelLine = JSON.parse(lines0.at(-1));
	const sm = SessionManager.open(file, root);
	const id = sm.appendMessage(userMsg("one more"));
	const t = tree(file);
	same("(d) after a label: pi's message is a child of our label line", t.entries.find((e) => e.id === id)?.parentId, labelLine.id);
	same("(d) after a label: context = ours", ourContext(file).messages, pi(file).messages);
}

const files = readdirSync(root).filter((f) => f.endsWith(".jsonl")).length;
if (keep) console.log(`interop: kept ${work}`);
else rmSync(work, { recursive: true, force: true });
console.log(
	`interop: pi ${piVersion}; ${figures.navigate} navigates, ${figures.label} labels, ${figures.fork} forks, ${figures.continued} continuations by pi over ${files} files; ${passed} checks passed, ${failures.length} failed`,
);
process.exit(failures.length ? 1 : 0);

#!/usr/bin/env node
// diff.mjs — differential test of `pi-session` against one real pi (run.sh runs it once per oracle).
//
//   node diff.mjs [--pi-dir DIR] [--bin PATH] [--seeds 1,2,3,7] [--sessions 6] [--seeds16 1,2,3,4]
//                 [--sessions16 5] [--every 5] [--timeout MS] [--dir DIR]... [--only SUBSTRING]
//                 [--keep DIR] [--verbose]
//
// --pi-dir: the pi under test is the one in DIR's node_modules (default: this folder, pi 0.73.1;
// pi16/ holds pi 1.6.0, which needs Node >= 22.19: run this script with .tools/bin/node24).
// --dir adds every .jsonl file under DIR (for example a real ~/.pi/agent/sessions; pi only
// ever opens copies) and compares the session list of DIR too.
// 1. writes the 49 vectors of vectors.mjs and the extra vectors of extra-vectors.mjs;
// 2. has pi 0.73.1 write sessions directories with gen.mjs, one per seed; with pi 1.x, also has
//    pi 1.x write sessions directories with gen16.mjs, one per --seeds16 seed;
// 3. for every .jsonl file runs pi (oracle.mjs: SessionManager.open on a private copy) and
//    `pi-session tree --json` + `pi-session context --json` (with `--leaf` where a vector
//    asks for one), and also the context at further nodes (every node of the small vector
//    files, every `--every`-th node of the generated ones): `sm.branch(ID)` against
//    `pi-session context --leaf ID`;
// 4. compares leaf, active path, roots, children order, labels, session name, header, and
//    the full buildSessionContext() result (messages deep-equal, model, thinking level);
// 5. with pi 1.x: our token and cost totals (`pi-session list`) against getSessionStats() for
//    every file, and `pi-session check` finds nothing in the files (and folders) pi 1.x wrote.
//
// The only differences allowed are the documented ones in DOCUMENTED and LIST_DOCUMENTED (documented.mjs)
// (users read them in docs/differences.md), each for the oracles it names. Each applies to a
// file because of what the file contains, never because of what the outputs say, and each
// asserts that the difference is exactly the documented one; whatever it does not explain must
// still be equal. The summary line names the oracle: `pi VERSION: N files (K contexts): U unexpected, D documented`.
//
// Exit status: 0 when nothing unexpected was found, 1 otherwise, 2 on a usage or setup error.
// Binary: --bin, else $PI_SESSION_BIN, else <repo>/target/debug/pi-session.

import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { DEFAULT_PI_DIR, Oracle, piEntryOf, piIn } from "./oracle.mjs";
import { DOCUMENTED, LIST_DOCUMENTED, hasDiag, parseLikePi, rawWalkLoops, same, short } from "./documented.mjs";
import { expectationFailures } from "./vectors.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const run = promisify(execFile);

// ---------------------------------------------------------------- options
const opts = {
	bin: process.env.PI_SESSION_BIN || join(REPO, "target/debug/pi-session"),
	seeds: [1, 2, 3, 7],
	sessions: 6,
	every: 5,
	timeout: 1500,
	only: undefined,
	keep: undefined,
	verbose: false,
	dirs: [],
	piDir: process.env.PI_DIR || DEFAULT_PI_DIR,
	seeds16: [1, 2, 3, 4],
	sessions16: 5,
};
{
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		const next = () => {
			if (i + 1 >= argv.length) usage(`${a} needs a value`);
			return argv[++i];
		};
		if (a === "--bin") opts.bin = next();
		else if (a === "--seeds") opts.seeds = next().split(",").filter(Boolean).map(Number);
		else if (a === "--sessions") opts.sessions = Number(next());
		else if (a === "--every") opts.every = Number(next());
		else if (a === "--timeout") opts.timeout = Number(next());
		else if (a === "--only") opts.only = next();
		else if (a === "--keep") opts.keep = resolve(next());
		else if (a === "--dir") opts.dirs.push(resolve(next()));
		else if (a === "--pi-dir") opts.piDir = resolve(next());
		else if (a === "--seeds16") opts.seeds16 = next().split(",").filter(Boolean).map(Number);
		else if (a === "--sessions16") opts.sessions16 = Number(next());
		else if (a === "--verbose" || a === "-v") opts.verbose = true;
		else if (a === "-h" || a === "--help") usage();
		else usage(`unexpected argument ${a}`);
	}
	if ([...opts.seeds, ...opts.seeds16].some((s) => !Number.isInteger(s)) || !(opts.sessions16 >= 0) || !(opts.sessions >= 0) || !(opts.every >= 1)) usage("bad number");
	opts.bin = resolve(opts.bin);
}
/** The pi under test: {name, version, line, pkgDir} (line 0: @mariozechner, 1: @earendil-works). */
const PI = piIn(opts.piDir);
const PI_LINE = PI?.line ?? 0;
/** pi 1.x runs: our `list` totals per file path (tokens, cost). */
const ourTotals = new Map();
// pi 1.x: getSessionStats() of each file (or { error }), for the dashboard's totals.
const piStats = new Map();
let dashboardFolders = 0;

function usage(msg) {
	if (msg) console.error(msg);
	console.error(
		"usage: node diff.mjs [--pi-dir DIR] [--bin PATH] [--seeds 1,2,3,7] [--sessions 6] [--seeds16 1,2,3,4] [--sessions16 5] [--every 5] [--timeout MS] [--dir DIR]... [--only SUBSTRING] [--keep DIR] [--verbose]",
	);
	process.exit(msg ? 2 : 0);
}

// ---------------------------------------------------------------- small helpers
async function pool(items, n, fn) {
	const out = new Array(items.length);
	let next = 0;
	await Promise.all(
		Array.from({ length: Math.min(n, items.length) }, async () => {
			while (next < items.length) {
				const i = next++;
				out[i] = await fn(items[i], i);
			}
		}),
	);
	return out;
}

const timing = { ours: 0, oursRuns: 0, pi: 0, piJobs: 0 };

/** Runs pi-session; never throws: {code, json, stderr}. */
async function ours(args) {
	const t = Date.now();
	timing.oursRuns++;
	try {
		const { stdout, stderr } = await run(opts.bin, args, { maxBuffer: 512 * 1024 * 1024 });
		return { code: 0, json: JSON.parse(stdout), stderr };
	} catch (err) {
		return { code: typeof err.code === "number" ? err.code : -1, json: null, stderr: String(err.stderr ?? err.message) };
	} finally {
		timing.ours += Date.now() - t;
	}
}

/** Runs pi-session and parses its stdout whatever the exit status (check exits 1 on errors). */
async function oursAny(args) {
	timing.oursRuns++;
	try {
		const { stdout } = await run(opts.bin, args, { maxBuffer: 512 * 1024 * 1024 });
		return { code: 0, json: JSON.parse(stdout), stderr: "" };
	} catch (err) {
		let json = null;
		try {
			json = JSON.parse(err.stdout);
		} catch {}
		return { code: typeof err.code === "number" ? err.code : -1, json, stderr: String(err.stderr ?? err.message) };
	}
}

function listJsonl(dir) {
	const out = [];
	if (!existsSync(dir)) return out;
	for (const name of readdirSync(dir).sort()) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) out.push(...listJsonl(p));
		else if (name.endsWith(".jsonl")) out.push(p);
	}
	return out;
}

// ---------------------------------------------------------------- our side, normalised
/** Our parent map, from the children lists of `tree --json` (roots have none). */
function parentsOf(tree) {
	const parent = new Map();
	for (const [p, kids] of Object.entries(tree.children)) for (const k of kids) parent.set(k, p);
	return parent;
}
function ourPath(tree, leafId) {
	if (leafId === null) return [];
	const parent = parentsOf(tree);
	const path = [];
	const seen = new Set();
	for (let cur = leafId; cur !== undefined && !seen.has(cur); cur = parent.get(cur)) {
		seen.add(cur);
		path.unshift(cur);
	}
	return path;
}
/** A view in the oracle's shape, from `context --json` (+ the tree for the path). */
function ourView(tree, ctx) {
	return {
		leafId: ctx.leafId,
		path: ourPath(tree, ctx.leafId),
		context: { messages: ctx.messages, model: ctx.model, thinkingLevel: ctx.thinkingLevel },
		compactionId: ctx.compactionId,
	};
}
// ---------------------------------------------------------------- one file
async function piView(oracle, file, leaf, at) {
	const t = Date.now();
	const res = await oracle.view(file, { leaf, at });
	timing.piJobs++;
	res.timeouts = [];
	let pending = at;
	let r = res;
	// A hang ends the worker; ask again for the nodes after the one that hung.
	while (r.timedOut) {
		res.timeouts.push(r.timedOut);
		if (r.timedOut === "view") pending = at;
		else if (r.timedOut.startsWith("at:")) pending = pending.slice(pending.indexOf(r.timedOut.slice(3)) + 1);
		else break; // open, labels or tree hung: nothing more to ask
		if (!pending.length) break;
		r = await oracle.view(file, { leaf, at: pending, noView: true });
		timing.piJobs++;
		res.at = { ...res.at, ...r.at };
	}
	delete res.timedOut;
	timing.pi += Date.now() - t;
	return res;
}

function pickNodes(tree, every, defaultLeaf) {
	const ids = [];
	const seen = new Set();
	for (const e of tree.entries) {
		if (e.id === null || seen.has(e.id)) continue;
		seen.add(e.id);
		ids.push(e.id);
	}
	const picked = ids.filter((id, i) => i % every === 0 && id !== defaultLeaf);
	if (picked.length <= MAX_NODES) return picked;
	return Array.from({ length: MAX_NODES }, (_, k) => picked[Math.floor((k * picked.length) / MAX_NODES)]);
}
/** At most this many further nodes per file (evenly spread), to bound the run time. */
const MAX_NODES = 40;

async function checkFile(oracle, item) {
	const { file, leaf } = item;
	const rel = relative(item.root, file);
	const out = { file: rel, unexpected: [], documented: [], contexts: 0 };
	const treeRun = await ours(["tree", file, "--json"]);
	if (treeRun.code !== 0) {
		out.unexpected.push(`pi-session tree failed (${treeRun.code}): ${treeRun.stderr.trim()}`);
		return out;
	}
	const tree = treeRun.json;
	const raw = readFileSync(file, "utf8");
	const rawLines = raw.split("\n");
	const rawLine = (n) => {
		try {
			return JSON.parse(rawLines[n - 1].replace(/^\uFEFF/, ""));
		} catch {
			return undefined;
		}
	};
	const piValues = parseLikePi(raw, PI_LINE);
	const piEntries = piValues.slice(1).filter((v) => !(v && typeof v === "object" && v.type === "session"));
	const f = { tree, viewLeaf: leaf ?? tree.leafId, rawLine, piValues, piEntries, raw, size: statSync(file).size, oracle: { line: PI_LINE, version: PI.version } };
	const applicable = DOCUMENTED.filter((r) => (r.oracles ?? [0, 1]).includes(PI_LINE) && r.applies(f));
	const exclusive = applicable.find((r) => r.exclusive);
	const rules = exclusive ? [exclusive] : applicable;

	// Which nodes to look at besides the leaf.
	let at = [];
	if (!rules.some((r) => r.id === "no-header" || r.id === "v1-ids" || r.id === "null-line" || r.id === "refused-by-pi1")) {
		at = pickNodes(tree, item.every, f.viewLeaf);
		if (rules.some((r) => r.id === "parent-cycle")) {
			// Each loop costs a timeout: keep every node whose walk ends, and one that loops.
			const loops = at.filter((id) => rawWalkLoops(tree, id));
			at = at.filter((id) => !rawWalkLoops(tree, id)).concat(loops.slice(0, 1));
		}
		if (rules.some((r) => r.id === "leaf-line")) {
			const line = tree.entries.findLast((e) => e.id !== null);
			at.push(line.id, tree.leafId ?? "null");
		}
		const last = f.piEntries.at(-1);
		if (last && last.id === undefined && typeof last.parentId === "string" && tree.entries.some((e) => e.id === last.parentId)) at.push(last.parentId);
		at = [...new Set(at)];
	}

	// pi's side runs in its worker while we run pi-session.
	const piJob = piView(oracle, file, leaf, at);

	// Our side.
	const me = { header: tree.header, leafId: tree.leafId, roots: tree.roots, children: tree.children, labels: tree.labels, sessionName: tree.name, at: {} };
	const ctxArgs = ["context", file, "--json"];
	const viewRun = await ours(leaf === undefined ? ctxArgs : [...ctxArgs, `--leaf=${leaf}`]);
	let leafRefused = false;
	if (viewRun.code === 0) me.view = ourView(tree, viewRun.json);
	else if (leaf !== undefined && /is not in/.test(viewRun.stderr)) {
		leafRefused = true; // like pi's branch(): "Entry X not found"; the view is then at the file's leaf
		const again = await ours(ctxArgs);
		if (again.code === 0) me.view = ourView(tree, again.json);
	} else out.unexpected.push(`pi-session context failed (${viewRun.code}): ${viewRun.stderr.trim()}`);
	if (viewRun.code === 0 && leaf === undefined && viewRun.json.leafId !== tree.leafId)
		out.unexpected.push(`context leafId ${viewRun.json.leafId} != tree leafId ${tree.leafId}`);
	const atRuns = await pool(at, 2, (id) => ours([...ctxArgs, `--leaf=${id}`]));
	at.forEach((id, i) => {
		if (atRuns[i].code === 0) me.at[id] = ourView(tree, atRuns[i].json);
		else out.unexpected.push(`pi-session context --leaf ${id} failed (${atRuns[i].code}): ${atRuns[i].stderr.trim()}`);
	});

	const pi = await piJob;
	// The pinned pi 0.73.1 must still give the answers vectors.mjs records for the vectors.
	if (item.vector && PI_LINE === 0) out.unexpected.push(...expectationFailures(item.vector, structuredClone(pi)).map((b) => `[pi vs vectors.mjs] ${b}`));
	if (leaf !== undefined) {
		const piRefused = typeof pi.leafError === "string" && /not found/.test(pi.leafError);
		if (piRefused !== leafRefused) out.unexpected.push(`--leaf ${leaf}: pi ${piRefused ? "refused" : "accepted"} it, we ${leafRefused ? "refused" : "accepted"} it`);
	}

	// Documented differences: assert each, then let the generic comparison check the rest.
	let skip = false;
	for (const r of rules) {
		const bad = [];
		if (r.expect(f, pi, me, bad) === "skip") skip = true;
		if (bad.length) out.unexpected.push(...bad.map((b) => `[${r.id}] ${b}`));
		else out.documented.push(r.id);
	}
	out.contexts = 1 + at.length;
	if (pi.error) out.unexpected.push(`pi threw: ${pi.error}`);
	if (PI_LINE >= 1) await checkTotalsAndFindings(item, file, pi, out);
	if (skip) return out;

	const facets = [
		["header", pi.header, me.header],
		["leaf", pi.leafIdAfterLoad, me.leafId],
		["roots", pi.roots, me.roots],
		["children", pi.children, me.children],
		["labels", pi.labels, me.labels],
		["name", pi.sessionName, me.sessionName],
	];
	const viewFacets = (name, p, m) => {
		if (!p || !m) return [[`${name}`, p ? "present" : "missing", m ? "present" : "missing"]];
		if (p.leafError || m.leafError) return [[`${name}.leafError`, p.leafError, m.leafError]];
		return [
			[`${name}.leafId`, p.leafId, m.leafId],
			[`${name}.path`, p.path, m.path],
			[`${name}.model`, p.context?.model, m.context?.model],
			[`${name}.thinkingLevel`, p.context?.thinkingLevel ?? null, m.context?.thinkingLevel ?? null],
			[`${name}.messages`, p.context?.messages, m.context?.messages],
		];
	};
	facets.push(...viewFacets("view", pi.view, me.view));
	for (const id of at) facets.push(...viewFacets(`at[${id}]`, pi.at?.[id], me.at[id]));
	for (const [name, p, m] of facets) {
		if (!same(p, m)) {
			if (name.endsWith(".messages") && Array.isArray(p) && Array.isArray(m)) {
				const i = p.findIndex((x, k) => !same(x, m[k]));
				out.unexpected.push(`${name} differ (pi ${p.length}, ours ${m.length}) first at #${i}: pi ${short(p[i])} | ours ${short(m[i])}`);
			} else out.unexpected.push(`${name}: pi ${short(p)} | ours ${short(m)}`);
		}
	}
	return out;
}

/**
 * `pi-session list` against pi's `SessionManager.list` for one sessions folder: id, cwd,
 * name, parentSession, message count, created and modified times, first user message
 * (exactly as pi gives it).
 */
async function checkList(oracle, root, dir) {
	const out = { file: `${relative(root, dir)} (list)`, unexpected: [], documented: [], contexts: 0, rows: 0 };
	const mine = await ours(["list", "--sessions-dir", dir, "--json"]);
	if (mine.code !== 0) {
		out.unexpected.push(`pi-session list failed (${mine.code}): ${mine.stderr.trim()}`);
		return out;
	}
	const pi = await oracle.list(dir);
	if (pi.error || pi.timedOut) {
		out.unexpected.push(`pi's list failed: ${pi.error ?? "timeout"}`);
		return out;
	}
	const byPath = new Map(mine.json.sessions.map((s) => [relative(dir, s.path), s]));
	for (const p of pi.list) {
		const m = byPath.get(p.path);
		byPath.delete(p.path);
		if (!m) {
			out.unexpected.push(`${p.path}: in pi's list, not in ours`);
			continue;
		}
		out.rows++;
		const facets = [
			["id", p.id, m.id],
			["cwd", p.cwd, m.cwd],
			["name", p.name, m.name],
			["parentSession", p.parentSessionPath, m.parentSession],
			["messageCount", p.messageCount, m.messageCount],
			["created", p.created, Date.parse(m.timestamp)],
			["modified", p.modified, m.modified],
			["firstMessage", p.firstMessage === "(no messages)" ? null : p.firstMessage, m.firstUserMessage],
		];
		for (const [k, a, b] of facets) if (!same(a, b)) out.unexpected.push(`${p.path}: list ${k}: pi ${short(a)} | ours ${short(b)}`);
	}
	for (const path of byPath.keys()) {
		// pi's list skips a file it fails to read: a `null` line makes 0.73.1 throw (row null-line).
		const values = parseLikePi(readFileSync(join(dir, path), "utf8"), PI_LINE);
		const row = LIST_DOCUMENTED.find((r) => r.applies(values));
		if (values.includes(null)) out.documented.push("null-line");
		else if (row) out.documented.push(row.id);
		else out.unexpected.push(`${path}: in our list, not in pi's`);
	}
	return out;
}

/**
 * pi 1.x only: our token and cost totals (`pi-session list`) against getSessionStats(), and
 * `pi-session check` finds nothing in a file pi 1.x wrote itself.
 */
async function checkTotalsAndFindings(item, file, pi, out) {
	const mine = ourTotals.get(resolve(file));
	if (pi.stats) piStats.set(resolve(file), pi.stats);
	if (pi.stats?.error) out.statsThrew = true; // e.g. an assistant message without usage
	if (pi.stats && !pi.stats.error) {
		if (!mine) out.unexpected.push("stats: pi gives totals, the file is not in our list");
		else {
			const closeEnough = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
			if (pi.stats.tokens !== mine.tokens) out.unexpected.push(`stats tokens: pi ${pi.stats.tokens} | ours ${mine.tokens}`);
			else if (!closeEnough(pi.stats.cost, mine.cost)) out.unexpected.push(`stats cost: pi ${pi.stats.cost} | ours ${mine.cost}`);
			else out.statsCompared = true;
		}
	}
	if (item.writtenByPi1) {
		const r = await oursAny(["check", file, "--json"]);
		const findings = r.json?.files?.flatMap((f) => f.diagnostics) ?? null;
		if (findings === null) out.unexpected.push(`pi-session check failed (${r.code}): ${r.stderr.trim()}`);
		else if (findings.length) out.unexpected.push(`check on a file pi ${PI.version} wrote: ${findings.map((d) => `${d.kind} (line ${d.line})`).join(", ")}`);
		else out.checked = true;
	}
}

// ---------------------------------------------------------------- main
async function main() {
	const t0 = Date.now();
	if (!existsSync(opts.bin)) {
		console.error(`pi-session binary not found: ${opts.bin} (build it, or set PI_SESSION_BIN)`);
		process.exit(2);
	}
	if (!PI) {
		console.error(`pi is not installed in ${opts.piDir}: run scripts/setup all (or 'npm ci' there)`);
		process.exit(2);
	}
	if (PI.line >= 1 && Number(process.versions.node.split(".")[0]) < 22) {
		console.error(`pi ${PI.version} needs Node >= 22.19; this is Node ${process.versions.node} (use .tools/bin/node24)`);
		process.exit(2);
	}
	const work = opts.keep ?? mkdtempSync(join(tmpdir(), "pi-diff-"));
	if (opts.keep) {
		rmSync(work, { recursive: true, force: true });
		mkdirSync(work, { recursive: true });
	}
	// Our listing cache goes into the work folder (removed at the end), not the user's cache.
	process.env.PI_SESSION_CACHE_DIR = join(work, "cache");
	const node = process.execPath;
	const items = [];
	const vdir = join(work, "vectors");
	await run(node, [join(HERE, "vectors.mjs"), "write", vdir]);
	const xdir = join(work, "extra");
	await run(node, [join(HERE, "extra-vectors.mjs"), "write", xdir]);
	const ydir = join(work, "vectors16");
	if (PI_LINE >= 1) await run(node, [join(HERE, "vectors16.mjs"), "write", ydir]);
	for (const dir of PI_LINE >= 1 ? [vdir, xdir, ydir] : [vdir, xdir]) {
		const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
		for (const [name, v] of Object.entries(expected))
			items.push({ root: work, file: join(dir, `${name}.jsonl`), leaf: v.leaf, every: 1, vector: dir === vdir ? name : undefined });
	}
	await pool(opts.seeds, 2, (seed) => run(node, [join(HERE, "gen.mjs"), join(work, `gen-seed${seed}`), "--seed", String(seed), "--sessions", String(opts.sessions)]));
	const checkRoots = []; // sessions folders pi 1.x wrote: `pi-session check DIR` finds nothing
	const listDirs = opts.seeds.map((seed) => join(work, `gen-seed${seed}`, "sessions"));
	for (const dir of listDirs) for (const file of listJsonl(dir)) items.push({ root: work, file, every: opts.every });
	if (PI.line >= 1) {
		// Sessions that pi 1.x itself writes through its API (gen16.mjs), one directory per seed.
		const seeds16 = opts.seeds16;
		await pool(seeds16, 2, (seed) =>
			run(node, [join(HERE, "gen16.mjs"), join(work, `gen16-seed${seed}`), "--seed", String(seed), "--sessions", String(opts.sessions16), "--pi-dir", opts.piDir]),
		);
		const dirs16 = seeds16.map((seed) => join(work, `gen16-seed${seed}`, "sessions"));
		for (const dir of dirs16) for (const file of listJsonl(dir)) items.push({ root: work, file, every: opts.every, writtenByPi1: true });
		listDirs.push(...dirs16);
		checkRoots.push(...dirs16);
	}
	for (const dir of opts.dirs) {
		for (const file of listJsonl(dir)) items.push({ root: dirname(dir), file, every: opts.every });
		listDirs.push(dir);
	}
	const selected = opts.only ? items.filter((it) => relative(work, it.file).includes(opts.only)) : items;
	const tGen = Date.now();

	const oracle = new Oracle({ timeoutMs: opts.timeout, piEntry: piEntryOf(opts.piDir), stats: PI.line >= 1, listAll: PI.line >= 1 });
	// pi 1.x: our per-session token and cost totals (`pi-session list`), for getSessionStats.
	if (PI.line >= 1) {
		for (const dir of new Set([vdir, xdir, ydir, ...listDirs])) {
			const l = await ours(["list", "--sessions-dir", dir, "--json"]);
			for (const row of l.json?.sessions ?? []) ourTotals.set(resolve(row.path), { tokens: row.tokens, cost: row.cost });
		}
	}
	const results = [];
	// Every row of DOCUMENTED is described for users in docs/differences.md.
	const docs = join(REPO, "docs/differences.md");
	const docText = existsSync(docs) ? readFileSync(docs, "utf8") : "";
	const undocumented = [...DOCUMENTED, ...LIST_DOCUMENTED].filter((r) => !docText.includes(`(\`${r.id}\`)`));
	if (undocumented.length) {
		const r = { file: "docs/differences.md", unexpected: undocumented.map((r) => `no row for the documented difference ${r.id}`), documented: [], contexts: 0, rows: 0 };
		results.push(r);
		console.log(`FAIL ${r.file}\n     ${r.unexpected.join("\n     ")}`);
	}
	try {
		for (const it of selected) {
			const r = await checkFile(oracle, it);
			results.push(r);
			if (r.unexpected.length) {
				console.log(`FAIL ${r.file}`);
				for (const u of r.unexpected) console.log(`     ${u}`);
			} else if (opts.verbose) console.log(`ok   ${r.file}${r.documented.length ? `  (documented: ${r.documented.join(", ")})` : ""}`);
		}
		if (!opts.only) {
			for (const dir of listDirs) {
				const r = await checkList(oracle, opts.dirs.includes(dir) ? dirname(dir) : work, dir);
				results.push(r);
				if (r.unexpected.length) {
					console.log(`FAIL ${r.file}`);
					for (const u of r.unexpected) console.log(`     ${u}`);
				} else if (opts.verbose) console.log(`ok   ${r.file}  (${r.rows} sessions)`);
			}
		}
		// pi 1.x: the dashboard's totals of a folder equal the sum of getSessionStats() over its
		// files (where pi gives stats for every one of them).
		if (PI.line >= 1 && !opts.only) {
			const r = { file: "dashboard totals against getSessionStats", unexpected: [], documented: [], contexts: 0, rows: 0, dashboards: 0 };
			for (const dir of new Set([vdir, xdir, ydir, ...listDirs])) {
				const l = await ours(["list", "--sessions-dir", dir, "--json"]);
				const rows = l.json?.sessions ?? [];
				const stats = rows.map((row) => piStats.get(resolve(row.path)));
				if (!rows.length || stats.some((st) => !st || st.error)) continue;
				const d = await ours(["dashboard", "--sessions-dir", dir, "--json"]);
				const t = d.json?.totals;
				if (!t) {
					r.unexpected.push(`${relative(work, dir)}: pi-session dashboard failed`);
					continue;
				}
				const tokens = stats.reduce((n, st) => n + st.tokens, 0);
				const cost = stats.reduce((n, st) => n + st.cost, 0);
				if (t.sessions !== rows.length) r.unexpected.push(`${relative(work, dir)}: dashboard sessions ${t.sessions} | list ${rows.length}`);
				else if (t.tokens !== tokens) r.unexpected.push(`${relative(work, dir)}: dashboard tokens ${t.tokens} | pi ${tokens}`);
				else if (Math.abs(t.cost - cost) > 1e-9 * Math.max(1, Math.abs(cost))) r.unexpected.push(`${relative(work, dir)}: dashboard cost ${t.cost} | pi ${cost}`);
				else r.dashboards++;
			}
			if (r.dashboards === 0 && !r.unexpected.length) r.unexpected.push("no folder where pi gives stats for every file: nothing compared");
			dashboardFolders = r.dashboards;
			results.push(r);
			if (r.unexpected.length) console.log(`FAIL ${r.file}\n     ${r.unexpected.join("\n     ")}`);
		}
		for (const dir of opts.only ? [] : checkRoots) {
			const r = { file: `${relative(work, dir)} (check)`, unexpected: [], documented: [], contexts: 0, rows: 0 };
			const c = await oursAny(["check", dir, "--json"]);
			const files = c.json?.files ?? null;
			if (files === null) r.unexpected.push(`pi-session check failed (${c.code}): ${c.stderr.trim()}`);
			else for (const f of files) for (const d of f.diagnostics) r.unexpected.push(`${relative(dir, f.path)}: ${d.kind} (line ${d.line}): ${d.message}`);
			results.push(r);
			if (r.unexpected.length) console.log(`FAIL ${r.file}\n     ${r.unexpected.join("\n     ")}`);
			else if (opts.verbose) console.log(`ok   ${r.file}  (${files.length} files, 0 findings)`);
		}
	} finally {
		await oracle.close();
	}

	const files = results.filter((r) => r.rows === undefined).length;
	const rows = results.reduce((n, r) => n + (r.rows ?? 0), 0);
	const contexts = results.reduce((n, r) => n + r.contexts, 0);
	const unexpected = results.reduce((n, r) => n + r.unexpected.length, 0);
	const documented = results.reduce((n, r) => n + r.documented.length, 0);
	const byRule = {};
	for (const r of results) for (const d of r.documented) byRule[d] = (byRule[d] ?? 0) + 1;
	const failedFiles = results.filter((r) => r.unexpected.length).length;
	console.log(`documented differences by kind: ${Object.entries(byRule).map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`);
	console.log(
		`setup ${((tGen - t0) / 1000).toFixed(1)} s, comparison ${((Date.now() - tGen) / 1000).toFixed(1)} s ` +
			`(pi: ${timing.piJobs} jobs ${(timing.pi / 1000).toFixed(1)} s, pi-session: ${timing.oursRuns} runs ${(timing.ours / 1000).toFixed(1)} s); ` +
			`work dir ${opts.keep ? work : "(removed)"}`,
	);
	console.log(`session lists: ${rows} rows compared`);
	const piFiles = results.filter((r) => r.rows === undefined && r.file.includes("gen16-seed")).length;
	if (PI_LINE >= 1) {
		const stats = results.filter((r) => r.statsCompared).length;
		const checked = results.filter((r) => r.checked).length;
		const threw = results.filter((r) => r.statsThrew).length;
		console.log(
			`token and cost totals equal getSessionStats in ${stats} files (it throws on ${threw} damaged files), dashboard totals in ${dashboardFolders} folders; check: 0 findings in ${checked} of ${piFiles} files pi ${PI.version} wrote`,
		);
	}
	console.log(`compared ${files} files (${contexts} contexts): ${unexpected} unexpected differences, ${documented} documented differences`);
	console.log(`pi ${PI.version}: ${files} files (${contexts} contexts${PI_LINE >= 1 ? `, ${piFiles} written by pi ${PI.version}` : ""}): ${unexpected} unexpected, ${documented} documented`);
	console.log(`${results.length - failedFiles} passed, ${failedFiles} failed`);
	if (!opts.keep) rmSync(work, { recursive: true, force: true });
	process.exitCode = unexpected ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	main().catch((err) => {
		console.error(err?.stack ?? err);
		process.exit(2);
	});
}

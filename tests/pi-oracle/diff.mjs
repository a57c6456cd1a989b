#!/usr/bin/env node
// diff.mjs — differential test of `pi-session` against the real pi 0.73.1.
//
//   node diff.mjs [--bin PATH] [--seeds 1,2,3,7] [--sessions 6] [--every 5] [--timeout MS]
//                 [--dir DIR]... [--only SUBSTRING] [--keep DIR] [--verbose]
//
// --dir adds every .jsonl file under DIR (for example a real ~/.pi/agent/sessions; pi only
// ever opens copies) and compares the session list of DIR too.
// 1. writes the 49 vectors of vectors.mjs and the extra vectors of extra-vectors.mjs;
// 2. has pi write sessions directories with gen.mjs, one per seed;
// 3. for every .jsonl file runs pi (oracle.mjs: SessionManager.open on a private copy) and
//    `pi-session tree --json` + `pi-session context --json` (with `--leaf` where a vector
//    asks for one), and also the context at further nodes (every node of the small vector
//    files, every `--every`-th node of the generated ones): `sm.branch(ID)` against
//    `pi-session context --leaf ID`;
// 4. compares leaf, active path, roots, children order, labels, session name, header, and
//    the full buildSessionContext() result (messages deep-equal, model, thinking level).
//
// The only differences allowed are the documented ones in DOCUMENTED below (users read them
// in docs/differences.md). Each applies to a file because of what the file contains, never
// because of what the outputs say, and each asserts that the difference is exactly the
// documented one; whatever it does not explain must still be equal.
//
// Exit status: 0 when nothing unexpected was found, 1 otherwise, 2 on a usage or setup error.
// Binary: --bin, else $PI_SESSION_BIN, else <repo>/target/debug/pi-session.

import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Oracle, UNDEFINED } from "./oracle.mjs";
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
		else if (a === "--verbose" || a === "-v") opts.verbose = true;
		else if (a === "-h" || a === "--help") usage();
		else usage(`unexpected argument ${a}`);
	}
	if (opts.seeds.some((s) => !Number.isInteger(s)) || !(opts.sessions >= 0) || !(opts.every >= 1)) usage("bad number");
	opts.bin = resolve(opts.bin);
}
function usage(msg) {
	if (msg) console.error(msg);
	console.error("usage: node diff.mjs [--bin PATH] [--seeds 1,2,3,7] [--sessions 6] [--every 5] [--timeout MS] [--dir DIR]... [--only SUBSTRING] [--keep DIR] [--verbose]");
	process.exit(msg ? 2 : 0);
}

// ---------------------------------------------------------------- small helpers
/** JSON with object keys sorted: deep equality regardless of key order. */
function canon(v) {
	if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
	if (v && typeof v === "object") {
		return `{${Object.keys(v)
			.filter((k) => v[k] !== undefined)
			.sort()
			.map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
			.join(",")}}`;
	}
	return JSON.stringify(v ?? null);
}
const same = (a, b) => canon(a) === canon(b);
const short = (v, n = 300) => {
	const s = typeof v === "string" ? v : JSON.stringify(v);
	return s === undefined ? "undefined" : s.length > n ? `${s.slice(0, n)}…` : s;
};

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
const hasDiag = (tree, ...kinds) => tree.diagnostics.some((d) => kinds.includes(d.kind));

/**
 * Predicts whether pi's walk from `leafId` up through the parentIds *as written* loops
 * (`getBranch` and `buildSessionContext` follow `byId.get(parentId)` while parentId is
 * truthy, and never stop on a revisit). Uses the lines as written, from our entry list.
 */
function rawWalkLoops(tree, leafId) {
	const byId = new Map();
	for (const e of tree.entries) if (e.id !== null) byId.set(e.id, e);
	const seen = new Set();
	for (let e = byId.get(leafId); e; e = e.parentId ? byId.get(e.parentId) : undefined) {
		if (seen.has(e)) return true;
		seen.add(e);
	}
	return false;
}

// ---------------------------------------------------------------- the documented differences
//
// One table, one row per difference. `applies` looks at the input (our reading of the
// file, which the generic comparison checks everywhere else); `expect` asserts the exact
// documented difference, pushing a message to `bad` for anything else, and rewrites the
// two sides so that the generic comparison that follows checks everything the difference
// does not explain. docs/differences.md describes the same rows for users.

export const DOCUMENTED = [
	{
		id: "no-header",
		exclusive: true, // pi has no entries: no other row can be checked
		title: "Files without a valid session header",
		pi: "discards every entry and replaces the file with a fresh header (new session id) on open",
		ours: "shows the entries as they are, read-only, with a missing-header (or empty-file) diagnostic",
		applies: (f) => f.tree.readOnly === "no-header",
		expect(f, pi, me, bad) {
			if (!hasDiag(f.tree, "missing-header", "empty-file")) bad.push("no missing-header or empty-file diagnostic");
			if (pi.entries?.length !== 0) bad.push(`pi kept ${pi.entries?.length} entries`);
			if (pi.piRewroteFileOnOpen !== true) bad.push("pi did not rewrite the file");
			const empty = { leafId: null, path: [], context: { messages: [], model: null, thinkingLevel: "off" } };
			if (!same(pi.view, empty)) bad.push(`pi's view is not empty: ${short(pi.view)}`);
			if (pi.roots?.length || Object.keys(pi.children ?? {}).length || Object.keys(pi.labels ?? {}).length || pi.sessionName !== null)
				bad.push("pi's tree, labels or name are not empty");
			return "skip"; // nothing else is comparable: pi has no entries
		},
	},
	{
		id: "migrated-file",
		title: "Version 1 and 2 files",
		pi: "migrates the file to version 3 and rewrites it on open; its header then says version 3",
		ours: "migrates in memory only, never writes, shows the file read-only and the header as written",
		applies: (f) => f.tree.readOnly === "old-version",
		expect(f, pi, me, bad) {
			if (!hasDiag(f.tree, "old-version")) bad.push("no old-version diagnostic");
			if (pi.piRewroteFileOnOpen !== true) bad.push("pi did not rewrite the file");
			if (pi.header?.version !== 3) bad.push(`pi's header version is ${pi.header?.version}`);
			if (!(typeof f.tree.version !== "number" || f.tree.version < 3)) bad.push(`our version is ${f.tree.version}`);
			me.header = { ...me.header, version: 3 };
		},
	},
	{
		id: "v1-ids",
		title: "Version 1 files: entry ids",
		pi: "gives every entry a fresh random id on each open (and writes them into the file)",
		ours: "gives synthetic ids (v1-<line>) that are stable across reads; compared by position in the file",
		applies: (f) => f.tree.readOnly === "old-version" && (typeof f.tree.version !== "number" || f.tree.version < 2),
		expect(f, pi, me, bad) {
			const mine = f.tree.entries.map((e) => e.id);
			const theirs = (pi.entries ?? []).map((e) => e.id);
			if (mine.length !== theirs.length) {
				bad.push(`entry counts differ: pi ${theirs.length}, ours ${mine.length}`);
				return;
			}
			const map = new Map();
			theirs.forEach((id, i) => {
				if (!/^[0-9a-f]{8}$/.test(id)) bad.push(`pi's migrated id ${id} is not 8 hex digits`);
				if (mine[i] !== `v1-${f.tree.entries[i].line}`) bad.push(`our id ${mine[i]} is not v1-<line>`);
				map.set(id, mine[i]);
			});
			const m = (id) => (map.has(id) ? map.get(id) : id);
			const mapView = (v) => v && { ...v, leafId: m(v.leafId), path: v.path?.map(m) };
			pi.view = mapView(pi.view);
			pi.leafIdAfterLoad = m(pi.leafIdAfterLoad);
			pi.roots = pi.roots?.map(m);
			pi.children = Object.fromEntries(Object.entries(pi.children ?? {}).map(([k, v]) => [m(k), v.map(m)]));
			pi.labels = Object.fromEntries(Object.entries(pi.labels ?? {}).map(([k, v]) => [m(k), v]));
		},
	},
	{
		id: "leaf-line",
		title: "`leaf` lines (newer pi harness) as the last entry line",
		pi: "0.73.1 does not know the type: the leaf is the leaf line itself (its parentId chain), not its targetId",
		ours: "the leaf is the line's targetId (null = before the first entry; a target not in the file leaves the leaf at the line's parent, with a dangling-target diagnostic)",
		applies: (f) => {
			const last = f.tree.entries.findLast((e) => e.id !== null);
			return last?.type === "leaf";
		},
		expect(f, pi, me, bad) {
			const line = f.tree.entries.findLast((e) => e.id !== null);
			if (pi.leafIdAfterLoad !== line.id) bad.push(`pi's leaf is ${pi.leafIdAfterLoad}, not the leaf line ${line.id}`);
			if (f.tree.leafId === line.id) bad.push("our leaf is the leaf line itself");
			const key = f.tree.leafId ?? "null";
			// pi at the leaf line == us at the leaf line; pi at our leaf == our default view.
			// (A walk into a parent cycle hangs in pi: the parent-cycle row checks those.)
			if (!pi.at?.[key] && !pi.timeouts.includes(`at:${key}`)) bad.push(`pi's view at our leaf ${key} is missing`);
			if (!me.at?.[line.id]) bad.push(`our view at the leaf line ${line.id} is missing`);
			pi.timeouts = pi.timeouts.flatMap((t) => (t === "view" ? [`at:${line.id}`] : t === `at:${key}` ? [t, "view"] : [t]));
			// Our navigate lines have parentId = targetId: pi then resumes with the same context.
			const target = f.rawLine(line.line)?.targetId;
			if (line.parentId === target && f.tree.leafId === target && pi.view) {
				const mine = me.view?.context;
				if (!same(pi.view?.context, mine)) bad.push(`navigate line: pi's context at the line is not ours at ${target}`);
			}
			pi.at = { ...pi.at, [line.id]: pi.view };
			pi.view = pi.at?.[key];
			pi.leafIdAfterLoad = me.leafId; // checked above
		},
	},
	{
		id: "duplicate-id",
		title: "An id on more than one line",
		pi: "keeps the later line for lookups but lists that node once per line carrying the id, under each line's parent (e.g. children(1) = [2, 2])",
		ours: "keeps the later line, lists it once, under that line's parent, and reports a duplicate-id diagnostic",
		applies: (f) => hasDiag(f.tree, "duplicate-id"),
		expect(f, pi, me, bad) {
			const counts = new Map();
			for (const e of f.tree.entries) if (e.id !== null) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
			const dups = [...counts].filter(([, n]) => n > 1);
			const occurrences = (t, id) => (t.roots ?? []).filter((x) => x === id).length + Object.values(t.children ?? {}).flat().filter((x) => x === id).length;
			// pi lists the node once per line, under that line's parent: a root when the parent is
			// null, itself or not in the file; nowhere when the parent is a node pi's tree does
			// not reach (inside a parent cycle).
			const ids = new Set(f.tree.entries.map((e) => e.id));
			const shown = new Set([...(pi.roots ?? []), ...Object.values(pi.children ?? {}).flat()]);
			const hasNameless = f.piEntries.some((v) => v?.id === undefined);
			const expected = (id) =>
				f.tree.entries
					.filter((e) => e.id === id)
					.filter((e) => {
						const p = f.rawLine(e.line)?.parentId;
						if (p === undefined) return hasNameless ? shown.has(UNDEFINED) : true;
						return p === null || p === id || typeof p !== "string" || !ids.has(p) || shown.has(p);
					}).length;
			for (const [id, n] of dups) {
				if (occurrences(pi, id) !== expected(id)) bad.push(`pi lists ${id} ${occurrences(pi, id)} times, not once per line under a parent it shows (${expected(id)} of ${n})`);
				if (occurrences(me, id) !== 1) bad.push(`we list ${id} ${occurrences(me, id)} times`);
				if (!f.tree.diagnostics.some((d) => d.kind === "duplicate-id" && d.message.includes(id))) bad.push(`no duplicate-id diagnostic for ${id}`);
			}
			const drop = new Set(dups.map(([id]) => id));
			for (const t of [pi, me]) stripIds(t, drop);
		},
	},
	{
		id: "null-line",
		exclusive: true, // pi gives no answer at all
		title: "A line that is just `null`",
		pi: "throws a TypeError while opening the file (it reads `.type` of every parsed line), so the session cannot be opened; /resume leaves it out",
		ours: "skips the line with a not-an-object diagnostic and reads the rest",
		applies: (f) => f.piValues.some((v) => v === null),
		expect(f, pi, me, bad) {
			if (!/Cannot read properties of null/.test(pi.error ?? "")) bad.push(`pi did not throw on the null line: ${short(pi.error ?? "no error")}`);
			if (!hasDiag(f.tree, "not-an-object")) bad.push("no not-an-object diagnostic");
			delete pi.error;
			return "skip"; // pi gave no answer to compare with
		},
	},
	{
		id: "missing-id",
		title: "Entry lines without an id (objects without `id`, and JSON values that are not objects)",
		pi: "keeps the line as a nameless node (key undefined) under its parent, or as a root when it has no parentId; an entry without parentId becomes a child of that nameless node; when such a line is last, the leaf is undefined, getBranch() is empty and buildSessionContext() starts from that line",
		ours: "skips the line with a missing-id (or not-an-object) diagnostic; an entry without parentId is a root; the leaf is the last line that has an id",
		applies: (f) => f.tree.readOnly !== "old-version" && f.tree.readOnly !== "no-header" && f.piEntries.some((v) => v?.id === undefined),
		expect(f, pi, me, bad) {
			const nameless = f.piEntries.filter((v) => v?.id === undefined);
			const objects = f.piEntries.filter((v) => v && typeof v === "object" && !Array.isArray(v));
			const count = (kind) => f.tree.diagnostics.filter((d) => d.kind === kind).length;
			const idless = objects.filter((v) => typeof v.id !== "string").length;
			if (count("missing-id") !== idless) bad.push(`${idless} objects without a string id but ${count("missing-id")} missing-id diagnostics`);
			if (count("not-an-object") !== f.piEntries.length - objects.length) bad.push(`${f.piEntries.length - objects.length} non-object lines but ${count("not-an-object")} not-an-object diagnostics`);
			const n = (pi.roots ?? []).filter((x) => x === UNDEFINED).length + Object.values(pi.children ?? {}).flat().filter((x) => x === UNDEFINED).length;
			if (n !== nameless.length) bad.push(`pi lists ${n} nameless nodes for ${nameless.length} lines without an id`);
			// Entries with an id but no parentId key hang under pi's nameless node; ours are roots.
			const orphans = objects.filter((v) => typeof v.id === "string" && !("parentId" in v)).map((v) => v.id);
			if (!same([...(pi.children?.[UNDEFINED] ?? [])].sort(), [...new Set(orphans)].sort())) bad.push(`pi's nameless node has children ${short(pi.children?.[UNDEFINED])}, not the entries without parentId ${short(orphans)}`);
			for (const id of orphans) if (!me.roots.includes(id)) bad.push(`${id} (no parentId) is not one of our roots`);
			delete pi.children?.[UNDEFINED];
			me.roots = me.roots.filter((r) => !orphans.includes(r));
			stripIds(pi, new Set([UNDEFINED]));
			const own = f.piEntries.at(-1);
			if (own === undefined || own?.id !== undefined) return;
			// The last line has no id: pi's leaf is undefined and its context starts at that line.
			if (pi.leafIdAfterLoad !== UNDEFINED) bad.push(`pi's leaf is ${pi.leafIdAfterLoad}, not undefined`);
			const mineLast = f.tree.entries.findLast((e) => e.id !== null);
			if (me.leafId !== (mineLast?.id ?? null)) bad.push(`our leaf ${me.leafId} is not the last line with an id`);
			pi.leafIdAfterLoad = me.leafId; // checked above
			const parent = own && typeof own === "object" ? own.parentId : undefined;
			f.viewChecked = true; // the parent-cycle row leaves this view alone
			if (pi.timeouts.includes("view")) {
				// pi's walk from the nameless line runs into a parent cycle.
				if (!(typeof parent === "string" && rawWalkLoops(f.tree, parent))) bad.push(`pi hung building the context, but the walk from ${parent} does not loop`);
				pi.view = me.view;
				return;
			}
			if (!pi.view || pi.view.leafId !== UNDEFINED || pi.view.path.length !== 0) bad.push(`pi's view is not leaf undefined / path []: ${short(pi.view)}`);
			const empty = { messages: [], model: null, thinkingLevel: "off" };
			const base = parent && f.tree.entries.some((e) => e.id === parent) ? me.at?.[parent]?.context : empty;
			if (!base) {
				bad.push(`cannot build the expected context (no view of ours at ${parent})`);
				return;
			}
			const want = structuredClone(base);
			if (own?.type === "message") {
				want.messages.push(own.message);
				if (own.message?.role === "assistant") want.model = { provider: own.message.provider, modelId: own.message.model };
			} else if (own?.type === "thinking_level_change") want.thinkingLevel = own.thinkingLevel;
			else if (own?.type === "model_change") want.model = { provider: own.provider, modelId: own.modelId };
			else if (own?.type === "custom_message" || own?.type === "branch_summary" || own?.type === "compaction")
				bad.push(`no expectation for an id-less ${own.type} line`);
			if (!same(pi.view?.context, want)) bad.push(`pi's context is not ours at ${parent} plus the id-less line: ${short(pi.view?.context)}`);
			pi.view = me.view; // checked above
		},
	},
	{
		id: "parent-cycle",
		title: "Parent cycles (including an entry that is its own parent) on a walked path",
		pi: "getBranch/buildSessionContext loop forever (the oracle times out); getTree leaves entries of a cycle that no root reaches out of the tree",
		ours: "answers, breaks each cycle at its earliest line (shown as an extra root) and reports parent-cycle / self-parent diagnostics",
		applies: (f) => hasDiag(f.tree, "parent-cycle", "self-parent"),
		expect(f, pi, me, bad) {
			const lineToId = new Map(f.tree.entries.map((e) => [e.line, e.id]));
			const breakers = f.tree.diagnostics.filter((d) => d.kind === "parent-cycle").map((d) => lineToId.get(d.line));
			// Views: a walk that loops in pi must have timed out, and we must have answered.
			const views = [["view", f.viewLeaf], ...Object.keys(me.at ?? {}).map((id) => [`at:${id}`, id])];
			for (const [step, leaf] of views) {
				if (leaf === null || leaf === undefined || leaf === "null") continue;
				if (step === "view" && f.viewChecked) continue;
				const loops = rawWalkLoops(f.tree, leaf);
				const timedOut = pi.timeouts.includes(step);
				if (loops !== timedOut) bad.push(`${step}: pi ${timedOut ? "timed out" : "answered"}, the walk from ${leaf} ${loops ? "loops" : "does not loop"}`);
				if (!loops) continue;
				const mine = step === "view" ? me.view : me.at[leaf];
				if (!mine) bad.push(`${step}: we gave no answer`);
				if (step === "view") pi.view = me.view;
				else pi.at = { ...pi.at, [leaf]: me.at[leaf] };
			}
			// Tree: our roots = pi's roots plus the breakers; what hangs below a breaker is not in pi's tree.
			const myRoots = me.roots.filter((r) => !breakers.includes(r));
			for (const b of breakers) if (!me.roots.includes(b)) bad.push(`cycle breaker ${b} is not one of our roots`);
			if (!same(myRoots, pi.roots)) bad.push(`roots other than the cycle breakers differ: pi ${short(pi.roots)}, ours ${short(me.roots)}`);
			const below = new Set();
			const stack = [...breakers];
			while (stack.length) {
				const id = stack.pop();
				if (below.has(id)) continue;
				below.add(id);
				stack.push(...(f.tree.children[id] ?? [])); // our tree as read, before other rows strip ids
			}
			me.roots = myRoots;
			me.children = Object.fromEntries(Object.entries(me.children).filter(([k]) => !below.has(k)));
		},
	},
	{
		id: "retained-tail",
		title: "Compactions with `retainedTail` (newer pi harness)",
		pi: "0.73.1 ignores the field: after the summary it replays the path from firstKeptEntryId up to the compaction",
		ours: "after the summary come the retainedTail messages, and nothing from before the compaction (the newer harness's rule)",
		applies: (f) => f.tree.entries.some((e) => e.type === "compaction" && Array.isArray(f.rawLine(e.line)?.retainedTail)),
		expect(f, pi, me, bad) {
			const views = [["view", pi.view, me.view], ...Object.keys(me.at ?? {}).map((id) => [`at[${id}]`, pi.at?.[id], me.at[id]])];
			for (const [name, p, m] of views) {
				if (!p?.context || !m?.context || !m.compactionId) continue;
				const line = f.tree.entries.find((e) => e.id === m.compactionId && e.type === "compaction");
				const c = line && f.rawLine(line.line);
				if (!Array.isArray(c?.retainedTail)) continue;
				// pi: summary, the kept range of the path (converted as buildSessionContext does), the rest.
				const pos = m.path.indexOf(c.id);
				const start = m.path.indexOf(c.firstKeptEntryId);
				const kept = start >= 0 && start < pos ? m.path.slice(start, pos) : [];
				const byId = new Map(f.tree.entries.filter((e) => e.id !== null).map((e) => [e.id, e]));
				const piKept = kept.map((id) => convertForContext(f.rawLine(byId.get(id).line))).filter(Boolean);
				const tail = c.retainedTail.length;
				const mm = m.context.messages;
				const pm = p.context.messages;
				if (!same(mm.slice(1, 1 + tail), c.retainedTail)) bad.push(`${name}: our messages after the summary are not the retainedTail`);
				if (!same(pm.slice(1, 1 + piKept.length), piKept)) bad.push(`${name}: pi's messages after the summary are not the kept range`);
				if (!same(pm[0], mm[0]) || !same(pm.slice(1 + piKept.length), mm.slice(1 + tail)))
					bad.push(`${name}: the summary or the messages after the compaction differ`);
				p.context = { ...p.context, messages: mm }; // checked above
			}
		},
	},
];

/** An entry line as buildSessionContext turns it into a message (undefined: none). */
function convertForContext(e) {
	const ms = (t) => new Date(t).getTime();
	const json = (v) => JSON.parse(JSON.stringify(v));
	if (!e) return undefined;
	if (e.type === "message") return json(e.message);
	if (e.type === "custom_message")
		return json({ role: "custom", customType: e.customType, content: e.content, display: e.display, details: e.details, timestamp: ms(e.timestamp) });
	if (e.type === "branch_summary" && e.summary) return json({ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: ms(e.timestamp) });
	return undefined;
}

/** Removes ids from roots and children lists (and their own children keys stay). */
function stripIds(t, drop) {
	t.roots = (t.roots ?? []).filter((x) => !drop.has(x));
	const ch = {};
	for (const [k, v] of Object.entries(t.children ?? {})) {
		const kept = v.filter((x) => !drop.has(x));
		if (kept.length) ch[k] = kept;
	}
	t.children = ch;
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
	const piValues = parseLikePi(raw);
	const piEntries = piValues.slice(1).filter((v) => !(v && typeof v === "object" && v.type === "session"));
	const f = { tree, viewLeaf: leaf ?? tree.leafId, rawLine, piValues, piEntries };
	const applicable = DOCUMENTED.filter((r) => r.applies(f));
	const exclusive = applicable.find((r) => r.exclusive);
	const rules = exclusive ? [exclusive] : applicable;

	// Which nodes to look at besides the leaf.
	let at = [];
	if (!rules.some((r) => r.id === "no-header" || r.id === "v1-ids" || r.id === "null-line")) {
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
	// The pinned pi must still give the answers SEMANTICS.md records for the vectors.
	if (item.vector) out.unexpected.push(...expectationFailures(item.vector, structuredClone(pi)).map((b) => `[pi vs SEMANTICS.md] ${b}`));
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
		// pi's list skips a file it fails to read: a `null` line makes it throw (row null-line).
		if (parseLikePi(readFileSync(join(dir, path), "utf8")).includes(null)) out.documented.push("null-line");
		else out.unexpected.push(`${path}: in our list, not in pi's`);
	}
	return out;
}

/**
 * The values pi reads from a file (`content.trim().split("\n")`, blank lines skipped, every
 * line `JSON.parse`d, failures dropped): used to tell which documented rows apply.
 */
function parseLikePi(text) {
	const values = [];
	for (const line of text.trim().split("\n")) {
		if (!line.trim()) continue;
		try {
			values.push(JSON.parse(line));
		} catch {}
	}
	return values;
}

// ---------------------------------------------------------------- main
async function main() {
	const t0 = Date.now();
	if (!existsSync(opts.bin)) {
		console.error(`pi-session binary not found: ${opts.bin} (build it, or set PI_SESSION_BIN)`);
		process.exit(2);
	}
	if (!existsSync(join(HERE, "node_modules/@mariozechner/pi-coding-agent/package.json"))) {
		console.error(`pi is not installed: run 'npm ci' in ${HERE}`);
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
	for (const dir of [vdir, xdir]) {
		const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
		for (const [name, v] of Object.entries(expected))
			items.push({ root: work, file: join(dir, `${name}.jsonl`), leaf: v.leaf, every: 1, vector: dir === vdir ? name : undefined });
	}
	await pool(opts.seeds, 2, (seed) => run(node, [join(HERE, "gen.mjs"), join(work, `gen-seed${seed}`), "--seed", String(seed), "--sessions", String(opts.sessions)]));
	const listDirs = opts.seeds.map((seed) => join(work, `gen-seed${seed}`, "sessions"));
	for (const dir of listDirs) for (const file of listJsonl(dir)) items.push({ root: work, file, every: opts.every });
	for (const dir of opts.dirs) {
		for (const file of listJsonl(dir)) items.push({ root: dirname(dir), file, every: opts.every });
		listDirs.push(dir);
	}
	const selected = opts.only ? items.filter((it) => relative(work, it.file).includes(opts.only)) : items;
	const tGen = Date.now();

	const oracle = new Oracle({ timeoutMs: opts.timeout });
	const results = [];
	// Every row of DOCUMENTED is described for users in docs/differences.md.
	const docs = join(REPO, "docs/differences.md");
	const docText = existsSync(docs) ? readFileSync(docs, "utf8") : "";
	const undocumented = DOCUMENTED.filter((r) => !docText.includes(`(\`${r.id}\`)`));
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
	console.log(`compared ${files} files (${contexts} contexts): ${unexpected} unexpected differences, ${documented} documented differences`);
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

#!/usr/bin/env node
// oracle.mjs — what the real pi makes of one session file, as JSON. Used by diff.mjs; also
// runs on its own:
//
//   node oracle.mjs <session.jsonl> [--leaf ID|null] [--at ID]... [--timeout MS] [--pi-dir DIR]
//
// The pi is the one installed in DIR's node_modules: by default this folder (pi 0.73.1,
// `@mariozechner/pi-coding-agent`, pinned in package.json); `--pi-dir pi16` is pi 1.6.0
// (`@earendil-works/pi-coding-agent`, pinned in pi16/package.json), which needs Node >= 22.19
// (run this script with that Node: .tools/bin/node24).
//
// All answers come from pi's public API: `SessionManager.open`, then `branch(id)` /
// `resetLeaf()` for --leaf, `getLeafId`, `getBranch`, `getTree`, `getLabel`, `getSessionName`,
// `getHeader`, `getEntries` and the full `buildSessionContext()` result (messages verbatim,
// model, thinkingLevel). `--at ID` adds the context at further nodes (`branch(ID)` then the
// same calls), each under `at[ID]`. With pi 1.x, `stats` holds the token total and cost of
// `AgentSession.getSessionStats()` (the real method, run over the opened SessionManager).
//
// pi rewrites some files on open (v1/v2 migration; 0.73.1 replaces a file without a valid
// header by a fresh one; 1.x appends a newline to an unterminated last line), so pi only ever
// opens a private copy in a temporary folder; `piRewroteFileOnOpen` tells whether that copy
// changed. pi loops forever on parent cycles, so pi runs in a worker thread that reports every
// step: when a step does not end within the time limit, the steps done so far are returned
// with `timedOut: "<that step>"`.
//
// The output uses "<undefined>" where pi holds `undefined` (an entry without an id makes
// pi's leaf undefined) because JSON cannot say it otherwise.

import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const USAGE = "usage: node oracle.mjs <session.jsonl> [--leaf ID|null] [--at ID]... [--timeout MS] [--pi-dir DIR]";
export const UNDEFINED = "<undefined>";

// ---------------------------------------------------------------- worker side (drives pi)

const undef = (v) => (v === undefined ? UNDEFINED : v);
// JSON as pi's data would be written: undefined keys vanish, NaN becomes null.
const plain = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));
const idOf = (e) => (typeof e?.id === "string" ? e.id : e?.id === undefined ? UNDEFINED : JSON.stringify(e.id));

function viewAtLeaf(sm) {
	const leafId = undef(sm.getLeafId());
	const path = sm.getBranch().map(idOf);
	const ctx = sm.buildSessionContext();
	return { leafId, path, context: plain({ messages: ctx.messages, model: ctx.model, thinkingLevel: ctx.thinkingLevel }) };
}

function applyLeaf(sm, leaf) {
	try {
		if (leaf === "null" || leaf === null) sm.resetLeaf();
		else sm.branch(leaf);
		return undefined;
	} catch (err) {
		return String(err?.message ?? err);
	}
}

async function workerMain() {
	process.env.PI_CODING_AGENT_DIR = join(workerData.scratch, "agent-dir"); // keep pi away from ~/.pi
	const pi = await import(workerData.piEntry);
	const { SessionManager } = pi;
	// pi 1.x's getSessionStats() lives on AgentSession and reads only `this.sessionManager`
	// (and getContextUsage, which needs a model): the real method runs on a minimal `this`.
	const statsOf = workerData.stats ? pi.AgentSession?.prototype?.getSessionStats : undefined;
	parentPort.postMessage({ ready: true });
	parentPort.on("message", async ({ job, kind, path, dir, leaf, at, noView }) => {
		if (kind === "list") {
			// SessionManager.list(cwd, sessionDir) on the folder and on each folder inside it
			// (listAll's layout), as plain JSON.
			try {
				const { readdirSync, statSync } = await import("node:fs");
				const folders = [path, ...readdirSync(path).map((n) => join(path, n)).filter((p) => statSync(p).isDirectory())];
				const sessions = [];
				// 1.x's list(cwd, dir) keeps only the sessions of cwd; listAll(dir) lists one folder.
				for (const folder of folders)
					sessions.push(...(await (workerData.listAll ? SessionManager.listAll(folder) : SessionManager.list("/", folder))));
				const list = sessions.map((s) => ({
					path: s.path,
					id: s.id,
					cwd: s.cwd,
					name: s.name ?? null,
					parentSessionPath: s.parentSessionPath ?? null,
					created: s.created.getTime(),
					modified: s.modified.getTime(),
					messageCount: s.messageCount,
					firstMessage: s.firstMessage,
				}));
				parentPort.postMessage({ job, step: "list", data: { list } });
			} catch (err) {
				parentPort.postMessage({ job, step: "error", data: { error: String(err?.stack ?? err) } });
			}
			parentPort.postMessage({ job, step: "done" });
			return;
		}
		// Each step is announced before it runs, so a hang is attributed to the right step.
		const step = (name, fn) => {
			parentPort.postMessage({ job, begin: name });
			parentPort.postMessage({ job, step: name, data: fn() });
		};
		try {
			let sm;
			let entries;
			step("load", () => {
				sm = SessionManager.open(path, dir);
				entries = sm.getEntries();
				return {
					header: plain(sm.getHeader()),
					leafIdAfterLoad: undef(sm.getLeafId()),
					entries: entries.map((e) => ({ id: idOf(e), parentId: e.parentId === undefined ? UNDEFINED : e.parentId, type: e.type })),
				};
			});
			if (statsOf)
				step("stats", () => {
					try {
						const st = statsOf.call({ sessionManager: sm, getContextUsage: () => undefined });
						return { stats: { tokens: st.tokens.total, cost: st.cost } };
					} catch (err) {
						return { stats: { error: String(err?.message ?? err) } };
					}
				});
			// Labels as pi resolves them: getLabel() for every entry id and every label target.
			step("labels", () => {
				const ids = new Set();
				for (const e of entries) {
					ids.add(e.id);
					if (e.type === "label") ids.add(e.targetId);
				}
				const labels = {};
				for (const id of ids) {
					const l = sm.getLabel(id);
					if (l !== undefined) labels[id] = l;
				}
				return { labels: plain(labels), sessionName: sm.getSessionName() ?? null };
			});
			// getTree(): roots and each node's children in pi's order (timestamp, ties in file order).
			step("tree", () => {
				const roots = sm.getTree();
				const children = {};
				const seen = new Set();
				const stack = [...roots].reverse();
				while (stack.length) {
					const node = stack.pop();
					if (seen.has(node)) continue; // a duplicated id puts one node in several places
					seen.add(node);
					if (node.children.length) children[idOf(node.entry)] = node.children.map((c) => idOf(c.entry));
					for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
				}
				return { roots: roots.map((r) => idOf(r.entry)), children };
			});
			if (leaf !== undefined) step("leaf", () => ({ leafRequested: leaf, leafError: applyLeaf(sm, leaf) }));
			if (!noView) step("view", () => ({ view: viewAtLeaf(sm) }));
			for (const id of at ?? []) {
				step(`at:${id}`, () => {
					const err = applyLeaf(sm, id);
					return { at: { [id]: err ? { leafError: err } : viewAtLeaf(sm) } };
				});
			}
		} catch (err) {
			parentPort.postMessage({ job, step: "error", data: { error: String(err?.stack ?? err) } });
		}
		parentPort.postMessage({ job, step: "done" });
	});
}

// ---------------------------------------------------------------- main side

/** The folder of the 0.73.1 oracle (its node_modules); pi 1.x lives in ./pi16 (needs Node >= 22.19). */
export const DEFAULT_PI_DIR = dirname(SELF);
const PACKAGES = ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"];

/**
 * Which pi a folder holds: {name, version, line, pkgDir} (undefined when none is installed).
 * `line` is the package line: 0 for `@mariozechner/pi-coding-agent` (0.73.1 and older), 1 for
 * `@earendil-works/pi-coding-agent` (0.74.0 and later; 1.6.0 is pinned), whose rules differ.
 */
export function piIn(dir) {
	for (const name of PACKAGES) {
		const pkgDir = join(resolve(dir), "node_modules", name);
		try {
			const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
			return { name, version, line: name.startsWith("@earendil-works/") ? 1 : 0, pkgDir };
		} catch {}
	}
	return undefined;
}
/** The module URL the worker imports for the pi in `dir`. */
export function piEntryOf(dir) {
	const pi = piIn(dir);
	if (!pi) return "@mariozechner/pi-coding-agent";
	const { main } = JSON.parse(readFileSync(join(pi.pkgDir, "package.json"), "utf8"));
	return pathToFileURL(join(pi.pkgDir, main ?? "dist/index.js")).href;
}

/**
 * One pi worker, reused across files (importing pi takes about a second). A step that
 * does not end within `timeoutMs` ends the worker; a fresh one is started at once.
 */
export class Oracle {
	constructor({ timeoutMs = 3000, piEntry = piEntryOf(DEFAULT_PI_DIR), stats = false, listAll = false } = {}) {
		this.stats = stats;
		this.listAll = listAll;
		this.timeoutMs = timeoutMs;
		this.piEntry = piEntry;
		this.scratch = mkdtempSync(join(tmpdir(), "pi-oracle-"));
		mkdirSync(join(this.scratch, "agent-dir"), { recursive: true });
		this.worker = null;
		this.ready = null;
		this.jobs = 0;
	}

	_start() {
		this.worker = new Worker(SELF, {
			workerData: { piOracleWorker: true, scratch: this.scratch, piEntry: this.piEntry, stats: this.stats, listAll: this.listAll },
			execArgv: [],
			resourceLimits: { maxOldGenerationSizeMb: 2048 },
		});
		this.worker.unref();
		this.ready = new Promise((res, rej) => {
			const onMsg = (m) => {
				if (m?.ready) {
					this.worker.off("message", onMsg);
					res();
				}
			};
			this.worker.on("message", onMsg);
			this.worker.once("error", rej);
		});
		return this.ready;
	}

	/**
	 * pi's view of `file`. `leaf`: an id or "null", applied first (as `branch` / `resetLeaf`);
	 * `at`: further nodes, each reported under `at[id]`; `noView`: skip the view at the leaf.
	 */
	async view(file, { leaf, at = [], noView = false } = {}) {
		if (!this.worker) await this._start();
		else await this.ready;
		const src = resolve(file);
		const original = readFileSync(src);
		const dir = mkdtempSync(join(this.scratch, "job-"));
		const path = join(dir, basename(src));
		copyFileSync(src, path);
		const job = ++this.jobs;
		const result = { file: src };
		let lastStep = "start";
		const worker = this.worker;
		await new Promise((res) => {
			const finish = () => {
				clearTimeout(timer);
				worker.off("message", onMsg);
				worker.off("exit", onExit);
				res();
			};
			const onMsg = (m) => {
				if (m.job !== job) return;
				if (m.begin) {
					lastStep = m.begin;
					clearTimeout(timer);
					timer = setTimeout(expire, this.timeoutMs);
					return;
				}
				if (m.step === "done") return finish();
				if (m.data.at) result.at = { ...result.at, ...m.data.at };
				else Object.assign(result, m.data);
			};
			const onExit = () => {
				result.error = result.error ?? `the pi worker exited during '${lastStep}'`;
				if (this.worker === worker) this.worker = null;
				finish();
			};
			// The limit is per step: a step that does not end in time is a hang.
			const expire = () => {
				result.timedOut = lastStep;
				worker.terminate();
				this._start().catch(() => {}); // the next job need not wait for pi to load again
				finish();
			};
			let timer = setTimeout(expire, this.timeoutMs);
			worker.on("message", onMsg);
			worker.on("exit", onExit);
			worker.postMessage({ job, path, dir, leaf, at, noView });
		});
		const after = readFileSync(path);
		result.piRewroteFileOnOpen = !after.equals(original);
		if (result.piRewroteFileOnOpen) result.rewrittenLines = after.toString("utf8").split("\n").filter((l) => l.trim()).length;
		rmSync(dir, { recursive: true, force: true });
		return result;
	}

	/**
	 * pi's session list (`SessionManager.list`) of a sessions folder and its sub-folders,
	 * run on a copy of the folder (file times kept); paths are given relative to `dir`.
	 */
	async list(dir) {
		if (!this.worker) await this._start();
		else await this.ready;
		const src = resolve(dir);
		const job = ++this.jobs;
		const copy = join(mkdtempSync(join(this.scratch, "job-")), "sessions");
		cpSync(src, copy, { recursive: true, preserveTimestamps: true });
		const worker = this.worker;
		const result = await new Promise((res) => {
			const out = {};
			const timer = setTimeout(() => {
				worker.terminate();
				this._start().catch(() => {});
				res({ timedOut: "list" });
			}, this.timeoutMs * 10);
			const onMsg = (m) => {
				if (m.job !== job) return;
				if (m.step !== "done") return Object.assign(out, m.data);
				clearTimeout(timer);
				worker.off("message", onMsg);
				res(out);
			};
			worker.on("message", onMsg);
			worker.postMessage({ job, kind: "list", path: copy });
		});
		for (const s of result.list ?? []) s.path = relative(copy, s.path);
		rmSync(dirname(copy), { recursive: true, force: true });
		return result;
	}

	async close() {
		if (this.worker) await this.worker.terminate();
		this.worker = null;
		rmSync(this.scratch, { recursive: true, force: true });
	}
}

async function cli(argv) {
	const opts = { at: [], timeout: 15000 };
	for (let i = 0; i < argv.length; i++) {
		const a = argv[i];
		if (a === "--leaf") opts.leaf = argv[++i];
		else if (a === "--at") opts.at.push(argv[++i]);
		else if (a === "--timeout") opts.timeout = Number(argv[++i]);
		else if (a === "--pi-dir") opts.piDir = argv[++i];
		else if (a === "-h" || a === "--help") return console.log(USAGE);
		else if (!opts.file) opts.file = a;
		else throw new Error(`unexpected argument ${a}\n${USAGE}`);
	}
	if (!opts.file || (argv.includes("--leaf") && opts.leaf === undefined)) throw new Error(USAGE);
	const piDir = opts.piDir ?? DEFAULT_PI_DIR;
	const oracle = new Oracle({ timeoutMs: opts.timeout, piEntry: piEntryOf(piDir), stats: (piIn(piDir)?.line ?? 0) >= 1 });
	try {
		const out = await oracle.view(opts.file, { leaf: opts.leaf, at: opts.at });
		console.log(JSON.stringify(out, null, 2));
		process.exitCode = out.timedOut || out.error ? 1 : 0;
	} finally {
		await oracle.close();
	}
}

if (!isMainThread && workerData?.piOracleWorker) {
	await workerMain();
} else if (isMainThread && process.argv[1] && resolve(process.argv[1]) === SELF) {
	cli(process.argv.slice(2)).catch((err) => {
		console.error(err.message);
		process.exitCode = 2;
	});
}

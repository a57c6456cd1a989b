// test.mjs — lineage of sessions pi 1.6.0 wrote itself (gen.mjs), through the real `pi-session`:
//
//   node24 --test tests/lineage/test.mjs      (env: PI_SESSION_BIN, PI16_DIR; run.sh sets them)
//
// * `forks --json`: every child's kind (fork or spawn), parent and spawnedBy (the tool call that
//   started it; a guess, marked, for the child no call names; the child outside the root listed
//   with status outside-roots);
// * `list --json`: own and family figures equal sums of pi's own AgentSession.getSessionStats()
//   (the real method, over the opened SessionManager and, for a fork's copied entries, over those
//   entries alone);
// * the folder copied (the original kept): each link goes to the copy's own files (relinked);
//   the root through a symbolic link: ok, at the link's paths; the folder moved with the original
//   gone: every link relinked inside the moved root, with the same fork points and tool calls
//   (`forks`, and `tree FILE` for each file alone).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadPi } from "../lib/pi.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");
const BIN = resolve(process.env.PI_SESSION_BIN || join(REPO, "target/debug/pi-session"));
const PI16 = process.env.PI16_DIR || join(REPO, "tests/pi-oracle/pi16");

const work = realpathSync(mkdtempSync(join(tmpdir(), "pi-session-lineage-")));
const env = { ...process.env, PI_SESSION_CACHE_DIR: join(work, "cache") };
let manifest;
let root;

function cli(...args) {
	const r = spawnSync(BIN, args, { env, encoding: "utf8", maxBuffer: 64 << 20 });
	assert.equal(r.status, 0, `pi-session ${args.join(" ")}: ${r.stderr}`);
	return JSON.parse(r.stdout);
}
const forks = (dir) => cli("forks", "--sessions-dir", dir, "--json").sessions;
const children = (links) => links.filter((f) => f.parentSession);
const byPath = (links) => new Map(links.map((f) => [f.path, f]));

before(() => {
	const gen = join(work, "gen");
	const r = spawnSync(process.execPath, [join(HERE, "gen.mjs"), gen, "--pi-dir", PI16], { encoding: "utf8" });
	assert.equal(r.status, 0, r.stderr);
	manifest = JSON.parse(readFileSync(join(gen, "manifest.json"), "utf8"));
	root = manifest.root;
});
after(() => rmSync(work, { recursive: true, force: true }));

test("every child has its kind, its parent and the tool call that started it", () => {
	const links = byPath(forks(root));
	for (const c of manifest.children) {
		const f = links.get(c.file);
		assert.ok(f, `${c.how}: ${c.file} is in forks --json`);
		assert.equal(f.status, c.outside ? "outside-roots" : "ok", c.how);
		assert.equal(f.kind, c.kind, c.how);
		assert.equal(f.parentPath, c.parent, c.how);
		if (c.kind === "fork") {
			assert.equal(f.forkPointId, c.forkPoint, c.how);
			assert.equal(f.spawnedBy, undefined, c.how);
		} else {
			assert.equal(f.forkPointId, null, c.how);
			assert.equal(f.spawnedBy, c.spawnedBy, c.how);
			assert.equal(f.spawnedByToolCall, c.spawnedByToolCall ?? undefined, c.how);
			assert.equal(f.spawnedByGuess ?? false, c.guess, c.how);
		}
		console.log(`  ${c.kind.padEnd(5)} ${relative(dirname(root), c.file).slice(-50)}  parent …${c.parent.slice(-12)}  ${c.kind === "fork" ? `at ${f.forkPointId}` : `by ${f.spawnedBy}${f.spawnedByToolCall ? ` (${f.spawnedByToolCall})` : ""}${f.spawnedByGuess ? " (guess)" : ""}`}  [${c.how}]`);
	}
	// The three spawns of one assistant message: one entry, three different tool calls.
	const parallel = manifest.children.filter((c) => c.how.includes("one of three"));
	assert.equal(new Set(parallel.map((c) => links.get(c.file).spawnedBy)).size, 1);
	assert.equal(new Set(parallel.map((c) => links.get(c.file).spawnedByToolCall)).size, 3);
});

test("own and family figures are sums of pi's own getSessionStats", async () => {
	const { SessionManager, module } = await loadPi(PI16);
	const statsOf = (entries) => {
		const st = module.AgentSession.prototype.getSessionStats.call({ sessionManager: { getEntries: () => entries }, getContextUsage: () => undefined });
		return { tokens: st.tokens.total, cost: st.cost };
	};
	const list = cli("list", "--sessions-dir", root, "--json").sessions;
	const rows = new Map(list.map((s) => [s.path, s]));
	const entriesOf = (file) => SessionManager.open(file).getEntries();
	const own = new Map();
	for (const s of list) {
		const entries = entriesOf(s.path);
		const whole = statsOf(entries);
		assert.equal(s.tokens, whole.tokens, `${s.path}: tokens`);
		const fork = manifest.children.find((c) => c.file === s.path && c.kind === "fork");
		let mine = whole;
		if (fork) {
			const parentIds = new Set(entriesOf(fork.parent).map((e) => e.id));
			const copied = statsOf(entries.filter((e) => parentIds.has(e.id)));
			assert.ok(copied.tokens > 0, "the fork copied billed entries");
			mine = { tokens: whole.tokens - copied.tokens, cost: whole.cost - copied.cost };
		}
		own.set(s.path, mine);
		assert.equal(s.ownTokens, mine.tokens, `${s.path}: own tokens`);
		assert.ok(Math.abs(s.ownCost - mine.cost) < 1e-9, `${s.path}: own cost ${s.ownCost} vs ${mine.cost}`);
	}
	// Families: a session and its spawns inside the root, recursively.
	const spawnsOf = (p) => manifest.children.filter((c) => c.parent === p && c.kind === "spawn" && !c.outside).map((c) => c.file);
	const family = (p) => spawnsOf(p).reduce((acc, k) => {
		const f = family(k);
		return { tokens: acc.tokens + f.tokens, cost: acc.cost + f.cost, size: acc.size + f.size };
	}, { ...own.get(p), size: 1 });
	for (const s of list) {
		const f = family(s.path);
		assert.equal(s.familyTokens, f.tokens, `${s.path}: family tokens`);
		assert.ok(Math.abs(s.familyCost - f.cost) < 1e-9, `${s.path}: family cost ${s.familyCost} vs ${f.cost}`);
		assert.equal(s.familySize, f.size, `${s.path}: family size`);
	}
	const p1 = rows.get(manifest.parents[0]);
	assert.equal(p1.familySize, 7, "P1, the scout and its reader, three reviewers, the checker");
	console.log(`  P1: own ${p1.ownTokens} tokens $${p1.ownCost.toFixed(4)}, family of ${p1.familySize}: ${p1.familyTokens} tokens $${p1.familyCost.toFixed(4)}`);
	const fk = rows.get(manifest.children.find((c) => c.kind === "fork").file);
	console.log(`  fork: file ${fk.tokens} tokens $${fk.cost.toFixed(4)}, own ${fk.ownTokens} tokens $${fk.ownCost.toFixed(4)}`);
	// Heads' families add up to every session's own figures: nothing counted twice.
	const heads = list.filter((s) => s.kind !== "spawn").reduce((a, s) => a + s.familyTokens, 0);
	assert.equal(heads, list.reduce((a, s) => a + s.ownTokens, 0));
});

/** The links of `dir` against those of the generated root: same kind, point and tool call; parent at the same place under `dir`. */
function sameLinks(dir, status) {
	const base = byPath(children(forks(root)).filter((f) => f.status !== "outside-roots"));
	const got = children(forks(dir)).filter((f) => f.status !== "outside-roots");
	assert.equal(got.length, base.size);
	for (const f of got) {
		const b = base.get(join(root, relative(dir, f.path)));
		assert.ok(b, f.path);
		assert.equal(f.status, status, f.path);
		assert.equal(relative(dir, f.parentPath), relative(root, b.parentPath), `${f.path}: parent inside ${dir}`);
		assert.equal(f.parentSession, b.parentSession, "the recorded path kept");
		for (const k of ["kind", "forkPointId", "forkPointLine", "spawnedBy", "spawnedByToolCall", "spawnedByGuess"]) assert.deepEqual(f[k], b[k], `${f.path}: ${k}`);
	}
	return got.length;
}

test("a copy links to its own files; a linked root reads at the link's paths", () => {
	const copy = join(work, "copy", "sessions");
	mkdirSync(dirname(copy), { recursive: true });
	cpSync(root, copy, { recursive: true });
	const n = sameLinks(copy, "relinked");
	const link = join(work, "link-to-sessions");
	symlinkSync(root, link);
	sameLinks(link, "ok");
	console.log(`  copy (original kept): ${n} links relinked to the copy's files; linked root: ${n} ok`);
});

test("a folder moved with its original gone: every link relinked, the same fork points", () => {
	const before = children(forks(root));
	const was = before.filter((f) => f.status === "ok").length;
	const moved = join(work, "restored", "agent");
	mkdirSync(dirname(moved), { recursive: true });
	const beforeRoot = root;
	renameSync(dirname(beforeRoot), moved);
	const movedRoot = join(moved, "sessions");
	const after = children(forks(movedRoot));
	const relinked = after.filter((f) => f.status === "relinked").length;
	assert.equal(after.filter((f) => f.status === "parent-missing").length, 0);
	assert.equal(relinked, was, "every link that was ok is relinked");
	// The same points as before the move (compared with the generated links, paths mapped).
	const beforeBy = byPath(before);
	for (const f of after.filter((f) => f.status === "relinked")) {
		const b = beforeBy.get(join(beforeRoot, relative(movedRoot, f.path)));
		assert.ok(b, f.path);
		assert.equal(relative(movedRoot, f.parentPath), relative(beforeRoot, b.parentPath));
		for (const k of ["kind", "forkPointId", "forkPointLine", "spawnedBy", "spawnedByToolCall", "spawnedByGuess"]) assert.deepEqual(f[k], b[k], `${f.path}: ${k}`);
	}
	// `tree FILE` resolves the same link for one file, against its root's headers.
	for (const f of after.filter((f) => f.status === "relinked")) {
		const t = cli("tree", f.path, "--json").lineage;
		assert.deepEqual([t.status, t.kind, t.parentPath, t.forkPointId, t.spawnedBy, t.spawnedByToolCall ?? undefined], [f.status, f.kind, f.parentPath, f.forkPointId, f.spawnedBy ?? null, f.spawnedByToolCall], `tree ${f.path}`);
	}
	const outside = after.find((f) => f.status === "outside-roots");
	assert.ok(outside && outside.parentPath.startsWith(movedRoot), "the child outside still names the moved parent");
	console.log(`  moved: before ${was} ok, ${before.filter((f) => f.status === "parent-missing").length} missing; after ${relinked} relinked, 0 missing`);
});

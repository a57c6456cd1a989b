#!/usr/bin/env node
// run.mjs — slim forks and pruned copies, read back by the real pi.
//
//   node run.mjs --pi PI_PACKAGE_DIR [--bin pi-session] [--seeds 1,2,3,4] [--sessions 5]
//                [--dir SESSIONS_DIR]... [--nodes N] [--keep] [--verbose]
//
// The pi package (its dist/index.js exports SessionManager) is loaded from PI_PACKAGE_DIR, so the
// same script runs against pi 0.73.1 (system Node) and pi 1.6.0 (Node 24). Sessions:
//   * written here with THAT pi's own SessionManager (per seed: random turns, tool calls, model
//     and thinking changes, branches, branch summaries, labels, compactions — kept ranges,
//     extension compactions keeping nothing or from a non-message entry — and, where the pi has
//     them, context edits, usage entries and system messages, so that compactions carry a
//     systemMessage); pi's ids and clock are seeded too (tests/lib/pi.mjs), so a seed writes the
//     same files every run;
//   * plus every .jsonl under each --dir (e.g. the gen.mjs corpus), copied first.
// Checks, for every file:
//   * slim: at every node whose path has a compaction (or a sample of --nodes N, always with the
//     leaves among them),
//     `pi-session fork FILE ID --slim` writes a new file; pi opens it and its context at the
//     file's own leaf (messages, model, thinking level) deep-equals pi's context of the source
//     after branch(ID); pi's labels of every copied entry equal the source's; the source is
//     unchanged. At nodes without a compaction the command exits 3 and writes nothing.
//   * prune: for one, two and all leaves of the tree (when it has several), `pi-session prune
//     FILE --keep L…` writes a copy; for each kept leaf pi's context after branch(L) in the copy
//     equals pi's in the source; labels of the kept entries are equal; no entry off the kept
//     paths is in the copy; the source is unchanged.
// Exit 0 when every check passed, 1 otherwise, 2 on a setup error. The last lines are counts.

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { findPi, installDeterminism, loadPi, useAgentDir } from "../lib/pi.mjs";
import { cost, listJsonl, message, mulberry32, text, toolCall, usage as usageOf } from "../lib/sessions.mjs";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
	const i = argv.indexOf(name);
	return i >= 0 ? argv[i + 1] : dflt;
};
const dirs = argv.flatMap((a, i) => (a === "--dir" ? [resolve(argv[i + 1])] : []));
const piDir = opt("--pi");
const bin = resolve(opt("--bin", process.env.PI_SESSION_BIN || "target/debug/pi-session"));
const seeds = opt("--seeds", "1,2,3,4").split(",").map(Number);
const perSeed = Number(opt("--sessions", "5"));
const maxNodes = Number(opt("--nodes", "Infinity"));
const verbose = argv.includes("--verbose");
const keep = argv.includes("--keep");

function setupError(msg) {
	console.error(`steer: setup error: ${msg}`);
	process.exit(2);
}
if (!piDir || !findPi(piDir)) setupError(`no pi package at --pi ${piDir}`);
if (!existsSync(bin)) setupError(`no pi-session binary at ${bin} (build it, or pass --bin)`);

// pi must never see a real agent folder.
const work = realpathSync(mkdtempSync(join(tmpdir(), "pi-session-steer-")));
useAgentDir(join(work, "agent"));
const root = join(work, "sessions");
mkdirSync(root, { recursive: true });
const { pkg, SessionManager } = await loadPi(piDir);
console.log(`steer: ${pkg.name} ${pkg.version} on node ${process.version}; sessions in ${work}`);

// ---------------------------------------------------------------- checks
const counts = { files: 0, slim: 0, slimBytesBefore: 0, slimBytesAfter: 0, noCompaction: 0, prune: 0, pruneLeaves: 0, checks: 0 };
const failures = [];
function check(name, ok, detail) {
	counts.checks++;
	if (ok) {
		if (verbose) console.log(`ok   ${name}`);
		return true;
	}
	failures.push(name);
	console.log(`FAIL ${name}${detail === undefined ? "" : `\n     ${String(detail).slice(0, 3000)}`}`);
	return false;
}
function same(name, got, want) {
	const ok = isDeepStrictEqual(got, want);
	return check(name, ok, ok ? undefined : `got  ${JSON.stringify(got)?.slice(0, 1500)}\n     want ${JSON.stringify(want)?.slice(0, 1500)}`);
}

// ---------------------------------------------------------------- pi's view
const plain = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v)));
function piContext(sm, leaf) {
	if (leaf !== undefined) sm.branch(leaf);
	const c = sm.buildSessionContext();
	return plain({ messages: c.messages, model: c.model ?? null, thinkingLevel: c.thinkingLevel ?? null });
}
function open(file) {
	return SessionManager.open(file, root);
}

// ---------------------------------------------------------------- our CLI
function ours(...args) {
	const r = spawnSync(bin, [...args, "--sessions-dir", root], { encoding: "utf8" });
	return { status: r.status, json: r.status === 0 ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

// ---------------------------------------------------------------- sessions written by this pi
// pi's ids and times come from the seed too (installDeterminism): the same seed writes the same files.
function generate(seed, n, dir) {
	const rand = mulberry32(seed * 7919 + 101);
	const pick = (a) => a[Math.floor(rand() * a.length)];
	const env = installDeterminism({ random: mulberry32(seed * 104729 + 103), start: Date.UTC(2026, 3, 1, 9, 0, 0) + seed * 3_600_000 });
	const tick = () => env.clock.advance(1000 + Math.floor(rand() * 4000));
	const models = [["anthropic", "claude-sonnet-4-5"], ["openai", "gpt-5"], ["google", "gemini-2.5-pro"]];
	let model = models[0];
	const usage = () => usageOf({ input: 1000 + Math.floor(rand() * 9000), output: 50 + Math.floor(rand() * 900), totalTokens: 0, cost: cost({ input: 0.01, output: 0.02, total: 0.03 }) });
	const has16 = typeof SessionManager.prototype.appendContextEdit === "function";
	for (let k = 0; k < n; k++) {
		const sm = SessionManager.create(`/work/project-${seed}`, dir);
		const steps = 30 + Math.floor(rand() * 50);
		for (let step = 0; step < steps; step++) {
			const r = rand();
			const path = sm.getBranch();
			const ids = path.map((e) => e.id);
			if (r < 0.45 || path.length < 4) {
				sm.appendMessage(message.user(`seed ${seed} session ${k} step ${step}: ${pick(["fix the bug", "add a test", "explain this", "refactor"])}`, tick()));
				const file = pick(["src/a.ts", "src/b.ts", "README.md"]);
				const tool = rand() < 0.6 ? toolCall(`call_${seed}_${k}_${step}`, pick(["edit", "write", "read", "bash"]), { path: file, command: "ls" }) : null;
				sm.appendMessage(
					message.assistant({ content: [text(`answer ${step}`), ...(tool ? [tool] : [])], api: "messages", provider: model[0], model: model[1], usage: usage(), stopReason: tool ? "toolUse" : "stop", timestamp: tick() }),
				);
				if (tool) sm.appendMessage(message.toolResult({ toolCallId: tool.id, toolName: tool.name, content: [text(`ok ${file}`)], timestamp: tick() }));
			} else if (r < 0.52) {
				model = pick(models);
				sm.appendModelChange(model[0], model[1]);
			} else if (r < 0.58) {
				sm.appendThinkingLevelChange(pick(["off", "low", "medium", "high"]));
			} else if (r < 0.68) {
				// a compaction: from a user message after the previous compaction, from any entry
				// (extension), or keeping nothing
				const lastC = ids.findLastIndex((_, i) => path[i].type === "compaction");
				const users = path.filter((e, i) => i > lastC && e.type === "message" && e.message.role === "user");
				const q = rand();
				const first = q < 0.6 && users.length ? pick(users).id : q < 0.8 ? pick(path.slice(lastC + 1).length ? path.slice(lastC + 1) : path).id : undefined;
				sm.appendCompaction(`summary at step ${step}`, first, 40_000 + step, { readFiles: [], modifiedFiles: [] }, q >= 0.6);
			} else if (r < 0.76) {
				sm.branch(pick(ids.slice(0, -1)));
			} else if (r < 0.8 && typeof sm.branchWithSummary === "function") {
				sm.branchWithSummary(pick(ids.slice(0, -1)), `went back at step ${step}`);
			} else if (r < 0.86) {
				sm.appendLabelChange(pick(ids), rand() < 0.8 ? `mark ${step}` : undefined);
			} else if (r < 0.89) {
				sm.appendCustomMessageEntry("note", `custom ${step}`, true);
			} else if (has16 && r < 0.93) {
				const editable = path.filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)));
				if (editable.length) sm.appendContextEdit(pick(editable).id, rand() < 0.3 ? null : { content: `edited at ${step}` });
			} else if (has16 && r < 0.96) {
				sm.appendUsage("compaction", model[0], model[1], usage());
			} else if (has16) {
				sm.appendMessage(message.system({ content: `system prompt v${step}`, timestamp: tick() }));
			} else {
				sm.appendSessionInfo(`session ${k} step ${step}`);
			}
		}
	}
	env.restore();
}

const files = [];
for (const seed of seeds) {
	const dir = join(root, `seed-${seed}`);
	mkdirSync(dir, { recursive: true });
	generate(seed, perSeed, dir);
	files.push(...listJsonl(dir));
}
for (const [n, d] of dirs.entries()) {
	const dest = join(root, `dir-${n}`);
	mkdirSync(dest, { recursive: true });
	for (const f of listJsonl(d)) {
		const target = join(dest, `${files.length}-${basename(f)}`);
		copyFileSync(f, target);
		files.push(target);
	}
}

// ---------------------------------------------------------------- the checks
const short = (p) => p.slice(root.length + 1);
const labelsOf = (sm, ids) => Object.fromEntries(ids.map((id) => [id, sm.getLabel(id) ?? null]));

for (const file of files) {
	const before = readFileSync(file);
	// Only version 3 files with a header are writable (pi would migrate older ones on open).
	let head = null;
	try {
		head = JSON.parse(before.toString("utf8").split("\n", 1)[0]);
	} catch {}
	if (head?.type !== "session" || head.version !== 3) continue;
	let src;
	try {
		src = open(file);
	} catch (e) {
		if (verbose) console.log(`skip ${short(file)}: pi cannot open it (${e.message})`);
		continue;
	}
	const entries = src.getEntries().filter((e) => typeof e.id === "string" && e.type !== "leaf");
	if (!entries.length) continue;
	counts.files++;
	const byId = new Map(entries.map((e) => [e.id, e]));
	const pathOf = (id) => {
		const p = [];
		for (let e = byId.get(id); e; e = e.parentId ? byId.get(e.parentId) : undefined) p.unshift(e);
		return p;
	};
	const children = new Set(entries.map((e) => e.parentId).filter(Boolean));
	const leaves = entries.filter((e) => !children.has(e.id)).map((e) => e.id);
	const compacted = entries.filter((e) => pathOf(e.id).some((p) => p.type === "compaction")).map((e) => e.id);
	const rand = mulberry32(counts.files * 31 + 7);
	const nodes = [...new Set([...leaves.filter((l) => compacted.includes(l)), ...compacted.filter(() => rand() < maxNodes / Math.max(1, compacted.length))])].slice(0, maxNodes);
	const srcLabels = labelsOf(src, entries.map((e) => e.id));

	// slim forks
	for (const id of nodes) {
		const want = piContext(src, id);
		const r = ours("fork", file, id, "--slim");
		if (!check(`slim ${short(file)} @${id}: written`, r.status === 0, r.stderr)) continue;
		counts.slim++;
		counts.slimBytesBefore += r.json.bytesBefore;
		counts.slimBytesAfter += r.json.bytesAfter;
		const sm = open(r.json.file);
		same(`slim ${short(file)} @${id}: pi's context of the new file`, piContext(sm), want);
		same(`slim ${short(file)} @${id}: header parentSession`, sm.getHeader().parentSession, realpathSync(file));
		const copiedIds = sm.getEntries().filter((e) => byId.has(e.id)).map((e) => e.id);
		same(`slim ${short(file)} @${id}: labels`, labelsOf(sm, copiedIds), Object.fromEntries(copiedIds.map((c) => [c, srcLabels[c]])));
		check(`slim ${short(file)} @${id}: smaller or equal`, r.json.bytesAfter <= r.json.bytesBefore + 4096);
		rmSync(r.json.file);
	}
	// no compaction on the path: exit 3, nothing written
	const plainNode = entries.find((e) => !compacted.includes(e.id));
	if (plainNode) {
		const n = listJsonl(root).length;
		const r = ours("fork", file, plainNode.id, "--slim");
		check(`slim ${short(file)} @${plainNode.id}: no compaction → exit 3`, r.status === 3 && /no compaction/.test(r.stderr) && listJsonl(root).length === n, `${r.status} ${r.stderr}`);
		counts.noCompaction++;
	}

	// pruned copies
	if (leaves.length >= 2) {
		const shuffled = [...leaves].sort(() => rand() - 0.5);
		for (const keepLeaves of [shuffled.slice(0, 1), shuffled.slice(0, 2), leaves]) {
			const r = ours("prune", file, "--keep", ...keepLeaves);
			if (!check(`prune ${short(file)} keep ${keepLeaves.length}: written`, r.status === 0, r.stderr)) continue;
			counts.prune++;
			const kept = new Set(keepLeaves.flatMap((l) => pathOf(l).map((e) => e.id)));
			const copy = open(r.json.file);
			const copyIds = copy.getEntries().filter((e) => byId.has(e.id)).map((e) => e.id);
			same(`prune ${short(file)} keep ${keepLeaves.length}: exactly the kept paths`, [...copyIds].sort(), [...kept].sort());
			same(`prune ${short(file)} keep ${keepLeaves.length}: labels`, labelsOf(copy, copyIds), Object.fromEntries(copyIds.map((c) => [c, srcLabels[c]])));
			for (const leaf of keepLeaves) {
				counts.pruneLeaves++;
				same(`prune ${short(file)} keep ${keepLeaves.length}: context at ${leaf}`, piContext(copy, leaf), piContext(src, leaf));
			}
			rmSync(r.json.file);
		}
	}
	check(`${short(file)}: source unchanged`, Buffer.compare(before, readFileSync(file)) === 0);
}

const ratio = counts.slimBytesBefore ? ((100 * counts.slimBytesAfter) / counts.slimBytesBefore).toFixed(1) : "-";
console.log(
	`steer (${pkg.name} ${pkg.version}): ${counts.files} files; ${counts.slim} slim forks equal in pi (size ${ratio}% of the source on average, by bytes); ` +
		`${counts.noCompaction} refusals without a compaction; ${counts.prune} pruned copies, ${counts.pruneLeaves} kept leaves equal in pi`,
);
console.log(`${counts.checks - failures.length} passed, ${failures.length} failed`);
if (!keep) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
process.exit(failures.length ? 1 : 0);

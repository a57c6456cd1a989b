#!/usr/bin/env node
// gen16.mjs — realistic sessions directories written by pi 1.x's OWN SessionManager API
// (pi 1.6.0, `@earendil-works/pi-coding-agent`, pinned in pi16/package.json). Needs Node >= 22.19.
//
//   node24 gen16.mjs <outDir> [--seed N] [--sessions K] [--pi-dir DIR] [--force]
//
// --pi-dir: the folder whose node_modules holds the 1.x package (default: ./pi16).
// Result: <outDir>/sessions/--<encoded cwd>--/<timestamp>_<uuid>.jsonl plus <outDir>/manifest.json.
//
// What 1.x adds and what these sessions exercise, all through pi's API:
//   - `system` messages (appendMessage with role "system": content, sections, toolsAdded/Removed);
//   - `context_edit` entries (appendContextEdit: a replacement {content} or null = drop), several
//     on one target (the latest wins), on one branch only (edits are branch-local);
//   - compactions with a `systemMessage` (pi folds the current system messages into it) and with
//     `usage`, and keep-nothing compactions (no firstKeptEntryId: pi writes the compaction's own id);
//   - `usage` entries (appendUsage), branch summaries with `usage` (fromId = the old leaf);
//   - forks (createBranchedSession re-links the path around the label entries it drops; forkFrom);
//   - names with newlines (pi writes spaces), null message content.
//
// Determinism: as gen.mjs, pi's randomness (crypto.randomUUID, crypto.getRandomValues) and clock
// are replaced by a seeded PRNG and a simulated clock (tests/lib/pi.mjs installDeterminism).

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Conversation, findPi, forkWithPi, installDeterminism, loadPi, useAgentDir } from "../lib/pi.mjs";
import { cost, listJsonl, message, mulberry32, touchToLastEntry, usage as usageOf } from "../lib/sessions.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const USAGE = "usage: node gen16.mjs <outDir> [--seed N] [--sessions K] [--pi-dir DIR] [--force]";

// ---------------------------------------------------------------- args
const argv = process.argv.slice(2);
let outDirArg;
let seed = 1;
let randomSessions = 4;
let force = false;
let piDir = process.env.PI16_DIR || join(HERE, "pi16");
for (let i = 0; i < argv.length; i++) {
	const a = argv[i];
	if (a === "--seed") seed = Number(argv[++i]);
	else if (a === "--sessions") randomSessions = Number(argv[++i]);
	else if (a === "--pi-dir") piDir = argv[++i];
	else if (a === "--force") force = true;
	else if (a === "-h" || a === "--help") {
		console.log(USAGE);
		process.exit(0);
	} else if (!outDirArg) outDirArg = a;
	else {
		console.error(`unexpected argument ${a}\n${USAGE}`);
		process.exit(2);
	}
}
if (!outDirArg || !Number.isInteger(seed) || !Number.isInteger(randomSessions) || randomSessions < 0) {
	console.error(USAGE);
	process.exit(2);
}
if (findPi(piDir)?.line !== 1) {
	console.error(`pi 1.x is not installed in ${piDir} (run scripts/setup all)`);
	process.exit(2);
}
const outDir = resolve(outDirArg);
if (existsSync(outDir) && readdirSync(outDir).length > 0) {
	if (!force) {
		console.error(`${outDir} is not empty (use --force to wipe its sessions/ and manifest.json)`);
		process.exit(2);
	}
	rmSync(join(outDir, "sessions"), { recursive: true, force: true });
	rmSync(join(outDir, "manifest.json"), { force: true });
}
mkdirSync(outDir, { recursive: true });

// ---------------------------------------------------------------- determinism, pi
const env = installDeterminism({ random: mulberry32(seed * 104729 + 1603), start: Date.UTC(2026, 8, 14, 9, 0, 0) + (seed % 89) * 3_600_000 });
const sessionsRoot = useAgentDir(outDir);
const { SessionManager, version: piVersion } = await loadPi(piDir);

// ---------------------------------------------------------------- the conversation
const MODELS = {
	anthropic: { api: "anthropic-messages", models: ["claude-sonnet-4-5", "claude-opus-4-5"], price: [3e-6, 15e-6, 0.3e-6, 3.75e-6] },
	openai: { api: "openai-responses", models: ["gpt-5.1-codex", "gpt-5.1"], price: [1.25e-6, 10e-6, 0.125e-6, 0] },
	google: { api: "google-generative-ai", models: ["gemini-2.5-pro"], price: [1.25e-6, 10e-6, 0.31e-6, 0] },
};
const USER_LINES = [
	"The login form accepts an empty password, can you fix it?",
	"Add a unit test for the date parser.",
	"Why does `npm test` hang on CI?",
	"Refactor the config loader to use zod.",
	"Let's try a different approach: keep the cache in memory.",
	"The build fails on Windows paths with backslashes.",
	"Summarise what we changed so far.",
	"Now make the CLI print JSON with --json.",
];
const ASSISTANT_LINES = [
	"I found the problem in the validation step and fixed it.",
	"Done. The test covers leap years and time zones.",
	"The hang comes from an open database handle; I close it in afterAll.",
	"I replaced the hand-written checks with a zod schema.",
	"Switched to an in-memory LRU cache with 500 entries.",
	"Paths are now normalised with path.posix before comparison.",
	"Added --json; the default output is unchanged.",
];
const TOOL_DEFS = {
	read: { name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
	bash: { name: "bash", description: "Run a shell command", parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } },
	edit: { name: "edit", description: "Edit a file", parameters: { type: "object", properties: { path: { type: "string" }, diff: { type: "string" } } } },
	grep: { name: "grep", description: "Search files", parameters: { type: "object", properties: { pattern: { type: "string" } } } },
};

const conv = new Conversation({
	rand: mulberry32(seed * 7919 + 1601),
	clock: env.clock,
	models: MODELS,
	userLines: USER_LINES,
	assistantLines: ASSISTANT_LINES,
	tools: ["read", "bash", "grep"],
	toolOutput: (name) => (name === "bash" ? "index.ts\nutil.ts\nsecret.env" : "export const API_KEY = 'sk-live-123';"),
	usage: () => usage(),
});
const { rand, randInt, pick } = conv;
function usage(provider = conv.model.provider) {
	const [pi, po, pcr, pcw] = MODELS[provider].price;
	const input = randInt(800, 40_000);
	const output = randInt(50, 2_000);
	const cacheRead = randInt(0, 30_000);
	const cacheWrite = rand() < 0.3 ? randInt(100, 5_000) : 0;
	return usageOf({ input, output, cacheRead, cacheWrite, cost: cost({ input: input * pi, output: output * po, cacheRead: cacheRead * pcr, cacheWrite: cacheWrite * pcw }) });
}
function systemMsg({ content = "", sections, add = [], remove = [] } = {}) {
	return message.system({
		content,
		sections,
		toolsAdded: add.length ? add.map((n) => TOOL_DEFS[n]) : undefined,
		toolsRemoved: remove.length ? remove.map((name) => ({ name })) : undefined,
		timestamp: Date.now(),
	});
}
/** Entries on the active path that appendContextEdit accepts. */
const editable = (sm) =>
	sm
		.getBranch()
		.filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)));
function replacementFor(e) {
	const role = e.type === "message" ? e.message.role : "custom";
	const r = rand();
	if (r < 0.35) return null;
	if (role === "user" || role === "custom") return { content: r < 0.7 ? "[redacted by the user]" : [{ type: "text", text: "[redacted]" }] };
	return { content: r < 0.7 ? "[output removed: it held a secret]" : [{ type: "text", text: "[trimmed]" }] };
}

// ---------------------------------------------------------------- bookkeeping
const manifest = { generator: "pi-oracle/gen16.mjs", piPackage: `@earendil-works/pi-coding-agent@${piVersion}`, seed, outDir, sessions: [] };
const rel = (p) => (p ? relative(outDir, p) : p);
function record(key, sm, extra = {}) {
	manifest.sessions.push({ key, cwd: sm.getCwd(), file: rel(sm.getSessionFile()), leafInMemory: sm.getLeafId(), entries: sm.getEntries().length, ...extra });
}
const CWD = {
	webapp: "/home/alice/projects/webapp",
	cli: "/home/alice/projects/cli-tool",
	pipeline: "/home/alice/work/data:pipeline",
	scratch: "/home/alice/scratch",
};

// ---------------------------------------------------------------- P1: context edits
{
	conv.model = { provider: "anthropic", model: "claude-sonnet-4-5" };
	const sm = SessionManager.create(CWD.webapp);
	sm.appendMessage(systemMsg({ content: "You are a careful coding agent.", add: ["read", "bash"] }));
	conv.setModel(sm, "anthropic", "claude-sonnet-4-5");
	sm.appendThinkingLevelChange("medium");
	const t1 = conv.turn(sm, { user: "Show me the config file.", tool: true });
	const t2 = conv.turn(sm, { tool: false });
	conv.think();
	sm.appendContextEdit(t1.toolResult, { content: "[output removed: it held a secret]" }); // string → text block
	sm.appendContextEdit(t2.assistant, null); // drop
	conv.think();
	sm.appendCustomMessageEntry("reminder", "Run the tests before committing.", true, { source: "ext" });
	const reminder = sm.getLeafId();
	const t3 = conv.turn(sm, { tool: true });
	sm.appendContextEdit(t1.user, { content: [{ type: "text", text: "Show me the config file (edited)." }] });
	sm.appendContextEdit(reminder, { content: "Run the tests." });
	sm.appendContextEdit(t1.toolResult, { content: [{ type: "text", text: "second edit wins" }] }); // later edit on one target
	sm.appendSessionInfo("Config\nsecret cleanup"); // newline → space
	const mainLeaf = sm.getLeafId();
	// A branch from before the edits does not see them (edits are branch-local).
	conv.think();
	sm.branch(t2.assistant);
	conv.turn(sm, { tool: false });
	sm.appendContextEdit(t1.assistant, null);
	record("P1-context-edits", sm, { ids: { t1, t2, t3, reminder, mainLeaf } });
}

// ---------------------------------------------------------------- P2: system messages and compactions
{
	conv.model = { provider: "openai", model: "gpt-5.1-codex" };
	const sm = SessionManager.create(CWD.cli);
	sm.appendMessage(systemMsg({ content: "You are pi.", sections: { env: "linux", date: "2026-09-14" }, add: ["read", "bash", "edit"] }));
	const T = [conv.turn(sm, { tool: true }), conv.turn(sm, {})];
	conv.think();
	sm.appendMessage(systemMsg({ sections: { date: "2026-09-15", env: null }, add: ["grep"], remove: ["edit"] }));
	T.push(conv.turn(sm, {}), conv.turn(sm, { tool: true }));
	conv.think();
	// A compaction keeping from T[1]: the system message after T[1] is in the kept range (dropped from context).
	const c1 = sm.appendCompaction("## Goal\nRewrite the CLI.\n## Done\nTurn 1 summarised.", T[1].user, 48_211, { readFiles: ["src/cli.ts"] }, false, usage());
	T.push(conv.turn(sm, {}));
	conv.think();
	sm.appendMessage(systemMsg({ content: "Be brief from now on." }));
	T.push(conv.turn(sm, {}));
	conv.think();
	// Keep-nothing compaction: no firstKeptEntryId → pi writes the compaction's own id.
	const c2 = sm.appendCompaction("## Everything so far\nAll turns summarised.", undefined, 71_004, undefined, false, usage());
	T.push(conv.turn(sm, { tool: true }));
	const mainLeaf = sm.getLeafId();
	// A compaction by an extension with no usage, on a branch.
	conv.think();
	sm.branch(T[3].assistant);
	T.push(conv.turn(sm, {}));
	conv.think();
	const c3 = sm.appendCompaction("Extension summary.", T[2].user, 55_000, { artifact: "index-v2" }, true);
	conv.turn(sm, {});
	record("P2-system-compactions", sm, { ids: { c1, c2, c3, mainLeaf } });
}

// ---------------------------------------------------------------- P3: usage entries, branch summaries with usage, null content
{
	conv.model = { provider: "google", model: "gemini-2.5-pro" };
	const sm = SessionManager.create(CWD.pipeline);
	const t1 = conv.turn(sm, { tool: true });
	conv.think();
	sm.appendUsage("cache_warm", "google", "gemini-2.5-pro", usage("google"));
	const t2 = conv.turn(sm, {});
	conv.think();
	sm.appendUsage("cache_warm", "anthropic", "claude-sonnet-4-5", usage("anthropic"), "extension override");
	const t3 = conv.turn(sm, { tool: true });
	conv.think();
	const bs = sm.branchWithSummary(t1.assistant, "Tried caching the parser output; abandoned.", { readFiles: ["src/parse.ts"], modifiedFiles: [] }, false, usage("google"));
	const t4 = conv.turn(sm, {});
	conv.think();
	sm.appendMessage({ role: "user", content: null, timestamp: Date.now() });
	conv.think();
	sm.appendMessage({ ...conv.assistantMsg("x"), content: null });
	conv.think();
	sm.branchWithSummary(null, "Everything summarised; starting again from scratch.", undefined, true, usage("google"));
	conv.turn(sm, {});
	record("P3-usage-summaries", sm, { ids: { t1, t2, t3, t4, bs } });
}

// ---------------------------------------------------------------- P4: forks through labels, edits and compactions
{
	conv.model = { provider: "anthropic", model: "claude-opus-4-5" };
	const A = SessionManager.create(CWD.webapp);
	A.appendMessage(systemMsg({ content: "You are pi.", add: ["read"] }));
	const a1 = conv.turn(A, { tool: true });
	A.appendLabelChange(a1.user, "start");
	const a2 = conv.turn(A, {}); // a2.user's parent is the label entry
	A.appendLabelChange(a2.assistant, "good");
	A.appendContextEdit(a1.toolResult, null);
	const a3 = conv.turn(A, {});
	conv.think();
	A.appendCompaction("Summary of a1..a2.", a2.user, 30_000, undefined, false, usage());
	const a4 = conv.turn(A, { tool: true });
	A.appendLabelChange(a4.assistant, "after-compaction");
	const a5 = conv.turn(A, {});
	const fileA = A.getSessionFile();
	record("P4a-fork-source", A, { ids: { a1, a2, a3, a4, a5 } });
	conv.think();
	const { file: fileB, sm: B } = forkWithPi(SessionManager, fileA, a5.assistant);
	conv.turn(B, {});
	B.appendContextEdit(a4.toolResult ?? a4.assistant, { content: "edited in the fork" });
	record("P4b-fork", B, { note: "createBranchedSession re-links a2.user around the dropped label entry" });
	conv.think();
	const C = SessionManager.forkFrom(fileB, CWD.scratch);
	conv.turn(C, {});
	record("P4c-forkFrom", C, {});
	conv.think();
	// A fork at a keep-nothing compaction's child.
	const D0 = SessionManager.open(fileA);
	D0.appendCompaction("Keep nothing.", undefined, 12_000);
	const d1 = conv.turn(D0, {});
	const fileD = D0.createBranchedSession(d1.assistant);
	const D = SessionManager.open(fileD);
	conv.turn(D, {});
	record("P4d-fork-keep-nothing", D, {});
}

// ---------------------------------------------------------------- random sessions
const cwdPool = Object.values(CWD);
for (let s = 0; s < randomSessions; s++) {
	const provider = pick(Object.keys(MODELS));
	conv.model = { provider, model: pick(MODELS[provider].models) };
	let sm = SessionManager.create(pick(cwdPool));
	const key = `R${s + 1}-random`;
	const ops = [];
	if (rand() < 0.7) sm.appendMessage(systemMsg({ content: "You are pi.", add: ["read", "bash"] }));
	conv.turn(sm, {});
	const nSteps = randInt(12, 30);
	for (let step = 0; step < nSteps; step++) {
		const r = rand();
		const entries = sm.getEntries();
		const path = sm.getBranch();
		if (r < 0.36) {
			conv.turn(sm, {});
			ops.push("turn");
		} else if (r < 0.44) {
			const target = pick(entries.filter((e) => e.type === "message" && e.message.role === "assistant"));
			if (target) {
				conv.think();
				sm.branch(target.id);
				conv.turn(sm, {});
				ops.push(`branch(${target.id})+turn`);
			}
		} else if (r < 0.49) {
			const target = pick(entries.filter((e) => e.type === "message" && e.message.role === "assistant"));
			if (target) {
				conv.think();
				sm.branchWithSummary(target.id, `Summary of the abandoned branch at step ${step}.`, undefined, false, rand() < 0.7 ? usage() : undefined);
				ops.push(`branchWithSummary(${target.id})`);
			}
		} else if (r < 0.6) {
			const target = pick(editable(sm));
			if (target) {
				conv.think();
				sm.appendContextEdit(target.id, replacementFor(target));
				ops.push(`context_edit(${target.id})`);
			}
		} else if (r < 0.65) {
			conv.think();
			sm.appendUsage("cache_warm", conv.model.provider, conv.model.model, usage(), rand() < 0.3 ? "note" : undefined);
			ops.push("usage");
		} else if (r < 0.7) {
			conv.think();
			sm.appendMessage(systemMsg(pick([{ content: "Keep answers short." }, { sections: { date: `day ${step}` } }, { add: ["grep"] }, { remove: ["bash"] }])));
			ops.push("system");
		} else if (r < 0.73) {
			const target = pick(entries.filter((e) => e.type === "message"));
			if (target) {
				sm.appendLabelChange(target.id, rand() < 0.25 ? undefined : pick(["checkpoint", "good", "wip"]));
				ops.push("label");
			}
		} else if (r < 0.76) {
			const p = pick(Object.keys(MODELS));
			conv.setModel(sm, p, pick(MODELS[p].models));
			ops.push("model_change");
		} else if (r < 0.78) {
			sm.appendThinkingLevelChange(pick(["off", "low", "high"]));
			ops.push("thinking_level_change");
		} else if (r < 0.8) {
			sm.appendSessionInfo(rand() < 0.2 ? "" : `Session ${s + 1}:\n${pick(["parser", "cache"])}`);
			ops.push("session_info");
		} else if (r < 0.92) {
			let start = 0;
			for (let i = path.length - 1; i >= 0; i--)
				if (path[i].type === "compaction") {
					const k = path.findIndex((e) => e.id === path[i].firstKeptEntryId);
					start = k >= 0 ? k : i + 1;
					break;
				}
			const users = path.slice(start).filter((e) => e.type === "message" && e.message.role === "user");
			if (users.length >= 2 && path.at(-1).type !== "compaction") {
				const keepNothing = rand() < 0.3;
				const keep = users[users.length - 1 - randInt(0, Math.min(2, users.length - 2))];
				conv.think();
				sm.appendCompaction(`Summary at step ${step}`, keepNothing ? undefined : keep.id, randInt(30_000, 150_000), undefined, false, rand() < 0.6 ? usage() : undefined);
				ops.push(keepNothing ? "compaction(keep nothing)" : `compaction(keep ${keep.id})`);
			}
		} else if (path.some((e) => e.type === "message" && e.message.role === "assistant")) {
			conv.think();
			const at = pick(path.map((e) => e.id));
			const fork = forkWithPi(SessionManager, sm.getSessionFile(), at);
			record(`${key}-before-fork`, sm, { ops: [...ops] });
			sm = fork.sm;
			conv.turn(sm, {});
			ops.length = 0;
			ops.push(`(forked at ${at})`, "turn");
		}
	}
	record(key, sm, { ops });
}

// ---------------------------------------------------------------- mtimes, manifest
env.restore();
const files = listJsonl(sessionsRoot);
const types = {};
for (const f of files) {
	for (const l of readFileSync(f, "utf8").split("\n").filter((l) => l.trim())) {
		const e = JSON.parse(l);
		const k = e.type === "message" ? `message:${e.message?.role}` : e.type;
		types[k] = (types[k] ?? 0) + 1;
	}
	touchToLastEntry(f);
}
manifest.files = files.length;
manifest.types = types;
writeFileSync(join(outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`wrote ${files.length} session files under ${sessionsRoot} (pi ${piVersion}, seed ${seed})`);

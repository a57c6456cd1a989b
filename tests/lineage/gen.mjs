#!/usr/bin/env node
// gen.mjs — a sessions folder of parents, their spawned sessions (subagent runs) and a fork,
// written by pi 1.6.0's OWN SessionManager (Node >= 22.19), with a manifest of what each child
// is to its parent.
//
//   node24 gen.mjs <outDir> [--seed N] [--pi-dir DIR]
//
// Result: <outDir>/agent/sessions/--home-dev-app--/*.jsonl (the sessions root pi computes),
// <outDir>/subagent-runs/*.jsonl (a child a tool wrote outside the root) and
// <outDir>/manifest.json: {root, outside, children: [{file, parent, kind, spawnedBy,
// spawnedByToolCall, guess, outside, forkPoint}]} with absolute paths.
//
// The shapes, all through pi's API (SessionManager.create(cwd, dir, { parentSession, id }) is what
// pi-subagents and newSession({ parentSession }) write):
//   * P1 spawns `scout` (one tool call; the result names the child's file by path), which itself
//     spawns `reader` (named by session id in the tool call's arguments: the id is chosen first,
//     as `SessionManager.create(..., { id })` allows);
//   * P1 then spawns three subagents from ONE assistant message (three tool calls): one named by
//     id in its call's arguments, one by id in its result's text, one by path in its result's
//     `details`; each must find its own tool call;
//   * P1 spawns a child that no call or result names (found by time: a guess);
//   * P2 spawns a child into a folder outside the sessions root and names its path in the result;
//   * a fork of P1 made with createBranchedSession, beside them (the control: a fork, not a spawn).
//
// Determinism: pi's ids and clock are seeded (tests/lib/pi.mjs), so a seed writes the same files.

import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { findPi, forkWithPi, installDeterminism, loadPi, useAgentDir } from "../lib/pi.mjs";
import { cost, message, mulberry32, text, toolCall, usage as usageOf, uuidV4, fillRandom } from "../lib/sessions.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const USAGE = "usage: node24 gen.mjs <outDir> [--seed N] [--pi-dir DIR]";
const argv = process.argv.slice(2);
let outArg;
let seed = 1;
let piDir = process.env.PI16_DIR || join(HERE, "../pi-oracle/pi16");
for (let i = 0; i < argv.length; i++) {
	if (argv[i] === "--seed") seed = Number(argv[++i]);
	else if (argv[i] === "--pi-dir") piDir = argv[++i];
	else if (!outArg) outArg = argv[i];
	else {
		console.error(USAGE);
		process.exit(2);
	}
}
if (!outArg || !Number.isInteger(seed)) {
	console.error(USAGE);
	process.exit(2);
}
if (findPi(piDir)?.line !== 1) {
	console.error(`gen.mjs: pi 1.x is not installed in ${piDir}`);
	process.exit(2);
}
const out = resolve(outArg);
if (existsSync(out) && readdirSync(out).length) {
	console.error(`gen.mjs: ${out} is not empty`);
	process.exit(2);
}
mkdirSync(out, { recursive: true });

const env = installDeterminism({ random: mulberry32(seed * 7877 + 11), start: Date.UTC(2026, 9, 5, 8, 0, 0) });
const root = useAgentDir(join(out, "agent"));
const outsideDir = join(out, "subagent-runs");
const { SessionManager, version } = await loadPi(piDir);
const rand = mulberry32(seed * 31 + 7);
const randInt = (a, b) => a + Math.floor(rand() * (b - a + 1));
const cwd = "/home/dev/app";
const clock = env.clock;
const pause = (a = 500, b = 20_000) => clock.advance(randInt(a, b));

// ---------------------------------------------------------------- messages in pi's shapes
const PRICE = [3e-6, 15e-6, 0.3e-6, 3.75e-6];
function usage() {
	const input = randInt(500, 30_000);
	const output = randInt(40, 1_500);
	const cacheRead = randInt(0, 20_000);
	const cacheWrite = rand() < 0.3 ? randInt(100, 4_000) : 0;
	return usageOf({ input, output, cacheRead, cacheWrite, cost: cost({ input: input * PRICE[0], output: output * PRICE[1], cacheRead: cacheRead * PRICE[2], cacheWrite: cacheWrite * PRICE[3] }) });
}
const callId = () => `toolu_${Math.floor(rand() * 1e12).toString(36)}`;
const assistant = (content, stopReason = "stop") =>
	message.assistant({ content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(), stopReason, timestamp: Date.now() });
const user = (t) => message.user(t, Date.now());
const result = (call, t, details) => ({ ...message.toolResult({ toolCallId: call.id, toolName: call.name, content: [text(t)], timestamp: Date.now() }), ...(details ? { details } : {}) });
/** A session id chosen before the session exists (pi's newSession accepts one). */
const newId = () => uuidV4(fillRandom(rand, new Uint8Array(16)));

/** A subagent's own run: its task, one tool round trip, its answer. */
function runChild(sm, task) {
	sm.appendMessage(user(task));
	pause();
	const c = toolCall(callId(), "read", { path: "src/index.ts" });
	sm.appendMessage(assistant([c], "toolUse"));
	pause(100, 2_000);
	sm.appendMessage(result(c, "export function main() {}"));
	pause();
	sm.appendMessage(assistant([text(`Done: ${task.toLowerCase()}`)]));
	return sm.getSessionFile();
}

const children = [];
const dirOf = (sm) => dirname(sm.getSessionFile());

// ---------------------------------------------------------------- P1: spawns, nested, parallel, unnamed
const p1 = SessionManager.create(cwd);
const p1File = p1.getSessionFile();
p1.appendMessage(user("Find where the login form validates the password, then fix it."));
pause();
// One tool call; the result names the child by path.
{
	const call = toolCall(callId(), "subagent", { agent: "scout", task: "Find the password validation" });
	const at = p1.appendMessage(assistant([text("I'll send a scout."), call], "toolUse"));
	pause(200, 1_000);
	const scout = SessionManager.create(cwd, dirOf(p1), { parentSession: p1File });
	scout.appendMessage(user("Find the password validation"));
	pause();
	// The scout spawns a reader, naming it by session id in the call's arguments.
	const readerId = newId();
	const rcall = toolCall(callId(), "subagent", { agent: "reader", sessionId: readerId, task: "Read src/login.ts" });
	const rat = scout.appendMessage(assistant([rcall], "toolUse"));
	pause(200, 1_000);
	const reader = SessionManager.create(cwd, dirOf(p1), { parentSession: scout.getSessionFile(), id: readerId });
	const readerFile = runChild(reader, "Read src/login.ts");
	pause();
	scout.appendMessage(result(rcall, "The reader reports: validate() skips empty strings."));
	pause();
	scout.appendMessage(assistant([text("validate() in src/login.ts skips empty strings.")]));
	const scoutFile = scout.getSessionFile();
	children.push({ file: readerFile, parent: scoutFile, kind: "spawn", spawnedBy: rat, spawnedByToolCall: rcall.id, guess: false, how: "by id in the call's arguments (nested)" });
	pause();
	p1.appendMessage(result(call, `Subagent scout finished.\nSession: ${scoutFile}\nvalidate() in src/login.ts skips empty strings.`));
	children.push({ file: scoutFile, parent: p1File, kind: "spawn", spawnedBy: at, spawnedByToolCall: call.id, guess: false, how: "by path in the result's text" });
	pause();
}
const forkAt = p1.appendMessage(assistant([text("The validation skips empty strings; I'll fix it and add tests in parallel.")]));
pause();
p1.appendMessage(user("Go ahead, and run three reviewers on it."));
pause();
// Three spawns from one assistant message.
{
	const ids = [newId(), newId(), newId()];
	const calls = [
		toolCall(callId(), "subagent", { agent: "reviewer", sessionId: ids[0], task: "Review the fix" }),
		toolCall(callId(), "subagent", { agent: "tester", task: "Write tests for empty passwords" }),
		toolCall(callId(), "subagent", { agent: "docs", task: "Update the changelog" }),
	];
	const at = p1.appendMessage(assistant([text("Starting three subagents."), ...calls], "toolUse"));
	pause(200, 1_000);
	const files = calls.map((c, k) => {
		const sm = SessionManager.create(cwd, dirOf(p1), { parentSession: p1File, id: ids[k] });
		pause(50, 300);
		return runChild(sm, c.arguments.task);
	});
	pause();
	p1.appendMessage(result(calls[0], "Review: looks right."));
	p1.appendMessage(result(calls[1], `Tests written (subagent session ${ids[1]}).`));
	p1.appendMessage(result(calls[2], "Changelog updated.", { sessionFile: files[2], agent: "docs" }));
	const how = ["by id in the call's arguments (one of three calls)", "by id in the result's text (one of three)", "by path in the result's details (one of three)"];
	files.forEach((file, k) => children.push({ file, parent: p1File, kind: "spawn", spawnedBy: at, spawnedByToolCall: calls[k].id, guess: false, how: how[k] }));
	pause();
	p1.appendMessage(assistant([text("All three are done.")]));
}
pause();
// A spawn that no call or result names: found by time.
{
	p1.appendMessage(user("One more check, please."));
	pause();
	const call = toolCall(callId(), "subagent", { agent: "checker", task: "Check the build" });
	const at = p1.appendMessage(assistant([call], "toolUse"));
	pause(200, 1_000);
	const file = runChild(SessionManager.create(cwd, dirOf(p1), { parentSession: p1File }), "Check the build");
	pause();
	p1.appendMessage(result(call, "The build passes."));
	children.push({ file, parent: p1File, kind: "spawn", spawnedBy: at, spawnedByToolCall: null, guess: true, how: "named nowhere: the last parent entry before it began" });
	pause();
	p1.appendMessage(assistant([text("Build checked.")]));
}
pause();

// ---------------------------------------------------------------- P2: a child outside the root
const p2 = SessionManager.create(cwd);
const p2File = p2.getSessionFile();
p2.appendMessage(user("Profile the startup time."));
pause();
{
	const call = toolCall(callId(), "subagent", { agent: "profiler", task: "Profile startup" });
	const at = p2.appendMessage(assistant([call], "toolUse"));
	pause(200, 1_000);
	const file = runChild(SessionManager.create(cwd, outsideDir, { parentSession: p2File }), "Profile startup");
	pause();
	p2.appendMessage(result(call, `Profile written. Subagent session: ${file}`));
	children.push({ file, parent: p2File, kind: "spawn", spawnedBy: at, spawnedByToolCall: call.id, guess: false, outside: true, how: "outside the root, by path in the result's text" });
	pause();
	p2.appendMessage(assistant([text("Startup takes 1.2 s; most of it is loading the config.")]));
}
pause();

// ---------------------------------------------------------------- a fork of P1 (the control)
const fork = forkWithPi(SessionManager, p1File, forkAt);
pause();
fork.sm.appendMessage(user("Instead, let's rewrite the validation with zod."));
pause();
fork.sm.appendMessage(assistant([text("Rewritten with a zod schema.")]));
children.push({ file: fork.file, parent: p1File, kind: "fork", forkPoint: forkAt, how: "createBranchedSession" });
env.restore();

const manifest = { pi: version, seed, root, outside: outsideDir, parents: [p1File, p2File], children };
writeFileSync(join(out, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`gen.mjs: pi ${version}, seed ${seed}: ${children.length} children of ${manifest.parents.length} parents in ${root}`);

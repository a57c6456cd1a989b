// The adapter for suites that write sessions through the real pi's SessionManager: the writes stay
// pi's own; what is shared is finding and loading a pinned pi, a deterministic environment for it
// (seeded random ids, a simulated clock), the agent folder layout, forks the way pi's /fork makes
// them, and a seeded conversation (turns of user, tool and assistant messages in pi's shapes).
//
//   const env = installDeterminism({ random: mulberry32(seed), start: Date.UTC(2026, 0, 1) });
//   const sessionsRoot = useAgentDir(outDir);          // before pi makes its first session
//   const { SessionManager } = await loadPi(piHome);
//   ... SessionManager.create(cwd) ... env.restore();

import { existsSync, readFileSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SimClock, fillRandom, message, randomTools, text, thinking, toolCall, uuidV4 } from "./sessions.mjs";

// ---------------------------------------------------------------- finding and loading pi

const PACKAGES = ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"];

/**
 * The pi package in `dir`, which is either the package folder itself or a folder whose
 * node_modules holds one (tests/pi-oracle for 0.73.1, tests/pi-oracle/pi16 for 1.6.0). `line` is
 * the package line: 0 for @mariozechner (0.73.1 and older), 1 for @earendil-works (1.x).
 * Undefined when there is none.
 */
export function findPi(dir) {
	const home = resolve(dir);
	const pkgDir = [home, ...PACKAGES.map((name) => join(home, "node_modules", name))].find((d) => {
		const f = join(d, "package.json");
		return existsSync(f) && PACKAGES.includes(JSON.parse(readFileSync(f, "utf8")).name);
	});
	if (!pkgDir) return undefined;
	const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
	return { dir: pkgDir, pkg, name: pkg.name, version: pkg.version, line: pkg.name === "@earendil-works/pi-coding-agent" ? 1 : 0 };
}

/** findPi(dir) and its loaded module: `{dir, pkg, name, version, line, SessionManager, module}`. Throws when there is no pi. */
export async function loadPi(dir) {
	const found = findPi(dir);
	if (!found) throw new Error(`no pi package in ${dir} (run scripts/setup all)`);
	const module = await import(pathToFileURL(join(found.dir, "dist/index.js")).href);
	return { ...found, SessionManager: module.SessionManager, module };
}

/**
 * Points pi at `agentDir` (PI_CODING_AGENT_DIR; PI_CODING_AGENT_SESSION_DIR removed), so that pi
 * never sees a real agent folder and computes its session folders itself:
 * `<agentDir>/sessions/--<encoded cwd>--/`. Returns that sessions root.
 */
export function useAgentDir(agentDir) {
	process.env.PI_CODING_AGENT_DIR = agentDir;
	delete process.env.PI_CODING_AGENT_SESSION_DIR;
	return join(agentDir, "sessions");
}

// ---------------------------------------------------------------- determinism

const nodeCrypto = createRequire(import.meta.url)("node:crypto");

/**
 * Makes pi deterministic in this process: pi takes entry ids from crypto.randomUUID(), session
 * ids from uuid v7 (Date.now and crypto.getRandomValues) and timestamps from `new Date()`. All
 * three are replaced: the bytes come from `random` (a seeded PRNG), the time from a SimClock that
 * starts at `start` (ms); every `new Date()` without arguments takes the clock's time and moves it
 * on 1 ms, `Date.now()` reads it. Works before or after pi is imported (pi's named import of
 * randomUUID is a live binding, updated here). Returns `{clock, restore()}`.
 */
export function installDeterminism({ random, start, clock = new SimClock(start) }) {
	const saved = { randomUUID: nodeCrypto.randomUUID, getRandomValues: Object.getOwnPropertyDescriptor(globalThis.crypto, "getRandomValues"), Date: globalThis.Date };
	const fill = (arr) => fillRandom(random, arr);
	nodeCrypto.randomUUID = () => uuidV4(fill(new Uint8Array(16)));
	syncBuiltinESMExports();
	Object.defineProperty(globalThis.crypto, "getRandomValues", { value: fill, configurable: true, writable: true });
	const RealDate = saved.Date;
	class SimDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(clock.stamp());
			else super(...args);
		}
		static now() {
			return clock.now();
		}
	}
	globalThis.Date = SimDate;
	return {
		clock,
		restore() {
			globalThis.Date = RealDate;
			nodeCrypto.randomUUID = saved.randomUUID;
			syncBuiltinESMExports();
			if (saved.getRandomValues) Object.defineProperty(globalThis.crypto, "getRandomValues", saved.getRandomValues);
			else delete globalThis.crypto.getRandomValues;
		},
	};
}

// ---------------------------------------------------------------- forks through pi

/** pi's /fork: open `file`, createBranchedSession(at) (a new file in the same folder), open that. Returns `{file, sm}`. */
export function forkWithPi(SessionManager, file, at) {
	const forked = SessionManager.open(file).createBranchedSession(at);
	return { file: forked, sm: SessionManager.open(forked) };
}

// ---------------------------------------------------------------- a seeded conversation

/**
 * Turns of a conversation appended through a pi SessionManager, every choice from the scenario's
 * random source `rand` and every pause on `clock` (the one installDeterminism gave pi):
 *   models:         {provider: {api, models: [...]}}
 *   userLines, assistantLines: what the user and the assistant say when a turn does not say it
 *   tools:          the tools an assistant calls; toolOutput(name): what the call returns
 *   usage():        an assistant message's usage (may read `this.model`)
 * `model` is the current {provider, model} that assistant messages carry.
 */
export class Conversation {
	constructor({ rand, clock, models, userLines, assistantLines, tools, toolOutput, usage }) {
		Object.assign(this, randomTools(rand));
		Object.assign(this, { clock, models, userLines, assistantLines, tools, toolOutput, usage });
		this.model = { provider: Object.keys(models)[0], model: Object.values(models)[0].models[0] };
	}
	/** A human or a model taking its time: 4 s to 2 min. */
	think() {
		this.clock.advance(this.randInt(4_000, 120_000));
	}
	userMsg(content) {
		return message.user(content, Date.now());
	}
	assistantMsg(say, { call, think } = {}) {
		const content = [];
		if (think) content.push(thinking("Let me look at the relevant files first."));
		if (say) content.push(text(say));
		if (call) content.push(toolCall(`call_${Math.floor(this.rand() * 1e9).toString(36)}`, call.name, call.args));
		const { provider, model } = this.model;
		return message.assistant({ content, api: this.models[provider].api, provider, model, usage: this.usage(), stopReason: call ? "toolUse" : "stop", timestamp: Date.now() });
	}
	toolResultMsg(call, output) {
		return message.toolResult({ toolCallId: call.id, toolName: call.name, content: [text(output)], timestamp: Date.now() });
	}
	/** One user→assistant turn, with a tool round-trip when `tool`. Returns the ids {user, toolCall?, toolResult?, assistant}. */
	turn(sm, { user, tool = this.rand() < 0.5, thinking: think = this.rand() < 0.3 } = {}) {
		const ids = {};
		this.think();
		ids.user = sm.appendMessage(this.userMsg(user ?? this.pick(this.userLines)));
		this.think();
		if (tool) {
			const name = this.pick(this.tools);
			const a = this.assistantMsg("", { call: { name, args: name === "bash" ? { command: "ls src" } : { path: "src/index.ts" } }, think });
			ids.toolCall = sm.appendMessage(a);
			this.clock.advance(this.randInt(200, 3_000));
			ids.toolResult = sm.appendMessage(this.toolResultMsg(a.content.at(-1), this.toolOutput(name)));
			this.think();
		}
		ids.assistant = sm.appendMessage(this.assistantMsg(this.pick(this.assistantLines), { think: think && !tool }));
		return ids;
	}
	/** A model change after a pause of 1 to 20 s; later assistant messages carry the model. */
	setModel(sm, provider, model) {
		this.clock.advance(this.randInt(1_000, 20_000));
		this.model = { provider, model };
		return sm.appendModelChange(provider, model);
	}
}

// The session builder shared by the test suites that write pi session files: the shapes pi
// writes (the header, each kind of entry, the messages inside them) with pi's own field order,
// pi's file and folder naming, a deterministic clock and id source, and a builder for whole
// hand-written sessions (branches, forks, damaged lines).
//
// The field orders are those of pi's SessionManager (dist/core/session-manager.js) in
// @mariozechner/pi-coding-agent 0.73.1 and @earendil-works/pi-coding-agent 1.6.0; 1.x adds fields
// after 0.73.1's (compaction: usage, systemMessage; branch_summary: usage), so one order serves
// both. Keys whose value is undefined are left out, as JSON.stringify leaves them out of pi's lines:
// a built object deep-equals the line pi reads back. Suites that must write through the real pi
// use tests/lib/pi.mjs, which installs this module's clock and random source under pi.
//
// Nothing here knows a machine path: a parentSession is whatever the caller passes, made at test
// time (committed fixtures hold no absolute path).

import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

// ---------------------------------------------------------------- determinism

/** A small seedable PRNG: a function returning floats in [0, 1). */
export function mulberry32(a) {
	return () => {
		a = (a + 0x6d2b79f5) | 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Scenario helpers over one random source: rand(), randInt(lo, hi) (inclusive), pick(array). */
export function randomTools(rand) {
	return {
		rand,
		randInt: (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1)),
		pick: (arr) => arr[Math.floor(rand() * arr.length)],
	};
}

/** Fills `arr` with bytes from `rand` (the shape of crypto.getRandomValues). */
export function fillRandom(rand, arr) {
	for (let i = 0; i < arr.length; i++) arr[i] = Math.floor(rand() * 256);
	return arr;
}

/** A version 4 UUID from 16 bytes (as crypto.randomUUID formats one). */
export function uuidV4(bytes) {
	const b = Uint8Array.from(bytes);
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * A simulated clock in milliseconds. `stamp()` is what pi sees as `new Date()`: the current time,
 * after which the clock moves on 1 ms, so every entry pi stamps gets its own millisecond; `now()`
 * is `Date.now()` (no move). `advance(ms)` moves it (backwards too, for clock-skew scenarios).
 */
export class SimClock {
	constructor(t) {
		this.t = t;
	}
	now() {
		return this.t;
	}
	stamp() {
		return this.t++;
	}
	advance(ms) {
		this.t += ms;
		return this.t;
	}
	/** Moves `ms` on and returns the new time as an ISO string. */
	next(ms) {
		return new Date(this.advance(ms)).toISOString();
	}
}

/** Entry ids from a counter: `prefix` then the count in hex, `width` characters in all (pi's are 8). */
export class CounterIds {
	constructor(prefix = "", width = 8) {
		this.prefix = prefix;
		this.width = width;
		this.n = 0;
	}
	next() {
		return `${this.prefix}${(++this.n).toString(16).padStart(this.width - this.prefix.length, "0")}`;
	}
}

// ---------------------------------------------------------------- naming

/** pi's file name stamp: the ISO time with ":" and "." as "-". */
export const fileStamp = (iso) => iso.replace(/[:.]/g, "-");
/** pi's session file name: `<stamp>_<session id>.jsonl`. */
export const sessionFileName = (iso, id) => `${fileStamp(iso)}_${id}.jsonl`;
/** pi's folder for a cwd under the sessions root: `--` + the path with / \ : as - (one leading separator dropped) + `--`. */
export const cwdFolder = (cwd) => `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;

// ---------------------------------------------------------------- lines

/** `obj` without its undefined values, in the same key order. */
function defined(obj) {
	const out = {};
	for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
	return out;
}

/** The version 3 header pi writes as a session file's first line. */
export const header = ({ id, timestamp, cwd, parentSession, version = 3 }) => defined({ type: "session", version, id, timestamp, cwd, parentSession });

/**
 * A line in the common order `type, id, parentId, timestamp, ...fields` (that of most of pi's
 * entries), with `fields` as given: for hand-written edge cases that need shapes pi never writes.
 */
export const line = (type, { id, parentId, timestamp }, fields = {}) => ({ type, id, parentId, timestamp, ...fields });

/**
 * Entry builders, one per kind pi writes, in pi's field order. `at` is `{id, parentId, timestamp}`.
 * (pi's custom and custom_message entries put their own fields before the id.)
 */
export const entry = {
	message: (at, message) => line("message", at, { message }),
	thinkingLevelChange: (at, thinkingLevel) => line("thinking_level_change", at, { thinkingLevel }),
	modelChange: (at, provider, modelId) => line("model_change", at, { provider, modelId }),
	compaction: (at, { summary, firstKeptEntryId, tokensBefore, details, usage, fromHook, systemMessage }) =>
		line("compaction", at, defined({ summary, firstKeptEntryId, tokensBefore, details, usage, fromHook, systemMessage })),
	branchSummary: (at, { fromId, summary, details, usage, fromHook }) => line("branch_summary", at, defined({ fromId, summary, details, usage, fromHook })),
	label: (at, targetId, label) => line("label", at, defined({ targetId, label })),
	sessionInfo: (at, name) => line("session_info", at, { name }),
	custom: ({ id, parentId, timestamp }, customType, data) => defined({ type: "custom", customType, data, id, parentId, timestamp }),
	customMessage: ({ id, parentId, timestamp }, { customType, content, display, details }) =>
		defined({ type: "custom_message", customType, content, display, details, id, parentId, timestamp }),
	// pi 1.x
	contextEdit: (at, targetId, replacement) => line("context_edit", at, { targetId, replacement }),
	usage: (at, { kind, provider, model, usage, note }) => line("usage", at, defined({ kind, provider, model, usage, note })),
};

// ---------------------------------------------------------------- messages (inside message entries)

export const text = (t) => ({ type: "text", text: t });
export const thinking = (t) => ({ type: "thinking", thinking: t });
export const toolCall = (id, name, args) => ({ type: "toolCall", id, name, arguments: args });

/** A cost in pi's order; `total` defaults to the sum (input + output + cacheRead + cacheWrite). */
export const cost = ({ input = 0, output = 0, cacheRead = 0, cacheWrite = 0, total = input + output + cacheRead + cacheWrite } = {}) => ({ input, output, cacheRead, cacheWrite, total });

/** A usage in pi's order; `totalTokens` defaults to the sum, `cost` to zero. */
export const usage = ({ input, output, cacheRead = 0, cacheWrite = 0, totalTokens = input + output + cacheRead + cacheWrite, cost: c = cost() }) => ({
	input,
	output,
	cacheRead,
	cacheWrite,
	totalTokens,
	cost: c,
});

export const message = {
	user: (content, timestamp) => ({ role: "user", content, timestamp }),
	assistant: ({ content, api, provider, model, usage: u, stopReason = "stop", timestamp }) => defined({ role: "assistant", content, api, provider, model, usage: u, stopReason, timestamp }),
	toolResult: ({ toolCallId, toolName, content, isError = false, timestamp }) => ({ role: "toolResult", toolCallId, toolName, content, isError, timestamp }),
	bashExecution: ({ command, output, exitCode, cancelled = false, truncated = false, excludeFromContext, timestamp }) =>
		defined({ role: "bashExecution", command, output, exitCode, cancelled, truncated, excludeFromContext, timestamp }),
	custom: ({ customType, content, display, timestamp }) => ({ role: "custom", customType, content, display, timestamp }),
	// pi 1.x
	system: ({ content, sections, toolsAdded, toolsRemoved, timestamp }) => defined({ role: "system", content, sections, toolsAdded, toolsRemoved, timestamp }),
};

// ---------------------------------------------------------------- files

/** The text of a JSONL file: objects as JSON, strings as they are (damaged or odd lines). */
export function jsonlText(lines, { eol = "\n", finalNewline = true } = {}) {
	if (!lines.length) return "";
	const body = lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join(eol);
	return finalNewline ? body + eol : body;
}

/** Every `.jsonl` file under `dir` (not those whose name starts with "."), sorted by path. */
export function listJsonl(dir) {
	const out = [];
	if (!existsSync(dir)) return out;
	for (const name of readdirSync(dir)) {
		const p = join(dir, name);
		if (statSync(p).isDirectory()) out.push(...listJsonl(p));
		else if (name.endsWith(".jsonl") && !name.startsWith(".")) out.push(p);
	}
	return out.sort();
}

/** Sets a session file's mtime to its last line's timestamp (the header's when it has no entry), as if pi had just written it. */
export function touchToLastEntry(file) {
	const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim());
	const t = new Date(JSON.parse(lines.at(-1)).timestamp ?? JSON.parse(lines[0]).timestamp);
	utimesSync(file, t, t);
}

// ---------------------------------------------------------------- whole sessions

/**
 * The smallest session pi writes: a header and one user message (entry `entryId`, stamped
 * `entryTime`, by default the session's `created`; the message's own timestamp `messageTime`, by
 * default the same instant in ms). Written to `file`, or to pi's name for it in `dir`. Returns the path.
 */
export function writeSmallSession({ dir, file, cwd, id, created, entryId, entryTime = created, content, messageTime = Date.parse(entryTime) }) {
	const path = file ?? join(dir, sessionFileName(created, id));
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, jsonlText([header({ id, timestamp: created, cwd }), entry.message({ id: entryId, parentId: null, timestamp: entryTime }, message.user(content, messageTime))]));
	return path;
}

/**
 * A hand-written session: its header, then entries appended like pi appends them (each a child of
 * the leaf unless `parent` says otherwise), then `write()`. Ids come from `ids` (an object with
 * `next()`; by default a counter), times from `clock` (a SimClock): every entry moves it `step` ms
 * on; a message's own timestamp is the time before that step (made, then appended).
 *
 *   const s = new SessionBuilder({ dir, cwd, id, clock, created: clock.next(60_000) });
 *   const u = s.user("hello");
 *   s.assistant([text("hi")], { parent: u });
 *   s.write();
 */
export class SessionBuilder {
	constructor({ dir, cwd, id, created, parentSession, clock = new SimClock(Date.parse("2026-01-01T00:00:00.000Z")), step = 1000, ids = new CounterIds() }) {
		this.dir = dir;
		this.clock = clock;
		this.step = step;
		this.ids = ids;
		this.header = header({ id, timestamp: created ?? clock.next(step), cwd, parentSession });
		this.lines = [this.header];
		this.leaf = null;
		this.byId = new Map();
	}
	/** Where `write()` puts the file: pi's name for it in `dir`. */
	get file() {
		return join(this.dir, sessionFileName(this.header.timestamp, this.header.id));
	}
	/** The next entry's `{id, parentId, timestamp}`: a new id, the clock moved on by `step`. */
	at(parent = this.leaf) {
		return { id: this.ids.next(), parentId: parent ?? null, timestamp: new Date(this.clock.advance(this.step)).toISOString() };
	}
	/** Appends an entry; moves the leaf to it. Returns its id. */
	push(e) {
		this.lines.push(e);
		this.byId.set(e.id, e);
		this.leaf = e.id;
		return e.id;
	}
	/** A line that is not an entry (damage, odd JSON): written as given, the leaf stays. */
	raw(text) {
		this.lines.push(text);
	}
	/** Moves the leaf without writing anything (pi's branch(id); null: before the first entry). */
	branch(id) {
		this.leaf = id;
	}
	/** A message entry whose message is `make(ms)`: the message is made now (ms), its entry stamped `step` later. */
	message(make, { parent } = {}) {
		const ms = this.clock.now();
		return this.push(entry.message(this.at(parent), make(ms)));
	}
	user(content, opts) {
		return this.message((ms) => message.user(content, ms), opts);
	}
	/** An assistant message; `content` is a string (one text block) or an array of blocks. */
	assistant(content, { parent, api = "anthropic-messages", provider = "anthropic", model = "claude-sonnet-4-5", usage: u, stopReason } = {}) {
		const blocks = typeof content === "string" ? [text(content)] : content;
		return this.message(
			(ms) => message.assistant({ content: blocks, api, provider, model, usage: u, stopReason: stopReason ?? (blocks.some((b) => b.type === "toolCall") ? "toolUse" : "stop"), timestamp: ms }),
			{ parent },
		);
	}
	toolResult(toolCallId, toolName, content, { parent, isError = false } = {}) {
		return this.message((ms) => message.toolResult({ toolCallId, toolName, content: typeof content === "string" ? [text(content)] : content, isError, timestamp: ms }), { parent });
	}
	system(content, { parent, ...rest } = {}) {
		return this.message((ms) => message.system({ content, ...rest, timestamp: ms }), { parent });
	}
	compaction(fields, { parent } = {}) {
		return this.push(entry.compaction(this.at(parent), fields));
	}
	branchSummary(fields, { parent } = {}) {
		return this.push(entry.branchSummary(this.at(parent), fields));
	}
	label(targetId, label, { parent } = {}) {
		return this.push(entry.label(this.at(parent), targetId, label));
	}
	sessionInfo(name, { parent } = {}) {
		return this.push(entry.sessionInfo(this.at(parent), name));
	}
	modelChange(provider, modelId, { parent } = {}) {
		return this.push(entry.modelChange(this.at(parent), provider, modelId));
	}
	thinkingLevelChange(level, { parent } = {}) {
		return this.push(entry.thinkingLevelChange(this.at(parent), level));
	}
	custom(customType, data, { parent } = {}) {
		return this.push(entry.custom(this.at(parent), customType, data));
	}
	customMessage(fields, { parent } = {}) {
		return this.push(entry.customMessage(this.at(parent), fields));
	}
	contextEdit(targetId, replacement, { parent } = {}) {
		return this.push(entry.contextEdit(this.at(parent), targetId, replacement));
	}
	usage(fields, { parent } = {}) {
		return this.push(entry.usage(this.at(parent), fields));
	}
	/** The entries (not the header, not raw lines). */
	entries() {
		return this.lines.slice(1).filter((l) => typeof l === "object");
	}
	/** The entries from the root to `id` (the leaf by default). */
	pathTo(id = this.leaf) {
		const path = [];
		for (let e = this.byId.get(id); e; e = e.parentId ? this.byId.get(e.parentId) : undefined) path.unshift(e);
		return path;
	}
	/**
	 * A new session forked from this one: its header names this file as parentSession, then this
	 * one's entries (all of them, or with `at` the path to that entry), copied as they are; the
	 * leaf is the last one copied. Options are the constructor's (dir, cwd, id, created; the
	 * clock and step default to this session's).
	 */
	fork({ at, dir = this.dir, cwd = this.header.cwd, clock = this.clock, step = this.step, ...rest } = {}) {
		const f = new this.constructor({ dir, cwd, clock, step, parentSession: this.file, ...rest });
		for (const e of at === undefined ? this.entries() : this.pathTo(at)) f.push(e);
		return f;
	}
	text(opts) {
		return jsonlText(this.lines, opts);
	}
	/** Writes the file (creating its folder); `tail` is added after the last newline (a torn line). Returns the path. */
	write({ tail = "" } = {}) {
		mkdirSync(this.dir, { recursive: true });
		writeFileSync(this.file, this.text() + tail);
		return this.file;
	}
}

// One session written twice: by the real pi's SessionManager (seeded, tests/lib/pi.mjs) and by
// SessionBuilder (tests/lib/sessions.mjs) with the same calls, the same ids and the same times.
// Prints {pi, builder, piVersion, line} as JSON: the two files' text, which must be equal. Run by
// sessions.test.mjs with pi 0.73.1 (Node 20) and pi 1.6.0 (Node >= 22.19).
//
//   node lockstep.mjs PI_DIR OUT_DIR

import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { installDeterminism, loadPi, useAgentDir } from "./pi.mjs";
import { SessionBuilder, SimClock, cost, message, mulberry32, text, thinking, toolCall, usage } from "./sessions.mjs";

const [piDir, outArg] = process.argv.slice(2);
if (!piDir || !outArg) {
	console.error("usage: node lockstep.mjs PI_DIR OUT_DIR");
	process.exit(2);
}
const out = resolve(outArg);
mkdirSync(out, { recursive: true });
const cwd = "/home/demo/app";
const START = Date.parse("2026-02-01T10:00:00.000Z");

const env = installDeterminism({ random: mulberry32(5), start: START });
useAgentDir(join(out, "agent"));
const pi = await loadPi(piDir);
const sm = pi.SessionManager.create(cwd, join(out, "pi"));

// The same steps through either writer: `w` is one of the two adapters below.
const u1 = (n) => usage({ input: 100 * n, output: 10 * n, cacheRead: n, cost: cost({ input: 0.001 * n, output: 0.002 * n }) });
const API = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" };
function steps(w) {
	const ids = {};
	if (pi.line >= 1) ids.sys = w.message(message.system({ content: "Be brief.", toolsAdded: [{ name: "read", description: "Read a file", parameters: { type: "object" } }], timestamp: w.now() }));
	ids.model = w.modelChange("anthropic", "claude-sonnet-4-5");
	ids.think = w.thinkingLevelChange("high");
	ids.u1 = w.message(message.user("Fix the parser.", w.now()));
	ids.a1 = w.message(message.assistant({ content: [thinking("Look first."), text("Reading it."), toolCall("call_1", "read", { path: "src/parse.ts" })], ...API, usage: u1(1), stopReason: "toolUse", timestamp: w.now() }));
	ids.t1 = w.message(message.toolResult({ toolCallId: "call_1", toolName: "read", content: [text("export const parse = () => {};")], timestamp: w.now() }));
	ids.a2 = w.message(message.assistant({ content: [text("Fixed.")], ...API, usage: u1(2), timestamp: w.now() }));
	ids.bash = w.message(message.bashExecution({ command: "npm test", output: "ok", exitCode: 0, excludeFromContext: true, timestamp: w.now() }));
	ids.l1 = w.label(ids.u1, "start");
	ids.l2 = w.label(ids.u1, undefined);
	ids.name = w.sessionInfo("Parser fix");
	ids.u2 = w.message(message.user([text("Now the lexer.")], w.now()));
	ids.a3 = w.message(message.assistant({ content: [text("Lexer done.")], ...API, usage: u1(3), timestamp: w.now() }));
	ids.c1 = w.compaction({ summary: "Parser fixed.", firstKeptEntryId: ids.u2, tokensBefore: 5000, details: { readFiles: ["src/parse.ts"], modifiedFiles: [] }, usage: pi.line >= 1 ? u1(4) : undefined });
	ids.cm = w.customMessage({ customType: "note", content: "Run the tests.", display: true, details: { from: "ext" } });
	ids.cu = w.custom("todo", { items: 1 });
	if (pi.line >= 1) {
		ids.e1 = w.contextEdit(ids.a3, { content: [text("[trimmed]")] });
		ids.e2 = w.contextEdit(ids.u2, null);
		ids.us = w.usage({ kind: "cache_warm", provider: "anthropic", model: "claude-haiku-4-5", usage: u1(5), note: "warm" });
	}
	ids.c2 = w.compaction({ summary: "By an extension.", firstKeptEntryId: ids.a3, tokensBefore: 6000, details: { artifact: "x" }, fromHook: true });
	ids.bs = w.branchSummary(ids.a2, { summary: "Tried the lexer; abandoned.", details: { readFiles: [] } });
	ids.u3 = w.message(message.user("Try the formatter.", w.now()));
	ids.a4 = w.message(message.assistant({ content: [text("Formatted.")], ...API, usage: u1(6), timestamp: w.now() }));
	w.branch(ids.a2);
	ids.bs2 = w.branchSummary(null, { summary: "Everything so far.", usage: pi.line >= 1 ? u1(7) : undefined });
	ids.a5 = w.message(message.assistant({ content: [text("Starting over.")], ...API, usage: u1(8), timestamp: w.now() }));
	return ids;
}

// pi: every call is pi's own; a message is made 1 ms before pi stamps its entry.
const viaPi = {
	now: () => Date.now() - 1,
	message: (m) => sm.appendMessage(m),
	modelChange: (p, m) => sm.appendModelChange(p, m),
	thinkingLevelChange: (l) => sm.appendThinkingLevelChange(l),
	label: (id, l) => sm.appendLabelChange(id, l) ?? sm.getLeafId(),
	sessionInfo: (n) => sm.appendSessionInfo(n),
	compaction: (f) => sm.appendCompaction(f.summary, f.firstKeptEntryId, f.tokensBefore, f.details, f.fromHook, f.usage),
	customMessage: (f) => sm.appendCustomMessageEntry(f.customType, f.content, f.display, f.details),
	custom: (t, d) => sm.appendCustomEntry(t, d),
	contextEdit: (id, r) => sm.appendContextEdit(id, r),
	usage: (f) => sm.appendUsage(f.kind, f.provider, f.model, f.usage, f.note).id,
	branchSummary: (from, f) => sm.branchWithSummary(from, f.summary, f.details, f.fromHook, f.usage),
	branch: (id) => sm.branch(id),
};
const piIds = steps(viaPi);
env.restore();
const piFile = sm.getSessionFile();
const piText = readFileSync(piFile, "utf8");
const lines = piText.trim().split("\n").map((l) => JSON.parse(l));

// The builder: pi's session id, created time and entry ids; its clock moves 1 ms per entry as pi's did.
const queue = lines.slice(1).map((e) => e.id);
const b = new SessionBuilder({ dir: join(out, "builder"), cwd, id: lines[0].id, created: lines[0].timestamp, clock: new SimClock(Date.parse(lines[0].timestamp)), step: 1, ids: { next: () => queue.shift() } });
let systemMessage;
const viaBuilder = {
	now: () => b.clock.now(),
	message: (m) => {
		if (m.role === "system") systemMessage = m;
		return b.message(() => m);
	},
	modelChange: (p, m) => b.modelChange(p, m),
	thinkingLevelChange: (l) => b.thinkingLevelChange(l),
	label: (id, l) => b.label(id, l),
	sessionInfo: (n) => b.sessionInfo(n),
	// pi 1.x folds the current system message into a compaction, stamped with the compaction's time
	compaction: (f) => b.compaction({ ...f, systemMessage: systemMessage && { ...systemMessage, timestamp: b.clock.now() + b.step } }),
	customMessage: (f) => b.customMessage(f),
	custom: (t, d) => b.custom(t, d),
	contextEdit: (id, r) => b.contextEdit(id, r),
	usage: (f) => b.usage(f),
	// fromId: pi 0.73.1 writes the entry it branches from, pi 1.x the leaf it leaves ("root" for none)
	branchSummary: (from, f) => {
		const fromId = (pi.line >= 1 ? b.leaf : from) ?? "root";
		b.branch(from);
		return b.branchSummary({ fromId, ...f });
	},
	branch: (id) => b.branch(id),
};
const builderIds = steps(viaBuilder);
b.write();
console.log(JSON.stringify({ piVersion: pi.version, line: pi.line, pi: piText, builder: readFileSync(b.file, "utf8"), sameIds: JSON.stringify(piIds) === JSON.stringify(builderIds), sameName: b.file.slice(b.dir.length) === piFile.slice(join(out, "pi").length) }));

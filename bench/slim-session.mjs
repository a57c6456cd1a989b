#!/usr/bin/env node
// slim-session.mjs — writes one long linear pi session with compactions, for bench/slim.sh.
//
//   node bench/slim-session.mjs OUT.jsonl [--mb 100]
//
// Turns of user message, assistant message (usage, a model, an edit tool call) and tool result,
// about 4 KB a turn; every 60 turns a compaction keeping the last 5 turns (as pi's own
// compaction does: firstKeptEntryId = a user message). Deterministic.
import { createWriteStream } from "node:fs";

const [out, ...rest] = process.argv.slice(2);
const mb = Number(rest[rest.indexOf("--mb") + 1] ?? 100) || 100;
if (!out) {
	console.error("usage: node slim-session.mjs OUT.jsonl [--mb 100]");
	process.exit(2);
}
const w = createWriteStream(out);
let bytes = 0;
const line = (o) => {
	const s = `${JSON.stringify(o)}\n`;
	bytes += s.length;
	return w.write(s) ? Promise.resolve() : new Promise((r) => w.once("drain", r));
};
let n = 0;
const id = () => (0x10000000 + n++).toString(16);
let t = Date.UTC(2026, 0, 5, 9, 0, 0);
const ts = () => new Date((t += 2000)).toISOString();
const filler = (k, len) => `${k} `.repeat(Math.ceil(len / (String(k).length + 1))).slice(0, len);

await line({ type: "session", version: 3, id: "01950000-0000-7000-8000-00000000beef", timestamp: ts(), cwd: "/work/bench" });
let parent = null;
const users = [];
let turn = 0;
const push = async (o) => {
	const e = { ...o, id: id(), parentId: parent, timestamp: ts() };
	await line(e);
	parent = e.id;
	return e.id;
};
await push({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
await push({ type: "thinking_level_change", thinkingLevel: "medium" });
while (bytes < mb * 1e6) {
	turn++;
	users.push(await push({ type: "message", message: { role: "user", content: `turn ${turn}: ${filler("please", 900)}`, timestamp: t } }));
	const call = { type: "toolCall", id: `call_${turn}`, name: "edit", arguments: { path: `src/file${turn % 50}.ts`, oldText: filler("a", 300), newText: filler("b", 300) } };
	await push({
		type: "message",
		message: {
			role: "assistant",
			content: [{ type: "text", text: filler(`answer${turn}`, 1200) }, call],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			usage: { input: 20000, output: 400, cacheRead: 0, cacheWrite: 0, totalTokens: 20400, cost: { input: 0.06, output: 0.006, cacheRead: 0, cacheWrite: 0, total: 0.066 } },
			stopReason: "toolUse",
			timestamp: t,
		},
	});
	await push({ type: "message", message: { role: "toolResult", toolCallId: call.id, toolName: "edit", content: [{ type: "text", text: filler("applied", 800) }], isError: false, timestamp: t } });
	if (turn % 60 === 0) {
		await push({ type: "compaction", summary: `Summary up to turn ${turn}: ${filler("done", 1500)}`, firstKeptEntryId: users.at(-5), tokensBefore: 150000, details: { readFiles: [], modifiedFiles: [] } });
	}
}
await new Promise((r) => w.end(r));
console.log(JSON.stringify({ file: out, bytes, entries: n, turns: turn, leaf: parent }));

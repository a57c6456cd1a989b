// Writes one session with pi 1.6.0's own SessionManager (Node >= 22.19), for the end-to-end
// test of pi 1.x sessions: a system message, a context edit that replaces a tool result, one
// that drops an assistant message, a usage entry, and a compaction (which carries pi's current
// system message). Prints {file, ids} as JSON.
//
//   node24 tests/e2e/pi16-session.mjs OUT_SESSIONS_ROOT [PI16_DIR]

import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [out, piDirArg] = process.argv.slice(2);
if (!out) {
	console.error("usage: node24 pi16-session.mjs OUT_SESSIONS_ROOT [PI16_DIR]");
	process.exit(2);
}
const piDir = resolve(piDirArg ?? process.env.PI16_DIR ?? "tests/pi-oracle/pi16");
const { SessionManager } = await import(pathToFileURL(join(piDir, "node_modules/@earendil-works/pi-coding-agent/dist/index.js")).href);

const cwd = "/home/alice/work/keys";
const sm = SessionManager.create(cwd, join(resolve(out), "--home-alice-work-keys--"));
let now = Date.parse("2026-09-01T10:00:00.000Z");
const ts = () => (now += 7000);
const usage = (input, output) => ({ input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output, cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0, total: input * 3e-6 + output * 15e-6 } });
const assistant = (content, stopReason = "stop") =>
	sm.appendMessage({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(1200, 150), stopReason, timestamp: ts() });

const ids = {};
ids.system = sm.appendMessage({ role: "system", content: "You are pi, a coding agent. Keep answers short.", timestamp: ts() });
ids.user1 = sm.appendMessage({ role: "user", content: "Show me the config file.", timestamp: ts() });
ids.assistant1 = assistant([{ type: "text", text: "Reading it." }, { type: "toolCall", id: "call_1", name: "read", arguments: { path: "config.json" } }], "toolUse");
ids.tool1 = sm.appendMessage({ role: "toolResult", toolCallId: "call_1", toolName: "read", content: [{ type: "text", text: '{"apiKey": "ORIGINAL-SECRET-OUTPUT"}' }], isError: false, timestamp: ts() });
ids.assistant2 = assistant([{ type: "text", text: "The config holds an API key." }]);
ids.edit1 = sm.appendContextEdit(ids.tool1, { content: "[output removed: it held a secret]" });
ids.usage1 = sm.appendUsage("title", "anthropic", "claude-haiku-4-5", usage(300, 20), "session title").id;
ids.user2 = sm.appendMessage({ role: "user", content: "Rotate the key.", timestamp: ts() });
ids.assistant3 = assistant([{ type: "text", text: "DROPPED-WRONG-APPROACH: I will print the key." }]);
ids.edit2 = sm.appendContextEdit(ids.assistant3, null);
ids.compaction = sm.appendCompaction("## Goal\nRotate the API key.\n## Done\nRead the config; the key is in config.json.", ids.user1, 12_000, undefined, false, usage(5000, 400));
ids.user3 = sm.appendMessage({ role: "user", content: "Go on.", timestamp: ts() });
ids.assistant4 = assistant([{ type: "text", text: "Rotated; the new key is in the vault." }]);
console.log(JSON.stringify({ file: sm.getSessionFile(), ids }));

// Writes one session with pi 1.6.0's own SessionManager (Node >= 22.19), for the end-to-end
// test of pi 1.x sessions: a system message, a context edit that replaces a tool result, one
// that drops an assistant message, a usage entry, and a compaction (which carries pi's current
// system message). pi's ids and clock are seeded (tests/lib/pi.mjs): every run writes the same
// bytes under the same OUT_SESSIONS_ROOT. Prints {file, ids} as JSON.
//
//   node24 tests/e2e/pi16-session.mjs OUT_SESSIONS_ROOT [PI16_DIR]

import { join, resolve } from "node:path";
import { installDeterminism, loadPi } from "../lib/pi.mjs";
import { cost, cwdFolder, message, mulberry32, text, toolCall, usage as usageOf } from "../lib/sessions.mjs";

const [out, piDirArg] = process.argv.slice(2);
if (!out) {
	console.error("usage: node24 pi16-session.mjs OUT_SESSIONS_ROOT [PI16_DIR]");
	process.exit(2);
}
const env = installDeterminism({ random: mulberry32(16), start: Date.parse("2026-09-01T10:00:00.000Z") });
const { SessionManager } = await loadPi(piDirArg ?? process.env.PI16_DIR ?? "tests/pi-oracle/pi16");

const cwd = "/home/alice/work/keys";
const sm = SessionManager.create(cwd, join(resolve(out), cwdFolder(cwd)));
const ts = () => env.clock.advance(7000);
const usage = (input, output) => usageOf({ input, output, cost: cost({ input: input * 3e-6, output: output * 15e-6 }) });
const assistant = (content, stopReason = "stop") =>
	sm.appendMessage(message.assistant({ content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(1200, 150), stopReason, timestamp: ts() }));

const ids = {};
ids.system = sm.appendMessage(message.system({ content: "You are pi, a coding agent. Keep answers short.", timestamp: ts() }));
ids.user1 = sm.appendMessage(message.user("Show me the config file.", ts()));
ids.assistant1 = assistant([text("Reading it."), toolCall("call_1", "read", { path: "config.json" })], "toolUse");
ids.tool1 = sm.appendMessage(message.toolResult({ toolCallId: "call_1", toolName: "read", content: [text('{"apiKey": "ORIGINAL-SECRET-OUTPUT"}')], timestamp: ts() }));
ids.assistant2 = assistant([text("The config holds an API key.")]);
ids.edit1 = sm.appendContextEdit(ids.tool1, { content: "[output removed: it held a secret]" });
ids.usage1 = sm.appendUsage("title", "anthropic", "claude-haiku-4-5", usage(300, 20), "session title").id;
ids.user2 = sm.appendMessage(message.user("Rotate the key.", ts()));
ids.assistant3 = assistant([text("DROPPED-WRONG-APPROACH: I will print the key.")]);
ids.edit2 = sm.appendContextEdit(ids.assistant3, null);
ids.compaction = sm.appendCompaction("## Goal\nRotate the API key.\n## Done\nRead the config; the key is in config.json.", ids.user1, 12_000, undefined, false, usage(5000, 400));
ids.user3 = sm.appendMessage(message.user("Go on.", ts()));
ids.assistant4 = assistant([text("Rotated; the new key is in the vault.")]);
env.restore();
console.log(JSON.stringify({ file: sm.getSessionFile(), ids }));

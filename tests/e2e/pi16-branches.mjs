// Writes a branched session with pi 1.6.0's own SessionManager (Node >= 22.19), for the
// end-to-end tests of browsing and resuming: three user turns, then pi's /tree moves (branch to
// an earlier assistant message and a new user message there, a branch with a summary), a label,
// and a compaction on the last branch. pi's ids and clock are seeded (tests/lib/pi.mjs): every
// run writes the same bytes under the same OUT_SESSIONS_ROOT. Prints {file, ids} as JSON.
//
//   node24 tests/e2e/pi16-branches.mjs OUT_SESSIONS_ROOT [PI16_DIR]

import { join, resolve } from "node:path";
import { installDeterminism, loadPi } from "../lib/pi.mjs";
import { cost, cwdFolder, message, mulberry32, text, toolCall, usage as usageOf } from "../lib/sessions.mjs";

const [out, piDirArg] = process.argv.slice(2);
if (!out) {
	console.error("usage: node24 pi16-branches.mjs OUT_SESSIONS_ROOT [PI16_DIR]");
	process.exit(2);
}
const env = installDeterminism({ random: mulberry32(33), start: Date.parse("2026-09-02T09:00:00.000Z") });
const { SessionManager } = await loadPi(piDirArg ?? process.env.PI16_DIR ?? "tests/pi-oracle/pi16");

const cwd = "/home/alice/work/parser";
const sm = SessionManager.create(cwd, join(resolve(out), cwdFolder(cwd)));
const ts = () => env.clock.advance(9000);
const usage = (input, output) => usageOf({ input, output, cost: cost({ input: input * 3e-6, output: output * 15e-6 }) });
const assistant = (content, stopReason = "stop") =>
	sm.appendMessage(message.assistant({ content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage(1800, 220), stopReason, timestamp: ts() }));

const ids = {};
ids.user1 = sm.appendMessage(message.user("The parser drops the last token of a line. Find out why.", ts()));
ids.assistant1 = assistant([text("Reading the tokenizer."), toolCall("call_1", "read", { path: "src/tokenizer.ts" })], "toolUse");
ids.tool1 = sm.appendMessage(message.toolResult({ toolCallId: "call_1", toolName: "read", content: [text("export function tokens(line) { return line.split(/\\s+/).slice(0, -1); }")], timestamp: ts() }));
ids.assistant2 = assistant([text("`slice(0, -1)` drops the last token. Two ways: remove the slice, or trim first.")]);
ids.user2 = sm.appendMessage(message.user("Remove the slice and add a test.", ts()));
ids.assistant3 = assistant([text("Done: the slice is gone and tokens.test.ts covers a line ending in a token.")]);
ids.user3 = sm.appendMessage(message.user("Now run the whole suite.", ts()));
ids.assistant4 = assistant([text("All 214 tests pass.")]);
// pi's /tree back to assistant2 (an assistant message: the leaf goes there), another way.
sm.branch(ids.assistant2);
ids.user2b = sm.appendMessage(message.user("Trim the line first instead, keep the slice out of it.", ts()));
ids.assistant3b = assistant([text("Trimming first: `line.trim().split(/\\s+/)`; the slice goes too.")]);
// And back once more, with a summary of the branch left (pi asks for one on /tree).
ids.summary = sm.branchWithSummary(ids.assistant2, "Tried trimming first: it works but changes leading-space handling.", undefined, false, usage(900, 120));
ids.user2c = sm.appendMessage(message.user("Write a failing test first, then fix it.", ts()));
ids.assistant3c = assistant([text("tokens.test.ts fails on 'a b c' (gets 2 tokens); fixed by removing the slice; it passes.")]);
ids.label = sm.appendLabelChange(ids.assistant3c, "tdd");
ids.compaction = sm.appendCompaction("## Goal\nFix the tokenizer dropping the last token.\n## Done\nTest first, slice removed.", ids.user2c, 14_000, undefined, false, usage(4000, 300));
ids.user4 = sm.appendMessage(message.user("Open a pull request.", ts()));
ids.assistant5 = assistant([text("Pull request #42 opened.")]);
env.restore();
console.log(JSON.stringify({ file: sm.getSessionFile(), ids }));

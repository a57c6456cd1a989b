#!/usr/bin/env node
// vectors16.mjs — small hand-written session files for what pi 1.x reads differently or newly:
// falsy lines, context edits pi's API would not write (non-editable targets, edits hidden by a
// compaction, targets off the path), null and missing content, system messages around
// compactions, keep-nothing compactions with a systemMessage, a context edit of a compaction,
// usage on every kind of entry. diff.mjs compares them against pi 1.x only (pi 0.73.1 does not
// know these entries; a file holding them is read with 1.x's rules, see docs/format.md).
//
//   node vectors16.mjs write <dir>     writes <dir>/<name>.jsonl and <dir>/expected.json
//
// expected.json has the shape of extra-vectors.mjs's ({name: {source, leaf?}}); there is no
// expected answer here: diff.mjs compares pi and pi-session directly, at every node.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cost, entry, header, jsonlText, line, message, text, usage as usageOf } from "../lib/sessions.mjs";

let tick = 0;
const ts = () => new Date(Date.UTC(2026, 5, 1, 0, 0, tick++)).toISOString();
const H = () => header({ id: "sess-16", timestamp: "2026-06-01T00:00:00.000Z", cwd: "/home/demo/project" });
const at = (id, parentId) => ({ id, parentId, timestamp: ts() });
const base = (type, id, parentId) => line(type, at(id, parentId));
const usage = (n) => usageOf({ input: 100 * n, output: 10 * n, cacheRead: n, cacheWrite: 2 * n, cost: cost({ input: 0.001 * n, output: 0.0002 * n, cacheWrite: 0.00001 * n, total: 0.00121 * n }) });
const U = (id, p, content) => entry.message(at(id, p), message.user(content, 1));
const A = (id, p, say, n = 1) =>
	entry.message(at(id, p), message.assistant({ content: [text(say)], api: "anthropic-messages", provider: "anthropic", model: "claude-test", usage: usage(n), stopReason: "stop", timestamp: 2 }));
const TR = (id, p, out) => entry.message(at(id, p), message.toolResult({ toolCallId: "c1", toolName: "read", content: [text(out)], timestamp: 3 }));
const SYS = (id, p, content, extra = {}) => entry.message(at(id, p), message.system({ content, ...extra, timestamp: 4 }));
const EDIT = (id, p, targetId, replacement) => entry.contextEdit(at(id, p), targetId, replacement);
// the compaction's extra fields (systemMessage, usage) after tokensBefore, in the order given
const C = (id, p, firstKeptEntryId, extra = {}) => line("compaction", at(id, p), { summary: `summary ${id}`, firstKeptEntryId, tokensBefore: 1000, ...extra });
const USAGE = (id, p, n, note) => entry.usage(at(id, p), { kind: "cache_warm", provider: "anthropic", model: "claude-test", usage: usage(n), note });
const sysMsg = (content) => message.system({ content, toolsAdded: [{ name: "read", description: "Read", parameters: { type: "object" } }], timestamp: 5 });

export const VECTORS16 = [];
const vec = (name, source, lines, opts = {}) => VECTORS16.push({ name, source, lines, ...opts });

tick = 1;
vec("y01-falsy-lines", "null, false, 0 and \"\" lines: pi 1.x skips them (0.73.1 keeps three of them as nameless nodes)", [H(), U("1", null, "a"), "false", "0", '""', "null", A("2", "1", "b")]);
tick = 1;
vec("y02-edit-non-editable", "edits of a bashExecution and a model change: a replacement changes nothing, null drops what the entry gives", [
	H(),
	U("1", null, "a"),
	{ ...base("message", "2", "1"), message: { role: "bashExecution", command: "ls", output: "x", exitCode: 0, cancelled: false, truncated: false, timestamp: 3 } },
	{ ...base("model_change", "3", "2"), provider: "openai", modelId: "gpt-x" },
	A("4", "3", "b"),
	EDIT("5", "4", "2", { content: "ignored" }),
	EDIT("6", "5", "3", null),
	U("7", "6", "c"),
	EDIT("8", "7", "2", null),
]);
tick = 1;
vec("y03-edit-hidden-by-compaction", "an edit before the compaction's kept range does not apply; one after it does", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	EDIT("3", "2", "1", { content: "edited early" }),
	U("4", "3", "c"),
	A("5", "4", "d"),
	C("6", "5", "4"),
	EDIT("7", "6", "5", { content: "edited late" }),
	U("8", "7", "e"),
]);
tick = 1;
vec("y03b-edit-before-compaction-on-kept-target", "an edit that is itself inside the kept range applies to a kept target", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	U("3", "2", "c"),
	EDIT("4", "3", "3", { content: [{ type: "text", text: "c edited" }] }),
	A("5", "4", "d"),
	C("6", "5", "3"),
	U("7", "6", "e"),
]);
tick = 1;
vec("y04-edit-off-path", "edits whose target is on another branch or not in the file; an edit on a side branch", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	U("3", "2", "side"),
	EDIT("4", "3", "2", null),
	U("5", "2", "main"),
	EDIT("6", "5", "3", { content: "x" }),
	EDIT("7", "6", "zzzzzzzz", null),
	A("8", "7", "f"),
]);
tick = 1;
vec("y05-edits-latest-wins", "several edits of one target: the last one on the path wins, also a null after a replacement and back", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	TR("3", "2", "secret"),
	EDIT("4", "3", "3", { content: "first" }),
	EDIT("5", "4", "3", null),
	EDIT("6", "5", "2", null),
	EDIT("7", "6", "2", { content: "b again" }),
	A("8", "7", "c"),
]);
tick = 1;
vec("y06-null-content-pi1-file", "null and missing content in a file with 1.x entries: [] (\"\" for system), custom_message without content", [
	H(),
	SYS("1", null, null),
	U("2", "1", null),
	{ ...base("message", "3", "2"), message: { role: "assistant", api: "anthropic-messages", provider: "anthropic", model: "claude-test", usage: usage(1), stopReason: "stop", timestamp: 2 } },
	{ ...base("message", "4", "3"), message: { role: "toolResult", toolCallId: "c1", toolName: "read", content: null, isError: false, timestamp: 3 } },
	{ ...base("custom_message", "5", "4"), customType: "ext", display: true },
	USAGE("6", "5", 2),
]);
tick = 1;
vec("y07-null-content-plain-file", "null content in a file without 1.x entries: we keep 0.73.1's answer (null), pi 1.x gives []", [
	H(),
	U("1", null, "a"),
	U("2", "1", null),
	A("3", "2", "b"),
]);
tick = 1;
vec("y08-system-messages-and-compactions", "system messages before, inside and after the kept range; compactions with systemMessage; an older one inside the kept range", [
	H(),
	SYS("1", null, "You are pi.", { sections: { env: "linux" } }),
	U("2", "1", "a"),
	A("3", "2", "b"),
	C("4", "3", "2", { systemMessage: sysMsg("You are pi (folded)."), usage: usage(3) }),
	SYS("5", "4", "Be brief.", { toolsRemoved: [{ name: "read" }] }),
	U("6", "5", "c"),
	A("7", "6", "d"),
	C("8", "7", "2", { systemMessage: sysMsg("You are pi.\n\nBe brief.") }),
	SYS("9", "8", "Later prompt."),
	U("10", "9", "e"),
]);
tick = 1;
vec("y09-keep-nothing", "a compaction that keeps nothing (firstKeptEntryId = its own id), with a systemMessage, then a branch summary with usage", [
	H(),
	SYS("1", null, "You are pi."),
	U("2", "1", "a"),
	A("3", "2", "b"),
	C("4", "3", "4", { systemMessage: sysMsg("You are pi."), usage: usage(2) }),
	U("5", "4", "c"),
	A("6", "5", "d"),
	{ ...base("branch_summary", "7", "4"), fromId: "6", summary: "tried c", usage: usage(1) },
	U("8", "7", "e"),
]);
tick = 1;
vec("y10-edit-of-compaction", "a null edit of the compaction entry itself drops its system message and summary; a replacement does not change them", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	C("3", "2", "2", { systemMessage: sysMsg("S") }),
	EDIT("4", "3", "3", { content: "no effect" }),
	U("5", "4", "c"),
	EDIT("6", "5", "3", null),
	A("7", "6", "d"),
]);
tick = 1;
vec("y11-edit-strings", "string replacements: kept as a string for user and custom messages, a text block for assistant and toolResult", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	TR("3", "2", "out"),
	{ ...base("custom_message", "4", "3"), customType: "ext", content: [{ type: "text", text: "note" }], display: false },
	EDIT("5", "4", "1", { content: "a2" }),
	EDIT("6", "5", "2", { content: "b2" }),
	EDIT("7", "6", "3", { content: "out2" }),
	EDIT("8", "7", "4", { content: "note2" }),
]);
tick = 1;
vec("y12-usage-everywhere", "usage entries on two branches, usage on compactions and branch summaries, a toolResult with usage", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b", 2),
	USAGE("3", "2", 5, "warm"),
	{ ...TR("4", "3", "x"), message: { ...TR("4", "3", "x").message, usage: usage(7) } },
	A("5", "4", "c", 3),
	USAGE("6", "2", 11),
	{ ...base("branch_summary", "7", "2"), fromId: "5", summary: "side", usage: usage(13) },
	C("8", "7", "7", { usage: usage(17) }),
	U("9", "8", "d"),
]);
tick = 1;
vec("y13-bom-pi1-file", "a BOM before the header of a file with 1.x entries: pi 1.x refuses it", [`\ufeff${JSON.stringify(H())}`, U("1", null, "a"), A("2", "1", "b"), USAGE("3", "2", 1)]);

tick = 1;
vec("y14-empty-file", "an empty file: pi 1.x writes a fresh header into it (any other file without a header, it refuses)", []);

const fileText = (v) => jsonlText(v.lines);

export function writeVectors16(dir) {
	mkdirSync(dir, { recursive: true });
	const expected = {};
	for (const v of VECTORS16) {
		writeFileSync(join(dir, `${v.name}.jsonl`), fileText(v));
		expected[v.name] = { source: v.source, leaf: v.leaf };
	}
	writeFileSync(join(dir, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
	const [cmd, dir] = process.argv.slice(2);
	if (cmd === "write" && dir) writeVectors16(dir);
	else {
		console.error("usage: node vectors16.mjs write <dir>");
		process.exit(2);
	}
}

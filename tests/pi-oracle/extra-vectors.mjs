#!/usr/bin/env node
// extra-vectors.mjs — more small session files for the differential run, beside the 49 of
// vectors.mjs. They exercise each documented difference from both sides (a case where it
// applies and a neighbouring case where it must not) and a few places where our reader
// re-implements JavaScript behaviour (V8's sort with invalid dates, Date parsing,
// undefined keys vanishing from JSON).
//
//   node extra-vectors.mjs write <dir>     writes <dir>/<name>.jsonl and <dir>/expected.json
//
// expected.json has the same shape as vectors.mjs's ({name: {source, leaf?}}); there is no
// expected answer here: diff.mjs compares pi and pi-session directly.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { entry, header, jsonlText, line, message, text } from "../lib/sessions.mjs";

let tick = 0;
const ts = () => new Date(Date.UTC(2025, 0, 1, 0, 0, tick++)).toISOString();
const H = (extra = {}) => ({ ...header({ id: "sess-x", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/home/demo/project" }), ...extra });
const at = (id, parentId, t) => ({ id, parentId, timestamp: t ?? ts() });
const base = (type, id, parentId, t) => line(type, at(id, parentId, t));
const U = (id, p, say, t) => entry.message(at(id, p, t), message.user(say, 1));
// an assistant message without usage
const A = (id, p, say, t, provider = "anthropic", model = "claude-test") =>
	entry.message(at(id, p, t), message.assistant({ content: [text(say)], api: "anthropic-messages", provider, model, stopReason: "stop", timestamp: 2 }));
const LEAF = (id, p, targetId) => line("leaf", at(id, p), { targetId });
const L = (id, p, targetId, label) => entry.label(at(id, p), targetId, label);

export const EXTRA = [];
const vec = (name, source, lines, opts = {}) => {
	EXTRA.push({ name, source, lines, ...opts });
};

// -- leaf lines (newer harness): honoured by us, not by pi 0.73.1
tick = 1;
vec("x01-leaf-line-last", "leaf line as the last line: we resume at its targetId, pi at the line itself", [H(), U("1", null, "a"), A("2", "1", "b"), U("3", "2", "c"), LEAF("4", "3", "2")]);
tick = 1;
vec("x02-leaf-line-null", "leaf line with targetId null as the last line: our leaf is null", [H(), U("1", null, "a"), A("2", "1", "b"), LEAF("3", "2", null)]);
tick = 1;
vec("x03-leaf-line-then-label", "a label after the leaf line: the label line decides the leaf, for both", [H(), U("1", null, "a"), A("2", "1", "b"), LEAF("3", "2", "1"), L("4", "3", "1", "here")]);
tick = 1;
vec("x04-leaf-line-dangling", "leaf line whose target is not in the file: we stay at its parent", [H(), U("1", null, "a"), A("2", "1", "b"), LEAF("3", "2", "zzzzzzzz")]);
tick = 1;
vec("x21-navigate-line", "our own navigate line (parentId = targetId = an entry on another branch): pi lands on the same context", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	U("3", "2", "c"),
	A("4", "3", "d"),
	{ ...base("thinking_level_change", "5", "2"), thinkingLevel: "high" },
	LEAF("6", "2", "2"),
]);
tick = 1;
vec("x22-navigate-line-null", "our own navigate line to before the first entry (parentId and targetId null)", [H(), U("1", null, "a"), A("2", "1", "b"), LEAF("3", null, null)]);

// -- duplicate ids
tick = 1;
vec("x05-duplicate-id-two-parents", "an id on two lines with different parents: pi lists the later node under both", [
	H(),
	U("1", null, "a"),
	A("2", "1", "first 2"),
	U("3", "1", "c"),
	U("2", "3", "second 2"),
	A("5", "2", "e"),
]);
tick = 1;
vec("x06-duplicate-root", "the same id twice as a root", [H(), U("1", null, "a"), U("1", null, "a again"), A("2", "1", "b")]);

// -- parent cycles
tick = 1;
vec("x07-cycle-off-path", "a two-entry cycle away from the leaf: pi answers, but leaves the cycle out of getTree", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	U("x", "y", "in cycle"),
	U("y", "x", "in cycle too"),
	U("3", "2", "c"),
]);
tick = 1;
vec("x08-self-parent-on-path", "parentId === id on the leaf's path: a root in getTree, but getBranch loops", [H(), U("1", null, "a"), U("2", "2", "self"), A("3", "2", "b")]);
tick = 1;
vec("x09-cycle-with-tail", "a three-entry cycle with a child hanging off it, as the leaf", [
	H(),
	U("1", null, "a"),
	U("p", "r", "p"),
	U("q", "p", "q"),
	U("r", "q", "r"),
	A("s", "q", "s"),
]);

// -- entries without an id
tick = 1;
vec("x10-missing-id-middle", "an id-less line in the middle: pi hangs a node keyed undefined under its parent", [
	H(),
	U("1", null, "a"),
	{ type: "message", parentId: "1", timestamp: ts(), message: { role: "assistant", content: [{ type: "text", text: "no id" }], provider: "p", model: "m", timestamp: 2 } },
	U("3", "1", "c"),
]);
tick = 1;
vec("x11-missing-id-last-thinking", "an id-less thinking_level_change as the last line", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	{ type: "thinking_level_change", parentId: "2", timestamp: ts(), thinkingLevel: "high" },
]);
tick = 1;
vec("x28-non-object-lines", "JSON values that are not objects, and an empty object, in the middle of a file", [
	H(),
	U("1", null, "a"),
	"42",
	"[1, 2]",
	'"text"',
	"true",
	"{}",
	A("2", "1", "b"),
]);
tick = 1;
vec("x29-non-object-last", "an array as the last line: pi's leaf is undefined and its context empty", [H(), U("1", null, "a"), A("2", "1", "b"), "[]"]);
tick = 1;
vec("x30-no-parent-beside-nameless", "an entry without parentId in a file with an id-less line: pi hangs it under the nameless node", [
	H(),
	U("1", null, "a"),
	{ type: "message", timestamp: ts(), parentId: "1", message: { role: "user", content: "no id", timestamp: 1 } },
	{ type: "message", id: "3", timestamp: ts(), message: { role: "user", content: "no parentId", timestamp: 1 } },
	A("4", "3", "d"),
]);
tick = 1;
vec("x31-null-line", "a line that is just null: pi cannot open the file", [H(), U("1", null, "a"), "null", A("2", "1", "b")]);

// -- headers pi refuses
tick = 1;
vec("x12-header-numeric-id", "a header whose id is not a string: pi refuses the file", [H({ id: 42 }), U("1", null, "a"), A("2", "1", "b")]);
vec("x13-empty-file", "an empty file", []);
vec("x14-blank-lines-only", "only blank lines", ["", "   ", ""]);

// -- children order: V8's sort with invalid dates, numeric timestamps, offsets
tick = 1;
vec("x15-siblings-invalid-dates", "siblings with invalid timestamps: the comparator returns NaN", [
	H(),
	U("1", null, "root", "2025-01-01T00:00:00Z"),
	U("a", "1", "a", "2025-01-01T00:00:09Z"),
	U("b", "1", "b", "not a date"),
	U("c", "1", "c", "2025-01-01T00:00:03Z"),
	U("d", "1", "d", "2025-01-01T00:00:01Z"),
	U("e", "1", "e", "also bad"),
	U("f", "1", "f", "2025-01-01T00:00:02Z"),
]);
tick = 1;
vec("x16-siblings-mixed-timestamp-forms", "numeric (ms) timestamps, offsets, date-only forms and ties among siblings", [
	H(),
	U("1", null, "root", "2025-01-01T00:00:00Z"),
	U("a", "1", "a", 1735689605000),
	U("b", "1", "b", "2025-01-01T01:00:04+01:00"),
	U("c", "1", "c", "2025-01-01"),
	U("d", "1", "d", "2025-01-01T00:00:04.000Z"),
	U("e", "1", "e", 1735689601000),
	U("f", "1", "f", "2025-01-01T00:00:04.5Z"),
]);
{
	tick = 1;
	const lines = [H(), U("1", null, "root", "2025-01-01T00:00:00Z")];
	let s = 12345;
	const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
	for (let i = 0; i < 80; i++) {
		const sec = Math.floor(rnd() * 20);
		lines.push(U(`k${i}`, "1", `sibling ${i}`, new Date(Date.UTC(2025, 0, 1, 0, 1, sec)).toISOString()));
	}
	vec("x17-many-siblings", "80 siblings with many equal timestamps (longer than V8's insertion-sort run)", lines);
}

// -- context conversion details
tick = 1;
vec("x18-conversion-edges", "custom_message without details, summaries with odd timestamps, compaction without tokensBefore", [
	H(),
	U("1", null, "a"),
	{ ...base("custom_message", "2", "1"), customType: "note", content: [{ type: "text", text: "n" }], display: true },
	{ ...base("branch_summary", "3", "2", "not a date"), fromId: "2", summary: "S" },
	{ ...base("compaction", "4", "3", 1735689600123), summary: "C", firstKeptEntryId: "2" },
	A("5", "4", "b"),
]);
tick = 1;
vec("x19-model-and-thinking-edges", "model_change and thinking changes, the last one on the path wins", [
	H(),
	U("1", null, "a"),
	{ ...base("thinking_level_change", "2", "1"), thinkingLevel: "low" },
	{ ...base("model_change", "3", "2"), provider: "openai", modelId: "gpt-4" },
	A("4", "3", "b", undefined, "google", "gemini"),
	{ ...base("thinking_level_change", "5", "4"), thinkingLevel: "high" },
	{ ...base("model_change", "6", "5"), provider: "anthropic", modelId: "claude" },
	U("7", "6", "c"),
]);
tick = 1;
vec("x20-unicode-and-escapes", "lone surrogates, escapes and non-ASCII text in messages, labels and names", [
	H(),
	`{"type":"message","id":"1","parentId":null,"timestamp":"${ts()}","message":{"role":"user","content":"lone \\ud800 high, pair \\ud83d\\ude00, tab\\t, quote \\" é","timestamp":1}}`,
	L("2", "1", "1", "étiquette ✓"),
	{ ...base("session_info", "3", "2"), name: "\u00a0 Nom\u2003 " },
	A("4", "3", "réponse"),
]);

// -- newer harness compaction
tick = 1;
vec("x23-retained-tail", "a compaction with retainedTail: we replay the tail, pi 0.73.1 the kept range", [
	H(),
	U("1", null, "a"),
	A("2", "1", "b"),
	{ ...base("custom_message", "3", "2"), customType: "note", content: "n", display: false },
	U("4", "3", "c"),
	{ ...base("compaction", "5", "4"), summary: "S", firstKeptEntryId: "2", tokensBefore: 10, retainedTail: [{ role: "user", content: "kept c", timestamp: 3 }] },
	A("6", "5", "d"),
	{ ...base("compaction", "7", "6"), summary: "S2", firstKeptEntryId: "6", tokensBefore: 20 },
	U("8", "7", "e"),
]);
tick = 1;
{
	// A long chain with a few side branches: paths and contexts thousands of entries deep.
	const lines = [H(), U("n0", null, "start")];
	for (let i = 1; i < 3000; i++) {
		const p = `n${i - 1}`;
		lines.push(i % 2 ? A(`n${i}`, p, `answer ${i}`) : U(`n${i}`, p, `question ${i}`));
		if (i % 700 === 0) lines.push(U(`side${i}`, p, `side branch ${i}`));
	}
	lines.push(L("lbl", "n2999", "n1500", "middle"));
	vec("x24-deep-chain", "3000 entries deep, with side branches and a label", lines);
}

// -- pi trims the whole file (content.trim()): Unicode spaces at its very start and end
tick = 1;
vec("x25-unicode-spaces-around-content", "a blank line of U+00A0, a header after U+FEFF U+00A0, a last line ending in U+00A0 then blank lines", [
	"\u00a0",
	`\ufeff\u00a0${JSON.stringify(H())}`,
	U("1", null, "a"),
	`${JSON.stringify(A("2", "1", "b"))}\u00a0\u2028`,
	"",
	"  ",
]);
tick = 1;
vec("x26-unicode-space-not-at-the-ends", "the same spaces around lines in the middle make them invalid JSON", [
	H(),
	U("1", null, "a"),
	`\u00a0${JSON.stringify(A("2", "1", "b"))}`,
	`${JSON.stringify(A("3", "1", "c"))}\u00a0`,
	U("4", "1", "d"),
]);
tick = 1;
vec("x27-unicode-space-before-header-after-garbage", "a garbage line, then a header with a leading U+00A0: not at the start of the file", [
	"garbage",
	`\u00a0${JSON.stringify(H())}`,
	U("1", null, "a"),
]);

// ---------------------------------------------------------------- write
const fileText = (v) => jsonlText(v.lines);

export function writeExtra(dir) {
	mkdirSync(dir, { recursive: true });
	const expected = {};
	for (const v of EXTRA) {
		writeFileSync(join(dir, `${v.name}.jsonl`), fileText(v));
		expected[v.name] = { source: v.source, leaf: v.leaf };
	}
	writeFileSync(join(dir, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
	const [cmd, dir] = process.argv.slice(2);
	if (cmd === "write" && dir) writeExtra(dir);
	else {
		console.error("usage: node extra-vectors.mjs write <dir>");
		process.exit(2);
	}
}

// Self-test of the shared session builder (tests/lib/sessions.mjs, tests/lib/pi.mjs) against the
// real pi: a built session read back by pi 0.73.1's SessionManager.open must give the leaf, the
// entries, the path, the labels, the name and the context the builder meant; the builder must write
// the very bytes pi 0.73.1 and pi 1.6.0 write for the same calls (lockstep.mjs); and pi under
// installDeterminism must write the same bytes twice.
//
//   node --test tests/lib/        (needs `scripts/setup all`: both pinned pis and Node 24)

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadPi } from "./pi.mjs";
import { SessionBuilder, SimClock, cost, cwdFolder, entry, jsonlText, sessionFileName, text, toolCall, usage } from "./sessions.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const PI073 = join(repo, "tests/pi-oracle");
const PI16 = process.env.PI16_DIR ?? join(repo, "tests/pi-oracle/pi16");
const NODE24 = process.env.NODE24 ?? join(repo, ".tools/bin/node24");
const work = mkdtempSync(join(tmpdir(), "pi-session-builder-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

const plain = (v) => JSON.parse(JSON.stringify(v));

test("pi's file and folder names", () => {
	assert.equal(sessionFileName("2026-02-01T10:00:00.123Z", "0197aaaa-0000-7000-8000-000000000001"), "2026-02-01T10-00-00-123Z_0197aaaa-0000-7000-8000-000000000001.jsonl");
	assert.equal(cwdFolder("/home/alice/work/data:pipeline"), "--home-alice-work-data-pipeline--");
	assert.equal(cwdFolder("C:\\Users\\bob\\src\\app"), "--C--Users-bob-src-app--");
	assert.equal(jsonlText([{ a: 1 }, "torn"], { eol: "\r\n" }), '{"a":1}\r\ntorn\r\n');
	assert.equal(jsonlText([]), "");
});

test("pi 0.73.1 reads a built session as the builder meant it", async () => {
	const { SessionManager } = await loadPi(PI073);
	const cwd = "/home/demo/app";
	const b = new SessionBuilder({ dir: join(work, cwdFolder(cwd)), cwd, id: "0197aaaa-0000-7000-8000-000000000001", created: "2026-02-01T10:00:00.000Z", clock: new SimClock(Date.parse("2026-02-01T10:00:00.000Z")), step: 5000 });
	const api = { api: "openai-responses", provider: "openai", model: "gpt-5" };
	const u = (n) => usage({ input: 100 * n, output: 10 * n, cost: cost({ input: 0.01 * n, output: 0.02 * n }) });
	const want = {}; // id → the message pi's context should hold for it
	const said = (id) => {
		want[id] = b.byId.get(id).message;
		return id;
	};
	b.modelChange("anthropic", "claude-sonnet-4-5");
	b.thinkingLevelChange("high");
	const u1 = said(b.user("Fix the parser."));
	const a1 = said(b.assistant([text("Reading it."), toolCall("call_1", "read", { path: "src/parse.ts" })], { ...api, usage: u(1) }));
	const t1 = said(b.toolResult("call_1", "read", "export const parse = () => {};"));
	const a2 = said(b.assistant("Fixed.", { ...api, usage: u(2) }));
	b.label(u1, "start");
	b.sessionInfo("Parser fix");
	const u2 = said(b.user("Now the lexer."));
	const a3 = said(b.assistant("Lexer done.", { ...api, usage: u(3) }));
	const c1 = b.compaction({ summary: "Parser fixed.", firstKeptEntryId: u2, tokensBefore: 5000, details: { readFiles: ["src/parse.ts"], modifiedFiles: [] } });
	const cm = b.customMessage({ customType: "note", content: "Run the tests.", display: true, details: { from: "ext" } });
	b.custom("todo", { items: 1 });
	const u3 = said(b.user("And the docs."));
	const a4 = said(b.assistant("Docs done.", { ...api, usage: u(4) }));
	b.branch(a2);
	const bs = b.branchSummary({ fromId: a2, summary: "Tried the lexer and the docs; abandoned." });
	const u4 = said(b.user("Try the formatter."));
	const a5 = said(b.assistant("Formatted.", { ...api, usage: u(5) }));
	const file = b.write();
	assert.equal(file, join(work, "--home-demo-app--", "2026-02-01T10-00-00-000Z_0197aaaa-0000-7000-8000-000000000001.jsonl"));

	const copy = join(work, "copy.jsonl"); // pi may rewrite a file it opens: it gets a copy
	copyFileSync(file, copy);
	const sm = SessionManager.open(copy, work);
	assert.equal(readFileSync(copy, "utf8"), readFileSync(file, "utf8"), "pi left the file as it was");
	assert.deepEqual(plain(sm.getHeader()), b.header);
	assert.deepEqual(plain(sm.getEntries()), b.entries());
	assert.equal(sm.getLeafId(), b.leaf);
	assert.equal(sm.getLeafId(), a5);
	assert.deepEqual(sm.getBranch().map((e) => e.id), b.pathTo().map((e) => e.id));
	assert.equal(sm.getLabel(u1), "start");
	assert.equal(sm.getSessionName(), "Parser fix");

	const ms = (id) => Date.parse(b.byId.get(id).timestamp);
	// At the leaf: the branch summary replaces the abandoned lexer and docs.
	const atLeaf = sm.buildSessionContext();
	assert.deepEqual(plain(atLeaf.messages), [want[u1], want[a1], want[t1], want[a2], { role: "branchSummary", summary: "Tried the lexer and the docs; abandoned.", fromId: a2, timestamp: ms(bs) }, want[u4], want[a5]]);
	assert.deepEqual(atLeaf.model, { provider: "openai", modelId: "gpt-5" });
	assert.equal(atLeaf.thinkingLevel, "high");
	// On the abandoned branch: the compaction's summary, the kept range from u2, then what follows.
	sm.branch(a4);
	assert.deepEqual(plain(sm.buildSessionContext().messages), [
		{ role: "compactionSummary", summary: "Parser fixed.", tokensBefore: 5000, timestamp: ms(c1) },
		want[u2],
		want[a3],
		{ role: "custom", customType: "note", content: "Run the tests.", display: true, details: { from: "ext" }, timestamp: ms(cm) },
		want[u3],
		want[a4],
	]);
	// The builder's entry objects are the lines pi reads (no undefined values).
	assert.deepEqual(entry.label({ id: "x", parentId: null, timestamp: "t" }, "y", undefined), { type: "label", id: "x", parentId: null, timestamp: "t", targetId: "y" });
});

test("a fork holds the parent's entries and names its file", () => {
	const clock = new SimClock(Date.parse("2026-02-01T10:00:00.000Z"));
	const a = new SessionBuilder({ dir: join(work, "forks"), cwd: "/p", id: "0197bbbb-0000-7000-8000-000000000001", clock });
	const x = a.user("a");
	const y = a.assistant("b");
	a.user("c", { parent: x });
	const f = a.fork({ id: "0197bbbb-0000-7000-8000-000000000002", at: y });
	assert.equal(f.header.parentSession, a.file);
	assert.deepEqual(f.entries().map((e) => e.id), [x, y]);
	assert.equal(f.leaf, y);
	assert.ok(f.header.timestamp > a.header.timestamp, "the fork is made after its parent's entries");
	const all = a.fork({ id: "0197bbbb-0000-7000-8000-000000000003" });
	assert.equal(all.entries().length, 3);
});

/** lockstep.mjs with one pi: its JSON answer. */
function lockstep(node, piDir, name) {
	assert.ok(existsSync(node), `${node} is missing: run scripts/setup all`);
	return JSON.parse(execFileSync(node, [join(here, "lockstep.mjs"), piDir, join(work, name)], { encoding: "utf8" }));
}

test("the builder writes the bytes pi 0.73.1 writes, and pi under installDeterminism writes them twice", () => {
	const r = lockstep(process.execPath, PI073, "lockstep-073-a");
	assert.equal(r.piVersion, "0.73.1");
	assert.equal(r.builder, r.pi);
	assert.ok(r.sameIds && r.sameName);
	assert.ok(r.pi.split("\n").length > 20);
	assert.equal(lockstep(process.execPath, PI073, "lockstep-073-b").pi.replaceAll("lockstep-073-b", "lockstep-073-a"), r.pi);
});

test("the builder writes the bytes pi 1.6.0 writes (context edits, usage, system messages, compactions with usage and systemMessage)", () => {
	const r = lockstep(NODE24, PI16, "lockstep-16");
	assert.equal(r.piVersion, "1.6.0");
	assert.equal(r.line, 1);
	for (const kind of ['"type":"context_edit"', '"type":"usage"', '"role":"system"', '"systemMessage":']) assert.ok(r.pi.includes(kind), kind);
	assert.equal(r.builder, r.pi);
	assert.ok(r.sameIds && r.sameName);
});

// Writes the end-to-end fixture sessions root: deterministic pi v3 session files with the
// shapes the tests need (a compacted session, a three-way branch, a 3-deep fork chain, a long
// session, hostile content, a damaged file). Absolute paths (parentSession) are made here, at
// test time, so nothing committed holds a machine's path.
//
//   node tests/e2e/fixtures.mjs OUT_DIR

import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { CounterIds, SessionBuilder, SimClock, cost, cwdFolder, text, toolCall, usage } from "../lib/sessions.mjs";

/**
 * A fixture session: every entry 7 s after the one before, entry ids from a counter behind a
 * two-character prefix, tool call ids `call_<n>_<tool>` (n: the entry count when the call is
 * made), one model.
 */
class Session extends SessionBuilder {
	reply(say, { parent, tools = [], tokens = 1200 } = {}) {
		const calls = tools.map((t) => toolCall(`call_${this.ids.n}_${t.name}`, t.name, t.args));
		return this.assistant([text(say), ...calls], { parent, usage: usage({ input: tokens, output: 180, cost: cost({ input: 0.003, output: 0.002, total: 0.005 }) }) });
	}
	tool(name, output, opts) {
		return this.toolResult(`call_${this.ids.n}_${name}`, name, output, opts);
	}
	compact(summary, firstKeptEntryId, tokensBefore) {
		return this.compaction({ summary, firstKeptEntryId, tokensBefore, details: { readFiles: [], modifiedFiles: [] } });
	}
}

/**
 * The fixtures' sessions under `root`, in pi's folder for their cwd, one clock for all: each
 * session starts 60 s after the last entry of the one before. Each run writes the same bytes.
 */
class Fixtures {
	constructor(root) {
		this.root = root;
		this.clock = new SimClock(Date.parse("2026-06-12T09:00:00.000Z"));
		this.count = 1;
	}
	/** A new session; with `parent` (a Session), a fork of it holding all its entries. */
	session(cwd, { id, parent }) {
		const opts = {
			dir: join(this.root, cwdFolder(cwd)),
			cwd,
			id: `0197a3c2-${id}-7e00-8000-00000000${String(this.count++).padStart(4, "0")}`,
			created: this.clock.next(60_000),
			clock: this.clock,
			step: 7000,
			ids: new CounterIds(id.slice(0, 2)),
		};
		return parent ? parent.fork(opts) : new Session(opts);
	}
}

export function writeFixtures(out, { hostileUrl = "http://127.0.0.1:9" } = {}) {
	const root = resolve(out);
	const [web, cli, notes] = ["/home/demo/work/acme/web-app", "/home/demo/code/cli", "/home/demo/notes"];
	for (const cwd of [web, cli, notes]) mkdirSync(join(root, cwdFolder(cwd)), { recursive: true });
	const fx = new Fixtures(root);
	const ids = {};

	// 1. A session with two compactions on its path and a three-way branch at one user message.
	const a = fx.session(web, { id: "aaaa" });
	a.sessionInfo("Fix the login form's empty-password check");
	const u1 = a.user("Fix the login form's empty-password check — submitting with an empty password returns a 500.");
	a.reply("I'll start with the form handler and its validation.", { parent: u1, tools: [{ name: "read", args: { path: "src/auth/login.ts" } }] });
	a.tool("read", "export async function login(req) {\n  const { user, password } = req.body;\n  return auth.check(user, password);\n}");
	a.reply("The handler passes the password straight through. Let me check the validator.", { tools: [{ name: "bash", args: { command: "rg -n password src/auth" } }] });
	a.tool("bash", "src/auth/validate.ts:12: if (!pw) throw new Error()");
	a.reply("Found it: `validate.ts` throws instead of returning a field error.");
	ids.firstHidden = u1;
	const u2 = a.user("Also reject whitespace-only passwords and add a test for it.");
	ids.firstKept1 = u2;
	a.reply("Updating `validateCredentials()` to trim before the empty check.", { parent: u2, tools: [{ name: "edit", args: { path: "src/auth/validate.ts" } }] });
	a.tool("edit", "Applied 1 edit to src/auth/validate.ts");
	const c1 = a.compact("Goal: fix the empty-password check in the login form. Done: traced the 500 to validate.ts throwing.", u2, 55000);
	ids.compaction1 = c1;
	a.reply("All 42 tests pass. The fix is in `validateCredentials()` in src/auth/validate.ts.", { parent: c1, tokens: 9000 });
	ids.checkpoint = a.leaf;
	a.label(ids.checkpoint, "checkpoint-1");
	const u3 = a.user("Run the whole suite once more.", { parent: ids.checkpoint });
	ids.firstKept2 = u3;
	a.reply("Running it now.", { parent: u3, tools: [{ name: "bash", args: { command: "npm test" } }] });
	a.tool("bash", "Tests: 42 passed, 42 total");
	const c2 = a.compact("Second summary: login form fixed, whitespace passwords rejected, suite green.", u3, 61000);
	ids.compaction2 = c2;
	// The three-way branch: three user messages answering the same assistant message.
	const hub = a.reply("What next: config loader, error pages or docs?", { parent: c2 });
	ids.branchHub = hub;
	const b1 = a.user("Migrate the config loader to TOML instead.", { parent: hub });
	a.reply("Adding @iarna/toml and rewriting src/config/loader.ts.", { parent: b1, tools: [{ name: "write", args: { path: "src/config/loader.ts" } }] });
	ids.branch1Leaf = a.reply("TOML loader done; three call sites updated.");
	const b2 = a.user("Make the error pages match the new design.", { parent: hub });
	a.reply("Updating the 404 and 500 templates.", { parent: b2, tools: [{ name: "edit", args: { path: "views/500.html" } }] });
	ids.branch2Leaf = a.reply("Both error pages now use the shared layout.");
	const b3 = a.user("Write the docs for the login flow.", { parent: hub });
	ids.branchUsers = [b1, b2, b3];
	a.reply("Drafting docs/login.md with the validation rules.", { parent: b3 });
	ids.branch3Leaf = a.reply("docs/login.md written: rules, errors and the test list.");
	ids.behindTwo = ids.branch3Leaf;
	ids.sessionA = a.write();

	// 2. A 3-deep fork chain: A ← B ← C ← D, each copying its parent's path up to a fork point.
	const chain = [];
	let parent;
	for (let k = 0; k < 4; k++) {
		// The parent's entries (same ids), then entries of its own.
		const s = fx.session(cli, { id: `f${k}f${k}`, parent });
		s.sessionInfo(`Fork chain level ${k}`);
		const u = s.user(`Level ${k}: try approach ${"ABCD"[k]} for the argument parser.`);
		s.reply(`Approach ${"ABCD"[k]}: sketching the parser with ${k + 2} sub-commands.`, { parent: u });
		s.reply(`Approach ${"ABCD"[k]} works for the simple cases.`);
		const file = s.write();
		chain.push({ file, forkPoint: s.leaf });
		parent = s;
	}
	ids.forkChain = chain.map((c) => c.file);

	// 3. A long session: 3,000 entries with branch points every 200 entries.
	const long = fx.session(cli, { id: "1010" });
	long.sessionInfo("Long refactoring session");
	let prev = null;
	for (let i = 0; i < 1000; i++) {
		const u = long.user(`Step ${i}: refactor module ${i % 37}.`, { parent: prev });
		const a1 = long.reply(`Working on module ${i % 37}.`, { parent: u, tools: [{ name: "read", args: { path: `src/m${i % 37}.rs` } }] });
		prev = long.tool("read", `fn module_${i % 37}() {}`, { parent: a1 });
		if (i % 200 === 100) long.user(`An abandoned idea at step ${i}.`, { parent: a1 });
	}
	ids.long = long.write();

	// 4. Hostile content: session text that must stay inert in the window.
	const h = fx.session(notes, { id: "bada" });
	h.sessionInfo("Untrusted content");
	const hu = h.user(`Render this: <script>window.__pwned = 1</script> <img src="${hostileUrl}/img.png" onerror="window.__pwned = 2">`);
	h.reply(
		`Here is a link: [click me](javascript:window.__pwned=3) and an image ![x](${hostileUrl}/md.png) and raw HTML <iframe src="${hostileUrl}/frame"></iframe> <a href="${hostileUrl}/a">a</a> and <b onmouseover="window.__pwned=4">bold</b>.\n\n<style>body{background:url(${hostileUrl}/css)}</style>\n\n\`\`\`html\n<script>alert(1)</script>\n\`\`\``,
		{ parent: hu },
	);
	ids.hostile = h.write();

	// 5. A damaged file: a malformed middle line and a torn tail.
	const d = fx.session(notes, { id: "dead" });
	d.user("A session with damage in it.");
	d.reply("Two lines below are broken.");
	d.raw("this line is not json");
	d.user("Still readable after the bad line.");
	ids.damaged = d.write({ tail: '{"type":"message","id":"torn' });
	return { root, ids };
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const out = process.argv[2];
	if (!out) {
		console.error("usage: node fixtures.mjs OUT_DIR");
		process.exit(2);
	}
	console.log(JSON.stringify(writeFixtures(out), null, 2));
}

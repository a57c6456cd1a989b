// Writes the end-to-end fixture sessions root: deterministic pi v3 session files with the
// shapes the tests need (a compacted session, a three-way branch, a 3-deep fork chain, a long
// session, hostile content, a damaged file). Absolute paths (parentSession) are made here, at
// test time, so nothing committed holds a machine's path.
//
//   node tests/e2e/fixtures.mjs OUT_DIR

import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

let clock = Date.parse("2026-06-12T09:00:00.000Z");
const tick = (s = 7) => new Date((clock += s * 1000)).toISOString();

class Session {
	constructor(folder, name, cwd, { parent, id, title } = {}) {
		this.folder = folder;
		this.cwd = cwd;
		this.n = 0;
		this.prefix = id.slice(0, 2);
		this.id = `0197a3c2-${id}-7e00-8000-00000000${String(Session.count++).padStart(4, "0")}`;
		this.created = tick(60);
		this.file = join(folder, `${this.created.replace(/[:.]/g, "-")}_${this.id}.jsonl`);
		this.lines = [{ type: "session", version: 3, id: this.id, timestamp: this.created, cwd, ...(parent ? { parentSession: parent } : {}) }];
		this.leaf = null;
		this.byId = new Map();
	}
	nextId() {
		return `${this.prefix}${(++this.n).toString(16).padStart(6, "0")}`;
	}
	add(type, fields, parentId = this.leaf) {
		const e = { type, id: this.nextId(), parentId, timestamp: tick(), ...fields };
		this.lines.push(e);
		this.byId.set(e.id, e);
		this.leaf = e.id;
		return e.id;
	}
	user(text, parentId) {
		return this.add("message", { message: { role: "user", content: text, timestamp: clock } }, parentId);
	}
	assistant(text, parentId, { tools = [], tokens = 1200 } = {}) {
		const content = [{ type: "text", text }];
		for (const t of tools) content.push({ type: "toolCall", id: `call_${this.n}_${t.name}`, name: t.name, arguments: t.args });
		return this.add(
			"message",
			{
				message: {
					role: "assistant",
					content,
					api: "anthropic-messages",
					provider: "anthropic",
					model: "claude-sonnet-4-5",
					usage: { input: tokens, output: 180, cacheRead: 0, cacheWrite: 0, totalTokens: tokens + 180, cost: { input: 0.003, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.005 } },
					stopReason: tools.length ? "toolUse" : "stop",
					timestamp: clock,
				},
			},
			parentId,
		);
	}
	tool(name, text, parentId, isError = false) {
		return this.add("message", { message: { role: "toolResult", toolCallId: `call_${this.n}_${name}`, toolName: name, content: [{ type: "text", text }], isError, timestamp: clock } }, parentId);
	}
	compaction(summary, firstKeptEntryId, tokensBefore) {
		return this.add("compaction", { summary, firstKeptEntryId, tokensBefore, details: { readFiles: [], modifiedFiles: [] } });
	}
	label(targetId, label) {
		return this.add("label", { targetId, label });
	}
	name(name) {
		return this.add("session_info", { name });
	}
	write(extra = "") {
		writeFileSync(this.file, this.lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n" + extra);
		return this.file;
	}
}
Session.count = 1;

export function writeFixtures(out, { hostileUrl = "http://127.0.0.1:9" } = {}) {
	const root = resolve(out);
	const web = join(root, "--home-demo-work-acme-web-app--");
	const cli = join(root, "--home-demo-code-cli--");
	const notes = join(root, "--home-demo-notes--");
	for (const d of [web, cli, notes]) mkdirSync(d, { recursive: true });
	const ids = {};

	// 1. A session with two compactions on its path and a three-way branch at one user message.
	const a = new Session(web, "a", "/home/demo/work/acme/web-app", { id: "aaaa" });
	a.name("Fix the login form's empty-password check");
	const u1 = a.user("Fix the login form's empty-password check — submitting with an empty password returns a 500.");
	a.assistant("I'll start with the form handler and its validation.", u1, { tools: [{ name: "read", args: { path: "src/auth/login.ts" } }] });
	a.tool("read", "export async function login(req) {\n  const { user, password } = req.body;\n  return auth.check(user, password);\n}");
	a.assistant("The handler passes the password straight through. Let me check the validator.", undefined, { tools: [{ name: "bash", args: { command: "rg -n password src/auth" } }] });
	a.tool("bash", "src/auth/validate.ts:12: if (!pw) throw new Error()");
	const early = a.assistant("Found it: `validate.ts` throws instead of returning a field error.");
	ids.firstHidden = u1;
	const u2 = a.user("Also reject whitespace-only passwords and add a test for it.");
	ids.firstKept1 = u2;
	a.assistant("Updating `validateCredentials()` to trim before the empty check.", u2, { tools: [{ name: "edit", args: { path: "src/auth/validate.ts" } }] });
	a.tool("edit", "Applied 1 edit to src/auth/validate.ts");
	const c1 = a.compaction("Goal: fix the empty-password check in the login form. Done: traced the 500 to validate.ts throwing.", u2, 55000);
	ids.compaction1 = c1;
	a.assistant("All 42 tests pass. The fix is in `validateCredentials()` in src/auth/validate.ts.", c1, { tokens: 9000 });
	ids.checkpoint = a.leaf;
	a.label(ids.checkpoint, "checkpoint-1");
	const u3 = a.user("Run the whole suite once more.", ids.checkpoint);
	ids.firstKept2 = u3;
	a.assistant("Running it now.", u3, { tools: [{ name: "bash", args: { command: "npm test" } }] });
	a.tool("bash", "Tests: 42 passed, 42 total");
	const c2 = a.compaction("Second summary: login form fixed, whitespace passwords rejected, suite green.", u3, 61000);
	ids.compaction2 = c2;
	// The three-way branch: three user messages answering the same assistant message.
	const hub = a.assistant("What next: config loader, error pages or docs?", c2);
	ids.branchHub = hub;
	const b1 = a.user("Migrate the config loader to TOML instead.", hub);
	a.assistant("Adding @iarna/toml and rewriting src/config/loader.ts.", b1, { tools: [{ name: "write", args: { path: "src/config/loader.ts" } }] });
	ids.branch1Leaf = a.assistant("TOML loader done; three call sites updated.");
	const b2 = a.user("Make the error pages match the new design.", hub);
	a.assistant("Updating the 404 and 500 templates.", b2, { tools: [{ name: "edit", args: { path: "views/500.html" } }] });
	ids.branch2Leaf = a.assistant("Both error pages now use the shared layout.");
	const b3 = a.user("Write the docs for the login flow.", hub);
	ids.branchUsers = [b1, b2, b3];
	a.assistant("Drafting docs/login.md with the validation rules.", b3);
	ids.branch3Leaf = a.assistant("docs/login.md written: rules, errors and the test list.");
	ids.behindTwo = ids.branch3Leaf;
	ids.sessionA = a.write();

	// 2. A 3-deep fork chain: A ← B ← C ← D, each copying its parent's path up to a fork point.
	const chain = [];
	let parentFile = null;
	let parentLines = null;
	for (let k = 0; k < 4; k++) {
		const s = new Session(cli, `f${k}`, "/home/demo/code/cli", { id: `f${k}f${k}`, parent: parentFile ?? undefined });
		if (parentLines) {
			// Copy the parent's path (same ids), then add entries of its own.
			for (const l of parentLines) {
				s.lines.push(l);
				s.leaf = l.id;
			}
		}
		s.name(`Fork chain level ${k}`);
		const u = s.user(`Level ${k}: try approach ${"ABCD"[k]} for the argument parser.`);
		s.assistant(`Approach ${"ABCD"[k]}: sketching the parser with ${k + 2} sub-commands.`, u);
		s.assistant(`Approach ${"ABCD"[k]} works for the simple cases.`);
		const file = s.write();
		chain.push({ file, forkPoint: s.leaf });
		parentFile = file;
		parentLines = s.lines.slice(1);
	}
	ids.forkChain = chain.map((c) => c.file);

	// 3. A long session: 3,000 entries with branch points every 200 entries.
	const long = new Session(cli, "long", "/home/demo/code/cli", { id: "1010" });
	long.name("Long refactoring session");
	let prev = null;
	for (let i = 0; i < 1000; i++) {
		const u = long.user(`Step ${i}: refactor module ${i % 37}.`, prev);
		const a1 = long.assistant(`Working on module ${i % 37}.`, u, { tools: [{ name: "read", args: { path: `src/m${i % 37}.rs` } }] });
		prev = long.tool("read", `fn module_${i % 37}() {}`, a1);
		if (i % 200 === 100) long.user(`An abandoned idea at step ${i}.`, a1);
	}
	ids.long = long.write();

	// 4. Hostile content: session text that must stay inert in the window.
	const h = new Session(notes, "hostile", "/home/demo/notes", { id: "bada" });
	h.name("Untrusted content");
	const hu = h.user(`Render this: <script>window.__pwned = 1</script> <img src="${hostileUrl}/img.png" onerror="window.__pwned = 2">`);
	h.assistant(
		`Here is a link: [click me](javascript:window.__pwned=3) and an image ![x](${hostileUrl}/md.png) and raw HTML <iframe src="${hostileUrl}/frame"></iframe> <a href="${hostileUrl}/a">a</a> and <b onmouseover="window.__pwned=4">bold</b>.\n\n<style>body{background:url(${hostileUrl}/css)}</style>\n\n\`\`\`html\n<script>alert(1)</script>\n\`\`\``,
		hu,
	);
	ids.hostile = h.write();

	// 5. A damaged file: a malformed middle line and a torn tail.
	const d = new Session(notes, "damaged", "/home/demo/notes", { id: "dead" });
	d.user("A session with damage in it.");
	d.assistant("Two lines below are broken.");
	d.lines.push("this line is not json");
	d.user("Still readable after the bad line.");
	ids.damaged = d.write('{"type":"message","id":"torn');
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

// End-to-end tests of `pi-session serve` in a real browser: Chromium through Playwright against
// the server on generated sessions (tests/e2e/fixtures.mjs). The journeys of the window: open a
// session, the context preview, navigate with --allow-writes (one line appended); and 401
// without the token, no CSP violation, live updates over SSE. Screenshots of every step go to
// tests/e2e/screenshots/serve-<stamp>/ (printed at the end).
//
//   node tests/serve/run.mjs
//
// Needs: /usr/bin/chromium (apt `chromium`), `npm ci` in tests/serve, a built UI and CLI
// (npm --prefix ui run build, then cargo build -p pi-session-cli). PI_SESSION_BIN overrides it.

import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { writeFixtures } from "../e2e/fixtures.mjs";
import { browser, q, repo, serve } from "./lib.mjs";

const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const shots = join(repo, "tests/e2e/screenshots", `serve-${stamp}`);
mkdirSync(shots, { recursive: true });

const lines = (f) => readFileSync(f, "utf8").split("\n").filter(Boolean);

/** A page on the server, with CSP violations and page errors collected. */
async function open(b, srv, path = "/") {
	const page = await b.ctx.newPage();
	const problems = [];
	page.on("console", (m) => {
		if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
	});
	page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
	const res = await page.goto(path === "/" ? srv.url : srv.origin + path);
	return { page, problems, res };
}

async function openSession(page, path) {
	await page.locator(`[data-testid=session-row][data-path=${q(path)}]`).click();
	await page.locator("[data-testid=tree-row]").first().waitFor();
}

async function selectRow(page, id) {
	const row = page.locator(`[data-testid=tree-row][data-id=${q(id)}]`);
	if ((await row.count()) === 0) await page.evaluate((i) => window.__piExplorerTest?.reveal?.(i), id);
	await row.click();
	await page.locator("[data-testid=inspector]", { hasText: id }).waitFor();
}

const specs = [
	{
		name: "without the token: 401 for the page, the API and the events; with it the page loads",
		async run({ b, fx }) {
			const srv = await serve(fx.root);
			try {
				const page = await b.ctx.newPage();
				const res = await page.goto(srv.origin + "/");
				assert.equal(res.status(), 401, "the page without the token");
				await page.screenshot({ path: join(shots, "401-no-token.png") });
				const wrong = await page.goto(`${srv.origin}/?token=${"0".repeat(srv.token.length)}`);
				assert.equal(wrong.status(), 401, "a wrong token");
				const api = await page.evaluate(async () => (await fetch("/api/list_sessions", { method: "POST", body: "{}" })).status);
				assert.equal(api, 401, "the API without the cookie");
				for (const [p, init] of [["/api/list_sessions", { method: "POST", body: "{}" }], ["/api/events", {}], ["/assets/", {}]]) {
					assert.equal((await fetch(srv.origin + p, init)).status, 401, p);
				}
				// The printed URL sets the cookie and drops the token from the address bar.
				const ok = await page.goto(srv.url);
				assert.equal(ok.status(), 200);
				assert.equal(new URL(page.url()).search, "", "the token is gone from the address");
				await page.locator("[data-testid=session-row]").first().waitFor();
				const cookies = await b.ctx.cookies(srv.origin);
				assert.ok(cookies.some((c) => c.name === "pi_session_token" && c.httpOnly && c.sameSite === "Strict"), JSON.stringify(cookies));
				await page.close();
			} finally {
				await srv.stop();
			}
		},
	},
	{
		name: "read-only: open a session, its tree with the active path; the context preview after a compaction",
		async run({ b, fx }) {
			const before = readFileSync(fx.ids.sessionA);
			const srv = await serve(fx.root);
			try {
				const { page, problems } = await open(b, srv);
				const rows = page.locator("[data-testid=session-row]");
				await rows.first().waitFor();
				assert.ok((await rows.count()) >= 6, `sessions listed: ${await rows.count()}`);
				await page.screenshot({ path: join(shots, "list.png") });
				await openSession(page, fx.ids.sessionA);
				await page.locator(`[data-testid=tree-row][data-id=${q(fx.ids.branch3Leaf)}] [data-testid=leaf-pill]`).waitFor();
				const tree = await page.locator("[data-testid=tree-view]").innerText();
				assert.ok(tree.includes("checkpoint-1"), "the label is shown");
				await page.screenshot({ path: join(shots, "tree.png") });

				await selectRow(page, fx.ids.checkpoint);
				await page.locator("[data-testid=inspector-tab-context]").click();
				const first = page.locator("[data-testid=context-view] [data-testid=context-message]").first();
				await first.waitFor();
				assert.equal(await first.getAttribute("data-id"), fx.ids.compaction1, "the context starts with the compaction summary");
				const view = await page.locator("[data-testid=context-view]").innerText();
				assert.ok(view.includes("Goal: fix the empty-password check"), "the summary text");
				assert.ok(view.includes("Also reject whitespace-only"), "a kept entry");
				await page.locator("[data-testid=compaction-audit]").waitFor();
				assert.ok((await page.locator("[data-testid=hidden-entry]").count()) >= 1, "hidden entries listed");
				await page.screenshot({ path: join(shots, "context-preview.png") });

				// Read-only: the navigate action does not write.
				await selectRow(page, fx.ids.branch1Leaf);
				const nav = page.locator("[data-testid=action-navigate]");
				if ((await nav.count()) > 0 && (await nav.isEnabled())) await nav.click();
				await page.waitForTimeout(300);
				await page.screenshot({ path: join(shots, "read-only-navigate.png") });
				assert.deepEqual(problems, [], "no CSP violation or page error");
			} finally {
				await srv.stop();
			}
			assert.ok(readFileSync(fx.ids.sessionA).equals(before), "read-only: the file is byte-identical");
		},
	},
	{
		name: "--allow-writes: Navigate here appends one leaf line, and it survives a reload; a live append shows up",
		async run({ b, fx }) {
			const before = readFileSync(fx.ids.sessionA);
			const n = lines(fx.ids.sessionA).length;
			const srv = await serve(fx.root, ["--allow-writes"]);
			try {
				const { page, problems } = await open(b, srv);
				await openSession(page, fx.ids.sessionA);
				const target = fx.ids.branch1Leaf;
				await selectRow(page, target);
				await page.locator("[data-testid=action-navigate]").click();
				await page.locator(`[data-testid=tree-row][data-id=${q(target)}] [data-testid=leaf-pill]`).waitFor();
				assert.equal(await page.locator("[data-testid=leaf-pill]").count(), 1, "one leaf");
				const after = readFileSync(fx.ids.sessionA);
				assert.ok(after.subarray(0, before.length).equals(before), "the old bytes are untouched");
				const all = lines(fx.ids.sessionA);
				assert.equal(all.length, n + 1, "one line appended");
				const last = JSON.parse(all.at(-1));
				assert.deepEqual([last.type, last.targetId, last.parentId], ["leaf", target, target]);
				await page.screenshot({ path: join(shots, "navigate.png") });

				await page.reload();
				await openSession(page, fx.ids.sessionA);
				await page.locator(`[data-testid=tree-row][data-id=${q(target)}] [data-testid=leaf-pill]`).waitFor();
				await page.screenshot({ path: join(shots, "navigate-after-reload.png") });

				// Another process appends: the watcher's root-changed event arrives over SSE.
				const id = "live0001";
				const t0 = Date.now();
				appendFileSync(
					fx.ids.sessionA,
					JSON.stringify({ type: "message", id, parentId: target, timestamp: new Date().toISOString(), message: { role: "user", content: "Appended while the page was open.", timestamp: Date.now() } }) + "\n",
				);
				await page.locator(`[data-testid=tree-row][data-id=${q(id)}]`).waitFor({ timeout: 5000 });
				console.log(`     live append visible after ${Date.now() - t0} ms`);
				await page.screenshot({ path: join(shots, "live-append.png") });
				assert.deepEqual(problems, [], "no CSP violation or page error");
			} finally {
				await srv.stop();
			}
		},
	},
	{
		name: "--allow-writes: pi mid-line: Navigate is refused with `busy` and nothing is written; Try again writes once the line ends",
		async run({ b, fx }) {
			const srv = await serve(fx.root, ["--allow-writes"]);
			// pi begins a line and keeps adding to it (a byte every 100 ms) while we write.
			const head = JSON.stringify({ type: "message", id: "live0002", parentId: fx.ids.branch3Leaf, timestamp: new Date().toISOString(), message: { role: "user", content: "x", timestamp: Date.now() } });
			const [begun, rest] = [head.slice(0, head.indexOf('"x"') + 2), head.slice(head.indexOf('"x"') + 2)];
			appendFileSync(fx.ids.sessionA, begun);
			const ticker = setInterval(() => appendFileSync(fx.ids.sessionA, "y"), 100);
			try {
				const { page, problems } = await open(b, srv);
				await openSession(page, fx.ids.sessionA);
				const n = lines(fx.ids.sessionA).length;
				const target = fx.ids.branch1Leaf;
				await selectRow(page, target);
				await page.locator("[data-testid=action-navigate]").click();
				// The tree shows the unfinished line as a torn tail: the UI asks first.
				await page.locator("[data-testid=torn-confirm]").click();
				const retry = page.locator("[data-testid=busy-retry]");
				await retry.waitFor({ timeout: 10000 });
				const toast = await page.locator("[data-testid=toast]", { has: retry }).innerText();
				assert.ok(toast.includes("pi is writing this session") && toast.includes("try again"), toast);
				await page.screenshot({ path: join(shots, "busy.png") });
				assert.equal(lines(fx.ids.sessionA).length, n, "nothing of ours was written");
				assert.ok(!readFileSync(fx.ids.sessionA, "utf8").includes('"type":"leaf"'), "no leaf line");
				// pi ends its line; Try again writes our line after it.
				clearInterval(ticker);
				appendFileSync(fx.ids.sessionA, `${rest}\n`);
				await retry.click();
				await page.locator(`[data-testid=tree-row][data-id=${q(target)}] [data-testid=leaf-pill]`).waitFor();
				const all = lines(fx.ids.sessionA);
				assert.equal(all.length, n + 1, "pi's line ended, then ours");
				const [theirs, ours] = all.slice(-2).map((l) => JSON.parse(l));
				assert.equal(theirs.id, "live0002");
				assert.deepEqual([ours.type, ours.targetId], ["leaf", target]);
				await page.screenshot({ path: join(shots, "busy-retried.png") });
				assert.deepEqual(problems, [], "no CSP violation or page error");
			} finally {
				clearInterval(ticker);
				await srv.stop();
			}
		},
	},
];

let passed = 0;
const failed = [];
const b = await browser();
try {
	for (const spec of specs) {
		const dir = mkdtempSync(join(tmpdir(), "pi-serve-e2e-"));
		const fx = writeFixtures(join(dir, "sessions"));
		const t0 = Date.now();
		try {
			await spec.run({ b, fx });
			passed++;
			console.log(`ok   ${spec.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
		} catch (e) {
			failed.push(spec.name);
			console.log(`FAIL ${spec.name}: ${e.stack ?? e}`);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}
} finally {
	await b.close();
}
console.log(`\nscreenshots: ${shots}`);
console.log(`${passed} passed, ${failed.length} failed${failed.length ? `: ${failed.join(", ")}` : ""}`);
process.exitCode = failed.length || passed === 0 ? 1 : 0;

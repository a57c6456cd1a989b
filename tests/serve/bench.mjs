// The serve benchmark: `pi-session serve` and Chromium (headless, Playwright). Prints, asserts
// no timing:
//   - first sessions on screen on a root of N sessions: from the server's start (first start,
//     no list cache) and again (second start, cache warm), and from the page load;
//   - click to first rows of the 200,000-entry session.
//
//   node tests/serve/bench.mjs --many ROOT --big FILE [--bin target/release/pi-session]
// (bench/serve.sh makes the corpus and calls this.)

import { linkSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";

import { cwdFolder, writeSmallSession } from "../lib/sessions.mjs";
import { browser, q, serve } from "./lib.mjs";

const arg = (k) => (process.argv.includes(k) ? process.argv[process.argv.indexOf(k) + 1] : null);
const many = arg("--many");
const big = arg("--big");
if (!many || !big) {
	console.error("usage: node tests/serve/bench.mjs --many ROOT --big FILE [--bin PI_SESSION]");
	process.exit(2);
}
if (arg("--bin")) process.env.PI_SESSION_BIN = arg("--bin");

const count = (d) => readdirSync(d, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? count(join(d, e.name)) : e.name.endsWith(".jsonl") ? 1 : 0), 0);
const show = (k, v, unit = "ms", note = "") => console.log(`  ${k.padEnd(52)} ${typeof v === "number" ? v.toFixed(v < 10 ? 1 : 0) : v} ${unit}${note ? `  (${note})` : ""}`);

/** Loads the page; resolves with ms from `since` (epoch ms) and from navigation to the list on screen. */
async function firstSessions(page, srv, since) {
	await page.goto(srv.url);
	const { at, rel } = await page.evaluate(
		() =>
			new Promise((done) => {
				(function poll() {
					const h = window.__piExplorer;
					if (h && h.firstSessionsAt) done({ at: performance.timeOrigin + h.firstSessionsAt, rel: h.firstSessionsAt });
					else setTimeout(poll, 10);
				})();
			}),
	);
	return { fromStart: at - since, fromLoad: rel };
}

const b = await browser();
const cache = mkdtempSync(join(tmpdir(), "pi-serve-bench-cache-"));
try {
	const n = count(many);
	console.log(`serve benchmark: ${n} sessions in ${many}; big file ${basename(big)}`);
	for (const run of ["first start (no list cache)", "second start (cache warm)"]) {
		const t0 = Date.now();
		const srv = await serve(many, [], { PI_SESSION_CACHE_DIR: cache });
		const page = await b.ctx.newPage();
		const r = await firstSessions(page, srv, t0);
		show(`${run}: server start to first sessions`, r.fromStart, "ms", `${n} sessions; spawn, page load, list drawn`);
		show(`${run}: page load to first sessions`, r.fromLoad, "ms");
		const rows = await page.locator("[data-testid=session-row]").count();
		show(`${run}: session rows in the DOM`, rows, "rows", "the list is virtualised");
		await page.close();
		await srv.stop();
	}

	// A root with the big session and a newer small one: the app opens the most recent session
	// at start, so the big one is first opened by the click measured here.
	const root = mkdtempSync(join(tmpdir(), "pi-serve-bench-root-"));
	const bigDir = join(root, basename(dirname(big)));
	mkdirSync(bigDir);
	const bigHere = join(bigDir, basename(big));
	try {
		linkSync(big, bigHere);
	} catch {
		copyFileSync(big, bigHere);
	}
	const now = new Date().toISOString();
	writeSmallSession({ dir: join(root, cwdFolder("/home/bench/small")), cwd: "/home/bench/small", id: "0197ffff-0000-7000-8000-000000000001", created: now, entryId: "5a11a001", content: "a small session" });
	const srv = await serve(root, [], { PI_SESSION_CACHE_DIR: cache });
	const page = await b.ctx.newPage();
	await page.goto(srv.url);
	await page.locator(`[data-testid=session-row][data-path=${q(bigHere)}]`).waitFor({ timeout: 120000 });
	// The small session is open (the most recent): its rows are on screen.
	await page.locator("[data-testid=tree-row]").first().waitFor({ timeout: 60000 });
	await page.waitForTimeout(500);
	const ms = await page.evaluate(
		([path, want]) =>
			new Promise((done) => {
				const row = [...document.querySelectorAll("[data-testid=session-row]")].find((r) => r.getAttribute("data-path") === path);
				const t0 = performance.now();
				row.click();
				(function poll() {
					const status = document.querySelector("[data-testid=statusbar]");
					const rows = document.querySelectorAll("[data-testid=tree-row]");
					if (status && status.innerText.includes(want) && rows.length > 0) done(performance.now() - t0);
					else requestAnimationFrame(poll);
				})();
			}),
		[bigHere, basename(big).slice(0, 20)],
	);
	show("click to first rows (200k-entry session)", ms, "ms", "over HTTP, first open of the file");
	await page.close();
	await srv.stop();
	rmSync(root, { recursive: true, force: true });
} finally {
	await b.close();
	rmSync(cache, { recursive: true, force: true });
}

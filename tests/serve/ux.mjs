// The views on big and odd folders in Chromium against `pi-session serve` (the same specs as the
// window's specs-ux-views.mjs, through HTTP): the Context view, the fork graph past 50 sessions, files
// that hold no session, the dashboard without costs, session markers, images as blob: URLs under
// the served CSP (no violation).

import assert from "node:assert/strict";
import { join } from "node:path";

import { manySessions } from "../e2e/journeys.mjs";
import { uxManyRoot } from "../e2e/ux-fixtures.mjs";
import { rowLayout } from "../lib/layout.mjs";
import { CounterIds, SessionBuilder, SimClock, cwdFolder } from "../lib/sessions.mjs";
import { bin, q, serve } from "./lib.mjs";

async function until(fn, what, timeout = 20000) {
	const end = Date.now() + timeout;
	let last;
	while (Date.now() < end) {
		last = await fn();
		if (last) return last;
		await new Promise((r) => setTimeout(r, 100));
	}
	throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/** The 2,000-file history served; the page at 1280×800 with CSP violations collected. */
async function served(b, dir, open) {
	const root = join(dir, "many");
	const fx = uxManyRoot(root, bin(), manySessions);
	const srv = await serve(root);
	const { page, problems } = await open(b, srv);
	await page.setViewportSize({ width: 1280, height: 800 });
	await page.locator("[data-testid=session-row]").first().waitFor({ timeout: 60000 });
	await until(() => page.evaluate(() => !document.querySelector("[data-testid=index-progress]")), "the index complete", 90000);
	return { fx, srv, page, problems };
}

/**
 * Two copies of one session (the same messages, so the same row heights at the same indices) in
 * `root`: a conversation whose messages wrap to several lines. The copies' entry ids differ (a
 * transcript does not show them), so a test can tell which one is drawn. Returns the two files
 * and the ids of each.
 */
function twinSessions(root) {
	const cwd = "/home/demo/work/twins";
	const clock = new SimClock(Date.parse("2026-06-20T09:00:00.000Z"));
	const files = [];
	const ids = [];
	for (const n of [1, 2]) {
		const s = new SessionBuilder({ dir: join(root, cwdFolder(cwd)), cwd, id: `0197a3c2-7717-7e00-8000-00000000000${n}`, clock, step: 5000, ids: new CounterIds(`c${n}`) });
		ids.push([]);
		for (let k = 0; k < 6; k++) {
			const words = "the parser keeps every line it reads, and a torn last line waits for its end".split(" ");
			const long = Array.from({ length: 12 + 9 * k }, (_, w) => words[(w + k) % words.length]).join(" ");
			ids.at(-1).push(s.user(`Step ${k + 1}: ${long}.`));
			ids.at(-1).push(s.assistant(`Done with step ${k + 1}. ${long.slice(0, 40 + 30 * k)}.`));
		}
		files.push(s.write());
	}
	return { files, ids };
}

/** Waits until the list's rows follow one another (no row over another, no gap); fails with the last layout. */
async function rowsInPlace(page, container, what) {
	let last = null;
	const end = Date.now() + 5000;
	while (Date.now() < end) {
		last = await page.evaluate(rowLayout, container);
		if (last && last.rows.length >= 3 && last.bad.length === 0) break;
		await new Promise((r) => setTimeout(r, 100));
	}
	assert.ok(last && last.rows.length >= 3, `${what}: rows drawn (${JSON.stringify(last)})`);
	assert.deepEqual(last.bad, [], `${what}: every row starts where the one above it ends`);
	// Not a vacuous check: the rows were measured, not all left at the views' estimate (96 px).
	assert.ok(last.rows.some((r) => r.h !== 96), `${what}: measured heights ${last.rows.map((r) => r.h)}`);
	return last;
}

async function openImages(page, fx) {
	await page.evaluate((p) => document.querySelector(`[data-testid=session-row][data-path=${JSON.stringify(p)}]`)?.scrollIntoView(), fx.img.file);
	await page.locator(`[data-testid=session-row][data-path=${q(fx.img.file)}]`).click();
	await page.locator("[data-testid=tree-row]").first().waitFor();
}

export function uxServeSpecs({ open, shots }) {
	return [
		{
			name: "ux (serve): a list's rows stay in place when it is replaced by one of the same heights: a copy of the open session in the transcript, another entry's context",
			async run({ b, dir }) {
				const root = join(dir, "twins");
				const { files, ids } = twinSessions(root);
				const srv = await serve(root);
				try {
					const { page, problems } = await open(b, srv);
					await page.setViewportSize({ width: 1280, height: 800 });
					const openFile = async (f) => {
						await page.locator(`[data-testid=session-row][data-path=${q(f)}]`).click();
						await until(async () => (await page.locator("[data-testid=session-row][aria-current=true]").getAttribute("data-path")) === f, `${f} open`);
						await page.locator("[data-testid=tree-row]").first().waitFor({ state: "attached" });
					};
					// The transcript of the first copy, then of the second: the same rows at the same indices.
					await openFile(files[0]);
					await page.locator("[data-testid=tab-transcript]").click();
					await page.locator("[data-testid=transcript-item]").first().waitFor();
					const first = await rowsInPlace(page, "[data-testid=transcript-view] .spacer", "the first copy's transcript");
					await openFile(files[1]);
					// The second copy's rows drawn (its ids), in the slots the first one's used.
					await page.locator(`[data-testid=transcript-item][data-id=${q(ids[1][0])}]`).waitFor();
					const second = await rowsInPlace(page, "[data-testid=transcript-view] .spacer", "the second copy's transcript");
					assert.deepEqual(second.rows, first.rows, "the copies' transcripts are drawn alike");
					await page.screenshot({ path: join(shots, "ux-rows-copy-transcript.png") });
					// The Context view at the last entry, then at the one before it: the same messages above.
					const [last, before] = [ids[1].at(-1), ids[1].at(-2)];
					const total = async () => Number((await page.locator("[data-testid=context-full-summary]").innerText()).match(/(\d+) messages?/)?.[1] ?? NaN);
					await page.evaluate((i) => window.__piExplorerTest.reveal(i), last);
					await page.locator("[data-testid=tab-context]").click();
					const atLast = await until(async () => (await page.locator("[data-testid=context-row]").count()) > 0 && (await total()), "the context at the last entry");
					await rowsInPlace(page, "[data-testid=context-full] .spacer-h", "the context at the last entry");
					// The entry before: the same messages above it, one fewer (so drawn from the new view).
					await page.evaluate((i) => window.__piExplorerTest.reveal(i), before);
					await until(async () => (await total()) === atLast - 1, "the context at the entry before");
					await rowsInPlace(page, "[data-testid=context-full] .spacer-h", "the context at the entry before");
					await page.screenshot({ path: join(shots, "ux-rows-context.png") });
					assert.deepEqual(problems, [], "no CSP violation, no page error");
				} finally {
					await srv.stop();
				}
			},
		},
		{
			name: "ux 2 and 10 (serve): the Context view expands without selecting; images decode into blob: URLs with no CSP violation",
			async run({ b, dir }) {
				const { fx, srv, page, problems } = await served(b, dir, open);
				try {
					await openImages(page, fx);
					await page.locator("[data-testid=tab-transcript]").click();
					await page.evaluate(() => {
						const t = document.querySelector("[data-testid=transcript-view]");
						t.scrollTop = t.scrollHeight;
					});
					const img = page.locator("[data-testid=transcript-item] [data-testid=session-image] img").first();
					await img.waitFor({ timeout: 15000 });
					await until(() => img.evaluate((i) => i.complete && i.naturalWidth > 0), "the image decoded");
					assert.ok((await img.getAttribute("src")).startsWith("blob:"));
					await page.locator("[data-testid=image-note]").first().waitFor();
					await page.screenshot({ path: join(shots, "ux-images.png") });
					await page.locator("[data-testid=tab-context]").click();
					const head = page.locator("[data-testid=context-row-head]").nth(2);
					await head.click();
					await page.locator("[data-testid=context-row][data-open=true]").first().waitFor();
					const drawn = await page.locator("[data-testid=context-row]").count();
					const total = Number((await page.locator("[data-testid=context-full-summary]").innerText()).match(/(\d+) messages/)[1]);
					assert.ok(drawn < total, `${drawn} rows drawn of ${total}`);
					await page.screenshot({ path: join(shots, "ux-context.png") });
					assert.deepEqual(problems, [], "no CSP violation, no page error");
				} finally {
					await srv.stop();
				}
			},
		},
		{
			name: "ux 3, 6, 7 and 8 (serve): the fork graph on a family, files that hold no session counted, tokens on the dashboard, copies marked",
			async run({ b, dir }) {
				const { fx, srv, page, problems } = await served(b, dir, open);
				try {
					// 6: not the empty file at start; the two files that hold no session counted with what pi does.
					const opened = await page.locator("[data-testid=session-row][aria-current=true]").getAttribute("data-path");
					assert.notEqual(opened, fx.bad.empty);
					await page.locator("[data-testid=diagnostics-footer]").click();
					assert.equal(await page.locator("[data-testid=diag-unreadable] [data-testid=pi-note]").count(), 2);
					// 8: the copies' markers.
					await openImages(page, fx);
					const marker = (p) => page.locator(`[data-testid=session-row][data-path=${q(p)}] [data-testid=copy-marker]`).innerText();
					assert.equal(await marker(fx.copies.slim), "slim");
					assert.equal(await marker(fx.copies.pruned), "pruned");
					// 3: the family at a readable zoom, a fork point as entry n of m.
					await page.locator("[data-testid=tab-forks]").click();
					await page.locator("[data-testid=fork-node]").first().waitFor({ timeout: 30000 });
					assert.ok(await page.locator("[data-testid=fork-family]").isChecked());
					const k = await page.evaluate(() => Number(document.querySelector("[data-testid=fork-graph] .stage").style.transform.match(/scale\(([^)]+)\)/)[1]));
					assert.ok(k >= 1, `zoom ${k}`);
					const label = await page.evaluate(() => [...document.querySelector("[data-testid=fork-edge-label]").childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(""));
					assert.match(label, /^entry \d+ of \d+ · “/);
					await page.locator("[data-testid=fork-minimap]").waitFor();
					await page.screenshot({ path: join(shots, "ux-forks.png") });
					// 7: tokens when no cost.
					await page.locator("[data-testid=tab-dashboard]").click();
					await page.locator("[data-testid=dash-no-cost]").waitFor({ timeout: 30000 });
					assert.match(await page.locator("[data-testid=dash-tokens]").innerText(), /^\d+(\.\d)?[kMB]$/);
					await page.screenshot({ path: join(shots, "ux-dashboard.png") });
					assert.deepEqual(problems, [], "no CSP violation, no page error");
				} finally {
					await srv.stop();
				}
			},
		},
	];
}

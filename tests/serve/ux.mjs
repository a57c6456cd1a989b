// The views on big and odd folders in Chromium against `pi-session serve` (the same specs as the
// window's specs-ux-views.mjs, through HTTP): the Context view, the fork graph past 50 sessions, files
// that hold no session, the dashboard without costs, session markers, images as blob: URLs under
// the served CSP (no violation).

import assert from "node:assert/strict";
import { join } from "node:path";

import { manySessions } from "../e2e/journeys.mjs";
import { uxManyRoot } from "../e2e/ux-fixtures.mjs";
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

async function openImages(page, fx) {
	await page.evaluate((p) => document.querySelector(`[data-testid=session-row][data-path=${JSON.stringify(p)}]`)?.scrollIntoView(), fx.img.file);
	await page.locator(`[data-testid=session-row][data-path=${q(fx.img.file)}]`).click();
	await page.locator("[data-testid=tree-row]").first().waitFor();
}

export function uxServeSpecs({ open, shots }) {
	return [
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

// End-to-end specs of the views on big and odd folders, one per point: the Context view, the
// fork graph past 50 sessions, every file accounted for, the dashboard without costs, sessions
// told apart in the list, images. Each runs on a 2,000-file generated history and on a folder
// pi 1.6.0 wrote (ux-fixtures.mjs), and saves its screenshots at 1280×800 into docs/screenshots
// (ux-<point>-<what>.png).

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { repo, targetDir } from "./harness.mjs";
import { manySessions } from "./journeys.mjs";
import { uxManyRoot, uxPi16Root } from "./ux-fixtures.mjs";
import { Keys, sleep } from "./webdriver.mjs";

const cli = process.env.PI_SESSION_BIN ?? join(targetDir, "debug/pi-session");
const node24 = process.env.NODE24 ?? join(repo, ".tools/bin/node24");
const pi16 = process.env.PI16_DIR ?? join(repo, "tests/pi-oracle/pi16");
const q = (s) => JSON.stringify(s);
const docs = join(repo, "docs/screenshots");

async function until(fn, what, timeout = 10000) {
	const end = Date.now() + timeout;
	let last;
	while (Date.now() < end) {
		last = await fn();
		if (last) return last;
		await sleep(100);
	}
	throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/** Opens the app on `root` at 1280×800 (on `session` when given). */
async function openAt(h, root, session) {
	const d = await h.open(["--sessions-dir", root, ...(session ? ["--session", session] : [])]);
	await d.cmd("POST", "/window/rect", { width: 1280, height: 800 });
	await d.waitFor("[data-testid=session-row]", { timeout: 60000, what: "the session list" });
	return d;
}

async function openSession(d, path) {
	await d.exec(`document.querySelector('[data-testid=session-row][data-path=${q(path).replace(/'/g, "\\'")}]')?.scrollIntoView({ block: 'center' })`);
	const row = await d.waitFor(`[data-testid=session-row][data-path=${q(path)}]`, { timeout: 30000, what: `the row of ${path}` });
	await row.click();
	await until(async () => (await d.exec(`const r = document.querySelector('[data-testid=session-row][data-path=${q(path)}]'); return r && r.getAttribute('aria-current') === 'true'`)) && (await d.exec("return document.querySelectorAll('[data-testid=tree-row]').length > 0")), `${path} open`, 20000);
}

async function selectRow(d, id) {
	const row = await d.waitFor(`[data-testid=tree-row][data-id=${q(id)}]`, { timeout: 20000, what: `tree row ${id}` });
	await row.click();
	await until(async () => (await d.exec("const el = document.querySelector('[data-testid=inspector-id]'); return el ? el.textContent.trim() : null")) === id, `${id} inspected`);
}

/** Selects an entry whose row may be drawn off screen: scrolled into view first. */
async function selectEntry(d, id) {
	await d.waitFor(`[data-testid=tree-row][data-id=${q(id)}]`, { timeout: 20000, what: `tree row ${id}` });
	await d.exec(`document.querySelector('[data-testid=tree-row][data-id=${q(id)}]').scrollIntoView({ block: 'center' })`);
	await sleep(200);
	return selectRow(d, id);
}

/** The first fork edge's label as drawn (an SVG text: its text nodes, not its tooltip). */
const edgeLabel = (d) => d.exec("return [...document.querySelector('[data-testid=fork-edge-label]').childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('')");

async function save(d, name) {
	mkdirSync(docs, { recursive: true });
	await sleep(500);
	writeFileSync(join(docs, `${name}.png`), await d.screenshot());
}

const shotBoth = async (h, d, name) => {
	await h.shot(name);
	await save(d, name);
};

export const uxViewSpecs = [
	{
		name: "ux 2: the Context view shows the context whole, a click expands and never selects; pages of rows for 1,000 messages",
		async run({ h, dir }) {
			const many = uxManyRoot(join(dir, "many"), cli, manySessions);
			let d = await openAt(h, join(dir, "many"));
			await openSession(d, many.img.file);
			await selectRow(d, await d.exec("return document.querySelector('[data-testid=leaf-pill]').closest('[data-testid=tree-row]').getAttribute('data-id')"));
			const leaf = await d.exec("return document.querySelector('[data-testid=inspector-id]').textContent.trim()");
			// The inspector keeps its summary, with a link to the view.
			await (await d.waitFor("[data-testid=open-context-view]", { what: "the link to the Context view" })).click();
			await d.waitFor("[data-testid=context-row]", { what: "context rows" });
			const summary = await (await d.find("[data-testid=context-full-summary]")).text();
			const total = Number(summary.match(/(\d+) messages/)[1]);
			assert.ok(total > 400, summary);
			// Only the rows in view are drawn.
			const drawn = await d.exec("return document.querySelectorAll('[data-testid=context-row]').length");
			assert.ok(drawn < 40 && drawn < total, `${drawn} rows drawn of ${total}`);
			// The compaction summary first, marked; tokens on every row.
			const first = await d.find("[data-testid=context-row]");
			assert.equal(await first.attr("data-role"), "compactionSummary");
			await d.waitFor("[data-testid=context-row] [data-testid=summary-mark]", { what: "the summary mark" });
			await d.waitFor("[data-testid=context-row] [data-testid=kept-mark]", { what: "kept messages marked" });
			const tok = await (await d.find("[data-testid=context-row-tokens]")).text();
			assert.match(tok, /≈[\d.]+k? tok/, tok);
			// A click expands the message whole and never selects another entry.
			await (await d.find("[data-testid=context-row] [data-testid=context-row-head]")).click();
			await d.waitFor("[data-testid=context-row][data-open=true] [data-testid=context-summary-text]", { what: "the summary expanded" });
			const rows = await d.findAll("[data-testid=context-row-head]");
			await rows[3].click();
			await d.waitFor("[data-testid=context-row][data-open=true] [data-testid=tool-call] pre, [data-testid=context-row][data-open=true] .content", { what: "a message expanded" });
			assert.equal(await d.exec("return window.__piExplorerTest.selectedId()"), leaf, "the selection stays");
			// The view is full width: the inspector steps aside, as beside the audit.
			assert.equal(await d.exec("return !!document.querySelector('[data-testid=inspector-id]')"), false, "no inspector beside the Context view");
			// The last page: scrolled to the end, the last message (the leaf) is drawn.
			await d.exec("const s = document.querySelector('[data-testid=context-full]'); s.scrollTop = s.scrollHeight");
			await until(() => d.exec(`return !!document.querySelector('[data-testid=context-row][data-id=${q(leaf)}]')`), "the last message drawn", 15000);
			await d.exec("const s = document.querySelector('[data-testid=context-full]'); s.scrollTop = 0");
			await sleep(300);
			await shotBoth(h, d, "ux-2-context-2000");
			await h.close();

			// pi 1.6.0's folder: its system message, a context edit's replacement beside the original.
			const p = uxPi16Root(join(dir, "p16"), cli, repo, node24, pi16);
			d = await openAt(h, join(dir, "p16"));
			await openSession(d, p.file);
			await selectRow(d, p.ids.assistant4);
			await (await d.find("[data-testid=tab-context]")).click();
			await d.waitFor("[data-testid=context-row][data-role=system]", { what: "pi 1.6's system message" });
			const edited = await d.waitFor("[data-testid=context-row] [data-testid=edited-mark]", { what: "the edited mark" });
			await edited.click();
			await d.waitFor("[data-testid=context-original]", { what: "the original beside the replacement" });
			const body = await (await d.find("[data-testid=context-full]")).text();
			assert.ok(body.includes("[output removed: it held a secret]") && body.includes("ORIGINAL-SECRET-OUTPUT"), body.slice(0, 400));
			assert.equal(await d.exec("return window.__piExplorerTest.selectedId()"), p.ids.assistant4);
			await shotBoth(h, d, "ux-2-context-pi16");
		},
	},
	{
		name: "ux 3: the fork graph of 2,000 sessions opens on the open session's family at a readable zoom, folders folded, with a filter and a minimap",
		async run({ h, dir }) {
			const many = uxManyRoot(join(dir, "many"), cli, manySessions);
			const last = many.many[1999];
			let d = await openAt(h, join(dir, "many"), last.file);
			await until(() => d.exec(`const r = document.querySelector('[data-testid=session-row][aria-current=true]'); return r && r.getAttribute('data-path') === ${q(last.file)}`), "the session open", 60000);
			// Fork points are known once the files are indexed.
			await until(() => d.exec("return !document.querySelector('[data-testid=index-progress]')"), "the index complete", 90000);
			await (await d.find("[data-testid=tab-forks]")).click();
			await d.waitFor("[data-testid=fork-graph] [data-testid=fork-node]", { timeout: 60000, what: "the graph" });
			assert.ok(await d.exec("return document.querySelector('[data-testid=fork-family]').checked"), "the family scope");
			const k = () => d.exec("return Number(document.querySelector('[data-testid=fork-graph] .stage').style.transform.match(/scale\\(([^)]+)\\)/)[1])");
			const px = await d.exec("const t = document.querySelector('[data-testid=fork-node] .t2'); return parseFloat(getComputedStyle(t).fontSize)");
			assert.ok(px * (await k()) >= 11, `text ${px} px at scale ${await k()}`);
			const nodes = await d.exec("return document.querySelectorAll('[data-testid=fork-node]').length");
			assert.ok(nodes > 1 && nodes < 300, `${nodes} nodes in the family`);
			assert.ok(await d.exec(`return !!document.querySelector('[data-testid=fork-node][data-path=${q(last.file)}]')`), "the open session drawn");
			await d.waitFor("[data-testid=fork-edge-label]", { timeout: 20000, what: "a fork point label" });
			const label = await edgeLabel(d);
			assert.match(label, /^entry \d+ of \d+ · “/, label);
			await d.waitFor("[data-testid=fork-minimap] [data-testid=fork-minimap-frame]", { what: "the minimap" });
			await shotBoth(h, d, "ux-3-forks-family-2000");
			// Every fork: the folders but the open session's folded, the zoom still readable.
			await (await d.find("[data-testid=fork-family]")).click();
			await until(async () => (await d.exec("return document.querySelectorAll('[data-testid=fork-group][data-collapsed=true]').length")) >= 9, "the other folders folded");
			assert.ok((await k()) >= 1, `zoom ${await k()}`);
			await shotBoth(h, d, "ux-3-forks-folded-2000");
			// The filter narrows to the matches and their way back to the first session.
			const input = await d.find("[data-testid=fork-filter]");
			await input.type("-1999-");
			await until(async () => (await d.exec("return document.querySelectorAll('[data-testid=fork-node]').length")) <= 210, "the filter to narrow the graph");
			assert.ok(await d.exec(`return !!document.querySelector('[data-testid=fork-node][data-path=${q(last.file)}]')`), "the match drawn");
			assert.match(await (await d.find("[data-testid=fork-filter-count]")).text(), /^\d+ sessions?$/);
			await shotBoth(h, d, "ux-3-forks-filter-2000");
			// A click on the minimap moves the view.
			const before = await d.exec("return document.querySelector('[data-testid=fork-graph] .stage').style.transform");
			await d.exec("const m = document.querySelector('[data-testid=fork-minimap]'); const r = m.getBoundingClientRect(); m.dispatchEvent(new PointerEvent('pointerdown', { clientX: r.left + r.width - 5, clientY: r.top + r.height - 5, bubbles: true, pointerId: 1 })); m.dispatchEvent(new PointerEvent('pointerup', { bubbles: true, pointerId: 1 }))");
			await until(async () => (await d.exec("return document.querySelector('[data-testid=fork-graph] .stage').style.transform")) !== before, "the minimap to move the view");
			await h.close();

			const p = uxPi16Root(join(dir, "p16"), cli, repo, node24, pi16);
			d = await openAt(h, join(dir, "p16"));
			await openSession(d, p.file);
			await (await d.find("[data-testid=tab-forks]")).click();
			await d.waitFor("[data-testid=fork-edge-label]", { what: "a fork label" });
			const l16 = await edgeLabel(d);
			assert.match(l16, /^entry \d+ of \d+ · “/, l16);
			await (await d.find(`[data-testid=fork-node][data-path=${q(p.slim)}]`)).click();
			const det = await (await d.waitFor("[data-testid=fork-details]")).text();
			assert.ok(det.includes("slim fork of") && /entry \d+ of \d+/.test(det), det);
			await shotBoth(h, d, "ux-3-forks-pi16");
		},
	},
	{
		name: "ux 6: every file is accounted for: files that hold no session are counted and listed with what pi does; the app starts on the newest session with entries",
		async run({ h, dir }) {
			const many = uxManyRoot(join(dir, "many"), cli, manySessions);
			let d = await openAt(h, join(dir, "many"));
			// The empty file is the newest; the app opens the newest session with entries.
			await until(() => d.exec("return !!document.querySelector('[data-testid=session-row][aria-current=true]')"), "a session open at start", 30000);
			const opened = await d.exec("return document.querySelector('[data-testid=session-row][aria-current=true]').getAttribute('data-path')");
			assert.notEqual(opened, many.bad.empty, "not the empty file");
			await d.waitFor("[data-testid=tree-row]", { what: "its tree" });
			// Counted once every file is indexed: the two files that hold no session and the empty one.
			const footer = await d.waitFor("[data-testid=diagnostics-footer]", { what: "the diagnostics footer" });
			const count = async () => Number(((await footer.text()).match(/(\d+) files? with diagnostics/) ?? [])[1] ?? 0);
			await until(async () => (await count()) >= 3, "the empty file counted", 60000);
			const n = await count();
			await footer.click();
			const items = await d.findAll("[data-testid=diag-unreadable]");
			const paths = await Promise.all(items.map((i) => i.attr("data-path")));
			assert.deepEqual(paths.sort(), [many.bad.notes, many.bad.random].sort());
			assert.ok(n >= 3, `${n} counted: the two files and the empty one`);
			const notes = await Promise.all((await d.findAll("[data-testid=diag-unreadable] [data-testid=pi-note]")).map((e) => e.text()));
			assert.equal(notes.length, 2);
			for (const t of notes) assert.ok(t.includes("/resume") && t.includes("not a valid pi session"), t);
			const emptyRow = await d.exec(`const b = [...document.querySelectorAll('[data-testid=diag-session]')].find((x) => x.title.includes(${q(many.bad.empty)})); return b ? b.textContent + '|' + b.title : null`);
			assert.ok(emptyRow && emptyRow.includes("no entries") && emptyRow.includes("fresh header"), emptyRow);
			await d.exec("document.querySelector('[data-testid=diag-unreadable]').scrollIntoView()");
			await shotBoth(h, d, "ux-6-unreadable-2000");
			await h.close();

			const p = uxPi16Root(join(dir, "p16"), cli, repo, node24, pi16);
			d = await openAt(h, join(dir, "p16"));
			await until(() => d.exec("return !!document.querySelector('[data-testid=session-row][aria-current=true]')"), "a session open at start", 30000);
			assert.notEqual(await d.exec("return document.querySelector('[data-testid=session-row][aria-current=true]').getAttribute('data-path')"), p.bad.empty);
			await (await d.waitFor("[data-testid=diagnostics-footer]")).click();
			assert.equal((await d.findAll("[data-testid=diag-unreadable]")).length, 2);
			await shotBoth(h, d, "ux-6-unreadable-pi16");
		},
	},
	{
		name: "ux 7: the dashboard shows tokens when no cost is reported, the top 10 and other, k/M/B figures, full width",
		async run({ h, dir }) {
			uxManyRoot(join(dir, "many"), cli, manySessions);
			let d = await openAt(h, join(dir, "many"));
			await (await d.find("[data-testid=tab-dashboard]")).click();
			await d.waitFor("[data-testid=dash-totals]", { timeout: 60000, what: "the totals" });
			await d.waitFor("[data-testid=dash-no-cost]", { what: "the note: tokens shown" });
			assert.equal(await d.exec("return document.querySelector('[data-testid=dash-metric-tokens]').getAttribute('aria-checked') ?? document.querySelector('[data-testid=dash-metric-tokens]').getAttribute('aria-pressed') ?? document.querySelector('[data-testid=dash-metric-tokens]').getAttribute('aria-selected')"), "true");
			const total = await (await d.find("[data-testid=dash-tokens]")).text();
			assert.match(total, /^\d+(\.\d)?[kMB]$/, total);
			// 52 projects: 10 bars and other.
			await until(() => d.exec("return window.__piExplorerTest && window.__piExplorerTest.barPoint && window.__piExplorerTest.barPoint('project', 10) !== null"), "the project chart");
			assert.equal(await d.exec("return window.__piExplorerTest.barPoint('project', 11)"), null, "11 bars at most");
			assert.ok(await d.exec("return window.__piExplorerTest.barPoint('model', 0) !== null"), "the model chart has bars");
			const widths = await d.exec("const d = document.querySelector('[data-testid=dashboard]').getBoundingClientRect().width; const c = document.querySelector('[data-testid=chart-project]').getBoundingClientRect().width; return [d, c]");
			assert.ok(widths[1] > widths[0] * 0.85, `full width: ${widths}`);
			// The labels do not overprint: each bar has at least 18 px.
			const gap = await d.exec("const a = window.__piExplorerTest.barPoint('project', 0), b = window.__piExplorerTest.barPoint('project', 1); return b.y - a.y");
			assert.ok(gap >= 18, `${gap} px between bars`);
			await shotBoth(h, d, "ux-7-dashboard-tokens-2000");
			await (await d.find("[data-testid=dash-metric-cost]")).click();
			await shotBoth(h, d, "ux-7-dashboard-cost-2000");
			await h.close();

			uxPi16Root(join(dir, "p16"), cli, repo, node24, pi16);
			d = await openAt(h, join(dir, "p16"));
			await (await d.find("[data-testid=tab-dashboard]")).click();
			await d.waitFor("[data-testid=dash-totals]", { timeout: 30000 });
			await until(() => d.exec("return window.__piExplorerTest && window.__piExplorerTest.barPoint && window.__piExplorerTest.barPoint('model', 0) !== null"), "the model chart");
			// pi 1.6 reports costs: cost is shown.
			assert.equal(await d.exec("return !!document.querySelector('[data-testid=dash-no-cost]')"), false);
			await shotBoth(h, d, "ux-7-dashboard-pi16");
		},
	},
	{
		name: "ux 8: sessions told apart: fork, slim and pruned markers, 40 characters of title at 1280 px, a pinned parent keeps its forks, Compare names its nodes",
		async run({ h, dir }) {
			const many = uxManyRoot(join(dir, "many"), cli, manySessions);
			let d = await openAt(h, join(dir, "many"));
			await openSession(d, many.img.file);
			const marker = async (path, id) => d.exec(`const r = document.querySelector('[data-testid=session-row][data-path=${q(path)}] [data-testid=${id}]'); return r ? r.textContent.trim() : null`);
			await until(() => marker(many.copies.slim, "copy-marker"), "the slim marker", 30000);
			assert.equal(await marker(many.copies.slim, "copy-marker"), "slim");
			assert.equal(await marker(many.copies.pruned, "copy-marker"), "pruned");
			assert.equal(await marker(many.copies.fork, "copy-marker"), null);
			assert.match(await marker(many.copies.fork, "fork-marker"), /^fork @ [0-9a-z]{7,8}$/);
			// The title: at least 40 characters shown, all of it on hover.
			const t = await d.exec(`const r = document.querySelector('[data-testid=session-row][data-path=${q(many.img.file)}]'); const n = r.querySelector('[data-testid=session-title]');
				return { shown: n.clientWidth / (n.scrollWidth / n.textContent.length), len: n.textContent.length, title: r.title, w: window.innerWidth };`);
			assert.ok(t.shown >= 40 || t.shown >= t.len, JSON.stringify(t));
			assert.ok(t.title.startsWith("Refactor the cache layer so that eviction follows the access order of entries"), t.title);
			// Pinning the parent keeps its forks under it.
			await (await d.find("[data-testid=pin-toggle]")).click();
			const topRows = () => d.exec("return [...document.querySelectorAll('[data-testid=session-row]')].sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top).slice(0, 4).map((r) => r.getAttribute('data-path'))");
			const want = [many.img.file, ...[many.copies.slim, many.copies.pruned, many.copies.fork].sort()];
			await until(async () => {
				const r = await topRows();
				return r[0] === want[0] && JSON.stringify([r[0], ...r.slice(1).sort()]) === JSON.stringify(want);
			}, "the pinned parent on top with its three forks under it");
			await shotBoth(h, d, "ux-8-markers-2000");
			// Compare: two leaves of one file, each side named by its node.
			await selectRow(d, await d.exec("return document.querySelector('[data-testid=leaf-pill]').closest('[data-testid=tree-row]').getAttribute('data-id')"));
			await d.keys("m");
			await selectEntry(d, many.img.ids.sideLeaf);
			await d.keys("m");
			await d.keys("c");
			const a = await (await d.waitFor("[data-testid=compare-title-a]", { what: "side A" })).text();
			const b = await (await d.find("[data-testid=compare-title-b]")).text();
			assert.notEqual(a, b);
			assert.ok(b.includes("LRU with a clock hand"), b);
			await shotBoth(h, d, "ux-8-compare-2000");
			await h.close();

			const p = uxPi16Root(join(dir, "p16"), cli, repo, node24, pi16);
			d = await openAt(h, join(dir, "p16"));
			await until(async () => (await marker(p.slim, "copy-marker")) === "slim", "the slim marker on pi 1.6's folder", 30000);
			assert.match(await marker(p.forked, "fork-marker"), /^fork @ /);
			await shotBoth(h, d, "ux-8-markers-pi16");
		},
	},
	{
		name: "ux 10: images show as thumbnails in the transcript, the inspector and the Context view, enlarged on click; a broken one gets a note",
		async run({ h, dir }) {
			const many = uxManyRoot(join(dir, "many"), cli, manySessions);
			let d = await openAt(h, join(dir, "many"));
			await openSession(d, many.img.file);
			await (await d.find("[data-testid=tab-transcript]")).click();
			await d.exec("const t = document.querySelector('[data-testid=transcript-view]'); t.scrollTop = t.scrollHeight");
			const thumb = await d.waitFor("[data-testid=transcript-item] [data-testid=session-image] img", { timeout: 15000, what: "a thumbnail in the transcript" });
			await until(() => d.exec("const i = document.querySelector('[data-testid=session-image] img'); return i && i.complete && i.naturalWidth > 0"), "the image decoded");
			const src = await thumb.attr("src");
			assert.ok(src.startsWith("blob:"), src);
			const info = await (await d.find("[data-testid=image-info]")).text();
			assert.match(info, /^PNG · [\d.]+ KB · \d+×\d+$/, info);
			await d.waitFor("[data-testid=image-note]", { what: "the broken image's note" });
			assert.match(await (await d.find("[data-testid=image-note]")).text(), /broken base64/);
			await shotBoth(h, d, "ux-10-images-transcript-2000");
			await (await d.find("[data-testid=image-thumb]")).click();
			await d.waitFor("[data-testid=image-large]", { what: "the enlarged image" });
			await shotBoth(h, d, "ux-10-images-large-2000");
			await d.keys(Keys.escape);
			await until(async () => !(await d.exec("return !!document.querySelector('[data-testid=image-large]')")), "the enlarged image closed");
			// The inspector and the Context view.
			await (await d.find("[data-testid=tab-tree]")).click();
			await selectEntry(d, many.img.ids.imageResult);
			await d.waitFor("[data-testid=inspector] [data-testid=session-image] img", { what: "the thumbnail in the inspector" });
			// The inspector's card opens the message whole in the Context view.
			await d.waitFor(`[data-testid=context-view] [data-testid=context-message][data-id=${q(many.img.ids.imageResult)}]`, { what: "the message in the inspector's card" });
			await d.clickWhen(`[data-testid=context-view] [data-testid=context-message][data-id=${q(many.img.ids.imageResult)}]`, { what: "the message in the inspector's card" });
			await d.waitFor(`[data-testid=context-row][data-id=${q(many.img.ids.imageResult)}][data-open=true]`, { timeout: 15000, what: "the message expanded in the Context view" });
			await d.waitFor(`[data-testid=context-row][data-id=${q(many.img.ids.imageResult)}] [data-testid=session-image] img`, { what: "the thumbnail in the Context view" });
			await shotBoth(h, d, "ux-10-images-context-2000");
			await h.close();

			const p = uxPi16Root(join(dir, "p16"), cli, repo, node24, pi16);
			d = await openAt(h, join(dir, "p16"));
			await openSession(d, p.img.file);
			await (await d.find("[data-testid=tab-transcript]")).click();
			await d.exec("const t = document.querySelector('[data-testid=transcript-view]'); t.scrollTop = t.scrollHeight");
			await d.waitFor("[data-testid=transcript-item] [data-testid=session-image] img", { timeout: 15000 });
			await shotBoth(h, d, "ux-10-images-pi16");
		},
	},
];

// End-to-end scenarios of issue 12 (the three journeys), on sessions the real pi wrote (a copy
// of demo/sessions) and on the fixtures: a switcher at a branch-summary branch point and at a
// tool-result sibling, Undo of a switch, a navigate and a label (each an appended line, the old
// bytes a prefix of the new), the selection kept in place after each write, and a keyboard-only
// walk from the start to a fork.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { SessionBuilder, SimClock, cwdFolder } from "../lib/sessions.mjs";
import { repo, targetDir } from "./harness.mjs";
import { Keys, sleep } from "./webdriver.mjs";

const cli = process.env.PI_SESSION_BIN ?? join(targetDir, "debug/pi-session");
const q = (s) => JSON.stringify(s);
const TWO_COMPACTIONS = "--home-alice-projects-cli-tool--/2026-03-02T16-05-49-386Z_019caf4c-74ca-74dd-bb9b-3973465f4881.jsonl";
/** A demo session the real pi forked twice (the parent of the unified view below). */
const FORKED = "--home-alice-projects-cli-tool--/2026-03-02T16-34-17-614Z_019caf66-858e-71a0-b7dd-d5842f44c189.jsonl";
const DEMO_FILE = "--home-alice-projects-cli-tool--/2026-03-02T22-59-24-626Z_019cb0c7-1b52-7122-a36e-20a83636094f.jsonl";

function demoCopy(dir) {
	const root = join(dir, "demo-sessions");
	cpSync(join(repo, "demo/sessions"), root, { recursive: true });
	return { root, file: join(root, DEMO_FILE) };
}

async function until(fn, what, timeout = 8000) {
	const end = Date.now() + timeout;
	let last;
	while (Date.now() < end) {
		last = await fn();
		if (last) return last;
		await sleep(100);
	}
	throw new Error(`timed out: ${what} (last: ${JSON.stringify(last)})`);
}

const bytes = (p) => readFileSync(p);
const lines = (p) => readFileSync(p, "utf8").split("\n").filter(Boolean);
const leafOf = (p) => JSON.parse(execFileSync(cli, ["tree", p, "--json"], { encoding: "utf8" })).leafId;

/** The old bytes are a prefix of the new ones, and `n` lines were appended. */
function assertAppended(before, path, n) {
	const after = bytes(path);
	assert.ok(after.length > before.length && after.subarray(0, before.length).equals(before), "prefix invariant: old bytes unchanged");
	const added = after.subarray(before.length).toString("utf8").split("\n").filter(Boolean);
	assert.equal(added.length, n, `${n} line(s) appended`);
	return added.map((l) => JSON.parse(l));
}

async function openSession(d, path) {
	const row = await d.waitFor(`[data-testid=session-row][data-path=${q(path)}]`, { what: `session row ${path}` });
	await row.click();
	await d.waitFor("[data-testid=tree-row]", { what: "tree rows" });
}

async function selectRow(d, id) {
	const css = `[data-testid=tree-row][data-id=${q(id)}]`;
	await d.exec("window.__piExplorerTest?.reveal?.(arguments[0])", [id]);
	const row = await d.waitFor(css, { what: `tree row ${id}` });
	await row.click();
	await d.waitForText("[data-testid=inspector]", id);
}

const selectedRowId = (d) => d.exec("const el = document.querySelector('[data-testid=tree-row][aria-selected=true]'); return el ? el.getAttribute('data-id') : null");
const inspectedId = (d) => d.exec("const el = document.querySelector('[data-testid=inspector-id]'); return el ? el.textContent.trim() : null");
const rowTop = (d, id) => d.exec(`const el = document.querySelector('[data-testid=tree-row][data-id=${q(id)}]'); return el ? Math.round(el.getBoundingClientRect().top) : null`);
const leafRowId = (d) => d.exec("const el = document.querySelector('[data-testid=leaf-pill]'); const r = el && el.closest('[data-testid=tree-row]'); return r ? r.getAttribute('data-id') : null");
const focusedTestId = (d) => d.exec("const el = document.activeElement; return el ? el.getAttribute('data-testid') : null");

/** Selects entry `id` (the transcript follows the selection) and waits until its item is drawn. */
async function transcriptItem(d, id) {
	const css = `[data-testid=transcript-item][data-id=${q(id)}]`;
	await d.exec("window.__piExplorerTest?.reveal?.(arguments[0])", [id]);
	await d.waitFor(css, { what: `transcript item ${id}` });
	return css;
}

/** Clicks a button of the newest toast that has one. */
async function clickToast(d, testid) {
	await d.waitFor(`[data-testid=${testid}]`, { what: `the toast's ${testid}` });
	const all = await d.findAll(`[data-testid=${testid}]`);
	await all.at(-1).click();
}

async function chord(d, mod, key) {
	await d.cmd("POST", "/actions", {
		actions: [{ type: "key", id: "kbd", actions: [{ type: "keyDown", value: mod }, { type: "keyDown", value: key }, { type: "keyUp", value: key }, { type: "keyUp", value: mod }] }],
	});
	await d.cmd("DELETE", "/actions");
}

async function press(d, ...keys) {
	for (const k of keys) {
		await d.keys(k);
		await sleep(150);
	}
}

/** What the view should show of a session file on a chip (as ui/src/lib/format.ts fileTag). */
function fileTag(path) {
	const stem = path.split("/").pop().replace(/\.jsonl$/, "");
	return stem.length > 24 ? `${stem.slice(0, 16)}…${stem.slice(-6)}` : stem;
}

/** Rectangles overlap (more than a pixel each way). */
const overlaps = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;

/** `n` sessions in 10 project folders: a quarter roots, the rest forks (chains and siblings), a minute apart, each adding one user message. */
export function manySessions(root, n) {
	const files = [];
	const t0 = Date.parse("2026-05-01T08:00:00.000Z");
	for (let i = 0; i < n; i++) {
		const cwd = `/home/u/proj${i % 10}`;
		const t = t0 + i * 60000;
		const parent = i % 4 === 0 || i < 10 ? undefined : files[i - 10];
		const mine = `m${i.toString(16).padStart(7, "0")}`;
		const opts = { dir: join(root, cwdFolder(cwd)), cwd, id: `0197a3c2-${String(i).padStart(4, "0")}-7e00-8000-000000000000`, created: new Date(t).toISOString(), clock: new SimClock(t), step: 0, ids: { next: () => mine } };
		const s = parent ? parent.session.fork(opts) : new SessionBuilder(opts);
		s.user(`Task ${i}: ${parent ? "try another way" : "start"}`);
		files.push({ file: s.write(), session: s, parent: parent?.file ?? null });
	}
	return files;
}

export const journeySpecs = [
	{
		name: "journeys: a switcher at a branch-summary branch point and at a tool-result sibling (real pi session) shows the branch and writes nothing; Resume pi here writes it, Undo appends the leaf back",
		async run({ h, dir }) {
			const { root, file } = demoCopy(dir);
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			await (await d.find("[data-testid=tab-transcript]")).click();
			const leaf0 = leafOf(file);
			// 06b8f7e2 (assistant) has two children: a tool result and a branch summary (active).
			const summary = await transcriptItem(d, "3048b6a5");
			await d.waitForText(`${summary} [data-testid=sibling-pos]`, "2/2", { what: "the switcher on the branch summary" });
			// And a tool result beside a user message (the user message is active).
			const user = await transcriptItem(d, "ce20f1fc");
			await d.waitForText(`${user} [data-testid=sibling-pos]`, "2/2", { what: "the switcher on the user message beside a tool result" });
			await h.shot("journeys-switcher-branch-summary");
			const b0 = bytes(file);
			await (await d.waitFor(`${await transcriptItem(d, "3048b6a5")} [data-testid=sibling-prev]`)).click();
			// The other branch is a tool result: it has its own switcher, at 1/2.
			const tool = await transcriptItem(d, "96cd49f0");
			await d.waitForText(`${tool} [data-testid=sibling-pos]`, "1/2", { what: "the switcher on the tool result" });
			assert.ok(bytes(file).equals(b0), "switching writes nothing");
			await d.waitFor("[data-testid=view-bar]", { what: "the strip saying nothing was written" });
			await h.shot("journeys-switcher-tool-result");
			// Resume pi on the branch shown: one leaf line, confirmed first.
			await (await d.find("[data-testid=view-resume]")).click();
			await (await d.waitFor("[data-testid=resume-ok]", { what: "the confirmation" })).click();
			await until(() => bytes(file).length > b0.length, "the leaf line");
			const [leafLine] = assertAppended(b0, file, 1);
			assert.equal(leafLine.type, "leaf");
			assert.notEqual(leafOf(file), leaf0);
			// Undo: a new leaf line back to the old leaf, never a truncation.
			await clickToast(d, "toast-undo");
			await until(() => lines(file).length === b0.toString("utf8").split("\n").filter(Boolean).length + 2, "the undo line");
			const [, undo] = assertAppended(b0, file, 2);
			assert.deepEqual([undo.type, undo.targetId], ["leaf", leaf0]);
			assert.equal(leafOf(file), leaf0);
			await d.waitForText(`${await transcriptItem(d, "3048b6a5")} [data-testid=sibling-pos]`, "2/2", { what: "the branch summary back on the path" });
		},
	},
	{
		name: "journeys: read-only switching shows the other branch without writing",
		async run({ h, dir }) {
			const { root, file } = demoCopy(dir);
			const d = await h.open(["--sessions-dir", root, "--read-only"]);
			await openSession(d, file);
			await (await d.find("[data-testid=tab-transcript]")).click();
			const b0 = bytes(file);
			await (await d.waitFor(`${await transcriptItem(d, "3048b6a5")} [data-testid=sibling-prev]`)).click();
			const tool = await transcriptItem(d, "96cd49f0");
			await d.waitForText(`${tool} [data-testid=sibling-pos]`, "1/2", { what: "the other branch shown" });
			assert.ok(bytes(file).equals(b0), "nothing written");
			await h.shot("journeys-read-only-switch");
			await (await d.waitFor("[data-testid=view-back]")).click();
			await d.waitForText(`${await transcriptItem(d, "3048b6a5")} [data-testid=sibling-pos]`, "2/2", { what: "back on the session's own branch" });
			assert.ok(bytes(file).equals(b0), "still nothing written");
		},
	},
	{
		name: "journeys: navigate and label keep the selection in place, leave the leaf chip alone, and Undo appends the previous state back",
		async run({ h, dir }) {
			const { root, file } = demoCopy(dir);
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			const leaf0 = leafOf(file);
			// Navigate to the branch point 06b8f7e2.
			await selectRow(d, "06b8f7e2");
			const top0 = await rowTop(d, "06b8f7e2");
			const b0 = bytes(file);
			await (await d.find("[data-testid=action-resume]")).click();
			await (await d.waitFor("[data-testid=resume-ok]")).click();
			await d.waitFor(`[data-testid=tree-row][data-id="06b8f7e2"] [data-testid=leaf-pill]`, { what: "the leaf pill on the entry" });
			const [nav] = assertAppended(b0, file, 1);
			assert.deepEqual([nav.type, nav.targetId], ["leaf", "06b8f7e2"]);
			await d.waitForText("[data-testid=toast-code]", '"type":"leaf"', { what: "the toast names the line written" });
			assert.equal(await selectedRowId(d), "06b8f7e2", "selection kept after navigate");
			assert.equal(await inspectedId(d), "06b8f7e2");
			const top1 = await rowTop(d, "06b8f7e2");
			assert.ok(Math.abs(top1 - top0) <= 2, `the row stays in place (${top0} → ${top1})`);
			await h.shot("journeys-navigate-toast");
			// Label it: the label line hangs off the leaf, but the leaf chip stays, and Navigate stays disabled.
			await (await d.find("[data-testid=action-label]")).click();
			await (await d.waitFor("[data-testid=label-input]")).type("pick-me");
			await (await d.find("[data-testid=label-save]")).click();
			await d.waitForText(`[data-testid=tree-row][data-id="06b8f7e2"]`, "pick-me");
			const [, lab] = assertAppended(b0, file, 2);
			assert.deepEqual([lab.type, lab.targetId, lab.label], ["label", "06b8f7e2", "pick-me"]);
			assert.equal(await leafRowId(d), "06b8f7e2", "the leaf chip did not move");
			assert.equal(await selectedRowId(d), "06b8f7e2", "selection kept after label");
			await until(async () => d.exec("return document.querySelector('[data-testid=action-resume]').disabled"), "Resume still disabled (pi already resumes here)");
			const kids = await d.exec("return document.querySelector('[data-testid=inspector]').innerText");
			assert.match(kids, /2 children/, "the label line is not a child");
			await h.shot("journeys-label-toast");
			// Undo the label: a new label line without a label.
			await clickToast(d, "toast-undo");
			await until(() => lines(file).length === b0.toString("utf8").split("\n").filter(Boolean).length + 3, "the label undo line");
			const [, , unl] = assertAppended(b0, file, 3);
			assert.equal(unl.type, "label");
			assert.equal(unl.targetId, "06b8f7e2");
			assert.ok(unl.label === undefined || unl.label === null, "the label is cleared");
			await until(async () => !(await (await d.find(`[data-testid=tree-row][data-id="06b8f7e2"]`)).text()).includes("pick-me"), "the label gone from the row");
			assert.equal(await selectedRowId(d), "06b8f7e2", "selection kept after the undo");
			// Undo the navigate from a fresh navigate's toast: select another entry and navigate, then Undo.
			await selectRow(d, "4d5b074a");
			const rawLeaf = leafOf(file);
			await (await d.find("[data-testid=action-resume]")).click();
			await (await d.waitFor("[data-testid=resume-ok]")).click();
			await d.waitFor(`[data-testid=tree-row][data-id="4d5b074a"] [data-testid=leaf-pill]`, { what: "the leaf on the tool result" });
			const leafBefore = "06b8f7e2";
			await clickToast(d, "toast-undo");
			await until(() => leafOf(file) !== "4d5b074a" && leafOf(file), "the navigate undone");
			const added = assertAppended(b0, file, 5);
			// The previous leaf was the last label line over 06b8f7e2 (pi's leaf after a label): restored exactly.
			assert.deepEqual([added[4].type, added[4].targetId], ["leaf", rawLeaf]);
			assert.equal(leafOf(file), rawLeaf);
			await selectRow(d, leafBefore);
			await d.waitFor(`[data-testid=tree-row][data-id=${q(leafBefore)}] [data-testid=leaf-pill]`, { what: "the leaf chip back on 06b8f7e2" });
			assert.ok(leaf0);
		},
	},
	{
		name: "journeys: a keyboard-only walk from the start to a fork (? help, Enter shows, R resumes pi, F forks, arrows in the list)",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await d.waitFor("[data-testid=tree-row][aria-selected=true]", { what: "the most recent session open with its leaf selected" });
			await until(async () => (await focusedTestId(d)) === "tree-view", "the tree to have the focus at start");
			// The open session's row is in view in the sidebar.
			const inView = await d.exec("const r = document.querySelector('[data-testid=session-row][aria-current=true]'); if (!r) return false; const b = r.getBoundingClientRect(); const s = r.closest('.slist').getBoundingClientRect(); return b.top >= s.top && b.bottom <= s.bottom;");
			assert.ok(inView, "the open session is scrolled into view");
			// ? shows the keys; Escape closes it and the tree keys work again.
			await press(d, "?");
			await d.waitForText("[data-testid=keys-help]", "Enter");
			await h.shot("journeys-keys-help");
			await press(d, Keys.escape);
			await until(async () => (await d.findAll("[data-testid=keys-help]")).length === 0, "help closed");
			await until(async () => (await focusedTestId(d)) === "tree-view", "focus back in the tree");
			// The session list: Ctrl+K, ↓ to another session, Enter opens it and hands the keys to its tree.
			const open0 = await d.exec("return document.querySelector('[data-testid=session-row][aria-current=true]').getAttribute('data-path')");
			await chord(d, "\uE009", "k");
			await until(async () => (await focusedTestId(d)) === "search-input", "Ctrl+K focuses the search box");
			await press(d, Keys.down);
			await until(async () => (await focusedTestId(d)) === "session-row", "↓ into the list");
			await press(d, Keys.down);
			const target = await d.exec("return document.activeElement.getAttribute('data-path')");
			assert.notEqual(target, open0);
			await press(d, Keys.enter);
			await until(async () => (await d.exec("const r = document.querySelector('[data-testid=session-row][aria-current=true]'); return r && r.getAttribute('data-path')")) === target, "Enter opens the session");
			await until(async () => (await focusedTestId(d)) === "tree-view", "the tree has the keys");
			// Home, then ↓: an entry; Enter shows its branch (nothing written); R, Enter resumes pi there (one leaf line).
			await press(d, Keys.home, Keys.down);
			const id = await until(() => selectedRowId(d), "a selected row");
			const before = bytes(target);
			await press(d, Keys.enter);
			await d.waitFor("[data-testid=view-bar]", { what: "the branch shown" });
			assert.ok(bytes(target).equals(before), "Enter writes nothing");
			await press(d, "R");
			await until(async () => (await focusedTestId(d)) === "resume-ok", "the confirmation has the keys");
			const want = (await d.exec("return window.__TAURI_INTERNALS__.invoke('entry_detail', { path: arguments[0], id: arguments[1] })", [target, id])).resume.targetId;
			await press(d, Keys.enter);
			await until(() => bytes(target).length > before.length, "R, Enter to resume pi there");
			const [nav] = assertAppended(before, target, 1);
			assert.deepEqual([nav.type, nav.targetId], ["leaf", want]);
			await until(async () => (await focusedTestId(d)) === "tree-view", "focus stays in the tree after the write");
			// F forks from the selected entry into a new file; the toast shows how to resume it in pi.
			const folder = dirname(target);
			const files0 = readdirSync(folder);
			await press(d, "F");
			const created = await until(() => {
				const n = readdirSync(folder).filter((f) => f.endsWith(".jsonl") && !files0.includes(f));
				return n.length === 1 ? join(folder, n[0]) : null;
			}, "a new session file");
			await d.waitForText("[data-testid=toast-code]", `pi --session ${created}`, { what: "the resume command" });
			assert.equal(await selectedRowId(d), id, "selection kept after the fork");
			assert.equal(JSON.parse(lines(created).at(-1)).targetId, id);
			await h.shot("journeys-keyboard-fork");
		},
	},
	{
		name: "journeys: the audit of a node behind two compactions, full width, untruncated, expanding in place, with a band in the tree and a jump there and back",
		async run({ h, dir }) {
			const { root } = demoCopy(dir);
			const file = join(root, TWO_COMPACTIONS);
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			await d.waitFor("[data-testid=tree-row][aria-selected=true]", { what: "the leaf selected" });
			const sel0 = await d.exec("return window.__piExplorerTest.selectedId()");
			assert.ok(sel0);
			await (await d.find("[data-testid=tab-audit]")).click();
			await until(async () => (await d.findAll("[data-testid=audit-compaction]")).length === 2, "two compaction rows");
			// Full width: the inspector steps aside.
			assert.equal((await d.findAll("[data-testid=inspector]")).length, 0, "no inspector column");
			const w = await d.exec("return Math.round(document.querySelector('[data-testid=audit-view]').getBoundingClientRect().width)");
			const win = await d.exec("return window.innerWidth");
			const side = await d.exec("return Math.round(document.querySelector('aside[aria-label=Sessions]').getBoundingClientRect().width)");
			assert.ok(w >= win - side - 2, `the audit spans the window but the sidebar (${w} of ${win}, sidebar ${side})`);
			// Tokens before and after on each row.
			const rows = await d.exec("return [...document.querySelectorAll('[data-testid=audit-compaction]')].map(r => r.innerText)");
			for (const r of rows) assert.match(r, /\d/, r);
			// The whole summary, untruncated: every sentence of the compaction's summary is on screen.
			const entries = lines(file).map((l) => JSON.parse(l));
			const last = entries.find((e) => e.id === "f1bd77f7");
			const summaryText = await (await d.find("[data-testid=audit-summary]")).text();
			const words = last.summary.replace(/[#*`_>-]/g, " ").split(/\s+/).filter((x) => x.length > 3);
			for (const wd of words) assert.ok(summaryText.includes(wd), `summary word ${wd}`);
			// Hidden rows show their whole preview: nothing clipped.
			const clipped = await d.exec("return [...document.querySelectorAll('[data-testid=audit-preview]')].filter(e => e.scrollWidth > e.clientWidth + 1).length");
			assert.equal(clipped, 0, "no clipped preview");
			const hidden = await d.exec("return [...document.querySelectorAll('[data-testid=audit-hidden]')].map(e => e.getAttribute('data-id'))");
			assert.ok(hidden.length > 0);
			await h.shot("journeys-audit");
			// Expanding in place does not change the selection.
			await (await d.find(`[data-testid=audit-hidden][data-id=${q(hidden[0])}] [data-testid=audit-expand]`)).click();
			await d.waitFor(`[data-testid=audit-hidden][data-id=${q(hidden[0])}] .body`, { what: "the entry expanded" });
			assert.equal(await d.exec("return window.__piExplorerTest.selectedId()"), sel0, "selection unchanged by expanding");
			await h.shot("journeys-audit-expanded");
			// Jump to the tree: the entry is selected there, inside the marked band; and back.
			await (await d.find(`[data-testid=audit-hidden][data-id=${q(hidden[0])}] [data-testid=audit-to-tree]`)).click();
			await until(async () => (await selectedRowId(d)) === hidden[0], "the hidden entry selected in the tree");
			const band = await d.exec(`return document.querySelector('[data-testid=tree-row][data-id=${q(hidden[0])}]').getAttribute('data-hidden')`);
			assert.equal(band, "true", "the hidden range is marked in the tree");
			await h.shot("journeys-audit-band");
			await (await d.waitFor("[data-testid=back-to-audit]")).click();
			await d.waitFor(`[data-testid=audit-hidden][data-id=${q(hidden[0])}]`, { what: "back in the audit" });
			assert.equal((await d.findAll("[data-testid=audit-compaction]")).length, 2);
		},
	},
	{
		name: "journeys: Fit fits 2,000 sessions in both axes; the wheel scrolls, ctrl+wheel zooms; a click shows details without leaving",
		async run({ h, dir }) {
			const root = join(dir, "many");
			const all = manySessions(root, 2000);
			const parents = new Set(all.map((f) => f.parent).filter(Boolean));
			const inForks = all.filter((f) => f.parent || parents.has(f.file)).length;
			const d = await h.open(["--sessions-dir", root]);
			await (await d.waitFor("[data-testid=tab-forks]")).click();
			await d.waitFor("[data-testid=fork-graph] [data-testid=fork-node]", { timeout: 60000, what: "the graph" });
			// Past 50 sessions the graph opens on the open session's family (the session opened at
			// start): every fork asked for.
			await d.waitFor("[data-testid=fork-family]", { timeout: 30000, what: "the family scope" });
			if (await d.exec("return document.querySelector('[data-testid=fork-family]').checked")) await (await d.find("[data-testid=fork-family]")).click();
			await until(async () => !(await d.exec("return document.querySelector('[data-testid=fork-family]').checked")), "every fork shown");
			// Every fork drawn before Fit measures them (a busy machine draws the family's 200 first).
			await until(async () => (await d.exec("return document.querySelectorAll('[data-testid=fork-node]').length")) >= inForks, "every session in a fork drawn", 30000).catch(() => {});
			await (await d.find("[data-testid=fork-graph] [aria-label=Fit]")).click();
			await sleep(400);
			const r = await d.exec(`const host = document.querySelector('[data-testid=fork-graph]').getBoundingClientRect();
				const nodes = [...document.querySelectorAll('[data-testid=fork-node]')].map(n => n.getBoundingClientRect());
				const out = nodes.filter(b => b.left < host.left - 1 || b.right > host.right + 1 || b.top < host.top - 1 || b.bottom > host.bottom + 1).length;
				return { n: nodes.length, out, hw: host.width, hh: host.height };`);
			// The sessions that take part in a fork are drawn (the default), all inside the view.
			assert.ok(inForks > 1800, `${inForks} sessions in forks`);
			assert.equal(r.n, inForks, `nodes drawn (${JSON.stringify(r)})`);
			assert.equal(r.out, 0, `nodes outside the fitted view (${JSON.stringify(r)})`);
			// Lineages packed into columns of the view's shape: the fitted scale is over ten times
			// that of one tall column (about 0.007 here). Readable titles for ~1,900 nodes at once
			// would need more pixels than the view has; ctrl+wheel zooms in from there.
			const fitK = Number((await d.exec("return document.querySelector('[data-testid=fork-graph] .stage').style.transform")).match(/scale\(([^)]+)\)/)[1]);
			console.log(`    fork graph: ${r.n} nodes, Fit scale ${fitK.toFixed(3)} in a ${Math.round(r.hw)}x${Math.round(r.hh)} view`);
			assert.ok(fitK >= 0.06, `the fitted scale (${fitK})`);
			const cols = await d.exec("return new Set([...document.querySelectorAll('[data-testid=fork-node]')].map(n => Math.round(parseFloat(n.style.left) / 200))).size");
			assert.ok(cols >= 8, `lineages packed into columns (${cols} distinct column positions)`);
			// Zoomed out that far, each folder's name is still drawn at a readable size, in the view.
			const labels = await d.exec(`const host = document.querySelector('[data-testid=fork-graph]').getBoundingClientRect();
				return [...document.querySelectorAll('[data-testid=fork-group-label]')].map((e) => { const b = e.getBoundingClientRect();
					return { text: e.textContent, px: parseFloat(getComputedStyle(e).fontSize), inside: b.left >= host.left - 1 && b.right <= host.right + 1 && b.top >= host.top - 1 && b.bottom <= host.bottom + 1 }; });`);
			assert.deepEqual(labels.map((l) => l.text).sort(), Array.from({ length: 10 }, (_, i) => `~/proj${i}`).sort(), JSON.stringify(labels));
			for (const l of labels) assert.ok(l.px >= 11 && l.inside, JSON.stringify(l));
			await h.shot("journeys-fork-graph-2000-fit");
			// The wheel scrolls (the stage moves, the scale stays); ctrl+wheel zooms.
			const stage = () => d.exec("return document.querySelector('[data-testid=fork-graph] .stage').style.transform");
			const t0 = await stage();
			await d.exec("document.querySelector('[data-testid=fork-graph]').dispatchEvent(new WheelEvent('wheel', { deltaY: 120, clientX: 600, clientY: 400, bubbles: true, cancelable: true }))");
			const t1 = await until(async () => ((await stage()) !== t0 ? stage() : null), "the wheel to scroll");
			assert.equal(t1.match(/scale\(([^)]+)\)/)[1], t0.match(/scale\(([^)]+)\)/)[1], "the wheel does not zoom");
			await d.exec("document.querySelector('[data-testid=fork-graph]').dispatchEvent(new WheelEvent('wheel', { deltaY: -240, ctrlKey: true, clientX: 600, clientY: 400, bubbles: true, cancelable: true }))");
			const t2 = await until(async () => ((await stage()) !== t1 ? stage() : null), "ctrl+wheel to zoom");
			assert.ok(Number(t2.match(/scale\(([^)]+)\)/)[1]) > Number(t1.match(/scale\(([^)]+)\)/)[1]), "ctrl+wheel zooms in");
			// A click shows details in the graph; the tab stays.
			await (await d.find("[data-testid=fork-graph] [aria-label=Fit]")).click();
			await d.exec("document.querySelector('[data-testid=fork-node]').click()");
			await d.waitFor("[data-testid=fork-details]", { what: "the details" });
			assert.equal(await d.exec("return document.querySelector('[data-testid=tab-forks]').getAttribute('aria-selected')"), "true");
		},
	},
	{
		name: "journeys: the audit view shows pi 1.6 context edits beside the compactions: each original next to what pi 1.6 sends, expanding in place (a session pi 1.6.0 wrote)",
		async run({ h, dir }) {
			const node24 = process.env.NODE24 ?? join(repo, ".tools/bin/node24");
			const pi16 = process.env.PI16_DIR ?? join(repo, "tests/pi-oracle/pi16");
			const root = join(dir, "sessions16");
			const { file, ids } = JSON.parse(execFileSync(node24, [join(repo, "tests/e2e/pi16-session.mjs"), root, pi16], { encoding: "utf8" }));
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			await selectRow(d, ids.assistant4);
			await (await d.find("[data-testid=tab-audit]")).click();
			await d.waitFor("[data-testid=audit-edits] [data-testid=audit-edit]", { what: "the context edits in the audit view" });
			// The compaction and the edits in the same view.
			assert.equal((await d.findAll("[data-testid=audit-compaction]")).length, 1);
			const rows = await d.findAll("[data-testid=audit-edit]");
			assert.deepEqual(await Promise.all(rows.map((r) => r.attr("data-id"))), [ids.tool1, ids.assistant3]);
			assert.deepEqual(await Promise.all(rows.map((r) => r.attr("data-dropped"))), ["false", "true"]);
			const sel = (id, testid) => `[data-testid=audit-edit][data-id=${q(id)}] [data-testid=${testid}]`;
			// The replaced tool result: its original beside the replacement, and the edit's line.
			assert.ok((await (await d.find(sel(ids.tool1, "audit-edit-original"))).text()).includes("ORIGINAL-SECRET-OUTPUT"));
			assert.equal((await (await d.find(sel(ids.tool1, "audit-edit-replacement"))).text()).trim(), "[output removed: it held a secret]");
			assert.ok((await rows[0].text()).includes("edit L7"), await rows[0].text());
			// The dropped assistant message: its original, and nothing sent.
			assert.ok((await (await d.find(sel(ids.assistant3, "audit-edit-original"))).text()).includes("DROPPED-WRONG-APPROACH"));
			assert.ok((await (await d.find(sel(ids.assistant3, "audit-edit-dropped"))).text()).includes("dropped from the context"));
			assert.ok((await rows[1].text()).includes("edit L11"), await rows[1].text());
			assert.equal(await d.exec("return document.querySelectorAll('[data-testid=audit-edits] script, [data-testid=audit-edits] img').length"), 0);
			await h.shot("journeys-audit-edits");
			// Expanding in place shows both messages whole; the selection stays.
			const sel0 = await d.exec("return window.__piExplorerTest.selectedId()");
			await (await d.find(sel(ids.tool1, "audit-edit-expand"))).click();
			const full = await d.waitFor(sel(ids.tool1, "audit-edit-original-full"), { what: "the original, whole" });
			assert.ok((await full.text()).includes('{"apiKey": "ORIGINAL-SECRET-OUTPUT"}'), await full.text());
			assert.ok((await (await d.find(sel(ids.tool1, "audit-edit-replacement-full"))).text()).includes("[output removed: it held a secret]"));
			assert.equal(await d.exec("return window.__piExplorerTest.selectedId()"), sel0, "expanding keeps the selection");
			await h.shot("journeys-audit-edits-expanded");
			// To the tree and back.
			await (await d.find(sel(ids.assistant3, "audit-edit-to-tree"))).click();
			await until(async () => (await selectedRowId(d)) === ids.assistant3, "the dropped message selected in the tree");
			await (await d.waitFor("[data-testid=back-to-audit]")).click();
			await d.waitFor(`[data-testid=audit-edit][data-id=${q(ids.assistant3)}]`, { what: "back in the audit" });
			// Audited before the edits: none listed.
			await (await d.find("[data-testid=tab-tree]")).click();
			await selectRow(d, ids.tool1);
			await (await d.find("[data-testid=tab-audit]")).click();
			await d.waitFor("[data-testid=audit-empty]", { what: "no compaction before the tool result" });
			assert.equal((await d.findAll("[data-testid=audit-edit]")).length, 0);
		},
	},
	{
		name: "journeys: the unified fork view names the file on every leaf and fork chip (real pi forks)",
		async run({ h, dir }) {
			const { root } = demoCopy(dir);
			const file = join(root, FORKED);
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			await (await d.find("[data-testid=unified-toggle]")).click();
			await d.waitFor("[data-testid=fork-chip]", { what: "fork rows in the unified view" });
			// Every chip in the tree (scrolled top to bottom: the list is virtual).
			const chips = await d.execAsync(
				`const done = arguments[arguments.length - 1];
				const tree = document.querySelector('[data-testid=tree-view]');
				let sc = tree;
				for (let e = document.querySelector('[data-testid=tree-row]'); e; e = e.parentElement) { const s = getComputedStyle(e); if ((s.overflowY === 'auto' || s.overflowY === 'scroll') && e.scrollHeight > e.clientHeight) { sc = e; break; } }
				const seen = new Map();
				sc.scrollTop = 0;
				(function step() {
					for (const c of document.querySelectorAll('[data-testid=fork-chip], [data-testid=leaf-pill]')) {
						const row = c.closest('[data-testid=tree-row]');
						seen.set(c.getAttribute('data-testid') + ':' + (row ? row.getAttribute('data-row') : ''), { kind: c.getAttribute('data-testid'), file: c.getAttribute('data-file'), text: c.textContent });
					}
					if (sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1) return done([...seen.values()]);
					sc.scrollTop += sc.clientHeight * 0.8;
					requestAnimationFrame(() => requestAnimationFrame(step));
				})();`,
				[],
			);
			const forks = chips.filter((c) => c.kind === "fork-chip");
			const leaves = chips.filter((c) => c.kind === "leaf-pill");
			assert.ok(forks.length >= 2, `fork chips (${forks.length})`);
			assert.ok(leaves.length >= 3, `a leaf per file (${JSON.stringify(leaves)})`);
			for (const c of chips) {
				assert.ok(c.file && c.file.endsWith(".jsonl"), `a file on ${JSON.stringify(c)}`);
				assert.ok(c.text.includes(fileTag(c.file)), `${JSON.stringify(c.text)} names ${c.file}`);
			}
			// One leaf per file, each naming its own, the opened file among them; fork chips name forks.
			const leafFiles = leaves.map((c) => c.file);
			assert.equal(new Set(leafFiles).size, leafFiles.length, "each file's leaf once");
			assert.ok(leafFiles.includes(file), "the opened file's leaf");
			assert.equal(new Set(leaves.map((c) => c.text)).size, leaves.length, "the leaf chips can be told apart");
			for (const c of forks) assert.notEqual(c.file, file, "a fork chip names a fork's file");
			assert.ok(new Set(forks.map((c) => c.file)).size >= 2, "chips of different forks name different files");
			await h.shot("journeys-unified-files");
		},
	},
	{
		name: "journeys: nothing cut off at 1280x800: the way back to the audit has a strip of its own, fully visible, overlapping nothing",
		async run({ h, dir }) {
			const { root } = demoCopy(dir);
			const file = join(root, TWO_COMPACTIONS);
			const d = await h.open(["--sessions-dir", root]);
			await d.cmd("POST", "/window/rect", { width: 1280, height: 800 });
			await sleep(400);
			await openSession(d, file);
			await (await d.find("[data-testid=tab-audit]")).click();
			const first = await d.waitFor("[data-testid=audit-hidden] [data-testid=audit-to-tree]", { what: "a hidden entry" });
			await first.click();
			await d.waitFor("[data-testid=back-to-audit]", { what: "the way back" });
			await sleep(300);
			const r = await d.exec(`const rect = (e) => { const b = e.getBoundingClientRect(); return { left: b.left, right: b.right, top: b.top, bottom: b.bottom, w: b.width, h: b.height, what: e.getAttribute('data-testid') || e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30) }; };
				const back = document.querySelector('[data-testid=back-to-audit]');
				const visible = (e) => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0 && getComputedStyle(e).visibility !== 'hidden'; };
				const toolbar = document.querySelector('.center .toolbar');
				const controls = [...toolbar.querySelectorAll('button, input, select, [role=tab]'), ...document.querySelectorAll('[data-testid=back-bar] > *')].filter((e) => e !== back && visible(e));
				const hit = (() => { const b = back.getBoundingClientRect(); const el = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2); return !!el && (el === back || back.contains(el)); })();
				return { win: [window.innerWidth, window.innerHeight], back: rect(back), toolbar: { ...rect(toolbar), scroll: toolbar.scrollWidth, client: toolbar.clientWidth }, controls: controls.map(rect), hit };`);
			assert.equal(r.win[0] <= 1280, true, JSON.stringify(r.win));
			const b = r.back;
			assert.ok(b.w > 40 && b.h > 10, `the control has a size (${JSON.stringify(b)})`);
			assert.ok(b.left >= 0 && b.top >= 0 && b.right <= r.win[0] && b.bottom <= r.win[1], `fully in the window (${JSON.stringify(b)})`);
			assert.ok(r.hit, "nothing covers it");
			for (const c of r.controls) assert.ok(!overlaps(b, c), `overlaps ${JSON.stringify(c)}`);
			// The toolbar above keeps all of its controls visible: nothing scrolled or cut off.
			assert.ok(r.toolbar.scroll <= r.toolbar.client + 1, `the toolbar fits (${r.toolbar.scroll} > ${r.toolbar.client})`);
			for (const c of r.controls.filter((c) => c.top < b.top)) assert.ok(c.right <= r.toolbar.right + 1 && c.left >= r.toolbar.left - 1, `cut off: ${JSON.stringify(c)}`);
			await h.shot("journeys-back-to-audit-1280");
			await (await d.find("[data-testid=back-to-audit]")).click();
			await d.waitFor("[data-testid=audit-compaction]", { what: "back in the audit" });
		},
	},
	{
		name: "journeys: screenshots of every view in both themes at 1280x800 and 1600x1000 (docs/screenshots)",
		async run({ h, dir }) {
			const { root } = demoCopy(dir);
			const file = join(root, TWO_COMPACTIONS);
			const out = join(repo, "docs/screenshots");
			mkdirSync(out, { recursive: true });
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			const save = async (name) => {
				await sleep(500);
				writeFileSync(join(out, `${name}.png`), await d.screenshot());
			};
			const theme = () => d.exec("return document.documentElement.getAttribute('data-theme') || (document.documentElement.classList.contains('dark') ? 'dark' : 'light')");
			for (const [w, hh] of [[1280, 800], [1600, 1000]]) {
				await d.cmd("POST", "/window/rect", { width: w, height: hh });
				await sleep(400);
				const inner = await d.exec("return [window.innerWidth, window.innerHeight]");
				const size = `${inner[0]}x${inner[1]}`;
				for (let t = 0; t < 2; t++) {
					const th = t === 0 ? "light" : "dark";
					if ((await theme()).includes("dark") !== (th === "dark")) await (await d.find("[data-testid=theme-toggle]")).click();
					await sleep(200);
					await (await d.find("[data-testid=tab-tree]")).click();
					await save(`journeys-tree-${th}-${size}`);
					await (await d.find("[data-testid=tab-transcript]")).click();
					await save(`journeys-transcript-${th}-${size}`);
					await (await d.find("[data-testid=tab-audit]")).click();
					await d.waitFor("[data-testid=audit-compaction]");
					await save(`journeys-audit-${th}-${size}`);
					await (await d.find("[data-testid=tab-forks]")).click();
					await d.waitFor("[data-testid=fork-node]");
					await (await d.find("[data-testid=fork-graph] [aria-label=Fit]")).click();
					await save(`journeys-forks-${th}-${size}`);
					await (await d.find("[data-testid=tab-tree]")).click();
					await d.exec("document.querySelector('[data-testid=tree-view]').focus()");
					await press(d, "?");
					await d.waitFor("[data-testid=keys-help]");
					await save(`journeys-keys-${th}-${size}`);
					await press(d, Keys.escape);
				}
			}
		},
	},
	{
		name: "journeys: fork graph edges are labelled with the message where the fork happened (real pi forks)",
		async run({ h, dir }) {
			const { root } = demoCopy(dir);
			const d = await h.open(["--sessions-dir", root]);
			await (await d.waitFor("[data-testid=tab-forks]")).click();
			await d.waitFor("[data-testid=fork-node]");
			const forks = JSON.parse(execFileSync(cli, ["forks", "--sessions-dir", root, "--json"], { encoding: "utf8" })).sessions.filter((x) => x.parentSession && x.forkPointPreview);
			assert.ok(forks.length >= 5, `forks with a fork point text (${forks.length})`);
			for (const f of forks) {
				const el = await d.waitFor(`[data-testid=fork-edge][data-child=${q(f.path)}] [data-testid=fork-edge-label]`, { what: `the label of ${f.path}` });
				const text = await d.exec("return [...arguments[0].childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('')", [{ "element-6066-11e4-a52e-4f735466cecf": el.id }]);
				const full = await d.exec("return arguments[0].querySelector('title').textContent", [{ "element-6066-11e4-a52e-4f735466cecf": el.id }]);
				const want = f.forkPointPreview.replace(/\s+/g, " ").trim();
				// Where in the parent, and the start of its message (the whole message on hover).
				assert.match(text, /^entry \d+ of \d+ · “/, text);
				assert.ok(text.includes(want.slice(0, 8)), `${JSON.stringify(text)} shows ${JSON.stringify(want)}`);
				assert.ok(full.includes(want.slice(0, 60)), `${JSON.stringify(full)} holds ${JSON.stringify(want)}`);
			}
			await h.shot("journeys-fork-edge-labels");
		},
	},
	{
		name: "journeys: a compaction row shows the leaf pill and its label, as right after pi's /compact",
		async run({ h, dir }) {
			const { root } = demoCopy(dir);
			const file = join(root, TWO_COMPACTIONS);
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			await selectRow(d, "f1bd77f7");
			await (await d.find("[data-testid=action-resume]")).click();
			await (await d.waitFor("[data-testid=resume-ok]")).click();
			await d.waitFor(`[data-testid=tree-row][data-id="f1bd77f7"] [data-testid=leaf-pill]`, { what: "the leaf pill on the compaction row" });
			await (await d.find("[data-testid=action-label]")).click();
			await (await d.waitFor("[data-testid=label-input]")).type("compacted");
			await (await d.find("[data-testid=label-save]")).click();
			await d.waitForText(`[data-testid=tree-row][data-id="f1bd77f7"]`, "compacted");
			await d.waitFor(`[data-testid=tree-row][data-id="f1bd77f7"] [data-testid=leaf-pill]`, { what: "the leaf pill still there after the label" });
			await h.shot("journeys-compaction-leaf-label");
		},
	},
	{
		name: "journeys: finding your way: times in the list, the diagnostics banner with its text, resizable panes, and a write to a torn file asks first",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			// Times: a date, a clock time (the relative time follows within a week).
			const when = await (await d.waitFor("[data-testid=session-when]")).text();
			assert.match(when, /^[A-Z][a-z]{2} \d{1,2}, \d\d:\d\d/, when);
			// The damaged file: a banner with the diagnostics' text.
			await openSession(d, fx.ids.damaged);
			const banner = await d.waitFor("[data-testid=diag-banner]", { what: "the diagnostics banner" });
			const text = await banner.text();
			assert.match(text, /2 diagnostics/, text);
			assert.match(text, /not valid JSON|cut off/, text);
			await h.shot("journeys-diag-banner");
			// Panes resize: the inspector's splitter moves with the keyboard.
			const inspW = () => d.exec("return Math.round(document.querySelector('[data-testid=inspector]').getBoundingClientRect().width)");
			const w0 = await inspW();
			await d.exec("document.querySelectorAll('[data-testid=splitter]')[1].focus()");
			await d.keys(Keys.left);
			await d.keys(Keys.left);
			await until(async () => (await inspW()) >= w0 + 30, "the inspector to widen");
			// A write to the torn file asks first: nothing is written until confirmed.
			await selectRow(d, "de000003");
			const before = bytes(fx.ids.damaged);
			await (await d.find("[data-testid=action-label]")).click();
			await (await d.waitFor("[data-testid=label-input]")).type("checked");
			await (await d.find("[data-testid=label-save]")).click();
			await d.waitFor("[data-testid=torn-confirm]", { what: "the question" });
			await h.shot("journeys-torn-asks");
			assert.ok(bytes(fx.ids.damaged).equals(before), "nothing written before the answer");
			await clickToast(d, "torn-cancel");
			await sleep(300);
			assert.ok(bytes(fx.ids.damaged).equals(before), "nothing written after Cancel");
			await (await d.find("[data-testid=action-label]")).click();
			await (await d.waitFor("[data-testid=label-input]")).type("checked");
			await (await d.find("[data-testid=label-save]")).click();
			await clickToast(d, "torn-confirm");
			await until(() => bytes(fx.ids.damaged).length > before.length, "the label after confirming");
			const after = bytes(fx.ids.damaged);
			assert.ok(after.subarray(0, before.length).equals(before), "prefix invariant");
			const added = after.subarray(before.length).toString("utf8");
			assert.ok(added.startsWith("\n"), "the new line starts on a line of its own after the torn tail");
			const line = JSON.parse(added.trim());
			assert.deepEqual([line.type, line.targetId, line.label], ["label", "de000003", "checked"]);
		},
	},
	{
		name: "journeys: the folder picker opens another sessions root and remembers it among the recent roots",
		async run({ h, fx, dir }) {
			const { root } = demoCopy(dir);
			let d = await h.open(["--sessions-dir", fx.root]);
			await d.waitFor("[data-testid=session-row]");
			await (await d.find("[data-testid=root-picker]")).click();
			const input = await d.waitFor("[data-testid=root-input]");
			await input.clear();
			await input.type(root);
			await (await d.find("[data-testid=root-open]")).click();
			await until(async () => (await d.findAll("[data-testid=session-row]")).length === 29, "the demo copy's 29 sessions listed");
			await d.waitFor("[data-testid=tree-row][aria-selected=true]", { what: "its most recent session open" });
			const info = await d.exec("return window.__TAURI_INTERNALS__.invoke('app_info')");
			assert.equal(info.root, root);
			// A folder that does not exist: an error in the dialog, the open root unchanged.
			await (await d.find("[data-testid=root-picker]")).click();
			const again = await d.waitFor("[data-testid=root-input]");
			await again.clear();
			await again.type(join(dir, "nope"));
			await (await d.find("[data-testid=root-open]")).click();
			await d.waitFor("[data-testid=root-error]", { what: "the error" });
			assert.equal((await d.exec("return window.__TAURI_INTERNALS__.invoke('app_info')")).root, root);
			await h.shot("journeys-folder-picker");
			await h.close();
			// After a restart both roots are remembered, newest first.
			d = await h.open(["--sessions-dir", fx.root]);
			await d.waitFor("[data-testid=session-row]");
			await (await d.find("[data-testid=root-picker]")).click();
			await d.waitFor("[data-testid=recent-root]");
			const recent = await d.exec("return [...document.querySelectorAll('[data-testid=recent-root]')].map(e => e.getAttribute('data-path'))");
			assert.ok(recent.includes(root) && recent.includes(fx.root), JSON.stringify(recent));
			// A recent root opens with one click.
			await (await d.find(`[data-testid=recent-root][data-path=${q(root)}]`)).click();
			await until(async () => (await d.findAll("[data-testid=session-row]")).length === 29, "the recent root opened");
		},
	},
	{
		name: "journeys: arrow keys in the search results; Enter opens the hit",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await d.waitFor("[data-testid=tree-row][aria-selected=true]");
			await chord(d, "\uE009", "k");
			await until(async () => (await focusedTestId(d)) === "search-input", "Ctrl+K focuses the search box");
			await d.keys("error pages");
			await d.waitFor("[data-testid=search-hit]", { what: "search hits" });
			await press(d, Keys.down);
			await until(async () => (await focusedTestId(d)) === "search-hit", "↓ into the results");
			const hit = await d.exec("return [document.activeElement.getAttribute('data-path'), document.activeElement.getAttribute('data-id')]");
			await press(d, Keys.enter);
			await until(async () => (await d.exec("return window.__piExplorerTest.selectedId()")) === hit[1], "Enter opens the hit and selects its entry");
		},
	},
];

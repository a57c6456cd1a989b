// What a user meets in the first hour, in the real window: browsing never writes (Enter in the
// tree and ‹ › in the transcript change no byte; "Resume pi here" is the one write that moves the
// leaf, says what pi will do, and is undone and redone by appended lines), the inspector follows
// the view, the keyboard reaches everything, and feedback (export asks where, archive has undo,
// a compacted fork shows its resume command, the audit points to compactions elsewhere, the
// status bar shows the entry pi resumes at, one branch count). `ux: screenshots` writes
// docs/screenshots/ux-*.png at 1280x800 on a pi 1.6 folder and on a 2,000-file history.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { repo } from "./harness.mjs";
import { manySessions } from "./journeys.mjs";
import { openSession, selectRow, until } from "./specs.mjs";
import { Keys, sleep } from "./webdriver.mjs";

const q = (s) => JSON.stringify(s);
const bytes = (p) => readFileSync(p);
const lines = (p) => readFileSync(p, "utf8").split("\n").filter(Boolean);
const F6 = "\uE036";
const CTRL = "\uE009";
const SHIFT = "\uE008";
const TAB = "\uE004";
const TWO_COMPACTIONS = "--home-alice-projects-cli-tool--/2026-03-02T16-05-49-386Z_019caf4c-74ca-74dd-bb9b-3973465f4881.jsonl";

/** A session pi 1.6.0 wrote with branches, a branch summary, a label and a compaction (tests/e2e/pi16-branches.mjs). */
function pi16Branches(dir) {
	const node24 = process.env.NODE24 ?? join(repo, ".tools/bin/node24");
	const pi16 = process.env.PI16_DIR ?? join(repo, "tests/pi-oracle/pi16");
	const root = join(dir, "pi16-sessions");
	const { file, ids } = JSON.parse(execFileSync(node24, [join(repo, "tests/e2e/pi16-branches.mjs"), root, pi16], { encoding: "utf8" }));
	// And the session of the context-edit journey beside it: a pi 1.6 folder of two sessions.
	execFileSync(node24, [join(repo, "tests/e2e/pi16-session.mjs"), root, pi16], { encoding: "utf8" });
	return { root, file, ids };
}

function demoCopy(dir) {
	const root = join(dir, "demo-sessions");
	cpSync(join(repo, "demo/sessions"), root, { recursive: true });
	return root;
}

/** Presses keys (each a key or a W3C code) on the focused element. */
async function press(d, ...keys) {
	for (const k of keys) {
		await d.keys(k);
		await sleep(150);
	}
}

/** Holds `mods` while pressing `key`. */
async function chord(d, mods, key) {
	const down = mods.map((m) => ({ type: "keyDown", value: m }));
	const up = [...mods].reverse().map((m) => ({ type: "keyUp", value: m }));
	await d.cmd("POST", "/actions", { actions: [{ type: "key", id: "kbd", actions: [...down, { type: "keyDown", value: key }, { type: "keyUp", value: key }, ...up] }] });
	await d.cmd("DELETE", "/actions");
	await sleep(150);
}

/** Moves the pointer over an element (hover). */
async function hover(d, css) {
	const el = await d.find(css);
	await d.cmd("POST", "/actions", { actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [{ type: "pointerMove", duration: 0, origin: { "element-6066-11e4-a52e-4f735466cecf": el.id }, x: 0, y: 0 }] }] });
}

async function unhover(d) {
	await d.cmd("POST", "/actions", { actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [{ type: "pointerMove", duration: 0, x: 5, y: 5 }] }] });
	await d.cmd("DELETE", "/actions");
}

const focusedTestId = (d) => d.exec("const el = document.activeElement; return el ? el.getAttribute('data-testid') : null");
const focusedPane = (d) => d.exec("const el = document.activeElement; const p = el && el.closest('[data-pane]'); return p ? p.getAttribute('data-pane') : null");
const selectedId = (d) => d.exec("return window.__piExplorerTest.selectedId()");
const toastCount = (d) => d.exec("return document.querySelectorAll('[data-testid=toast]').length");

/** Focuses the tree (as a click in it does). */
const focusTree = (d) => d.exec("document.querySelector('[data-testid=tree-view]').focus()");

/** What the page pastes (Ctrl+V into the search box, then cleared): the clipboard's text. */
async function pasted(d) {
	await chord(d, [CTRL], "k");
	await chord(d, [CTRL], "v");
	const v = await d.exec("return document.querySelector('[data-testid=search-input]').value");
	await press(d, Keys.escape);
	return v;
}

/** The old bytes are a prefix of the new ones and `n` lines were appended; the lines, parsed. */
function appended(before, path, n) {
	const after = bytes(path);
	assert.ok(after.length >= before.length && after.subarray(0, before.length).equals(before), "prefix invariant: old bytes unchanged");
	const added = after.subarray(before.length).toString("utf8").split("\n").filter(Boolean);
	assert.equal(added.length, n, `${n} line(s) appended`);
	return added.map((l) => JSON.parse(l));
}

/** Shell quoting as the window's (and the README's) resume command does it. */
const shellQuote = (s) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export const uxSpecs = [
	{
		name: "ux 1: browsing never writes: Enter in the tree and ‹ › in the transcript change no byte; Resume pi here (R) says what pi will do and appends one line; Ctrl+Z, Ctrl+Shift+Z, the writes panel; toasts wait while looked at (pi 1.6.0 session)",
		async run({ h, dir }) {
			const { root, file, ids } = pi16Branches(dir);
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			const b0 = bytes(file);
			const leaf0 = ids.assistant5;
			// The tree: move through every row, Enter on each (fold rows open, entries show their branch).
			await focusTree(d);
			await press(d, Keys.home);
			const total = await d.exec("return document.querySelectorAll('[data-testid=tree-row], [data-testid=fold-row]').length");
			for (let i = 0; i < total + 2; i++) await press(d, Keys.enter, Keys.down);
			assert.ok(bytes(file).equals(b0), "Enter on every row of the tree changed no byte of the file");
			// Enter on a side branch's user message: the strip says nothing was written, the row is marked.
			await selectRow(d, ids.user2b);
			await focusTree(d);
			await press(d, Keys.enter);
			await d.waitFor("[data-testid=view-bar]", { what: "the strip of the branch shown" });
			await d.waitFor(`[data-testid=tree-row][data-id=${q(ids.user2b)}] [data-testid=view-pill]`, { what: "the viewing chip" });
			assert.match(await (await d.find("[data-testid=view-bar]")).text(), /nothing written · pi resumes at/);
			// The transcript follows the branch shown.
			await (await d.find("[data-testid=tab-transcript]")).click();
			await d.waitFor(`[data-testid=transcript-item][data-id=${q(ids.user2b)}]`, { what: "the branch in the transcript" });
			// ‹ › at the three-way branch point (user2, user2b, the branch summary), back and forth, and h/l.
			const sw = `[data-testid=transcript-item][data-id=${q(ids.user2b)}] [data-testid=sibling-pos]`;
			await d.waitForText(sw, "2/3");
			await (await d.find(`[data-testid=transcript-item][data-id=${q(ids.user2b)}] [data-testid=sibling-prev]`)).click();
			await d.waitForText(`[data-testid=transcript-item][data-id=${q(ids.user2)}] [data-testid=sibling-pos]`, "1/3", { what: "the first branch" });
			await (await d.find(`[data-testid=transcript-item][data-id=${q(ids.user2)}] [data-testid=sibling-next]`)).click();
			await (await d.waitFor(`[data-testid=transcript-item][data-id=${q(ids.user2b)}] [data-testid=sibling-next]`)).click();
			await d.waitForText(`[data-testid=transcript-item][data-id=${q(ids.summary)}] [data-testid=sibling-pos]`, "3/3", { what: "the branch summary's branch" });
			await (await d.find(`[data-testid=transcript-item][data-id=${q(ids.summary)}]`)).click();
			await press(d, "h", "h", "l");
			await d.waitForText(`[data-testid=transcript-item][data-id=${q(ids.user2b)}] [data-testid=sibling-pos]`, "2/3", { what: "h h l: the middle branch" });
			assert.ok(bytes(file).equals(b0), "switching branches in the transcript changed no byte of the file");
			await h.shot("ux-1-transcript-switched");
			// Esc: back to pi's own leaf.
			await press(d, Keys.escape);
			await until(async () => (await d.findAll("[data-testid=view-bar]")).length === 0, "back to pi's leaf");

			// Resume pi here on a user message (R in the tree): the confirmation says pi resumes at its parent with the text in its editor.
			await (await d.find("[data-testid=tab-tree]")).click();
			await selectRow(d, ids.user2b);
			await focusTree(d);
			await press(d, "R");
			const note = await (await d.waitFor("[data-testid=resume-confirm]", { what: "the confirmation" })).text();
			assert.match(note, /editor/, note);
			assert.ok(note.includes(ids.assistant2.slice(0, 8)), `names the parent: ${note}`);
			await h.shot("ux-1-resume-confirm");
			assert.ok(bytes(file).equals(b0), "nothing written before the answer");
			// Esc cancels, nothing written; R again, Enter confirms.
			await press(d, Keys.escape);
			await until(async () => (await d.findAll("[data-testid=resume-confirm]")).length === 0, "cancelled");
			assert.ok(bytes(file).equals(b0));
			await focusTree(d);
			await press(d, "R");
			await until(async () => (await focusedTestId(d)) === "resume-ok", "the confirmation has the keys");
			await press(d, Keys.enter);
			await until(() => bytes(file).length > b0.length, "the leaf line");
			const [leaf1] = appended(b0, file, 1);
			assert.deepEqual([leaf1.type, leaf1.targetId, leaf1.parentId], ["leaf", ids.assistant2, ids.assistant2]);
			const detail = await (await d.waitFor("[data-testid=toast-detail]")).text();
			assert.match(detail, /editor/, "the toast says pi puts the text back in its editor");
			await d.waitFor(`[data-testid=tree-row][data-id=${q(ids.assistant2)}] [data-testid=leaf-pill]`, { what: "the leaf chip on the parent" });
			assert.equal(await d.exec("return document.querySelector('[data-testid=status-leaf]').textContent"), ids.assistant2);
			// Ctrl+Z: one more line back to the old leaf; Ctrl+Shift+Z: the move again.
			await focusTree(d);
			await chord(d, [CTRL], "z");
			await until(() => bytes(file).toString().split("\n").filter(Boolean).length === b0.toString().split("\n").filter(Boolean).length + 2, "Ctrl+Z appends one line");
			const [, undo] = appended(b0, file, 2);
			assert.deepEqual([undo.type, undo.targetId], ["leaf", leaf0]);
			await focusTree(d);
			await chord(d, [CTRL, SHIFT], "z");
			await until(() => bytes(file).toString().split("\n").filter(Boolean).length === b0.toString().split("\n").filter(Boolean).length + 3, "Ctrl+Shift+Z appends one line");
			const [, , redo] = appended(b0, file, 3);
			assert.deepEqual([redo.type, redo.targetId], ["leaf", ids.assistant2]);
			// The writes panel (H): file, kind, target and time of each; Undo from there.
			await focusTree(d);
			await press(d, "H");
			await d.waitFor("[data-testid=writes-history]", { what: "the writes panel" });
			const rows = await d.exec("return [...document.querySelectorAll('[data-testid=history-row]')].map(r => [r.getAttribute('data-seq'), r.getAttribute('data-kind'), r.querySelector('[data-testid=history-target]').textContent, r.innerText])");
			assert.deepEqual(rows.map((r) => [r[0], r[1], r[2]]), [["3", "leaf", `→ ${ids.assistant2}`], ["2", "leaf", `→ ${leaf0}`], ["1", "leaf", `→ ${ids.assistant2}`]]);
			for (const r of rows) assert.ok(r[3].includes(file.split("/").pop()) && /\d\d:\d\d:\d\d/.test(r[3]), r[3]);
			await h.shot("ux-1-writes-panel");
			await (await d.find("[data-testid=history-row][data-seq='3'] [data-testid=history-undo]")).click();
			await until(() => lines(file).length === b0.toString().split("\n").filter(Boolean).length + 4, "Undo from the panel appends one line");
			assert.equal(appended(b0, file, 4)[3].targetId, leaf0);
			await press(d, Keys.escape);
			await until(async () => (await d.findAll("[data-testid=writes-history]")).length === 0, "the panel closed");

			// Toasts wait while looked at: focused (t), a 12 s toast is still there after 14 s; Esc dismisses it.
			await until(async () => (await toastCount(d)) === 0, "the toasts gone", 25000);
			await focusTree(d);
			await chord(d, [CTRL, SHIFT], "z"); // the panel's undo redone: one more line, a toast with Undo
			await d.waitFor("[data-testid=toast-undo]", { what: "the redo's toast" });
			await press(d, "t");
			await until(async () => (await focusedTestId(d)) === "toast-undo", "t focuses the toast's first button");
			await sleep(14000);
			assert.equal(await toastCount(d), 1, "the focused toast waits");
			await press(d, Keys.escape);
			await until(async () => (await toastCount(d)) === 0, "Esc dismisses it");
			await until(async () => (await focusedTestId(d)) === "tree-view", "the keys back in the tree");
			// Hovered: the same.
			await chord(d, [CTRL], "z");
			await d.waitFor("[data-testid=toast-redo]", { what: "the undo's toast" });
			await hover(d, "[data-testid=toast]");
			await sleep(14000);
			assert.equal(await toastCount(d), 1, "the hovered toast waits");
			await unhover(d);
			await until(async () => (await toastCount(d)) === 0, "it goes after the pointer leaves (its time left)", 16000);
			// Every line of this journey was appended: the first bytes are pi's, unchanged.
			assert.deepEqual(appended(b0, file, 6).map((l) => l.type), ["leaf", "leaf", "leaf", "leaf", "leaf", "leaf"]);
		},
	},
	{
		name: "ux 4: the inspector follows the view: an entry beside the tree and the transcript, the pair beside Compare, nothing beside the fork graph and the dashboard; never a write for another view's entry",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await selectRow(d, fx.ids.branch1Leaf);
			await d.waitFor("[data-testid=action-fork]");
			const writesOffered = () => d.exec("return document.querySelectorAll('[data-testid=action-fork], [data-testid=action-resume], [data-testid=action-label], [data-testid=action-fork-slim]').length");
			for (const tab of ["forks", "dashboard", "audit"]) {
				await (await d.find(`[data-testid=tab-${tab}]`)).click();
				await until(async () => (await d.findAll("[data-testid=inspector]")).length === 0, `no inspector beside ${tab}`);
				assert.equal(await writesOffered(), 0, `no write offered beside ${tab}`);
			}
			await h.shot("ux-4-forks-no-inspector");
			// Compare with nothing compared: no inspector either; with a comparison, the pair, no write.
			await (await d.find("[data-testid=tab-compare]")).click();
			assert.equal((await d.findAll("[data-testid=inspector]")).length, 0);
			await (await d.find("[data-testid=tab-tree]")).click();
			await selectRow(d, fx.ids.branch1Leaf);
			await focusTree(d);
			await press(d, "m");
			await selectRow(d, fx.ids.branch2Leaf);
			await focusTree(d);
			await press(d, "m", "c");
			await d.waitFor("[data-testid=inspector-pair]", { what: "the pair in the inspector" });
			assert.equal(await writesOffered(), 0, "no write offered beside Compare");
			const pair = await (await d.find("[data-testid=inspector-pair]")).text();
			assert.ok(pair.includes(fx.ids.branch1Leaf) && pair.includes(fx.ids.branch2Leaf), pair);
			await h.shot("ux-4-compare-pair");
			// A side of the pair leads back to the tree, where the inspector shows that entry again.
			await (await d.find("[data-testid=pair-show-a]")).click();
			await until(async () => (await selectedId(d)) === fx.ids.branch1Leaf, "side A selected in the tree");
			await d.waitForText("[data-testid=inspector-id]", fx.ids.branch1Leaf);
			await d.waitFor("[data-testid=action-fork]");
			// The transcript: the same entry, the same actions.
			await (await d.find("[data-testid=tab-transcript]")).click();
			await d.waitForText("[data-testid=inspector-id]", fx.ids.branch1Leaf);
		},
	},
	{
		name: "ux 5: the keyboard: Enter on a hit focuses the tree there, Esc leaves the search; 1-6 switch views; F6 goes round the panes; y copies the resume command; t reaches every toast button; ? lists the keys and the glyphs",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await d.waitFor("[data-testid=tree-row][aria-selected=true]");
			// The search: Enter on a hit hands the keys to the tree at that entry.
			await chord(d, [CTRL], "k");
			await d.keys("error pages");
			await d.waitFor("[data-testid=search-hit]", { what: "search hits" });
			await press(d, Keys.down);
			await until(async () => (await focusedTestId(d)) === "search-hit", "↓ into the hits");
			const hitId = await d.exec("return document.activeElement.getAttribute('data-id')");
			await press(d, Keys.enter);
			await until(async () => (await focusedTestId(d)) === "tree-view", "Enter: the tree has the keys");
			assert.equal(await selectedId(d), hitId);
			// ↓ works there at once.
			await press(d, Keys.down);
			await until(async () => (await selectedId(d)) !== hitId, "↓ moves in the tree");
			// Esc in the hits leaves the search.
			await chord(d, [CTRL], "k");
			await d.keys("error pages");
			await d.waitFor("[data-testid=search-hit]");
			await press(d, Keys.down, Keys.escape);
			await until(async () => (await focusedTestId(d)) === "tree-view", "Esc: back in the tree");
			assert.equal(await d.exec("return document.querySelector('[data-testid=search-input]').value"), "");
			assert.equal((await d.findAll("[data-testid=search-hit]")).length, 0, "the hits gone");
			// 1-6 switch views.
			const tabOn = () => d.exec("return document.querySelector('[role=tab][aria-selected=true]').getAttribute('data-testid')");
			for (const [k, tab] of [["2", "tab-forks"], ["3", "tab-transcript"], ["4", "tab-audit"], ["6", "tab-dashboard"], ["5", "tab-compare"], ["1", "tab-tree"]]) {
				await press(d, k);
				await until(async () => (await tabOn()) === tab, `${k}: ${tab}`);
			}
			await until(async () => (await focusedTestId(d)) === "tree-view", "1: the tree has the keys");
			// F6: the session list, the view, the inspector, round again (Shift+F6 back).
			const seen = [];
			for (let i = 0; i < 4; i++) {
				await press(d, F6);
				seen.push(await focusedPane(d));
			}
			assert.deepEqual(seen, ["inspector", "sessions", "view", "inspector"], JSON.stringify(seen));
			await chord(d, [SHIFT], F6);
			assert.equal(await focusedPane(d), "view");
			// y: the command that resumes the open session in pi, quoted for the shell.
			await focusTree(d);
			const open = await d.exec("return document.querySelector('[data-testid=session-row][aria-current=true]').getAttribute('data-path')");
			await press(d, "y");
			const want = `pi --session ${shellQuote(open)}`;
			await d.waitForText("[data-testid=toast-code]", want, { what: "the command copied" });
			assert.equal(await pasted(d), want, "the clipboard holds the command");
			// A fork's toast: t focuses its first button, Tab the next (Copy command), Enter runs it.
			await focusTree(d);
			const folder = dirname(fx.ids.sessionA);
			const before = readdirSync(folder);
			await press(d, "F");
			const created = await until(() => {
				const n = readdirSync(folder).filter((f) => f.endsWith(".jsonl") && !before.includes(f));
				return n.length === 1 ? join(folder, n[0]) : null;
			}, "the fork's file");
			await d.waitFor("[data-testid=toast-copy-command]");
			await focusTree(d);
			await press(d, "t");
			await until(async () => (await focusedTestId(d)) === "toast-open-fork", "t: the toast's first button");
			await press(d, TAB);
			await until(async () => (await focusedTestId(d)) === "toast-copy-command", "Tab: Copy command");
			await h.shot("ux-5-toast-keys");
			await press(d, Keys.enter);
			assert.equal(await pasted(d), `pi --session ${shellQuote(created)}`, "the fork's command copied by keys alone");
			// F6 visits the toasts too while there are any.
			await focusTree(d);
			await press(d, "y");
			await d.waitFor("[data-testid=toast]");
			const panes = [];
			for (let i = 0; i < 4; i++) {
				await press(d, F6);
				panes.push(await focusedPane(d));
			}
			assert.ok(panes.includes("toasts"), JSON.stringify(panes));
			// ?: the keys of every view, the tree's, and the glyphs.
			await focusTree(d);
			await press(d, "?");
			const help = await (await d.waitFor("[data-testid=keys-help]")).text();
			for (const k of ["Ctrl+Z", "F6", "1 – 6", "Resume pi here", "copy the command that resumes", "The tree's glyphs", "compaction", "branch summary"]) assert.ok(help.includes(k), `? lists ${k}`);
			await d.waitFor("[data-testid=tree-legend]");
			await h.shot("ux-5-keys-and-legend");
			await press(d, Keys.escape);
		},
	},
	{
		name: "ux 9: feedback: export asks where and offers Open, Reveal and Copy path; archive has Undo; Fork compacted shows its resume command; the audit points to compactions elsewhere; labelled figures; the status bar's entry; one branch count",
		async run({ h, dir }) {
			const root = demoCopy(dir);
			const file = join(root, TWO_COMPACTIONS);
			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			await d.waitFor("[data-testid=tree-row][aria-selected=true]");
			// Export: the dialog proposes the export folder; another path is typed; the toast opens, reveals, copies.
			await (await d.find("[data-testid=export-html]")).click();
			await d.waitFor("[data-testid=export-dialog]");
			const proposed = await until(() => d.exec("return document.querySelector('[data-testid=export-path]').value"), "the proposed path");
			assert.ok(proposed.startsWith(join(h.dataDir, "exports")) && proposed.endsWith(".html"), proposed);
			await h.shot("ux-9-export-dialog");
			const mine = join(dir, "my exports", "audit 1.html");
			const input = await d.find("[data-testid=export-path]");
			await input.clear();
			await input.type(mine);
			await press(d, Keys.enter);
			await d.waitForText("[data-testid=toast-code]", mine, { what: "the toast naming the file" });
			assert.ok(readFileSync(mine, "utf8").toLowerCase().includes("<html"), "the HTML written there");
			await h.shot("ux-9-export-toast");
			await (await d.find("[data-testid=toast-export-reveal]")).click();
			await until(() => existsSync(h.opened) && readFileSync(h.opened, "utf8").includes(`reveal ${mine}`), "Reveal asks the system to show it");
			// Again to the same path: refused until "Replace" is ticked.
			await (await d.find("[data-testid=export-html]")).click();
			const again = await d.waitFor("[data-testid=export-path]");
			await until(() => d.exec("return document.querySelector('[data-testid=export-path]').value"), "proposed");
			await again.clear();
			await again.type(mine);
			await (await d.find("[data-testid=export-save]")).click();
			assert.match(await (await d.waitFor("[data-testid=export-error]")).text(), /exists/);
			await (await d.find("[data-testid=export-replace]")).click();
			await (await d.find("[data-testid=export-save]")).click();
			await d.waitFor("[data-testid=toast-export-open]");
			await (await d.find("[data-testid=toast-export-open]")).click();
			await until(() => readFileSync(h.opened, "utf8").includes(`open ${mine}`), "Open asks the system to open it");

			// Labelled figures in the audit; at an entry before the compactions, the ones elsewhere with a jump.
			await (await d.find("[data-testid=tab-audit]")).click();
			const head = await (await d.waitFor("[data-testid=audit-compactions] thead")).text();
			assert.ok(head.includes("summary (est.)") && head.includes("context after (est.)") && !head.includes("after (est.)\n"), head);
			const early = await d.exec("return window.__TAURI_INTERNALS__.invoke('transcript_page', { path: arguments[0], start: 0, count: 3, leafId: null })", [file]);
			await (await d.find("[data-testid=tab-tree]")).click();
			await selectRow(d, early.items[1].id);
			await (await d.find("[data-testid=tab-audit]")).click();
			await d.waitFor("[data-testid=audit-elsewhere]", { what: "the compactions elsewhere" });
			const jumps = await d.findAll("[data-testid=audit-elsewhere-jump]");
			assert.equal(jumps.length, 3, "three compactions elsewhere in the file");
			await h.shot("ux-9-audit-elsewhere");
			await jumps[0].click();
			await d.waitFor("[data-testid=audit-compaction]", { what: "the audit of the path through it" });

			// The status bar names the entry pi resumes at, not a label line after it.
			await (await d.find("[data-testid=tab-tree]")).click();
			await d.waitFor("[data-testid=leaf-pill]", { what: "the leaf chip" });
			const leaf = await d.exec("const el = document.querySelector('[data-testid=leaf-pill]'); return el.closest('[data-testid=tree-row]').getAttribute('data-id')");
			await selectRow(d, leaf);
			await (await d.find("[data-testid=action-label]")).click();
			await (await d.waitFor("[data-testid=label-input]")).type("here");
			await (await d.find("[data-testid=label-save]")).click();
			await d.waitForText(`[data-testid=tree-row][data-id=${q(leaf)}]`, "here");
			const lastLine = JSON.parse(lines(file).at(-1));
			assert.equal(lastLine.type, "label");
			await until(async () => (await d.exec("return document.querySelector('[data-testid=status-leaf]').textContent")) === leaf.slice(0, 8) || (await d.exec("return document.querySelector('[data-testid=status-leaf]').textContent")) === leaf, "the status bar shows the entry");

			// One branch count: the list, the status bar and the tree's rows agree.
			const sidebar = await d.exec("return document.querySelector('[data-testid=session-row][aria-current=true]').innerText");
			const status = Number(await d.exec("return document.querySelector('[data-testid=status-branches]').textContent"));
			const page = await d.exec("return window.__TAURI_INTERNALS__.invoke('tree_page', { query: { path: arguments[0], filter: 'default', expanded: [], collapsed: [], unified: false }, start: 0, count: 100000 })", [file]);
			const inTree = page.rows.filter((r) => r.childCount > 1).length;
			assert.equal(status, inTree, `status bar ${status}, tree ${inTree}`);
			assert.ok(sidebar.includes(`${inTree} ${inTree === 1 ? "branch" : "branches"}`), sidebar);

			// Fork compacted: the toast shows the command that resumes it, as a fork's does.
			await selectRow(d, leaf);
			const folder = dirname(file);
			const before = readdirSync(folder);
			await (await d.find("[data-testid=action-fork-slim]")).click();
			await (await d.waitFor("[data-testid=write-confirm]")).click();
			const created = await until(() => {
				const n = readdirSync(folder).filter((f) => f.endsWith(".jsonl") && !before.includes(f));
				return n.length === 1 ? join(folder, n[0]) : null;
			}, "the compacted fork's file");
			await d.waitForText("[data-testid=toast-code]", `pi --session ${shellQuote(created)}`, { what: "the resume command" });
			await d.waitFor("[data-testid=toast-copy-command]");

			// Archive, then Undo from its toast: the session is back in the list.
			const listed = () => d.exec("return [...document.querySelectorAll('[data-testid=session-row]')].map(r => r.getAttribute('data-path'))");
			await (await d.find("[data-testid=archive-toggle]")).click();
			await d.waitForText("[data-testid=toast-message]", "Archived");
			await until(async () => !(await listed()).includes(file), "archived: hidden from the list");
			await h.shot("ux-9-archive-undo");
			const undos = await d.findAll("[data-testid=toast-undo]");
			await undos.at(-1).click();
			await until(async () => (await listed()).includes(file), "Undo: back in the list");
			// The writes panel lists the label line and the archive mark (and the new file, without Undo).
			await focusTree(d);
			await press(d, "H");
			const kinds = await d.exec("return [...document.querySelectorAll('[data-testid=history-row]')].map(r => r.getAttribute('data-kind'))");
			assert.deepEqual(kinds, ["archive", "archive", "file", "label"]);
			await press(d, Keys.escape);
			// Nothing but appends: the demo file grew by exactly its one label line.
			const demo = readFileSync(join(repo, "demo/sessions", TWO_COMPACTIONS));
			assert.equal(appended(demo, file, 1)[0].type, "label");
		},
	},
	{
		name: "ux: screenshots of each point at 1280x800 on a pi 1.6 folder and on a 2,000-file history (docs/screenshots/ux-*)",
		async run({ h, dir }) {
			const out = join(repo, "docs/screenshots");
			mkdirSync(out, { recursive: true });
			const save = async (d, name) => {
				await sleep(600);
				writeFileSync(join(out, `${name}.png`), await d.screenshot());
			};
			// Toasts of earlier steps out of the picture (each dismissed, as its × does).
			const clearToasts = async (d) => {
				for (const b of await d.findAll("[data-testid=toast-dismiss]")) await b.click().catch(() => {});
				await until(async () => (await toastCount(d)) === 0, "no toasts");
			};
			// 1280x800, the light theme (an earlier spec of the run may have left the dark one).
			const size = async (d) => {
				await d.cmd("POST", "/window/rect", { width: 1280, height: 800 });
				await sleep(400);
				const dark = await d.exec("return document.documentElement.getAttribute('data-theme') === 'dark' || document.documentElement.classList.contains('dark')");
				if (dark) await (await d.find("[data-testid=theme-toggle]")).click();
			};
			// A pi 1.6 folder.
			{
				const { root, file, ids } = pi16Branches(dir);
				const d = await h.open(["--sessions-dir", root]);
				await size(d);
				await openSession(d, file);
				await selectRow(d, ids.user2b);
				await focusTree(d);
				await press(d, Keys.enter);
				await d.waitFor("[data-testid=view-bar]");
				await save(d, "ux-1-browse-pi16");
				await press(d, "3");
				await d.waitFor(`[data-testid=transcript-item][data-id=${q(ids.user2b)}] [data-testid=sibling-pos]`);
				await save(d, "ux-1-transcript-pi16");
				await press(d, "1");
				await press(d, "R");
				await d.waitFor("[data-testid=resume-confirm]");
				await save(d, "ux-1-resume-confirm-pi16");
				await press(d, Keys.enter);
				await d.waitFor("[data-testid=toast-detail]");
				await save(d, "ux-1-resume-toast-pi16");
				await focusTree(d);
				await chord(d, [CTRL], "z");
				await d.waitFor("[data-testid=toast-redo]");
				await clearToasts(d);
				await focusTree(d);
				await press(d, "H");
				await d.waitFor("[data-testid=history-row]");
				await save(d, "ux-1-writes-panel-pi16");
				await press(d, Keys.escape);
				await selectRow(d, ids.assistant4);
				await focusTree(d);
				await press(d, "m");
				await selectRow(d, ids.assistant3c);
				await focusTree(d);
				await press(d, "m", "c");
				await d.waitFor("[data-testid=inspector-pair]");
				await clearToasts(d);
				await save(d, "ux-4-compare-pair-pi16");
				await press(d, "1");
				await clearToasts(d);
				await focusTree(d);
				await press(d, "?");
				await d.waitFor("[data-testid=tree-legend]");
				await save(d, "ux-5-keys-pi16");
				await d.exec("const h = document.querySelector('[data-testid=keys-help]'); h.scrollTop = h.scrollHeight");
				await save(d, "ux-5-legend-pi16");
				await press(d, Keys.escape);
				await selectRow(d, ids.user3);
				await clearToasts(d);
				await press(d, "4");
				await d.waitFor("[data-testid=audit-elsewhere]");
				await save(d, "ux-9-audit-elsewhere-pi16");
				await press(d, "1");
				await clearToasts(d);
				await (await d.find("[data-testid=export-html]")).click();
				await d.waitFor("[data-testid=export-dialog]");
				await until(() => d.exec("return document.querySelector('[data-testid=export-path]').value"), "proposed");
				await save(d, "ux-9-export-dialog-pi16");
				await press(d, Keys.enter);
				await d.waitFor("[data-testid=toast-export-reveal]");
				await save(d, "ux-9-export-toast-pi16");
				await h.close();
			}
			// A 2,000-file history.
			{
				const root = join(dir, "many");
				const all = manySessions(root, 2000);
				const d = await h.open(["--sessions-dir", root]);
				await size(d);
				const deep = all.filter((f) => f.parent).at(-1).file;
				await openSession(d, deep);
				await focusTree(d);
				await press(d, Keys.home, Keys.down, Keys.enter);
				await d.waitFor("[data-testid=view-bar]");
				await save(d, "ux-1-browse-2000");
				await press(d, "2");
				await d.waitFor("[data-testid=fork-node]", { timeout: 60000 });
				await (await d.find("[data-testid=fork-graph] [aria-label=Fit]")).click();
				await save(d, "ux-4-forks-no-inspector-2000");
				await press(d, "1");
				await focusTree(d);
				await press(d, "F");
				await d.waitFor("[data-testid=toast-copy-command]");
				await focusTree(d);
				await press(d, "t", TAB);
				await until(async () => (await focusedTestId(d)) === "toast-copy-command", "t, Tab: Copy command");
				await save(d, "ux-5-toast-keys-2000");
				await chord(d, [CTRL], "k");
				await d.keys("another way");
				await d.waitFor("[data-testid=search-hit]", { timeout: 30000 });
				await press(d, Keys.down);
				await save(d, "ux-5-search-keys-2000");
				await press(d, Keys.enter);
				await until(async () => (await focusedTestId(d)) === "tree-view", "the tree");
				await clearToasts(d);
				await (await d.find("[data-testid=archive-toggle]")).click();
				await d.waitFor("[data-testid=toast-undo]");
				await save(d, "ux-9-archive-undo-2000");
			}
		},
	},
];

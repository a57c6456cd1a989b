// The end-to-end scenarios. Each gets a fresh copy of the fixtures and a fresh app.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";

import { cwdFolder, writeSmallSession } from "../lib/sessions.mjs";
import { repo, targetDir } from "./harness.mjs";
import { Keys, sleep } from "./webdriver.mjs";
import { journeySpecs } from "./journeys.mjs";

const cli = process.env.PI_SESSION_BIN ?? join(targetDir, "debug/pi-session");
const piOracle = join(repo, "tests/pi-oracle/oracle.mjs");

/** The id the inspector shows (its data-id, else the text after "id"). */
export async function inspectedId(d) {
	return d.exec("const el = document.querySelector('[data-testid=inspector-id]'); return el ? el.textContent.trim() : null");
}

/** The tree row currently selected (its data-id). */
export async function selectedRowId(d) {
	return d.exec("const el = document.querySelector('[data-testid=tree-row][aria-selected=true], [data-testid=fold-row][aria-selected=true]'); return el ? el.getAttribute('data-id') : null");
}

/** Waits until `fn` returns a truthy value. */
export async function until(fn, what, timeout = 8000) {
	const end = Date.now() + timeout;
	let last;
	while (Date.now() < end) {
		last = await fn();
		if (last) return last;
		await sleep(100);
	}
	throw new Error(`timed out: ${what} (last: ${JSON.stringify(last)})`);
}

const sessionFiles = (dir) => readdirSync(dir).filter((f) => f.endsWith(".jsonl") && !f.startsWith("."));

function cliJson(...args) {
	return JSON.parse(execFileSync(cli, [...args, "--json"], { encoding: "utf8" }));
}

async function toggleTheme(h, d) {
	await (await d.find("[data-testid=theme-toggle]")).click();
	await sleep(300);
}

/** Presses keys on the focused element. */
async function press(d, ...keys) {
	for (const k of keys) {
		await d.keys(k);
		await sleep(120);
	}
}

const q = (s) => JSON.stringify(s);

/** Clicks the sidebar row of the session whose file is `path`. */
export async function openSession(d, path) {
	const row = await d.waitFor(`[data-testid=session-row][data-path=${q(path)}]`, { what: `session row ${path}` });
	await row.click();
	await d.waitFor("[data-testid=tree-row]", { what: "tree rows" });
}

/** Clicks the tree row of entry `id` (scrolling it into view through the app's own locate). */
export async function selectRow(d, id) {
	const css = `[data-testid=tree-row][data-id=${q(id)}]`;
	let row;
	try {
		row = await d.waitFor(css, { timeout: 3000 });
	} catch {
		await d.exec("window.__piExplorerTest?.reveal?.(arguments[0])", [id]);
		row = await d.waitFor(css, { what: `tree row ${id}` });
	}
	await row.click();
	await d.waitForText("[data-testid=inspector]", id);
	return row;
}

export async function rowIds(d) {
	const rows = await d.findAll("[data-testid=tree-row]");
	return Promise.all(rows.map((r) => r.attr("data-id")));
}

/** "Resume pi here" on the selected entry: the inspector's button, then its confirmation. */
export async function resumeHere(d) {
	await (await d.waitFor("[data-testid=action-resume]")).click();
	await (await d.waitFor("[data-testid=resume-ok]", { what: "the confirmation" })).click();
}

export async function fileLines(path) {
	return readFileSync(path, "utf8").split("\n").filter(Boolean);
}

export const specs = [
	{
		name: "without a sessions folder the bundled demo opens, and the window says so",
		async run({ h, dir }) {
			const missing = join(dir, "no-such-folder");
			const d = await h.open(["--sessions-dir", missing]);
			const banner = await d.waitFor("[data-testid=demo-banner]", { what: "the demo banner" });
			assert.ok((await banner.text()).toLowerCase().includes("demo"), await banner.text());
			const rows = await d.findAll("[data-testid=session-row]");
			assert.ok(rows.length >= 10, `demo sessions listed (${rows.length})`);
			const info = await d.exec("return window.__TAURI_INTERNALS__.invoke('app_info')");
			assert.equal(info.demo, true);
			assert.equal(info.wantedRoot, missing);
			await h.shot("demo");
		},
	},
	{
		name: "list shows the fixture sessions grouped by cwd",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			const rows = await d.findAll("[data-testid=session-row]");
			const paths = await Promise.all(rows.map((r) => r.attr("data-path")));
			for (const p of [fx.ids.sessionA, fx.ids.long, fx.ids.hostile, fx.ids.damaged, ...fx.ids.forkChain]) {
				assert.ok(paths.includes(p), `session ${p} listed`);
			}
			assert.equal(paths.length, 8);
			const sidebar = await (await d.find("body")).text();
			for (const t of ["Fix the login form", "Long refactoring session", "Fork chain level 3", "~/work/acme/web-app", "~/code/cli"]) {
				assert.ok(sidebar.includes(t), `sidebar shows ${t}`);
			}
			await h.shot("list");
		},
	},
	{
		name: "clicking a session shows its tree with the active path and labels",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			const ids = await rowIds(d);
			for (const id of [fx.ids.compaction1, fx.ids.compaction2, fx.ids.checkpoint, ...fx.ids.branchUsers]) {
				assert.ok(ids.includes(id), `row ${id} shown`);
			}
			const tree = await (await d.find("[data-testid=tree-view]")).text();
			assert.ok(tree.includes("checkpoint-1"), "label shown inline");
			const leaf = await d.find(`[data-testid=tree-row][data-id=${q(fx.ids.branch3Leaf)}]`);
			assert.ok((await leaf.text()).includes("leaf"), "leaf marked");
			await h.shot("tree");
		},
	},
	{
		name: "started as /explore starts it (--session FILE --select ID): that session, that entry selected",
		async run({ h, fx }) {
			const open = "const el = document.querySelector('[data-testid=session-row][aria-current=true]'); return el ? el.getAttribute('data-path') : null";
			// Without the options the window opens another session (the most recent) at its leaf.
			let d = await h.open(["--sessions-dir", fx.root]);
			const plain = await until(() => d.exec(open), "a session opened");
			assert.notEqual(plain, fx.ids.sessionA);
			await h.close();
			d = await h.open(["--sessions-dir", fx.root, "--session", fx.ids.sessionA, "--select", fx.ids.checkpoint]);
			await until(async () => (await selectedRowId(d)) === fx.ids.checkpoint, "the entry named by --select is selected", 15000);
			assert.equal(await d.exec(open), fx.ids.sessionA, "the session named by --session is open");
			await h.shot("started-with-session");
		},
	},
	{
		name: "a node after a compaction previews the context starting with the summary",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await selectRow(d, fx.ids.checkpoint);
			await (await d.find("[data-testid=inspector-tab-context]")).click();
			const first = await d.waitFor("[data-testid=context-view] [data-testid=context-message]", { what: "context messages" });
			assert.equal(await first.attr("data-id"), fx.ids.compaction1, "the first message comes from the compaction");
			assert.ok((await first.text()).includes("compaction summary"), await first.text());
			const view = await (await d.find("[data-testid=context-view]")).text();
			assert.ok(view.includes("Goal: fix the empty-password check"), "the summary text is shown");
			const msgs = await d.findAll("[data-testid=context-view] [data-testid=context-message]");
			const texts = await Promise.all(msgs.map((m) => m.text()));
			assert.ok(texts.some((t) => t.includes("Also reject whitespace-only")), "kept entry listed");
			const audit = await (await d.waitFor("[data-testid=compaction-audit]")).text();
			assert.ok(audit.includes("Hidden by compaction"), audit);
			const hidden = await d.findAll("[data-testid=hidden-entry]");
			assert.ok(hidden.length >= 1);
			await h.shot("context-after-compaction");
		},
	},

	// ------------------------------------------------------------------ writes (issue 3)
	{
		name: "Fork from here: the new session shows nested under its parent, and the file exists",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			const folder = dirname(fx.ids.sessionA);
			const before = sessionFiles(folder);
			await openSession(d, fx.ids.sessionA);
			await selectRow(d, fx.ids.checkpoint);
			await (await d.find("[data-testid=action-fork]")).click();
			const created = await until(() => {
				const now = sessionFiles(folder).filter((f) => !before.includes(f));
				return now.length === 1 ? join(folder, now[0]) : null;
			}, "a new session file");
			const row = await d.waitFor(`[data-testid=session-row][data-path=${q(created)}]`, { what: "the fork in the sidebar" });
			assert.match(await row.attr("class"), /nested/, "the fork row is nested");
			// It sits under its parent: the parent's row comes first.
			const order = await d.exec("return [...document.querySelectorAll('[data-testid=session-row]')].map(e => e.getAttribute('data-path'))");
			assert.ok(order.indexOf(fx.ids.sessionA) >= 0 && order.indexOf(fx.ids.sessionA) < order.indexOf(created), "nested after its parent");
			// The fork is a real pi session: header, the path copied, a leaf line for the fork point.
			const lines = await fileLines(created);
			const head = JSON.parse(lines[0]);
			assert.equal(head.parentSession, fx.ids.sessionA);
			const last = JSON.parse(lines.at(-1));
			assert.equal(last.type, "leaf");
			assert.equal(last.targetId, fx.ids.checkpoint);
			const t = cliJson("tree", created);
			assert.equal(t.leafId, fx.ids.checkpoint);
			// The fork point is marked in the parent's tree.
			await openSession(d, fx.ids.sessionA);
			await d.waitFor(`[data-testid=tree-row][data-id=${q(fx.ids.checkpoint)}] [data-testid=fork-marker]`, { what: "the fork marker at the fork point" });
			await h.shot("fork-nested");
		},
	},
	{
		name: "Label: the label shows on the node and is in the file",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await selectRow(d, fx.ids.firstKept1);
			await (await d.find("[data-testid=action-label]")).click();
			const input = await d.waitFor("[data-testid=label-input]");
			await input.type("review-me");
			await (await d.find("[data-testid=label-save]")).click();
			await d.waitForText(`[data-testid=tree-row][data-id=${q(fx.ids.firstKept1)}]`, "review-me");
			const last = JSON.parse((await fileLines(fx.ids.sessionA)).at(-1));
			assert.equal(last.type, "label");
			assert.equal(last.targetId, fx.ids.firstKept1);
			assert.equal(last.label, "review-me");
			assert.deepEqual(cliJson("tree", fx.ids.sessionA).labels[fx.ids.firstKept1], "review-me");
			await h.shot("label");
		},
	},
	{
		name: "Resume pi here: the leaf marker moves and survives a restart",
		async run({ h, fx }) {
			let d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			const target = fx.ids.branch1Leaf;
			await selectRow(d, target);
			await resumeHere(d);
			await d.waitFor(`[data-testid=tree-row][data-id=${q(target)}] [data-testid=leaf-pill]`, { what: "the leaf pill on the new leaf" });
			const pills = await d.findAll("[data-testid=leaf-pill]");
			assert.equal(pills.length, 1, "one leaf");
			const last = JSON.parse((await fileLines(fx.ids.sessionA)).at(-1));
			assert.deepEqual([last.type, last.targetId, last.parentId], ["leaf", target, target]);
			await h.shot("navigate");
			await h.close();
			d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await d.waitFor(`[data-testid=tree-row][data-id=${q(target)}] [data-testid=leaf-pill]`, { what: "the leaf after a restart" });
			await h.shot("navigate-after-restart");
		},
	},
	// ------------------------------------------------------------------ graphs (issue 4)
	{
		name: "keyboard-only walk through a branched session: move, jump, fold, filter, find",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await selectRow(d, fx.ids.firstHidden);
			const at = () => selectedRowId(d);
			// ↓ moves one row.
			await press(d, Keys.down);
			const second = await until(async () => ((await at()) !== fx.ids.firstHidden ? at() : null), "↓ to move");
			// ] jumps to the next branch point: the hub with three branches.
			await press(d, "]");
			await until(async () => (await at()) === fx.ids.branchHub || (await at()) === fx.ids.checkpoint, "] to reach a branch point");
			if ((await at()) === fx.ids.checkpoint) await press(d, "]");
			await until(async () => (await at()) === fx.ids.branchHub, "] to reach the hub");
			// Space collapses the branch point's subtree; Space again opens it (Enter navigates, as pi's /tree).
			const rowsBefore = (await rowIds(d)).length;
			await press(d, " ");
			await until(async () => (await rowIds(d)).length < rowsBefore, "the subtree to fold");
			await h.shot("keyboard-folded");
			await press(d, " ");
			await until(async () => (await rowIds(d)).length === rowsBefore, "the subtree to unfold");
			// [ jumps back.
			await press(d, "[");
			await until(async () => (await at()) !== fx.ids.branchHub, "[ to jump back");
			// f cycles the filter: user messages only.
			await press(d, "f");
			await until(async () => {
				const ids = await rowIds(d);
				return ids.length > 0 && ids.length < rowsBefore && ids.includes(fx.ids.branchUsers[0]);
			}, "f to filter to user messages");
			await h.shot("keyboard-user-only");
			await press(d, "f", "f", "f");
			await until(async () => (await rowIds(d)).length === rowsBefore, "f to cycle back to the default filter");
			// / focuses find; typing finds and Enter jumps to the match.
			await press(d, "/");
			await d.keys("error pages");
			await press(d, Keys.enter);
			await until(async () => (await at()) === fx.ids.branchUsers[1], "find to select the match");
			await h.shot("keyboard-find");
			assert.ok(second);
		},
	},
	{
		name: "the preview at a node behind two compactions shows the later summary first and lists the hidden entries",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await selectRow(d, fx.ids.behindTwo);
			await (await d.find("[data-testid=inspector-tab-context]")).click();
			const first = await d.waitFor("[data-testid=context-view] [data-testid=context-message]");
			assert.equal(await first.attr("data-id"), fx.ids.compaction2, "the later compaction's summary comes first");
			const messages = await d.findAll("[data-testid=context-view] [data-testid=context-message]");
			const shown = (await Promise.all(messages.map((m) => m.text()))).join("\n");
			const view = await (await d.find("[data-testid=context-view]")).text();
			assert.ok(view.includes("Second summary"), "the later summary is shown");
			assert.ok(!(await Promise.all(messages.map((m) => m.attr("data-id")))).includes(fx.ids.compaction1), `the earlier compaction is not a context message: ${shown}`);
			const hidden = await d.findAll("[data-testid=hidden-entry]");
			const ids = await Promise.all(hidden.map((e) => e.attr("data-id")));
			assert.ok(ids.includes(fx.ids.firstHidden) && ids.includes(fx.ids.compaction1), `hidden entries listed: ${ids}`);
			const ctx = cliJson("context", fx.ids.sessionA, "--leaf", fx.ids.behindTwo);
			assert.equal(hidden.length, Math.min(ctx.hiddenEntryIds.length, hidden.length));
			assert.ok(ids.every((id) => ctx.hiddenEntryIds.includes(id)), "the same hidden entries as the CLI");
			await h.shot("context-two-compactions");
		},
	},
	{
		name: "the fork graph shows the 3-deep fork chain with its fork points",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await (await d.waitFor("[data-testid=tab-forks]")).click();
			await d.waitFor("[data-testid=fork-graph] [data-testid=fork-node]");
			const graph = await (await d.find("[data-testid=fork-graph]")).text();
			for (let k = 0; k < 4; k++) assert.ok(graph.includes(`Fork chain level ${k}`), `level ${k} in the graph`);
			const forks = cliJson("forks", "--sessions-dir", fx.root).sessions.filter((s) => s.parentSession);
			assert.equal(forks.length, 3);
			for (const f of forks) {
				const edge = await d.waitFor(`[data-testid=fork-edge][data-child=${q(f.path)}]`, { what: `the edge to ${f.path}` });
				assert.ok((await edge.attr("data-fork-point")) === f.forkPointId, "edge carries the fork point");
			}
			await h.shot("fork-graph");
			// Clicking a node shows its details in the graph; opening its tree is explicit.
			const node = await d.find(`[data-testid=fork-node][data-path=${q(fx.ids.forkChain[2])}]`);
			await node.click();
			await d.waitForText("[data-testid=fork-details]", "Fork chain level");
			assert.equal(await d.exec("return document.querySelector('[data-testid=tab-forks]').getAttribute('aria-selected')"), "true", "still on the graph");
			await (await d.find("[data-testid=fork-open]")).click();
			await d.waitFor("[data-testid=tree-row]");
		},
	},
	{
		name: "a live append by another process shows up",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await sleep(500);
			const id = "live0001";
			const t0 = Date.now();
			appendFileSync(
				fx.ids.sessionA,
				JSON.stringify({ type: "message", id, parentId: fx.ids.branch3Leaf, timestamp: new Date().toISOString(), message: { role: "user", content: "Appended while the app was open.", timestamp: Date.now() } }) + "\n",
			);
			await d.waitFor(`[data-testid=tree-row][data-id=${q(id)}]`, { what: "the appended entry", timeout: 5000 });
			console.log(`     live append visible after ${Date.now() - t0} ms (WebDriver polling included)`);
			await h.shot("live-append");
		},
	},
	{
		name: "screenshots of every view in both themes",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			for (const theme of ["first", "second"]) {
				await openSession(d, fx.ids.sessionA);
				await selectRow(d, fx.ids.checkpoint);
				await (await d.find("[data-testid=inspector-tab-content]")).click();
				const mode = await d.exec("return document.documentElement.className");
				await h.shot(`tree-${mode}`);
				await (await d.find("[data-testid=inspector-tab-context]")).click();
				await d.waitFor("[data-testid=context-view] [data-testid=context-message]");
				await h.shot(`context-${mode}`);
				await (await d.find("[data-testid=tab-forks]")).click();
				await d.waitFor("[data-testid=fork-node]");
				await h.shot(`fork-graph-${mode}`);
				await (await d.find("[data-testid=tab-transcript]")).click();
				await d.waitFor("[data-testid=transcript-item]");
				await h.shot(`transcript-${mode}`);
				await (await d.find("[data-testid=tab-tree]")).click();
				await openSession(d, fx.ids.long);
				await h.shot(`long-session-${mode}`);
				if (theme === "first") await toggleTheme(h, d);
			}
		},
	},
	// ------------------------------------------------------------------ pi 1.6 sessions (issue 11)
	{
		name: "pi16: a session pi 1.6.0 wrote previews what pi 1.6.0 builds, and the edit audit shows the originals",
		async run({ h, dir }) {
			// Written at test time by the real pi 1.6.0 (its SessionManager, Node >= 22.19).
			const node24 = process.env.NODE24 ?? join(repo, ".tools/bin/node24");
			const pi16 = process.env.PI16_DIR ?? join(repo, "tests/pi-oracle/pi16");
			const root = join(dir, "sessions16");
			const { file, ids } = JSON.parse(execFileSync(node24, [join(repo, "tests/e2e/pi16-session.mjs"), root, pi16], { encoding: "utf8" }));
			const pi = JSON.parse(execFileSync(node24, [piOracle, file, "--pi-dir", pi16], { encoding: "utf8", maxBuffer: 1 << 26 }));
			const want = pi.view.context.messages;
			// What pi 1.6.0 gives: the compaction's system message, then its summary; the tool result
			// replaced; the dropped assistant message gone.
			assert.deepEqual(want.slice(0, 2).map((m) => m.role), ["system", "compactionSummary"]);
			assert.ok(JSON.stringify(want).includes("[output removed: it held a secret]"));
			assert.ok(!JSON.stringify(want).includes("ORIGINAL-SECRET-OUTPUT") && !JSON.stringify(want).includes("DROPPED-WRONG-APPROACH"));

			const d = await h.open(["--sessions-dir", root]);
			await openSession(d, file);
			// The tree draws the pi 1.x entries as their own kinds of node.
			for (const [id, badge, kind] of [[ids.system, "system-badge", "system"], [ids.usage1, "usage-badge", "usage"], [ids.edit1, "edit-badge", "edit"]]) {
				await d.waitFor(`[data-testid=tree-row][data-id=${q(id)}] [data-testid=${badge}]`, { what: `${badge} on ${id}` });
				assert.ok(await d.exec(`return !!document.querySelector('[data-testid=lane-svg] [data-kind="${kind}"]')`), `a ${kind} node in the graph`);
			}
			for (const theme of ["first", "second"]) {
				const mode = await d.exec("return document.documentElement.className");
				await selectRow(d, ids.assistant4);
				await (await d.find("[data-testid=inspector-tab-context]")).click();
				await d.waitFor("[data-testid=context-view] [data-testid=edit-audit]", { what: "the context-edit audit" });
				const msgs = await d.findAll("[data-testid=context-view] [data-testid=context-message]");
				const roles = await Promise.all(msgs.map((m) => m.attr("data-role")));
				assert.deepEqual(roles, want.map((m) => m.role), "the preview has pi 1.6.0's messages");
				const msgIds = await Promise.all(msgs.map((m) => m.attr("data-id")));
				assert.deepEqual(msgIds.slice(0, 2), [ids.compaction, ids.compaction]);
				assert.ok(!msgIds.includes(ids.assistant3), "the dropped message is not in the preview");
				const texts = (await Promise.all(msgs.map((m) => m.text()))).join("\n");
				assert.ok(texts.includes("[output removed: it held a secret]"), texts);
				assert.ok(!texts.includes("ORIGINAL-SECRET-OUTPUT"), texts);
				const summary = await (await d.find("[data-testid=context-summary]")).text();
				assert.ok(summary.includes(`${want.length} messages`), summary);
				// The audit: the original beside the replacement, the dropped one, the edits' lines.
				const rows = await d.findAll("[data-testid=edited-entry]");
				assert.deepEqual(await Promise.all(rows.map((r) => r.attr("data-id"))), [ids.tool1, ids.assistant3]);
				const [replaced, dropped] = await Promise.all(rows.map((r) => r.text()));
				assert.ok(replaced.includes("ORIGINAL-SECRET-OUTPUT") && replaced.includes("[output removed: it held a secret]") && replaced.includes("edit L7"), replaced);
				assert.ok(dropped.includes("DROPPED-WRONG-APPROACH") && dropped.includes("dropped from the context") && dropped.includes("edit L11"), dropped);
				assert.equal(await rows[1].attr("data-dropped"), "true");
				// The system message before the kept range is audited as hidden by the compaction.
				const hidden = await Promise.all((await d.findAll("[data-testid=hidden-entry]")).map((e) => e.attr("data-id")));
				assert.deepEqual(hidden, [ids.system]);
				await h.shot(`pi16-context-${mode}`);
				await selectRow(d, ids.edit1);
				await (await d.find("[data-testid=inspector-tab-content]")).click();
				await d.waitFor("[data-testid=context-edit]", { what: "the context edit in the inspector" });
				await h.shot(`pi16-inspector-edit-${mode}`);
				await (await d.find("[data-testid=tab-transcript]")).click();
				await d.waitFor("[data-testid=edit-card]", { what: "the context edit in the transcript" });
				await d.waitFor("[data-testid=usage-line]", { what: "the usage entry in the transcript" });
				await h.shot(`pi16-transcript-${mode}`);
				await (await d.find("[data-testid=tab-tree]")).click();
				await d.waitFor("[data-testid=tree-row]");
				if (theme === "first") await toggleTheme(h, d);
			}
		},
	},
	// ------------------------------------------------------------------ steering (issue 13)
	{
		name: "Compare: two marked branches side by side from their common ancestor, in both themes",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			// Mark two leaves: one from the inspector's Mark button, one with the m key.
			await selectRow(d, fx.ids.branch1Leaf);
			await (await d.find("[data-testid=action-mark]")).click();
			await selectRow(d, fx.ids.branch2Leaf);
			await press(d, "m");
			await d.waitFor(`[data-testid=tree-row][data-id=${q(fx.ids.branch1Leaf)}][data-marked=true]`, { what: "first mark on its row" });
			await d.waitFor(`[data-testid=tree-row][data-id=${q(fx.ids.branch2Leaf)}][data-marked=true]`, { what: "second mark on its row" });
			const bar = await (await d.waitFor("[data-testid=marked-bar]")).text();
			assert.ok(bar.includes("2 marked"), bar);
			await (await d.find("[data-testid=action-compare]")).click();
			await d.waitFor("[data-testid=compare-view] [data-testid=compare-row]", { what: "compare rows" });
			const anc = await d.find("[data-testid=compare-ancestor] [data-id]");
			assert.equal(await anc.attr("data-id"), fx.ids.branchHub, "the common ancestor is the hub");
			// The core's answer, through the CLI, is what the view shows.
			const want = cliJson("diff", fx.ids.sessionA, fx.ids.branch1Leaf, fx.ids.branch2Leaf);
			const rows = await d.findAll("[data-testid=compare-view] [data-testid=compare-row]");
			assert.equal(rows.length, want.rows.length);
			const sideA = await (await d.find("[data-testid=compare-side-a]")).text();
			const sideB = await (await d.find("[data-testid=compare-side-b]")).text();
			assert.ok(sideA.includes("src/config/loader.ts") && !sideA.includes("views/500.html"), sideA);
			assert.ok(sideB.includes("views/500.html") && !sideB.includes("src/config/loader.ts"), sideB);
			const first = await rows[0].text();
			assert.ok(first.includes("Migrate the config loader") && first.includes("Make the error pages"), first);
			const ctx = await d.findAll("[data-testid=compare-context-row]");
			const ops = await Promise.all(ctx.map((r) => r.attr("data-op")));
			assert.equal(ops.filter((o) => o === "same").length, want.contextShared);
			assert.ok(ops.includes("a") && ops.includes("b"), ops.join(","));
			for (const theme of ["first", "second"]) {
				const mode = await d.exec("return document.documentElement.className");
				await h.shot(`compare-${mode}`);
				if (theme === "first") await toggleTheme(h, d);
			}
			// Fork compacted explains itself before writing anything; Keep only these branches too.
			const folder = dirname(fx.ids.sessionA);
			const before = sessionFiles(folder);
			await (await d.find("[data-testid=tab-tree]")).click();
			await selectRow(d, fx.ids.branch1Leaf);
			await (await d.find("[data-testid=action-fork-slim]")).click();
			const explain = await (await d.waitFor("[data-testid=write-explain]")).text();
			assert.ok(/Creates a new session file/.test(explain) && /untouched/.test(explain), explain);
			assert.deepEqual(sessionFiles(folder), before, "nothing written before Create");
			await h.shot("fork-compacted-explain");
			await (await d.find("[data-testid=write-confirm]")).click();
			const slim = await until(() => {
				const now = sessionFiles(folder).filter((f) => !before.includes(f));
				return now.length === 1 ? join(folder, now[0]) : null;
			}, "the slim fork file");
			const head = JSON.parse((await fileLines(slim))[0]);
			assert.equal(head.parentSession, fx.ids.sessionA);
			const ctxSlim = cliJson("context", slim);
			const ctxSrc = cliJson("context", fx.ids.sessionA, "--leaf", fx.ids.branch1Leaf);
			assert.deepEqual(ctxSlim.messages, ctxSrc.messages, "same context as the source at the node");
			assert.ok(ctxSlim.messages.length > 0);
			// Keep only these branches: the two marked leaves' paths, nothing else.
			await openSession(d, fx.ids.sessionA);
			await selectRow(d, fx.ids.branch2Leaf);
			const before2 = sessionFiles(folder);
			await (await d.find("[data-testid=action-prune]")).click();
			const explain2 = await (await d.waitFor("[data-testid=write-explain]")).text();
			assert.ok(/2 paths/.test(explain2) && /Nothing is deleted/.test(explain2), explain2);
			assert.deepEqual(sessionFiles(folder), before2, "nothing written before Create");
			await h.shot("keep-only-explain");
			await (await d.find("[data-testid=write-confirm]")).click();
			const pruned = await until(() => {
				const now = sessionFiles(folder).filter((f) => !before2.includes(f));
				return now.length === 1 ? join(folder, now[0]) : null;
			}, "the pruned copy");
			const tree = cliJson("tree", pruned);
			const ids = JSON.stringify(tree);
			assert.ok(ids.includes(fx.ids.branch1Leaf) && ids.includes(fx.ids.branch2Leaf) && !ids.includes(fx.ids.branch3Leaf), "only the kept branches");
			for (const leaf of [fx.ids.branch1Leaf, fx.ids.branch2Leaf]) {
				assert.deepEqual(cliJson("context", pruned, "--leaf", leaf).messages, cliJson("context", fx.ids.sessionA, "--leaf", leaf).messages, `context at ${leaf}`);
			}
			// Before the first compaction there is nothing to slim: said so, the ordinary fork offered.
			await openSession(d, fx.ids.sessionA);
			await selectRow(d, fx.ids.firstHidden);
			await (await d.find("[data-testid=action-fork-slim]")).click();
			const none = await (await d.waitFor("[data-testid=write-explain]")).text();
			assert.ok(/No compaction on this path/.test(none), none);
			assert.equal((await d.findAll("[data-testid=write-confirm]")).length, 0);
			await d.find("[data-testid=write-fork-instead]");
		},
	},
	// ------------------------------------------------------------------ transcript (issue 7)
	{
		name: "transcript: the switcher steps between three branches writing nothing; Resume pi here on the branch shown appends one leaf line, and pi resumes there",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await (await d.find("[data-testid=tab-transcript]")).click();
			const [b1, b2, b3] = fx.ids.branchUsers;
			// Elements are looked up afresh each time: the virtualised transcript re-renders items.
			const at = (id) => `[data-testid=transcript-item][data-id=${q(id)}]`;
			await d.waitForText(`${at(b3)} [data-testid=sibling-pos]`, "3/3", { what: "the switcher at 3/3" });
			await h.shot("transcript-3-of-3");
			const linesBefore = (await fileLines(fx.ids.sessionA)).length;
			await (await d.waitFor(`${at(b3)} [data-testid=sibling-prev]`)).click();
			await d.waitForText(`${at(b2)} [data-testid=sibling-pos]`, "2/3", { what: "the second branch at 2/3" });
			const view = await (await d.find("[data-testid=transcript-view]")).text();
			assert.ok(view.includes("Both error pages now use the shared layout."), "the branch's messages are shown");
			assert.ok(!view.includes("docs/login.md written"), "the other branch is gone");
			await h.shot("transcript-2-of-3");
			assert.equal((await fileLines(fx.ids.sessionA)).length, linesBefore, "switching writes nothing");
			// The strip over the view offers the write, which the inspector confirms.
			await (await d.waitFor("[data-testid=view-bar] [data-testid=view-resume]", { what: "the strip of the branch shown" })).click();
			await (await d.waitFor("[data-testid=resume-ok]", { what: "the confirmation" })).click();
			await until(async () => (await fileLines(fx.ids.sessionA)).length === linesBefore + 1, "the leaf line");
			const lines = await fileLines(fx.ids.sessionA);
			assert.equal(lines.length, linesBefore + 1, "exactly one line appended");
			const leaf = JSON.parse(lines.at(-1));
			assert.deepEqual([leaf.type, leaf.targetId], ["leaf", fx.ids.branch2Leaf]);
			// The real pi reopens the file on that branch: its context equals ours.
			const pi = JSON.parse(execFileSync("node", [piOracle, fx.ids.sessionA], { encoding: "utf8" }));
			const ours = cliJson("context", fx.ids.sessionA);
			assert.equal(ours.leafId, fx.ids.branch2Leaf);
			assert.deepEqual(pi.view.context.messages, ours.messages, "pi resumes on the chosen branch");
			// Both themes.
			await toggleTheme(h, d);
			await h.shot("transcript-2-of-3-other-theme");
			await toggleTheme(h, d);
			assert.ok(b1);
		},
	},
	// ------------------------------------------------------------------ untrusted content (issue 6)
	{
		name: "untrusted session text renders inert: no script runs, no request leaves the app",
		fixtureOptions: { hostileUrl: `http://127.0.0.1:${process.env.E2E_HOSTILE_PORT ?? 47913}` },
		async run({ h, fx }) {
			const requests = [];
			const server = createServer((req, res) => {
				requests.push(req.url);
				res.end("x");
			});
			await new Promise((r) => server.listen(Number(process.env.E2E_HOSTILE_PORT ?? 47913), "127.0.0.1", r));
			try {
				const d = await h.open(["--sessions-dir", fx.root]);
				await openSession(d, fx.ids.hostile);
				for (const id of await rowIds(d)) {
					await selectRow(d, id);
					await sleep(300);
				}
				await (await d.find("[data-testid=inspector-tab-context]")).click();
				await sleep(300);
				await (await d.find("[data-testid=tab-transcript]")).click();
				await d.waitFor("[data-testid=transcript-item]");
				await sleep(1500);
				const text = await (await d.find("body")).text();
				assert.ok(text.includes("<script>window.__pwned = 1</script>"), "the script tag shows as text");
				const pwned = await d.exec("return window.__pwned ?? null");
				assert.equal(pwned, null, "no session script ran");
				const injected = await d.exec("return document.querySelectorAll('main script, [data-testid=inspector] img, [data-testid=inspector] iframe, [data-testid=transcript-view] img, [data-testid=transcript-view] iframe, [onerror], [onmouseover]').length");
				assert.equal(injected, 0, "no element was injected");
				const jsLinks = await d.exec("return [...document.querySelectorAll('a[href]')].filter(a => a.getAttribute('href').trim().toLowerCase().startsWith('javascript:')).length");
				assert.equal(jsLinks, 0, "no javascript: link");
				assert.deepEqual(requests, [], "no request left the app");
				// The CSP is in force: even code running in the page cannot fetch, load images or run inline script.
				const probe = await d.execAsync(
					`const done = arguments[arguments.length - 1];
					const url = arguments[0];
					const out = {};
					const s = document.createElement('script');
					s.textContent = 'window.__inlineRan = 1';
					document.body.appendChild(s);
					out.inline = window.__inlineRan === 1;
					const img = new Image();
					img.onload = () => (out.img = 'loaded');
					img.onerror = () => (out.img = 'blocked');
					img.src = url + '/probe.png';
					fetch(url + '/probe').then(() => (out.fetch = 'sent'), () => (out.fetch = 'blocked')).finally(() => setTimeout(() => done(out), 300));`,
					[`http://127.0.0.1:${process.env.E2E_HOSTILE_PORT ?? 47913}`],
				);
				assert.deepEqual(probe, { inline: false, img: "blocked", fetch: "blocked" }, "CSP blocks inline script, images and fetch");
				assert.deepEqual(requests, [], "still no request");
				await h.shot("untrusted-inert");
			} finally {
				server.close();
			}
		},
	},
	{
		name: "two roots in one window: root on each session, a synced prefix copy once, a diverged copy flagged, roots added and removed",
		async run({ h, fx, dir }) {
			// A second machine's folder: a copy of session A synced before its last lines (a byte
			// prefix), and a copy of the long session that went on differently (diverged).
			const desk = join(dir, "desk-sessions");
			const copyOf = (src, keep, extra) => {
				const rel = src.slice(fx.root.length + 1);
				const to = join(desk, rel);
				mkdirSync(dirname(to), { recursive: true });
				const lines = readFileSync(src, "utf8").split("\n").filter(Boolean);
				writeFileSync(to, lines.slice(0, keep ?? lines.length).map((l) => l + "\n").join("") + (extra ?? ""));
				return to;
			};
			const lines = (p) => readFileSync(p, "utf8").split("\n").filter(Boolean);
			const prefixCopy = copyOf(fx.ids.sessionA, Math.max(2, lines(fx.ids.sessionA).length - 3));
			const longLines = lines(fx.ids.long);
			const lastId = JSON.parse(longLines[longLines.length - 1]).id;
			const other = JSON.stringify({ type: "message", id: "d1vg0001", parentId: lastId, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "continued on the desk", timestamp: 1 } });
			const diverged = copyOf(fx.ids.long, undefined, other + "\n");
			appendFileSync(fx.ids.long, JSON.stringify({ type: "message", id: "l4pt0001", parentId: lastId, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "continued on the laptop", timestamp: 2 } }) + "\n");

			const d = await h.open(["--sessions-dir", `laptop=${fx.root}`, "--sessions-dir", `desk=${desk}`]);
			await d.waitFor("[data-testid=root-marker]", { what: "root markers" });
			const rows = await d.findAll("[data-testid=session-row]");
			const paths = await Promise.all(rows.map((r) => r.attr("data-path")));
			assert.equal(paths.length, 9, `8 sessions of the laptop + the diverged desk copy (${paths.length})`);
			assert.ok(paths.includes(fx.ids.sessionA) && !paths.includes(prefixCopy), "the prefix copy is shown once, the longer file");
			assert.ok(paths.includes(fx.ids.long) && paths.includes(diverged), "both diverged copies shown");
			const flagged = await d.exec("return [...document.querySelectorAll('[data-testid=session-row]')].filter(r => r.querySelector('[data-testid=diverged-marker]')).map(r => r.getAttribute('data-path'))");
			assert.deepEqual(flagged.sort(), [fx.ids.long, diverged].sort(), "the diverged copies are flagged");
			const markers = await d.exec("return [...new Set([...document.querySelectorAll('[data-testid=root-marker]')].map(m => m.textContent.trim()))].sort()");
			assert.deepEqual(markers, ["desk", "laptop"]);
			const items = await d.findAll("[data-testid=root-item]");
			assert.equal(items.length, 2, "both roots in the roots panel");
			await h.shot("two-roots");

			// The desk is watched too: a session that appears there shows up.
			writeSmallSession({
				dir: join(desk, cwdFolder("/home/desk")),
				cwd: "/home/desk",
				id: "0197dddd-0000-7000-8000-000000000001",
				created: "2026-01-02T00:00:00.000Z",
				entryId: "dd000001",
				entryTime: "2026-01-02T00:00:01.000Z",
				content: "made on the desk",
				messageTime: 1,
			});
			await until(async () => (await d.findAll("[data-testid=session-row]")).length === 10, "the new desk session listed");

			// Mark the desk read-only from the window: a write to its copy is refused, the file unchanged.
			await (await d.find("[data-testid=root-item][data-name=desk] [data-testid=root-readonly]")).click();
			await until(async () => (await d.exec("return window.__TAURI_INTERNALS__.invoke('app_info')")).roots?.find((r) => r.name === "desk")?.readOnly, "desk read-only");
			const before = readFileSync(diverged, "utf8");
			const refused = await d.exec("return window.__TAURI_INTERNALS__.invoke('navigate', {path: arguments[0], id: null}).then(() => 'written', e => e.code)", [diverged]);
			assert.equal(refused, "read-only-mode");
			assert.equal(readFileSync(diverged, "utf8"), before, "the read-only root's file is unchanged");

			// Remove the desk, then add it back through the form.
			await (await d.find("[data-testid=root-item][data-name=desk] [data-testid=root-remove]")).click();
			await until(async () => (await d.findAll("[data-testid=session-row]")).length === 8, "the desk's sessions gone");
			assert.equal((await d.findAll("[data-testid=root-marker]")).length, 0, "one root: no root markers");
			await (await d.find("[data-testid=root-add]")).click();
			await (await d.find("[data-testid=root-path-input]")).type(desk);
			await (await d.find("[data-testid=root-name-input]")).type("desk");
			await (await d.find("[data-testid=root-add-submit]")).click();
			await until(async () => (await d.findAll("[data-testid=session-row]")).length === 10, "the desk's sessions back");
			await h.shot("two-roots-added");

		},
	},
	{
		name: "a root added in the window is watched and searched: a session written there later is listed and found",
		async run({ h, fx, dir }) {
			const desk = join(dir, "desk-sessions");
			const session = (id, created, content) => writeSmallSession({ dir: join(desk, cwdFolder("/home/desk")), cwd: "/home/desk", id, created, entryId: id.slice(4, 12), content, messageTime: 1 });
			session("0197dddd-0000-7000-8000-000000000001", "2026-01-02T00:00:00.000Z", "made on the desk");
			const d = await h.open(["--sessions-dir", fx.root]);
			await d.waitFor("[data-testid=session-row]");
			const n0 = (await d.findAll("[data-testid=session-row]")).length;
			await (await d.find("[data-testid=root-add]")).click();
			await (await d.find("[data-testid=root-path-input]")).type(desk);
			await (await d.find("[data-testid=root-name-input]")).type("desk");
			await (await d.find("[data-testid=root-add-submit]")).click();
			await until(async () => (await d.findAll("[data-testid=session-row]")).length === n0 + 1, "the desk's session listed");
			// Only the added root changes now: its watcher tells the window.
			const later = session("0197eeee-0000-7000-8000-000000000002", "2026-01-03T00:00:00.000Z", "quetzalcoatl written on the desk after it was added");
			await until(async () => (await d.findAll("[data-testid=session-row]")).length === n0 + 2, "the session written in the added root listed", 5000);
			// The full-text search spans both roots.
			await (await d.find("[data-testid=search-input]")).type("quetzalcoatl");
			await d.waitFor(`[data-testid=search-hit][data-path=${q(later)}]`, { what: "a hit in the added root" });
			await h.shot("added-root-watched-and-searched");
		},
	},
	...journeySpecs,
];

// Issue 14: indexed search, dashboard, tags/pin/archive, export.
import { findSpecs } from "./specs-find.mjs";
specs.push(...findSpecs);

// Lineage: subagent runs, spawn chips, the parent link, spawn edges, family figures.
import { lineageSpecs } from "./specs-lineage.mjs";
specs.push(...lineageSpecs);
// What a user meets in the first hour: browsing never writes, the inspector follows the view,
// the keyboard, feedback.
import { uxSpecs } from "./specs-ux.mjs";
specs.push(...uxSpecs);

// Views on big and odd folders: the Context view, the fork graph, unreadable files, the
// dashboard, session markers, images.
import { uxViewSpecs } from "./specs-ux-views.mjs";
specs.push(...uxViewSpecs);

// The window beside a running pi 1.6.0: who follows, offers answered in pi.
import { piLinkSpecs } from "./specs-pilink.mjs";
specs.push(...piLinkSpecs);

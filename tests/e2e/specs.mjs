// The end-to-end scenarios. Each gets a fresh copy of the fixtures and a fresh app.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { sleep } from "./webdriver.mjs";

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

export async function fileLines(path) {
	return readFileSync(path, "utf8").split("\n").filter(Boolean);
}

export const specs = [
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
];

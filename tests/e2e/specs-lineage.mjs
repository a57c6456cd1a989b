// End-to-end scenario of lineage in the window: subagent runs nested and folded in the list, the
// chip on the tool call that started a run opens it, the run names its parent, the fork graph
// draws spawns and forks as two kinds of edge, and the family's figures are shown. Screenshots
// go to docs/screenshots/lineage-*.png.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { rowLayoutScript } from "../lib/layout.mjs";
import { repo, targetDir } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";
import { inspectedId, openSession, until } from "./specs.mjs";

const q = (s) => JSON.stringify(s);
const cli = process.env.PI_SESSION_BIN ?? join(targetDir, "debug/pi-session");

/** The UI's money format (lib/format.ts `cost`), for the figures the core gives. */
const money = (v) => (v === 0 ? "$0" : v < 0.01 ? "<$0.01" : v < 100 ? `$${v.toFixed(2)}` : `$${Math.round(v)}`);

/** Pairs of rows of the transcript that do not follow one another (-1: fewer than two rows drawn). */
const transcriptRowsOutOfPlace = async (d) => {
	const l = await d.exec(rowLayoutScript, ["[data-testid=transcript-view] .spacer"]);
	return l && l.rows.length >= 2 ? l.bad.length : -1;
};
const sidebarPaths = (d) => d.exec("return [...document.querySelectorAll('[data-testid=session-row]')].map((r) => r.getAttribute('data-path'))");
const openPathOf = (d) => d.exec("return document.querySelector('[data-testid=session-row][aria-current=true]')?.getAttribute('data-path') ?? null");

export const lineageSpecs = [
	{
		name: "lineage: subagent runs nested and folded, the tool call's chip opens a run, the run names its parent, spawn and fork edges, family cost",
		fixtureOptions: { lineage: true },
		async run({ h, fx }) {
			const { spawnParent: parent, spawnRuns: runs, spawnEntry, spawnFork: fork } = fx.ids;
			const out = join(repo, "docs/screenshots");
			mkdirSync(out, { recursive: true });
			const list = JSON.parse(execFileSync(cli, ["list", "--sessions-dir", fx.root, "--json"], { encoding: "utf8" })).sessions;
			const row = (p) => list.find((s) => s.path === p);
			assert.ok(runs.every((r) => row(r).kind === "spawn" && row(r).spawnedBy === spawnEntry), "the core links each run to the tool call's entry");
			const d = await h.open(["--sessions-dir", fx.root]);
			const save = async (name) => {
				await sleep(500);
				writeFileSync(join(out, `lineage-${name}.png`), await d.screenshot());
				await h.shot(`lineage-${name}`);
			};

			// 1. The list: the parent says "3 subagent runs", folded; the fork nests under it.
			const toggle = await d.waitFor(`[data-testid=spawn-toggle][data-parent=${q(parent)}]`, { what: "the parent's runs toggle" });
			assert.match(await toggle.text(), /3 subagent runs/);
			assert.equal(await toggle.attr("aria-expanded"), "false");
			let paths = await sidebarPaths(d);
			for (const r of runs) assert.ok(!paths.includes(r), "a run is folded away");
			assert.ok(paths.includes(fork), "the fork is listed");
			const nested = await d.exec("return document.querySelector(`[data-testid=session-row][data-path=${JSON.stringify(arguments[0])}]`).classList.contains('nested')", [fork]);
			assert.equal(nested, true, "the fork nests under its parent");
			await toggle.click();
			await until(async () => {
				paths = await sidebarPaths(d);
				return runs.every((r) => paths.includes(r));
			}, "the runs unfold");
			const at = paths.indexOf(parent);
			assert.deepEqual(paths.slice(at + 1, at + 4), runs, "the runs follow their parent, oldest first");
			assert.equal(await (await d.find(`[data-testid=spawn-toggle][data-parent=${q(parent)}]`)).attr("aria-expanded"), "true");

			// 2. The parent: its own and its family's figures.
			await openSession(d, parent);
			const fam = await d.waitFor("[data-testid=family-figures]", { what: "the family's figures" });
			const p = row(parent);
			assert.equal(p.familySize, 4);
			assert.ok(Math.abs(p.familyCost - (p.ownCost + runs.reduce((a, r) => a + row(r).ownCost, 0))) < 1e-9, "family = own + runs");
			const famText = await fam.text();
			assert.match(famText, /family of 4 sessions/);
			assert.ok(famText.includes(money(p.familyCost)), `${famText} shows ${money(p.familyCost)}`);
			assert.ok((await (await d.find("[data-testid=lineage-figures]")).text()).includes(`own `), "own figures shown");
			const tip = await (await d.find(`[data-testid=session-row][data-path=${q(parent)}]`)).attr("title");
			assert.match(tip, /Family \(itself and 3 spawns\)/, "the row's tooltip has the family's figures");
			await save("sidebar-family");

			// 3. The chips on the tool call's row in the tree: one opens its run.
			const treeChips = await d.waitFor(`[data-testid=tree-row][data-id=${q(spawnEntry)}] [data-testid=spawn-chip]`, { what: "a chip on the tree row" });
			assert.ok(runs.includes(await treeChips.attr("data-path")));
			await treeChips.click();
			const opened = await until(async () => {
				const o = await openPathOf(d);
				return o && runs.includes(o) ? o : null;
			}, "a run opened from the tree's chip");
			// 4. The run names its parent and the entry that started it; the link goes there.
			const link = await d.waitFor("[data-testid=lineage-parent]", { what: "the parent link" });
			assert.equal(await link.attr("data-path"), parent);
			assert.equal(await link.attr("data-entry"), spawnEntry);
			await d.waitForText("[data-testid=lineage-bar]", "Spawned by");
			await d.waitForText("[data-testid=lineage-bar]", "Plan the 2.0 release with subagents");
			await d.waitForText("[data-testid=lineage-at]", "three subagents");
			assert.equal(opened, runs[0], "the first chip is the first run");
			await save("child");
			await link.click();
			await until(async () => (await openPathOf(d)) === parent, "back in the parent");
			await until(async () => (await inspectedId(d)) === spawnEntry, "the spawning entry selected");

			// 5. The transcript: a chip under each tool call, each opening its own run.
			await (await d.find("[data-testid=tab-transcript]")).click();
			const item = `[data-testid=transcript-item][data-id=${q(spawnEntry)}]`;
			await d.waitFor(`${item} [data-testid=spawn-chip]`, { what: "chips in the transcript" });
			const chips = await d.findAll(`${item} [data-testid=spawn-chip]`);
			assert.deepEqual(await Promise.all(chips.map((c) => c.attr("data-path"))), runs, "one chip per tool call, in call order");
			await d.exec("document.querySelector(arguments[0])?.scrollIntoView({ block: 'center' })", [item]);
			// Each row starts where the one above it ends (rows drawn over this entry once hid a chip).
			await until(async () => (await transcriptRowsOutOfPlace(d)) === 0, "the transcript's rows in place");
			await save("transcript-chips");
			await d.clickWhen(`${item} [data-testid=spawn-chip][data-path=${q(runs[2])}]`, { what: "the third run's chip" });
			await until(async () => (await openPathOf(d)) === runs[2], "the third run opened from its chip");
			// The runs fold again on the toggle, the open run too.
			await (await d.find(`[data-testid=spawn-toggle][data-parent=${q(parent)}]`)).click();
			await until(async () => {
				const now = await sidebarPaths(d);
				return runs.every((r) => !now.includes(r));
			}, "the runs fold while one is open");

			// 6. The fork graph: spawn edges (from the spawning entry) and a fork edge, with a legend.
			await (await d.find("[data-testid=tab-forks]")).click();
			for (const r of runs) {
				const e = await d.waitFor(`[data-testid=fork-edge][data-child=${q(r)}]`, { what: `the edge to ${r}` });
				assert.equal(await e.attr("data-kind"), "spawn");
				assert.equal(await e.attr("data-spawned-by"), spawnEntry);
			}
			const fe = await d.waitFor(`[data-testid=fork-edge][data-child=${q(fork)}]`, { what: "the fork's edge" });
			assert.equal(await fe.attr("data-kind"), "fork");
			assert.equal(await fe.attr("data-fork-point"), row(fork).forkPointId);
			await d.waitFor("[data-testid=legend-spawn]");
			await (await d.find("[data-testid=fork-graph] [aria-label=Fit]")).click();
			await save("fork-graph");

			// 7. The dashboard's per-session chart by family.
			await (await d.find("[data-testid=tab-dashboard]")).click();
			const fam2 = await d.waitFor("[data-testid=dash-by-family]", { what: "the by-family switch" });
			await fam2.click();
			await d.waitForText("[data-testid=dashboard]", "Most expensive families");
		},
	},
];

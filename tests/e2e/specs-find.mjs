// End-to-end scenarios of issue 14: indexed search, dashboard, tags/pin/archive, export.
// Marks are keyed by session id and the fixtures reuse their ids, so each scenario undoes its
// marks at the end (the app's data folder is shared by the run).

import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { writeSmallSession } from "../lib/sessions.mjs";
import { sleep } from "./webdriver.mjs";
import { targetDir } from "./harness.mjs";
import { openSession, until } from "./specs.mjs";

const q = (s) => JSON.stringify(s);

async function setTheme(d, want) {
	const now = await d.exec("return document.documentElement.classList.contains('dark') ? 'dark' : 'light'");
	if (now !== want) {
		await (await d.find("[data-testid=theme-toggle]")).click();
		await sleep(300);
	}
}

async function sidebarPaths(d) {
	return d.exec("return [...document.querySelectorAll('[data-testid=session-row]')].map((r) => r.getAttribute('data-path'))");
}

async function firstGroup(d) {
	return d.exec("return document.querySelector('.sessions .group')?.innerText ?? ''");
}

export const findSpecs = [
	{
		name: "indexed search: an append becomes searchable within 1 s, and a hit opens its entry with every hit banded",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			const input = await d.find("[data-testid=search-input]");
			await input.click();
			await input.type("zebraquartz");
			await d.waitForText("[data-testid=search-results]", "No matches", { what: "the empty result" });
			// In-page clock: when the first hit appears.
			await d.exec(`window.__hitAt = null; const o = new MutationObserver(() => { if (!window.__hitAt && document.querySelector('[data-testid=search-hit]')) { window.__hitAt = Date.now(); o.disconnect(); } }); o.observe(document.body, { subtree: true, childList: true });`);
			const lines = readFileSync(fx.ids.sessionA, "utf8").trim().split("\n");
			const last = JSON.parse(lines[lines.length - 1]);
			const ids = ["zq000001", "zq000002"];
			const t0 = Date.now();
			appendFileSync(
				fx.ids.sessionA,
				JSON.stringify({ type: "message", id: ids[0], parentId: fx.ids.branch3Leaf, timestamp: new Date().toISOString(), message: { role: "user", content: "Find the zebraquartz marker", timestamp: Date.now() } }) +
					"\n" +
					JSON.stringify({ type: "message", id: ids[1], parentId: ids[0], timestamp: new Date().toISOString(), message: { role: "assistant", content: [{ type: "text", text: "Zebraquartz found twice." }], provider: "anthropic", model: "claude-x", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } }, stopReason: "stop", timestamp: Date.now() } }) +
					"\n",
			);
			void last;
			const hitAt = await until(() => d.exec("return window.__hitAt"), "a search hit for the appended line", 5000);
			const ms = hitAt - t0;
			console.log(`     append searchable in the window after ${ms} ms`);
			assert.ok(ms <= 1000, `searchable after ${ms} ms (want ≤ 1000)`);
			const hits = await d.findAll("[data-testid=search-hit]");
			assert.equal(hits.length, 2);
			const marked = await d.exec("return [...document.querySelectorAll('[data-testid=search-hit] mark')].map(m => m.textContent.toLowerCase())");
			assert.deepEqual([...new Set(marked)], ["zebraquartz"]);
			await h.shot("search-indexed");
			await (await d.find(`[data-testid=search-hit][data-id=${q(ids[0])}]`)).click();
			await d.waitForText("[data-testid=inspector]", ids[0]);
			// Both hits carry the find band in the tree.
			await until(async () => (await d.exec("return [...document.querySelectorAll('[data-testid=tree-row].found')].map(r => r.getAttribute('data-id')).sort()")).join() === ids.join(), "both hits banded in the tree");
			await h.shot("search-hit-bands");
			// Filters: role.
			await input.clear();
			await input.type("zebraquartz role:assistant");
			await until(async () => (await d.findAll("[data-testid=search-hit]")).length === 1, "one assistant hit");
		},
	},
	{
		name: "indexed search off: the switch turns the index off, a search reads the files and says so, and on again answers from the index",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			const input = await d.find("[data-testid=search-input]");
			await input.click();
			await input.type("whitespace");
			await until(async () => (await d.findAll("[data-testid=search-hit]")).length > 0, "hits from the index");
			const indexed = await d.exec("return document.querySelectorAll('[data-testid=search-hit]').length");
			await d.waitForText("[data-testid=search-summary]", "files indexed", { what: "an answer from the index" });
			await (await d.find("[data-testid=search-index-toggle]")).click();
			// The answer asked again, read from the files (a count of them, not the stale answer's 0).
			await until(() => d.exec("const e = document.querySelector('[data-testid=search-scanned]'); return e && /no index: [1-9]\\d* files read/.test(e.textContent) ? e.textContent : null"), "the answer read from the files", 5000);
			assert.equal(await d.exec("return document.querySelectorAll('[data-testid=search-hit]').length"), indexed, "the same hits without the index");
			await d.waitForText("[data-testid=search-index-toggle]", "Turn the index on");
			await h.shot("search-index-off");
			const settings = JSON.parse(readFileSync(join(h.dataDir, "search.json"), "utf8"));
			assert.equal(settings.index, false, "the choice is kept in the data folder");
			await (await d.find("[data-testid=search-index-toggle]")).click();
			await d.waitForText("[data-testid=search-index-toggle]", "Turn the index off");
			await d.waitForText("[data-testid=search-summary]", "files indexed", { what: "an answer from the index again" });
			assert.equal(await d.exec("return document.querySelectorAll('[data-testid=search-hit]').length"), indexed);
		},
	},
	{
		name: "dashboard: a click on a bar lists the sessions behind it and opens one; both themes",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await (await d.find("[data-testid=tab-dashboard]")).click();
			await d.waitFor("[data-testid=dash-totals]", { what: "dashboard totals" });
			const cost = await (await d.find("[data-testid=dash-cost]")).text();
			const list = JSON.parse(
				(await import("node:child_process")).execFileSync(process.env.PI_SESSION_BIN ?? join(targetDir, "debug/pi-session"), ["list", "--sessions-dir", fx.root, "--json"], { encoding: "utf8" }),
			);
			const want = list.sessions.reduce((a, s) => a + s.cost, 0);
			assert.equal(cost, want >= 100 ? `$${want.toFixed(0)}` : `$${want.toFixed(2)}`, "total cost = sum of list");
			for (const theme of ["light", "dark"]) {
				await setTheme(d, theme);
				await sleep(500);
				await h.shot(`dashboard-${theme}`);
			}
			// Click the biggest project's bar: through Chart.js's own hit-testing.
			const pt = await until(() => d.exec("return window.__piExplorerTest?.barPoint?.('project', 0) ?? null"), "bar coordinates");
			await d.exec(
				"const [x, y] = arguments; const c = document.querySelector('[data-testid=chart-project]'); for (const t of ['mousemove', 'click']) c.dispatchEvent(new MouseEvent(t, { clientX: x, clientY: y, bubbles: true }));",
				[pt.x, pt.y],
			);
			await d.waitFor("[data-testid=dash-picked]", { what: "the sessions behind the bar" });
			const paths = await Promise.all((await d.findAll("[data-testid=dash-session]")).map((e) => e.attr("data-path")));
			assert.ok(paths.length >= 1);
			const top = list.sessions.filter((s) => s.cost > 0);
			for (const p of paths) assert.ok(top.some((s) => s.path === p), `${p} has cost`);
			await h.shot("dashboard-picked");
			await (await d.find("[data-testid=dash-session]")).click();
			await d.waitFor("[data-testid=tree-row]", { what: "the session's tree" });
			assert.equal(await d.exec("return document.querySelector('[data-testid=tab-tree]').getAttribute('aria-selected')"), "true");
		},
	},
	{
		name: "tags: tag, filter, restart, archive and unarchive; session files unchanged",
		async run({ h, fx }) {
			const files = readdirSync(join(fx.root), { recursive: true }).filter((f) => String(f).endsWith(".jsonl")).map((f) => join(fx.root, String(f)));
			const before = new Map(files.map((f) => [f, readFileSync(f)]));
			let d = await h.open(["--sessions-dir", fx.root]);
			const all = (await sidebarPaths(d)).length;
			await openSession(d, fx.ids.sessionA);
			const input = await d.waitFor("[data-testid=tag-input]");
			await input.click();
			await input.type("e2e-alpha\uE007");
			await d.waitFor("[data-testid=session-tag][data-tag=e2e-alpha]", { what: "the new tag" });
			await (await d.waitFor("[data-testid=filter-tag][data-tag=e2e-alpha]")).click();
			await until(async () => (await sidebarPaths(d)).join() === fx.ids.sessionA, "only the tagged session listed");
			await h.shot("tags-filter");
			// Tags searched by text: part of a tag, any case.
			await (await d.find("[data-testid=filter-tag][data-tag=e2e-alpha]")).click();
			await until(async () => (await sidebarPaths(d)).length === all, "the tag filter off");
			const tagText = await d.find("[data-testid=tag-text-filter]");
			await tagText.type("ALPH");
			await until(async () => (await sidebarPaths(d)).join() === fx.ids.sessionA, "a tag containing the text");
			await tagText.type("x");
			await until(async () => (await sidebarPaths(d)).length === 0, "no tag contains ALPHX");
			await d.exec("const i = document.querySelector('[data-testid=tag-text-filter]'); i.value = ''; i.dispatchEvent(new Event('input', { bubbles: true }))");
			await until(async () => (await sidebarPaths(d)).length === all, "the text cleared: every session");
			// Restart: the tag is still there.
			await h.close();
			d = await h.open(["--sessions-dir", fx.root]);
			await (await d.waitFor("[data-testid=filter-tag][data-tag=e2e-alpha]", { what: "the tag after a restart" })).click();
			await until(async () => (await sidebarPaths(d)).join() === fx.ids.sessionA, "the filter works after a restart");
			await (await d.find("[data-testid=filter-tag][data-tag=e2e-alpha]")).click();
			// Pin: the session moves to a "Pinned" group on top; unpin puts it back.
			await openSession(d, fx.ids.sessionA);
			await (await d.find("[data-testid=pin-toggle]")).click();
			await until(async () => (await sidebarPaths(d))[0] === fx.ids.sessionA && (await firstGroup(d)).includes("Pinned"), "the pinned group on top");
			await h.shot("tags-pinned");
			await (await d.find("[data-testid=pin-toggle]")).click();
			await until(async () => !(await firstGroup(d)).includes("Pinned"), "unpinned");
			// Archive: hidden from the default list, shown under Archived, then back.
			await (await d.find("[data-testid=archive-toggle]")).click();
			await until(async () => !(await sidebarPaths(d)).includes(fx.ids.sessionA) && (await sidebarPaths(d)).length === all - 1, "archived session hidden");
			await (await d.find("[data-testid=filter-archived]")).click();
			await until(async () => (await sidebarPaths(d)).join() === fx.ids.sessionA, "the archived view lists it");
			await h.shot("tags-archived");
			await (await d.find("[data-testid=archive-toggle]")).click();
			await (await d.find("[data-testid=filter-archived]")).click();
			await until(async () => (await sidebarPaths(d)).length === all, "unarchived: listed again");
			await (await d.find("[data-testid=remove-tag]")).click();
			await until(async () => (await d.findAll("[data-testid=session-tag]")).length === 0, "tag removed");
			for (const [f, b] of before) assert.ok(readFileSync(f).equals(b), `${f} byte-identical`);
		},
	},
	{
		name: "archive: archived files move out of the root after a confirmation, and Undo moves them back byte-identical",
		async run({ h, fx }) {
			const files = readdirSync(join(fx.root), { recursive: true }).filter((f) => String(f).endsWith(".jsonl")).map((f) => join(fx.root, String(f)));
			// Sessions nobody wrote to in the last hour (a file written to just now stays put).
			const hourAgo = new Date(Date.now() - 3600_000);
			for (const f of files) utimesSync(f, hourAgo, hourAgo);
			const before = new Map(files.map((f) => [f, readFileSync(f)]));
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.sessionA);
			await (await d.waitFor("[data-testid=archive-toggle]")).click();
			await until(async () => !(await sidebarPaths(d)).includes(fx.ids.sessionA), "archived session hidden");
			await (await d.find("[data-testid=filter-archived]")).click();
			await until(async () => (await sidebarPaths(d)).join() === fx.ids.sessionA, "the archived view lists it");
			await (await d.waitFor("[data-testid=archive-move]")).click();
			// Nothing moves before the confirmation.
			const confirm = await d.waitFor("[data-testid=archive-move-confirm]", { what: "the confirmation" });
			assert.ok(existsSync(fx.ids.sessionA), "not moved before confirming");
			await h.shot("archive-move-confirm");
			await confirm.click();
			const moved = join(`${fx.root}-archive`, fx.ids.sessionA.slice(fx.root.length + 1));
			await until(async () => !existsSync(fx.ids.sessionA) && existsSync(moved), "the file moved beside the root");
			assert.ok(readFileSync(moved).equals(before.get(fx.ids.sessionA)), "the moved file is byte-identical");
			await until(async () => (await sidebarPaths(d)).length === 0, "gone from the list");
			await d.waitFor("[data-testid=archive-move-last]", { what: "the last move, with Undo" });
			await h.shot("archive-moved");
			await (await d.find("[data-testid=archive-move-undo-last]")).click();
			await until(async () => existsSync(fx.ids.sessionA) && !existsSync(moved), "moved back");
			await until(async () => (await sidebarPaths(d)).join() === fx.ids.sessionA, "listed again under Archived");
			await until(async () => (await d.findAll("[data-testid=archive-move-last]")).length === 0, "nothing left to undo");
			for (const [f, b] of before) assert.ok(readFileSync(f).equals(b), `${f} byte-identical`);
			// Unarchive (the marks outlive this scenario).
			await openSession(d, fx.ids.sessionA);
			await (await d.find("[data-testid=archive-toggle]")).click();
			await until(async () => (await sidebarPaths(d)).length === 0, "unarchived");
		},
	},
	{
		name: "export: the open session as HTML and Markdown, hostile text inert",
		async run({ h, fx }) {
			const d = await h.open(["--sessions-dir", fx.root]);
			await openSession(d, fx.ids.hostile);
			// The dialog proposes the export folder and the session's name; Save writes it there.
			const saveAs = async () => {
				await d.waitFor("[data-testid=export-dialog]", { what: "the export dialog" });
				const p = await until(() => d.exec("return document.querySelector('[data-testid=export-path]').value"), "the proposed path");
				await (await d.find("[data-testid=export-save]")).click();
				await until(async () => (await d.findAll("[data-testid=export-dialog]")).length === 0, "the dialog closed");
				await d.waitForText("[data-testid=toast-code]", p, { what: "the toast naming the file" });
				return p;
			};
			await (await d.waitFor("[data-testid=export-html]")).click();
			const out = await saveAs();
			assert.ok(out.startsWith(join(h.dataDir, "exports")) && out.endsWith(".html"), out);
			const html = readFileSync(out.trim(), "utf8");
			assert.ok(html.includes("&lt;script&gt;window.__pwned = 1&lt;/script&gt;"), "the script shows as text");
			// Only the renderer's own tags, and no event-handler attributes.
			const allowed = new Set(["!doctype", "html", "head", "meta", "title", "style", "body", "h1", "dl", "dt", "dd", "section", "header", "span", "small", "p", "pre", "div", "details", "summary"]);
			const tags = [...html.matchAll(/<\/?([a-zA-Z!][^\s>]*)([^>]*)>/g)];
			for (const [, name, attrs] of tags) {
				assert.ok(allowed.has(name.toLowerCase()), `unexpected <${name}>`);
				assert.ok(!/\son[a-z]+\s*=/i.test(attrs) && !/\s(href|src)\s*=/i.test(attrs), `live attribute in <${name}${attrs}>`);
			}
			await (await d.find("[data-testid=export-tree]")).click();
			await (await d.find("[data-testid=export-md]")).click();
			const mdOut = await saveAs();
			assert.ok(mdOut.endsWith("-tree.md"), mdOut);
			const md = readFileSync(mdOut.trim(), "utf8");
			let fence = false;
			for (const l of md.split("\n")) {
				if (l.replace(/^(> )+/, "").startsWith("```")) fence = !fence;
				else if (!fence) assert.ok(!l.includes("<"), `raw < in Markdown prose: ${l}`);
			}
			assert.ok(md.includes("&lt;script&gt;"), "escaped in prose");
			await h.shot("export");
		},
	},
	{
		name: "symlinks: a link that leaves the root is not listed or searched, and is noted under the list",
		async run({ h, fx, dir }) {
			// A session outside the root, with a word of its own, and a link to it in the root.
			const outside = join(dir, "outside");
			mkdirSync(outside, { recursive: true });
			writeSmallSession({
				file: join(outside, "secret.jsonl"),
				cwd: "/home/eve",
				id: "0197ffff-0000-7000-8000-00000000beef",
				created: "2026-01-02T00:00:00.000Z",
				entryId: "ee000001",
				entryTime: "2026-01-02T00:00:01.000Z",
				content: "the xylophonequartz secret",
				messageTime: 1,
			});
			const link = join(fx.root, "leak.jsonl");
			symlinkSync(join(outside, "secret.jsonl"), link);
			const d = await h.open(["--sessions-dir", fx.root]);
			assert.ok(!(await sidebarPaths(d)).includes(link), "not listed");
			await (await d.find("[data-testid=skipped-paths]")).click();
			const note = await d.waitFor(`[data-testid=skipped-path][data-path=${q(link)}]`, { what: "the link accounted for under the list" });
			const kinds = Object.fromEntries(await d.exec("return [...document.querySelectorAll('[data-testid=skipped-path]')].map((e) => [e.getAttribute('data-path'), e.getAttribute('data-kind')])"));
			assert.equal(kinds[link], "symlink-outside-root");
			assert.ok((await note.text()).includes("add its target as another root to read it"), await note.text());
			await h.shot("symlink-outside-root-noted");
			const input = await d.find("[data-testid=search-input]");
			await input.click();
			await input.type("xylophonequartz");
			await d.waitForText("[data-testid=search-results]", "No matches", { what: "nothing found through the link" });
		},
	},
	{
		name: "organiser: a damaged database of tags shows a banner, and is set aside only on the button",
		async run({ h, fx }) {
			const db = join(h.dataDir, "organise.sqlite");
			const aside = () => readdirSync(h.dataDir).filter((n) => n.startsWith("organise.sqlite.damaged-") && !n.endsWith("-wal") && !n.endsWith("-shm"));
			const before = aside().length;
			// Not a database: its first 100 bytes are noise (a file of noise when there is none yet).
			const bytes = existsSync(db) ? readFileSync(db) : Buffer.alloc(8192);
			for (let i = 0; i < 100; i++) bytes[i] = (i * 151 + 7) & 0xff;
			writeFileSync(db, bytes);
			const d = await h.open(["--sessions-dir", fx.root]);
			const banner = await d.waitFor("[data-testid=organiser-damaged]", { what: "the banner" });
			assert.ok((await banner.text()).includes(db), await banner.text());
			assert.ok(readFileSync(db).equals(bytes), "left as it was");
			assert.equal(aside().length, before);
			await h.shot("organiser-damaged");
			await (await d.find("[data-testid=organiser-set-aside]")).click();
			await until(async () => (await d.findAll("[data-testid=organiser-damaged]")).length === 0, "the banner gone");
			assert.equal(aside().length, before + 1);
			assert.ok(readFileSync(join(h.dataDir, aside().sort().at(-1))).equals(bytes), "kept byte for byte");
			await h.shot("organiser-set-aside");
		},
	},
];

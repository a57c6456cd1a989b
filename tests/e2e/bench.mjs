// Benchmark of the real window, through WebDriver: prints figures, asserts nothing about time.
//
//   node tests/e2e/bench.mjs --big FILE --many DIR [--app BIN]
//
// --big   the 200k-entry session file (copied into a fresh root beside one small session)
// --many  a sessions root of about 2,000 sessions with forks
//
// Figures: first sessions on screen after start; click to first rows of the big session;
// frame times while scrolling 1,000 rows (p50/p95/max); transcript open time and blank frames
// while scrolling it; a live append until visible; the fork graph of the big root usable after
// start. The app binary: --app, else $PI_EXPLORER_BIN, else target/release, else target/debug.

import { appendFileSync, closeSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

import { cwdFolder, writeSmallSession } from "../lib/sessions.mjs";
import { Harness, repo, targetDir } from "./harness.mjs";
import { sleep } from "./webdriver.mjs";

const arg = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const bigRoot = arg("--big");
const manyRoot = arg("--many");
const app =
	arg("--app") ??
	process.env.PI_EXPLORER_BIN ??
	[join(targetDir, "release/pi-session-explorer"), join(targetDir, "debug/pi-session-explorer")].find(existsSync);
if (!bigRoot || !manyRoot) {
	console.error("usage: node tests/e2e/bench.mjs --big FILE --many ROOT [--app BIN]");
	process.exit(2);
}

function files(root) {
	const out = [];
	for (const d of readdirSync(root, { withFileTypes: true })) {
		const p = join(root, d.name);
		if (d.isDirectory()) for (const f of readdirSync(p)) f.endsWith(".jsonl") && out.push(join(p, f));
		else if (d.name.endsWith(".jsonl")) out.push(p);
	}
	return out;
}

/** The latest time among the last lines of a session file (entry and message timestamps). */
function lastTime(path) {
	const size = statSync(path).size;
	const fd = openSync(path, "r");
	const buf = Buffer.alloc(Math.min(size, 1 << 20));
	readSync(fd, buf, 0, buf.length, size - buf.length);
	closeSync(fd);
	let best = 0;
	for (const line of buf.toString("utf8").split("\n").slice(1)) {
		try {
			const e = JSON.parse(line);
			for (const t of [Date.parse(e.timestamp), Number(e.message?.timestamp)]) if (Number.isFinite(t)) best = Math.max(best, t);
		} catch {
			// a cut line
		}
	}
	return best;
}

/**
 * Epoch ms when the machine booted, to 10 ms: now minus /proc/uptime. (/proc/stat's `btime` is
 * whole seconds, rounded down: it put every start up to 1 s too early.)
 */
function bootEpochMs() {
	const up = Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]);
	return Date.now() - up * 1000;
}

/** Epoch ms when the newest process running `bin` with `arg` started (from /proc, to 10 ms). */
function processStart(bin, arg) {
	const boot = bootEpochMs();
	let best = null;
	for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
		try {
			const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
			if (!cmd[0].endsWith(basename(bin)) || !cmd.includes(arg)) continue;
			const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
			const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
			const at = boot + ticks * 10;
			if (best === null || at > best) best = at;
		} catch {
			// gone
		}
	}
	return best;
}

/** ms from the app's process start to the moment the UI records as `key` of its perf hook. */
async function sinceStart(d, root, key) {
	const started = processStart(app, root);
	const at = await d.execAsync(
		`const done = arguments[arguments.length - 1];
		const key = arguments[0];
		(function poll() {
			const h = window.__piExplorer;
			if (h && h[key]) done(performance.timeOrigin + h[key]);
			else setTimeout(poll, 10);
		})();`,
		[key],
	);
	return started ? at - started : NaN;
}

/** ms from the app's process start to its session list on screen. */
const firstSessionsAfterStart = (d, root) => sinceStart(d, root, "firstSessionsAt");

async function until(fn, timeout) {
	const end = Date.now() + timeout;
	while (Date.now() < end) {
		if (await fn()) return;
		await sleep(200);
	}
}

const figures = {};
const show = (k, v, unit = "ms", note = "") => {
	figures[k] = v;
	console.log(`  ${k.padEnd(44)} ${typeof v === "number" ? v.toFixed(v < 10 ? 1 : 0) : v} ${unit}${note ? `  (${note})` : ""}`);
};

const pct = (xs, p) => {
	const s = [...xs].sort((a, b) => a - b);
	return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

// In-page helpers: find the scrolling ancestor of an element.
const SCROLLER = `
	function scroller(el) {
		for (let e = el; e; e = e.parentElement) {
			const s = getComputedStyle(e);
			if ((s.overflowY === 'auto' || s.overflowY === 'scroll') && e.scrollHeight > e.clientHeight) return e;
		}
		return null;
	}`;

/** Scrolls the list holding `itemCss` by `rows` rows, one step per frame; returns frame deltas and blank frames. */
async function scrollAndMeasure(d, itemCss, rows, perFrame) {
	return d.execAsync(
		`${SCROLLER}
		const done = arguments[arguments.length - 1];
		const item = arguments[0], per = arguments[2];
		const first = document.querySelector(item);
		const sc = first && scroller(first);
		if (!sc) return done({ error: 'no scroller' });
		const rowH = first.getBoundingClientRect().height || 24;
		const steps = Math.ceil(arguments[1] / per);
		const frames = [];
		let blank = 0, k = 0, last = performance.now();
		const box = sc.getBoundingClientRect();
		function covered() {
			let ok = 0;
			for (const f of [0.15, 0.5, 0.85]) {
				const el = document.elementFromPoint(box.left + box.width * 0.5, box.top + box.height * f);
				if (el && el.closest(item)) ok++;
			}
			return ok === 3;
		}
		function step(t) {
			frames.push(t - last);
			last = t;
			if (!covered()) blank++;
			if (k++ >= steps) return done({ frames: frames.slice(1), blank, rows: Math.round(k * per) });
			sc.scrollTop += rowH * per;
			requestAnimationFrame(step);
		}
		requestAnimationFrame(step);`,
		[itemCss, rows, perFrame],
	);
}

let tempRoot = null;
const h = new Harness({ app, shots: join(repo, "tests/e2e/screenshots", `bench-${new Date().toISOString().replace(/[:.]/g, "-")}`) });
await h.start();
try {
	console.log(`app: ${app}`);
	// ---------------------------------------------------------------- the big session
	// A root with the big file and a newer small session: the app opens the most recent session
	// at start (the small one), so the big one is first opened by the click measured below.
	const root = mkdtempSync(join(tmpdir(), "pi-bench-root-"));
	tempRoot = root;
	mkdirSync(join(root, "--home-user-big--"));
	const big = join(root, "--home-user-big--", basename(bigRoot));
	copyFileSync(bigRoot, big);
	// Newer than the big session's last entry (its list time), which may lie in the future.
	const now = new Date(Math.max(Date.now(), lastTime(big) + 86400000)).toISOString();
	const small = writeSmallSession({ dir: join(root, cwdFolder("/home/user/a-small")), cwd: "/home/user/a-small", id: "0197ffff-0000-7000-8000-000000000001", created: now, entryId: "5a11a001", content: "a small session" });
	console.log(`\nbig session: ${(statSync(big).size / 1e6).toFixed(0)} MB (${basename(big)})`);
	// The copy is written back to disk before any timing: writeback of 165 MB would share the
	// 2 cores with the measured steps.
	execFileSync("sync");
	let d = await h.open(["--sessions-dir", root]);
	show("first start (no cache): first sessions on screen", await firstSessionsAfterStart(d, root), "ms", "process start to the list drawn");
	await d.waitFor("[data-testid=session-row]", { timeout: 60000 });
	await until(async () => !(await d.exec("return !!document.querySelector('[data-testid=index-progress]')")), 60000);
	await h.close();
	d = await h.open(["--sessions-dir", root]);
	show("second start: first sessions on screen", await firstSessionsAfterStart(d, root), "ms", "process start to the list drawn");
	// The start opens the small session (the most recent), not the big one.
	await d.waitFor("[data-testid=tree-row]", { timeout: 60000 });
	await until(async () => (await d.exec("return document.querySelector('[data-testid=statusbar]')?.innerText ?? ''")).includes(basename(small).slice(0, 20)), 20000);
	const opened = await d.exec("return document.querySelector('[data-testid=statusbar]')?.innerText ?? ''");
	if (!opened.includes(basename(small).slice(0, 20))) throw new Error(`the start did not open the small session: ${opened}`);
	await sleep(1000);
	const ms = await d.execAsync(
		`const done = arguments[arguments.length - 1];
		const want = arguments[1];
		const row = [...document.querySelectorAll('[data-testid=session-row]')].find((r) => r.getAttribute('data-path') === arguments[0]);
		const t0 = performance.now();
		row.click();
		(function poll() {
			const status = document.querySelector('[data-testid=statusbar]');
			const rows = document.querySelectorAll('[data-testid=tree-row]');
			if (status && status.innerText.includes(want) && rows.length > 0) done(performance.now() - t0);
			else requestAnimationFrame(poll);
		})();`,
		[big, basename(big).slice(0, 20)],
	);
	show("click to first rows (200k-entry session)", ms);
	await sleep(500);
	await h.shot("bench-big-tree");
	const tree = await scrollAndMeasure(d, "[data-testid=tree-row], [data-testid=fold-row]", 1000, 5);
	if (tree.error) throw new Error(tree.error);
	show("tree scroll: frames", tree.frames.length, "frames", `${tree.rows} rows`);
	show("tree scroll: frame p50", pct(tree.frames, 50));
	show("tree scroll: frame p95", pct(tree.frames, 95));
	show("tree scroll: share of frames under 50 ms", (100 * tree.frames.filter((f) => f < 50).length) / tree.frames.length, "%");
	show("tree scroll: blank frames", tree.blank, "frames");

	// Transcript of the long active path.
	let t0 = Date.now();
	await (await d.find("[data-testid=tab-transcript]")).click();
	await d.waitFor("[data-testid=transcript-item]", { timeout: 20000 });
	show("transcript open (long active path)", Date.now() - t0, "ms", "click to first items, WebDriver polling included");
	const total = await d.exec("return document.querySelector('[data-testid=transcript-view]')?.getAttribute('data-total') ?? ''");
	if (total) show("transcript length", Number(total), "items");
	await sleep(500);
	const tr = await scrollAndMeasure(d, "[data-testid=transcript-item]", 1000, 4);
	if (tr.error) throw new Error(tr.error);
	show("transcript scroll: frame p95", pct(tr.frames, 95));
	show("transcript scroll: blank frames", tr.blank, "frames", `of ${tr.frames.length}`);
	await h.shot("bench-big-transcript");
	await h.close();

	// ---------------------------------------------------------------- many sessions
	const many = files(manyRoot);
	console.log(`\nmany root: ${many.length} sessions`);
	for (const run of ["first start (no cache)", "second start", "third start"]) {
		d = await h.open(["--sessions-dir", manyRoot]);
		const started = processStart(app, manyRoot);
		show(`${run}: first sessions on screen`, await firstSessionsAfterStart(d, manyRoot), "ms", `${many.length} sessions`);
		// Click the tab in the page the moment the list is there; time until nodes are drawn.
		const g = await d.execAsync(
			`const done = arguments[arguments.length - 1];
			const t0 = performance.now();
			document.querySelector('[data-testid=tab-forks]').click();
			(function poll() {
				if (document.querySelector('[data-testid=fork-graph] [data-testid=fork-node]')) done({ at: performance.timeOrigin + performance.now(), took: performance.now() - t0 });
				else requestAnimationFrame(poll);
			})();`,
		);
		show(`${run}: fork graph drawn after its tab is clicked`, g.took);
		show(`${run}: fork graph drawn after start`, g.at - started, "ms", "from process start, with the tab clicked as soon as the list is there");
		if (!run.startsWith("third")) {
			// Let the background index finish (it fills the cache) before the next start.
			await d.waitFor("[data-testid=session-row]", { timeout: 60000 });
			await until(async () => !(await d.exec("return !!document.querySelector('[data-testid=index-progress]')")), 180000);
			await sleep(1000);
			await h.close();
		}
	}
	await h.shot("bench-many-forks");

	// The app started on the fork graph (`--view forks`): process start to nodes drawn.
	await h.close();
	d = await h.open(["--sessions-dir", manyRoot, "--view", "forks"]);
	show("start on the fork graph (--view forks): nodes drawn", await sinceStart(d, manyRoot, "forkGraphAt"), "ms", "process start to the graph on screen, cache warm");
	await h.shot("bench-many-forks-start");

	// ---------------------------------------------------------------- a live append
	// Into the copy of a small session in the temporary root (the corpora are left as they are).
	await h.close();
	d = await h.open(["--sessions-dir", root]);
	await d.waitFor("[data-testid=session-row]", { timeout: 60000 });
	await d.exec("[...document.querySelectorAll('[data-testid=session-row]')].find((r) => r.getAttribute('data-path') === arguments[0]).click()", [small]);
	await d.waitFor("[data-testid=tree-row]");
	await sleep(800);
	const leaf = await d.exec("return document.querySelector('[data-testid=leaf-pill]')?.closest('[data-testid=tree-row]')?.getAttribute('data-id') ?? null");
	const id = `bench${Date.now().toString(16).slice(-3)}`;
	const watch = d.execAsync(
		`const done = arguments[arguments.length - 1];
		const id = arguments[0];
		(function poll() {
			if (document.querySelector('[data-testid=tree-row][data-id="' + id + '"]')) done(Date.now());
			else setTimeout(poll, 5);
		})();`,
		[id],
	);
	await sleep(200);
	const appendedAt = Date.now();
	appendFileSync(small, JSON.stringify({ type: "message", id, parentId: leaf, timestamp: new Date().toISOString(), message: { role: "user", content: "appended by the benchmark", timestamp: Date.now() } }) + "\n");
	const seenAt = await watch;
	show("append by another process until visible", seenAt - appendedAt);
} finally {
	await h.stop();
	if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
}
console.log(`\n${JSON.stringify({ window: figures })}`);

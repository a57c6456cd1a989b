// Session roots for the end-to-end specs of the views that must hold on big and odd folders
// (specs-ux-views.mjs, and tests/serve): a 2,000-file generated history (journeys' manySessions) with
// a long compacted session holding images, its slim fork, pruned copy and plain fork (written by
// our CLI), 41 more projects whose usage reports tokens and no cost, and files that hold no
// session (random bytes, text that is not JSON, an empty file that is the newest of all); and a
// folder pi 1.6.0 wrote (tests/e2e/pi16-session.mjs) with the same additions.

import { execFileSync } from "node:child_process";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";

import { CounterIds, SessionBuilder, SimClock, cwdFolder, mulberry32, text, toolCall, usage } from "../lib/sessions.mjs";

/** A PNG (RGB, w×h) of a diagonal gradient with a frame: real bytes any browser decodes. */
export function pngGradient(w, h, hue = 0) {
	const crcTable = Array.from({ length: 256 }, (_, n) => {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		return c >>> 0;
	});
	const crc = (buf) => {
		let c = 0xffffffff;
		for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
		return (c ^ 0xffffffff) >>> 0;
	};
	const chunk = (type, data) => {
		const len = Buffer.alloc(4);
		len.writeUInt32BE(data.length);
		const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
		const c = Buffer.alloc(4);
		c.writeUInt32BE(crc(td));
		return Buffer.concat([len, td, c]);
	};
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(w, 0);
	ihdr.writeUInt32BE(h, 4);
	ihdr[8] = 8;
	ihdr[9] = 2;
	const raw = Buffer.alloc((w * 3 + 1) * h);
	for (let y = 0; y < h; y++) {
		raw[y * (w * 3 + 1)] = 0;
		for (let x = 0; x < w; x++) {
			const o = y * (w * 3 + 1) + 1 + x * 3;
			const edge = x < 3 || y < 3 || x >= w - 3 || y >= h - 3;
			raw[o] = edge ? 40 : (x * 255) / w;
			raw[o + 1] = edge ? 40 : (y * 255) / h;
			raw[o + 2] = edge ? 40 : (hue + 120) % 256;
		}
	}
	return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

const image = (buf, mimeType = "image/png") => ({ type: "image", data: buf.toString("base64"), mimeType });

/**
 * A long compacted session with branches and images: `turns` user/assistant turns (each with a
 * tool call and result), a compaction half-way, a pasted screenshot, a tool result that is an
 * image, and an image block whose base64 is broken. Returns {file, ids}.
 */
export function imageSession(dir, { cwd = "/home/u/refactor", turns = 320, created = "2026-06-01T09:00:00.000Z", title = "Refactor the cache layer so that eviction follows the access order of entries" } = {}) {
	const s = new SessionBuilder({ dir: join(dir, cwdFolder(cwd)), cwd, id: "0197b000-0000-7e00-8000-00000000abcd", created, clock: new SimClock(Date.parse(created)), ids: new CounterIds("e", 7) });
	const ids = {};
	const rand = mulberry32(7);
	ids.first = s.user(title);
	s.assistant([text("Reading the cache module first."), toolCall("c0", "read", { path: "src/cache.ts" })], { usage: usage({ input: 1800, output: 120 }) });
	s.toolResult("c0", "read", "export class Cache {\n  get(k) {}\n}\n");
	for (let i = 1; i < turns; i++) {
		if (i === Math.floor(turns / 2)) {
			const kept = s.user(`Turn ${i}: keep going with the eviction tests`);
			ids.keptFirst = kept;
			s.assistant(`Working on turn ${i}.`, { usage: usage({ input: 2000 + i, output: 80 }) });
			ids.compaction = s.compaction({ summary: "## Goal\nRefactor the cache.\n## Done\nEviction by access order; tests for get and set.", firstKeptEntryId: kept, tokensBefore: 150000 });
			continue;
		}
		s.user(`Turn ${i}: ${rand() < 0.5 ? "check the eviction order" : "run the tests again"}`);
		s.assistant([text(`Running step ${i}.`), toolCall(`c${i}`, "bash", { command: `npm test -- --grep case${i}` })], { usage: usage({ input: 2100 + i, output: 90 }) });
		s.toolResult(`c${i}`, "bash", `ok ${i} passed`);
	}
	ids.screenshot = s.user([text("Here is what the page looks like now:"), image(pngGradient(320, 200, 30))]);
	// A side branch (kept by the pruned copy) and another one (left out), written before the
	// main line goes on, so that the file's last line is the main leaf.
	ids.side = s.user("Try a different eviction policy instead", { parent: ids.screenshot });
	ids.sideLeaf = s.assistant("LRU with a clock hand, then.", { usage: usage({ input: 900, output: 30 }) });
	ids.dropped = s.user("Or drop the cache altogether?", { parent: ids.first });
	s.assistant([text("Taking a screenshot of the app."), toolCall("shot", "screenshot", { url: "http://localhost:3000" })], { parent: ids.screenshot, usage: usage({ input: 2400, output: 60 }) });
	ids.imageResult = s.toolResult("shot", "screenshot", [text("captured"), image(pngGradient(240, 160, 200))]);
	ids.broken = s.user([text("And this one did not paste well:"), { type: "image", data: "iVBORw0KGgo%%%not-base64%%%", mimeType: "image/png" }]);
	ids.leaf = s.assistant("The first image shows the new layout; the second one did not decode.", { usage: usage({ input: 2600, output: 40 }) });
	return { file: s.write(), ids };
}

/** The copies our CLI writes of `file`: a slim fork at the leaf, a pruned copy of two branches, a fork. */
export function copiesOf(cli, file, ids) {
	const out = (args) => JSON.parse(execFileSync(cli, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim().split("\n").pop()).file;
	const slim = out(["fork", file, ids.leaf, "--slim"]);
	const pruned = out(["prune", file, "--keep", ids.leaf, ids.sideLeaf]);
	const fork = out(["fork", file, ids.screenshot]);
	return { slim, pruned, fork };
}

/** 41 projects whose sessions report tokens and no cost, with long model names. */
export function zeroCostProjects(root, n = 41) {
	for (let i = 0; i < n; i++) {
		const cwd = `/srv/projects/team-${String(i).padStart(2, "0")}/service-with-a-long-name`;
		const created = new Date(Date.parse("2026-04-01T08:00:00.000Z") + i * 3600_000).toISOString();
		const s = new SessionBuilder({ dir: join(root, cwdFolder(cwd)), cwd, id: `0197a000-${String(i).padStart(4, "0")}-7e00-8000-000000000000`, created, clock: new SimClock(Date.parse(created)) });
		s.user(`Project ${i}: summarise the logs`);
		const model = i % 3 === 0 ? "qwen3-coder-480b-a35b-instruct-fp8-long-context" : i % 3 === 1 ? "llama-4-maverick-17b-128e-instruct" : "local-model";
		s.assistant("Summarised.", { provider: "local-gpu-cluster", model, usage: usage({ input: 200_000 + i * 1000, output: 70_000 }) });
		s.write();
	}
}

/** Files that hold no session, and an empty file that is the newest in the root. */
export function unreadableFiles(root) {
	const dir = join(root, cwdFolder("/home/u/refactor"));
	mkdirSync(dir, { recursive: true });
	const rand = mulberry32(99);
	writeFileSync(join(dir, "random-bytes.jsonl"), Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rand() * 256))));
	writeFileSync(join(dir, "notes.jsonl"), "meeting notes\nnot json at all\n");
	const empty = join(dir, "2026-12-31T23-59-59-000Z_empty.jsonl");
	writeFileSync(empty, "");
	const later = new Date(Date.now() + 3600_000);
	utimesSync(empty, later, later);
	return { random: join(dir, "random-bytes.jsonl"), notes: join(dir, "notes.jsonl"), empty };
}

/** The 2,000-file history with everything above. */
export function uxManyRoot(root, cli, manySessions) {
	const many = manySessions(root, 2000);
	zeroCostProjects(root);
	const img = imageSession(root);
	const copies = copiesOf(cli, img.file, img.ids);
	const bad = unreadableFiles(root);
	return { many, img, copies, bad };
}

/** A folder pi 1.6.0 wrote (pi16-session.mjs), with a session holding images, copies and bad files. */
export function uxPi16Root(root, cli, repo, node24, pi16) {
	const { file, ids } = JSON.parse(execFileSync(node24, [join(repo, "tests/e2e/pi16-session.mjs"), root, pi16], { encoding: "utf8" }));
	const img = imageSession(root, { cwd: "/home/alice/work/keys", turns: 12, created: "2026-09-01T09:00:00.000Z", title: "Rotate the signing keys of the staging cluster and update every service" });
	const out = (args) => JSON.parse(execFileSync(cli, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim().split("\n").pop()).file;
	const forked = out(["fork", file, ids.user2]);
	const slim = out(["fork", file, ids.assistant4, "--slim"]);
	const bad = unreadableFiles(root);
	return { file, ids, img, forked, slim, bad };
}

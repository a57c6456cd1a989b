#!/usr/bin/env node
// run.mjs — the explorer and a running pi, together: pi-extension/ loaded into the real pi in
// RPC mode, driven by `pi-session` (docs/pi-link.md). The extension is installed with `pi install`.
//
//   node run.mjs --pi PI_PACKAGE_DIR [--bin pi-session] [--browser] [--verbose]
//
// Run with the Node that pi needs (pi 1.6.0: Node 24; pi 0.73.1: Node 20): pi is started with
// this same Node. No model is called. pi never sees a real agent folder or the user's link
// folder (PI_CODING_AGENT_DIR and XDG_RUNTIME_DIR point into a temporary folder; PATH holds no
// pi-session-explorer, so /explore uses `pi-session serve`, until a fake window appears at
// PI_SESSION_EXPLORER_BIN). Checks, in one pi process:
//   * the discovery file and `pi-session followers FILE`: this pi, its version, its leaf;
//   * the protocol by hand on pi's socket: a wrong token, another version, not JSON refused; an
//     offer for another file or an unknown entry failed without a question, one for pi's own
//     leaf accepted at once;
//   * `/explore` notifies a URL naming the session and the leaf in its fragment; the server
//     answers that URL's token as `Authorization: Bearer` (401 without it) and lists the session;
//     with --browser, that URL opened in Chromium (tests/serve's playwright-core) shows that
//     session, not the more recent one beside it, with the leaf selected; `entry=A1` selects A1;
//   * `/explore` again, a window now at PI_SESSION_EXPLORER_BIN: it is started with
//     --sessions-dir ROOT --session FILE --select LEAF;
//   * `pi-session offer FILE --navigate A3` (a side branch): the question arrives as an
//     extension_ui_request select with the entry's title; "No summary" moves pi's leaf
//     (get_messages: the path ends at A3; pi 1.x: get_entries' leafId) and the answer says so;
//   * A1 answered "Cancel", then dismissed: declined, pi's leaf unchanged;
//   * unanswered with --timeout 1: timed out within the bound, leaf unchanged;
//   * A2 with "Summarize" (the branch left needs a summary) and no model: failed, with pi's
//     reason, leaf unchanged; an entry not in the file: refused before any pi is asked;
//   * a fork made with `pi-session fork`, offered with --switch and answered "Switch": pi is on
//     the new file (get_state), the link now follows the new file only; exit 3 for a file no
//     pi follows;
//   * after pi exits: the link folder is empty and the server /explore started is gone.
// pi before 0.84.2 cannot dispatch a command from an extension: there the yes puts
// `/explore-offer N` in the editor (a set_editor_text request) and the test sends it as the
// user's prompt, as pressing Enter would. Exit 0 when every check passed, 1 otherwise, 2 on a
// setup error.

import { spawn, spawnSync } from "node:child_process";
import { connect } from "node:net";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { findPi, loadPi } from "../lib/pi.mjs";
import { message, text, usage } from "../lib/sessions.mjs";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
	const i = argv.indexOf(name);
	return i >= 0 ? argv[i + 1] : dflt;
};
const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const piDir = opt("--pi") && resolve(opt("--pi"));
const bin = resolve(opt("--bin", process.env.PI_SESSION_BIN || join(repo, "target/debug/pi-session")));
const verbose = argv.includes("--verbose");
const withBrowser = argv.includes("--browser");
const extension = join(repo, "pi-extension");

function setupError(msg) {
	console.error(`pi-link: setup error: ${msg}`);
	process.exit(2);
}
if (!piDir || !findPi(piDir)) setupError(`no pi package at --pi ${piDir}`);
if (!existsSync(bin)) setupError(`no pi-session binary at ${bin} (cargo build -p pi-session-cli, or pass --bin)`);
const { pkg, SessionManager } = await loadPi(piDir);
const cli = join(piDir, typeof pkg.bin === "string" ? pkg.bin : pkg.bin.pi);
const modern = pkg.version.split(".")[0] !== "0";

// ---------------------------------------------------------------- checks
let checks = 0;
const failures = [];
function check(name, ok, detail) {
	checks++;
	if (ok) {
		if (verbose) console.log(`ok   ${name}`);
	} else {
		failures.push(name);
		console.log(`FAIL ${name}${detail === undefined ? "" : `\n     ${String(detail).slice(0, 2000)}`}`);
	}
	return ok;
}
const same = (name, got, want) => check(name, JSON.stringify(got) === JSON.stringify(want), `got  ${JSON.stringify(got)}\n     want ${JSON.stringify(want)}`);

// ---------------------------------------------------------------- a session written by this pi
const work = realpathSync(mkdtempSync(join(tmpdir(), "pi-session-link-")));
const proj = join(work, "proj");
const root = join(work, "sessions");
const runtime = join(work, "run");
mkdirSync(proj, { recursive: true });
mkdirSync(runtime, { recursive: true, mode: 0o700 });
const env = {
	...process.env,
	PI_CODING_AGENT_DIR: join(work, "agent"),
	XDG_RUNTIME_DIR: runtime,
	PI_SESSION_BIN: bin,
	// Not there yet: the first /explore serves; the second finds this "window" (a script).
	PI_SESSION_EXPLORER_BIN: join(work, "bin", "pi-session-explorer"),
	PATH: [dirname(process.execPath), "/usr/bin", "/bin"].join(":"),
};
delete env.PI_CODING_AGENT_SESSION_DIR;
delete env.PI_SESSION_LINK_DIR;
const linkDir = join(runtime, "pi-session-explorer");

const sm = SessionManager.create(proj, join(root, "--work-proj--"));
const user = (say) => message.user([text(say)], Date.now());
const assistant = (say) =>
	message.assistant({ content: [text(say)], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: usage({ input: 10, output: 5 }), timestamp: Date.now() });
// U1 → A1 → U2 → A2 (the leaf), and a side branch A1 → U3 → A3.
const U1 = sm.appendMessage(user("fix the parser"));
const A1 = sm.appendMessage(assistant("The parser is fixed."));
const U3 = sm.appendMessage(user("try another parser"));
const A3 = sm.appendMessage(assistant("The other parser works too."));
sm.branch(A1);
const U2 = sm.appendMessage(user("now the lexer"));
const A2 = sm.appendMessage(assistant("The lexer is done."));
void U2;
void U3;
const FILE = realpathSync(sm.getSessionFile());
// A more recent session beside it: the page must open FILE because the URL names it.
await new Promise((r) => setTimeout(r, 20));
const decoy = SessionManager.create(proj, join(root, "--work-proj--"));
decoy.appendMessage(user("a more recent session"));
decoy.appendMessage(assistant("It is the most recent one."));
console.log(`pi-link: ${pkg.name} ${pkg.version} on node ${process.version}; in ${work}`);

// ---------------------------------------------------------------- pi in RPC mode
class Pi {
	constructor() {
		this.proc = spawn(process.execPath, [cli, "--mode", "rpc", "--session", FILE], { cwd: proj, env, stdio: ["pipe", "pipe", "pipe"] });
		this.buf = "";
		this.events = [];
		this.waiters = [];
		this.nextId = 0;
		this.stderr = "";
		this.proc.stderr.setEncoding("utf8").on("data", (d) => {
			this.stderr += d;
		});
		this.proc.stdout.setEncoding("utf8").on("data", (d) => {
			this.buf += d;
			let i;
			// Split on LF only (RPC framing; readline would also split on U+2028).
			while ((i = this.buf.indexOf("\n")) >= 0) {
				const line = this.buf.slice(0, i).replace(/\r$/, "");
				this.buf = this.buf.slice(i + 1);
				if (!line) continue;
				const msg = JSON.parse(line);
				if (verbose) console.log(`     < ${line.slice(0, 240)}`);
				this.events.push(msg);
				this.poke();
			}
		});
		this.exited = new Promise((ok) => this.proc.on("exit", (code) => ok(code)));
	}
	poke() {
		for (const w of [...this.waiters]) {
			const k = this.events.findIndex(w.pred);
			if (k >= 0) {
				const [m] = this.events.splice(k, 1);
				this.waiters.splice(this.waiters.indexOf(w), 1);
				clearTimeout(w.timer);
				w.ok(m);
			}
		}
	}
	/** The next message matching `pred` (taken from the ones seen), or null after `ms`. */
	next(pred, ms = 15000) {
		return new Promise((ok) => {
			const w = { pred, ok, timer: setTimeout(() => { this.waiters.splice(this.waiters.indexOf(w), 1); ok(null); }, ms) };
			this.waiters.push(w);
			this.poke();
		});
	}
	send(msg) {
		this.proc.stdin.write(`${JSON.stringify(msg)}\n`);
	}
	async call(type, extra = {}) {
		const id = `t${++this.nextId}`;
		this.send({ id, type, ...extra });
		const r = await this.next((m) => m.type === "response" && m.id === id);
		if (!r?.success) throw new Error(`${type}: ${JSON.stringify(r)}`);
		return r.data;
	}
	ui(method, ms) {
		return this.next((m) => m.type === "extension_ui_request" && m.method === method, ms);
	}
	answer(req, body) {
		this.send({ type: "extension_ui_response", id: req.id, ...body });
	}
	/** The ids of the entries on pi's active path. */
	async path() {
		const msgs = (await this.call("get_messages")).messages;
		return msgs.map((m) => m.content?.[0]?.text ?? m.role);
	}
}

function ours(...args) {
	const r = spawnSync(bin, args, { env, encoding: "utf8" });
	return { status: r.status, out: r.stdout, err: r.stderr, json: r.status === 0 && r.stdout.trim() ? JSON.parse(r.stdout) : null };
}

/** `pi-session offer …` started in the background; resolves with its exit status and JSON. */
function offer(...args) {
	return new Promise((ok) => {
		const p = spawn(bin, ["offer", ...args], { env });
		let out = "";
		let err = "";
		p.stdout.setEncoding("utf8").on("data", (d) => (out += d));
		p.stderr.setEncoding("utf8").on("data", (d) => (err += d));
		p.on("exit", (status) => {
			if (verbose) console.log(`     pi-session offer ${args.join(" ")} → ${status} ${out.trim()} ${err.trim()}`);
			ok({ status, err, json: out.trim() ? JSON.parse(out) : null });
		});
	});
}

/** Answers the offer's question; on a pi that cannot dispatch commands, presses "Enter" on the prefilled command. */
async function decide(pi, value) {
	const q = await pi.ui("select");
	if (!q) return null;
	pi.answer(q, value === null ? { cancelled: true } : { value });
	if (!modern && value !== null && value !== "Cancel") {
		const prefill = await pi.ui("set_editor_text");
		check("older pi: the yes prefills /explore-offer", /^\/explore-offer \d+$/.test(prefill?.text ?? ""), JSON.stringify(prefill));
		if (prefill) await pi.call("prompt", { message: prefill.text });
	}
	return q;
}

const TEXT = { U1: "fix the parser", A1: "The parser is fixed.", U2: "now the lexer", A2: "The lexer is done.", U3: "try another parser", A3: "The other parser works too." };

/** The id of a file's last entry line: pi's leaf when pi wrote last (pi appends a thinking-level line when it opens a file). */
function lastId(file) {
	const lines = readFileSync(file, "utf8").trimEnd().split("\n");
	return JSON.parse(lines[lines.length - 1]).id;
}

// Installed as a user installs it: `pi install <path>` (into this run's agent folder).
const install = spawnSync(process.execPath, [cli, "install", extension], { cwd: proj, env, encoding: "utf8" });
if (!check("pi install pi-extension", install.status === 0, `${install.stdout}${install.stderr}`)) process.exit(1);

const pi = new Pi();
let servedCall = null;
let servedUrl = null;
try {
	const commands = (await pi.call("get_commands")).commands.map((c) => c.name);
	check("the extension's commands are loaded", commands.includes("explore") && commands.includes("explore-offer"), JSON.stringify(commands));

	// -------------------------------------------------------------- discovery
	let found = [];
	for (let k = 0; k < 100 && found.length === 0; k++) {
		found = ours("followers", FILE).json ?? [];
		if (found.length === 0) await new Promise((r) => setTimeout(r, 100));
	}
	check("followers FILE finds the running pi", found.length === 1 && found[0].pid === pi.proc.pid, JSON.stringify(found));
	const f = found[0] ?? {};
	const START = lastId(FILE);
	same("follower: version, session, leaf, moves at once", [f.piVersion, f.sessionFile, f.leafId, f.movesAtOnce], [pkg.version, FILE, START, modern]);
	if (modern) same("the follower's leaf is pi's (get_entries)", (await pi.call("get_entries")).leafId, START);
	const files = existsSync(linkDir) ? readdirSync(linkDir).sort() : [];
	same("link folder: <pid>.json and <pid>.sock", files, [`${pi.proc.pid}.json`, `${pi.proc.pid}.sock`]);
	const disc = JSON.parse(readFileSync(join(linkDir, `${pi.proc.pid}.json`), "utf8"));
	same("discovery file", [disc.v, disc.pid, disc.sessionFile, disc.leafId, /^[0-9a-f]{64}$/.test(disc.token)], [1, pi.proc.pid, FILE, START, true]);
	same("folder and files are private", [statMode(linkDir), statMode(join(linkDir, `${pi.proc.pid}.json`)), statMode(join(linkDir, `${pi.proc.pid}.sock`))], ["700", "600", "600"]);

	// -------------------------------------------------------------- the protocol, spoken by hand
	const sock = disc.socket;
	const hello = { v: 1, type: "hello", token: disc.token, client: "run.mjs" };
	let got = await talk(sock, [{ ...hello, token: "0".repeat(64) }]);
	same("a wrong token: error unauthorized, closed", [got[0]?.type, got[0]?.code, got.length], ["error", "unauthorized", 1]);
	got = await talk(sock, [{ ...hello, v: 2 }]);
	same("another protocol version: error version", [got[0]?.type, got[0]?.code], ["error", "version"]);
	got = await talk(sock, ["{not json"]);
	same("not JSON: error bad-request", [got[0]?.type, got[0]?.code], ["error", "bad-request"]);
	got = await talk(sock, [hello]);
	same("the greeting: pi's state", [got[0]?.v, got[0]?.type, got[0]?.pid, got[0]?.sessionFile, got[0]?.leafId], [1, "state", pi.proc.pid, FILE, START]);
	got = await talk(sock, [hello, { v: 1, type: "offer", id: "x", offer: { kind: "navigate", sessionFile: join(root, "other.jsonl"), entryId: A1 } }]);
	same("an offer for a file pi is not on: failed, nothing asked", [got[1]?.type, got[1]?.answer, /not .*other\.jsonl/.test(got[1]?.message ?? "")], ["answer", "failed", true]);
	got = await talk(sock, [hello, { v: 1, type: "offer", id: "y", offer: { kind: "navigate", sessionFile: FILE, entryId: START } }]);
	same("an offer for pi's own leaf: accepted at once", [got[1]?.answer, got[1]?.leafId], ["accepted", START]);
	got = await talk(sock, [hello, { v: 1, type: "offer", id: "z", offer: { kind: "navigate", sessionFile: FILE, entryId: "nope0000" } }]);
	same("an offer for an entry pi does not have: failed", got[1]?.answer, "failed");

	// -------------------------------------------------------------- /explore (serve: no window on PATH)
	const done = await pi.call("prompt", { message: "/explore" });
	if (modern) same("/explore is handled by the extension", done?.disposition, "handled");
	const note = await pi.next((m) => m.type === "extension_ui_request" && m.method === "notify" && /https?:\/\//.test(m.message ?? ""));
	const url = note ? new URL(note.message.match(/https?:\/\/\S+/)[0]) : null;
	check("/explore notifies a URL", url !== null, note && JSON.stringify(note));
	if (url) {
		servedUrl = url;
		const frag = new URLSearchParams(url.hash.slice(1));
		same("the URL's fragment names the session and the leaf", [frag.get("session"), frag.get("entry")], [FILE, START]);
		const token = frag.get("token") ?? url.searchParams.get("token");
		check("the URL carries the token", /^[0-9a-f]{64}$/.test(token ?? ""), url.toString());
		const api = (cmd, headers) => fetch(new URL(`/api/${cmd}`, url), { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" });
		servedCall = async (cmd, args) => {
			const r = await fetch(new URL(`/api/${cmd}`, url), { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify(args) });
			return { status: r.status, json: await r.json().catch(() => null) };
		};
		const info = await api("app_info", { authorization: `Bearer ${token}` });
		const body = info.ok ? await info.json() : null;
		same("the API answers the token as Bearer; its root is the session's", [info.status, body?.root], [200, realpathSync(root)]);
		same("the API refuses a request without the token", (await api("app_info", {})).status, 401);
		const list = await (await api("list_sessions", { authorization: `Bearer ${token}` })).json();
		check("the served list holds the session", list.sessions?.some((s) => s.path === FILE), JSON.stringify(list).slice(0, 400));
		if (withBrowser) await inBrowser(url, START);
	}

	// -------------------------------------------------------------- /explore with the window
	const windowArgs = join(work, "window-args.json");
	mkdirSync(join(work, "bin"));
	writeFileSync(env.PI_SESSION_EXPLORER_BIN, `#!/bin/sh\nexec "${process.execPath}" -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify(process.argv.slice(2)))' '${windowArgs}' "$@"\n`, { mode: 0o755 });
	await pi.call("prompt", { message: "/explore" });
	const opened = await pi.next((m) => m.type === "extension_ui_request" && m.method === "notify" && /Opened Pi Session Explorer/.test(m.message ?? ""));
	check("/explore with the window: notified", opened !== null);
	for (let k = 0; k < 50 && !existsSync(windowArgs); k++) await new Promise((res) => setTimeout(res, 100));
	same("the window gets the root, the session and the leaf", existsSync(windowArgs) ? JSON.parse(readFileSync(windowArgs, "utf8")) : null, ["--sessions-dir", realpathSync(root), "--session", FILE, "--select", START]);

	// -------------------------------------------------------------- navigate, accepted
	let ask = offer(FILE, "--navigate", A3, "--timeout", "20");
	let q = await decide(pi, "No summary");
	check("the offer arrives as a select in pi", q !== null);
	if (q) {
		same("the question", q.title, `The explorer moved to 'try another parser' (entry ${A3}): go there?`);
		same("the choices", q.options, ["No summary", "Summarize", "Cancel"]);
		same("pi's dialog closes itself when the explorer stops waiting", q.timeout, 20000);
	}
	let r = await ask;
	same("offer --navigate: accepted, moved to the entry", [r.status, r.json?.[0]?.answer, r.json?.[0]?.summarize, r.json?.[0]?.moved], [0, "accepted", false, { sessionFile: FILE, leafId: A3 }]);
	const ON_A3 = [TEXT.U1, TEXT.A1, TEXT.U3, TEXT.A3];
	same("pi's active path now ends at the entry", await pi.path(), ON_A3);
	if (modern) same("pi's leaf (get_entries)", (await pi.call("get_entries")).leafId, A3);
	same("followers report pi's new leaf", ours("followers", FILE).json?.[0]?.leafId, A3);

	// -------------------------------------------------------------- navigate, refused
	ask = offer(FILE, "--navigate", A1, "--timeout", "20");
	q = await decide(pi, "Cancel");
	same("a refusal: the question names the other entry", q?.title, `The explorer moved to 'fix the parser' (entry ${A1}): go there?`);
	r = await ask;
	same("offer refused: declined", [r.status, r.json?.[0]?.answer], [0, "declined"]);
	same("a refusal leaves pi where it was", await pi.path(), ON_A3);

	// Dismissed (Escape): declined too.
	ask = offer(FILE, "--navigate", A1, "--timeout", "20");
	await decide(pi, null);
	same("dismissed: declined", (await ask).json?.[0]?.answer, "declined");

	// -------------------------------------------------------------- no answer: timed out
	const t0 = Date.now();
	ask = offer(FILE, "--navigate", A1, "--timeout", "1");
	q = await pi.ui("select");
	r = await ask;
	same("unanswered: timed out", [r.status, r.json?.[0]?.answer], [0, "timed-out"]);
	check("the wait is bounded (about --timeout)", Date.now() - t0 < 8000, `${Date.now() - t0} ms`);
	same("a timeout leaves pi where it was", await pi.path(), ON_A3);

	// -------------------------------------------------------------- a summary of the branch left, with no model
	ask = offer(FILE, "--navigate", A2, "--timeout", "20");
	await decide(pi, "Summarize");
	r = await ask;
	same("summarize with no model: failed", r.json?.[0]?.answer, "failed");
	check("the failure carries pi's reason", (r.json?.[0]?.message ?? "").length > 0, JSON.stringify(r.json));
	same("a failed move leaves pi where it was", await pi.path(), ON_A3);

	// -------------------------------------------------------------- an unknown entry: refused before pi is asked
	r = ours("offer", FILE, "--navigate", "nope0000");
	same("an entry not in the file: refused by pi-session, exit 1", [r.status, /nope0000/.test(r.err)], [1, true]);

	// -------------------------------------------------------------- fork, then switch
	const fork = ours("fork", FILE, A3, "--sessions-dir", root);
	check("pi-session fork", fork.status === 0, fork.err);
	const NEW = fork.json?.file;
	ask = offer(FILE, "--switch", NEW, "--timeout", "20");
	q = await decide(pi, "Switch");
	check("the switch question", q?.title?.startsWith("The explorer forked 'try another parser' into a new session (") && q?.title?.endsWith("): switch to it?"), q?.title);
	same("the switch choices", q?.options, ["Switch", "Cancel"]);
	r = await ask;
	same("offer --switch: accepted, pi on the new file at its leaf", [r.status, r.json?.[0]?.answer, r.json?.[0]?.moved], [0, "accepted", { sessionFile: NEW, leafId: lastId(NEW) }]);
	same("pi's session is the new file (get_state)", (await pi.call("get_state")).sessionFile, NEW);
	same("pi's active path in the new file", await pi.path(), ON_A3);
	let now = [];
	for (let k = 0; k < 50 && now.length === 0; k++) {
		now = ours("followers", NEW).json ?? [];
		if (now.length === 0) await new Promise((res) => setTimeout(res, 100));
	}
	same("the link follows the new file", now.map((x) => [x.pid, x.sessionFile]), [[pi.proc.pid, NEW]]);
	same("and no longer the old one", ours("followers", FILE).json, []);
	same("offer to a file no pi follows: exit 3", ours("offer", FILE, "--navigate", A1).status, 3);

	// -------------------------------------------------------------- the explorer's own commands (serve's API)
	if (servedCall) {
		const fol = await servedCall("pi_followers", { path: NEW });
		same("pi_followers: this pi on the fork, with its version and leaf", [fol.status, fol.json?.map((f) => [f.pid, f.sessionFile, f.leafId])], [200, [[pi.proc.pid, NEW, lastId(NEW)]]]);
		same("pi_followers of the file pi left: none", (await servedCall("pi_followers", { path: FILE })).json, []);
		const asked = servedCall("offer_to_pi", { path: NEW, entryId: A1, decideSecs: 20 });
		q = await decide(pi, "No summary");
		same("offer_to_pi: the question", q?.title, `The explorer moved to 'fix the parser' (entry ${A1}): go there?`);
		const a = await asked;
		same("offer_to_pi: accepted, pi moved to the entry", [a.status, a.json?.[0]?.pid, a.json?.[0]?.answer?.answer, a.json?.[0]?.answer?.moved], [200, pi.proc.pid, "accepted", { sessionFile: NEW, leafId: A1 }]);
		same("pi's active path ends at the entry", await pi.path(), [TEXT.U1, TEXT.A1]);
		const no = servedCall("offer_to_pi", { path: NEW, entryId: A3, decideSecs: 20 });
		await decide(pi, "Cancel");
		same("offer_to_pi refused: declined, pi stays", [(await no).json?.[0]?.answer?.answer, await pi.path()], ["declined", [TEXT.U1, TEXT.A1]]);
		same("offer_to_pi: an entry and a fork at once is invalid", (await servedCall("offer_to_pi", { path: NEW, entryId: A1, forkPath: FILE })).json?.code, "invalid");
		same("offer_to_pi: a file outside the served root is refused", (await servedCall("offer_to_pi", { path: "/etc/passwd", entryId: A1 })).json?.code, "outside-root");
		same("resume_in_pi is the window's only", (await servedCall("resume_in_pi", { path: NEW })).json?.code, "window-only");
	}
} catch (e) {
	check("no exception", false, e.stack);
} finally {
	pi.proc.stdin.end();
	const code = await Promise.race([pi.exited, new Promise((ok) => setTimeout(() => ok("timeout"), 15000))]);
	if (code === "timeout") pi.proc.kill("SIGKILL");
	check("pi exits cleanly", code === 0, `${code}\n${pi.stderr.slice(-1500)}`);
}
same("after pi exits the link folder is empty", existsSync(linkDir) ? readdirSync(linkDir) : [], []);
if (servedUrl) {
	let gone = false;
	for (let k = 0; k < 30 && !gone; k++) {
		gone = await fetch(servedUrl).then(() => false, () => true);
		if (!gone) await new Promise((res) => setTimeout(res, 100));
	}
	check("the server /explore started is gone with pi", gone);
}

/** The URL of /explore in Chromium: the session and the entry it names are the ones shown. */
async function inBrowser(url, leaf) {
	const { chromium } = await import(pathToFileURL(join(repo, "tests/serve/node_modules/playwright-core/index.mjs")).href);
	const profile = mkdtempSync(join(tmpdir(), "pi-link-chromium-"));
	const ctx = await chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
		headless: true,
		args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
	});
	try {
		const shown = async (u) => {
			const page = await ctx.newPage();
			await page.goto(u.toString());
			const session = page.locator("[data-testid=session-row][aria-current=true]");
			await session.waitFor({ timeout: 15000 });
			const row = page.locator("[data-testid=tree-row][aria-selected=true]");
			await row.waitFor({ timeout: 15000 });
			const got = [await session.getAttribute("data-path"), await row.getAttribute("data-id")];
			await page.close();
			return got;
		};
		same("in the browser: the session and the leaf the URL names", await shown(url), [FILE, leaf]);
		const other = new URL(url);
		const h = new URLSearchParams(other.hash.slice(1));
		h.set("entry", A1);
		other.hash = h.toString();
		same("in the browser: entry=A1 selects A1", await shown(other), [FILE, A1]);
	} catch (e) {
		check("the page opens in Chromium", false, e.stack);
	} finally {
		await ctx.close();
		rmSync(profile, { recursive: true, force: true });
	}
}

/** Connects to pi's socket, sends `lines` (objects or raw text), returns what pi said until it closed (or 5 s). */
function talk(socket, lines) {
	return new Promise((ok) => {
		const c = connect(socket);
		let buf = "";
		const done = () => ok(buf.split("\n").filter(Boolean).map((l) => JSON.parse(l)));
		const timer = setTimeout(() => {
			c.destroy();
			done();
		}, 5000);
		c.setEncoding("utf8");
		c.on("data", (d) => (buf += d));
		c.on("close", () => {
			clearTimeout(timer);
			done();
		});
		c.on("error", () => {});
		c.on("connect", () => {
			for (const l of lines) c.write(`${typeof l === "string" ? l : JSON.stringify(l)}\n`);
		});
	});
}

function statMode(p) {
	return (statSync(p).mode & 0o777).toString(8);
}

console.log(`pi-link: ${pkg.name} ${pkg.version}: ${checks} checks, ${failures.length} failed`);
if (!failures.length && !argv.includes("--keep")) rmSync(work, { recursive: true, force: true });
process.exit(failures.length ? 1 : 0);

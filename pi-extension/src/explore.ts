// `/explore`: the explorer on this session at this leaf. The desktop window when
// `pi-session-explorer` is found, else `pi-session serve` and its URL.

import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, realpathSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join } from "node:path";

/** The sessions root of a session file: the parent of its per-cwd folder `--…--`, else its folder (as `pi-session`'s own rule). */
export function rootOf(file: string): string {
	const folder = dirname(file);
	const name = basename(folder);
	return name.length >= 4 && name.startsWith("--") && name.endsWith("--") ? dirname(folder) : folder;
}

/** `override` (a path or a name), else `name` on PATH; undefined when not executable. */
export function findProgram(name: string, override?: string, path = process.env.PATH ?? ""): string | undefined {
	const exe = (p: string) => {
		try {
			accessSync(p, constants.X_OK);
			return true;
		} catch {
			return false;
		}
	};
	const want = override || name;
	if (isAbsolute(want) || want.includes("/")) return exe(want) ? want : undefined;
	const names = process.platform === "win32" ? [`${want}.exe`, want] : [want];
	for (const dir of path.split(delimiter)) {
		if (!dir) continue;
		for (const n of names) if (exe(join(dir, n))) return join(dir, n);
	}
	return undefined;
}

/** The printed URL with `session` and `entry` added to its fragment (the token stays where the server put it). */
export function urlFor(printed: string, session: string, entry: string | null): string {
	const u = new URL(printed);
	const h = new URLSearchParams(u.hash.replace(/^#/, ""));
	h.set("session", session);
	if (entry) h.set("entry", entry);
	else h.delete("entry");
	u.hash = h.toString();
	return u.toString();
}

/** The token of a printed URL, in its fragment (`#token=`) or its query (`?token=`). */
export function tokenOf(printed: string): string | undefined {
	const u = new URL(printed);
	return new URLSearchParams(u.hash.replace(/^#/, "")).get("token") ?? u.searchParams.get("token") ?? undefined;
}

/** A `pi-session serve` this process started, by root. Kept across sessions of the process (a switch keeps the page working). */
interface Served {
	root: string;
	url: string;
	child: ChildProcess;
}

const REGISTRY = Symbol.for("pi-session-explorer-link.serve");

function registry(): Map<string, Served> {
	const g = globalThis as unknown as Record<symbol, Map<string, Served> | undefined>;
	let m = g[REGISTRY];
	if (!m) {
		m = new Map();
		g[REGISTRY] = m;
		process.once("exit", () => {
			for (const s of m?.values() ?? []) s.child.kill();
		});
	}
	return m;
}

/** Starts (or reuses) `pi-session serve` on `root`; resolves with the URL it printed, once the API answered it with the token. */
export async function serve(bin: string, root: string): Promise<string> {
	const reg = registry();
	const old = reg.get(root);
	if (old && old.child.exitCode === null && !old.child.killed) return old.url;
	const child = spawn(bin, ["serve", "--sessions-dir", root, "--listen", "127.0.0.1:0", "--allow-writes"], { stdio: ["ignore", "pipe", "pipe"] });
	let stderr = "";
	child.stderr?.setEncoding("utf8").on("data", (d: string) => {
		stderr = (stderr + d).slice(-2000);
	});
	const url = await new Promise<string>((ok, fail) => {
		let out = "";
		const timer = setTimeout(() => fail(new Error(`pi-session serve printed no URL within 15 s ${stderr}`)), 15_000);
		child.once("error", (e) => {
			clearTimeout(timer);
			fail(e);
		});
		child.once("exit", (code) => {
			clearTimeout(timer);
			fail(new Error(`pi-session serve exited (${code}): ${stderr.trim()}`));
		});
		child.stdout?.setEncoding("utf8").on("data", (d: string) => {
			out += d;
			const line = out.split("\n").find((l) => /^https?:\/\//.test(l.trim()));
			if (line && out.includes("\n")) {
				clearTimeout(timer);
				ok(line.trim());
			}
		});
	});
	child.removeAllListeners("exit");
	child.on("exit", () => reg.delete(root));
	await check(url);
	reg.set(root, { root, url, child });
	return url;
}

/** The API answers the printed token (`Authorization: Bearer`). */
async function check(url: string): Promise<void> {
	const token = tokenOf(url);
	if (!token) throw new Error(`no token in the URL ${url}`);
	const res = await fetch(new URL("/api/app_info", url), {
		method: "POST",
		headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
		body: "{}",
	});
	if (!res.ok) throw new Error(`pi-session serve refused the token: ${res.status} ${await res.text()}`);
}

/** Starts the window on the session, the entry selected; resolves once it started. */
export function openWindow(bin: string, root: string, session: string, entry: string | null): Promise<void> {
	const args = ["--sessions-dir", root, "--session", session, ...(entry ? ["--select", entry] : [])];
	const child = spawn(bin, args, { detached: true, stdio: "ignore" });
	return new Promise((ok, fail) => {
		child.once("error", fail);
		child.once("spawn", () => {
			child.unref();
			ok();
		});
	});
}

export function real(p: string): string {
	try {
		return realpathSync(p);
	} catch {
		return p;
	}
}

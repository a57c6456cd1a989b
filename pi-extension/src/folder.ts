// The link's private folder and the discovery files in it (docs/pi-link.md, "Discovery").
// The explorer (crates/pi-session/src/pilink) computes the same folder.

import { randomBytes } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";

export const PROTOCOL = 1;

/** `$PI_SESSION_LINK_DIR`, else `$XDG_RUNTIME_DIR/pi-session-explorer`, else `<tmp>/pi-session-explorer-<uid>`. */
export function linkDir(env: NodeJS.ProcessEnv = process.env): string {
	const abs = (v: string | undefined) => (v && isAbsolute(v) ? v : undefined);
	const own = abs(env.PI_SESSION_LINK_DIR);
	if (own) return own;
	const runtime = abs(env.XDG_RUNTIME_DIR);
	if (runtime) return join(runtime, "pi-session-explorer");
	return join(tmpdir(), `pi-session-explorer-${process.getuid?.() ?? 0}`);
}

/**
 * Creates the folder (mode 0700) or checks the one there: a real folder of this user, which
 * nobody else can enter (its mode is tightened when it is ours). Throws otherwise.
 */
export function ensurePrivateDir(dir: string): void {
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	const st = lstatSync(dir);
	const uid = process.getuid?.();
	if (!st.isDirectory()) throw new Error(`${dir} is not a folder`);
	if (uid !== undefined && st.uid !== uid) throw new Error(`${dir} belongs to another user`);
	if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** What `<pid>.json` holds. */
export interface Discovery {
	v: number;
	pid: number;
	piVersion: string;
	sessionFile: string;
	leafId: string | null;
	cwd: string;
	socket: string;
	token: string;
	startedAt: string;
	updatedAt: string;
}

export function newToken(): string {
	return randomBytes(32).toString("hex");
}

export function socketPath(dir: string, pid = process.pid): string {
	return join(dir, `${pid}.sock`);
}

export function discoveryPath(dir: string, pid = process.pid): string {
	return join(dir, `${pid}.json`);
}

/** Writes the discovery file whole (a temporary file, mode 0600, renamed over it). */
export function writeDiscovery(dir: string, d: Discovery): void {
	const tmp = join(dir, `.${d.pid}.json.${randomBytes(4).toString("hex")}`);
	writeFileSync(tmp, `${JSON.stringify(d)}\n`, { mode: 0o600 });
	renameSync(tmp, discoveryPath(dir, d.pid));
}

/** Removes this pid's files, when they are still the ones with `token`. */
export function removeDiscovery(dir: string, token: string, pid = process.pid): void {
	try {
		const d = JSON.parse(readFileSync(discoveryPath(dir, pid), "utf8")) as Discovery;
		if (d.token !== token) return;
	} catch {
		// Gone or unreadable: remove the socket all the same.
	}
	for (const p of [discoveryPath(dir, pid), socketPath(dir, pid)]) {
		try {
			unlinkSync(p);
		} catch {
			// Already gone.
		}
	}
}

/** Removes the files of pis that are gone (a crash leaves them). */
export function removeStale(dir: string): void {
	let names: string[];
	try {
		names = readdirSync(dir);
	} catch {
		return;
	}
	for (const n of names) {
		const m = /^(\d+)\.(json|sock)$/.exec(n);
		if (!m) continue;
		const pid = Number(m[1]);
		if (pid === process.pid || alive(pid)) continue;
		try {
			unlinkSync(join(dir, n));
		} catch {
			// Someone else removed it.
		}
	}
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (e) {
		return (e as NodeJS.ErrnoException).code === "EPERM";
	}
}

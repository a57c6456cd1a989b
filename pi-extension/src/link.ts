// The socket a running pi listens on (docs/pi-link.md): newline-delimited JSON, version `v`
// in every message; one greeting with the token, then at most one offer per connection.

import { timingSafeEqual } from "node:crypto";
import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { type Discovery, PROTOCOL, removeDiscovery, socketPath, writeDiscovery } from "./folder.ts";

const MAX_LINE = 64 * 1024;
/** A connection that has not greeted within this is closed. */
const GREETING_MS = 5000;

/** What pi says about itself in answer to the greeting. */
export interface State {
	pid: number;
	piVersion: string;
	sessionFile: string;
	leafId: string | null;
	cwd: string;
	idle: boolean;
	movesAtOnce: boolean;
}

export type OfferBody =
	| { kind: "navigate"; sessionFile: string; entryId: string; title?: string }
	| { kind: "switch"; sessionFile: string; target: string; title?: string };

export interface IncomingOffer {
	id: string;
	offer: OfferBody;
	timeoutMs: number;
}

/** One connection, as the offer handling sees it. */
export interface Peer {
	send(msg: Record<string, unknown>): void;
	/** Sends `error` and closes. */
	fail(code: string, message: string): void;
	close(): void;
	readonly closed: boolean;
	/** Called once when the other side closes first. */
	onClose(cb: () => void): void;
}

export interface LinkHost {
	state(): State;
	offer(o: IncomingOffer, peer: Peer): void;
}

export class Link {
	private server: Server | null = null;
	private peers = new Set<Connection>();

	constructor(
		readonly dir: string,
		private readonly token: string,
		private readonly host: LinkHost,
	) {}

	/** Listens on `<dir>/<pid>.sock` (mode 0600) and writes the discovery file. */
	async start(d: Omit<Discovery, "v" | "pid" | "socket" | "token">): Promise<void> {
		const path = socketPath(this.dir);
		try {
			unlinkSync(path); // ours: this pid's, left by the previous session of this process
		} catch {
			// Not there.
		}
		const server = createServer((s) => {
			const c = new Connection(s, this.token, this.host);
			this.peers.add(c);
			s.on("close", () => this.peers.delete(c));
		});
		await new Promise<void>((ok, fail) => {
			server.once("error", fail);
			server.listen(path, () => {
				server.off("error", fail);
				ok();
			});
		});
		chmodSync(path, 0o600);
		server.on("error", () => {});
		this.server = server;
		this.write({ ...d });
		// pi exiting without a session_shutdown (an uncaught error): the files go all the same.
		process.once("exit", this.onExit);
	}

	private readonly onExit = () => removeDiscovery(this.dir, this.token);

	private last: Discovery | null = null;

	private write(d: Omit<Discovery, "v" | "pid" | "socket" | "token">): void {
		this.last = { v: PROTOCOL, pid: process.pid, socket: socketPath(this.dir), token: this.token, ...d };
		writeDiscovery(this.dir, this.last);
	}

	/** Rewrites the discovery file with pi's leaf now. */
	update(leafId: string | null): void {
		if (!this.server || !this.last || this.last.leafId === leafId) return;
		this.write({ ...this.last, leafId, updatedAt: new Date().toISOString() });
	}

	/**
	 * Stops listening and removes the files. Connections in `keep` stay open (an offer being
	 * applied answers after the session it started in is gone); the others are closed.
	 */
	stop(keep: ReadonlySet<Peer> = new Set()): void {
		this.server?.close();
		this.server = null;
		process.off("exit", this.onExit);
		removeDiscovery(this.dir, this.token);
		for (const c of this.peers) if (!keep.has(c)) c.close();
	}
}

class Connection implements Peer {
	private buf = "";
	private greeted = false;
	private offered = false;
	private closers: (() => void)[] = [];
	closed = false;
	private timer: ReturnType<typeof setTimeout>;

	constructor(
		private readonly sock: Socket,
		private readonly token: string,
		private readonly host: LinkHost,
	) {
		sock.setEncoding("utf8");
		this.timer = setTimeout(() => this.fail("bad-request", "no greeting"), GREETING_MS);
		sock.on("data", (chunk: string) => this.data(chunk));
		sock.on("error", () => {});
		sock.on("close", () => {
			clearTimeout(this.timer);
			const first = !this.closed;
			this.closed = true;
			if (first) for (const cb of this.closers) cb();
		});
	}

	onClose(cb: () => void): void {
		this.closers.push(cb);
	}

	send(msg: Record<string, unknown>): void {
		if (!this.closed) this.sock.write(`${JSON.stringify({ v: PROTOCOL, ...msg })}\n`);
	}

	fail(code: string, message: string): void {
		this.send({ type: "error", code, message });
		this.close();
	}

	close(): void {
		if (this.closed) return;
		this.closed = true;
		clearTimeout(this.timer);
		this.sock.end();
	}

	private data(chunk: string): void {
		this.buf += chunk;
		let i: number;
		while (!this.closed && (i = this.buf.indexOf("\n")) >= 0) {
			const line = this.buf.slice(0, i);
			this.buf = this.buf.slice(i + 1);
			this.message(line);
		}
		if (this.buf.length > MAX_LINE) this.fail("bad-request", "a message over 64 KB");
	}

	private message(line: string): void {
		let msg: Record<string, unknown>;
		try {
			msg = JSON.parse(line);
		} catch {
			return this.fail("bad-request", "not JSON");
		}
		if (msg === null || typeof msg !== "object") return this.fail("bad-request", "not an object");
		if (msg.v !== PROTOCOL) return this.fail("version", `this pi speaks protocol ${PROTOCOL}`);
		if (!this.greeted) {
			if (msg.type !== "hello" || !sameToken(msg.token, this.token)) return this.fail("unauthorized", "greet with the token of the discovery file");
			this.greeted = true;
			clearTimeout(this.timer);
			this.send({ type: "state", ...this.host.state() });
			return;
		}
		if (msg.type !== "offer" || this.offered) return this.fail("bad-request", "one offer per connection, after the greeting");
		const offer = parseOffer(msg);
		if (typeof offer === "string") return this.fail("bad-request", offer);
		this.offered = true;
		this.host.offer(offer, this);
	}
}

function sameToken(got: unknown, want: string): boolean {
	if (typeof got !== "string" || got.length !== want.length) return false;
	return timingSafeEqual(Buffer.from(got), Buffer.from(want));
}

/** The offer, or what is wrong with it. */
function parseOffer(msg: Record<string, unknown>): IncomingOffer | string {
	const o = msg.offer as Record<string, unknown> | undefined;
	const str = (v: unknown) => typeof v === "string" && v.length > 0 && v.length <= 4096;
	if (!o || typeof o !== "object") return "no offer";
	if (!str(msg.id)) return "no id";
	const timeoutMs = typeof msg.timeoutMs === "number" && msg.timeoutMs > 0 ? Math.min(msg.timeoutMs, 3_600_000) : 60_000;
	const title = typeof o.title === "string" ? o.title : undefined;
	if (!str(o.sessionFile)) return "no sessionFile";
	if (o.kind === "navigate") {
		if (!str(o.entryId)) return "no entryId";
		return { id: msg.id as string, timeoutMs, offer: { kind: "navigate", sessionFile: o.sessionFile as string, entryId: o.entryId as string, title } };
	}
	if (o.kind === "switch") {
		if (!str(o.target)) return "no target";
		return { id: msg.id as string, timeoutMs, offer: { kind: "switch", sessionFile: o.sessionFile as string, target: o.target as string, title } };
	}
	return `unknown kind ${JSON.stringify(o.kind)}`;
}

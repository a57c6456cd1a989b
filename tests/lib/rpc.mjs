// pi in RPC mode (docs/rpc-commands.md of the pi package), driven by a test: commands with their
// responses, the events pi sends (extension UI requests among them) and the answers to them.

import { spawn } from "node:child_process";

export class PiRpc {
	/** Starts `node … --mode rpc …` (`args` after the Node program): `opts.cwd`, `opts.env`, `opts.verbose` (print what pi says). */
	constructor(node, args, { cwd, env, verbose = false } = {}) {
		this.proc = spawn(node, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
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
	/** The first text of each message on pi's active path (its role when it has none). */
	async path() {
		const msgs = (await this.call("get_messages")).messages;
		return msgs.map((m) => m.content?.[0]?.text ?? m.role);
	}
}


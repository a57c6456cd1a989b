// Starts what the end-to-end tests need: Xvfb, tauri-driver (which starts WebKitWebDriver,
// which starts the app), and hands out app sessions on a fixture sessions root.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { Driver, sleep } from "./webdriver.mjs";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Cargo's target folder: $CARGO_TARGET_DIR (relative to the repo), else target/. */
export const targetDir = process.env.CARGO_TARGET_DIR ? resolve(repo, process.env.CARGO_TARGET_DIR) : join(repo, "target");

async function freePort() {
	return new Promise((res, rej) => {
		const s = createServer();
		s.listen(0, "127.0.0.1", () => {
			const { port } = s.address();
			s.close(() => res(port));
		});
		s.on("error", rej);
	});
}

async function waitPort(port, timeout = 20000) {
	const end = Date.now() + timeout;
	while (Date.now() < end) {
		try {
			const r = await fetch(`http://127.0.0.1:${port}/status`);
			if (r.ok) return;
		} catch {
			// not yet
		}
		await sleep(100);
	}
	throw new Error(`nothing listens on ${port}`);
}

export class Harness {
	constructor({ app, shots }) {
		this.app = app ?? process.env.PI_EXPLORER_BIN ?? join(targetDir, "debug/pi-session-explorer");
		if (!existsSync(this.app)) throw new Error(`app binary not found: ${this.app} (build it first: cargo build)`);
		this.shots = shots;
		mkdirSync(shots, { recursive: true });
		this.procs = [];
		this.shotCount = 0;
	}

	async start() {
		const display = process.env.E2E_DISPLAY ?? `:${90 + Math.floor(Math.random() * 9)}`;
		this.display = display;
		const xvfb = spawn("Xvfb", [display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"], { stdio: "ignore" });
		this.procs.push(xvfb);
		await sleep(600);
		if (xvfb.exitCode !== null) throw new Error(`Xvfb ${display} did not start`);
		this.port = await freePort();
		// A home of its own: the app's data and cache, WebKit's storage (the UI theme, say) and
		// any config land there, never in the user's; removed by stop().
		this.home = mkdtempSync(join(tmpdir(), "pi-explorer-e2e-home-"));
		this.dataDir = join(this.home, "data");
		// The folder where running pis announce themselves to the explorer (docs/pi-link.md):
		// the specs start their pis with the same.
		this.linkDir = join(this.home, "pi-link");
		mkdirSync(this.linkDir, { mode: 0o700 });
		const xdg = { XDG_DATA_HOME: join(this.home, ".local/share"), XDG_CONFIG_HOME: join(this.home, ".config"), XDG_CACHE_HOME: join(this.home, ".cache") };
		for (const d of [this.dataDir, ...Object.values(xdg)]) mkdirSync(d, { recursive: true });
		// What the window asks the system to open (an export, its folder) is recorded, not opened.
		this.opened = join(this.home, "opened.log");
		const opener = join(this.home, "opener");
		writeFileSync(opener, `#!/bin/sh\nprintf '%s %s\\n' "$1" "$2" >> '${this.opened}'\n`, { mode: 0o755 });
		const env = {
			...process.env,
			HOME: this.home,
			...xdg,
			DISPLAY: display,
			PI_EXPLORER_DATA_DIR: this.dataDir,
			PI_SESSION_CACHE_DIR: join(this.home, "cache"),
			PI_EXPLORER_EXPORT_DIR: join(this.dataDir, "exports"),
			PI_SESSION_LINK_DIR: this.linkDir,
			PI_EXPLORER_OPENER: opener,
			WEBKIT_DISABLE_COMPOSITING_MODE: "1",
		};
		delete env.PI_CODING_AGENT_SESSION_DIR;
		delete env.PI_CODING_AGENT_DIR;
		// Its own WebKitWebDriver port too, so that several runs can share the machine.
		const native = await freePort();
		const driver = spawn("tauri-driver", ["--port", String(this.port), "--native-port", String(native)], { env, stdio: ["ignore", "pipe", "pipe"] });
		driver.stdout.on("data", () => {});
		driver.stderr.on("data", (d) => {
			if (process.env.E2E_VERBOSE) process.stderr.write(d);
		});
		this.procs.push(driver);
		await waitPort(this.port);
		return this;
	}

	/** Starts the app with these arguments and waits for the UI to be ready. */
	async open(args = []) {
		const d = await Driver.start(`http://127.0.0.1:${this.port}`, this.app, { args });
		this.driver = d;
		await d.waitFor("[data-testid=session-row]", { timeout: 30000, what: "the session list" });
		return d;
	}

	async close() {
		if (this.driver) await this.driver.quit();
		this.driver = null;
	}

	/** Saves the webview (WebDriver) and the whole X screen; returns the file names. */
	async shot(name) {
		const n = String(++this.shotCount).padStart(2, "0");
		const file = join(this.shots, `${n}-${name}.png`);
		await sleep(400);
		writeFileSync(file, await this.driver.screenshot());
		await new Promise((res) => {
			const p = spawn("import", ["-window", "root", file.replace(/\.png$/, ".screen.png")], { env: { ...process.env, DISPLAY: this.display }, stdio: "ignore" });
			p.on("exit", res);
			p.on("error", res);
		});
		return file;
	}

	async stop() {
		await this.close();
		for (const p of this.procs.reverse()) {
			try {
				p.kill("SIGTERM");
			} catch {
				// gone
			}
		}
		await sleep(300);
		if (this.home) rmSync(this.home, { recursive: true, force: true });
	}
}

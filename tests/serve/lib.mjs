// Shared by the serve end-to-end tests and the serve benchmark: start `pi-session serve`, start
// Chromium (Playwright, the system browser, a fresh profile), wait for things on the page.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The pi-session binary: $PI_SESSION_BIN, else the debug build. */
export const bin = () => process.env.PI_SESSION_BIN ?? join(repo, "target/debug/pi-session");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Starts `pi-session serve` on `root`; resolves with { url, origin, token, stop() } (the URL as
 *  printed: `http://127.0.0.1:PORT/#token=…`). */
export async function serve(root, extra = [], env = {}) {
	const cache = mkdtempSync(join(tmpdir(), "pi-serve-cache-"));
	const child = spawn(bin(), ["serve", "--sessions-dir", root, "--listen", "127.0.0.1:0", ...extra], {
		stdio: ["ignore", "pipe", "pipe"],
		env: { ...process.env, PI_SESSION_CACHE_DIR: cache, ...env },
	});
	let stderr = "";
	child.stderr.on("data", (b) => (stderr += b));
	const url = await new Promise((ok, fail) => {
		child.once("exit", (c) => fail(new Error(`pi-session serve exited (${c}): ${stderr}`)));
		createInterface({ input: child.stdout }).once("line", ok);
	});
	const u = new URL(url);
	return {
		url,
		origin: u.origin,
		// The token is in the fragment, which a browser never sends.
		token: new URLSearchParams(u.hash.slice(1)).get("token"),
		async stop() {
			if (child.exitCode === null) {
				const gone = new Promise((ok) => child.once("exit", ok));
				child.kill("SIGTERM");
				await gone;
			}
			rmSync(cache, { recursive: true, force: true });
		},
	};
}

/** Chromium, headless, with a fresh profile; `close()` removes the profile. */
export async function browser() {
	const profile = mkdtempSync(join(tmpdir(), "pi-serve-chromium-"));
	const ctx = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		viewport: { width: 1280, height: 800 },
		args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
	});
	return {
		ctx,
		async close() {
			await ctx.close();
			rmSync(profile, { recursive: true, force: true });
		},
	};
}

export const q = (s) => JSON.stringify(s);

// End-to-end tests of the real window: the built app under Xvfb, driven through tauri-driver
// (WebKitWebDriver) over W3C WebDriver, on fixture session files written to a temp folder.
// Screenshots of every step go to tests/e2e/screenshots/<run>/ (printed at the end).
//
//   node tests/e2e/run.mjs [--only NAME]
//
// Needs: Xvfb, tauri-driver, WebKitWebDriver, ImageMagick's `import`, and a built app
// (cargo build, after npm --prefix ui run build). PI_EXPLORER_BIN overrides the binary.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { writeFixtures } from "./fixtures.mjs";
import { Harness, repo } from "./harness.mjs";
import { specs } from "./specs.mjs";

const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : null;
const stamp = new Date().toISOString().replace(/[:.]/g, "-");
const shots = join(repo, "tests/e2e/screenshots", stamp);

const h = new Harness({ shots });
let passed = 0;
const failed = [];
try {
	await h.start();
	for (const spec of specs) {
		if (only && !spec.name.includes(only)) continue;
		const dir = mkdtempSync(join(tmpdir(), "pi-explorer-e2e-"));
		const fx = writeFixtures(join(dir, "sessions"), spec.fixtureOptions ?? {});
		const t0 = Date.now();
		try {
			await spec.run({ h, fx, dir });
			passed++;
			console.log(`ok   ${spec.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
		} catch (e) {
			failed.push(spec.name);
			console.log(`FAIL ${spec.name}: ${e.stack ?? e}`);
			try {
				if (h.driver) await h.shot(`FAILED-${spec.name.replace(/\W+/g, "-")}`);
			} catch {
				// no window to capture
			}
		} finally {
			await h.close();
			rmSync(dir, { recursive: true, force: true });
		}
	}
} finally {
	await h.stop();
}
console.log(`\nscreenshots: ${shots}`);
console.log(`${passed} passed, ${failed.length} failed${failed.length ? `: ${failed.join(", ")}` : ""}`);
process.exitCode = failed.length || passed === 0 ? 1 : 0;

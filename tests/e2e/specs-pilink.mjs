// End-to-end: the window beside a running pi (docs/pi-link.md). The real pi 1.6.0 runs in RPC
// mode with pi-extension installed as a user installs it (`pi install`), on a session of the
// fixtures; the window is started as /explore starts it (--session FILE --select LEAF) and says
// that pi follows the session. Resume pi here on another entry appends the leaf line and offers
// the move to pi, whose user (this test, through RPC) says yes: pi's leaf moves there and the
// window says so. A fork made in the window, offered and refused: pi stays where it was.
// Screenshots for the README: docs/screenshots/from-pi*.png.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

import { findPi } from "../lib/pi.mjs";
import { cwdFolder, sessionFileName } from "../lib/sessions.mjs";
import { PiRpc } from "../lib/rpc.mjs";
import { repo, targetDir } from "./harness.mjs";
import { openSession, resumeHere, selectRow, until } from "./specs.mjs";
import { sleep } from "./webdriver.mjs";

const cli = process.env.PI_SESSION_BIN ?? join(targetDir, "debug/pi-session");

/** The toasts' text, newest last. */
const toasts = (d) => d.exec("return [...document.querySelectorAll('[data-testid=toast]')].map((t) => t.textContent)");

export const piLinkSpecs = [
	{
		name: "from pi: the window started by /explore shows that pi follows; Resume pi here is offered to pi, which moves on yes; a fork refused leaves pi where it was",
		async run({ h, fx }) {
			const node24 = process.env.NODE24 ?? join(repo, ".tools/bin/node24");
			const pi16 = findPi(process.env.PI16_DIR ?? join(repo, "tests/pi-oracle/pi16"));
			assert.ok(existsSync(node24) && pi16, "pi 1.6.0 and Node 24 (scripts/setup all)");
			const piCli = join(pi16.dir, typeof pi16.pkg.bin === "string" ? pi16.pkg.bin : pi16.pkg.bin.pi);
			const work = realpathSync(mkdtempSync(join(tmpdir(), "pi-explorer-e2e-pi-")));
			const env = {
				...process.env,
				PI_CODING_AGENT_DIR: join(work, "agent"),
				PI_SESSION_LINK_DIR: h.linkDir,
				PI_SESSION_BIN: cli,
				PATH: [dirname(node24), "/usr/bin", "/bin"].join(":"),
			};
			delete env.PI_CODING_AGENT_SESSION_DIR;
			const install = spawnSync(node24, [piCli, "install", join(repo, "pi-extension")], { cwd: work, env, encoding: "utf8" });
			assert.equal(install.status, 0, `pi install pi-extension: ${install.stdout}${install.stderr}`);

			// pi opens a session only in a folder that exists: the fixtures' branched session, as
			// a session of its own whose cwd is a real folder (same entries, another id).
			const proj = join(work, "proj");
			mkdirSync(proj);
			const [head, ...rest] = readFileSync(fx.ids.sessionA, "utf8").split("\n");
			const header = { ...JSON.parse(head), id: "0197a3c2-0f0f-7e00-8000-000000009999", cwd: proj };
			const FILE = join(fx.root, cwdFolder(proj), sessionFileName(header.timestamp, header.id));
			mkdirSync(dirname(FILE), { recursive: true });
			writeFileSync(FILE, [JSON.stringify(header), ...rest].join("\n"));
			const pi = new PiRpc(node24, [piCli, "--mode", "rpc", "--session", FILE], { cwd: proj, env });
			const out = join(repo, "docs/screenshots");
			mkdirSync(out, { recursive: true });
			try {
				// pi announces itself in the link folder: `pi-session followers` finds it.
				let found = [];
				await until(() => {
					found = JSON.parse(execFileSync(cli, ["followers", FILE], { env, encoding: "utf8" }));
					return found.length === 1;
				}, "pi announces itself", 20000).catch((e) => {
					throw new Error(`${e.message}; pi said: ${pi.stderr.slice(0, 500)}`);
				});
				const start = found[0].leafId;
				assert.equal(found[0].piVersion, pi16.version);

				// The window as /explore starts it.
				const d = await h.open(["--sessions-dir", fx.root, "--session", FILE, "--select", start]);
				const badge = await d.waitForText("[data-testid=pi-follows]", `pi ${pi16.version} follows`, { timeout: 15000 });
				assert.match(await badge.attr("title"), new RegExp(`pid ${pi.proc.pid}`));
				assert.equal(await d.exec("return document.querySelectorAll('[data-testid=resume-in-pi]').length"), 1, "Resume in pi is offered in the window");
				await sleep(400);
				writeFileSync(join(out, "from-pi.png"), await d.screenshot());
				await h.shot("from-pi");

				// Resume pi here on the first branch's last entry: the leaf line, then the offer in pi.
				const target = fx.ids.branch1Leaf;
				await selectRow(d, target);
				await resumeHere(d);
				const q = await pi.ui("select", 20000);
				assert.ok(q, "the offer arrives in pi as a question");
				assert.match(q.title, new RegExp(`^The explorer moved to '.*' \\(entry ${target}\\): go there\\?$`));
				assert.deepEqual(q.options, ["No summary", "Summarize", "Cancel"]);
				await d.waitFor("[data-testid=pi-follows] .asking", { what: "the badge says the window is asking" });
				pi.answer(q, { value: "No summary" });
				await until(async () => (await toasts(d)).some((t) => t.includes("moved there")), "the window says pi moved", 20000);
				assert.equal((await pi.call("get_entries")).leafId, target, "pi's leaf is the entry");
				await sleep(300);
				writeFileSync(join(out, "from-pi-moved.png"), await d.screenshot());
				await h.shot("from-pi-moved");

				// Fork from here on another entry: pi is asked to switch and says no; it stays.
				const other = fx.ids.branch2Leaf;
				await selectRow(d, other);
				await (await d.waitFor("[data-testid=action-fork]")).click();
				const sw = await pi.ui("select", 20000);
				assert.ok(sw, "the fork is offered to pi");
				assert.match(sw.title, /^The explorer forked '.*' into a new session \(.*\): switch to it\?$/);
				pi.answer(sw, { value: "Cancel" });
				await until(async () => (await toasts(d)).some((t) => t.includes("declined")), "the window says pi declined", 20000);
				assert.equal((await pi.call("get_state")).sessionFile, FILE, "pi is still on its session");
				assert.equal((await pi.call("get_entries")).leafId, target, "and at the same entry");

				// The badge goes when pi does.
				pi.proc.stdin.end();
				await Promise.race([pi.exited, sleep(15000)]);
				await openSession(d, FILE);
				await until(async () => (await d.findAll("[data-testid=pi-follows]")).length === 0, "the badge is gone with pi", 15000);
			} finally {
				if (pi.proc.exitCode === null) pi.proc.kill("SIGKILL");
				rmSync(work, { recursive: true, force: true });
			}
		},
	},
];

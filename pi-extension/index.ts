// pi-session-explorer-link: `/explore` opens Pi Session Explorer on this session at this leaf,
// and a navigate or fork made in the explorer is offered to this pi, which moves there on yes.
// The link (a Unix socket in a private folder, a discovery file per pi) and its protocol:
// docs/pi-link.md of the Pi Session Explorer repository. Everything pi writes to the session
// comes from pi's own API (navigateTree, switchSession); this extension writes no session file.

import { basename } from "node:path";
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { findProgram, openWindow, real, rootOf, serve, urlFor } from "./src/explore.ts";
import { ensurePrivateDir, linkDir, newToken, removeStale } from "./src/folder.ts";
import { Link } from "./src/link.ts";
import { COMMAND, Offers } from "./src/offers.ts";

/** pi's version, from whichever package name this pi maps (pi 1.x, or the 0.x name). */
async function piVersion(): Promise<string> {
	for (const name of ["@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"]) {
		try {
			const m = (await import(name)) as { VERSION?: unknown };
			if (typeof m.VERSION === "string") return m.VERSION;
		} catch {
			// Not this name.
		}
	}
	return "unknown";
}

/** `sendUserMessage` dispatches extension commands from pi 0.84.2 on (`expandPromptTemplates`). */
export function dispatchesCommands(version: string): boolean {
	const [a, b, c] = version.split(/[.-]/).map(Number);
	if ([a, b, c].some((n) => Number.isNaN(n))) return false;
	return a > 0 || b > 84 || (b === 84 && c >= 2);
}

export default function (pi: ExtensionAPI) {
	let ctx: ExtensionContext | null = null;
	let link: Link | null = null;
	let version = "unknown";
	const offers = new Offers({
		ctx: () => ctx,
		dispatch: () => (dispatchesCommands(version) ? (nonce) => pi.sendUserMessage(`/${COMMAND} ${nonce}`, { expandPromptTemplates: true }) : null),
	});

	pi.on("session_start", async (_event, c) => {
		ctx = c;
		version = await piVersion();
		const file = c.sessionManager.getSessionFile();
		// Only a session with a file, and a pi that can ask its user (not -p or --mode json).
		if (!file || !c.hasUI || process.platform === "win32") return;
		const dir = linkDir();
		const now = new Date().toISOString();
		try {
			ensurePrivateDir(dir);
			removeStale(dir);
			const l = new Link(dir, newToken(), {
				state: () => ({
					pid: process.pid,
					piVersion: version,
					sessionFile: real(c.sessionManager.getSessionFile() ?? file),
					leafId: c.sessionManager.getLeafId(),
					cwd: c.sessionManager.getCwd(),
					idle: c.isIdle(),
					movesAtOnce: dispatchesCommands(version),
				}),
				offer: (o, peer) => offers.receive(o, peer),
			});
			await l.start({ piVersion: version, sessionFile: real(file), leafId: c.sessionManager.getLeafId(), cwd: c.sessionManager.getCwd(), startedAt: now, updatedAt: now });
			link = l;
		} catch (e) {
			c.ui.notify(`Pi Session Explorer link off: ${e instanceof Error ? e.message : String(e)}`, "warning");
		}
	});

	const leafMoved = () => {
		if (link && ctx) link.update(ctx.sessionManager.getLeafId());
	};
	pi.on("session_tree", async () => leafMoved());
	pi.on("agent_end", async () => leafMoved());

	pi.on("session_shutdown", async () => {
		offers.shutdown();
		link?.stop(offers.applyingPeers());
		link = null;
		ctx = null;
	});

	pi.registerCommand("explore", {
		description: "Open Pi Session Explorer on this session at the current leaf",
		handler: async (_args, c) => explore(c),
	});

	pi.registerCommand(COMMAND, {
		description: "Apply the move Pi Session Explorer offered (run for you, or prefilled)",
		handler: async (args, c) => offers.command(args, c),
	});
}

async function explore(c: ExtensionCommandContext): Promise<void> {
	const file = c.sessionManager.getSessionFile();
	if (!file) {
		c.ui.notify("This session has no file (--no-session): nothing to explore", "warning");
		return;
	}
	const session = real(file);
	const entry = c.sessionManager.getLeafId();
	const root = rootOf(session);
	const window = findProgram("pi-session-explorer", process.env.PI_SESSION_EXPLORER_BIN);
	if (window) {
		try {
			await openWindow(window, root, session, entry);
			c.ui.notify(`Opened Pi Session Explorer on ${basename(session)}${entry ? ` at ${entry}` : ""}`, "info");
			return;
		} catch (e) {
			c.ui.notify(`Could not start ${window}: ${e instanceof Error ? e.message : String(e)}; trying pi-session serve`, "warning");
		}
	}
	const cli = findProgram("pi-session", process.env.PI_SESSION_BIN);
	if (!cli) {
		c.ui.notify("Pi Session Explorer is not installed: neither pi-session-explorer nor pi-session is on PATH (or set PI_SESSION_EXPLORER_BIN / PI_SESSION_BIN)", "error");
		return;
	}
	try {
		const url = await serve(cli, root);
		c.ui.notify(`Pi Session Explorer: ${urlFor(url, session, entry)}`, "info");
	} catch (e) {
		c.ui.notify(`Could not start pi-session serve: ${e instanceof Error ? e.message : String(e)}`, "error");
	}
}

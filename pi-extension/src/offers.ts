// Offers from the explorer: ask the pi user, then move through pi's own API.
//
// `navigateTree` and `switchSession` exist only on the context of a command handler, and an
// offer arrives on a socket, outside any handler. So the offer becomes a command run:
//   * pi >= 0.84.2: `pi.sendUserMessage("/explore-offer <n>", { expandPromptTemplates: true })`
//     dispatches our own command at once (even during a run); its handler asks and moves.
//   * older pi (0.73.1): sendUserMessage never dispatches commands (the text would go to the
//     model as a user message), so the dialog is shown with the session's context and, on yes,
//     `/explore-offer <n>` is put in the editor: the user's Enter runs the command that moves.
// docs/pi-link.md, "How an offer reaches a command context".

import { realpathSync, statSync } from "node:fs";
import { basename } from "node:path";
import type { ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { IncomingOffer, Peer } from "./link.ts";

export const COMMAND = "explore-offer";

const NAVIGATE = ["No summary", "Summarize", "Cancel"] as const;
const SWITCH = ["Switch", "Cancel"] as const;

interface Pending {
	nonce: string;
	offer: IncomingOffer;
	peer: Peer;
	abort: AbortController;
	/** Set once the user said yes. */
	summarize?: boolean;
	applying: boolean;
	/** Older pi: what the editor held before `/explore-offer N` replaced it (put back after the move). */
	draft?: string;
}

export interface OfferDeps {
	/** The context of the session this instance serves (valid until the session is replaced). */
	ctx: () => ExtensionContext | null;
	/** What starts a run of `/explore-offer <nonce>` now; null when this pi cannot (see above). */
	dispatch: () => ((nonce: string) => void) | null;
}

export class Offers {
	private pending: Pending | null = null;
	private counter = 0;

	constructor(private readonly deps: OfferDeps) {}

	/** The peer of an offer being applied (kept open across a session switch). */
	applyingPeers(): Set<Peer> {
		return new Set(this.pending?.applying ? [this.pending.peer] : []);
	}

	/** The session ends: an offer not yet applied is answered `failed`. */
	shutdown(): void {
		const p = this.pending;
		if (!p || p.applying) return;
		this.finish(p, { answer: "failed", message: "pi left the session" });
		p.abort.abort();
	}

	receive(o: IncomingOffer, peer: Peer): void {
		const ctx = this.deps.ctx();
		if (!ctx) return peer.fail("busy", "pi has no session now");
		const sm = ctx.sessionManager;
		const here = sm.getSessionFile();
		if (!here || !sameFile(here, o.offer.sessionFile)) {
			return answer(peer, o, { answer: "failed", message: `pi is on ${here ?? "no session file"}, not ${o.offer.sessionFile}` });
		}
		if (o.offer.kind === "navigate") {
			if (!sm.getEntry(o.offer.entryId)) return answer(peer, o, { answer: "failed", message: `entry ${o.offer.entryId} is not in pi's session` });
			if (sm.getLeafId() === o.offer.entryId) return answer(peer, o, { answer: "accepted", summarize: false, sessionFile: here, leafId: o.offer.entryId });
		} else {
			if (!isFile(o.offer.target)) return answer(peer, o, { answer: "failed", message: `${o.offer.target} is not a file` });
			if (sameFile(o.offer.target, here)) return answer(peer, o, { answer: "accepted", summarize: false, sessionFile: here, leafId: sm.getLeafId() });
		}
		const old = this.pending;
		if (old?.applying) return answer(peer, o, { answer: "failed", message: "pi is moving for an earlier offer" });
		if (old) {
			this.finish(old, { answer: "superseded" });
			old.abort.abort();
		}
		const p: Pending = { nonce: String(++this.counter), offer: o, peer, abort: new AbortController(), applying: false };
		this.pending = p;
		// The explorer stopped waiting: the question goes away.
		peer.onClose(() => {
			if (this.pending === p && p.summarize === undefined) {
				this.pending = null;
				p.abort.abort();
			}
		});
		const dispatch = this.deps.dispatch();
		if (dispatch) {
			dispatch(p.nonce);
		} else {
			void this.askThenPrefill(p, ctx);
		}
	}

	/** The handler of `/explore-offer <nonce>`. */
	async command(args: string, ctx: ExtensionCommandContext): Promise<void> {
		const p = this.pending;
		if (!p || p.nonce !== args.trim()) {
			ctx.ui.notify("No offer from the explorer is waiting", "info");
			return;
		}
		if (p.summarize === undefined && !(await this.ask(p, ctx))) return;
		await this.apply(p, ctx);
	}

	/** Older pi: ask now, with the session's context; on yes the user's Enter runs the command. */
	private async askThenPrefill(p: Pending, ctx: ExtensionContext): Promise<void> {
		if (!(await this.ask(p, ctx))) return;
		p.draft = ctx.ui.getEditorText();
		ctx.ui.setEditorText(`/${COMMAND} ${p.nonce}`);
		ctx.ui.notify("Press Enter to move (this pi moves only from a command)", "info");
	}

	/** Shows the question; true when the user said yes (then `decided` went out). */
	private async ask(p: Pending, ctx: ExtensionContext): Promise<boolean> {
		const o = p.offer.offer;
		const busy = ctx.isIdle() ? "" : " (pi stops its current run first)";
		const title =
			o.kind === "navigate"
				? `The explorer moved to '${clean(o.title) || o.entryId}' (entry ${clean(o.entryId)}): go there?${busy}`
				: `The explorer forked${o.title ? ` '${clean(o.title)}'` : ""} into a new session (${clean(basename(o.target))}): switch to it?${busy}`;
		const options = o.kind === "navigate" ? [...NAVIGATE] : [...SWITCH];
		const started = Date.now();
		let choice: string | undefined;
		try {
			choice = await ctx.ui.select(title, options, { signal: p.abort.signal, timeout: p.offer.timeoutMs });
		} catch {
			choice = undefined;
		}
		if (this.pending !== p || p.abort.signal.aborted) return false;
		if (choice === undefined || choice === "Cancel") {
			const timedOut = choice === undefined && Date.now() - started >= p.offer.timeoutMs - 50;
			this.finish(p, { answer: timedOut ? "timeout" : "declined" });
			return false;
		}
		p.summarize = choice === "Summarize";
		p.peer.send({ type: "decided", id: p.offer.id, summarize: p.summarize });
		return true;
	}

	private async apply(p: Pending, ctx: ExtensionCommandContext): Promise<void> {
		const o = p.offer.offer;
		p.applying = true;
		try {
			if (!ctx.isIdle()) {
				// As pi's own /tree does once the user committed: stop the run first.
				ctx.abort();
				await ctx.waitForIdle();
			}
			if (o.kind === "navigate") {
				const r = await ctx.navigateTree(o.entryId, { summarize: p.summarize });
				restoreDraft(p, ctx);
				if (r.cancelled) return this.finish(p, { answer: "failed", message: "cancelled (by pi or another extension)" });
				this.finish(p, { answer: "accepted", summarize: p.summarize, sessionFile: ctx.sessionManager.getSessionFile(), leafId: ctx.sessionManager.getLeafId() });
			} else {
				let now: { sessionFile?: string; leafId: string | null } | null = null;
				const r = await ctx.switchSession(o.target, {
					withSession: async (fresh) => {
						now = { sessionFile: fresh.sessionManager.getSessionFile(), leafId: fresh.sessionManager.getLeafId() };
						restoreDraft(p, fresh);
					},
				});
				if (r.cancelled || !now) return this.finish(p, { answer: "failed", message: "cancelled (by pi or another extension)" });
				this.finish(p, { answer: "accepted", summarize: false, ...(now as object) });
			}
		} catch (e) {
			this.finish(p, { answer: "failed", message: e instanceof Error ? e.message : String(e) });
		}
	}

	private finish(p: Pending, msg: Record<string, unknown>): void {
		if (this.pending === p) this.pending = null;
		answer(p.peer, p.offer, msg);
	}
}

/** Puts the user's draft back, unless pi filled the editor itself (a move to a user message does). */
function restoreDraft(p: Pending, ctx: ExtensionContext): void {
	if (p.draft?.trim() && !ctx.ui.getEditorText().trim()) ctx.ui.setEditorText(p.draft);
	p.draft = undefined;
}

function answer(peer: Peer, o: IncomingOffer, msg: Record<string, unknown>): void {
	peer.send({ type: "answer", id: o.id, ...msg });
	peer.close();
}

/** Text from the explorer (session content) shown in pi's terminal: no control characters. */
export function clean(s: string | undefined): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
	return (s ?? "").replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim().slice(0, 80);
}

function sameFile(a: string, b: string): boolean {
	const real = (p: string) => {
		try {
			return realpathSync(p);
		} catch {
			return p;
		}
	};
	return real(a) === real(b);
}

function isFile(p: string): boolean {
	try {
		return statSync(p).isFile();
	} catch {
		return false;
	}
}

// The window's side of the link with running pis (docs/pi-link.md): which pis follow the open
// session (asked of the core every few seconds while the page is visible), offering them a move
// made here (a navigate or a fork: the pi user is asked, pi moves itself), and Resume in pi (a
// terminal running pi on the session, the window's only).

import type { Backend } from "../../lib/backend";
import { ApiError } from "../../lib/backend";
import type { Follower } from "../../lib/bindings/Follower";
import type { PiAnswer } from "../../lib/bindings/PiAnswer";
import type { ChromeState } from "../../lib/state/chrome.svelte";
import { copyText } from "../../lib/clipboard";

/** How often the followers of the open session are asked for. */
export const FOLLOW_POLL_MS = 4000;

/** A move made in the explorer that a pi on the session may follow. */
export type Move = { path: string; entryId: string; title?: string } | { path: string; forkPath: string };

/** What one pi's answer means to the user, one line. */
export function answerText(a: PiAnswer): { kind: "success" | "info" | "warning" | "error"; text: string } {
  const who = `pi ${a.piVersion} (pid ${a.pid})`;
  if (a.error) return { kind: "error", text: `${who} could not be asked: ${a.error.message}` };
  const ans = a.answer;
  switch (ans?.answer) {
    case "accepted":
      return ans.moved
        ? { kind: "success", text: `${who} moved there${ans.summarize ? ", with a summary of the branch left" : ""}` }
        : { kind: "info", text: `${who} said yes; it moves when its summary is written (or its Enter is pressed)` };
    case "declined":
      return { kind: "info", text: `${who} stays where it is (declined)` };
    case "timed-out":
      return { kind: "info", text: `${who} did not answer; it stays where it is` };
    case "superseded":
      return { kind: "info", text: `${who}: a newer offer replaced this one` };
    case "failed":
      return { kind: "warning", text: `${who} could not move: ${ans.message}` };
    default:
      return { kind: "warning", text: `${who}: no answer` };
  }
}

export class PiLinkState {
  /** The pis on the open session (empty: none, or no pi runs the link extension). */
  followers = $state.raw<Follower[]>([]);
  /** The session they were asked for. */
  path = $state<string | null>(null);
  /** Offers waiting for a pi user's answer. */
  asking = $state(0);
  private timer: ReturnType<typeof setInterval> | null = null;
  private seq = 0;

  constructor(
    private backend: Backend,
    private chrome: ChromeState,
    /** Resume in pi opens a terminal: the window's only. */
    readonly canResume: boolean,
  ) {}

  /** Follows `path` (null: none): asks now, then every FOLLOW_POLL_MS while the page is visible. */
  follow(path: string | null) {
    if (path === this.path) return;
    this.path = path;
    this.followers = [];
    this.stop();
    if (!path) return;
    void this.refresh();
    this.timer = setInterval(() => {
      if (typeof document === "undefined" || document.visibilityState !== "hidden") void this.refresh();
    }, FOLLOW_POLL_MS);
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Asks the core which pis follow the open session now. */
  async refresh() {
    const path = this.path;
    if (!path) return;
    const n = ++this.seq;
    try {
      const f = await this.backend.piFollowers(path);
      if (n === this.seq && path === this.path) this.followers = f;
    } catch {
      // The file went, or the link folder is unreadable: nobody follows.
      if (n === this.seq && path === this.path) this.followers = [];
    }
  }

  /** After a navigate or a fork made here: when a pi follows the session, offers it the move. */
  async offer(move: Move) {
    if (move.path !== this.path || this.followers.length === 0 || this.chrome.info?.readOnly) return;
    const what = "entryId" in move ? `entry ${move.entryId}` : "the new fork";
    const pis = this.followers.length === 1 ? "the pi on this session" : `the ${this.followers.length} pis on this session`;
    this.chrome.toasts.show("info", `Asked ${pis} to go to ${what}: its user answers in pi`);
    this.asking++;
    try {
      const answers = await this.backend.offerToPi(move.path, "entryId" in move ? move.entryId : null, "forkPath" in move ? move.forkPath : null, null);
      for (const a of answers) {
        const t = answerText(a);
        this.chrome.toasts.show(t.kind, t.text);
      }
    } catch (e) {
      this.chrome.toasts.show("error", `Could not ask pi: ${ApiError.from(e).message}`);
    } finally {
      this.asking--;
      void this.refresh();
    }
  }

  /** Resume in pi: a terminal running pi on the session; without one, the command is copied. */
  async resume(path: string) {
    try {
      const r = await this.backend.resumeInPi(path);
      if (r.terminal) {
        this.chrome.toasts.rich("success", `Opened ${r.terminal} running pi on this session`, { code: r.command, ms: 6000 });
      } else {
        await copyText(r.command);
        this.chrome.toasts.rich("warning", "No terminal found ($TERMINAL, x-terminal-emulator): the command is copied", { code: r.command });
      }
    } catch (e) {
      this.chrome.toasts.show("error", `Could not resume in pi: ${ApiError.from(e).message}`);
    }
  }
}

// The app: its stores by feature, made once per window and handed to the views through Svelte
// context, the start, and the backend's live events.
//
//   chrome     the frame: app info and the read-only switch, panes, toasts, dialogs, theme, focus
//   session    the listing and the open session: its row, its tree and how it is laid out
//   selection  the selected entry or row (the inspector's subject), picks, marks, a comparison
//   writes     appended lines with their toasts, and the history that undoes them
//
// Views take the stores they use (`getSession()`, …); tests construct an AppState on a
// RecordedBackend.

import { getContext, setContext, tick } from "svelte";
import { perfHook } from "../perf";
import type { Backend, Unsubscribe } from "../backend";
import type { AppInfo } from "../bindings/AppInfo";
import type { SessionList } from "../bindings/SessionList";
import { mostRecent } from "../../features/journeys/writeText";
import { ChromeState } from "./chrome.svelte";
import { SessionState } from "./session.svelte";
import { SelectionState } from "./selection.svelte";
import { WritesState } from "./writes.svelte";
import { PiLinkState } from "../../features/pilink/pilink.svelte";
import { isTauri } from "../backend";

export type { CenterTab, InspectorTab } from "./chrome.svelte";
export type { Selection } from "./selection.svelte";
export { FILTERS } from "./session.svelte";

/** Sessions in the first listing of a start (the rest follow at once). */
export const FIRST_SCREEN = 300;

/** Requests sent before the components mount. */
export interface Boot {
  info: Promise<AppInfo>;
  list: Promise<SessionList>;
  /** The session (and entry) to open first, named in the page's URL (`#session=…&entry=…`). */
  start?: StartAt | null;
}

/** A session to open at start, and the entry to select in it (null: its leaf). */
export interface StartAt {
  session: string;
  entry: string | null;
}

/** `session` and `entry` of a URL fragment (`#token=…&session=…&entry=…`), as `/explore` opens it. */
export function startFromHash(hash: string): StartAt | null {
  const h = new URLSearchParams(hash.replace(/^#/, ""));
  const session = h.get("session");
  return session ? { session, entry: h.get("entry") || null } : null;
}

export class AppState {
  readonly chrome: ChromeState;
  readonly session: SessionState;
  readonly selection: SelectionState;
  readonly writes: WritesState;
  /** The running pis that follow the open session (docs/pi-link.md). */
  readonly pilink: PiLinkState;
  private unsubs: Unsubscribe[] = [];

  constructor(readonly backend: Backend) {
    this.chrome = new ChromeState(backend);
    this.session = new SessionState(backend, this.chrome);
    this.selection = new SelectionState(this.session, this.chrome);
    this.writes = new WritesState(this.session, this.selection, this.chrome);
    this.pilink = new PiLinkState(backend, this.chrome, isTauri());
    this.unsubs.push(this.writes.moved.on((m) => void this.pilink.offer(m)));
  }

  /** Starts the app; `boot` holds the first requests when they were sent before mounting. */
  async init(boot?: Boot): Promise<void> {
    const { chrome, session } = this;
    this.unsubs.push(this.backend.onRootChanged((e) => session.onRootChanged(e)));
    this.unsubs.push(this.backend.onIndexProgress((p) => session.onIndexProgress(p)));
    const marks = perfHook().marks;
    marks.initAt = performance.now();
    const infoP = boot?.info ?? this.backend.appInfo();
    const listP = boot?.list ?? this.backend.listSessions(FIRST_SCREEN);
    // Starting on the fork graph: fetch it alongside the list.
    void infoP.then(
      (i) => {
        if (i.initialView === "forks" && !session.forkGraph) void session.loadForkGraph();
      },
      () => {},
    );
    let info: AppInfo;
    let list: SessionList;
    try {
      [info, list] = await Promise.all([infoP, listP]);
      chrome.info = info;
      session.list = list;
      marks.listAt = performance.now();
    } catch (e) {
      chrome.error(e, "Could not read the sessions");
      return;
    }
    const view = info.initialView;
    if (view === "forks" || view === "transcript" || view === "tree") chrome.centerTab = view;
    // The list is painted first; the rest of the listing and the first session follow (a
    // hidden window draws no frames: then after 100 ms).
    await tick();
    await new Promise<void>((painted) => {
      requestAnimationFrame(() => {
        const hook = perfHook();
        if (!hook.firstSessionsAt) hook.firstSessionsAt = performance.now();
        painted();
      });
      setTimeout(painted, 100);
    });
    if (list.limited) void session.refreshList();
    const first = mostRecent(list.sessions);
    // Named at start (the page's URL, or the window's --session/--select): that one, else the most recent.
    const start = boot?.start ?? (info.initialSession ? { session: info.initialSession, entry: info.initialEntry ?? null } : null);
    if (start) {
      await session.open(start.session, { select: start.entry });
      if (session.tree.error && first && first.path !== start.session) {
        chrome.toasts.show("error", `Could not open ${start.session}: ${session.tree.error}`);
        await session.open(first.path);
      }
    } else if (first) await session.open(first.path);
    // The keyboard starts in the tree (pi's /tree keys work at once).
    void chrome.focusTree.emit();
  }

  dispose() {
    this.pilink.stop();
    for (const u of this.unsubs) u();
    this.unsubs = [];
  }
}

// ---------------------------------------------------------------- context

const KEY = Symbol("pi-explorer-app");

/** Hands the app's stores to the views below (App.svelte, and the tests' harness). */
export function setApp(app: AppState) {
  setContext(KEY, app);
}

function app(): AppState {
  const a = getContext<AppState | undefined>(KEY);
  if (!a) throw new Error("AppState missing from context");
  return a;
}

export const getApp = app;
export const getBackend = (): Backend => app().backend;
export const getChrome = (): ChromeState => app().chrome;
export const getSession = (): SessionState => app().session;
/** The app's selection store (not the DOM's text selection). */
export const getSelection = (): SelectionState => app().selection;
export const getWrites = (): WritesState => app().writes;
export const getPiLink = (): PiLinkState => app().pilink;

// The frame around the sessions: what the backend says the app looks at (roots, the read-only
// switch, the demo banner), the panes (their widths, which view each shows), toasts, the keys
// dialog, the theme, and requests for the keyboard focus.

import { ApiError, type Backend } from "../backend";
import type { AppInfo } from "../bindings/AppInfo";
import { Topic } from "./events";
import { theme } from "./theme.svelte";
import { Toasts } from "./toasts.svelte";

export type CenterTab = "tree" | "forks" | "transcript" | "context" | "audit" | "compare" | "dashboard";
export type InspectorTab = "content" | "context";

/** An export the user asked for: the session, the path's leaf (null: the session's), all branches, the format. */
export interface ExportAsk {
  path: string;
  leafId: string | null;
  tree: boolean;
  format: "html" | "md";
}

/** Widths of the side panes (px): resizable, remembered in this window's storage. */
export class Panes {
  #side = $state(0);
  #inspector = $state(0);

  constructor() {
    const narrow = typeof window !== "undefined" && window.innerWidth < 1400;
    this.#side = stored("pi-explorer.sideW", narrow ? 340 : 360);
    this.#inspector = stored("pi-explorer.inspW", narrow ? 320 : 380);
  }

  /** The session list. */
  get side(): number {
    return this.#side;
  }
  set side(w: number) {
    this.#side = w;
    store("pi-explorer.sideW", w);
  }

  /** The inspector. */
  get inspector(): number {
    return this.#inspector;
  }
  set inspector(w: number) {
    this.#inspector = w;
    store("pi-explorer.inspW", w);
  }
}

function stored(key: string, fallback: number): number {
  const v = Number(typeof localStorage !== "undefined" ? localStorage.getItem(key) : NaN);
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

function store(key: string, w: number) {
  if (typeof localStorage !== "undefined") localStorage.setItem(key, String(w));
}

export class ChromeState {
  readonly toasts = new Toasts();
  readonly theme = theme;
  readonly panes = new Panes();

  /** The backend's answer on what the app is looking at (null before the first). */
  info = $state<AppInfo | null>(null);
  centerTab = $state<CenterTab>("tree");
  /** A message of the context at `leafId` for the Context view to bring up, expanded (asked by
   *  the inspector's card). */
  contextFocus = $state<{ leafId: string; index: number } | null>(null);
  inspectorTab = $state<InspectorTab>("content");
  /** The keyboard help overlay (`?`). */
  helpOpen = $state(false);
  /** The panel of the lines this window wrote (`H`). */
  historyOpen = $state(false);
  /** The export dialog: what to export and where (null: closed). */
  exportAsk = $state<ExportAsk | null>(null);

  /** Give the keyboard focus back to the tree (after a dialog, a toast, a write). */
  readonly focusTree = new Topic();
  /** Focus the tree toolbar's find box (`/` in the tree). */
  readonly focusFind = new Topic();
  /** Open the inspector's label editor (`l` in the tree). */
  readonly editLabel = new Topic();
  /** Ask to resume pi at the selected entry (`R`): the inspector confirms, saying what pi will do. */
  readonly resumeHere = new Topic();
  /** Move the keyboard focus into the newest toast that offers a choice (`t`, F6). */
  readonly focusToasts = new Topic();

  constructor(readonly backend: Backend) {}

  /** Whether a dialog of the app has the keyboard (the app's own keys wait). */
  get exportOpen(): boolean {
    return this.exportAsk !== null;
  }

  /** Read-only mode: nothing is written to the session files. */
  get readOnly(): boolean {
    return this.info?.readOnly ?? false;
  }

  async setReadOnly(on: boolean) {
    try {
      this.info = await this.backend.setReadOnly(on);
    } catch (e) {
      this.error(e, "Could not change read-only mode");
    }
  }

  /** An error toast for a failed command. */
  error(e: unknown, prefix?: string) {
    const err = ApiError.from(e);
    this.toasts.show("error", prefix ? `${prefix}: ${err.message}` : err.message, err.code);
  }
}

// The app's shared state: what is open, what is selected, and the actions that change them.
// Views read it through `getApp()` (Svelte context); tests construct it with the fake backend.

import { getContext, setContext, tick } from "svelte";
import { perfHook } from "../perf";
import { ApiError, type Backend, type Unsubscribe } from "../backend";
import type { AppInfo } from "../bindings/AppInfo";
import type { ForkGraph } from "../bindings/ForkGraph";
import type { ForkPosition } from "../bindings/ForkPosition";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { RootChanged } from "../bindings/RootChanged";
import type { SessionList } from "../bindings/SessionList";
import type { SessionRow } from "../bindings/SessionRow";
import type { TreeFilter } from "../bindings/TreeFilter";
import type { TreeQuery } from "../bindings/TreeQuery";
import type { TreeRow } from "../bindings/TreeRow";
import type { WriteResult } from "../bindings/WriteResult";
import { TreeData } from "../../features/tree/treeData.svelte";
import { Toasts } from "./toasts.svelte";

export type CenterTab = "tree" | "forks" | "transcript" | "dashboard";

/** Sessions in the first listing of a start (the rest follow at once). */
export const FIRST_SCREEN = 300;

/** Requests sent before the components mount. */
export interface Boot {
  info: Promise<AppInfo>;
  list: Promise<SessionList>;
}
export type InspectorTab = "content" | "context";

/** The selected node: an entry of a session file (in a unified view, possibly a fork's file). */
export interface Selection {
  path: string;
  id: string;
  /** The selected tree row is a fold row standing for entries starting at `id`. */
  fold?: boolean;
}

export const FILTERS: TreeFilter[] = ["default", "user-only", "labeled", "all"];

const KEY = Symbol("pi-explorer-app");

export function setApp(app: AppState) {
  setContext(KEY, app);
}

export function getApp(): AppState {
  const app = getContext<AppState | undefined>(KEY);
  if (!app) throw new Error("AppState missing from context");
  return app;
}

export class AppState {
  readonly toasts = new Toasts();
  readonly tree: TreeData;

  info = $state<AppInfo | null>(null);
  // Replaced whole, never changed in place: no deep proxy over thousands of rows.
  list = $state.raw<SessionList | null>(null);
  forkGraph = $state<ForkGraph | null>(null);
  openPath = $state<string | null>(null);
  query = $state<TreeQuery | null>(null);
  selection = $state<Selection | null>(null);
  /** Row of the selection in the current tree layout, when known. */
  selectedRow = $state<number | null>(null);
  /** A request for the tree view to bring a row into view. */
  reveal = $state<{ row: number; nonce: number } | null>(null);
  /** Bumped when the transcript must be fetched again. */
  transcriptEpoch = $state(0);
  /** Bumped when the inspector must fetch the selected entry again. */
  detailEpoch = $state(0);
  centerTab = $state<CenterTab>("tree");
  inspectorTab = $state<InspectorTab>("content");
  lastUpdate = $state(Date.now());
  indexProgress = $state<IndexProgress | null>(null);
  /** Bumped to ask the tree toolbar to focus its find box. */
  focusFind = $state(0);
  /** Ids matched by "find in session" (highlighted in the tree). */
  findIds = $state<Set<string>>(new Set());
  busy = $state(false);
  /** Transcript entries picked for "Copy as Markdown" (shift-click ranges), in path order. */
  transcriptPicked = $state<string[]>([]);

  private unsubs: Unsubscribe[] = [];
  private listTimer: ReturnType<typeof setTimeout> | null = null;
  private nonce = 0;

  constructor(readonly backend: Backend) {
    this.tree = new TreeData(backend, () => this.query);
  }

  // ---------------------------------------------------------------- derived

  get openRow(): SessionRow | null {
    const p = this.openPath;
    return this.list?.sessions.find((s) => s.path === p) ?? null;
  }

  get readOnlyMode(): boolean {
    return this.info?.readOnly ?? false;
  }

  /** Why writes to `path` are impossible (null when they are possible). */
  writeBlock(path: string | null | undefined = this.selection?.path ?? this.openPath): string | null {
    if (this.readOnlyMode) return "Read-only mode is on: nothing is written";
    const row = this.list?.sessions.find((s) => s.path === path);
    if (row?.readOnly) return `This file is read-only (${row.readOnly})`;
    return null;
  }

  // ---------------------------------------------------------------- lifecycle

  /** Starts the app; `boot` holds the first requests when they were sent before mounting. */
  async init(boot?: Boot): Promise<void> {
    this.unsubs.push(this.backend.onRootChanged((e) => this.onRootChanged(e)));
    this.unsubs.push(
      this.backend.onIndexProgress((p) => {
        this.indexProgress = p;
        if (p.done >= p.total) this.scheduleListRefresh(0);
        else if (!this.listTimer) this.scheduleListRefresh(1000);
      }),
    );
    const marks = perfHook().marks;
    marks.initAt = performance.now();
    const infoP = boot?.info ?? this.backend.appInfo();
    const listP = boot?.list ?? this.backend.listSessions(FIRST_SCREEN);
    // Starting on the fork graph: fetch it alongside the list.
    void infoP.then(
      (i) => {
        if (i.initialView === "forks" && !this.forkGraph) void this.loadForkGraph();
      },
      () => {},
    );
    try {
      [this.info, this.list] = await Promise.all([infoP, listP]);
      marks.listAt = performance.now();
    } catch (e) {
      this.error(e, "Could not read the sessions");
      return;
    }
    const view = this.info.initialView;
    if (view === "forks" || view === "transcript" || view === "tree") this.centerTab = view;
    void tick().then(() => {
      const hook = perfHook();
      if (!hook.firstSessionsAt) requestAnimationFrame(() => (hook.firstSessionsAt = performance.now()));
    });
    if (this.list.limited) void this.refreshList();
    const first = this.list.sessions[0];
    if (first) await this.openSession(first.path);
  }

  dispose() {
    for (const u of this.unsubs) u();
    this.unsubs = [];
  }

  error(e: unknown, prefix?: string) {
    const err = ApiError.from(e);
    this.toasts.show("error", prefix ? `${prefix}: ${err.message}` : err.message, err.code);
  }

  async refreshList() {
    try {
      this.list = await this.backend.listSessions();
      if (this.forkGraph || this.centerTab === "forks") this.forkGraph = await this.backend.forkGraph();
    } catch (e) {
      this.error(e, "Could not list the sessions");
    }
  }

  private scheduleListRefresh(ms = 150) {
    if (this.listTimer) clearTimeout(this.listTimer);
    this.listTimer = setTimeout(() => {
      this.listTimer = null;
      void this.refreshList();
    }, ms);
  }

  async loadForkGraph() {
    try {
      const t0 = performance.now();
      const g = await this.backend.forkGraph();
      perfHook().marks.forkGraphFetched = performance.now() - t0;
      this.forkGraph = g;
    } catch (e) {
      this.error(e, "Could not build the fork graph");
    }
  }

  // ---------------------------------------------------------------- opening and selecting

  async openSession(path: string, opts: { select?: string | null; tab?: CenterTab } = {}) {
    if (opts.tab) this.centerTab = opts.tab;
    if (path !== this.openPath) {
      this.openPath = path;
      this.query = { path, filter: "default", expanded: [], collapsed: [], unified: false };
      this.selection = null;
      this.selectedRow = null;
      this.findIds = new Set();
      this.transcriptPicked = [];
      this.tree.clear();
      this.transcriptEpoch++;
      await this.tree.reload({ start: 0, end: 60 });
    }
    const meta = this.tree.meta;
    if (opts.select) {
      await this.selectEntry(path, opts.select);
    } else if (!this.selection && meta) {
      const row = meta.leafRow ?? (meta.totalRows > 0 ? meta.totalRows - 1 : null);
      if (row !== null) await this.selectRow(row);
    }
  }

  /** Selects tree row `i` (loading it if needed). */
  async selectRow(i: number, opts: { reveal?: boolean } = { reveal: true }) {
    const total = this.tree.total;
    if (total === 0) return;
    i = Math.max(0, Math.min(total - 1, i));
    let r = this.tree.row(i);
    if (!r) {
      await this.tree.ensure({ start: i, end: i + 1 }, false);
      r = this.tree.row(i);
    }
    if (!r) return;
    this.selectedRow = i;
    this.selection = { path: this.sessionOf(r), id: r.id, fold: r.type === "fold" };
    if (opts.reveal !== false) this.revealRow(i);
  }

  sessionOf(r: TreeRow): string {
    return this.tree.meta?.sessions[r.session] ?? this.openPath ?? "";
  }

  revealRow(row: number) {
    this.reveal = { row, nonce: ++this.nonce };
  }

  /**
   * Selects an entry by id (from the transcript, the context view, search…): finds its row in the
   * tree, opening folds that hide it, and scrolls there.
   */
  async selectEntry(path: string, id: string, opts: { reveal?: boolean } = {}) {
    this.selection = { path, id };
    this.selectedRow = null;
    const q = this.query;
    const meta = this.tree.meta;
    if (!q || !meta || !meta.sessions.includes(path)) return;
    try {
      let res = await this.backend.locateRow(q, id);
      if (res.row === null && q.filter !== "default" && q.filter !== "all") {
        res = await this.backend.locateRow({ ...q, filter: "default" }, id);
      }
      if (this.selection?.id !== id) return;
      if (!sameQuery(res.query, q)) {
        this.query = res.query;
        await this.tree.reload(res.row !== null ? around(res.row) : undefined);
      }
      if (res.row !== null) {
        this.selectedRow = res.row;
        if (opts.reveal !== false) this.revealRow(res.row);
      }
    } catch (e) {
      this.error(e);
    }
  }

  /** After the layout changed: find the selected entry's row again (without opening folds). */
  private async relocateSelection(scroll: boolean) {
    const sel = this.selection;
    const q = this.query;
    if (!sel || !q) return;
    try {
      const res = await this.backend.locateRow(q, sel.id);
      if (this.selection !== sel) return;
      if (res.row === null) {
        this.selectedRow = null;
        return;
      }
      if (!sameQuery(res.query, q)) {
        // Hidden in a fold: select the fold row instead of opening it.
        const r = await this.tree.findRow(-1, 1, (x) => x.type === "fold" && x.fold !== null && res.query.expanded.includes(x.fold.id) && !q.expanded.includes(x.fold.id));
        this.selectedRow = r;
        if (r !== null && scroll) this.revealRow(r);
        return;
      }
      this.selectedRow = res.row;
      if (scroll) this.revealRow(res.row);
    } catch {
      this.selectedRow = null;
    }
  }

  // ---------------------------------------------------------------- tree query

  private async setQuery(q: TreeQuery, keepSelection = true) {
    this.query = q;
    await this.tree.reload();
    if (keepSelection) await this.relocateSelection(true);
  }

  async setFilter(filter: TreeFilter) {
    if (!this.query || this.query.filter === filter) return;
    await this.setQuery({ ...this.query, filter, expanded: [] });
  }

  async cycleFilter() {
    if (!this.query) return;
    const i = FILTERS.indexOf(this.query.filter);
    await this.setFilter(FILTERS[(i + 1) % FILTERS.length]);
  }

  async setUnified(on: boolean) {
    if (!this.query || this.query.unified === on) return;
    await this.setQuery({ ...this.query, unified: on });
  }

  /** Opens a fold row (its entries become rows). */
  async expandFold(foldId: string) {
    if (!this.query || this.query.expanded.includes(foldId)) return;
    await this.setQuery({ ...this.query, expanded: [...this.query.expanded, foldId] }, false);
  }

  /** Closes an opened fold again and selects the fold row. */
  async refold(foldId: string) {
    if (!this.query) return;
    await this.setQuery({ ...this.query, expanded: this.query.expanded.filter((x) => x !== foldId) }, false);
    const r = await this.tree.findRow(-1, 1, (x) => x.type === "fold" && x.fold?.id === foldId);
    if (r !== null) await this.selectRow(r);
  }

  /** Collapses or expands the subtree below an entry. */
  async toggleCollapse(id: string) {
    if (!this.query) return;
    const c = this.query.collapsed.includes(id) ? this.query.collapsed.filter((x) => x !== id) : [...this.query.collapsed, id];
    await this.setQuery({ ...this.query, collapsed: c });
  }

  // ---------------------------------------------------------------- writes

  private async afterWrite(path: string, res: WriteResult | null) {
    if (res?.warning) this.toasts.show("warning", res.warning);
    await this.refreshOpen([path]);
    this.scheduleListRefresh(0);
  }

  /** Fetches the open session again (keeping scroll and selection) when one of `paths` is in it. */
  private async refreshOpen(paths: string[]) {
    const meta = this.tree.meta;
    const mine = meta ? meta.sessions : this.openPath ? [this.openPath] : [];
    if (!paths.some((p) => mine.includes(p))) return;
    await this.tree.reload();
    await this.relocateSelection(false);
    this.transcriptEpoch++;
    this.detailEpoch++;
    this.lastUpdate = Date.now();
  }

  async navigateHere(path: string, id: string) {
    try {
      const res = await this.backend.navigate(path, id);
      this.toasts.show("success", "Leaf moved here");
      await this.afterWrite(path, res);
    } catch (e) {
      this.error(e, "Navigate failed");
    }
  }

  async setLabel(path: string, id: string, label: string | null) {
    try {
      const res = await this.backend.setLabel(path, id, label && label.trim() !== "" ? label.trim() : null);
      this.toasts.show("success", label ? `Labeled “${label.trim()}”` : "Label cleared");
      await this.afterWrite(path, res);
    } catch (e) {
      this.error(e, "Label failed");
    }
  }

  async fork(path: string, id: string, position: ForkPosition) {
    try {
      const res = await this.backend.forkSession(path, id, position);
      this.toasts.show("success", "Forked into a new session");
      await this.refreshList();
      await this.openSession(res.file, { select: res.leafId ?? undefined });
    } catch (e) {
      this.error(e, "Fork failed");
    }
  }

  /** Steps the transcript to a sibling branch. */
  async switchBranch(toId: string): Promise<string | null> {
    const path = this.openPath;
    if (!path) return null;
    try {
      const res = await this.backend.switchBranch(path, toId);
      if (res.note) this.toasts.show("info", res.note);
      if (res.write?.warning) this.toasts.show("warning", res.write.warning);
      await this.refreshOpen([path]);
      this.scheduleListRefresh(0);
      return res.leafId;
    } catch (e) {
      this.error(e, "Switching branch failed");
      return null;
    }
  }

  async setReadOnly(on: boolean) {
    try {
      this.info = await this.backend.setReadOnly(on);
    } catch (e) {
      this.error(e, "Could not change read-only mode");
    }
  }

  // ---------------------------------------------------------------- live

  private onRootChanged(e: RootChanged) {
    if (e.added.length || e.removed.length || e.changed.length) this.scheduleListRefresh();
    this.lastUpdate = Date.now();
    if (this.openPath && e.removed.includes(this.openPath)) {
      this.toasts.show("warning", "The open session file was removed");
      return;
    }
    if (e.changed.length) void this.refreshOpen(e.changed);
  }
}

function sameQuery(a: TreeQuery, b: TreeQuery): boolean {
  return (
    a.path === b.path &&
    a.filter === b.filter &&
    a.unified === b.unified &&
    a.expanded.length === b.expanded.length &&
    a.collapsed.length === b.collapsed.length &&
    a.expanded.every((x, i) => b.expanded[i] === x) &&
    a.collapsed.every((x, i) => b.collapsed[i] === x)
  );
}

function around(row: number) {
  return { start: Math.max(0, row - 40), end: row + 60 };
}

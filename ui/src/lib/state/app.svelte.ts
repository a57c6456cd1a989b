// The app's shared state: what is open, what is selected, and the actions that change them.
// Views read it through `getApp()` (Svelte context); tests construct it with a RecordedBackend.

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
import type { BranchDiff } from "../bindings/BranchDiff";
import { TreeData } from "../../features/tree/treeData.svelte";
import { Toasts } from "./toasts.svelte";
import { ROW_H } from "../../features/tree/lanes";
import { baseName, describeLine, mostRecent, resumeCommand } from "../../features/journeys/writeText";
import { copyText } from "../clipboard";

export type CenterTab = "tree" | "forks" | "transcript" | "audit" | "compare" | "dashboard";

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
  reveal = $state<{ row: number; nonce: number; offset?: number } | null>(null);
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
  /** A view-only leaf for the transcript (read-only branch switching); null: the session's own. */
  viewLeaf = $state<string | null>(null);
  /** Bumped to give the keyboard focus back to the tree (after a dialog, a toast, a write). */
  focusTree = $state(0);
  /** Bumped to ask the inspector to open its label editor (the `l` key). */
  labelRequest = $state(0);
  /** Entries hidden by compaction in the last audit (a band on their tree rows). */
  auditHidden = $state<Set<string>>(new Set());
  /** Set when the audit jumped to the tree: the entry to come back to. */
  auditReturn = $state<string | null>(null);
  /** The keyboard help overlay (`?`). */
  helpOpen = $state(false);
  /** The tree's scroll offset (kept by the tree view; read when a write must keep the place). */
  treeScrollTop = 0;

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
    if (this.list.limited) void this.refreshList();
    const first = mostRecent(this.list.sessions);
    // Named at start (the page's URL, or the window's --session/--select): that one, else the most recent.
    const info = this.info;
    const start = boot?.start ?? (info.initialSession ? { session: info.initialSession, entry: info.initialEntry ?? null } : null);
    if (start) {
      await this.openSession(start.session, { select: start.entry });
      if (this.tree.error && first && first.path !== start.session) {
        this.toasts.show("error", `Could not open ${start.session}: ${this.tree.error}`);
        await this.openSession(first.path);
      }
    } else if (first) await this.openSession(first.path);
    // The keyboard starts in the tree (pi's /tree keys work at once).
    this.focusTree++;
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
      this.viewLeaf = null;
      this.auditHidden = new Set();
      this.auditReturn = null;
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
    // Keep the selected row where it is on screen, even when the layout moves it.
    const before = this.selectedRow;
    const offset = before !== null ? before * ROW_H - this.treeScrollTop : null;
    await this.tree.reload();
    await this.relocateSelection(false);
    if (offset !== null && this.selectedRow !== null && this.selectedRow !== before) {
      this.reveal = { row: this.selectedRow, nonce: ++this.nonce, offset };
    }
    this.transcriptEpoch++;
    this.detailEpoch++;
    this.lastUpdate = Date.now();
  }

  /** The session's leaf line as it is now (null: none, or unknown). */
  private async currentLeaf(path: string): Promise<string | null> {
    const meta = this.tree.meta;
    if (meta && meta.path === path) return meta.leafId;
    return (await this.backend.transcriptPage(path, 0, 0)).leafId;
  }

  /**
   * Runs a write; when the file ends in a damaged (torn) line, asks first. `what` names the
   * write ("move the leaf", "label", "fork").
   */
  private async guardTorn(path: string, what: string, write: () => Promise<void>) {
    const meta = this.tree.meta;
    const torn = meta && meta.sessions.includes(path) && meta.path === path && meta.diagnostics.some((d) => d.kind === "torn-tail");
    if (!torn) return write();
    this.toasts.rich("warning", `This file ends in a damaged (torn) line. To ${what}, a new line is appended after it, on a line of its own; pi skips the damaged line. Write anyway?`, {
      ms: 0,
      actions: [
        { label: "Write anyway", testid: "torn-confirm", run: write },
        { label: "Cancel", testid: "torn-cancel", run: () => void this.focusTree++ },
      ],
    });
  }

  /**
   * A write that failed. `busy` (pi is writing a line to the file right now; nothing was
   * written) offers to run the same write again; anything else is an error toast.
   */
  private writeFailed(e: unknown, prefix: string, retry: () => Promise<unknown>) {
    const err = ApiError.from(e);
    if (err.code !== "busy") return this.error(e, prefix);
    this.toasts.rich("warning", `${prefix}: ${err.message}`, {
      ms: 0,
      actions: [
        { label: "Try again", testid: "busy-retry", run: async () => void (await retry()) },
        { label: "Cancel", testid: "busy-cancel", run: () => void this.focusTree++ },
      ],
    });
  }

  async navigateHere(path: string, id: string | null, opts: { undoOf?: string } = {}) {
    await this.guardTorn(path, "move the leaf", () => this.navigateNow(path, id, opts));
  }

  private async navigateNow(path: string, id: string | null, opts: { undoOf?: string }) {
    try {
      const prev = await this.currentLeaf(path);
      const res = await this.backend.navigate(path, id);
      const undo = opts.undoOf === undefined;
      this.toasts.rich("success", undo ? `Leaf moved: appended ${describeLine(res.line)} to ${baseName(res.file)}` : `Undone: appended ${describeLine(res.line)}`, {
        code: res.line,
        actions: undo ? [{ label: "Undo", testid: "toast-undo", run: () => this.navigateHere(path, prev, { undoOf: res.line }) }] : [],
      });
      await this.afterWrite(path, res);
    } catch (e) {
      this.writeFailed(e, "Navigate failed", () => this.navigateNow(path, id, opts));
    }
    this.focusTree++;
  }

  async setLabel(path: string, id: string, label: string | null, opts: { undo?: boolean } = {}) {
    await this.guardTorn(path, "label", () => this.setLabelNow(path, id, label, opts));
  }

  private async setLabelNow(path: string, id: string, label: string | null, opts: { undo?: boolean }) {
    try {
      const prev = opts.undo ? null : (await this.backend.entryDetail(path, id)).label;
      const text = label && label.trim() !== "" ? label.trim() : null;
      const res = await this.backend.setLabel(path, id, text);
      const head = opts.undo ? "Undone" : text ? `Labeled “${text}”` : "Label cleared";
      this.toasts.rich("success", `${head}: appended ${describeLine(res.line)} to ${baseName(res.file)}`, {
        code: res.line,
        actions: opts.undo ? [] : [{ label: "Undo", testid: "toast-undo", run: () => this.setLabel(path, id, prev, { undo: true }) }],
      });
      await this.afterWrite(path, res);
    } catch (e) {
      this.writeFailed(e, "Label failed", () => this.setLabelNow(path, id, label, opts));
    }
    this.focusTree++;
  }

  /** Forks into a new file; the view stays where it is, the toast offers to open it and how to resume it in pi. */
  async fork(path: string, id: string, position: ForkPosition) {
    await this.guardTorn(path, "fork", async () => {
      try {
        const res = await this.backend.forkSession(path, id, position);
        const cmd = resumeCommand(res.file);
        this.toasts.rich("success", `Forked into a new file: ${baseName(res.file)}. Resume it in pi with:`, {
          code: cmd,
          ms: 20000,
          actions: [
            { label: "Open it", testid: "toast-open-fork", run: () => this.openSession(res.file, { select: res.leafId ?? undefined }) },
            { label: "Copy command", testid: "toast-copy-command", run: () => copyText(cmd) },
          ],
        });
        await this.refreshList();
      } catch (e) {
        this.error(e, "Fork failed");
      }
      this.focusTree++;
    });
  }

  /**
   * Steps the transcript to a sibling branch: one leaf line, undoable by another; in read-only
   * mode the transcript shows the branch without writing (a view-only leaf).
   */
  async switchBranch(toId: string): Promise<string | null> {
    const path = this.openPath;
    if (!path) return null;
    try {
      const prevView = this.viewLeaf;
      const prev = await this.currentLeaf(path);
      const res = await this.backend.switchBranch(path, toId);
      if (!res.write) {
        this.viewLeaf = res.leafId;
        this.toasts.rich("info", "Read-only: showing the other branch. Nothing was written; pi still resumes where it was.", {
          actions: [
            { label: "Undo", testid: "toast-undo", run: () => void (this.viewLeaf = prevView) },
            { label: "Back to the leaf", testid: "toast-view-reset", run: () => void (this.viewLeaf = null) },
          ],
        });
        return res.leafId;
      }
      this.viewLeaf = null;
      const w = res.write;
      this.toasts.rich("success", `Switched branch: appended ${describeLine(w.line)} to ${baseName(w.file)}`, {
        code: w.line,
        actions: [{ label: "Undo", testid: "toast-undo", run: () => this.navigateHere(path, prev, { undoOf: w.line }) }],
      });
      if (w.warning) this.toasts.show("warning", w.warning);
      await this.refreshOpen([path]);
      this.scheduleListRefresh(0);
      return res.leafId;
    } catch (e) {
      this.writeFailed(e, "Switching branch failed", () => this.switchBranch(toId));
      return null;
    }
  }

  /** Opens another sessions root; returns an error message, or null when it opened. */
  async openRoot(path: string): Promise<string | null> {
    try {
      this.info = await this.backend.openRoot(path);
    } catch (e) {
      return ApiError.from(e).message;
    }
    this.openPath = null;
    this.query = null;
    this.selection = null;
    this.selectedRow = null;
    this.forkGraph = null;
    this.list = null;
    this.tree.clear();
    this.transcriptEpoch++;
    try {
      this.list = await this.backend.listSessions();
    } catch (e) {
      this.error(e, "Could not list the sessions");
      return null;
    }
    if (this.centerTab === "forks") void this.loadForkGraph();
    const first = mostRecent(this.list.sessions);
    if (first) await this.openSession(first.path);
    this.focusTree++;
    return null;
  }

  async setReadOnly(on: boolean) {
    try {
      this.info = await this.backend.setReadOnly(on);
    } catch (e) {
      this.error(e, "Could not change read-only mode");
    }
  }

  // ---------------------------------------------------------------- slim fork, pruned copy, compare

  /** Entries marked in the tree (Ctrl+click or `m`) for "Compare" and "Keep only these branches". */
  marked = $state<Selection[]>([]);
  /** The last comparison (shown in the Compare tab). */
  comparison = $state.raw<BranchDiff | null>(null);

  isMarked(path: string, id: string): boolean {
    return this.marked.some((m) => m.path === path && m.id === id);
  }

  toggleMark(sel: Selection | null) {
    if (!sel || sel.fold) return;
    this.marked = this.isMarked(sel.path, sel.id) ? this.marked.filter((m) => !(m.path === sel.path && m.id === sel.id)) : [...this.marked, { path: sel.path, id: sel.id }];
  }

  clearMarks() {
    this.marked = [];
  }

  async forkSlim(path: string, id: string) {
    try {
      const res = await this.backend.forkSlim(path, id);
      this.toasts.show("success", `Forked compacted: ${bytes(res.bytesBefore)} → ${bytes(res.bytesAfter)}`);
      await this.refreshList();
      await this.openSession(res.file, { select: res.leafId });
    } catch (e) {
      this.error(e, "Fork compacted failed");
    }
  }

  async pruneTo(path: string, keep: string[]) {
    try {
      const res = await this.backend.pruneSession(path, keep);
      this.toasts.show("success", `Pruned copy written: ${res.copied} entries, ${bytes(res.bytesBefore)} → ${bytes(res.bytesAfter)}; the original is untouched`);
      this.clearMarks();
      await this.refreshList();
      await this.openSession(res.file, { select: res.leafId });
    } catch (e) {
      this.error(e, "Keep only these branches failed");
    }
  }

  async compareMarked() {
    if (this.marked.length !== 2) return;
    const [a, b] = this.marked;
    try {
      this.comparison = await this.backend.compareBranches(a.path, a.id, b.path, b.id);
      this.centerTab = "compare";
    } catch (e) {
      this.error(e, "Compare failed");
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

/** A byte count for people. */
export function bytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1e6) return `${(n / 1e3).toFixed(1)} KB`;
  if (n < 1e9) return `${(n / 1e6).toFixed(1)} MB`;
  return `${(n / 1e9).toFixed(2)} GB`;
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

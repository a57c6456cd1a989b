// The sessions and the open one: the listing (and the fork graph over it), the open session's
// file, its listing row, its tree (the view: filter, folds, unified) and a view-only leaf, and
// what the views mark on it (entries found, entries an audit saw hidden). The selection follows
// through this store's events; nothing here knows what is selected.

import { perfHook } from "../perf";
import type { Backend } from "../backend";
import type { ForkGraph } from "../bindings/ForkGraph";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { RootChanged } from "../bindings/RootChanged";
import type { SessionList } from "../bindings/SessionList";
import type { SessionRow } from "../bindings/SessionRow";
import type { TreeFilter } from "../bindings/TreeFilter";
import type { TreeQuery } from "../bindings/TreeQuery";
import type { Range } from "../virtual";
import { TreeData } from "../../features/tree/treeData.svelte";
import { mostRecent } from "../../features/journeys/writeText";
import { ApiError } from "../backend";
import type { CenterTab, ChromeState } from "./chrome.svelte";
import { Topic } from "./events";

export const FILTERS: TreeFilter[] = ["default", "user-only", "labeled", "all"];

/** Where to land in a session being opened: an entry, or (null) the leaf unless something of it is selected. */
export interface Opened {
  path: string;
  select: string | null;
}

export class SessionState {
  readonly tree: TreeData;

  // Replaced whole, never changed in place: no deep proxy over thousands of rows.
  list = $state.raw<SessionList | null>(null);
  forkGraph = $state<ForkGraph | null>(null);
  indexProgress = $state<IndexProgress | null>(null);
  /** When files under the root last changed (or a write landed). */
  lastUpdate = $state(Date.now());

  openPath = $state<string | null>(null);
  /** The tree's layout: filter, opened folds, collapsed branch points, unified forks. */
  query = $state<TreeQuery | null>(null);
  /**
   * A view-only leaf: the branch the tree's Enter or the transcript's switcher shows, written
   * nowhere (browsing never writes; "Resume pi here" does); null: pi's own leaf.
   */
  viewLeaf = $state<string | null>(null);
  /** Ids matched by "find in session" or a search (a band on their tree rows). */
  found = $state<Set<string>>(new Set());
  /** Entries hidden by compaction in the last audit (a band on their tree rows). */
  auditHidden = $state<Set<string>>(new Set());

  /** The last child outside the roots opened for viewing (the listing does not hold it). */
  outsideRow = $state.raw<SessionRow | null>(null);

  /** The open session's row in the listing (or, for a child outside the roots, its own). */
  readonly openRow: SessionRow | null = $derived.by(() => {
    const p = this.openPath;
    return this.list?.sessions.find((s) => s.path === p) ?? (this.outsideRow?.path === p ? this.outsideRow : null);
  });

  /** Another session (or, on a new root, none) is about to load: what belonged to the last one goes. */
  readonly switched = new Topic<string | null>();
  /** A session was opened (or opened again): where to land in it. */
  readonly opened = new Topic<Opened>();
  /** The open session's tree was laid out anew (a filter, a fold, a collapse): rows moved. */
  readonly relaid = new Topic();
  /** Lines were appended to the open session (a write, or another process): its tree was fetched again. */
  readonly changed = new Topic<{ paths: string[] }>();
  /** Files under the root changed (or a write landed): lists and figures may be stale. */
  readonly updated = new Topic();

  private listTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly backend: Backend,
    private chrome: ChromeState,
  ) {
    this.tree = new TreeData(backend, () => this.query);
  }

  /** The session file a tree row belongs to (in a unified view, possibly a fork's). */
  fileOf(session: number): string {
    return this.tree.meta?.sessions[session] ?? this.openPath ?? "";
  }

  // ---------------------------------------------------------------- the listing

  async refreshList() {
    try {
      this.list = await this.backend.listSessions();
      if (this.forkGraph || this.chrome.centerTab === "forks") this.forkGraph = await this.backend.forkGraph();
    } catch (e) {
      this.chrome.error(e, "Could not list the sessions");
    }
  }

  scheduleListRefresh(ms = 150) {
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
      this.chrome.error(e, "Could not build the fork graph");
    }
  }

  /** Opens another sessions root; returns an error message, or null when it opened. */
  async openRoot(path: string): Promise<string | null> {
    try {
      this.chrome.info = await this.backend.openRoot(path);
    } catch (e) {
      return ApiError.from(e).message;
    }
    this.forget(null);
    this.query = null;
    this.forkGraph = null;
    this.list = null;
    this.tree.clear();
    try {
      this.list = await this.backend.listSessions();
    } catch (e) {
      this.chrome.error(e, "Could not list the sessions");
      return null;
    }
    if (this.chrome.centerTab === "forks") void this.loadForkGraph();
    const first = mostRecent(this.list.sessions);
    if (first) await this.open(first.path);
    void this.chrome.focusTree.emit();
    return null;
  }

  // ---------------------------------------------------------------- the open session

  /** Opens a session (its tree first), on `tab` when given; the selection lands on `select` or the leaf. */
  async open(path: string, opts: { select?: string | null; tab?: CenterTab } = {}) {
    if (opts.tab) this.chrome.centerTab = opts.tab;
    if (path !== this.openPath) {
      this.forget(path);
      this.query = { path, filter: "default", expanded: [], collapsed: [], unified: false };
      this.tree.clear();
      await this.tree.reload({ start: 0, end: 60 });
    }
    await this.opened.emit({ path, select: opts.select ?? null });
  }

  /** Opens a linked child; one outside the roots is first opened read-only (`open_outside`). */
  async openChild(child: { path: string; outside: boolean }, opts: { select?: string | null; tab?: CenterTab } = {}) {
    let path = child.path;
    if (child.outside) {
      try {
        this.outsideRow = await this.backend.openOutside(path);
        path = this.outsideRow.path;
      } catch (e) {
        this.chrome.error(e, "Could not open the session");
        return;
      }
    }
    await this.open(path, opts);
  }

  /** Drops what belonged to the open session; `path` (or none) is open next. */
  private forget(path: string | null) {
    this.openPath = path;
    this.found = new Set();
    this.viewLeaf = null;
    this.auditHidden = new Set();
    void this.switched.emit(path);
  }

  /**
   * Lays the tree out anew for `q` (fetching the rows of `range`, default those on screen);
   * `relaid` tells the selection to find its row again unless `quiet`.
   */
  async setQuery(q: TreeQuery, opts: { quiet?: boolean; range?: Range } = {}) {
    this.query = q;
    await this.tree.reload(opts.range);
    if (!opts.quiet) await this.relaid.emit();
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
    await this.setQuery({ ...this.query, expanded: [...this.query.expanded, foldId] }, { quiet: true });
  }

  /** Closes an opened fold again; answers the fold row. */
  async refold(foldId: string): Promise<number | null> {
    if (!this.query) return null;
    await this.setQuery({ ...this.query, expanded: this.query.expanded.filter((x) => x !== foldId) }, { quiet: true });
    return this.tree.findRow(-1, 1, (x) => x.type === "fold" && x.fold?.id === foldId);
  }

  /** Collapses or expands the subtree below an entry. */
  async toggleCollapse(id: string) {
    if (!this.query) return;
    const c = this.query.collapsed.includes(id) ? this.query.collapsed.filter((x) => x !== id) : [...this.query.collapsed, id];
    await this.setQuery({ ...this.query, collapsed: c });
  }

  /** Fetches the open session again (keeping scroll and selection) when one of `paths` is in it. */
  async refresh(paths: string[]) {
    const meta = this.tree.meta;
    const mine = meta ? meta.sessions : this.openPath ? [this.openPath] : [];
    if (!paths.some((p) => mine.includes(p))) return;
    await this.tree.reload();
    await this.changed.emit({ paths });
    this.touch();
  }

  /** Shows the path to entry `id` of the open session without writing; pi's own leaf (or null): back to it. */
  view(id: string | null) {
    const own = this.tree.meta?.effectiveLeafId ?? null;
    this.viewLeaf = id === null || id === own ? null : id;
  }

  /** Steps the view to a sibling branch (to its newest entry, as the core picks it): shown, never written. */
  async viewBranch(toId: string): Promise<string | null> {
    const path = this.openPath;
    if (!path) return null;
    try {
      const r = await this.backend.switchBranch(path, toId);
      this.view(r.leafId);
      return r.leafId;
    } catch (e) {
      this.chrome.error(e, "Could not show that branch");
      return null;
    }
  }

  /** The session's leaf line as it is now (null: none, or unknown). */
  async currentLeaf(path: string): Promise<string | null> {
    const meta = this.tree.meta;
    if (meta && meta.path === path) return meta.leafId;
    return (await this.backend.transcriptPage(path, 0, 0)).leafId;
  }

  /** Whether `path`, the open file, ends in a damaged (torn) line. */
  endsTorn(path: string): boolean {
    const meta = this.tree.meta;
    return !!meta && meta.path === path && meta.diagnostics.some((d) => d.kind === "torn-tail");
  }

  // ---------------------------------------------------------------- live

  onRootChanged(e: RootChanged) {
    if (e.added.length || e.removed.length || e.changed.length) this.scheduleListRefresh();
    this.touch();
    if (this.openPath && e.removed.includes(this.openPath)) {
      this.chrome.toasts.show("warning", "The open session file was removed");
      return;
    }
    if (e.changed.length) void this.refresh(e.changed);
  }

  onIndexProgress(p: IndexProgress) {
    this.indexProgress = p;
    if (p.done >= p.total) this.scheduleListRefresh(0);
    else if (!this.listTimer) this.scheduleListRefresh(1000);
  }

  private touch() {
    this.lastUpdate = Date.now();
    void this.updated.emit();
  }
}

// What is selected: the entry (or fold row) and its row in the tree's layout, which is the
// inspector's subject; the transcript entries picked for "Copy as Markdown"; the nodes marked for
// Compare and "Keep only these branches", and the last comparison. It follows the open session
// (SessionState's events): another session clears it, a new layout or new lines find its row
// again, keeping the row where it was on screen.

import type { BranchDiff } from "../bindings/BranchDiff";
import type { TreeQuery } from "../bindings/TreeQuery";
import type { TreeRow } from "../bindings/TreeRow";
import { ROW_H } from "../../features/tree/lanes";
import type { ChromeState } from "./chrome.svelte";
import { Topic } from "./events";
import type { Opened, SessionState } from "./session.svelte";

/** The selected node: an entry of a session file (in a unified view, possibly a fork's file). */
export interface Selection {
  path: string;
  id: string;
  /** The selected tree row is a fold row standing for entries starting at `id`. */
  fold?: boolean;
}

/** A request for the tree view to bring a row into view; with `offset`, at that distance (px) from the top. */
export interface Reveal {
  row: number;
  offset?: number;
}

export class SelectionState {
  current = $state<Selection | null>(null);
  /** Row of the selection in the current tree layout, when known. */
  row = $state<number | null>(null);
  /** The tree's scroll offset (kept by the tree view; read when new lines must keep the place). */
  treeScrollTop = 0;
  /** Transcript entries picked for "Copy as Markdown" (shift-click ranges), in path order. */
  picked = $state<string[]>([]);
  /** Set when the audit jumped to the tree: the entry to come back to. */
  auditReturn = $state<string | null>(null);
  /** Entries marked in the tree (Ctrl+click or `m`) for "Compare" and "Keep only these branches". */
  marked = $state<Selection[]>([]);
  /** The last comparison (shown in the Compare tab). */
  comparison = $state.raw<BranchDiff | null>(null);

  /** The inspector's subject: the selected entry (a fold row has none). */
  readonly entry: { path: string; id: string } | null = $derived.by(() => {
    const s = this.current;
    return s && !s.fold ? { path: s.path, id: s.id } : null;
  });
  /** The selected fold row, when the selection is one (and its page is loaded). */
  readonly foldRow: TreeRow | null = $derived.by(() => {
    if (!this.current?.fold || this.row === null) return null;
    const r = this.session.tree.row(this.row);
    return r?.type === "fold" ? r : null;
  });

  /** Bring a row of the tree into view. */
  readonly reveal = new Topic<Reveal>();

  constructor(
    private session: SessionState,
    private chrome: ChromeState,
  ) {
    session.switched.on(() => this.clear());
    session.opened.on((o) => this.land(o));
    session.relaid.on(() => this.relocate(true));
    session.changed.on(() => this.keepPlace());
  }

  /** The session file of a tree row. */
  sessionOf(r: TreeRow): string {
    return this.session.fileOf(r.session);
  }

  /** Selects tree row `i` (loading it if needed). */
  async selectRow(i: number, opts: { reveal?: boolean } = { reveal: true }) {
    const tree = this.session.tree;
    const total = tree.total;
    if (total === 0) return;
    i = Math.max(0, Math.min(total - 1, i));
    let r = tree.row(i);
    if (!r) {
      await tree.ensure({ start: i, end: i + 1 }, false);
      r = tree.row(i);
    }
    if (!r) return;
    this.row = i;
    this.current = { path: this.sessionOf(r), id: r.id, fold: r.type === "fold" };
    if (opts.reveal !== false) void this.reveal.emit({ row: i });
  }

  /**
   * Selects an entry by id (from the transcript, the context view, search…): finds its row in the
   * tree, opening folds that hide it, and scrolls there.
   */
  async selectEntry(path: string, id: string, opts: { reveal?: boolean } = {}) {
    this.current = { path, id };
    this.row = null;
    const s = this.session;
    const q = s.query;
    const meta = s.tree.meta;
    if (!q || !meta || !meta.sessions.includes(path)) return;
    try {
      let res = await s.backend.locateRow(q, id);
      if (res.row === null && q.filter !== "default" && q.filter !== "all") {
        res = await s.backend.locateRow({ ...q, filter: "default" }, id);
      }
      if (this.current?.id !== id) return;
      if (!sameQuery(res.query, q)) await s.setQuery(res.query, { quiet: true, range: res.row !== null ? around(res.row) : undefined });
      if (res.row !== null) {
        this.row = res.row;
        if (opts.reveal !== false) void this.reveal.emit({ row: res.row });
      }
    } catch (e) {
      this.chrome.error(e);
    }
  }

  /** After the layout changed: find the selected entry's row again (without opening folds). */
  private async relocate(scroll: boolean) {
    const sel = this.current;
    const q = this.session.query;
    if (!sel || !q) return;
    try {
      const res = await this.session.backend.locateRow(q, sel.id);
      if (this.current !== sel) return;
      if (res.row === null) {
        this.row = null;
        return;
      }
      if (!sameQuery(res.query, q)) {
        // Hidden in a fold: select the fold row instead of opening it.
        const r = await this.session.tree.findRow(-1, 1, (x) => x.type === "fold" && x.fold !== null && res.query.expanded.includes(x.fold.id) && !q.expanded.includes(x.fold.id));
        this.row = r;
        if (r !== null && scroll) void this.reveal.emit({ row: r });
        return;
      }
      this.row = res.row;
      if (scroll) void this.reveal.emit({ row: res.row });
    } catch {
      this.row = null;
    }
  }

  /** New lines in the open session: the selected row stays where it is on screen, even when the layout moved it. */
  private async keepPlace() {
    const before = this.row;
    const offset = before !== null ? before * ROW_H - this.treeScrollTop : null;
    await this.relocate(false);
    if (offset !== null && this.row !== null && this.row !== before) void this.reveal.emit({ row: this.row, offset });
  }

  /** A session was opened: select `select`, else (when nothing of it is selected) its leaf. */
  private async land({ path, select }: Opened) {
    const meta = this.session.tree.meta;
    if (select) {
      await this.selectEntry(path, select);
    } else if (!this.current && meta) {
      const row = meta.leafRow ?? (meta.totalRows > 0 ? meta.totalRows - 1 : null);
      if (row !== null) await this.selectRow(row);
    }
  }

  /** Another session: nothing of the last one stays selected (marks stay: they may span files). */
  private clear() {
    this.current = null;
    this.row = null;
    this.picked = [];
    this.auditReturn = null;
  }

  // ---------------------------------------------------------------- marks and compare

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

  async compareMarked() {
    if (this.marked.length !== 2) return;
    const [a, b] = this.marked;
    try {
      this.comparison = await this.session.backend.compareBranches(a.path, a.id, b.path, b.id);
      this.chrome.centerTab = "compare";
    } catch (e) {
      this.chrome.error(e, "Compare failed");
    }
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

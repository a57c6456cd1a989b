// Rows of the open session's tree, fetched in pages from `tree_page` and cached. A reload fetches
// the pages around what is on screen first and swaps them in at once, so live updates and query
// changes never show a blank or half-old window.

import type { Backend } from "../../lib/backend";
import type { TreeMeta } from "../../lib/bindings/TreeMeta";
import type { TreeQuery } from "../../lib/bindings/TreeQuery";
import type { TreeRow } from "../../lib/bindings/TreeRow";
import { pagesFor, type Range } from "../../lib/virtual";

export const PAGE_SIZE = 200;
/** Pages kept in memory (the farthest from what is on screen go first). */
export const MAX_PAGES = 80;

export class TreeData {
  meta = $state<TreeMeta | null>(null);
  /** Bumped whenever rows arrive; views read it to re-render. */
  version = $state(0);
  /** Set when a fetch failed. */
  error = $state<string | null>(null);

  private pages = new Map<number, TreeRow[]>();
  private inflight = new Map<number, Promise<void>>();
  private generation = 0;
  private lastRange: Range = { start: 0, end: PAGE_SIZE };

  constructor(
    private backend: Backend,
    private query: () => TreeQuery | null,
  ) {}

  /** The row at `i`, if its page is loaded. */
  row(i: number): TreeRow | undefined {
    // Reading `version` makes callers inside effects/deriveds re-run when pages arrive.
    void this.version;
    const p = this.pages.get(Math.floor(i / PAGE_SIZE));
    return p?.[i % PAGE_SIZE];
  }

  /** Loaded rows in [start, end) (holes as undefined). */
  rows(start: number, end: number): (TreeRow | undefined)[] {
    const out: (TreeRow | undefined)[] = [];
    for (let i = start; i < end; i++) out.push(this.row(i));
    return out;
  }

  get total(): number {
    return this.meta?.totalRows ?? 0;
  }

  /** Makes sure the pages covering `range` are loaded (or loading). */
  ensure(range: Range, remember = true): Promise<void> {
    if (remember) this.lastRange = range;
    const q = this.query();
    if (!q) return Promise.resolve();
    const jobs: Promise<void>[] = [];
    for (const p of pagesFor(range, PAGE_SIZE)) {
      if (this.pages.has(p)) continue;
      jobs.push(this.fetchPage(q, p, this.generation));
    }
    return Promise.all(jobs).then(() => undefined);
  }

  private fetchPage(q: TreeQuery, p: number, gen: number): Promise<void> {
    const running = this.inflight.get(p);
    if (running) return running;
    const job = this.backend
      .treePage(q, p * PAGE_SIZE, PAGE_SIZE)
      .then((page) => {
        if (gen !== this.generation) return;
        this.pages.set(p, page.rows);
        this.evict();
        this.meta = page.meta;
        this.error = null;
        this.version++;
      })
      .catch((e) => {
        if (gen !== this.generation) return;
        this.error = e instanceof Error ? e.message : String(e);
      })
      .finally(() => {
        if (this.inflight.get(p) === job) this.inflight.delete(p);
      });
    this.inflight.set(p, job);
    return job;
  }

  /**
   * Fetches the pages of `range` (default: the last one asked for) for the current query, then
   * replaces the whole cache with them.
   */
  async reload(range: Range = this.lastRange): Promise<void> {
    const q = this.query();
    const gen = ++this.generation;
    this.inflight.clear();
    if (!q) {
      this.pages = new Map();
      this.meta = null;
      this.version++;
      return;
    }
    const want = pagesFor({ start: range.start, end: Math.max(range.end, range.start + 1) }, PAGE_SIZE);
    if (want.length === 0) want.push(0);
    try {
      const results = await Promise.all(want.map((p) => this.backend.treePage(q, p * PAGE_SIZE, PAGE_SIZE)));
      if (gen !== this.generation) return;
      const pages = new Map<number, TreeRow[]>();
      want.forEach((p, i) => pages.set(p, results[i].rows));
      this.pages = pages;
      this.meta = results[results.length - 1].meta;
      this.error = null;
      this.version++;
      // The window may now be past the end (fewer rows): load what is there.
      if (this.meta && range.start >= this.meta.totalRows && this.meta.totalRows > 0) {
        await this.ensure({ start: Math.max(0, this.meta.totalRows - (range.end - range.start)), end: this.meta.totalRows });
      }
    } catch (e) {
      if (gen !== this.generation) return;
      this.error = e instanceof Error ? e.message : String(e);
    }
  }

  private evict() {
    if (this.pages.size <= MAX_PAGES) return;
    const centre = Math.floor((this.lastRange.start + this.lastRange.end) / 2 / PAGE_SIZE);
    const far = [...this.pages.keys()].sort((a, b) => Math.abs(b - centre) - Math.abs(a - centre));
    for (const p of far.slice(0, this.pages.size - MAX_PAGES)) this.pages.delete(p);
  }

  /** Forgets everything (another session opened). */
  clear() {
    this.generation++;
    this.pages = new Map();
    this.inflight.clear();
    this.meta = null;
    this.version++;
  }

  /** Finds the next row (after `from`, in direction `dir`) matching `pred`, loading pages as needed. */
  async findRow(from: number, dir: 1 | -1, pred: (r: TreeRow) => boolean): Promise<number | null> {
    const total = this.total;
    for (let i = from + dir; i >= 0 && i < total; i += dir) {
      let r = this.row(i);
      if (!r) {
        await this.ensure({ start: i - (dir < 0 ? PAGE_SIZE - 1 : 0), end: i + 1 + (dir > 0 ? PAGE_SIZE - 1 : 0) }, false);
        r = this.row(i);
        if (!r) return null;
      }
      if (pred(r)) return i;
    }
    return null;
  }
}

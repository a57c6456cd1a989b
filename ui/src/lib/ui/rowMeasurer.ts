// The rows of a list of measured heights (lib/virtual's MeasuredSizes), measured once rendered:
// a `use:` action records each row's height as it changes, and what is on screen stays in place
// when rows above it change height (the scroll offset moves by the same amount, once a frame).
// A row just revealed stays revealed while the rows around it are measured. Rows are keyed by
// index, so a row stays mounted when its list is replaced (another session, another entry's
// context): `replaced` records the heights of the rows on screen into the new heights once they
// are drawn, as a row whose height did not change gets no resize to report it.

import { tick } from "svelte";
import type { MeasuredSizes } from "../virtual";

/** What the measurer needs of its list view. */
export interface MeasuredList {
  /** The heights (a view replaces them when it loads another list). */
  sizes(): MeasuredSizes;
  scroller(): HTMLElement | undefined;
  /** The view's scroll offset, as it last saw it. */
  scrollTop(): number;
  setScrollTop(top: number): void;
  /** Heights changed: the view recomputes its range and offsets. */
  changed(): void;
  /** Scrolls so that row `i` shows, by the view's own rule. */
  reveal(i: number): void;
}

export class RowMeasurer {
  private pendingAdjust = 0;
  private raf = 0;
  private pinned: { i: number; until: number } | null = null;
  /** The rows on screen: each one's measurement. */
  private live = new Set<() => void>();

  constructor(private list: MeasuredList) {}

  /** Keeps row `i` revealed for `ms` while the rows around it are measured. */
  pin(i: number, ms: number) {
    this.pinned = { i, until: performance.now() + ms };
  }

  /** Stops a measurement pass waiting for its frame (the view goes). */
  dispose() {
    if (this.raf) cancelAnimationFrame(this.raf);
    this.raf = 0;
  }

  /**
   * The view replaced its heights (another list): every row on screen is measured again once
   * the new rows are drawn. Rows kept mounted (same index) whose height stayed put would
   * otherwise keep the estimate, and the rows below them would be drawn over them or apart.
   */
  replaced() {
    void tick().then(() => {
      for (const apply of this.live) apply();
    });
  }

  /** The action on a rendered row: `use:rows.measure={index}`. */
  measure = (node: HTMLElement, i: number) => {
    let index = i;
    const apply = () => {
      const h = node.offsetHeight;
      if (!h) return;
      const sizes = this.list.sizes();
      const above = sizes.offset(index) + sizes.height(index) <= this.list.scrollTop() + 1;
      const d = sizes.set(index, h);
      if (d !== 0) {
        if (above) this.pendingAdjust += d;
        this.schedule();
      }
    };
    const ro = new ResizeObserver(apply);
    ro.observe(node);
    this.live.add(apply);
    apply();
    return {
      update(ni: number) {
        index = ni;
        apply();
      },
      destroy: () => {
        ro.disconnect();
        this.live.delete(apply);
      },
    };
  };

  private schedule() {
    if (this.raf) return;
    this.raf = requestAnimationFrame(() => {
      this.raf = 0;
      this.list.changed();
      if (this.pinned && performance.now() < this.pinned.until) {
        this.pendingAdjust = 0;
        this.list.reveal(this.pinned.i);
        return;
      }
      const scroller = this.list.scroller();
      if (this.pendingAdjust && scroller) {
        scroller.scrollTop += this.pendingAdjust;
        this.list.setScrollTop(scroller.scrollTop);
      }
      this.pendingAdjust = 0;
    });
  }
}

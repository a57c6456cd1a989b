// Virtual list maths: which items are visible for a scroll offset, for fixed and measured heights.

export interface Range {
  /** First index to render (inclusive). */
  start: number;
  /** Last index to render (exclusive). */
  end: number;
}

/** Visible range of a list of `total` rows of `rowHeight` px, with `overscan` rows either side. */
export function fixedRange(scrollTop: number, viewport: number, rowHeight: number, total: number, overscan = 8): Range {
  if (total <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const top = Math.max(0, scrollTop);
  const first = Math.floor(top / rowHeight);
  const last = Math.ceil((top + Math.max(0, viewport)) / rowHeight);
  return { start: Math.max(0, Math.min(total, first - overscan)), end: Math.max(0, Math.min(total, last + overscan)) };
}

/** Pages (of `pageSize` rows) that cover a range. */
export function pagesFor(range: Range, pageSize: number): number[] {
  if (range.end <= range.start) return [];
  const out: number[] = [];
  for (let p = Math.floor(range.start / pageSize); p <= Math.floor((range.end - 1) / pageSize); p++) out.push(p);
  return out;
}

/** The scrollTop that brings `row` into view (unchanged if it already is), with `margin` rows. */
export function scrollToReveal(row: number, scrollTop: number, viewport: number, rowHeight: number, margin = 2): number {
  const top = row * rowHeight;
  const bottom = top + rowHeight;
  if (top - margin * rowHeight < scrollTop) return Math.max(0, top - margin * rowHeight);
  if (bottom + margin * rowHeight > scrollTop + viewport) return Math.max(0, bottom + margin * rowHeight - viewport);
  return scrollTop;
}

/**
 * Heights of items that are measured once rendered (estimated before). Offsets are prefix sums,
 * rebuilt lazily after measurements change.
 */
export class MeasuredSizes {
  private heights: Float64Array;
  private offsets: Float64Array;
  private dirty = true;
  private measured: Uint8Array;

  constructor(
    public count: number,
    public estimate: number,
  ) {
    this.heights = new Float64Array(count).fill(estimate);
    this.measured = new Uint8Array(count);
    this.offsets = new Float64Array(count + 1);
  }

  resize(count: number) {
    if (count === this.count) return;
    const h = new Float64Array(count).fill(this.estimate);
    const m = new Uint8Array(count);
    h.set(this.heights.subarray(0, Math.min(count, this.count)));
    m.set(this.measured.subarray(0, Math.min(count, this.count)));
    this.heights = h;
    this.measured = m;
    this.offsets = new Float64Array(count + 1);
    this.count = count;
    this.dirty = true;
  }

  /** Records a measured height; returns the change in px. */
  set(i: number, h: number): number {
    if (i < 0 || i >= this.count) return 0;
    const d = h - this.heights[i];
    this.measured[i] = 1;
    if (d !== 0) {
      this.heights[i] = h;
      this.dirty = true;
    }
    return d;
  }

  isMeasured(i: number): boolean {
    return this.measured[i] === 1;
  }

  height(i: number): number {
    return this.heights[i] ?? this.estimate;
  }

  private build() {
    if (!this.dirty) return;
    let acc = 0;
    for (let i = 0; i < this.count; i++) {
      this.offsets[i] = acc;
      acc += this.heights[i];
    }
    this.offsets[this.count] = acc;
    this.dirty = false;
  }

  offset(i: number): number {
    this.build();
    return this.offsets[Math.max(0, Math.min(this.count, i))];
  }

  total(): number {
    return this.offset(this.count);
  }

  /** Index of the item at `y` (binary search). */
  indexAt(y: number): number {
    this.build();
    if (this.count === 0) return 0;
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid] <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  range(scrollTop: number, viewport: number, overscan = 3): Range {
    if (this.count === 0) return { start: 0, end: 0 };
    const first = this.indexAt(Math.max(0, scrollTop));
    const last = this.indexAt(Math.max(0, scrollTop + viewport));
    return { start: Math.max(0, first - overscan), end: Math.min(this.count, last + 1 + overscan) };
  }
}

import { describe, expect, it } from "vitest";
import { fixedRange, MeasuredSizes, pagesFor, scrollToReveal } from "./virtual";

describe("fixed-height virtual list", () => {
  it("computes the visible range with overscan, clamped", () => {
    expect(fixedRange(0, 240, 24, 1000, 5)).toEqual({ start: 0, end: 15 });
    expect(fixedRange(2400, 240, 24, 1000, 5)).toEqual({ start: 95, end: 115 });
    expect(fixedRange(23990, 240, 24, 1000, 5)).toEqual({ start: 994, end: 1000 });
    expect(fixedRange(0, 240, 24, 0)).toEqual({ start: 0, end: 0 });
    expect(fixedRange(-50, 100, 24, 10, 0)).toEqual({ start: 0, end: 5 });
  });

  it("handles 200k rows without drift", () => {
    const top = 199_990 * 24;
    const r = fixedRange(top, 600, 24, 200_000, 10);
    expect(r.start).toBe(199_980);
    expect(r.end).toBe(200_000);
  });

  it("lists the pages covering a range", () => {
    expect(pagesFor({ start: 0, end: 10 }, 200)).toEqual([0]);
    expect(pagesFor({ start: 190, end: 410 }, 200)).toEqual([0, 1, 2]);
    expect(pagesFor({ start: 5, end: 5 }, 200)).toEqual([]);
  });

  it("scrolls only as far as needed to reveal a row", () => {
    expect(scrollToReveal(10, 0, 480, 24, 2)).toBe(0);
    expect(scrollToReveal(30, 0, 480, 24, 2)).toBe(31 * 24 + 48 - 480);
    expect(scrollToReveal(3, 240, 480, 24, 2)).toBe(24);
  });
});

describe("measured heights", () => {
  it("uses estimates until measured, then exact offsets", () => {
    const s = new MeasuredSizes(5, 100);
    expect(s.total()).toBe(500);
    expect(s.offset(3)).toBe(300);
    expect(s.set(1, 40)).toBe(-60);
    expect(s.offset(3)).toBe(240);
    expect(s.total()).toBe(440);
    expect(s.indexAt(0)).toBe(0);
    expect(s.indexAt(139)).toBe(1);
    expect(s.indexAt(140)).toBe(2);
    expect(s.indexAt(10_000)).toBe(4);
  });

  it("gives the visible range for a scroll offset", () => {
    const s = new MeasuredSizes(100, 50);
    expect(s.range(0, 200, 0)).toEqual({ start: 0, end: 5 });
    expect(s.range(1000, 200, 2)).toEqual({ start: 18, end: 27 });
  });

  it("keeps measurements when the list grows", () => {
    const s = new MeasuredSizes(2, 10);
    s.set(0, 30);
    s.resize(4);
    expect(s.total()).toBe(60);
    expect(s.isMeasured(0)).toBe(true);
    expect(s.isMeasured(3)).toBe(false);
  });
});

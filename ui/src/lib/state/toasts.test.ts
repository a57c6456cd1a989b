import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RESUME_MIN, Toasts } from "./toasts.svelte";

describe("toasts", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("go after their time, which stops while hovered or focused and runs on after", () => {
    const t = new Toasts();
    const a = t.rich("success", "written", { ms: 12000, actions: [{ label: "Undo", run: () => {} }] });
    vi.advanceTimersByTime(5000);
    t.pause(a);
    expect(t.paused(a)).toBe(true);
    // Paused: no time passes for it.
    vi.advanceTimersByTime(60000);
    expect(t.items.map((x) => x.id)).toEqual([a]);
    t.resume(a);
    vi.advanceTimersByTime(6999);
    expect(t.items).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(t.items).toHaveLength(0);
  });

  it("a toast let go near its end gets a little time to be read", () => {
    const t = new Toasts();
    const a = t.show("info", "hello", undefined, 3000);
    vi.advanceTimersByTime(2900);
    t.pause(a);
    t.resume(a);
    vi.advanceTimersByTime(RESUME_MIN - 1);
    expect(t.items).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(t.items).toHaveLength(0);
  });

  it("keep the five newest; a toast without a time stays; the newest with a choice is the one `t` focuses", () => {
    const t = new Toasts();
    const keep = t.rich("warning", "torn", { ms: 0, actions: [{ label: "Write anyway", run: () => {} }] });
    for (let i = 0; i < 3; i++) t.show("info", `n${i}`);
    expect(t.newestWithActions()?.id).toBe(keep);
    vi.advanceTimersByTime(100000);
    expect(t.items.map((x) => x.id)).toEqual([keep]);
    for (let i = 0; i < 6; i++) t.show("info", `m${i}`);
    expect(t.items).toHaveLength(5);
    expect(t.items.some((x) => x.id === keep)).toBe(false);
    t.dismiss(999);
    expect(t.items).toHaveLength(5);
  });
});

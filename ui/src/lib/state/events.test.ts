import { describe, expect, it } from "vitest";
import { Topic } from "./events";

describe("events", () => {
  it("calls listeners in order, waiting for those that return a promise", async () => {
    const t = new Topic<number>();
    const seen: string[] = [];
    t.on((n) => void seen.push(`a${n}`));
    t.on(async (n) => {
      await new Promise((r) => setTimeout(r, 5));
      seen.push(`b${n}`);
    });
    t.on((n) => void seen.push(`c${n}`));
    const done = t.emit(1);
    // The first runs at once; the third waits for the second.
    expect(seen).toEqual(["a1"]);
    await done;
    expect(seen).toEqual(["a1", "b1", "c1"]);
  });

  it("runs listeners that return nothing at once, and unsubscribes", () => {
    const t = new Topic();
    let n = 0;
    const off = t.on(() => void n++);
    t.on(() => void (n += 10));
    void t.emit();
    expect(n).toBe(11);
    off();
    void t.emit();
    expect(n).toBe(21);
    expect(t.size).toBe(1);
  });

  it("rejects with a listener's failure, and the later listeners do not run", async () => {
    const t = new Topic();
    let later = false;
    t.on(() => {
      throw new Error("boom");
    });
    t.on(() => void (later = true));
    await expect(t.emit()).rejects.toThrow("boom");
    expect(later).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { defaultMetric, topN } from "./topN";

const f = (key: string, tokens: number, cost: number, sessions: string[]) => ({ key, tokens, cost, sessions });

describe("topN", () => {
  const figs = [f("a", 10, 5, ["1"]), f("b", 30, 1, ["2"]), f("c", 20, 0, ["3", "1"]), f("d", 5, 9, ["4"]), f("e", 1, 0, ["5"])];
  it("keeps the biggest N by the metric shown and sums the rest into other, its sessions once each", () => {
    const t = topN(figs, "tokens", 2);
    expect(t.map((x) => x.key)).toEqual(["b", "c", "other (3)"]);
    expect(t[2]).toMatchObject({ tokens: 16, cost: 14 });
    expect(t[2].sessions.sort()).toEqual(["1", "4", "5"]);
    expect(topN(figs, "cost", 2).map((x) => x.key)).toEqual(["d", "a", "other (3)"]);
  });
  it("no other bar for a single category past N: it is shown itself", () => {
    expect(topN(figs.slice(0, 3), "tokens", 2).map((x) => x.key)).toEqual(["b", "c", "a"]);
  });
  it("tokens when every cost is zero", () => {
    expect(defaultMetric(0)).toBe("tokens");
    expect(defaultMetric(0.01)).toBe("cost");
  });
});

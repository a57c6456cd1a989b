import { describe, expect, it } from "vitest";
import type { ForkNode } from "../../lib/bindings/ForkNode";
import { family, filterNodes } from "./scope";
import { forkPointText, layoutForkGraph } from "./forkLayout";

function node(path: string, parentPath: string | null, title = path, cwd = "/p"): ForkNode {
  return {
    path, id: path, title, cwd, created: null, modified: 1, entryCount: 3, parentPath, forkPointId: parentPath ? "717bb323aa" : null,
    forkPointLine: parentPath ? 4 : null, forkPointPreview: parentPath ? "Refactor the cache" : null, forkPointEntry: parentPath ? 3 : null,
    parentEntries: parentPath ? 40 : null, copy: null, status: "ok", parentSession: parentPath, kind: parentPath ? "fork" : null,
    spawnedBy: null, spawnedByToolCall: null, spawnedByGuess: false, ownTokens: 0, ownCost: 0, familyTokens: 0, familyCost: 0, familySize: 1,
  };
}

const nodes = [node("a", null), node("a1", "a"), node("a11", "a1"), node("a2", "a", "needle"), node("b", null, "b", "/q"), node("b1", "b", "b1", "/q")];

describe("fork graph scope", () => {
  it("a family is the first session up the parents and every fork below it", () => {
    expect(family(nodes, "a11").map((n) => n.path).sort()).toEqual(["a", "a1", "a11", "a2"]);
    expect(family(nodes, "b").map((n) => n.path).sort()).toEqual(["b", "b1"]);
    expect(family(nodes, "zz")).toEqual([]);
  });
  it("the filter keeps matches and the way back to their first session", () => {
    expect(filterNodes(nodes, "NEEDLE").map((n) => n.path)).toEqual(["a", "a2"]);
    expect(filterNodes(nodes, "/q").map((n) => n.path)).toEqual(["b", "b1"]);
    expect(filterNodes(nodes, " ")).toHaveLength(nodes.length);
  });
  it("a fork point reads entry n of m and its message; a folded folder draws its head alone", () => {
    expect(forkPointText(nodes[1], 80)).toBe("entry 3 of 40 · “Refactor the cache”");
    expect(forkPointText(nodes[1]).length).toBeLessThanOrEqual(34);
    const l = layoutForkGraph(nodes, () => "", 1.6, new Set(["/q"]));
    expect(l.nodes.map((n) => n.path).sort()).toEqual(["a", "a1", "a11", "a2"]);
    const q = l.groups.find((g) => g.cwd === "/q")!;
    expect([q.collapsed, q.count]).toEqual([true, 2]);
  });
});

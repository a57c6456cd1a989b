import { describe, expect, it } from "vitest";
import type { ForkNode } from "../../lib/bindings/ForkNode";
import { layoutForkGraph, NODE_H, NODE_W, ROW } from "./forkLayout";

/** `n` sessions in 10 folders like the E2E's 2,000: a quarter roots, the rest forks of the
 *  session 10 before (so five folders hold one chain of n/10 forks). */
function many(n: number): ForkNode[] {
  const out: ForkNode[] = [];
  for (let i = 0; i < n; i++) {
    const parent = i % 4 === 0 || i < 10 ? null : out[i - 10].path;
    out.push({
      path: `/r/p${i % 10}/s${i}.jsonl`,
      id: `s${i}`,
      title: `Task ${i}`,
      cwd: `/home/u/proj${i % 10}`,
      created: new Date(Date.UTC(2026, 4, 1) + i * 60000).toISOString(),
      modified: Date.UTC(2026, 4, 1) + i * 60000,
      entryCount: 1,
      parentPath: parent,
      forkPointId: parent ? `m${i}` : null,
      forkPointLine: parent ? 2 : null,
      forkPointPreview: parent ? `Task ${i - 10}` : null,
      forkPointEntry: parent ? 2 : null,
      parentEntries: parent ? 5 : null,
      copy: null,
      status: "ok",
      parentSession: parent,
      kind: parent ? "fork" : null,
      spawnedBy: null,
      spawnedByToolCall: null,
      spawnedByGuess: false,
      ownTokens: 0,
      ownCost: 0,
      familyTokens: 0,
      familyCost: 0,
      familySize: 1,
    });
  }
  return out;
}

/** The scale Fit gives in a w × h view (as ForkGraphView's fit). */
const fitScale = (l: { width: number; height: number }, w: number, h: number) => Math.min(1, (w - 24) / (l.width + 16), (h - 24) / (l.height + 8));

describe("fork graph layout", () => {
  it("packs 2,000 sessions into columns of about the view's shape, no node over another", () => {
    const l = layoutForkGraph(many(2000), () => "", 980 / 660);
    expect(l.nodes.length).toBe(2000);
    const ratio = l.width / l.height;
    expect(ratio).toBeGreaterThan(0.6);
    expect(ratio).toBeLessThan(3);
    // Fit in a 1280×800 window's graph pane: far larger than one tall column (about 0.007).
    const k = fitScale(l, 980, 660);
    console.log(`2,000 sessions: ${l.width}×${l.height}, Fit at 980×660: ${k.toFixed(3)}`);
    expect(k).toBeGreaterThan(0.08);
    // No two nodes overlap; each lies in a band of its own folder.
    const cells = new Set<string>();
    for (const n of l.nodes) {
      const cell = `${Math.round(n.x)}:${Math.round(n.y / ROW)}`;
      expect(cells.has(cell)).toBe(false);
      cells.add(cell);
      const band = l.groups.find((g) => g.cwd === n.node?.cwd && n.x >= g.x && n.x + NODE_W <= g.x + g.width + 8 && n.y >= g.y && n.y + NODE_H <= g.y + g.height);
      expect(band, `${n.key} inside a band of its folder`).toBeTruthy();
    }
    const cols = new Set(l.nodes.map((n) => Math.round(n.x / 1000))).size;
    expect(cols).toBeGreaterThan(3);
    // Every fork has its edge, and a long chain stays within the indent limit.
    expect(l.edges.filter((e) => e.kind === "fork").length).toBe(2000 - l.nodes.filter((n) => !n.node?.parentPath).length);
    expect(Math.max(...l.nodes.map((n) => n.depth))).toBeGreaterThan(100);
  });

  it("draws forks right of their parents, and a small graph fits at full scale", () => {
    const ns = many(12);
    const l = layoutForkGraph(ns, () => "", 1.5);
    const at = (p: string) => l.nodes.find((n) => n.path === p)!;
    for (const f of ns.filter((n) => n.parentPath)) {
      expect(at(f.path).x).toBeGreaterThan(at(f.parentPath!).x);
      expect(at(f.path).y).toBeGreaterThan(at(f.parentPath!).y);
    }
    expect(fitScale(l, 980, 660)).toBeGreaterThan(0.6);
    // One folder's lineage in one column: a single band.
    const one = layoutForkGraph(ns.filter((n) => n.cwd === "/home/u/proj2" || n.cwd === "/home/u/proj6"), () => "", 1.5);
    expect(one.groups.every((g) => !g.cont)).toBe(true);
  });
});

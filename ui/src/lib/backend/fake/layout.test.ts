import { describe, expect, it } from "vitest";
import { layoutTree, type LayoutNode } from "./layout";
import { createFakeBackend } from "../fake";

function n(key: string, children: LayoutNode[] = [], onPath = false, ts = 0): LayoutNode {
  return { key, children, onPath, ts, foldable: true, group: "assistant" };
}
const opts = { fold: false, expanded: new Set<string>(), collapsed: new Set<string>() };

describe("lane layout", () => {
  // r → a → {b1 → b2 (side), c (main, on path) → d}
  const tree = () => {
    const d = n("d", [], true, 5);
    const c = n("c", [d], true, 4);
    const b2 = n("b2", [], false, 3);
    const b1 = n("b1", [b2], false, 2);
    const a = n("a", [b1, c], true, 1);
    return n("r", [a], true, 0);
  };

  it("walks side branches first in a lane to the right, the active path down lane 0", () => {
    const l = layoutTree([tree()], opts);
    expect(l.rows.map((r) => r.node.key)).toEqual(["r", "a", "b1", "b2", "c", "d"]);
    expect(l.rows.map((r) => r.lane)).toEqual([0, 0, 1, 1, 0, 0]);
    expect(l.lanes).toBe(2);
    const [r, a, b1, b2, c, d] = l.rows;
    expect([r.up, r.down]).toEqual([false, true]);
    expect([a.up, a.down]).toEqual([true, true]);
    expect(b1).toMatchObject({ up: false, down: true, branchFrom: 0, pass: [0] });
    expect(b2).toMatchObject({ up: true, down: false, branchFrom: null, pass: [0] });
    expect(c).toMatchObject({ up: true, down: true, pass: [], branchFrom: null });
    expect(d).toMatchObject({ up: true, down: false });
    expect(c.color).toBe(0);
    expect(b1.color).toBe(1);
    expect(b2.color).toBe(b1.color);
  });

  it("without an active path the newest child is the main one", () => {
    const x = n("x", [n("old", [], false, 1), n("new", [], false, 9)]);
    const l = layoutTree([x], opts);
    expect(l.rows.map((r) => `${r.node.key}@${r.lane}`)).toEqual(["x@0", "old@1", "new@0"]);
  });

  it("colours branches 1…5 in turn in row order, the last root's main line 0", () => {
    const other = n("other", [], false, 0);
    const l = layoutTree([other, tree()], opts);
    expect(l.rows.map((r) => `${r.node.key}:${r.color}`)).toEqual(["other:1", "r:0", "a:0", "b1:2", "b2:2", "c:0", "d:0"]);
  });

  it("reuses a freed lane for the next side branch and nests deeper branches", () => {
    const s1 = n("s1", [n("s1a", [], false, 3), n("s1b", [], false, 4)], false, 2);
    const s2 = n("s2", [], false, 5);
    const m = n("m", [], true, 6);
    const root = n("root", [s1, s2, m], true, 0);
    const l = layoutTree([root], opts);
    expect(l.rows.map((r) => `${r.node.key}@${r.lane}`)).toEqual(["root@0", "s1@1", "s1a@2", "s1b@1", "s2@1", "m@0"]);
    expect(l.rows[2]).toMatchObject({ branchFrom: 1, pass: [0, 1] });
    expect(l.rows[4]).toMatchObject({ branchFrom: 0, pass: [0] });
    expect(l.lanes).toBe(3);
  });

  it("folds long single-child runs, and opens them when expanded", () => {
    let chain: LayoutNode = n("end", [], true, 100);
    for (let i = 30; i >= 0; i--) chain = n(`k${i}`, [chain], true, i);
    const folded = layoutTree([chain], { ...opts, fold: true });
    const foldRow = folded.rows.find((r) => r.fold);
    // k0…k30 and the end: a run of 32, three shown at each end.
    expect(foldRow?.fold?.nodes.length).toBe(32 - 3 - 3);
    expect(foldRow?.fold?.id).toBe("fold:k3");
    expect(folded.rows.length).toBe(3 + 1 + 3);
    expect(folded.rows[folded.rows.length - 1]).toMatchObject({ down: false });
    const open = layoutTree([chain], { ...opts, fold: true, expanded: new Set([foldRow!.fold!.id]) });
    expect(open.rows.length).toBe(32);
    // A run of 13 folds, one of 12 does not.
    let short: LayoutNode = n("z", [], false, 0);
    for (let i = 10; i >= 0; i--) short = n(`s${i}`, [short], false, i);
    expect(layoutTree([short], { ...opts, fold: true }).rows.some((r) => r.fold)).toBe(false);
    short = n("s-1", [short], false, -1);
    expect(layoutTree([short], { ...opts, fold: true }).rows.some((r) => r.fold)).toBe(true);
    expect(open.rows.some((r) => r.fold)).toBe(false);
  });

  it("hides collapsed subtrees and counts them", () => {
    const l = layoutTree([tree()], { ...opts, collapsed: new Set(["a"]) });
    expect(l.rows.map((r) => r.node.key)).toEqual(["r", "a"]);
    expect(l.rows[1]).toMatchObject({ collapsed: 4, down: false });
  });
});

describe("fake backend tree_page", () => {
  it("lays out the session with three branches at one user message", async () => {
    const b = createFakeBackend({ now: Date.parse("2025-06-12T12:00:00Z") });
    const list = await b.listSessions();
    const s = list.sessions.find((x) => x.title === "/tree keyboard folding")!;
    const q = { path: s.path, filter: "default" as const, expanded: [], collapsed: [], unified: false };
    const page = await b.treePage(q, 0, 1000);
    expect(page.meta.totalRows).toBe(page.rows.length);
    const ask = page.rows.find((r) => r.preview === "Which key should toggle a fold?")!;
    expect(ask.childCount).toBe(3);
    const firsts = page.rows.filter((r) => r.branchFrom === ask.lane);
    expect(firsts).toHaveLength(2);
    // The active path runs down lane 0 and ends at the leaf.
    for (const r of page.rows.filter((x) => x.onPath)) expect(r.lane).toBe(0);
    expect(page.rows[page.meta.leafRow!].isLeaf).toBe(true);
    // Every lane that passes through a row is occupied from above and below.
    expect(page.meta.lanes).toBeGreaterThanOrEqual(2);
    // Opening a fold adds its rows.
    const fold = page.rows.find((r) => r.type === "fold")!;
    const opened = await b.treePage({ ...q, expanded: [fold.fold!.id] }, 0, 2000);
    expect(opened.meta.totalRows).toBe(page.meta.totalRows + fold.fold!.count - 1);
  });

  it("locates an entry hidden in a fold and opens that fold", async () => {
    const b = createFakeBackend();
    const s = (await b.listSessions()).sessions.find((x) => x.title.startsWith("Fix the login"))!;
    const q = { path: s.path, filter: "default" as const, expanded: [], collapsed: [], unified: false };
    const page = await b.treePage(q, 0, 1000);
    const fold = page.rows.find((r) => r.type === "fold")!;
    const inside = (await b.findInSession(s.path, "")).ids; // empty needle finds nothing
    expect(inside).toEqual([]);
    const res = await b.locateRow(q, fold.id);
    expect(res.query.expanded).toContain(fold.fold!.id);
    const after = await b.treePage(res.query, res.row!, 1);
    expect(after.rows[0].id).toBe(fold.id);
    expect(after.rows[0].type).not.toBe("fold");
  });

  it("draws forks at their fork point in the unified view", async () => {
    const b = createFakeBackend();
    const s = (await b.listSessions()).sessions.find((x) => x.title.startsWith("Fix the login"))!;
    const q = { path: s.path, filter: "default" as const, expanded: [], collapsed: [], unified: true };
    const page = await b.treePage(q, 0, 5000);
    expect(page.meta.sessions.length).toBe(4);
    const fromForks = page.rows.filter((r) => r.session > 0);
    expect(fromForks.length).toBeGreaterThan(0);
    expect(fromForks.every((r) => !r.onPath)).toBe(true);
    const firstFork = page.rows.find((r) => r.session === 1)!;
    const checkpoint = page.rows.find((r) => r.label === "checkpoint-1")!;
    expect(firstFork.branchFrom).toBe(checkpoint.lane);
  });
});

describe("fake backend context audit", () => {
  it("flags a dangling firstKeptEntryId, an orphan tool result, copies and earlier compactions", async () => {
    const b = createFakeBackend();
    const list = (await b.listSessions()).sessions;
    const leafCtx = async (title: string) => {
      const s = list.find((x) => x.title.startsWith(title))!;
      return b.contextView(s.path, s.leafId);
    };
    const dangling = await leafCtx("Add rate limiting");
    expect(dangling.compaction?.firstKeptDangling).toBe(true);
    expect(dangling.messages.filter((m) => m.kept)).toHaveLength(0);
    const orphan = await leafCtx("Set up tauri-driver");
    expect(orphan.compaction?.keptStartsWithOrphanToolResult).toBe(true);
    const copied = await leafCtx("Try zod");
    expect(copied.compaction?.copiedFromParent).toBe(true);
    const two = await leafCtx("/tree keyboard folding");
    expect(two.compaction?.earlier).toHaveLength(1);
    expect(two.messages[0].role).toBe("compactionSummary");
    expect(two.hiddenTotal).toBeGreaterThan(0);
    const more = await b.hiddenPage(two.path, two.leafId, 0, 5);
    expect(more.map((h) => h.id)).toEqual(two.hidden.slice(0, 5).map((h) => h.id));
  });
});

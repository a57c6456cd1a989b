import { describe, expect, it } from "vitest";
import type { ForkNode } from "../../lib/bindings/ForkNode";
import type { SessionRow } from "../../lib/bindings/SessionRow";
import { groupSessions, spawnAncestors } from "../sessions/group";
import { layoutForkGraph } from "../forkgraph/forkLayout";
import { childrenOf, familyLines, isLinked, spawnsByEntry, spawnsOfCall } from "./lineage";

/** A listing row with the lineage fields the core gives (the rest plain). */
function row(path: string, over: Partial<SessionRow> = {}): SessionRow {
  return {
    path,
    id: path,
    cwd: "/w",
    title: path,
    name: null,
    created: "2026-06-01T00:00:00.000Z",
    modified: 1,
    entryCount: 3,
    messageCount: 3,
    branchPoints: 0,
    tokens: 100,
    cost: 0.01,
    size: 10,
    leafId: null,
    parentPath: null,
    forkPointId: null,
    forkStatus: "ok",
    parentSession: null,
    kind: null,
    spawnedBy: null,
    spawnedByToolCall: null,
    spawnedByGuess: false,
    ownTokens: 100,
    ownCost: 0.01,
    familyTokens: 100,
    familyCost: 0.01,
    familySize: 1,
    readOnly: null,
    errors: 0,
    warnings: 0,
    copy: null,
    hasEntries: true,
    piNote: null,
    ...over,
  };
}
const spawn = (path: string, parent: string, entry: string, call: string | null, created: string, over: Partial<SessionRow> = {}) =>
  row(path, { parentPath: parent, parentSession: parent, kind: "spawn", spawnedBy: entry, spawnedByToolCall: call, created, ...over });

function node(r: SessionRow, over: Partial<ForkNode> = {}): ForkNode {
  return {
    path: r.path,
    id: r.id,
    title: r.title,
    cwd: r.cwd,
    created: r.created,
    modified: r.modified,
    entryCount: r.entryCount,
    parentPath: r.parentPath,
    forkPointId: r.forkPointId,
    forkPointLine: null,
    forkPointPreview: null,
    status: r.forkStatus,
    parentSession: r.parentSession,
    kind: r.kind,
    spawnedBy: r.spawnedBy,
    spawnedByToolCall: r.spawnedByToolCall,
    spawnedByGuess: r.spawnedByGuess,
    ownTokens: r.ownTokens,
    ownCost: r.ownCost,
    familyTokens: r.familyTokens,
    familyCost: r.familyCost,
    familySize: r.familySize,
    forkPointEntry: null,
    parentEntries: null,
    copy: null,
    ...over,
  };
}

// A parent with three subagent runs (two from one assistant entry's two tool calls, one guessed),
// a relinked fork of it, and a run of the second run.
const P = "/s/parent.jsonl";
const rows: SessionRow[] = [
  row(P, { modified: 10, familySize: 5, familyTokens: 1500, familyCost: 0.15 }),
  spawn("/s/run1.jsonl", P, "a1", "call_1", "2026-06-01T00:01:00.000Z"),
  spawn("/s/run2.jsonl", P, "a1", "call_2", "2026-06-01T00:02:00.000Z"),
  spawn("/s/run3.jsonl", P, "a9", null, "2026-06-01T00:03:00.000Z", { spawnedByGuess: true }),
  spawn("/s/run2b.jsonl", "/s/run2.jsonl", "b1", "call_9", "2026-06-01T00:04:00.000Z"),
  row("/s/fork.jsonl", { parentPath: P, parentSession: "/elsewhere/parent.jsonl", forkPointId: "u2", forkStatus: "relinked", kind: "fork", created: "2026-06-01T00:05:00.000Z" }),
  row("/s/orphan.jsonl", { parentPath: "/gone.jsonl", forkStatus: "parent-missing", modified: 5 }),
];

describe("lineage in the session list", () => {
  it("nests the subagent runs under their parent, folded, with their count; a relinked fork nests like a healthy one", () => {
    const [g] = groupSessions(rows);
    expect(g.items.map((i) => [i.row.path, i.depth])).toEqual([
      [P, 0],
      ["/s/fork.jsonl", 1],
      ["/s/orphan.jsonl", 0],
    ]);
    expect(g.items[0].spawns).toBe(3);
    expect(g.items[0].spawnsOpen).toBe(false);
    // Folded runs still count in their folder.
    expect(g.count).toBe(7);
  });

  it("shows the runs when unfolded, in creation order before the forks; a run's own runs fold again", () => {
    const [g] = groupSessions(rows, "recent", new Set([P]));
    expect(g.items.map((i) => [i.row.path, i.depth])).toEqual([
      [P, 0],
      ["/s/run1.jsonl", 1],
      ["/s/run2.jsonl", 1],
      ["/s/run3.jsonl", 1],
      ["/s/fork.jsonl", 1],
      ["/s/orphan.jsonl", 0],
    ]);
    expect(g.items[2].spawns).toBe(1);
    expect(g.items[2].spawnsOpen).toBe(false);
    const [all] = groupSessions(rows, "recent", new Set([P, "/s/run2.jsonl"]));
    expect(all.items.find((i) => i.row.path === "/s/run2b.jsonl")?.depth).toBe(2);
  });

  it("a spawn nests under its parent even in another folder; an unlinked child stays on top", () => {
    const other = [row(P, { modified: 10 }), spawn("/s/elsewhere.jsonl", P, "a1", "call_1", "2026-06-01T00:01:00.000Z", { cwd: "/other" })];
    const groups = groupSessions(other, "recent", new Set([P]));
    expect(groups.map((g) => g.cwd)).toEqual(["/w"]);
    expect(groups[0].items.map((i) => i.depth)).toEqual([0, 1]);
    const broken = [row(P), spawn("/s/x.jsonl", P, "a1", null, "2026-06-01T00:01:00.000Z", { forkStatus: "parent-mismatch" })];
    expect(groupSessions(broken)[0].items.map((i) => i.depth)).toEqual([0, 0]);
  });

  it("names the parents whose runs must unfold to show a run", () => {
    expect(spawnAncestors(rows, "/s/run2b.jsonl")).toEqual(["/s/run2.jsonl", P]);
    expect(spawnAncestors(rows, "/s/fork.jsonl")).toEqual([]);
  });
});

describe("the children of a parent's entries", () => {
  it("finds the spawns by the entry that started them, and each by its tool call", () => {
    const m = spawnsByEntry(P, rows, null);
    expect([...m.keys()].sort()).toEqual(["a1", "a9"]);
    const a1 = m.get("a1")!;
    expect(a1.map((c) => c.path)).toEqual(["/s/run1.jsonl", "/s/run2.jsonl"]);
    expect(spawnsOfCall(a1, "call_2").map((c) => c.path)).toEqual(["/s/run2.jsonl"]);
    expect(spawnsOfCall(m.get("a9")!, null)[0].spawnedByGuess).toBe(true);
  });

  it("adds the graph's children outside the roots, marked to be opened read-only", () => {
    const outside = node(spawn("/tmp/sub/run9.jsonl", P, "a5", "call_5", "2026-06-01T00:06:00.000Z"), { status: "outside-roots" });
    const kids = childrenOf(P, rows, [outside]);
    expect(kids.find((c) => c.path === "/tmp/sub/run9.jsonl")?.outside).toBe(true);
    expect(kids.find((c) => c.path === "/s/run1.jsonl")?.outside).toBe(false);
    expect(spawnsByEntry(P, rows, [outside]).get("a5")?.map((c) => c.path)).toEqual(["/tmp/sub/run9.jsonl"]);
  });

  it("reads the core's status: ok, relinked and outside-roots hold; the others do not", () => {
    expect(["ok", "relinked", "outside-roots"].every((s) => isLinked(s as never))).toBe(true);
    expect(["parent-missing", "parent-mismatch", "parent-outside", "cycle"].some((s) => isLinked(s as never))).toBe(false);
  });

  it("gives own figures, and the family's when there are spawns", () => {
    expect(familyLines(rows[1])).toEqual(["Own: 100 tokens · $0.01"]);
    expect(familyLines(rows[0])).toEqual(["Own: 100 tokens · $0.01", "Family (itself and 4 spawns): 1.5k tokens · $0.15"]);
  });
});

describe("lineage in the fork graph", () => {
  it("draws spawns as their own edge kind from the entry that started them, a guessed one marked; a relinked fork as a fork", () => {
    const l = layoutForkGraph(rows.map((r) => node(r)));
    const byChild = new Map(l.edges.map((e) => [e.child, e]));
    expect(byChild.get("/s/run1.jsonl")).toMatchObject({ kind: "spawn", spawnedBy: "a1", guess: false });
    expect(byChild.get("/s/run3.jsonl")).toMatchObject({ kind: "spawn", spawnedBy: "a9", guess: true });
    expect(byChild.get("/s/run3.jsonl")?.label).toContain("guessed");
    expect(byChild.get("/s/fork.jsonl")).toMatchObject({ kind: "fork", forkPointId: "u2", spawnedBy: null });
    expect(byChild.get("/s/run2b.jsonl")?.kind).toBe("spawn");
    expect(byChild.get("/s/orphan.jsonl")?.kind).toBe("ghost");
    // Every linked child hangs under its parent (deeper), none is drawn as a root.
    const depth = new Map(l.nodes.map((n) => [n.path, n.depth]));
    expect(depth.get("/s/run2b.jsonl")).toBe(2);
    expect(depth.get("/s/fork.jsonl")).toBe(1);
  });
});

import { describe, expect, it } from "vitest";
import type { SessionRow } from "../../lib/bindings/SessionRow";
import { groupSessions } from "../sessions/group";
import { PINNED_GROUP, pinnedFirst, type MarksState } from "./marks.svelte";

function row(path: string, id: string, parentPath: string | null = null, modified = 1): SessionRow {
  return {
    path, id, cwd: "/p", title: path, name: null, created: null, modified, entryCount: 1, messageCount: 1, branchPoints: 0,
    tokens: 0, cost: 0, size: 1, leafId: null, parentPath, forkPointId: parentPath ? "aaaaaaaa" : null, forkStatus: "ok",
    parentSession: parentPath, kind: parentPath ? "fork" : null, spawnedBy: null, spawnedByToolCall: null, spawnedByGuess: false,
    ownTokens: 0, ownCost: 0, familyTokens: 0, familyCost: 0, familySize: 1, copy: null, hasEntries: true, piNote: null, readOnly: null, errors: 0, warnings: 0,
  };
}

describe("pinnedFirst", () => {
  it("a pinned parent keeps its forks under it; the row above keeps none of them", () => {
    const rows = [row("/a", "A", null, 9), row("/p", "P", null, 5), row("/p1", "P1", "/p", 4), row("/p11", "P11", "/p1", 3), row("/b", "B", null, 1)];
    const marks = { of: (id: string | null) => (id === "P" ? { pinned: true } : undefined) } as unknown as MarksState;
    const groups = pinnedFirst(groupSessions(rows), marks);
    expect(groups[0].cwd).toBe(PINNED_GROUP);
    expect(groups[0].items.map((i) => [i.row.id, i.depth])).toEqual([["P", 0], ["P1", 1], ["P11", 2]]);
    expect(groups[1].items.map((i) => i.row.id)).toEqual(["A", "B"]);
  });
});

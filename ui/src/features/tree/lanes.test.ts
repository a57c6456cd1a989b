import { describe, expect, it } from "vitest";
import { render } from "@testing-library/svelte";
import type { TreeRow } from "../../lib/bindings/TreeRow";
import { laneShapes, laneX, ROW_H } from "./lanes";
import LaneSvg from "./LaneSvg.svelte";

function row(p: Partial<TreeRow> & { row: number }): TreeRow {
  return {
    id: `e${p.row}`,
    parentId: null,
    line: p.row + 2,
    type: "message",
    role: "assistant",
    ts: null,
    label: null,
    onPath: true,
    isLeaf: false,
    childCount: 1,
    collapsed: null,
    preview: "",
    detail: null,
    isError: false,
    tokens: null,
    cost: null,
    fold: null,
    diagnostic: null,
    session: 0,
    lane: 0,
    pass: [],
    up: true,
    down: true,
    branchFrom: null,
    color: 0,
    ...p,
  };
}

// A branch point (row 0) with a side branch of two rows in lane 1, then the main child in lane 0.
const rows: TreeRow[] = [
  row({ row: 0, role: "user", up: false, childCount: 2 }),
  row({ row: 1, lane: 1, pass: [0], up: false, branchFrom: 0, color: 2, onPath: false, role: "user" }),
  row({ row: 2, lane: 1, pass: [0], down: false, color: 2, onPath: false }),
  row({ row: 3, down: false, isLeaf: true }),
];

describe("lane renderer", () => {
  it("draws pass lines, half segments and the branch curve", () => {
    const s = laneShapes(rows, 0, { selectedRow: 3 });
    const byKey = new Map(s.segs.map((x) => [x.key, x]));
    const x0 = laneX(0);
    const x1 = laneX(1);
    const H = ROW_H;
    // row 0: only a line down from the node
    expect(byKey.has("u0")).toBe(false);
    expect(byKey.get("d0")?.d).toBe(`M${x0} ${H / 2}V${H}`);
    // row 1: lane 0 passes through, the branch curve comes from lane 0 at the top
    expect(byKey.get("p1-0")?.d).toBe(`M${x0} ${H}V${2 * H}`);
    expect(byKey.get("b1")?.d).toBe(`M${x0} ${H}C${x0} ${H + H / 2} ${x1} ${H} ${x1} ${H + H / 2}`);
    expect(byKey.has("u1")).toBe(false);
    expect(byKey.get("d1")?.d).toBe(`M${x1} ${1.5 * H}V${2 * H}`);
    // row 2: end of the side branch (no line down)
    expect(byKey.get("u2")?.d).toBe(`M${x1} ${2 * H}V${2.5 * H}`);
    expect(byKey.has("d2")).toBe(false);
    // the pass line of lane 0 takes the style of the main child below (on path, colour 0)
    expect(byKey.get("p2-0")).toMatchObject({ color: 0, muted: false });
    // the side branch is muted in its own colour
    expect(byKey.get("b1")).toMatchObject({ color: 2, muted: true });
    // row 3: line from above, none below
    expect(byKey.get("u3")?.d).toBe(`M${x0} ${3 * H}V${3.5 * H}`);
    expect(byKey.has("d3")).toBe(false);
  });

  it("places nodes with shapes by type, and marks leaf and selection", () => {
    const s = laneShapes(rows, 0, { selectedRow: 3 });
    expect(s.nodes.map((n) => [n.kind, n.x, n.y])).toEqual([
      ["user", laneX(0), ROW_H / 2],
      ["user", laneX(1), 1.5 * ROW_H],
      ["assistant", laneX(1), 2.5 * ROW_H],
      ["assistant", laneX(0), 3.5 * ROW_H],
    ]);
    expect(s.nodes[3]).toMatchObject({ leaf: true, selected: true });
    expect(s.nodes[1]).toMatchObject({ muted: true, color: 2 });
  });

  it("offsets y by the first row of the window and skips holes", () => {
    const s = laneShapes([undefined, rows[3]], 99);
    expect(s.nodes).toHaveLength(1);
    expect(s.nodes[0].y).toBe(ROW_H + ROW_H / 2);
    expect(s.nodes[0].row).toBe(100);
  });

  it("draws fold rows as a dotted lane without a node", () => {
    const f = row({ row: 0, type: "fold", role: null, fold: { id: "x", count: 9, users: 1, assistants: 4, tools: 4, others: 0, firstTs: null, lastTs: null, onPath: true } });
    const s = laneShapes([f], 0);
    expect(s.nodes).toHaveLength(0);
    expect(s.segs.every((x) => x.dotted)).toBe(true);
  });

  it("renders the shapes as SVG elements", () => {
    const { container } = render(LaneSvg, { props: { shapes: laneShapes(rows, 0, { selectedRow: 3 }), width: 40, height: 96 } });
    const svg = container.querySelector("svg")!;
    expect(svg.querySelectorAll("path.ln")).toHaveLength(laneShapes(rows, 0).segs.length);
    expect(svg.querySelectorAll('[data-kind="user"]')).toHaveLength(2);
    expect(svg.querySelectorAll('[data-kind="assistant"]')).toHaveLength(2);
    expect(svg.querySelectorAll("circle.halo")).toHaveLength(1);
    expect(svg.querySelectorAll("circle.selring")).toHaveLength(1);
    expect(svg.querySelector("path.ln.muted.l2")).not.toBeNull();
  });
});

describe("pi 1.x nodes", () => {
  it("draws system messages, usage entries and context edits with their own shapes", () => {
    const rows = [
      row({ row: 0, type: "message", role: "system" }),
      row({ row: 1, type: "usage", role: null }),
      row({ row: 2, type: "context_edit", role: null }),
      row({ row: 3, type: "message", role: "toolResult" }),
    ];
    const shapes = laneShapes(rows, 0, { selectedRow: null });
    expect(shapes.nodes.map((n) => n.kind)).toEqual(["system", "usage", "edit", "small"]);
    const { container } = render(LaneSvg, { props: { shapes, width: 40, height: 4 * ROW_H } });
    const kinds = [...container.querySelectorAll("[data-kind]")].map((el) => el.getAttribute("data-kind"));
    expect(kinds).toEqual(["system", "usage", "edit", "small"]);
    const d = (k: string) => container.querySelector(`[data-kind="${k}"]`)?.getAttribute("d");
    // Three different paths, none of them empty.
    expect(new Set([d("system"), d("usage"), d("edit")]).size).toBe(3);
    expect(d("system")).toMatch(/^M/);
  });
});

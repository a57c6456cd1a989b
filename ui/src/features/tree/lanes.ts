// Geometry of the lane graph for a window of tree rows (docs/ipc.md "The tree graph"):
// per row, full-height lines for `pass` lanes, the node's lane from the top (`up`) and to the
// bottom (`down`), a curve from `branchFrom` at the top of the row to the node, and the node itself.

import type { TreeRow } from "../../lib/bindings/TreeRow";

export const ROW_H = 24;
export const LANE_W = 14;
export const LANE_X0 = 12;
export const LANE_COLORS = 6;

export function laneX(lane: number): number {
  return LANE_X0 + lane * LANE_W;
}

/** Width the graph column needs for `lanes` lanes. */
export function graphWidth(lanes: number): number {
  return LANE_X0 * 2 + Math.max(0, lanes - 1) * LANE_W;
}

export type NodeKind =
  | "user"
  | "assistant"
  | "small"
  | "compaction"
  | "branch-summary"
  | "system"
  | "usage"
  | "edit"
  | "meta"
  | "custom"
  | "book"
  | "fold";

export interface LaneSeg {
  key: string;
  d: string;
  color: number;
  muted: boolean;
  dotted: boolean;
}

export interface LaneNode {
  key: string;
  row: number;
  kind: NodeKind;
  x: number;
  y: number;
  color: number;
  muted: boolean;
  leaf: boolean;
  selected: boolean;
  error: boolean;
}

export interface LaneShapes {
  segs: LaneSeg[];
  nodes: LaneNode[];
}

export function nodeKind(r: Pick<TreeRow, "type" | "role">): NodeKind {
  switch (r.type) {
    case "fold":
      return "fold";
    case "message":
      if (r.role === "user") return "user";
      if (r.role === "assistant") return "assistant";
      if (r.role === "custom") return "custom";
      if (r.role === "system") return "system";
      return "small";
    case "compaction":
      return "compaction";
    case "branch_summary":
      return "branch-summary";
    case "usage":
      return "usage";
    case "context_edit":
      return "edit";
    case "model_change":
    case "thinking_level_change":
      return "meta";
    case "custom_message":
      return "custom";
    case "label":
    case "leaf":
    case "session_info":
    case "custom":
      return "book";
    default:
      return "small";
  }
}

const colorOf = (c: number) => ((c % LANE_COLORS) + LANE_COLORS) % LANE_COLORS;

/**
 * Shapes for `rows` (a window of consecutive rows; holes allowed), with y measured from the top of
 * the row `first`.
 */
export function laneShapes(
  rows: (TreeRow | undefined)[],
  first: number,
  opts: { selectedRow?: number | null; rowHeight?: number } = {},
): LaneShapes {
  const H = opts.rowHeight ?? ROW_H;
  const segs: LaneSeg[] = [];
  const nodes: LaneNode[] = [];
  const byIndex = (i: number) => rows[i - first];

  // Style of lane `lane` around row index `i`: the next row below in that lane, else the one above.
  const laneStyle = (lane: number, i: number): { color: number; muted: boolean } => {
    for (let j = i + 1; j < first + rows.length; j++) {
      const r = byIndex(j);
      if (r && r.lane === lane) return { color: colorOf(r.color), muted: !r.onPath };
    }
    for (let j = i - 1; j >= first; j--) {
      const r = byIndex(j);
      if (r && r.lane === lane) return { color: colorOf(r.color), muted: !r.onPath };
    }
    return { color: lane === 0 ? 0 : colorOf(lane), muted: lane !== 0 };
  };

  for (let k = 0; k < rows.length; k++) {
    const r = rows[k];
    if (!r) continue;
    const i = first + k;
    const top = k * H;
    const cy = top + H / 2;
    const bottom = top + H;
    const x = laneX(r.lane);
    const color = colorOf(r.color);
    const muted = !r.onPath;
    const fold = r.type === "fold";
    for (const p of r.pass) {
      const st = laneStyle(p, i);
      const px = laneX(p);
      segs.push({ key: `p${i}-${p}`, d: `M${px} ${top}V${bottom}`, color: st.color, muted: st.muted, dotted: false });
    }
    if (r.up) segs.push({ key: `u${i}`, d: `M${x} ${top}V${cy}`, color, muted, dotted: fold });
    if (r.down) {
      // Below a leaf the path is no longer active.
      const downMuted = muted || (r.isLeaf && !fold);
      segs.push({ key: `d${i}`, d: `M${x} ${cy}V${bottom}`, color, muted: downMuted, dotted: fold });
    }
    if (r.branchFrom !== null && r.branchFrom !== undefined) {
      const fx = laneX(r.branchFrom);
      segs.push({ key: `b${i}`, d: `M${fx} ${top}C${fx} ${cy} ${x} ${top} ${x} ${cy}`, color, muted, dotted: false });
    }
    if (!fold) {
      nodes.push({
        key: `n${i}`,
        row: i,
        kind: nodeKind(r),
        x,
        y: cy,
        color,
        muted,
        leaf: r.isLeaf,
        selected: opts.selectedRow === i,
        error: r.isError,
      });
    }
  }
  return { segs, nodes };
}

/** SVG path of a node shape that is not a circle. */
export function nodePath(n: Pick<LaneNode, "kind" | "x" | "y">): string | null {
  const { x, y } = n;
  switch (n.kind) {
    case "branch-summary":
      return `M${x} ${y - 6}L${x + 6} ${y}L${x} ${y + 6}L${x - 6} ${y}Z`;
    case "meta":
      return `M${x} ${y - 4}L${x + 4} ${y}L${x} ${y + 4}L${x - 4} ${y}Z`;
    // pi 1.x: a system message is a triangle, a usage entry a bar, a context edit a cross.
    case "system":
      return `M${x} ${y - 5}L${x + 5} ${y + 4}L${x - 5} ${y + 4}Z`;
    case "usage":
      return `M${x - 5} ${y - 2}H${x + 5}V${y + 2}H${x - 5}Z`;
    case "edit":
      return `M${x - 4} ${y - 4}L${x + 4} ${y + 4}M${x + 4} ${y - 4}L${x - 4} ${y + 4}`;
    case "custom":
      return `M${x - 4} ${y - 4}H${x + 4}V${y + 4}H${x - 4}Z`;
    default:
      return null;
  }
}

// A layered layout of the fork graph: sessions grouped by cwd; in each group a left-to-right tree
// per root (a lineage) where x = fork depth (indented at most MAX_INDENT levels, so a long chain
// of forks does not run off diagonally) and rows follow a depth-first walk (children by creation
// time). Missing parents become dashed ghost nodes; members of a parent cycle are roots with a
// red marker. Lineages are packed into columns, newspaper-style, so that the whole graph has
// about the shape of the view (`aspect`, width / height): Fit then shows it at the largest scale.
// A lineage moves whole to the next column when it fits one; a longer one continues there.

import type { ForkNode } from "../../lib/bindings/ForkNode";
import { isLinked } from "../lineage/lineage";

export const NODE_W = 220;
export const NODE_H = 42;
export const COL = 120;
export const ROW = 54;
export const GROUP_HEAD = 30;
export const GROUP_GAP = 18;
export const PAD = 16;
/** Fork depths past this are drawn at this indent (the edge still shows the parent). */
export const MAX_INDENT = 3;
/** Space between two columns of lineages. */
export const COL_GAP = 48;

export interface FGNode {
  key: string;
  path: string | null;
  title: string;
  sub: string;
  x: number;
  y: number;
  depth: number;
  ghost: boolean;
  cycle: boolean;
  missingParent: boolean;
  node: ForkNode | null;
}

export interface FGEdge {
  key: string;
  /** The child session's file. */
  child: string | null;
  forkPointId: string | null;
  d: string;
  label: string;
  /** The whole label (the fork point's message), for a tooltip. */
  full: string;
  lx: number;
  ly: number;
  /** `spawn`: a session its parent started (a subagent run), drawn from the entry that did. */
  kind: "fork" | "spawn" | "ghost" | "cycle";
  /** A spawn: the parent's entry that started it. */
  spawnedBy: string | null;
  /** That entry is a guess (the last one before the spawn began; no tool call names it). */
  guess: boolean;
}

export interface FGGroup {
  /** Unique among the groups (a cwd may continue into the next column). */
  key: string;
  cwd: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The group continues from the previous column. */
  cont: boolean;
  /** Sessions in the folder, and whether they are folded away (only the head is drawn). */
  count: number;
  collapsed: boolean;
}

export interface ForkLayout {
  nodes: FGNode[];
  edges: FGEdge[];
  groups: FGGroup[];
  width: number;
  height: number;
}

function time(s: string | null): number {
  const t = s ? Date.parse(s) : NaN;
  return Number.isNaN(t) ? 0 : t;
}

/** Lays out `input`; the folders in `collapsed` (cwds) are drawn as their head alone. */
export function layoutForkGraph(input: ForkNode[], describe: (n: ForkNode) => string = () => "", aspect = 1.6, collapsed: ReadonlySet<string> = new Set()): ForkLayout {
  const byPath = new Map(input.map((n) => [n.path, n]));
  const kids = new Map<string, ForkNode[]>();
  const roots: ForkNode[] = [];
  const ghostKids = new Map<string, ForkNode[]>();
  for (const n of input) {
    const parent = n.parentPath ? byPath.get(n.parentPath) : undefined;
    if (n.parentPath && isLinked(n.status) && parent) {
      const l = kids.get(parent.path) ?? [];
      l.push(n);
      kids.set(parent.path, l);
    } else if (n.parentPath && (n.status === "parent-missing" || !parent)) {
      const l = ghostKids.get(n.parentPath) ?? [];
      l.push(n);
      ghostKids.set(n.parentPath, l);
    } else {
      roots.push(n);
    }
  }
  for (const l of kids.values()) l.sort((a, b) => time(a.created) - time(b.created));

  type Root = { cwd: string; ghost: string | null; node: ForkNode | null; modified: number };
  const rootsByCwd = new Map<string, Root[]>();
  const addRoot = (r: Root) => {
    const l = rootsByCwd.get(r.cwd) ?? [];
    l.push(r);
    rootsByCwd.set(r.cwd, l);
  };
  for (const n of roots) addRoot({ cwd: n.cwd ?? "", ghost: null, node: n, modified: n.modified ?? 0 });
  for (const [p, l] of ghostKids) addRoot({ cwd: l[0].cwd ?? "", ghost: p, node: null, modified: Math.max(...l.map((x) => x.modified ?? 0)) });

  // 1. Lineages: each root's depth-first walk, per cwd group (most recent first).
  const order = [...rootsByCwd.entries()].sort((a, b) => Math.max(...b[1].map((r) => r.modified)) - Math.max(...a[1].map((r) => r.modified)));
  const plan: Plan = [];
  const seen = new Set<string>();
  for (const [cwd, rs] of order) {
    rs.sort((a, b) => b.modified - a.modified);
    const lineages: Row[][] = [];
    for (const r of rs) {
      const rows: Row[] = [];
      const stack: { n: ForkNode | null; ghost: string | null; depth: number; parent: FGNode | null }[] = [{ n: r.node, ghost: r.ghost, depth: 0, parent: null }];
      while (stack.length) {
        const it = stack.pop()!;
        const key = it.n ? it.n.path : `ghost:${it.ghost}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const fg: FGNode = it.n
          ? {
              key,
              path: it.n.path,
              title: it.n.title,
              sub: describe(it.n),
              x: 0,
              y: 0,
              depth: it.depth,
              ghost: false,
              cycle: it.n.status === "cycle",
              missingParent: it.n.status === "parent-missing",
              node: it.n,
            }
          : {
              key,
              path: null,
              title: "missing parent",
              sub: (it.ghost ?? "").split(/[\\/]/).pop() ?? "",
              x: 0,
              y: 0,
              depth: it.depth,
              ghost: true,
              cycle: false,
              missingParent: false,
              node: null,
            };
        rows.push({ fg, parent: it.parent, n: it.n });
        const children = it.n ? (kids.get(it.n.path) ?? []) : (ghostKids.get(it.ghost ?? "") ?? []);
        for (let i = children.length - 1; i >= 0; i--) stack.push({ n: children[i], ghost: null, depth: it.depth + 1, parent: fg });
      }
      if (rows.length) lineages.push(rows);
    }
    const count = lineages.reduce((n, l) => n + l.filter((r) => !r.fg.ghost).length, 0);
    plan.push({ cwd, lineages: collapsed.has(cwd) ? [] : lineages, count, collapsed: collapsed.has(cwd) });
  }

  // 2. The column height: the graph in one column would be `total` tall; n columns of about the
  // mean lineage width make a shape of `aspect`. A few column counts around that are packed,
  // and the one that Fit shows largest in a view of that shape wins.
  const indentW = (d: number) => Math.min(d, MAX_INDENT) * COL;
  let total = 0;
  let area = 0;
  for (const g of plan) {
    total += GROUP_HEAD + GROUP_GAP;
    for (const l of g.lineages) {
      const h = l.length * ROW;
      total += h;
      area += h * (PAD * 2 + NODE_W + Math.max(...l.map((r) => indentW(r.fg.depth))));
    }
  }
  const shape = Math.max(0.2, aspect);
  const meanW = total > 0 ? Math.max(NODE_W + PAD * 2, area / total) + COL_GAP : NODE_W;
  const guess = Math.max(1, Math.round(Math.sqrt((shape * total) / meanW)));
  let best: Packed | null = null;
  for (let n = Math.max(1, guess - 3); n <= guess + 4; n++) {
    const p = pack(plan, Math.max(GROUP_HEAD + ROW * 4, Math.ceil(total / n)), indentW);
    const scale = Math.min(shape / p.width, 1 / p.height);
    if (!best || scale > best.scale * 1.0001) best = { ...p, scale };
  }
  const { nodes, groups, width, height } = pack(plan, best!.colH, indentW);

  // 3. Edges: fork edges from each parent; cycle edges (not followed by the layout) in red.
  const edges: FGEdge[] = [];
  const pos = new Map<string, FGNode>();
  for (const n of nodes) pos.set(n.key, n);
  for (const g of plan) for (const l of g.lineages) for (const r of l) if (r.parent) edges.push(edge(r.parent, r.fg, r.n, r.parent.ghost ? "ghost" : r.n?.kind === "spawn" ? "spawn" : "fork"));
  for (const n of input) {
    if (n.status !== "cycle" || !n.parentPath) continue;
    const a = pos.get(n.parentPath);
    const b = pos.get(n.path);
    if (a && b) edges.push(edge(a, b, n, "cycle"));
  }
  return { nodes, edges, groups, width, height };
}

type Row = { fg: FGNode; parent: FGNode | null; n: ForkNode | null };
type Plan = { cwd: string; lineages: Row[][]; count: number; collapsed: boolean }[];
type Packed = { nodes: FGNode[]; groups: FGGroup[]; width: number; height: number; colH: number; scale: number };

/** Packs the lineages into columns `colH` tall (sets the nodes' x and y). */
function pack(plan: Plan, colH: number, indentW: (depth: number) => number): Packed {
  const nodes: FGNode[] = [];
  const groups: FGGroup[] = [];
  const colOf = new Map<FGNode, number>();
  const colW: number[] = [0];
  const segCol: number[] = [];
  let col = 0;
  let y = PAD;
  const bottom = PAD + colH;
  let seg: FGGroup | null = null;
  const closeSeg = () => {
    if (seg) {
      seg.height = y - seg.y;
      groups.push(seg);
      segCol.push(col);
    }
    seg = null;
  };
  let folder = { count: 0, collapsed: false };
  const openSeg = (cwd: string, cont: boolean) => {
    seg = { key: `${cwd}\u0000${groups.length}`, cwd, x: 0, y, width: 0, height: 0, cont, ...folder };
    y += GROUP_HEAD;
  };
  const nextCol = (cwd: string) => {
    closeSeg();
    col++;
    colW.push(0);
    y = PAD;
    openSeg(cwd, true);
  };
  /** Something of the current folder is already in this column. */
  const started = () => seg !== null && y > seg.y + GROUP_HEAD;
  for (const g of plan) {
    // The folder's head goes with its first lineage (or a column's worth of it).
    const first = Math.min((g.lineages[0]?.length ?? 1) * ROW, colH - GROUP_HEAD);
    if (y > PAD && y + GROUP_HEAD + first > bottom) {
      col++;
      colW.push(0);
      y = PAD;
    }
    folder = { count: g.count, collapsed: g.collapsed };
    openSeg(g.cwd, false);
    for (const l of g.lineages) {
      const h = l.length * ROW;
      // A lineage that fits a column is not split: it starts the next one instead.
      if (y + h > bottom && h <= colH - GROUP_HEAD && started()) nextCol(g.cwd);
      for (const r of l) {
        if (y + ROW > bottom + ROW / 2 && started()) nextCol(g.cwd);
        r.fg.y = y;
        r.fg.x = PAD + indentW(r.fg.depth); // within the column, for now
        colOf.set(r.fg, col);
        colW[col] = Math.max(colW[col], r.fg.x + NODE_W + PAD);
        nodes.push(r.fg);
        y += ROW;
      }
    }
    closeSeg();
    y += GROUP_GAP;
  }
  const colX: number[] = [];
  let x = 0;
  for (const w of colW) {
    colX.push(x);
    x += Math.max(w, NODE_W + PAD * 2) + COL_GAP;
  }
  const width = Math.max(NODE_W + PAD * 2, x - COL_GAP);
  for (const n of nodes) n.x += colX[colOf.get(n) ?? 0];
  groups.forEach((gr, i) => {
    gr.x = colX[segCol[i]] + 4;
    gr.width = Math.max(colW[segCol[i]], NODE_W + PAD * 2) - 8;
  });
  let height = PAD;
  for (const gr of groups) height = Math.max(height, gr.y + gr.height + GROUP_GAP);
  return { nodes, groups, width, height, colH, scale: 0 };
}

function edge(a: FGNode, b: FGNode, child: ForkNode | null, kind: FGEdge["kind"]): FGEdge {
  const x1 = a.x + 18;
  const y1 = a.y + NODE_H;
  const cy = b.y + NODE_H / 2;
  const x2 = b.x;
  let d: string;
  if (kind === "cycle") {
    const sx = a.x + NODE_W;
    const sy = a.y + NODE_H / 2;
    const bx = b.x + NODE_W;
    const off = 40;
    d = `M${sx} ${sy}C${sx + off} ${sy} ${bx + off} ${cy} ${bx} ${cy}`;
  } else if (x2 > a.x + NODE_W) {
    // Into another column: from the parent's right side to the fork's left side.
    const sx = a.x + NODE_W;
    const sy = a.y + NODE_H / 2;
    const mx = (sx + x2) / 2;
    d = `M${sx} ${sy}C${mx} ${sy} ${mx} ${cy} ${x2} ${cy}`;
  } else if (x2 < x1 + 10 && b.y > y1) {
    // Past the deepest indent: straight down into the fork's top.
    d = `M${x1} ${y1}V${b.y}`;
  } else if (cy - 8 > y1) {
    d = `M${x1} ${y1}V${cy - 8}Q${x1} ${cy} ${x1 + 8} ${cy}H${x2}`;
  } else {
    d = `M${x1} ${y1}L${x2} ${cy}`;
  }
  const label =
    kind === "cycle"
      ? "cycle"
      : kind === "ghost"
        ? "parent missing"
        : kind === "spawn"
          ? child?.spawnedByGuess
            ? "subagent run (start guessed)"
            : "subagent run"
          : child
            ? forkPointText(child)
            : "";
  // Where the fork happened in the parent sits in the gap just above the fork's node, where its
  // edge arrives.
  const text = kind === "fork" && label !== "";
  // Beside the edge where it comes down into the node (at most 18 px in), not over it.
  const lx = kind === "cycle" ? Math.max(a.x, b.x) + NODE_W + 28 : text ? b.x + 26 : x1 + 14;
  const ly = kind === "cycle" ? (a.y + b.y) / 2 + NODE_H / 2 : text ? b.y - 3 : cy - 5;
  const spawnedBy = kind === "spawn" ? (child?.spawnedBy ?? null) : null;
  const guess = kind === "spawn" && !!child?.spawnedByGuess;
  const full =
    text && child
      ? forkPointText(child, 2000)
      : kind === "spawn"
        ? `Spawned by entry ${spawnedBy ?? "?"}${child?.spawnedByToolCall ? ` (tool call ${child.spawnedByToolCall})` : ""}${guess ? ": a guess, the last entry before the run began" : ""}`
        : label;
  return { key: `${a.key}->${b.key}:${kind}`, child: b.path, forkPointId: child?.forkPointId ?? null, d, label, full, lx, ly, kind, spawnedBy, guess };
}

/** Where a fork happened, on its parent: "entry 12 of 40 · “its message”" (the core gives the
 *  position; a fork point not in the parent's entries falls back to its id). */
export function forkPointText(n: ForkNode, max = 34): string {
  if (!n.forkPointId) return "";
  const at = n.forkPointEntry && n.parentEntries ? `entry ${n.forkPointEntry} of ${n.parentEntries}` : `at ${n.forkPointId.slice(0, 8)}`;
  // `max` counts the whole label (it stays within a node's width on the graph).
  return n.forkPointPreview ? `${at} · ${edgeText(n.forkPointPreview, Math.max(8, max - at.length - 5))}` : at;
}

/** Shortens a title to fit a node (SVG text has no ellipsis). */
export function fitText(s: string, max: number): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > max ? t.slice(0, Math.max(1, max - 1)) + "…" : t;
}

/** An edge label: the fork point's message, cut to fit beside the edge. */
export function edgeText(text: string, max = 40): string {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > max ? `“${t.slice(0, max - 1)}…”` : `“${t}”`;
}

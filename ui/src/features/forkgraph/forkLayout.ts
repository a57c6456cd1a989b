// A layered layout of the fork graph: sessions grouped by cwd; in each group a left-to-right tree
// where x = fork depth and rows follow a depth-first walk (children by creation time). Missing
// parents become dashed ghost nodes; members of a parent cycle are roots with a red marker.

import type { ForkNode } from "../../lib/bindings/ForkNode";

export const NODE_W = 220;
export const NODE_H = 42;
export const COL = 120;
export const ROW = 54;
export const GROUP_HEAD = 30;
export const GROUP_GAP = 18;
export const PAD = 16;

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
  kind: "fork" | "ghost" | "cycle";
}

export interface FGGroup {
  cwd: string;
  y: number;
  height: number;
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

export function layoutForkGraph(input: ForkNode[], describe: (n: ForkNode) => string = () => ""): ForkLayout {
  const byPath = new Map(input.map((n) => [n.path, n]));
  const kids = new Map<string, ForkNode[]>();
  const roots: ForkNode[] = [];
  const ghostKids = new Map<string, ForkNode[]>();
  for (const n of input) {
    const parent = n.parentPath ? byPath.get(n.parentPath) : undefined;
    if (n.parentPath && n.status === "ok" && parent) {
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

  const groups: FGGroup[] = [];
  const nodes: FGNode[] = [];
  const edges: FGEdge[] = [];
  const pos = new Map<string, FGNode>();
  let y = PAD;
  let maxDepth = 0;
  const order = [...rootsByCwd.entries()].sort((a, b) => Math.max(...b[1].map((r) => r.modified)) - Math.max(...a[1].map((r) => r.modified)));
  for (const [cwd, rs] of order) {
    const gy = y;
    y += GROUP_HEAD;
    rs.sort((a, b) => b.modified - a.modified);
    for (const r of rs) {
      const stack: { n: ForkNode | null; ghost: string | null; depth: number; parent: FGNode | null }[] = [{ n: r.node, ghost: r.ghost, depth: 0, parent: null }];
      const seen = new Set<string>();
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
              x: PAD + it.depth * COL,
              y,
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
              x: PAD + it.depth * COL,
              y,
              depth: it.depth,
              ghost: true,
              cycle: false,
              missingParent: false,
              node: null,
            };
        nodes.push(fg);
        pos.set(key, fg);
        maxDepth = Math.max(maxDepth, it.depth);
        y += ROW;
        if (it.parent) edges.push(edge(it.parent, fg, it.n, it.parent.ghost ? "ghost" : "fork"));
        const children = it.n ? (kids.get(it.n.path) ?? []) : (ghostKids.get(it.ghost ?? "") ?? []);
        for (let i = children.length - 1; i >= 0; i--) stack.push({ n: children[i], ghost: null, depth: it.depth + 1, parent: fg });
      }
    }
    groups.push({ cwd, y: gy, height: y - gy });
    y += GROUP_GAP;
  }
  // Cycle edges (not followed by the layout): from the parent to the child, in red.
  for (const n of input) {
    if (n.status !== "cycle" || !n.parentPath) continue;
    const a = pos.get(n.parentPath);
    const b = pos.get(n.path);
    if (a && b) edges.push(edge(a, b, n, "cycle"));
  }
  return { nodes, edges, groups, width: PAD * 2 + maxDepth * COL + NODE_W, height: y };
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
        : child?.forkPointPreview
          ? edgeText(child.forkPointPreview)
          : child?.forkPointLine
            ? `at L${child.forkPointLine}`
            : child?.forkPointId
              ? `at ${child.forkPointId.slice(0, 8)}`
              : "";
  // The fork point's message sits in the gap just above the fork's node, where its edge arrives.
  const text = kind === "fork" && !!child?.forkPointPreview;
  const lx = kind === "cycle" ? Math.max(a.x, b.x) + NODE_W + 28 : text ? b.x + 2 : x1 + 14;
  const ly = kind === "cycle" ? (a.y + b.y) / 2 + NODE_H / 2 : text ? b.y - 3 : cy - 5;
  const full = text ? (child?.forkPointPreview ?? "") : label;
  return { key: `${a.key}->${b.key}:${kind}`, child: b.path, forkPointId: child?.forkPointId ?? null, d, label, full, lx, ly, kind };
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

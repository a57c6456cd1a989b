// Projects a session's tree (optionally with its forks, "unified") to what a filter shows, and lays
// it out into `TreeRow`s. Used by the fake backend.

import type { TreeFilter } from "../../bindings/TreeFilter";
import type { TreeQuery } from "../../bindings/TreeQuery";
import type { TreeRow } from "../../bindings/TreeRow";
import type { Severity } from "../../bindings/Severity";
import { layoutTree, type LaidRow, type LayoutNode } from "./layout";
import { BOOKKEEPING, pathTo, previewOf, type FakeFile, type Node, type Tree } from "./session";

/** A tree node as drawn: an entry of one of the sessions in `sessions`. */
export interface PNode extends LayoutNode {
  children: PNode[];
  entry: Node;
  session: number;
  label: string | null;
  isLeaf: boolean;
  /** Parent in the drawn (projected) tree. */
  parentKey: string | null;
}

export interface SessionSource {
  file: FakeFile;
  tree: Tree;
  toolCalls: Map<string, { name: string; args: Record<string, unknown> }>;
}

/** One entry of the merged (unified) tree before projection. */
interface UNode {
  entry: Node;
  session: number;
  children: UNode[];
  label: string | null;
}

export function visibleIn(filter: TreeFilter, u: { entry: Node; label: string | null }, leafRep?: Node | null): boolean {
  switch (filter) {
    case "default":
      return !BOOKKEEPING.has(u.entry.type);
    case "user-only":
      return u.entry.role === "user";
    case "labeled":
      return u.label !== null || (leafRep !== undefined && u.entry === leafRep);
    case "all":
      return true;
  }
}

function groupOf(n: Node): LayoutNode["group"] {
  if (n.role === "user") return "user";
  if (n.role === "assistant") return "assistant";
  if (n.role === "toolResult" || n.role === "bashExecution") return "tool";
  return "other";
}

/**
 * Builds the merged tree: session 0 as is; in a unified view each fork's own entries hang off the
 * entry they were copied from (copied lines are drawn once, in the parent).
 */
function merge(sources: SessionSource[], parents: (number | null)[]): UNode[] {
  const roots: UNode[] = [];
  const maps: Map<string, UNode>[] = [];
  sources.forEach((src, s) => {
    const map = new Map<string, UNode>();
    maps.push(map);
    const parentMap = parents[s] !== null && parents[s] !== undefined ? maps[parents[s]!] : null;
    for (const e of src.tree.order) {
      if (parentMap?.has(e.id)) {
        map.set(e.id, parentMap.get(e.id)!);
        continue;
      }
      const u: UNode = { entry: e, session: s, children: [], label: src.tree.labels.get(e.id) ?? null };
      map.set(e.id, u);
    }
    for (const e of src.tree.order) {
      const u = map.get(e.id)!;
      if (u.session !== s) continue;
      const p = e.parentId && e.parentId !== e.id ? map.get(e.parentId) : undefined;
      if (p) p.children.push(u);
      else if (s === 0) roots.push(u);
    }
  });
  // children by timestamp, ties in order of appearance
  const stack = [...roots];
  while (stack.length) {
    const u = stack.pop()!;
    if (u.children.length > 1) u.children.sort((a, b) => (a.entry.ts ?? 0) - (b.entry.ts ?? 0));
    for (const c of u.children) stack.push(c);
  }
  return roots;
}

export interface Projection {
  roots: PNode[];
  /** Every projected node by entry id (first session wins on a clash). */
  byId: Map<string, PNode>;
  /** The node that stands for the leaf (the leaf, or its nearest shown ancestor). */
  leafNode: PNode | null;
}

/**
 * Projects the merged tree to the filter: a shown node's parent is its nearest shown ancestor.
 * `leafId` is the effective leaf of session 0.
 */
export function project(sources: SessionSource[], parents: (number | null)[], filter: TreeFilter, leafId: string | null): Projection {
  const base = sources[0].tree;
  const leaf = leafId ? base.byId.get(leafId) ?? null : null;
  const onPath = new Set<Node>(pathTo(leaf));
  const uroots = merge(sources, parents);

  const byId = new Map<string, PNode>();
  const roots: PNode[] = [];
  let leafNode: PNode | null = null;
  // The leaf's representative: nearest ancestor-or-self that is not bookkeeping (and shown).
  let leafRep: Node | null = null;
  for (let n = leaf; n; n = n.parent) {
    const lab = base.labels.get(n.id) ?? null;
    const f = filter === "labeled" ? "default" : filter;
    if (visibleIn(f, { entry: n, label: lab })) {
      leafRep = n;
      break;
    }
  }

  // Iterative DFS carrying the nearest shown ancestor.
  const stack: { u: UNode; anc: PNode | null }[] = [];
  // Other roots first (file order), the root holding the active path last.
  const ordered = [...uroots].sort((a, b) => Number(onPath.has(a.entry)) - Number(onPath.has(b.entry)));
  for (let i = ordered.length - 1; i >= 0; i--) stack.push({ u: ordered[i], anc: null });
  while (stack.length) {
    const { u, anc } = stack.pop()!;
    let next = anc;
    if (visibleIn(filter, u, leafRep)) {
      const isLeaf = u.session === 0 && u.entry === leafRep;
      const t = u.entry.type;
      const p: PNode = {
        key: u.entry.id,
        children: [],
        onPath: u.session === 0 && onPath.has(u.entry),
        ts: u.entry.ts,
        foldable: u.label === null && !isLeaf && t !== "compaction" && t !== "branch_summary",
        group: groupOf(u.entry),
        entry: u.entry,
        session: u.session,
        label: u.label,
        isLeaf,
        parentKey: anc?.key ?? null,
      };
      if (!byId.has(p.key)) byId.set(p.key, p);
      if (isLeaf) leafNode = p;
      if (anc) anc.children.push(p);
      else roots.push(p);
      next = p;
    }
    for (let i = u.children.length - 1; i >= 0; i--) stack.push({ u: u.children[i], anc: next });
  }
  return { roots, byId, leafNode };
}

export interface LaidTree {
  /** Row count. */
  total: number;
  /** Row `i`, built on first use. */
  row(i: number): TreeRow;
  lanes: number;
  leafRow: number | null;
  /** Entry id → row index (entries inside a fold map to the fold row). */
  rowOf: Map<string, number>;
  projection: Projection;
}

const SEVERITY_RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2 };

export function layoutSession(
  sources: SessionSource[],
  parents: (number | null)[],
  query: TreeQuery,
  leafId: string | null,
): LaidTree {
  const projection = project(sources, parents, query.filter, leafId);
  const laid = layoutTree(projection.roots, {
    fold: query.filter === "default",
    expanded: new Set(query.expanded),
    collapsed: new Set(query.collapsed),
  });
  const diagByLine: Map<number, Severity>[] = sources.map((s) => {
    const m = new Map<number, Severity>();
    for (const d of s.file.diagnostics) {
      if (d.line === null) continue;
      const prev = m.get(d.line);
      if (!prev || SEVERITY_RANK[d.severity] > SEVERITY_RANK[prev]) m.set(d.line, d.severity);
    }
    return m;
  });
  const rowOf = new Map<string, number>();
  let leafRow: number | null = null;
  laid.rows.forEach((lr, i) => {
    if (lr.fold) for (const f of lr.fold.nodes) rowOf.set(f.key, i);
    else {
      rowOf.set(lr.node.key, i);
      if (lr.node.isLeaf) leafRow = i;
    }
  });
  const built: (TreeRow | undefined)[] = [];
  const build = (lr: LaidRow<PNode>, i: number): TreeRow => {
    const n = lr.node;
    const e = n.entry;
    const src = sources[n.session];
    if (lr.fold) {
      const nodes = lr.fold.nodes as PNode[];
      const count = (g: LayoutNode["group"]) => nodes.filter((x) => x.group === g).length;
      return {
        row: i,
        id: e.id,
        parentId: n.parentKey,
        line: e.line,
        type: "fold",
        role: null,
        ts: e.ts,
        label: null,
        onPath: nodes.some((x) => x.onPath),
        isLeaf: false,
        childCount: 1,
        collapsed: null,
        preview: "",
        detail: null,
        isError: false,
        tokens: null,
        cost: null,
        fold: {
          id: lr.fold.id,
          count: nodes.length,
          users: count("user"),
          assistants: count("assistant"),
          tools: count("tool"),
          others: count("other"),
          firstTs: nodes[0].ts,
          lastTs: nodes[nodes.length - 1].ts,
          onPath: nodes.some((x) => x.onPath),
        },
        diagnostic: null,
        session: n.session,
        lane: lr.lane,
        pass: lr.pass,
        up: lr.up,
        down: lr.down,
        branchFrom: lr.branchFrom,
        color: lr.color,
      };
    }
    const pv = previewOf(e.raw, src.toolCalls);
    const msg = e.raw.type === "message" ? (e.raw.message as Record<string, unknown>) : null;
    const usage = msg?.role === "assistant" ? (msg.usage as { totalTokens?: number; cost?: { total?: number } } | undefined) : undefined;
    return {
      row: i,
      id: e.id,
      parentId: n.parentKey,
      line: e.line,
      type: e.type,
      role: e.role,
      ts: e.ts,
      label: n.label,
      onPath: n.onPath,
      isLeaf: n.isLeaf,
      childCount: n.children.length,
      collapsed: lr.collapsed,
      preview: pv.preview,
      detail: pv.detail,
      isError: pv.isError,
      tokens: usage?.totalTokens ?? null,
      cost: usage?.cost?.total ?? null,
      fold: null,
      diagnostic: diagByLine[n.session].get(e.line) ?? null,
      session: n.session,
      lane: lr.lane,
      pass: lr.pass,
      up: lr.up,
      down: lr.down,
      branchFrom: lr.branchFrom,
      color: lr.color,
    };
  };
  const row = (i: number): TreeRow => {
    let r = built[i];
    if (!r) {
      r = build(laid.rows[i], i);
      built[i] = r;
    }
    return r;
  };
  return { total: laid.rows.length, row, lanes: laid.lanes, leafRow, rowOf, projection };
}

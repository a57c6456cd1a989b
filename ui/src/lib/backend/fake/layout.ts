// Git-style lane layout of a tree, as docs/ipc.md describes `tree_page`:
// a depth-first walk; at a branch point the side children's subtrees come first, each in a lane to
// the right, then the "main" child (on the active path, else the newest) continues in the parent's
// lane, so the active path runs down lane 0. Long single-child runs are folded.
// Iterative throughout: trees 100k deep exist.

/** A node of the tree to lay out (already projected to what the filter shows). */
export interface LayoutNode {
  /** Unique key (the entry id). */
  key: string;
  /** Children in display order (timestamp ascending). */
  children: LayoutNode[];
  /** On the root → leaf path. */
  onPath: boolean;
  /** Timestamp (ms) used to find the newest child. */
  ts: number | null;
  /** May be hidden inside a fold (a plain entry: no label, not the leaf, not a compaction…). */
  foldable: boolean;
  /** For fold statistics: `user`, `assistant`, `tool` or `other`. */
  group: "user" | "assistant" | "tool" | "other";
}

export interface FoldSpec {
  id: string;
  nodes: LayoutNode[];
}

export interface LaidRow<N extends LayoutNode = LayoutNode> {
  /** The node (for a fold: its first node). */
  node: N;
  fold: FoldSpec | null;
  lane: number;
  pass: number[];
  up: boolean;
  down: boolean;
  branchFrom: number | null;
  color: number;
  /** Hidden descendants when the node is collapsed. */
  collapsed: number | null;
}

export interface LayoutOptions {
  /** Fold runs of single-child entries. */
  fold: boolean;
  /** Fold ids the user opened. */
  expanded: ReadonlySet<string>;
  /** Keys whose subtrees the user closed. */
  collapsed: ReadonlySet<string>;
  /** A run must be at least this long to fold. */
  foldMin?: number;
  /** Entries shown before a fold. */
  foldHead?: number;
  /** Entries shown after a fold. */
  foldTail?: number;
}

export interface Layout<N extends LayoutNode = LayoutNode> {
  rows: LaidRow<N>[];
  lanes: number;
}

export const LANE_COLORS = 6;

/** A stable colour for a side branch (1…5; 0 is the active path). */
export function branchColor(key: string): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return 1 + ((h >>> 0) % (LANE_COLORS - 1));
}

/** The child that continues in the parent's lane: the one on the active path, else the newest. */
export function mainChild(children: LayoutNode[]): number {
  let best = -1;
  for (let i = 0; i < children.length; i++) if (children[i].onPath) return i;
  let bestTs = -Infinity;
  for (let i = 0; i < children.length; i++) {
    const t = children[i].ts ?? -Infinity;
    if (best < 0 || t >= bestTs) {
      best = i;
      bestTs = t;
    }
  }
  return best;
}

function countDescendants(n: LayoutNode): number {
  let count = 0;
  const stack = [...n.children];
  while (stack.length) {
    const c = stack.pop()!;
    count++;
    for (const g of c.children) stack.push(g);
  }
  return count;
}

interface Task<N> {
  node: N;
  /** Lane to draw in; -1 = allocate a fresh lane when the task starts (a side branch). */
  lane: number;
  /** For a side branch: the parent's lane. */
  from: number | null;
  /** The node continues its parent's lane (has a line from above). */
  up: boolean;
  color: number;
}

/**
 * Lays out `roots` (the root holding the active path should come first).
 * Returns one entry per row, with the lane geometry of docs/ipc.md.
 */
export function layoutTree<N extends LayoutNode>(roots: N[], opts: LayoutOptions): Layout<N> {
  const foldMin = opts.foldMin ?? 12;
  const head = opts.foldHead ?? 3;
  const tail = opts.foldTail ?? 2;
  const rows: LaidRow<N>[] = [];
  const busy: boolean[] = [];
  let lanes = 1;

  const passFor = (lane: number): number[] => {
    const p: number[] = [];
    for (let i = 0; i < busy.length; i++) if (busy[i] && i !== lane) p.push(i);
    return p;
  };
  const freeLane = (): number => {
    let i = 0;
    while (busy[i]) i++;
    return i;
  };

  // Roots are walked one after the other in lane 0.
  const stack: Task<N>[] = [];
  for (let i = roots.length - 1; i >= 0; i--) {
    const r = roots[i];
    stack.push({ node: r, lane: 0, from: null, up: false, color: r.onPath ? 0 : branchColor(r.key) });
  }

  while (stack.length) {
    const task = stack.pop()!;
    let lane = task.lane;
    if (lane < 0) lane = freeLane();
    busy[lane] = true;
    if (lane + 1 > lanes) lanes = lane + 1;
    let n: N | null = task.node;
    let up = task.up;
    let from = task.from;
    const color = task.color;

    // Walk the chain in this lane until it ends or branches.
    while (n) {
      // A long run of plain single-child entries: head, fold, tail.
      if (opts.fold && n.foldable && n.children.length === 1 && !opts.collapsed.has(n.key)) {
        const run: N[] = [];
        let m: N | null = n;
        while (m && m.foldable && m.children.length === 1 && !opts.collapsed.has(m.key)) {
          run.push(m);
          m = m.children[0] as N;
        }
        if (run.length >= foldMin) {
          const folded = run.slice(head, run.length - tail);
          const fid = folded[0].key;
          const open = opts.expanded.has(fid);
          for (let i = 0; i < run.length; i++) {
            if (!open && i >= head && i < run.length - tail) {
              if (i === head) {
                rows.push(mk(folded[0], { id: fid, nodes: folded }, lane, passFor(lane), up, true, from, color, null));
                up = true;
                from = null;
              }
              continue;
            }
            rows.push(mk(run[i], null, lane, passFor(lane), up, true, from, color, null));
            up = true;
            from = null;
          }
          n = run[run.length - 1].children[0] as N;
          continue;
        }
      }

      const cur: N = n;
      const collapsedHere: boolean = opts.collapsed.has(cur.key) && cur.children.length > 0;
      const kids: N[] = collapsedHere ? [] : (cur.children as N[]);
      const down = kids.length > 0;
      rows.push(
        mk(n, null, lane, passFor(lane), up, down, from, color, collapsedHere ? countDescendants(n) : null),
      );
      from = null;
      if (!down) {
        busy[lane] = false;
        n = null;
        break;
      }
      const mi = mainChild(kids);
      if (kids.length === 1) {
        n = kids[0];
        up = true;
        continue;
      }
      // Branch point: side subtrees first (each in its own lane), then the main child here.
      stack.push({ node: kids[mi], lane, from: null, up: true, color });
      for (let i = kids.length - 1; i >= 0; i--) {
        if (i === mi) continue;
        const k = kids[i];
        stack.push({ node: k, lane: -1, from: lane, up: false, color: branchColor(k.key) });
      }
      n = null;
    }
  }
  return { rows, lanes };

  function mk(
    node: N,
    fold: FoldSpec | null,
    lane: number,
    pass: number[],
    up: boolean,
    down: boolean,
    from: number | null,
    color: number,
    collapsed: number | null,
  ): LaidRow<N> {
    return { node, fold, lane, pass, up, down, branchFrom: from, color, collapsed };
  }
}

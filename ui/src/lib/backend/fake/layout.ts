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
  /** A run must be at least this long to fold (pi-session: more than 12). */
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

/**
 * Colours of branch heads, as pi-session assigns them: the main line of the last root is 0; every
 * other branch (a side branch or another root) takes the next of 1…5 in turn, in the depth-first
 * row order of the whole tree (folds and collapsed subtrees do not matter, so colours are stable).
 */
export function branchColors<N extends LayoutNode>(roots: N[]): Map<LayoutNode, number> {
  const out = new Map<LayoutNode, number>();
  let c = 0;
  const next = () => (c++ % (LANE_COLORS - 1)) + 1;
  const stack: LayoutNode[] = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push(roots[i]);
  // Roots are walked in order; all but the last get a colour in turn.
  roots.forEach((r, i) => {
    if (i === roots.length - 1) out.set(r, 0);
  });
  while (stack.length) {
    const head = stack.pop()!;
    if (!out.has(head)) out.set(head, next());
    let n: LayoutNode | null = head;
    while (n) {
      const kids: LayoutNode[] = n.children;
      if (kids.length === 0) break;
      const mi = mainChild(kids);
      if (kids.length > 1) {
        // Sides are walked before the main child; push them so the first side pops first,
        // and the main continuation after them.
        stack.push(kids[mi]);
        out.set(kids[mi], -1);
        for (let i = kids.length - 1; i >= 0; i--) if (i !== mi) stack.push(kids[i]);
        break;
      }
      n = kids[0];
    }
  }
  // Main continuations carry their chain's colour: not stored (-1 marks them).
  for (const [k, v] of out) if (v === -1) out.delete(k);
  return out;
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
  const foldMin = opts.foldMin ?? 13;
  const head = opts.foldHead ?? 3;
  const tail = opts.foldTail ?? 3;
  const colorOf = branchColors(roots);
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
    stack.push({ node: r, lane: 0, from: null, up: false, color: colorOf.get(r) ?? 0 });
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
      if (opts.fold && n.foldable && n.children.length <= 1 && !opts.collapsed.has(n.key)) {
        const run: N[] = [];
        let m: N | null = n;
        while (m && m.foldable && m.children.length <= 1 && !opts.collapsed.has(m.key)) {
          run.push(m);
          m = m.children.length ? (m.children[0] as N) : null;
        }
        if (run.length >= foldMin) {
          const folded = run.slice(head, run.length - tail);
          const fid = `fold:${folded[0].key}`;
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
            const last = i === run.length - 1 && run[i].children.length === 0;
            rows.push(mk(run[i], null, lane, passFor(lane), up, !last, from, color, null));
            up = true;
            from = null;
          }
          const end = run[run.length - 1];
          if (end.children.length === 0) {
            busy[lane] = false;
            n = null;
            break;
          }
          n = end.children[0] as N;
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
        stack.push({ node: k, lane: -1, from: lane, up: false, color: colorOf.get(k) ?? 1 });
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

// Which sessions the fork graph draws: a session's family (its root session and every fork
// below it, along parentSession links), and a filter on title, file and folder.

import type { ForkNode } from "../../lib/bindings/ForkNode";

/** The family of `path`: up its parents to the first session (a cycle stops the walk), then
 *  everything forked below that one. Empty when `path` is not a node. */
export function family(nodes: ForkNode[], path: string): ForkNode[] {
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  let top = byPath.get(path);
  if (!top) return [];
  const seen = new Set<string>([top.path]);
  while (top.parentPath && top.status === "ok") {
    const up = byPath.get(top.parentPath);
    if (!up || seen.has(up.path)) break;
    seen.add(up.path);
    top = up;
  }
  const kids = new Map<string, ForkNode[]>();
  for (const n of nodes) {
    if (!n.parentPath) continue;
    const l = kids.get(n.parentPath) ?? [];
    l.push(n);
    kids.set(n.parentPath, l);
  }
  const out: ForkNode[] = [];
  const done = new Set<string>();
  const stack = [top];
  while (stack.length) {
    const n = stack.pop()!;
    if (done.has(n.path)) continue;
    done.add(n.path);
    out.push(n);
    for (const k of kids.get(n.path) ?? []) stack.push(k);
  }
  return out;
}

/** The sessions whose title, file or folder holds `query` (any case), with the sessions they
 *  were forked from, so each match keeps its way back to its first session. */
export function filterNodes(nodes: ForkNode[], query: string): ForkNode[] {
  const q = query.trim().toLowerCase();
  if (!q) return nodes;
  const byPath = new Map(nodes.map((n) => [n.path, n]));
  const keep = new Set<string>();
  for (const n of nodes) {
    if (!(n.title.toLowerCase().includes(q) || n.path.toLowerCase().includes(q) || (n.cwd ?? "").toLowerCase().includes(q))) continue;
    let cur: ForkNode | undefined = n;
    while (cur && !keep.has(cur.path)) {
      keep.add(cur.path);
      cur = cur.parentPath ? byPath.get(cur.parentPath) : undefined;
    }
  }
  return nodes.filter((n) => keep.has(n.path));
}

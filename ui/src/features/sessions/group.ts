// Sessions grouped by cwd, forks nested under their parent (when the parent is listed in the same
// cwd), spawned sessions (subagent runs) nested under their parent and folded until asked for.

import type { SessionRow } from "../../lib/bindings/SessionRow";
import { isLinked } from "../lineage/lineage";

export interface SessionItem {
  row: SessionRow;
  depth: number;
  /** Spawned sessions nested under this one (shown or folded). */
  spawns?: number;
  /** Its spawns are shown. */
  spawnsOpen?: boolean;
}

export interface CwdGroup {
  cwd: string;
  items: SessionItem[];
  /** Sessions in the group, folded spawns included. */
  count: number;
  modified: number;
}

export type SessionSort = "recent" | "name" | "size";

/** `openSpawns`: the paths of the sessions whose spawns are shown. */
export function groupSessions(rows: SessionRow[], sort: SessionSort = "recent", openSpawns: ReadonlySet<string> = new Set()): CwdGroup[] {
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const children = new Map<string, SessionRow[]>();
  const spawned = new Map<string, SessionRow[]>();
  const tops = new Map<string, SessionRow[]>();
  const add = (m: Map<string, SessionRow[]>, k: string, r: SessionRow) => {
    const list = m.get(k) ?? [];
    list.push(r);
    m.set(k, list);
  };
  for (const r of rows) {
    const cwd = r.cwd ?? "";
    const parent = r.parentPath ? byPath.get(r.parentPath) : undefined;
    const linked = !!parent && parent.path !== r.path && isLinked(r.forkStatus);
    if (linked && r.kind === "spawn") add(spawned, parent.path, r);
    else if (linked && (parent.cwd ?? "") === cwd) add(children, parent.path, r);
    else add(tops, cwd, r);
  }
  const created = (r: SessionRow) => (r.created ? Date.parse(r.created) : 0) || 0;
  const byCreated = (l: SessionRow[] | undefined) => [...(l ?? [])].sort((a, b) => created(a) - created(b));
  /** Sessions under `path` through both kinds of link (folded or not). */
  const under = (path: string, seen: Set<string>): number => {
    let n = 0;
    for (const r of [...(children.get(path) ?? []), ...(spawned.get(path) ?? [])]) {
      if (seen.has(r.path)) continue;
      seen.add(r.path);
      n += 1 + under(r.path, seen);
    }
    return n;
  };
  const groups: CwdGroup[] = [];
  for (const [cwd, list] of tops) {
    list.sort(
      sort === "name"
        ? (a, b) => a.title.localeCompare(b.title)
        : sort === "size"
          ? (a, b) => b.entryCount - a.entryCount
          : (a, b) => (b.modified ?? 0) - (a.modified ?? 0),
    );
    const items: SessionItem[] = [];
    const seen = new Set<string>();
    const stack: SessionItem[] = list.map((row) => ({ row, depth: 0 })).reverse();
    while (stack.length) {
      const it = stack.pop()!;
      if (seen.has(it.row.path)) continue;
      seen.add(it.row.path);
      items.push(it);
      const runs = byCreated(spawned.get(it.row.path));
      if (runs.length) {
        it.spawns = runs.length;
        it.spawnsOpen = openSpawns.has(it.row.path);
      }
      // Its spawns first (under their toggle), then its forks.
      const kids = [...(it.spawnsOpen ? runs : []), ...byCreated(children.get(it.row.path))];
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ row: kids[i], depth: it.depth + 1 });
    }
    const counted = new Set<string>();
    let count = 0;
    for (const r of list) {
      if (counted.has(r.path)) continue;
      counted.add(r.path);
      count += 1 + under(r.path, counted);
    }
    const modified = Math.max(0, ...items.map((i) => i.row.modified ?? 0));
    groups.push({ cwd, items, count, modified });
  }
  if (sort === "name") groups.sort((a, b) => a.cwd.localeCompare(b.cwd));
  else groups.sort((a, b) => b.modified - a.modified);
  return groups;
}

/** The sessions whose spawns must be shown for `path` to be in the list: its spawn ancestors. */
export function spawnAncestors(rows: readonly SessionRow[], path: string): string[] {
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const out: string[] = [];
  const seen = new Set<string>([path]);
  for (let r = byPath.get(path); r && r.parentPath && isLinked(r.forkStatus); r = byPath.get(r.parentPath)) {
    if (seen.has(r.parentPath)) break;
    seen.add(r.parentPath);
    if (r.kind === "spawn") out.push(r.parentPath);
  }
  return out;
}

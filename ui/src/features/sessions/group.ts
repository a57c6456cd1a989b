// Sessions grouped by cwd, forks nested under their parent (when the parent is listed in the same cwd).

import type { SessionRow } from "../../lib/bindings/SessionRow";

export interface SessionItem {
  row: SessionRow;
  depth: number;
}

export interface CwdGroup {
  cwd: string;
  items: SessionItem[];
  count: number;
  modified: number;
}

export type SessionSort = "recent" | "name" | "size";

export function groupSessions(rows: SessionRow[], sort: SessionSort = "recent"): CwdGroup[] {
  const byPath = new Map(rows.map((r) => [r.path, r]));
  const children = new Map<string, SessionRow[]>();
  const tops = new Map<string, SessionRow[]>();
  for (const r of rows) {
    const cwd = r.cwd ?? "";
    const parent = r.parentPath ? byPath.get(r.parentPath) : undefined;
    if (parent && r.forkStatus === "ok" && (parent.cwd ?? "") === cwd && parent.path !== r.path) {
      const list = children.get(parent.path) ?? [];
      list.push(r);
      children.set(parent.path, list);
    } else {
      const list = tops.get(cwd) ?? [];
      list.push(r);
      tops.set(cwd, list);
    }
  }
  const created = (r: SessionRow) => (r.created ? Date.parse(r.created) : 0) || 0;
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
      const kids = [...(children.get(it.row.path) ?? [])].sort((a, b) => created(a) - created(b));
      for (let i = kids.length - 1; i >= 0; i--) stack.push({ row: kids[i], depth: it.depth + 1 });
    }
    const modified = Math.max(0, ...items.map((i) => i.row.modified ?? 0));
    groups.push({ cwd, items, count: items.length, modified });
  }
  if (sort === "name") groups.sort((a, b) => a.cwd.localeCompare(b.cwd));
  else groups.sort((a, b) => b.modified - a.modified);
  return groups;
}

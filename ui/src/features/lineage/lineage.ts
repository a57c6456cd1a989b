// A session's lineage as the core answers it (SessionRow, ForkNode): which links hold, the
// children a parent's entries started, and the figures a session and its family carry. Nothing
// here decides a link: the core's status and kind are read as they are.

import type { ForkNode } from "../../lib/bindings/ForkNode";
import type { ForkStatus } from "../../lib/bindings/ForkStatus";
import type { LinkKind } from "../../lib/bindings/LinkKind";
import type { SessionRow } from "../../lib/bindings/SessionRow";
import { cost, count, tokens } from "../../lib/format";

/** The link to the parent holds: found where recorded, found elsewhere (`relinked`), or a
 *  child outside the roots that names its listed parent. */
export function isLinked(status: ForkStatus): boolean {
  return status === "ok" || status === "relinked" || status === "outside-roots";
}

/** A child session as a parent's rows need it (a listed row or a graph node outside the roots). */
export interface Child {
  path: string;
  title: string;
  kind: LinkKind | null;
  /** The parent's entry that started it (a spawn). */
  spawnedBy: string | null;
  spawnedByToolCall: string | null;
  spawnedByGuess: boolean;
  /** Written outside the roots: opened read-only on request (`open_outside`). */
  outside: boolean;
}

type Linked = Pick<SessionRow, "path" | "title" | "parentPath" | "kind" | "spawnedBy" | "spawnedByToolCall" | "spawnedByGuess"> & { status: ForkStatus };

function child(n: Linked): Child {
  return { path: n.path, title: n.title, kind: n.kind, spawnedBy: n.spawnedBy, spawnedByToolCall: n.spawnedByToolCall, spawnedByGuess: n.spawnedByGuess, outside: n.status === "outside-roots" };
}

/** The linked children of `parent`: the listed sessions, and the graph's children outside the
 *  roots (when the graph is loaded), by creation order as given. */
export function childrenOf(parent: string, rows: readonly SessionRow[], graph: readonly ForkNode[] | null): Child[] {
  const out: Child[] = [];
  for (const r of rows) if (r.parentPath === parent && isLinked(r.forkStatus)) out.push(child({ ...r, status: r.forkStatus }));
  for (const n of graph ?? []) if (n.status === "outside-roots" && n.parentPath === parent) out.push(child(n));
  return out;
}

/** The spawns of `parent` by the entry that started them (`spawnedBy`). */
export function spawnsByEntry(parent: string, rows: readonly SessionRow[], graph: readonly ForkNode[] | null): Map<string, Child[]> {
  const m = new Map<string, Child[]>();
  for (const c of childrenOf(parent, rows, graph)) {
    if (c.kind !== "spawn" || !c.spawnedBy) continue;
    const l = m.get(c.spawnedBy) ?? [];
    l.push(c);
    m.set(c.spawnedBy, l);
  }
  return m;
}

/** The spawns of one entry started by tool call `toolCallId` (null: those no tool call names). */
export function spawnsOfCall(spawns: readonly Child[], toolCallId: string | null): Child[] {
  return spawns.filter((c) => (c.spawnedByToolCall ?? null) === toolCallId);
}

type Figures = Pick<SessionRow, "ownTokens" | "ownCost" | "familyTokens" | "familyCost" | "familySize">;

/** "12.3k tokens · $0.05": a pair of figures. */
export function figures(t: number, c: number): string {
  return `${tokens(t)} tokens · ${cost(c)}`;
}

/** The session's own figures and, when it has spawns, its family's (lines for a tooltip). */
export function familyLines(f: Figures): string[] {
  const own = `Own: ${figures(f.ownTokens, f.ownCost)}`;
  if (f.familySize <= 1) return [own];
  return [own, `Family (itself and ${count(f.familySize - 1, "spawn")}): ${figures(f.familyTokens, f.familyCost)}`];
}

/** "3 subagent runs". */
export function runsLabel(n: number): string {
  return count(n, "subagent run");
}

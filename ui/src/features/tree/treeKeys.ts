// Keyboard of the tree view, as pi's /tree: arrows move, ←/→ and PageUp/PageDown by a page,
// Home/End, Enter shows the branch of the selected entry (the transcript follows; nothing is
// written), Esc goes back to pi's own leaf, R resumes pi there (the one write that moves the
// leaf, confirmed first), Space opens a fold or collapses a branch point, z/- fold and unfold,
// [ ] jump between branch points, f cycles the filter, / focuses find, l (or L, pi's key)
// labels, F forks, ? shows the keys. m marks the selected node (as Ctrl+click does) for Compare
// and Keep only these branches; c compares the two marked nodes.

import type { AppState } from "../../lib/state/app.svelte";
import type { TreeRow } from "../../lib/bindings/TreeRow";

export interface KeyLike {
  key: string;
  shiftKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
}

export type TreeAction =
  | { t: "move"; by: number }
  | { t: "page"; dir: 1 | -1 }
  | { t: "home" }
  | { t: "end" }
  | { t: "activate" }
  | { t: "fold" }
  | { t: "branch"; dir: 1 | -1 }
  | { t: "filter" }
  | { t: "find" }
  | { t: "view" }
  | { t: "back" }
  | { t: "resume" }
  | { t: "label" }
  | { t: "fork" }
  | { t: "help" };

/** The keys, as the `?` overlay lists them (one source for the overlay and the handler's doc). */
export const TREE_KEYS: [string, string][] = [
  ["↑ ↓", "previous / next entry"],
  ["← → PgUp PgDn", "a page up / down"],
  ["Home End", "first / last entry"],
  ["Enter", "show this entry's branch (the transcript follows); nothing is written"],
  ["Esc", "back to pi's own leaf (after Enter or a branch switch)"],
  ["R", "Resume pi here: one leaf line, confirmed first; on a user message pi resumes at its parent and puts the text back in its editor"],
  ["Space  z  -", "open or close a fold, collapse or expand a branch point"],
  ["[ ]", "previous / next branch point"],
  ["l  L", "label the entry"],
  ["F", "fork from the entry into a new session file"],
  ["m  Ctrl+click", "mark the entry for Compare and Keep only these branches"],
  ["c", "compare the two marked entries"],
  ["f", "cycle the filter"],
  ["/", "find in the session"],
];

/** Maps a key press to an action (null: not ours). */
export function treeAction(e: KeyLike): TreeAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case "ArrowDown":
      return { t: "move", by: 1 };
    case "ArrowUp":
      return { t: "move", by: -1 };
    case "ArrowRight":
    case "PageDown":
      return { t: "page", dir: 1 };
    case "ArrowLeft":
    case "PageUp":
      return { t: "page", dir: -1 };
    case "Home":
      return { t: "home" };
    case "End":
      return { t: "end" };
    case "Enter":
      return { t: "view" };
    case "Escape":
      return { t: "back" };
    case "R":
      return { t: "resume" };
    case " ":
    case "Spacebar":
      return { t: "activate" };
    case "l":
    case "L":
      return { t: "label" };
    case "F":
      return { t: "fork" };
    case "z":
    case "-":
      return { t: "fold" };
    case "[":
      return { t: "branch", dir: -1 };
    case "]":
      return { t: "branch", dir: 1 };
    case "f":
      return { t: "filter" };
    case "/":
      return { t: "find" };
    default:
      return null;
  }
}

/** A fold id names its first hidden entry (pi-session: `fold:<id>`). */
export function foldIdIs(foldId: string, entryId: string): boolean {
  return foldId === entryId || foldId.endsWith(`:${entryId}`);
}

export function isBranchPoint(r: TreeRow): boolean {
  return r.type !== "fold" && (r.childCount > 1 || r.collapsed !== null);
}

/** The stores the tree's keys act on. */
export type TreeStores = Pick<AppState, "chrome" | "session" | "selection" | "writes">;

/** Runs an action against the app's stores. `page` = rows per screen. */
export async function runTreeAction({ chrome, session, selection, writes }: TreeStores, a: TreeAction, page: number): Promise<void> {
  const tree = session.tree;
  const total = tree.total;
  if (total === 0) return;
  const cur = selection.row ?? tree.meta?.leafRow ?? null;
  const from = cur ?? -1;
  switch (a.t) {
    case "move":
      await selection.selectRow(cur === null ? (a.by > 0 ? 0 : total - 1) : from + a.by);
      return;
    case "page":
      await selection.selectRow(cur === null ? 0 : from + a.dir * Math.max(1, page - 1));
      return;
    case "home":
      await selection.selectRow(0);
      return;
    case "end":
      await selection.selectRow(total - 1);
      return;
    case "activate":
    case "fold": {
      if (cur === null) return;
      const r = tree.row(cur);
      if (!r) return;
      if (r.type === "fold" && r.fold) {
        await session.expandFold(r.fold.id);
        await selection.selectRow(cur, { reveal: true });
        return;
      }
      if (isBranchPoint(r)) {
        await session.toggleCollapse(r.id);
        return;
      }
      {
        // Inside an opened fold: close it again and select the fold row.
        const expanded = session.query?.expanded ?? [];
        for (let i = cur; i >= 0; i--) {
          const x = tree.row(i);
          if (!x) break;
          if (x.lane !== r.lane) continue;
          const f = expanded.find((e) => foldIdIs(e, x.id));
          if (f) {
            const row = await session.refold(f);
            if (row !== null) await selection.selectRow(row);
            return;
          }
          if (!x.up) break;
        }
      }
      return;
    }
    case "branch": {
      // The previous / next branch point; past the last one, the start / end of the tree.
      const next = await tree.findRow(from, a.dir, isBranchPoint);
      await selection.selectRow(next ?? (a.dir < 0 ? 0 : total - 1));
      return;
    }
    case "filter":
      await session.cycleFilter();
      return;
    case "find":
      void chrome.focusFind.emit();
      return;
    case "help":
      chrome.helpOpen = true;
      return;
    case "back":
      session.view(null);
      return;
    case "view":
    case "resume":
    case "label":
    case "fork": {
      if (cur === null) return;
      const r = tree.row(cur);
      if (!r) return;
      if (r.type === "fold" && r.fold) {
        // A fold row stands for many entries: Enter opens it, as before.
        if (a.t === "view") {
          await session.expandFold(r.fold.id);
          await selection.selectRow(cur, { reveal: true });
        }
        return;
      }
      const path = selection.sessionOf(r);
      if (a.t === "view") {
        // Shown, never written: the transcript shows the path to it; R resumes pi there.
        if (path === session.openPath) session.view(r.id);
        return;
      }
      const block = writes.writeBlock(path);
      if (block) {
        chrome.toasts.show("info", block);
        return;
      }
      if (a.t === "resume") void chrome.resumeHere.emit();
      else if (a.t === "label") void chrome.editLabel.emit();
      else await writes.fork(path, r.id, "at");
      return;
    }
  }
}

// Keys that work in every view (the tree's own are in treeKeys.ts): undo and redo of this
// window's writes, the writes panel, the views by number, the panes in turn (F6), copying the
// command that resumes the open session in pi, the newest notification, the keys dialog.
// Letters and digits are left to text fields; Ctrl+Z there is the field's own undo.

import type { CenterTab } from "../../lib/state/chrome.svelte";
import type { KeyLike } from "../tree/treeKeys";

/** The views in the order of their tabs and keys (1 – 6). */
export const VIEW_KEYS: CenterTab[] = ["tree", "forks", "transcript", "audit", "compare", "dashboard"];

/** The keys, as the `?` dialog lists them. */
export const GLOBAL_KEYS: [string, string][] = [
  ["Ctrl+Z", "undo this window's last write (one more line is appended; nothing is cut)"],
  ["Ctrl+Shift+Z  Ctrl+Y", "redo the last undone write"],
  ["H", "the writes of this window: file, line, target, time; Undo and Redo each"],
  ["1 – 6", "Tree, Fork graph, Transcript, Audit, Compare, Dashboard"],
  ["F6  Shift+F6", "next / previous pane: sessions, view, inspector, notifications"],
  ["y", "copy the command that resumes the open session in pi (pi --session FILE)"],
  ["t", "focus the newest notification: Tab through its buttons, Esc dismisses it"],
  ["Ctrl+K", "search all sessions: ↓ into the hits, Enter opens one in the tree, Esc leaves"],
  ["?", "this help"],
];

export type GlobalAction =
  | { t: "undo" }
  | { t: "redo" }
  | { t: "history" }
  | { t: "view"; tab: CenterTab }
  | { t: "pane"; dir: 1 | -1 }
  | { t: "copy-resume" }
  | { t: "toasts" }
  | { t: "help" };

/** Maps a key press to an action (null: not ours). `inField`: the focus is in a text field. */
export function globalAction(e: KeyLike, inField: boolean): GlobalAction | null {
  if (e.key === "F6" && !e.ctrlKey && !e.metaKey && !e.altKey) return { t: "pane", dir: e.shiftKey ? -1 : 1 };
  if (inField || e.altKey) return null;
  const mod = e.ctrlKey || e.metaKey;
  if (mod) {
    const k = e.key.toLowerCase();
    if (k === "z") return e.shiftKey ? { t: "redo" } : { t: "undo" };
    if (k === "y" && !e.shiftKey) return { t: "redo" };
    return null;
  }
  if (/^[1-6]$/.test(e.key)) return { t: "view", tab: VIEW_KEYS[Number(e.key) - 1] };
  switch (e.key) {
    case "H":
      return { t: "history" };
    case "y":
      return { t: "copy-resume" };
    case "t":
      return { t: "toasts" };
    case "?":
      return { t: "help" };
    default:
      return null;
  }
}

/** Whether the element takes text (keys typed there are the field's). */
export function isTextField(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (el as HTMLInputElement).type;
    return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"].includes(type);
  }
  return (el as HTMLElement).isContentEditable === true;
}

/** The panes F6 goes through, in order: the session list, the view, the inspector, the notifications. */
export const PANES = ["sessions", "view", "inspector", "toasts"] as const;
export type Pane = (typeof PANES)[number];

/** The pane after (or before) `from` among those present. */
export function nextPane(from: Pane | null, present: Pane[], dir: 1 | -1): Pane | null {
  const order = PANES.filter((p) => present.includes(p));
  if (!order.length) return null;
  if (from === null || !order.includes(from)) return dir > 0 ? order[0] : order[order.length - 1];
  const i = order.indexOf(from);
  return order[(i + dir + order.length) % order.length];
}

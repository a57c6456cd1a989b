// The history of a window's writes, as data: each write with what it set and what undoes it,
// and which write Ctrl+Z undoes and Ctrl+Shift+Z does again (the writes store acts on these).

/** A state a write sets: where pi's leaf is, an entry's label, a session's archive mark. */
export type Change =
  /** A leaf line to `to` (null: before the first entry). */
  | { kind: "leaf"; to: string | null }
  /** A label line giving `id` this label (null: none). */
  | { kind: "label"; id: string; label: string | null }
  /** The session's archive mark (the app's own database, not the file). */
  | { kind: "archive"; sessionId: string; archived: boolean };

/** What undoes a write: the state before it. */
export type Inverse = Change;

/** A write of this window: a line appended to a session file, a new file, or an archive mark. */
export interface WrittenLine {
  /** Its place in the history (1, 2, …). */
  seq: number;
  /** The session file, as the app names it. */
  path: string;
  /** The file written, as the backend answered (the new file, for a fork). */
  file: string;
  /** The line appended (JSON text); empty for an archive mark and a new file. */
  line: string;
  /** What was written: a `leaf` line, a `label` line, an `archive` mark, a new `file`. */
  kind: "leaf" | "label" | "archive" | "file";
  /** What it names: the leaf's target, the labeled entry, the session id, the new file. */
  target: string | null;
  /** When (ms since the epoch). */
  at: number;
  /** What it set (a redo sets it again); null for a new file. */
  effect: Change | null;
  /** What undoes it (null: nothing can, a new file stays). */
  inverse: Inverse | null;
  /** The write this one undid (its `seq`), when it is an undo. */
  undoes: number | null;
  /** The write that undid this one, once undone. */
  undoneBy: number | null;
  /** The undone write this one did again, when it is a redo. */
  redoes: number | null;
  /** The write that did this one again after its undo. */
  redoneBy: number | null;
}

/** Whether a write can still be undone: it has an inverse (a new file has none) and was not undone. */
export function canUndo(w: WrittenLine): boolean {
  return w.inverse !== null && w.undoneBy === null;
}

/** Whether an undone write can be done again: undone, not redone since, and not itself an undo. */
export function canRedo(w: WrittenLine): boolean {
  return w.effect !== null && w.undoes === null && w.undoneBy !== null && w.redoneBy === null;
}

/** What Ctrl+Z undoes: the newest write that can be undone and is not itself an undo. */
export function undoTarget(history: readonly WrittenLine[]): WrittenLine | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const w = history[i];
    if (w.undoes === null && canUndo(w)) return w;
  }
  return undefined;
}

/**
 * What Ctrl+Shift+Z does again: the write the newest undo undid (newest first, past redos
 * already done), unless a write of its own came after that undo. New files do not count.
 */
export function redoTarget(history: readonly WrittenLine[]): WrittenLine | undefined {
  const bySeq = new Map(history.map((w) => [w.seq, w]));
  for (let i = history.length - 1; i >= 0; i--) {
    const w = history[i];
    if (w.undoes === null && w.redoes === null && w.kind !== "file") return undefined;
    if (w.undoes !== null) {
      const undone = bySeq.get(w.undoes);
      if (undone && canRedo(undone)) return undone;
    }
  }
  return undefined;
}

import { describe, expect, it } from "vitest";
import { canRedo, canUndo, redoTarget, undoTarget, type WrittenLine } from "./history";

/** Plays writes as the writes store records them: a write, an undo of #n, a redo of #n, a new file. */
function play(steps: (["w", string] | ["u", number] | ["r", number] | ["file"])[]): WrittenLine[] {
  const h: WrittenLine[] = [];
  const at = (seq: number) => h.find((w) => w.seq === seq)!;
  for (const s of steps) {
    const seq = h.length + 1;
    const base = { seq, path: "/s.jsonl", file: "/s.jsonl", line: "{}", at: seq, undoes: null, undoneBy: null, redoes: null, redoneBy: null };
    if (s[0] === "file") {
      h.push({ ...base, kind: "file", target: "/new.jsonl", effect: null, inverse: null });
      continue;
    }
    if (s[0] === "w") {
      h.push({ ...base, kind: "leaf", target: s[1], effect: { kind: "leaf", to: s[1] }, inverse: { kind: "leaf", to: "before" } });
      continue;
    }
    const other = at(s[1]);
    if (s[0] === "u") {
      h.push({ ...base, kind: "leaf", target: "before", effect: other.inverse, inverse: other.effect, undoes: other.seq });
      other.undoneBy = seq;
    } else {
      h.push({ ...base, kind: "leaf", target: other.target, effect: other.effect, inverse: { kind: "leaf", to: "before" }, redoes: other.seq });
      other.redoneBy = seq;
    }
  }
  return h;
}

const seqOf = (w: WrittenLine | undefined) => w?.seq ?? null;

describe("the history of writes", () => {
  it("undoes the newest write first, then the one before; an undo itself is not undone by Ctrl+Z", () => {
    expect(seqOf(undoTarget(play([])))).toBeNull();
    expect(seqOf(undoTarget(play([["w", "a"], ["w", "b"]])))).toBe(2);
    expect(seqOf(undoTarget(play([["w", "a"], ["w", "b"], ["u", 2]])))).toBe(1);
    expect(seqOf(undoTarget(play([["w", "a"], ["w", "b"], ["u", 2], ["u", 1]])))).toBeNull();
  });

  it("redoes the newest undone write, back through the undos, until something new is written", () => {
    const h = play([["w", "a"], ["w", "b"], ["u", 2], ["u", 1]]);
    expect(seqOf(redoTarget(h))).toBe(1);
    const r1 = play([["w", "a"], ["w", "b"], ["u", 2], ["u", 1], ["r", 1]]);
    expect(seqOf(redoTarget(r1))).toBe(2);
    // The redo is itself undoable (it wrote a line), before anything older.
    expect(seqOf(undoTarget(r1))).toBe(5);
    const r2 = play([["w", "a"], ["w", "b"], ["u", 2], ["u", 1], ["r", 1], ["r", 2]]);
    expect(seqOf(redoTarget(r2))).toBeNull();
    // A write of its own after an undo ends what can be redone.
    expect(seqOf(redoTarget(play([["w", "a"], ["u", 1], ["w", "c"]])))).toBeNull();
    // A new file (a fork) does not: it changes no file's state.
    expect(seqOf(redoTarget(play([["w", "a"], ["u", 1], ["file"]])))).toBe(1);
  });

  it("a new file is listed but has no undo, and a line undone once is not undone again", () => {
    const h = play([["file"], ["w", "a"], ["u", 2]]);
    expect(canUndo(h[0])).toBe(false);
    expect(canRedo(h[0])).toBe(false);
    expect(canUndo(h[1])).toBe(false);
    expect(canRedo(h[1])).toBe(true);
    // The undo line can be undone from the panel (that is a redo, in effect) but is never redone.
    expect(canUndo(h[2])).toBe(true);
    expect(canRedo(h[2])).toBe(false);
    expect(seqOf(undoTarget(h))).toBeNull();
  });
});

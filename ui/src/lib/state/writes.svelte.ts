// The writes: moving the leaf (navigate, a branch switch), labels, forks, a compacted fork and
// a pruned copy, each with its toast. Every appended line is kept in `history`, with how to
// undo it: the state before it, written back as one more appended line (the file only grows).

import { ApiError } from "../backend";
import type { ForkPosition } from "../bindings/ForkPosition";
import type { WriteResult } from "../bindings/WriteResult";
import { baseName, describeLine, resumeCommand } from "../../features/journeys/writeText";
import { copyText } from "../clipboard";
import { bytes } from "../format";
import type { ChromeState } from "./chrome.svelte";
import type { SelectionState } from "./selection.svelte";
import type { SessionState } from "./session.svelte";

/** What undoes a written line: the state before it, as the line that writes it back. */
export type Inverse =
  /** A leaf line back to the leaf before (null: before the first entry). */
  | { kind: "leaf"; to: string | null }
  /** A label line giving `id` its label before (null: none). */
  | { kind: "label"; id: string; label: string | null };

/** A line the app appended to a session file. */
export interface WrittenLine {
  /** Its place in the history (1, 2, …). */
  seq: number;
  /** The session file, as the app names it. */
  path: string;
  /** The file written, as the backend answered. */
  file: string;
  /** The line appended (JSON text). */
  line: string;
  inverse: Inverse;
  /** The line this one undid (its `seq`), when it is an undo. */
  undoes: number | null;
  /** The line that undid this one, once undone. */
  undoneBy: number | null;
}

/** Lines kept in the history (the oldest go first). */
export const HISTORY = 200;

export class WritesState {
  /** The lines appended in this window, oldest first. */
  history = $state<WrittenLine[]>([]);
  private seq = 0;

  constructor(
    private session: SessionState,
    private selection: SelectionState,
    private chrome: ChromeState,
  ) {}

  private get backend() {
    return this.session.backend;
  }

  /** Why writes to `path` are impossible (null when they are possible). */
  writeBlock(path: string | null | undefined = this.selection.current?.path ?? this.session.openPath): string | null {
    if (this.chrome.readOnly) return "Read-only mode is on: nothing is written";
    const row = this.session.list?.sessions.find((s) => s.path === path);
    if (row?.readOnly) return `This file is read-only (${row.readOnly})`;
    return null;
  }

  /** The line with this `seq`, while it is in the history. */
  line(seq: number): WrittenLine | undefined {
    return this.history.find((w) => w.seq === seq);
  }

  /** Whether a line can still be undone (it is in the history, and not undone yet). */
  canUndo(seq: number): boolean {
    const w = this.line(seq);
    return !!w && w.undoneBy === null;
  }

  /** Undoes a written line by appending its inverse (asks first when the file ends torn). */
  async undo(seq: number) {
    const w = this.line(seq);
    if (!w || w.undoneBy !== null) return;
    const inv = w.inverse;
    if (inv.kind === "leaf") await this.navigateHere(w.path, inv.to, { undoes: seq });
    else await this.setLabel(w.path, inv.id, inv.label, { undoes: seq });
  }

  private record(path: string, res: WriteResult, inverse: Inverse, undoes: number | null): WrittenLine {
    const w: WrittenLine = { seq: ++this.seq, path, file: res.file, line: res.line, inverse, undoes, undoneBy: null };
    this.history.push(w);
    if (this.history.length > HISTORY) this.history.splice(0, this.history.length - HISTORY);
    if (undoes !== null) {
      const undone = this.line(undoes);
      if (undone) undone.undoneBy = w.seq;
    }
    return this.line(w.seq)!;
  }

  // ---------------------------------------------------------------- appended lines

  /** Moves the session's leaf to `id` (null: before the first entry): one leaf line. */
  async navigateHere(path: string, id: string | null, opts: { undoes?: number } = {}) {
    await this.guardTorn(path, "move the leaf", () => this.navigateNow(path, id, opts.undoes ?? null));
  }

  private async navigateNow(path: string, id: string | null, undoes: number | null) {
    try {
      const prev = await this.session.currentLeaf(path);
      const res = await this.backend.navigate(path, id);
      const w = this.record(path, res, { kind: "leaf", to: prev }, undoes);
      this.chrome.toasts.rich("success", undoes === null ? `Leaf moved: appended ${describeLine(res.line)} to ${baseName(res.file)}` : `Undone: appended ${describeLine(res.line)}`, {
        code: res.line,
        actions: undoes === null ? [this.undoAction(w)] : [],
      });
      await this.afterWrite(path, res);
    } catch (e) {
      this.writeFailed(e, "Navigate failed", () => this.navigateNow(path, id, undoes));
    }
    void this.chrome.focusTree.emit();
  }

  /** Sets (or, with null or blank text, clears) an entry's label: one label line. */
  async setLabel(path: string, id: string, label: string | null, opts: { undoes?: number } = {}) {
    await this.guardTorn(path, "label", () => this.setLabelNow(path, id, label, opts.undoes ?? null));
  }

  private async setLabelNow(path: string, id: string, label: string | null, undoes: number | null) {
    try {
      const text = label && label.trim() !== "" ? label.trim() : null;
      // What this line replaces: for an undo, the label the undone line wrote (no need to ask).
      const undone = undoes !== null ? this.line(undoes) : undefined;
      const prev = undone?.inverse.kind === "label" ? labelOf(undone) : (await this.backend.entryDetail(path, id)).label;
      const res = await this.backend.setLabel(path, id, text);
      const w = this.record(path, res, { kind: "label", id, label: prev }, undoes);
      const head = undoes !== null ? "Undone" : text ? `Labeled “${text}”` : "Label cleared";
      this.chrome.toasts.rich("success", `${head}: appended ${describeLine(res.line)} to ${baseName(res.file)}`, {
        code: res.line,
        actions: undoes === null ? [this.undoAction(w)] : [],
      });
      await this.afterWrite(path, res);
    } catch (e) {
      this.writeFailed(e, "Label failed", () => this.setLabelNow(path, id, label, undoes));
    }
    void this.chrome.focusTree.emit();
  }

  /**
   * Steps the transcript to a sibling branch: one leaf line, undoable by another; in read-only
   * mode the transcript shows the branch without writing (a view-only leaf).
   */
  async switchBranch(toId: string): Promise<string | null> {
    const s = this.session;
    const path = s.openPath;
    if (!path) return null;
    try {
      const prevView = s.viewLeaf;
      const prev = await s.currentLeaf(path);
      const res = await this.backend.switchBranch(path, toId);
      if (!res.write) {
        s.viewLeaf = res.leafId;
        this.chrome.toasts.rich("info", "Read-only: showing the other branch. Nothing was written; pi still resumes where it was.", {
          actions: [
            { label: "Undo", testid: "toast-undo", run: () => void (s.viewLeaf = prevView) },
            { label: "Back to the leaf", testid: "toast-view-reset", run: () => void (s.viewLeaf = null) },
          ],
        });
        return res.leafId;
      }
      s.viewLeaf = null;
      const w = this.record(path, res.write, { kind: "leaf", to: prev }, null);
      this.chrome.toasts.rich("success", `Switched branch: appended ${describeLine(w.line)} to ${baseName(w.file)}`, {
        code: w.line,
        actions: [this.undoAction(w)],
      });
      if (res.write.warning) this.chrome.toasts.show("warning", res.write.warning);
      await s.refresh([path]);
      s.scheduleListRefresh(0);
      return res.leafId;
    } catch (e) {
      this.writeFailed(e, "Switching branch failed", () => this.switchBranch(toId));
      return null;
    }
  }

  private undoAction(w: WrittenLine) {
    return { label: "Undo", testid: "toast-undo", run: () => this.undo(w.seq) };
  }

  private async afterWrite(path: string, res: WriteResult) {
    if (res.warning) this.chrome.toasts.show("warning", res.warning);
    await this.session.refresh([path]);
    this.session.scheduleListRefresh(0);
  }

  /** Runs a write; when the file ends in a damaged (torn) line, asks first. `what` names the write. */
  private async guardTorn(path: string, what: string, write: () => Promise<void>) {
    if (!this.session.endsTorn(path)) return write();
    this.chrome.toasts.rich("warning", `This file ends in a damaged (torn) line. To ${what}, a new line is appended after it, on a line of its own; pi skips the damaged line. Write anyway?`, {
      ms: 0,
      actions: [
        { label: "Write anyway", testid: "torn-confirm", run: write },
        { label: "Cancel", testid: "torn-cancel", run: () => void this.chrome.focusTree.emit() },
      ],
    });
  }

  /**
   * A write that failed. `busy` (pi is writing a line to the file right now; nothing was
   * written) offers to run the same write again; anything else is an error toast.
   */
  private writeFailed(e: unknown, prefix: string, retry: () => Promise<unknown>) {
    const err = ApiError.from(e);
    if (err.code !== "busy") return this.chrome.error(e, prefix);
    this.chrome.toasts.rich("warning", `${prefix}: ${err.message}`, {
      ms: 0,
      actions: [
        { label: "Try again", testid: "busy-retry", run: async () => void (await retry()) },
        { label: "Cancel", testid: "busy-cancel", run: () => void this.chrome.focusTree.emit() },
      ],
    });
  }

  // ---------------------------------------------------------------- new files

  /** Forks into a new file; the view stays where it is, the toast offers to open it and how to resume it in pi. */
  async fork(path: string, id: string, position: ForkPosition) {
    await this.guardTorn(path, "fork", async () => {
      try {
        const res = await this.backend.forkSession(path, id, position);
        const cmd = resumeCommand(res.file);
        this.chrome.toasts.rich("success", `Forked into a new file: ${baseName(res.file)}. Resume it in pi with:`, {
          code: cmd,
          ms: 20000,
          actions: [
            { label: "Open it", testid: "toast-open-fork", run: () => this.session.open(res.file, { select: res.leafId ?? undefined }) },
            { label: "Copy command", testid: "toast-copy-command", run: () => copyText(cmd) },
          ],
        });
        await this.session.refreshList();
      } catch (e) {
        this.chrome.error(e, "Fork failed");
      }
      void this.chrome.focusTree.emit();
    });
  }

  async forkSlim(path: string, id: string) {
    try {
      const res = await this.backend.forkSlim(path, id);
      this.chrome.toasts.show("success", `Forked compacted: ${bytes(res.bytesBefore)} → ${bytes(res.bytesAfter)}`);
      await this.session.refreshList();
      await this.session.open(res.file, { select: res.leafId });
    } catch (e) {
      this.chrome.error(e, "Fork compacted failed");
    }
  }

  async pruneTo(path: string, keep: string[]) {
    try {
      const res = await this.backend.pruneSession(path, keep);
      this.chrome.toasts.show("success", `Pruned copy written: ${res.copied} entries, ${bytes(res.bytesBefore)} → ${bytes(res.bytesAfter)}; the original is untouched`);
      this.selection.clearMarks();
      await this.session.refreshList();
      await this.session.open(res.file, { select: res.leafId });
    } catch (e) {
      this.chrome.error(e, "Keep only these branches failed");
    }
  }
}

/** The label a label line wrote (null: it cleared the label). */
function labelOf(w: WrittenLine): string | null {
  try {
    const v = JSON.parse(w.line) as { label?: unknown };
    return typeof v.label === "string" ? v.label : null;
  } catch {
    return null;
  }
}

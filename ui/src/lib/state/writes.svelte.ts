// The writes: resuming pi at an entry (one leaf line), labels, forks, a compacted fork and a
// pruned copy, archive marks, each with its toast. Browsing never writes (the view-only leaf is
// the session store's); this store is where every write of the window goes through.
//
// Every write is kept in `history`, newest last, with what it did (`effect`) and how to undo it
// (`inverse`): the state before it, written back as one more appended line (the file only
// grows). Undo (Ctrl+Z) appends the inverse of the newest write not undone yet; redo
// (Ctrl+Shift+Z) writes the effect of the newest undone write again, as long as nothing new was
// written since. A new file (a fork) is listed but has no undo: nothing is ever deleted.

import { ApiError } from "../backend";
import type { ForkPosition } from "../bindings/ForkPosition";
import type { ResumeAt } from "../bindings/ResumeAt";
import type { WriteResult } from "../bindings/WriteResult";
import { baseName, describeLine, resumeCommand } from "../../features/journeys/writeText";
import { marksOf } from "../../features/tags/marks.svelte";
import { copyText } from "../clipboard";
import { bytes, shortId } from "../format";
import type { ChromeState } from "./chrome.svelte";
import type { SelectionState } from "./selection.svelte";
import type { SessionState } from "./session.svelte";
import { canRedo, canUndo, redoTarget, undoTarget, type Change, type WrittenLine } from "./history";
import { Topic } from "./events";
import type { Move } from "../../features/pilink/pilink.svelte";

export type { Change, Inverse, WrittenLine } from "./history";

/** Writes kept in the history (the oldest go first). */
export const HISTORY = 200;

/** Keys of the history, shown on the toasts' buttons and in the `?` dialog. */
export const UNDO_KEY = "Ctrl+Z";
export const REDO_KEY = "Ctrl+Shift+Z";

type Origin = { undoes?: number; redoes?: number };

export class WritesState {
  /** The writes of this window, oldest first. */
  history = $state<WrittenLine[]>([]);
  private seq = 0;

  /** A leaf moved or a fork made here: a pi that follows the session may be offered the move. */
  readonly moved = new Topic<Move>();

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

  /** The write with this `seq`, while it is in the history. */
  line(seq: number): WrittenLine | undefined {
    return this.history.find((w) => w.seq === seq);
  }

  /** Whether a write can still be undone (in the history, undoable, not undone yet). */
  canUndo(seq: number): boolean {
    const w = this.line(seq);
    return !!w && canUndo(w);
  }

  /** Whether an undone write can be done again. */
  canRedo(seq: number): boolean {
    const w = this.line(seq);
    return !!w && canRedo(w);
  }

  /** What Ctrl+Z undoes. */
  get undoTarget(): WrittenLine | undefined {
    return undoTarget(this.history);
  }

  /** What Ctrl+Shift+Z does again. */
  get redoTarget(): WrittenLine | undefined {
    return redoTarget(this.history);
  }

  /** Undoes a write by writing its inverse (asks first when the file ends torn). */
  async undo(seq: number) {
    const w = this.line(seq);
    if (!w || !this.canUndo(seq) || !w.inverse) return;
    await this.apply(w.path, w.inverse, { undoes: seq });
  }

  /** Does an undone write again: its effect, written once more. */
  async redo(seq: number) {
    const w = this.line(seq);
    if (!w || !this.canRedo(seq) || !w.effect) return;
    await this.apply(w.path, w.effect, { redoes: seq });
  }

  /** Ctrl+Z: undoes the newest write; says so when there is none. */
  async undoLast() {
    const w = this.undoTarget;
    if (!w) return void this.chrome.toasts.show("info", "Nothing to undo: this window has written nothing that can be undone");
    await this.undo(w.seq);
  }

  /** Ctrl+Shift+Z: does the newest undone write again. */
  async redoLast() {
    const w = this.redoTarget;
    if (!w) return void this.chrome.toasts.show("info", "Nothing to redo");
    await this.redo(w.seq);
  }

  private async apply(path: string, c: Change, origin: Origin) {
    if (c.kind === "leaf") await this.moveLeaf(path, c.to, origin);
    else if (c.kind === "label") await this.setLabel(path, c.id, c.label, origin);
    else await this.setArchived(path, c.sessionId, c.archived, origin);
  }

  private record(w: Omit<WrittenLine, "seq" | "at" | "undoes" | "undoneBy" | "redoes" | "redoneBy">, origin: Origin = {}): WrittenLine {
    const full: WrittenLine = { ...w, seq: ++this.seq, at: Date.now(), undoes: origin.undoes ?? null, undoneBy: null, redoes: origin.redoes ?? null, redoneBy: null };
    this.history.push(full);
    if (this.history.length > HISTORY) this.history.splice(0, this.history.length - HISTORY);
    if (origin.undoes !== undefined) {
      const undone = this.line(origin.undoes);
      if (undone) undone.undoneBy = full.seq;
    }
    if (origin.redoes !== undefined) {
      const redone = this.line(origin.redoes);
      if (redone) redone.redoneBy = full.seq;
    }
    return this.line(full.seq)!;
  }

  private recordLine(path: string, res: WriteResult, effect: Change, inverse: Change, origin: Origin): WrittenLine {
    const target = effect.kind === "leaf" ? effect.to : effect.kind === "label" ? effect.id : null;
    return this.record({ path, file: res.file, line: res.line, kind: effect.kind === "label" ? "label" : "leaf", target, effect, inverse }, origin);
  }

  /** The words a toast starts with for an undo or a redo (null: a write of its own). */
  private static head(origin: Origin): string | null {
    return origin.undoes !== undefined ? "Undone" : origin.redoes !== undefined ? "Redone" : null;
  }

  /** The toast's Undo (and, for an undo, its Redo). */
  private actionsFor(w: WrittenLine) {
    if (w.undoes !== null) return [{ label: "Redo", testid: "toast-redo", key: REDO_KEY, run: () => this.redo(w.undoes!) }];
    return [{ label: "Undo", testid: "toast-undo", key: UNDO_KEY, run: () => this.undo(w.seq) }];
  }

  // ---------------------------------------------------------------- appended lines

  /**
   * "Resume pi here": moves pi's leaf where pi's /tree would for this entry (`resume`, from the
   * core: on a user message, its parent, the text going back to pi's editor). One leaf line.
   */
  async resumeHere(path: string, resume: ResumeAt) {
    if (resume.current) return void this.chrome.toasts.show("info", "pi already resumes here: nothing to write");
    await this.guardTorn(path, "move the leaf", () => this.moveLeafNow(path, resume.targetId, {}, resume.note));
  }

  /** Moves the session's leaf to `id` (null: before the first entry): one leaf line. */
  async navigateHere(path: string, id: string | null, opts: Origin = {}) {
    await this.moveLeaf(path, id, opts);
  }

  private async moveLeaf(path: string, id: string | null, origin: Origin) {
    await this.guardTorn(path, "move the leaf", () => this.moveLeafNow(path, id, origin));
  }

  private async moveLeafNow(path: string, id: string | null, origin: Origin, note?: string) {
    try {
      const prev = await this.session.currentLeaf(path);
      const res = await this.backend.navigate(path, id);
      const w = this.recordLine(path, res, { kind: "leaf", to: id }, { kind: "leaf", to: prev }, origin);
      if (id) void this.moved.emit({ path, entryId: id });
      const head = WritesState.head(origin) ?? `pi resumes at ${id ? shortId(id) : "the start"}`;
      this.chrome.toasts.rich("success", `${head}: appended ${describeLine(res.line)} to ${baseName(res.file)}`, {
        code: res.line,
        detail: note,
        ms: note ? 16000 : undefined,
        actions: this.actionsFor(w),
      });
      // pi's leaf moved: the view follows it.
      if (origin.undoes === undefined && origin.redoes === undefined) this.session.viewLeaf = null;
      await this.afterWrite(path, res);
    } catch (e) {
      this.writeFailed(e, "Resume pi here failed", () => this.moveLeafNow(path, id, origin, note));
    }
    void this.chrome.focusTree.emit();
  }

  /** Sets (or, with null or blank text, clears) an entry's label: one label line. */
  async setLabel(path: string, id: string, label: string | null, origin: Origin = {}) {
    await this.guardTorn(path, "label", () => this.setLabelNow(path, id, label, origin));
  }

  private async setLabelNow(path: string, id: string, label: string | null, origin: Origin) {
    try {
      const text = label && label.trim() !== "" ? label.trim() : null;
      // What this line replaces: for an undo, the label the undone line wrote (no need to ask).
      const undone = origin.undoes !== undefined ? this.line(origin.undoes) : undefined;
      const prev = undone?.effect?.kind === "label" ? undone.effect.label : (await this.backend.entryDetail(path, id)).label;
      const res = await this.backend.setLabel(path, id, text);
      const w = this.recordLine(path, res, { kind: "label", id, label: text }, { kind: "label", id, label: prev }, origin);
      const head = WritesState.head(origin) ?? (text ? `Labeled “${text}”` : "Label cleared");
      this.chrome.toasts.rich("success", `${head}: appended ${describeLine(res.line)} to ${baseName(res.file)}`, {
        code: res.line,
        actions: this.actionsFor(w),
      });
      await this.afterWrite(path, res);
    } catch (e) {
      this.writeFailed(e, "Label failed", () => this.setLabelNow(path, id, label, origin));
    }
    void this.chrome.focusTree.emit();
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

  // ---------------------------------------------------------------- the app's marks

  /** Archives (or brings back) a session: the app's mark, never the file; undoable like a line. */
  async setArchived(path: string, sessionId: string, archived: boolean, origin: Origin = {}) {
    const marks = marksOf(this.chrome);
    const before = marks.of(sessionId)?.archived ?? false;
    await marks.setArchived(sessionId, archived);
    if ((marks.of(sessionId)?.archived ?? false) !== archived) return; // refused: the marks store said why
    await marks.reselect();
    const w = this.record({ path, file: path, line: "", kind: "archive", target: sessionId, effect: { kind: "archive", sessionId, archived }, inverse: { kind: "archive", sessionId, archived: before } }, origin);
    const head = WritesState.head(origin);
    const what = archived ? `Archived ${baseName(path)}: hidden from the list (the file is untouched; the “Archived” filter shows it)` : `${baseName(path)} is back in the list`;
    this.chrome.toasts.rich("success", head ? `${head}: ${what}` : what, { actions: this.actionsFor(w) });
  }

  // ---------------------------------------------------------------- new files

  /** A toast for a new session file: how to resume it in pi, with buttons to open it and copy that. */
  private newFileToast(message: string, file: string, leafId: string | null) {
    const cmd = resumeCommand(file);
    this.chrome.toasts.rich("success", message, {
      code: cmd,
      ms: 20000,
      actions: [
        { label: "Open it", testid: "toast-open-fork", run: () => this.session.open(file, { select: leafId ?? undefined }) },
        { label: "Copy command", testid: "toast-copy-command", run: () => copyText(cmd) },
      ],
    });
  }

  private recordFile(path: string, file: string) {
    this.record({ path, file, line: "", kind: "file", target: file, effect: null, inverse: null });
  }

  /** Forks into a new file; the view stays where it is, the toast offers to open it and how to resume it in pi. */
  async fork(path: string, id: string, position: ForkPosition) {
    await this.guardTorn(path, "fork", async () => {
      try {
        const res = await this.backend.forkSession(path, id, position);
        this.recordFile(path, res.file);
        this.newFileToast(`Forked into a new file: ${baseName(res.file)}. Resume it in pi with:`, res.file, res.leafId);
        void this.moved.emit({ path, forkPath: res.file });
        // The keys back in the tree now, not after the listing (the user may be in the toast by then).
        void this.chrome.focusTree.emit();
        await this.session.refreshList();
      } catch (e) {
        this.chrome.error(e, "Fork failed");
        void this.chrome.focusTree.emit();
      }
    });
  }

  /** A compacted fork: a new file beside this one; the toast says how to resume it in pi, as a fork's does. */
  async forkSlim(path: string, id: string) {
    try {
      const res = await this.backend.forkSlim(path, id);
      this.recordFile(path, res.file);
      this.newFileToast(`Forked compacted: ${bytes(res.bytesBefore)} → ${bytes(res.bytesAfter)}, a new file ${baseName(res.file)}. Resume it in pi with:`, res.file, res.leafId);
      void this.moved.emit({ path, forkPath: res.file });
      await this.session.refreshList();
    } catch (e) {
      this.chrome.error(e, "Fork compacted failed");
    }
  }

  async pruneTo(path: string, keep: string[]) {
    try {
      const res = await this.backend.pruneSession(path, keep);
      this.recordFile(path, res.file);
      this.selection.clearMarks();
      this.newFileToast(`Pruned copy written: ${res.copied} entries, ${bytes(res.bytesBefore)} → ${bytes(res.bytesAfter)}; the original is untouched. Resume it in pi with:`, res.file, res.leafId);
      await this.session.refreshList();
      await this.session.open(res.file, { select: res.leafId });
    } catch (e) {
      this.chrome.error(e, "Keep only these branches failed");
    }
  }
}

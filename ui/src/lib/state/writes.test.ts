import { describe, expect, it } from "vitest";
import { RecordedBackend } from "../backend/recorded";
import { ROW_H } from "../../features/tree/lanes";
import { AppState } from "./app.svelte";
import type { Reveal } from "./selection.svelte";

// Answers recorded from the real core over a copy of demo/sessions (writes allowed). In this
// session, moving the leaf to 0938e01e (row 19, the end of a side branch) lays it out last.
const BRANCHY = "2026-03-02T18-51-27-978Z";

describe("writes and their undo", () => {
  it("keep each appended line with its inverse; an undo is one more line, and undoes once", async () => {
    const backend = new RecordedBackend("undo");
    const app = new AppState(backend);
    await app.init();
    const { session, selection, writes, chrome } = app;
    const s = session.list!.sessions.find((x) => x.path.includes(BRANCHY))!;
    await session.open(s.path);
    const leaf = session.tree.meta!.leafId!;
    await selection.selectRow(19);
    const target = selection.current!.id;
    const reveals: Reveal[] = [];
    selection.reveal.on((r) => void reveals.push(r));
    selection.treeScrollTop = 100;

    await writes.navigateHere(s.path, target);
    expect(session.tree.meta!.leafId).toBe(target);
    expect(writes.history).toHaveLength(1);
    const first = writes.history[0];
    expect(first).toMatchObject({ seq: 1, path: s.path, inverse: { kind: "leaf", to: leaf }, undoes: null, undoneBy: null });
    expect(JSON.parse(first.line)).toMatchObject({ type: "leaf", targetId: target });
    // The new layout moved the selected entry: its row is put back where it was on screen.
    expect(selection.row).not.toBe(19);
    expect(session.tree.row(selection.row!)!.id).toBe(target);
    expect(reveals).toEqual([{ row: selection.row, offset: 19 * ROW_H - 100 }]);

    // The toast's Undo appends the inverse: the leaf before.
    const undo = chrome.toasts.items.flatMap((t) => t.actions ?? []).find((x) => x.testid === "toast-undo")!;
    await undo.run();
    expect(writes.history).toHaveLength(2);
    const second = writes.history[1];
    expect(second).toMatchObject({ seq: 2, undoes: 1, undoneBy: null, inverse: { kind: "leaf", to: target } });
    expect(JSON.parse(second.line)).toMatchObject({ type: "leaf", targetId: leaf });
    expect(writes.history[0].undoneBy).toBe(2);
    expect(session.tree.meta!.leafId).toBe(leaf);
    expect(selection.row).toBe(19);
    // Undone once: the same Undo again writes nothing; the undo's own toast offers Redo.
    expect(writes.canUndo(1)).toBe(false);
    expect(writes.canUndo(2)).toBe(true);
    await undo.run();
    expect(writes.history).toHaveLength(2);
    const undone = chrome.toasts.items.find((t) => t.message.startsWith("Undone: appended a leaf line"))!;
    expect(undone.actions?.map((a) => a.testid)).toEqual(["toast-redo"]);
    expect(writes.redoTarget?.seq).toBe(1);

    // A label: the inverse is the label before it; undoing it writes that back.
    const before = (await backend.entryDetail(s.path, target)).label;
    await writes.setLabel(s.path, target, "  checkpoint ");
    const third = writes.history[2];
    expect(third).toMatchObject({ seq: 3, inverse: { kind: "label", id: target, label: before }, undoes: null });
    expect(JSON.parse(third.line)).toMatchObject({ type: "label", targetId: target, label: "checkpoint" });
    expect((await backend.entryDetail(s.path, target)).label).toBe("checkpoint");
    await writes.undo(3);
    const fourth = writes.history[3];
    expect(fourth).toMatchObject({ seq: 4, undoes: 3, inverse: { kind: "label", id: target, label: "checkpoint" } });
    expect(writes.history[2].undoneBy).toBe(4);
    expect((await backend.entryDetail(s.path, target)).label).toBe(before);

    // Ctrl+Shift+Z: the label written again, as one more line; Ctrl+Z then undoes that redo.
    await writes.redoLast();
    expect(writes.history[4]).toMatchObject({ seq: 5, redoes: 3, kind: "label", target, effect: { kind: "label", id: target, label: "checkpoint" } });
    expect(writes.history[2].redoneBy).toBe(5);
    expect((await backend.entryDetail(s.path, target)).label).toBe("checkpoint");
    expect(writes.undoTarget?.seq).toBe(5);
    await writes.undoLast();
    expect(writes.history[5]).toMatchObject({ seq: 6, undoes: 5 });
    expect((await backend.entryDetail(s.path, target)).label).toBe(before);
    // Every write is listed with its file, what it is, what it names and when.
    for (const w of writes.history) {
      expect(w.path).toBe(s.path);
      expect(["leaf", "label"]).toContain(w.kind);
      expect(w.at).toBeGreaterThan(0);
      expect(JSON.parse(w.line).type).toBe(w.kind);
    }
  });

  it("resume pi here on a user message writes a leaf line to its parent, and says pi puts the text back in its editor", async () => {
    // Another session than the test above writes to (discovery runs both on one copy).
    const backend = new RecordedBackend("resume");
    const app = new AppState(backend);
    await app.init();
    const { session, writes, chrome } = app;
    const s = session.list!.sessions.find((x) => x.path.includes("2026-03-02T22-59-24-626Z"))!;
    await session.open(s.path);
    const page = await backend.transcriptPage(s.path, 0, 1000);
    const user = page.items.filter((i) => i.role === "user")[1];
    const d = await backend.entryDetail(s.path, user.id);
    expect(d.resume.toEditor).toBe(true);
    expect(d.resume.targetId).toBe(d.parentId);
    expect(d.resume.current).toBe(false);
    await writes.resumeHere(s.path, d.resume);
    expect(writes.history).toHaveLength(1);
    expect(writes.history[0]).toMatchObject({ kind: "leaf", target: d.parentId, effect: { kind: "leaf", to: d.parentId } });
    expect(JSON.parse(writes.history[0].line)).toMatchObject({ type: "leaf", targetId: d.parentId });
    expect(session.tree.meta!.effectiveLeafId).toBe(d.parentId);
    const toast = chrome.toasts.items.find((t) => t.message.startsWith(`pi resumes at ${d.parentId!.slice(0, 8)}`))!;
    expect(toast.detail).toContain("editor");
    expect(toast.actions?.map((a) => [a.testid, a.key])).toEqual([["toast-undo", "Ctrl+Z"]]);
    // Now pi resumes there: the entry says so, and resuming again writes nothing.
    const again = await backend.entryDetail(s.path, user.id);
    expect(again.resume.current).toBe(true);
    await writes.resumeHere(s.path, again.resume);
    expect(writes.history).toHaveLength(1);
    // Ctrl+Z: pi's leaf back where it was.
    await writes.undoLast();
    expect(writes.history).toHaveLength(2);
    expect(session.tree.meta!.effectiveLeafId).not.toBe(d.parentId);
  });

  it("write nothing in read-only mode, and say why", async () => {
    const app = new AppState(new RecordedBackend("start"));
    await app.init();
    const path = app.session.openPath!;
    expect(app.writes.writeBlock(path)).toBeNull();
    app.chrome.info = { ...app.chrome.info!, readOnly: true };
    expect(app.writes.writeBlock(path)).toBe("Read-only mode is on: nothing is written");
    expect(app.writes.history).toEqual([]);
  });
});

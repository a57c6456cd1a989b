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
    // Undone once: the same Undo again writes nothing; the undo's own toast offers none.
    expect(writes.canUndo(1)).toBe(false);
    expect(writes.canUndo(2)).toBe(true);
    await undo.run();
    expect(writes.history).toHaveLength(2);
    const undone = chrome.toasts.items.find((t) => t.message.startsWith("Undone: appended a leaf line"))!;
    expect(undone.actions).toEqual([]);

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

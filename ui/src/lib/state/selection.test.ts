import { describe, expect, it } from "vitest";
import { RecordedBackend } from "../backend/recorded";
import { AppState } from "./app.svelte";
import type { Reveal } from "./selection.svelte";

// Answers recorded from the real core over demo/sessions. A session with three lanes: row 19
// (0938e01e) ends a side branch; a run of single-child entries is folded.
const BRANCHY = "2026-03-02T18-51-27-978Z";

describe("the selection", () => {
  it("follows the open session: the leaf at first, its entry through a new layout, cleared by another session", async () => {
    const app = new AppState(new RecordedBackend("selection"));
    await app.init();
    const { session, selection } = app;
    // At start the most recent session is open, its leaf selected.
    const recent = session.openPath!;
    expect(selection.current).toMatchObject({ path: recent, id: session.tree.meta!.leafId });

    const a = session.list!.sessions.find((x) => x.path.includes(BRANCHY))!;
    await session.open(a.path);
    const meta = session.tree.meta!;
    expect(selection.current).toEqual({ path: a.path, id: meta.leafId, fold: false });
    expect(selection.row).toBe(meta.leafRow);

    const reveals: Reveal[] = [];
    selection.reveal.on((r) => void reveals.push(r));
    await selection.selectRow(19);
    const id = selection.current!.id;
    expect(session.tree.row(19)!.id).toBe(id);
    expect(reveals).toEqual([{ row: 19 }]);
    expect(selection.entry).toEqual({ path: a.path, id });
    selection.toggleMark(selection.current);
    selection.picked = [id];
    selection.auditReturn = id;

    // Opened again: nothing changes.
    await session.open(a.path);
    expect(selection.current?.id).toBe(id);
    expect(selection.picked).toEqual([id]);

    // Another layout: the entry is on another row, and the selection goes with it.
    await session.setFilter("all");
    expect(selection.current?.id).toBe(id);
    expect(selection.row).not.toBeNull();
    expect(session.tree.row(selection.row!)!.id).toBe(id);
    expect(reveals.at(-1)).toEqual({ row: selection.row });
    await session.setFilter("default");
    expect(selection.row).toBe(19);

    // A fold row is selected, but the inspector has no entry to show.
    const fold = await session.tree.findRow(-1, 1, (r) => r.type === "fold");
    await selection.selectRow(fold!);
    expect(selection.current?.fold).toBe(true);
    expect(selection.entry).toBeNull();
    expect(selection.foldRow?.row).toBe(fold);

    // Another session: nothing of this one stays selected or picked; the marks stay (they may span files).
    session.found = new Set([id]);
    await session.open(recent);
    expect(selection.current?.path).toBe(recent);
    expect(selection.row).toBe(session.tree.meta!.leafRow);
    expect(selection.picked).toEqual([]);
    expect(selection.auditReturn).toBeNull();
    expect(session.found.size).toBe(0);
    expect(selection.marked).toEqual([{ path: a.path, id }]);

    // Opened at an entry: that one, on its row.
    await session.open(a.path, { select: id });
    expect(selection.current).toEqual({ path: a.path, id });
    expect(selection.row).toBe(19);
  });
});

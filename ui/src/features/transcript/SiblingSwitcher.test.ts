import { describe, expect, it, vi } from "vitest";
import { fireEvent, render } from "@testing-library/svelte";
import SiblingSwitcher from "./SiblingSwitcher.svelte";
import { RecordedBackend } from "../../lib/backend/recorded";
import { AppState } from "../../lib/state/app.svelte";

describe("sibling switcher", () => {
  it("shows k/n and steps to the previous and next sibling", async () => {
    const onswitch = vi.fn();
    const { getByTestId } = render(SiblingSwitcher, { props: { siblings: { index: 2, count: 3, prevId: "aaa", nextId: "ccc" }, onswitch } });
    expect(getByTestId("sibling-pos").textContent).toBe("2/3");
    await fireEvent.click(getByTestId("sibling-prev"));
    await fireEvent.click(getByTestId("sibling-next"));
    expect(onswitch.mock.calls).toEqual([["aaa"], ["ccc"]]);
  });

  it("disables the ends", () => {
    const { getByTestId } = render(SiblingSwitcher, { props: { siblings: { index: 1, count: 2, prevId: null, nextId: "b" }, onswitch: () => {} } });
    expect((getByTestId("sibling-prev") as HTMLButtonElement).disabled).toBe(true);
    expect((getByTestId("sibling-next") as HTMLButtonElement).disabled).toBe(false);
  });

  it("a switch shows the sibling's newest entry and writes nothing, read-only or not", async () => {
    // Recorded from the real core over demo/sessions: a session whose active path ends on the
    // third of three siblings.
    const backend = new RecordedBackend("sibling-switcher");
    const app = new AppState(backend);
    await app.init();
    const s = app.session.list!.sessions.find((x) => x.path.includes("2026-03-02T16-46-45-911Z"))!;
    await app.session.open(s.path);
    const page = await backend.transcriptPage(s.path, 0, 1000);
    const at = page.items.find((i) => i.siblings && i.siblings.count === 3)!;
    expect(at.siblings!.index).toBe(3);
    const leaf0 = app.session.tree.meta!.leafId;
    const entries = async () => (await backend.listSessions()).sessions.find((x) => x.path === s.path)!.entryCount;
    const lines = await entries();

    const to = at.siblings!.prevId!;
    const shown = await app.session.viewBranch(to);
    expect(shown).toBeTruthy();
    expect(app.session.viewLeaf).toBe(shown);
    // The view shows the other branch (the transcript at the view's leaf) ...
    const view = await backend.transcriptPage(s.path, 0, 1000, shown);
    expect(view.leafId).toBe(shown);
    expect(view.items[at.index].id).toBe(to);
    expect(view.items[at.index].siblings).toMatchObject({ index: 2, count: 3 });
    // ... while the file is as it was: pi resumes where it did, and the history holds no write.
    expect(await entries()).toBe(lines);
    const file = await backend.transcriptPage(s.path, 0, 1000);
    expect(file.leafId).toBe(leaf0);
    expect(file.items[at.index].id).toBe(at.id);
    expect(app.writes.history).toEqual([]);
    expect(app.chrome.toasts.items).toEqual([]);

    // Back to pi's own leaf: the view-only leaf goes (also when it is named).
    app.session.view(app.session.tree.meta!.effectiveLeafId);
    expect(app.session.viewLeaf).toBeNull();
    app.session.view(to);
    expect(app.session.viewLeaf).toBe(to);
    app.session.view(null);
    expect(app.session.viewLeaf).toBeNull();

    // Read-only mode: the same, nothing written either.
    await app.chrome.setReadOnly(true);
    expect(await app.session.viewBranch(to)).toBe(shown);
    expect(await entries()).toBe(lines);
  });
});

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

  it("switch_branch moves the transcript to the sibling's newest entry", async () => {
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
    const to = at.siblings!.prevId!;
    const leaf = await app.writes.switchBranch(to);
    const after = await backend.transcriptPage(s.path, 0, 1000);
    expect(after.leafId).toBe(leaf);
    const same = after.items[at.index];
    expect(same.id).toBe(to);
    expect(same.siblings).toMatchObject({ index: 2, count: 3 });
    // The tree follows: the new leaf is on the active path in lane 0.
    const meta = app.session.tree.meta!;
    expect(meta.leafId).toBe(leaf);

    // In read-only mode the view switches but nothing is written, with a note.
    await app.chrome.setReadOnly(true);
    const entries = async () => (await backend.listSessions()).sessions.find((x) => x.path === s.path)!.entryCount;
    const lines = await entries();
    const viewLeaf = await app.writes.switchBranch(at.id);
    expect(await entries()).toBe(lines);
    expect(viewLeaf).toBeTruthy();
    expect(app.session.viewLeaf).toBe(viewLeaf);
    // The view shows the other branch (the transcript at the view's leaf) ...
    const ro = await backend.transcriptPage(s.path, 0, 1000, viewLeaf);
    expect(ro.items[at.index].id).toBe(at.id);
    expect(ro.items[at.index].siblings).toMatchObject({ index: 3, count: 3 });
    // ... while the file's leaf, where pi resumes, did not move.
    const file = await backend.transcriptPage(s.path, 0, 1000);
    expect(file.leafId).toBe(leaf);
    expect(file.items[at.index].id).toBe(to);
  });
});

import { describe, expect, it } from "vitest";
import { fireEvent, render, waitFor } from "@testing-library/svelte";
import { RecordedBackend } from "../../lib/backend/recorded";
import { AppState } from "../../lib/state/app.svelte";
import { runTreeAction, treeAction } from "./treeKeys";
import Harness from "../../test/Harness.svelte";
import TreeView from "./TreeView.svelte";

// Answers recorded from the real core over demo/sessions. The sessions, by file name:
const LONG_WITH_FOLD = "2026-03-02T18-51-27-978Z"; // 70 entries, a folded run, 4 branch points
const BRANCHY = LONG_WITH_FOLD;

async function appOn(file: string) {
  const app = new AppState(new RecordedBackend("tree-keys"));
  await app.init();
  const s = app.session.list!.sessions.find((x) => x.path.includes(file))!;
  await app.session.open(s.path);
  return app;
}
const key = (k: string, mods: Partial<KeyboardEvent> = {}) => treeAction({ key: k, ...mods });
async function press(app: AppState, k: string, page = 10) {
  const a = key(k);
  if (a) await runTreeAction(app, a, page);
}

describe("tree keyboard", () => {
  it("maps pi's /tree keys", () => {
    expect(key("ArrowDown")).toEqual({ t: "move", by: 1 });
    expect(key("ArrowUp")).toEqual({ t: "move", by: -1 });
    expect(key("ArrowRight")).toEqual({ t: "page", dir: 1 });
    expect(key("PageUp")).toEqual({ t: "page", dir: -1 });
    expect(key("Enter")).toEqual({ t: "view" });
    expect(key("Escape")).toEqual({ t: "back" });
    expect(key("R")).toEqual({ t: "resume" });
    expect(key(" ")).toEqual({ t: "activate" });
    expect(key("l")).toEqual({ t: "label" });
    expect(key("L")).toEqual({ t: "label" });
    expect(key("F")).toEqual({ t: "fork" });
    expect(key("?")).toBeNull(); // the app's: ? works in every view
    expect(key("z")).toEqual({ t: "fold" });
    expect(key("-")).toEqual({ t: "fold" });
    expect(key("[")).toEqual({ t: "branch", dir: -1 });
    expect(key("]")).toEqual({ t: "branch", dir: 1 });
    expect(key("f")).toEqual({ t: "filter" });
    expect(key("/")).toEqual({ t: "find" });
    expect(key("f", { ctrlKey: true })).toBeNull();
    expect(key("q")).toBeNull();
  });

  it("moves the selection by rows, pages, Home and End", async () => {
    const app = await appOn(LONG_WITH_FOLD);
    const last = app.session.tree.total - 1;
    expect(app.selection.row).toBe(app.session.tree.meta!.leafRow);
    await press(app, "Home");
    expect(app.selection.row).toBe(0);
    await press(app, "ArrowDown");
    await press(app, "ArrowDown");
    expect(app.selection.row).toBe(2);
    await press(app, "ArrowUp");
    expect(app.selection.row).toBe(1);
    await press(app, "PageDown", 10);
    expect(app.selection.row).toBe(10);
    await press(app, "ArrowLeft", 10);
    expect(app.selection.row).toBe(1);
    await press(app, "End");
    expect(app.selection.row).toBe(last);
    await press(app, "ArrowDown");
    expect(app.selection.row).toBe(last);
    expect(app.selection.current?.id).toBe(app.session.tree.row(last)!.id);
  });

  it("opens a fold with Enter and closes it again with z", async () => {
    const app = await appOn(LONG_WITH_FOLD);
    const before = app.session.tree.total;
    const foldRow = await app.session.tree.findRow(-1, 1, (r) => r.type === "fold");
    expect(foldRow).not.toBeNull();
    const fold = app.session.tree.row(foldRow!)!.fold!;
    await app.selection.selectRow(foldRow!);
    expect(app.selection.current?.fold).toBe(true);
    await press(app, "Enter");
    expect(app.session.query!.expanded).toContain(fold.id);
    expect(app.session.tree.total).toBe(before + fold.count - 1);
    expect(app.session.tree.row(foldRow!)!.type).not.toBe("fold");
    await press(app, "ArrowDown");
    await press(app, "z");
    expect(app.session.query!.expanded).not.toContain(fold.id);
    expect(app.session.tree.total).toBe(before);
    expect(app.session.tree.row(app.selection.row!)!.type).toBe("fold");
    // Enter opens it again (a fold row stands for many entries); Space on an entry inside closes it.
    await press(app, "Enter");
    await press(app, "ArrowDown");
    await press(app, "ArrowDown");
    expect(app.session.query!.expanded).toContain(fold.id);
    await press(app, " ");
    expect(app.session.query!.expanded).not.toContain(fold.id);
  });

  it("collapses a branch point and jumps between branch points", async () => {
    const app = await appOn(BRANCHY);
    await press(app, "Home");
    await press(app, "]");
    const bp = app.session.tree.row(app.selection.row!)!;
    expect(bp.childCount).toBeGreaterThan(1);
    const before = app.session.tree.total;
    await press(app, " ");
    expect(app.session.query!.collapsed).toContain(bp.id);
    expect(app.session.tree.total).toBeLessThan(before);
    expect(app.session.tree.row(app.selection.row!)!.collapsed).toBeGreaterThan(0);
    await press(app, " ");
    expect(app.session.query!.collapsed).not.toContain(bp.id);
    expect(app.session.tree.total).toBe(before);
    await press(app, "End");
    await press(app, "[");
    expect(app.session.tree.row(app.selection.row!)!.childCount).toBeGreaterThan(1);
  });

  it("Enter shows an entry's branch and writes nothing; Esc goes back; R asks to resume pi there", async () => {
    const app = await appOn(BRANCHY);
    const { session, selection, writes, chrome } = app;
    await press(app, "Home");
    await press(app, "]");
    const bp = session.tree.row(selection.row!)!;
    expect(bp.isLeaf).toBe(false);
    await press(app, "Enter");
    expect(session.viewLeaf).toBe(bp.id);
    expect(writes.history).toEqual([]);
    await press(app, "Escape");
    expect(session.viewLeaf).toBeNull();
    // Enter on pi's own leaf is no branch of its own.
    await selection.selectEntry(session.openPath!, session.tree.meta!.effectiveLeafId!);
    await press(app, "Enter");
    expect(session.viewLeaf).toBeNull();
    // R is a request the inspector confirms (it says what pi will do); nothing is written here.
    let asked = 0;
    chrome.resumeHere.on(() => void asked++);
    await press(app, "R");
    expect(asked).toBe(1);
    expect(writes.history).toEqual([]);
    // Read-only: R says why not, and asks nothing.
    chrome.info = { ...chrome.info!, readOnly: true };
    await press(app, "R");
    expect(asked).toBe(1);
    expect(chrome.toasts.items.at(-1)?.message).toBe("Read-only mode is on: nothing is written");
  });

  it("cycles the filter with f", async () => {
    const app = await appOn(LONG_WITH_FOLD);
    const seen: string[] = [app.session.query!.filter];
    for (let i = 0; i < 4; i++) {
      await press(app, "f");
      seen.push(app.session.query!.filter);
    }
    expect(seen).toEqual(["default", "user-only", "labeled", "all", "default"]);
  });

  it("handles keys in the rendered view", async () => {
    const app = await appOn(LONG_WITH_FOLD);
    const { getByTestId, container } = render(Harness, { props: { app, component: TreeView } });
    const view = getByTestId("tree-view");
    await waitFor(() => expect(container.querySelectorAll('[data-testid="tree-row"]').length).toBeGreaterThan(0));
    await fireEvent.keyDown(view, { key: "Home" });
    await waitFor(() => expect(app.selection.row).toBe(0));
    await fireEvent.keyDown(view, { key: "ArrowDown" });
    await waitFor(() => expect(app.selection.row).toBe(1));
    await waitFor(() => expect(container.querySelector('[data-row="1"]')?.getAttribute("aria-selected")).toBe("true"));
    await fireEvent.keyDown(view, { key: "f" });
    await waitFor(() => expect(app.session.query!.filter).toBe("user-only"));
  });
});

import { describe, expect, it, vi } from "vitest";
import { createRawSnippet } from "svelte";
import { fireEvent, render } from "@testing-library/svelte";
import Segmented from "./Segmented.svelte";
import SearchBox from "./SearchBox.svelte";
import Fold from "./Fold.svelte";
import FoldToggle from "./FoldToggle.svelte";

const text = (s: string) => createRawSnippet(() => ({ render: () => `<span>${s}</span>` }));
const OPTIONS = [
  { id: "a", label: "Alpha" },
  { id: "b", label: "Beta", title: "The second" },
  { id: "c", label: "Gamma" },
];

describe("segmented control", () => {
  it("as tabs: one tab stop, aria-selected, panels named, ← → select and move the focus (wrapping)", async () => {
    const onselect = vi.fn();
    const { getByTestId, getByRole, rerender } = render(Segmented, { props: { options: OPTIONS, value: "a", onselect, label: "View", testid: "tab-", tabs: true, controls: (id: string) => `panel-${id}` } });
    expect(getByRole("tablist").getAttribute("aria-label")).toBe("View");
    const a = getByTestId("tab-a");
    expect(a.id).toBe("tab-a");
    expect(a.getAttribute("role")).toBe("tab");
    expect(a.getAttribute("aria-selected")).toBe("true");
    expect(a.getAttribute("aria-controls")).toBe("panel-a");
    expect([...["a", "b", "c"].map((x) => getByTestId(`tab-${x}`).tabIndex)]).toEqual([0, -1, -1]);
    await fireEvent.keyDown(a, { key: "ArrowLeft" });
    expect(onselect).toHaveBeenLastCalledWith("c");
    expect(document.activeElement).toBe(getByTestId("tab-c"));
    await rerender({ value: "c" });
    await fireEvent.keyDown(getByTestId("tab-c"), { key: "ArrowRight" });
    expect(onselect).toHaveBeenLastCalledWith("a");
    await fireEvent.click(getByTestId("tab-b"));
    expect(onselect).toHaveBeenLastCalledWith("b");
    expect(getByTestId("tab-b").title).toBe("The second");
  });

  it("as a group: pressed buttons, no arrow keys", async () => {
    const onselect = vi.fn();
    const { getByTestId, getByRole } = render(Segmented, { props: { options: OPTIONS, value: "b", onselect, label: "Filter", testid: "filter-", look: "chips" } });
    expect(getByRole("group").getAttribute("aria-label")).toBe("Filter");
    expect(["a", "b", "c"].map((x) => getByTestId(`filter-${x}`).getAttribute("aria-pressed"))).toEqual(["false", "true", "false"]);
    expect(getByTestId("filter-b").classList.contains("fchip")).toBe(true);
    expect(getByTestId("filter-b").classList.contains("on")).toBe(true);
    await fireEvent.keyDown(getByTestId("filter-b"), { key: "ArrowRight" });
    expect(onselect).not.toHaveBeenCalled();
    await fireEvent.click(getByTestId("filter-c"));
    expect(onselect).toHaveBeenCalledWith("c");
  });
});

describe("search box", () => {
  it("names its input, passes keys on, and shows what comes after it", async () => {
    const onkeydown = vi.fn();
    const { getByTestId, container } = render(SearchBox, { props: { label: "Find in session", placeholder: "Find…", testid: "find", look: "small", onkeydown, after: text("3/7") } });
    const input = getByTestId("find") as HTMLInputElement;
    expect(input.getAttribute("aria-label")).toBe("Find in session");
    expect(input.type).toBe("search");
    expect(container.querySelector("svg")).not.toBeNull();
    expect(container.textContent).toContain("3/7");
    await fireEvent.keyDown(input, { key: "Enter" });
    expect(onkeydown).toHaveBeenCalledOnce();
  });

  it("as a chip, has no magnifier", () => {
    const { container } = render(SearchBox, { props: { label: "Tags", placeholder: "Tags containing…", testid: "tags", look: "chip" } });
    expect(container.querySelector("svg")).toBeNull();
  });
});

describe("fold", () => {
  it("is a closed <details> with the summary given, its content padded unless bare", () => {
    const { container } = render(Fold, { props: { summary: text("Thinking"), children: text("deep thoughts"), testid: "f" } });
    const d = container.querySelector("details")!;
    expect(d.open).toBe(false);
    expect(d.dataset.testid).toBe("f");
    expect(d.querySelector("summary")!.textContent).toBe("Thinking");
    expect(d.querySelector(".inner")!.textContent).toBe("deep thoughts");
    const bare = render(Fold, { props: { summary: text("args"), children: text("{}"), bare: true, open: true } });
    const b = bare.container.querySelector("details")!;
    expect(b.open).toBe(true);
    expect(b.querySelector(".inner")).toBeNull();
  });

  it("toggle: a chevron button that says whether it is open", async () => {
    const ontoggle = vi.fn();
    const { getByRole } = render(FoldToggle, { props: { label: "The whole entry", ontoggle } });
    const b = getByRole("button", { name: "The whole entry" });
    expect(b.getAttribute("aria-expanded")).toBe("false");
    await fireEvent.click(b);
    expect(b.getAttribute("aria-expanded")).toBe("true");
    await fireEvent.click(b);
    expect(ontoggle.mock.calls).toEqual([[true], [false]]);
  });
});

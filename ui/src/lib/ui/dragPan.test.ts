import { afterEach, describe, expect, it, vi } from "vitest";
import { dragPan, type DragPan } from "./dragPan";

// Synthetic pointer events on a real DOM node (jsdom has no pointer capture: the node's
// capture methods are spies).
function setup(opts: Partial<DragPan> = {}) {
  const node = document.createElement("div");
  document.body.append(node);
  const capture = vi.fn();
  const release = vi.fn();
  node.setPointerCapture = capture;
  node.releasePointerCapture = release;
  const moves: [number, number][] = [];
  const start = vi.fn();
  const action = dragPan(node, { start, move: (dx, dy) => void moves.push([dx, dy]), ...opts });
  const clicks = vi.fn();
  node.addEventListener("click", clicks);
  const fire = (type: string, x: number, y: number, init: PointerEventInit = {}) =>
    node.dispatchEvent(new PointerEvent(type, { clientX: x, clientY: y, pointerId: 1, button: 0, bubbles: true, ...init }));
  const click = () => node.dispatchEvent(new MouseEvent("click", { bubbles: true }));
  return { node, action, capture, release, moves, start, clicks, fire, click };
}

afterEach(() => {
  document.body.replaceChildren();
});

const nextTask = () => new Promise((r) => setTimeout(r, 0));

describe("dragPan", () => {
  it("pans by the distance from the press once the pointer moved past 3 px, with the pointer captured", () => {
    const t = setup();
    t.fire("pointerdown", 100, 100);
    expect(t.start).toHaveBeenCalledOnce();
    t.fire("pointermove", 102, 101);
    expect(t.moves).toEqual([]);
    expect(t.capture).not.toHaveBeenCalled();
    t.fire("pointermove", 110, 96);
    t.fire("pointermove", 130, 90);
    expect(t.moves).toEqual([
      [10, -4],
      [30, -10],
    ]);
    expect(t.capture).toHaveBeenCalledWith(1);
    t.fire("pointerup", 130, 90);
    expect(t.release).toHaveBeenCalledWith(1);
    // Moves after the release do nothing.
    t.fire("pointermove", 200, 200);
    expect(t.moves).toHaveLength(2);
  });

  it("swallows the click that ends a drag, and only that one", async () => {
    const t = setup();
    t.fire("pointerdown", 0, 0);
    t.fire("pointermove", 20, 0);
    t.fire("pointerup", 20, 0);
    t.click();
    expect(t.clicks).not.toHaveBeenCalled();
    await nextTask();
    t.click();
    expect(t.clicks).toHaveBeenCalledOnce();
  });

  it("leaves a press that does not move a click", () => {
    const t = setup();
    t.fire("pointerdown", 50, 50);
    t.fire("pointermove", 52, 51);
    t.fire("pointerup", 52, 51);
    t.click();
    expect(t.clicks).toHaveBeenCalledOnce();
    expect(t.moves).toEqual([]);
    expect(t.capture).not.toHaveBeenCalled();
    expect(t.release).not.toHaveBeenCalled();
  });

  it("on one axis, counts only that movement", () => {
    const t = setup({ axis: "x" });
    t.fire("pointerdown", 0, 0);
    t.fire("pointermove", 1, 40);
    expect(t.moves).toEqual([]);
    t.fire("pointermove", -8, 40);
    expect(t.moves).toEqual([[-8, 0]]);
  });

  it("starts only on the presses `accept` takes (by default the primary button), and follows that pointer", () => {
    const t = setup();
    t.fire("pointerdown", 0, 0, { button: 2 });
    t.fire("pointermove", 50, 0);
    expect(t.start).not.toHaveBeenCalled();
    expect(t.moves).toEqual([]);

    const left = setup({ accept: (e) => e.clientX < 10 });
    left.fire("pointerdown", 20, 0);
    left.fire("pointermove", 60, 0);
    expect(left.moves).toEqual([]);
    left.fire("pointerdown", 5, 0);
    left.fire("pointermove", 25, 0, { pointerId: 2 });
    expect(left.moves).toEqual([]);
    left.fire("pointermove", 25, 0);
    expect(left.moves).toEqual([[20, 0]]);
  });

  it("never starts in a panel marked data-no-pan", () => {
    const t = setup();
    const panel = document.createElement("div");
    panel.dataset.noPan = "";
    const inner = document.createElement("span");
    panel.append(inner);
    t.node.append(panel);
    inner.dispatchEvent(new PointerEvent("pointerdown", { clientX: 0, clientY: 0, pointerId: 1, button: 0, bubbles: true }));
    t.fire("pointermove", 40, 0);
    expect(t.start).not.toHaveBeenCalled();
    expect(t.moves).toEqual([]);
  });

  it("ends a drag on pointercancel; takes new options; removes its listeners when destroyed", () => {
    const t = setup();
    t.fire("pointerdown", 0, 0);
    t.fire("pointermove", 10, 0);
    t.fire("pointercancel", 10, 0);
    expect(t.release).toHaveBeenCalledWith(1);

    const other: number[] = [];
    t.action.update!({ move: (dx) => void other.push(dx) });
    t.fire("pointerdown", 0, 0);
    t.fire("pointermove", 7, 0);
    expect(other).toEqual([7]);
    t.fire("pointerup", 7, 0);

    t.action.destroy!();
    t.fire("pointerdown", 0, 0);
    t.fire("pointermove", 50, 0);
    expect(other).toEqual([7]);
  });
});

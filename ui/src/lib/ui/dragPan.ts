// Drag to pan (`use:dragPan={{ move }}`): a press that moves past a few pixels becomes a drag;
// the element captures the pointer and `move` gets the distance from the press; the click that
// ends a drag is swallowed, so a drag never also opens or selects what it started on. A press
// that does not move stays a click, and a press inside an element marked `data-no-pan` (a panel
// over the view, whose text may be selected) never starts one.

import type { ActionReturn } from "svelte/action";

export interface DragPan {
  /** Whether a press may start a drag (default: the primary button). */
  accept?: (e: PointerEvent) => boolean;
  /** A press was accepted: note where the view is (the origin of the moves). */
  start?: () => void;
  /** The pointer moved (dx, dy) px from the press, once the press became a drag. */
  move: (dx: number, dy: number) => void;
  /** "x": only horizontal movement makes a drag (default: either). */
  axis?: "x" | "both";
  /** Px a press moves before it becomes a drag (default 3). */
  threshold?: number;
}

export function dragPan(node: HTMLElement, options: DragPan): ActionReturn<DragPan> {
  let opts = options;
  let drag: { x: number; y: number; id: number; moved: boolean } | null = null;

  function down(e: PointerEvent) {
    if ((e.target as Element | null)?.closest?.("[data-no-pan]")) return;
    if (!(opts.accept ? opts.accept(e) : e.button === 0)) return;
    drag = { x: e.clientX, y: e.clientY, id: e.pointerId, moved: false };
    opts.start?.();
  }

  function moveTo(e: PointerEvent) {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!drag.moved && (opts.axis === "x" ? Math.abs(dx) : Math.hypot(dx, dy)) > (opts.threshold ?? 3)) {
      drag.moved = true;
      node.setPointerCapture(e.pointerId);
    }
    if (drag.moved) opts.move(dx, opts.axis === "x" ? 0 : dy);
  }

  function up(e: PointerEvent) {
    if (!drag || e.pointerId !== drag.id) return;
    if (drag.moved) {
      node.releasePointerCapture(e.pointerId);
      swallowNextClick();
    }
    drag = null;
  }

  node.addEventListener("pointerdown", down);
  node.addEventListener("pointermove", moveTo);
  node.addEventListener("pointerup", up);
  node.addEventListener("pointercancel", up);
  return {
    update(next) {
      opts = next;
    },
    destroy() {
      node.removeEventListener("pointerdown", down);
      node.removeEventListener("pointermove", moveTo);
      node.removeEventListener("pointerup", up);
      node.removeEventListener("pointercancel", up);
    },
  };
}

/** Stops the click a pointerup is about to fire (if any: none comes after a pointercancel). */
function swallowNextClick() {
  const stop = (ev: Event) => {
    ev.stopPropagation();
    window.removeEventListener("click", stop, true);
  };
  window.addEventListener("click", stop, true);
  setTimeout(() => window.removeEventListener("click", stop, true), 0);
}

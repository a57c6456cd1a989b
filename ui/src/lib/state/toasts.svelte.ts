// Transient messages: errors of commands, warnings of writes, confirmations. A toast's time runs
// only while nobody looks at it: hovering it or moving the keyboard focus into it pauses it.

export type ToastKind = "info" | "success" | "warning" | "error";

/** A button on a toast (Undo, Copy the command, Write anyway…); the toast closes after it runs. */
export interface ToastAction {
  label: string;
  run: () => void | Promise<void>;
  /** Test id of the button. */
  testid?: string;
  /** The key that does the same outside the toast (shown on the button, e.g. "Ctrl+Z"). */
  key?: string;
}

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  detail?: string;
  /** Shown in monospace under the message (the line written, the new file, a command). */
  code?: string;
  actions?: ToastAction[];
}

export interface ToastOptions {
  detail?: string;
  code?: string;
  actions?: ToastAction[];
  /** Lifetime in ms; 0 keeps it until dismissed. */
  ms?: number;
}

/** Time left to a toast when it is let go after a pause, at least (ms). */
export const RESUME_MIN = 2000;

interface Timer {
  /** Time left (ms) when it last started or paused. */
  left: number;
  /** When it last started (ms), while it runs. */
  since: number;
  handle: ReturnType<typeof setTimeout> | null;
}

export class Toasts {
  items = $state<Toast[]>([]);
  private next = 1;
  private timers = new Map<number, Timer>();

  show(kind: ToastKind, message: string, detail?: string, ms?: number): number {
    return this.add({ kind, message, detail }, ms ?? (kind === "error" ? 8000 : kind === "warning" ? 7000 : 3500));
  }

  /** A toast with a monospace line and buttons; it stays longer (12 s) since it offers a choice. */
  rich(kind: ToastKind, message: string, opts: ToastOptions): number {
    return this.add({ kind, message, detail: opts.detail, code: opts.code, actions: opts.actions }, opts.ms ?? 12000);
  }

  private add(t: Omit<Toast, "id">, life: number): number {
    const id = this.next++;
    const kept = this.items.slice(-4);
    for (const old of this.items) if (!kept.includes(old)) this.clearTimer(old.id);
    this.items = [...kept, { id, ...t }];
    if (life > 0) {
      this.timers.set(id, { left: life, since: Date.now(), handle: null });
      this.run(id);
    }
    return id;
  }

  private run(id: number) {
    const t = this.timers.get(id);
    if (!t) return;
    t.since = Date.now();
    t.handle = setTimeout(() => this.dismiss(id), t.left);
  }

  /** Stops a toast's time (the pointer is over it, or the focus in it). */
  pause(id: number) {
    const t = this.timers.get(id);
    if (!t || t.handle === null) return;
    clearTimeout(t.handle);
    t.handle = null;
    t.left = Math.max(0, t.left - (Date.now() - t.since));
  }

  /** Lets a paused toast's time run again, with at least `RESUME_MIN` left. */
  resume(id: number) {
    const t = this.timers.get(id);
    if (!t || t.handle !== null) return;
    t.left = Math.max(t.left, RESUME_MIN);
    this.run(id);
  }

  /** Whether a toast's time is stopped. */
  paused(id: number): boolean {
    const t = this.timers.get(id);
    return !!t && t.handle === null;
  }

  /** The newest toast that offers a choice (what `t` focuses). */
  newestWithActions(): Toast | undefined {
    return [...this.items].reverse().find((t) => t.actions?.length);
  }

  private clearTimer(id: number) {
    const t = this.timers.get(id);
    if (t?.handle) clearTimeout(t.handle);
    this.timers.delete(id);
  }

  dismiss(id: number) {
    this.clearTimer(id);
    this.items = this.items.filter((t) => t.id !== id);
  }
}

// Transient messages: errors of commands, warnings of writes, confirmations.

export type ToastKind = "info" | "success" | "warning" | "error";

/** A button on a toast (Undo, Copy the command, Write anyway…); the toast closes after it runs. */
export interface ToastAction {
  label: string;
  run: () => void | Promise<void>;
  /** Test id of the button. */
  testid?: string;
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

export class Toasts {
  items = $state<Toast[]>([]);
  private next = 1;

  show(kind: ToastKind, message: string, detail?: string, ms?: number): number {
    const id = this.next++;
    this.items = [...this.items.slice(-4), { id, kind, message, detail }];
    const life = ms ?? (kind === "error" ? 8000 : kind === "warning" ? 7000 : 3500);
    if (life > 0) setTimeout(() => this.dismiss(id), life);
    return id;
  }

  /** A toast with a monospace line and buttons; it stays longer (12 s) since it offers a choice. */
  rich(kind: ToastKind, message: string, opts: ToastOptions): number {
    const id = this.next++;
    this.items = [...this.items.slice(-4), { id, kind, message, detail: opts.detail, code: opts.code, actions: opts.actions }];
    const life = opts.ms ?? 12000;
    if (life > 0) setTimeout(() => this.dismiss(id), life);
    return id;
  }

  dismiss(id: number) {
    this.items = this.items.filter((t) => t.id !== id);
  }
}

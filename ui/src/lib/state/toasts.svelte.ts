// Transient messages: errors of commands, warnings of writes, confirmations.

export type ToastKind = "info" | "success" | "warning" | "error";

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  detail?: string;
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

  dismiss(id: number) {
    this.items = this.items.filter((t) => t.id !== id);
  }
}

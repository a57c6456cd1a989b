// Explicit events between the stores and the views: "reveal this row", "the open session
// changed", "give the focus back to the tree". A view subscribes in an effect, which
// unsubscribes when it goes (`$effect(() => topic.on(handler))`).

import type { Unsubscribe } from "../backend";

/** A listener; a promise it returns is waited for before the next listener runs. */
export type Listener<T> = (value: T) => void | Promise<void>;

export class Topic<T = void> {
  private listeners: Listener<T>[] = [];

  /** Subscribes; the function returned unsubscribes. */
  on(listener: Listener<T>): Unsubscribe {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /**
   * Calls the listeners in the order they subscribed. Those that return nothing run at once,
   * one after the other; one that returns a promise is waited for before the next runs. The
   * promise returned settles when all have run (it rejects with the first failure).
   */
  emit(value: T): Promise<void> {
    const ls = this.listeners;
    const from = (i: number): Promise<void> => {
      try {
        for (; i < ls.length; i++) {
          const r = ls[i](value);
          if (r instanceof Promise) {
            const next = i + 1;
            return r.then(() => from(next));
          }
        }
      } catch (e) {
        return Promise.reject(e);
      }
      return Promise.resolve();
    };
    return from(0);
  }

  /** How many listen (for tests). */
  get size(): number {
    return this.listeners.length;
  }
}

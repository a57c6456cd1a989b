// The browser implementation of `Backend`: `pi-session serve` over HTTP. Each command is one
// `POST /api/<command>` with the window's command name and argument names (commands.ts); live
// updates come as server-sent events from `/api/events`. The token travels in a cookie that the
// server set when the printed URL was opened.

import type { Unsubscribe } from "./index";
import { ApiError } from "./index";
import { CommandBackend, type Args } from "./commands";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";
import type { RootChanged } from "../bindings/RootChanged";

async function call<T>(base: string, cmd: string, args: Args): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}/api/${cmd}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(args),
    });
  } catch (e) {
    throw ApiError.from(e);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    throw new ApiError("internal", `${res.status} ${res.statusText}: ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    if (body && typeof body === "object" && "code" in body) throw ApiError.from(body);
    throw new ApiError("internal", `${res.status} ${res.statusText}`);
  }
  return body as T;
}

export class HttpBackend extends CommandBackend {
  readonly kind = "http" as const;
  private events: EventSource | null = null;
  private listeners = new Map<string, Set<(payload: unknown) => void>>();
  private readonly base: string;

  /** `base`: where the server is (default: this page's origin). */
  constructor(base = "") {
    super();
    this.base = base;
  }

  protected call<T>(cmd: string, args: Args): Promise<T> {
    return call<T>(this.base, cmd, args);
  }
  onRootChanged(cb: (e: RootChanged) => void): Unsubscribe {
    return this.subscribe("root-changed", cb as (p: unknown) => void);
  }
  onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe {
    return this.subscribe("index-progress", cb as (p: unknown) => void);
  }
  /** The server brings its search index up to date on each query: no progress events. */
  onSearchIndexProgress(_cb: (e: SearchIndexProgress) => void): Unsubscribe {
    return () => {};
  }

  /** One EventSource for all listeners, opened on the first and closed after the last. */
  private subscribe(event: string, cb: (payload: unknown) => void): Unsubscribe {
    if (!this.events && typeof EventSource !== "undefined") {
      this.events = new EventSource(`${this.base}/api/events`, { withCredentials: true });
      for (const name of ["root-changed", "index-progress"]) {
        this.events.addEventListener(name, (e) => {
          let payload: unknown;
          try {
            payload = JSON.parse((e as MessageEvent<string>).data);
          } catch {
            return;
          }
          for (const l of this.listeners.get(name) ?? []) l(payload);
        });
      }
    }
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(cb);
    return () => {
      set.delete(cb);
      if ([...this.listeners.values()].every((s) => s.size === 0)) {
        this.events?.close();
        this.events = null;
      }
    };
  }
}

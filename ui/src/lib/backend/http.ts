// The browser implementation of `Backend`: `pi-session serve` over HTTP. Each command is one
// `POST /api/<command>` with the window's command name and argument names (commands.ts); live
// updates come as server-sent events from `/api/events`, read with fetch() (EventSource cannot
// send a header).
//
// The API takes the token only as `Authorization: Bearer TOKEN` — nothing a browser sends by
// itself. The printed URL carries it in the fragment (`/#token=…`), which the browser never
// sends: `takeToken` reads it, removes it from the address bar, and keeps it in sessionStorage
// (this tab only) for reloads.

import type { Unsubscribe } from "./index";
import { ApiError } from "./index";
import { CommandBackend, type Args } from "./commands";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";
import type { RootChanged } from "../bindings/RootChanged";

/** Where the token is kept for reloads of this tab. */
export const TOKEN_KEY = "pi-session-token";

/**
 * The token: from the URL's fragment (`#token=…`, the URL `pi-session serve` printed) — then
 * removed from the address bar and the history entry, and kept in sessionStorage — or the one
 * kept before, for a reload. Null when there is none.
 */
export function takeToken(loc: Location = window.location, history: History = window.history, store: Storage | null = tabStorage()): string | null {
  const params = new URLSearchParams(loc.hash.replace(/^#/, ""));
  const token = params.get("token");
  if (token) {
    params.delete("token");
    const rest = params.toString();
    history.replaceState(history.state, "", `${loc.pathname}${loc.search}${rest ? `#${rest}` : ""}`);
    try {
      store?.setItem(TOKEN_KEY, token);
    } catch {
      // Storage refused (private mode, quota): the token lasts until the page is left.
    }
    return token;
  }
  try {
    return store?.getItem(TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

async function call<T>(base: string, headers: Record<string, string>, cmd: string, args: Args): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}/api/${cmd}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      credentials: "omit",
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

/** One server-sent event. */
export type SseEvent = { event: string; data: string };

/**
 * Reads a server-sent event stream as it arrives (the format of the HTML standard: `event:`
 * and `data:` fields, a blank line ends an event, `:` starts a comment; any line end).
 */
export class SseParser {
  private buf = "";
  private event = "";
  private data: string[] = [];

  /** Feeds a chunk of text; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    this.buf += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buf);
      // A lone `\r` at the end may be the first half of `\r\n`: wait for more.
      if (!m || (m[0] === "\r" && m.index === this.buf.length - 1)) break;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      if (line === "") {
        if (this.data.length) out.push({ event: this.event || "message", data: this.data.join("\n") });
        this.event = "";
        this.data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") this.event = value;
      else if (field === "data") this.data.push(value);
    }
    return out;
  }
}

/** Waits between reconnections: 1 s, doubling up to 15 s, back to 1 s once connected. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 15000;

export class HttpBackend extends CommandBackend {
  readonly kind = "http" as const;
  private events: AbortController | null = null;
  private listeners = new Map<string, Set<(payload: unknown) => void>>();
  private readonly base: string;
  private readonly headers: Record<string, string>;

  /** `base`: where the server is (default: this page's origin); `token`: sent on every call. */
  constructor(base = "", token: string | null = null) {
    super();
    this.base = base;
    this.headers = token ? { authorization: `Bearer ${token}` } : {};
  }

  protected call<T>(cmd: string, args: Args): Promise<T> {
    return call<T>(this.base, this.headers, cmd, args);
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

  /** One event stream for all listeners, opened on the first and closed after the last. */
  private subscribe(event: string, cb: (payload: unknown) => void): Unsubscribe {
    if (!this.events) {
      this.events = new AbortController();
      void this.stream(this.events.signal);
    }
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(cb);
    return () => {
      set.delete(cb);
      if ([...this.listeners.values()].every((s) => s.size === 0)) {
        this.events?.abort();
        this.events = null;
      }
    };
  }

  private dispatch(e: SseEvent) {
    let payload: unknown;
    try {
      payload = JSON.parse(e.data);
    } catch {
      return;
    }
    for (const l of this.listeners.get(e.event) ?? []) l(payload);
  }

  /**
   * Reads `/api/events` until `signal` aborts, reconnecting (as EventSource does) when the
   * stream ends or the connection fails. A refusal (401, 403) ends it: retrying cannot help.
   */
  private async stream(signal: AbortSignal) {
    let wait = RETRY_FIRST_MS;
    while (!signal.aborted) {
      try {
        const res = await fetch(`${this.base}/api/events`, { headers: { ...this.headers, accept: "text/event-stream" }, credentials: "omit", cache: "no-store", signal });
        if (res.status === 401 || res.status === 403) {
          console.warn(`live updates refused: ${res.status}`);
          return;
        }
        if (res.ok && res.body) {
          wait = RETRY_FIRST_MS;
          const reader = res.body.getReader();
          const decoder = new TextDecoder();
          const parser = new SseParser();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            for (const e of parser.push(decoder.decode(value, { stream: true }))) this.dispatch(e);
          }
        }
      } catch {
        // A network error or the abort: retry, or stop below.
      }
      if (signal.aborted) return;
      await new Promise((ok) => setTimeout(ok, wait));
      wait = Math.min(wait * 2, RETRY_MAX_MS);
    }
  }
}

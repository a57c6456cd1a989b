// The browser implementation of `Backend`: `pi-session serve` over HTTP. Each method is one
// `POST /api/<command>` with the window's command name and argument names (see tauri.ts); live
// updates come as server-sent events from `/api/events`. The token travels in a cookie that the
// server set when the printed URL was opened.

import type { Backend, Unsubscribe } from "./index";
import { ApiError } from "./index";
import type { AppInfo } from "../bindings/AppInfo";
import type { ContextMessage } from "../bindings/ContextMessage";
import type { ContextView } from "../bindings/ContextView";
import type { EntryDetail } from "../bindings/EntryDetail";
import type { FindResult } from "../bindings/FindResult";
import type { ForkGraph } from "../bindings/ForkGraph";
import type { ForkPosition } from "../bindings/ForkPosition";
import type { ForkResult } from "../bindings/ForkResult";
import type { HiddenEntry } from "../bindings/HiddenEntry";
import type { IndexProgress } from "../bindings/IndexProgress";
import type { LocateResult } from "../bindings/LocateResult";
import type { RootChanged } from "../bindings/RootChanged";
import type { SearchResult } from "../bindings/SearchResult";
import type { SessionList } from "../bindings/SessionList";
import type { SwitchResult } from "../bindings/SwitchResult";
import type { TranscriptPage } from "../bindings/TranscriptPage";
import type { TreePage } from "../bindings/TreePage";
import type { TreeQuery } from "../bindings/TreeQuery";
import type { WriteResult } from "../bindings/WriteResult";

async function call<T>(base: string, cmd: string, args?: Record<string, unknown>): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}/api/${cmd}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(args ?? {}),
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

export class HttpBackend implements Backend {
  readonly kind = "http" as const;
  private events: EventSource | null = null;
  private listeners = new Map<string, Set<(payload: unknown) => void>>();

  private readonly base: string;

  /** `base`: where the server is (default: this page's origin). */
  constructor(base = "") {
    this.base = base;
  }

  private call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
    return call<T>(this.base, cmd, args);
  }

  appInfo() {
    return this.call<AppInfo>("app_info");
  }
  listSessions(limit?: number) {
    return this.call<SessionList>("list_sessions", limit === undefined ? {} : { limit });
  }
  forkGraph() {
    return this.call<ForkGraph>("fork_graph");
  }
  treePage(query: TreeQuery, start: number, count: number) {
    return this.call<TreePage>("tree_page", { query, start, count });
  }
  locateRow(query: TreeQuery, id: string) {
    return this.call<LocateResult>("locate_row", { query, id });
  }
  findInSession(path: string, text: string) {
    return this.call<FindResult>("find_in_session", { path, text });
  }
  entryDetail(path: string, id: string) {
    return this.call<EntryDetail>("entry_detail", { path, id });
  }
  contextView(path: string, leafId: string | null) {
    return this.call<ContextView>("context_view", { path, leafId });
  }
  contextPage(path: string, leafId: string | null, start: number, count: number) {
    return this.call<ContextMessage[]>("context_page", { path, leafId, start, count });
  }
  hiddenPage(path: string, leafId: string | null, start: number, count: number) {
    return this.call<HiddenEntry[]>("hidden_page", { path, leafId, start, count });
  }
  navigate(path: string, id: string | null) {
    return this.call<WriteResult>("navigate", { path, id });
  }
  setLabel(path: string, id: string, label: string | null) {
    return this.call<WriteResult>("set_label", { path, id, label });
  }
  forkSession(path: string, id: string, position: ForkPosition) {
    return this.call<ForkResult>("fork_session", { path, id, position });
  }
  search(query: string, limit: number) {
    return this.call<SearchResult>("search", { query, limit });
  }
  transcriptPage(path: string, start: number, count: number) {
    return this.call<TranscriptPage>("transcript_page", { path, start, count });
  }
  switchBranch(path: string, toId: string) {
    return this.call<SwitchResult>("switch_branch", { path, toId });
  }
  transcriptMarkdown(path: string, ids: string[] | null) {
    return this.call<string>("transcript_markdown", { path, ids });
  }
  setReadOnly(on: boolean) {
    return this.call<AppInfo>("set_read_only", { on });
  }
  onRootChanged(cb: (e: RootChanged) => void): Unsubscribe {
    return this.subscribe("root-changed", cb as (p: unknown) => void);
  }
  onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe {
    return this.subscribe("index-progress", cb as (p: unknown) => void);
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

// The one way the UI reaches the backend. Every command of docs/ipc.md is one method here.
// Two implementations: `tauri.ts` (the desktop app) and `fake.ts` (an in-memory fake for the browser,
// the dev server and tests). Nothing else in the UI imports `@tauri-apps/*`.

import { TauriBackend } from "./tauri";
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
import type { SearchResults } from "../bindings/SearchResults";
import type { SearchIndexStatus } from "../bindings/SearchIndexStatus";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";
import type { Dashboard } from "../bindings/Dashboard";
import type { DashboardQuery } from "../bindings/DashboardQuery";
import type { Marks } from "../bindings/Marks";
import type { TagCount } from "../bindings/TagCount";
import type { ExportResult } from "../bindings/ExportResult";

export type Unsubscribe = () => void;

export interface Backend {
  /** `tauri` or `fake`: which implementation is running. */
  readonly kind: "tauri" | "fake";

  appInfo(): Promise<AppInfo>;
  /** All sessions; with `limit`, only the most recently modified (a quick first screen). */
  listSessions(limit?: number): Promise<SessionList>;
  forkGraph(): Promise<ForkGraph>;
  treePage(query: TreeQuery, start: number, count: number): Promise<TreePage>;
  locateRow(query: TreeQuery, id: string): Promise<LocateResult>;
  findInSession(path: string, text: string): Promise<FindResult>;
  entryDetail(path: string, id: string): Promise<EntryDetail>;
  contextView(path: string, leafId: string | null): Promise<ContextView>;
  contextPage(path: string, leafId: string | null, start: number, count: number): Promise<ContextMessage[]>;
  hiddenPage(path: string, leafId: string | null, start: number, count: number): Promise<HiddenEntry[]>;
  navigate(path: string, id: string | null): Promise<WriteResult>;
  setLabel(path: string, id: string, label: string | null): Promise<WriteResult>;
  forkSession(path: string, id: string, position: ForkPosition): Promise<ForkResult>;
  search(query: string, limit: number): Promise<SearchResult>;
  transcriptPage(path: string, start: number, count: number): Promise<TranscriptPage>;
  switchBranch(path: string, toId: string): Promise<SwitchResult>;
  transcriptMarkdown(path: string, ids: string[] | null): Promise<string>;
  setReadOnly(on: boolean): Promise<AppInfo>;

  // Issue 14: indexed search, dashboard, tags/pin/archive, export.
  searchIndexStatus(): Promise<SearchIndexStatus>;
  /** The indexed full-text search (words, "phrases", role: tool: model: cwd: label: name: after: before:). */
  searchIndexed(query: string, limit: number): Promise<SearchResults>;
  /** Ids of every entry of one session that a query matches. */
  searchHitsInSession(path: string, query: string): Promise<string[]>;
  dashboard(query: DashboardQuery): Promise<Dashboard>;
  /** Marks (tags, pin, archive) of every session that has any, by session id. */
  sessionMarks(): Promise<Record<string, Marks>>;
  sessionTags(): Promise<TagCount[]>;
  addSessionTag(sessionId: string, tag: string): Promise<Marks>;
  removeSessionTag(sessionId: string, tag: string): Promise<Marks>;
  setSessionPinned(sessionId: string, pinned: boolean): Promise<Marks>;
  setSessionArchived(sessionId: string, archived: boolean): Promise<Marks>;
  /** Writes a path (`leafId`, default the leaf) or the whole tree as `html` or `md` to the export folder. */
  exportSession(path: string, leafId: string | null, tree: boolean, format: "html" | "md"): Promise<ExportResult>;
  /** `search-index-progress`: while the search index builds or updates. */
  onSearchIndexProgress(cb: (e: SearchIndexProgress) => void): Unsubscribe;

  /** `root-changed`: files under the root grew, appeared or disappeared. */
  onRootChanged(cb: (e: RootChanged) => void): Unsubscribe;
  /** `index-progress`: while the full index builds. */
  onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe;
}

/** The error codes of docs/ipc.md, plus `internal` for anything that did not come as `{code, message}`. */
export type ErrorCode =
  | "not-found"
  | "io"
  | "not-a-file"
  | "corrupt"
  | "unknown-id"
  | "read-only"
  | "in-cycle"
  | "tail-changing"
  | "outside-root"
  | "invalid-id"
  | "read-only-mode"
  | "invalid"
  | "internal";

/** A failed command: branch on `code`, show `message`. */
export class ApiError extends Error {
  readonly code: ErrorCode | string;
  constructor(code: ErrorCode | string, message: string) {
    super(message);
    this.name = "ApiError";
    this.code = code;
  }

  /** Wraps whatever a command rejected with. */
  static from(e: unknown): ApiError {
    if (e instanceof ApiError) return e;
    if (e && typeof e === "object" && "code" in e && "message" in e) {
      const o = e as { code: unknown; message: unknown };
      return new ApiError(String(o.code), String(o.message));
    }
    if (e instanceof Error) return new ApiError("internal", e.message);
    return new ApiError("internal", String(e));
  }
}

/** True inside the desktop app (Tauri injects this global before the page loads). */
export function isTauri(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}

/** Picks the implementation: Tauri inside the app, else the in-memory fake. */
export async function createBackend(): Promise<Backend> {
  if (isTauri()) return new TauriBackend();
  const m = await import("./fake");
  const params = typeof location !== "undefined" ? new URLSearchParams(location.search) : null;
  const big = Number(params?.get("big") ?? 0) || 0;
  const demo = params?.get("demo") === "1";
  const live = params?.get("live") === "1";
  const indexingMs = Number(params?.get("indexing") ?? 0) || 0;
  const latency = Number(params?.get("latency") ?? 0) || 0;
  return m.createFakeBackend({ bigSession: big, demo, live, indexingMs, latency });
}

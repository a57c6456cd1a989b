// The one way the UI reaches the backend. Every command of docs/ipc.md is one method here.
// Implementations: `tauri.ts` (the desktop window), `http.ts` (the browser, talking to
// `pi-session serve`) and `recorded.ts` (unit tests: answers recorded from the real core).
// Nothing else in the UI imports `@tauri-apps/*`.

import { HttpBackend, takeToken } from "./http";
import { TauriBackend } from "./tauri";
import type { MovePlan } from "../bindings/MovePlan";
import type { MarkFilter } from "../bindings/MarkFilter";
import type { MarkSelection } from "../bindings/MarkSelection";
import type { MoveBatch } from "../bindings/MoveBatch";
import type { AppInfo } from "../bindings/AppInfo";
import type { AuditView } from "../bindings/AuditView";
import type { ContextMessage } from "../bindings/ContextMessage";
import type { ContextView } from "../bindings/ContextView";
import type { EntryDetail } from "../bindings/EntryDetail";
import type { ErrorCode } from "../bindings/ErrorCode";
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
import type { BranchDiff } from "../bindings/BranchDiff";
import type { NewFileResult } from "../bindings/NewFileResult";
import type { SlimPreview } from "../bindings/SlimPreview";
import type { SearchResults } from "../bindings/SearchResults";
import type { SearchIndexStatus } from "../bindings/SearchIndexStatus";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";
import type { Dashboard } from "../bindings/Dashboard";
import type { DashboardQuery } from "../bindings/DashboardQuery";
import type { Marks } from "../bindings/Marks";
import type { TagCount } from "../bindings/TagCount";
import type { ExportResult } from "../bindings/ExportResult";
import type { SetAside } from "../bindings/SetAside";

export type Unsubscribe = () => void;

export interface Backend {
  /** Which implementation is running. */
  readonly kind: "tauri" | "http" | "recorded";

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
  /** Every compaction on the path to `leafId` (the leaf when null), audited. */
  auditView(path: string, leafId: string | null): Promise<AuditView>;
  navigate(path: string, id: string | null): Promise<WriteResult>;
  setLabel(path: string, id: string, label: string | null): Promise<WriteResult>;
  forkSession(path: string, id: string, position: ForkPosition): Promise<ForkResult>;
  search(query: string, limit: number): Promise<SearchResult>;
  /** With `leafId`, the path to that entry instead of the session's (a view-only override). */
  transcriptPage(path: string, start: number, count: number, leafId?: string | null): Promise<TranscriptPage>;
  /** Where the view goes when the transcript steps to sibling `toId` (shown, never written). */
  switchBranch(path: string, toId: string): Promise<SwitchResult>;
  transcriptMarkdown(path: string, ids: string[] | null): Promise<string>;
  setReadOnly(on: boolean): Promise<AppInfo>;
  /** Slim fork, pruned copy, compare. */
  slimPreview(path: string, id: string): Promise<SlimPreview>;
  forkSlim(path: string, id: string): Promise<NewFileResult>;
  pruneSession(path: string, keep: string[]): Promise<NewFileResult>;
  compareBranches(aPath: string, aId: string, bPath: string, bId: string): Promise<BranchDiff>;
  /** Several roots. Each answers the new `AppInfo` (its `roots`). The window only: `pi-session
   *  serve` refuses them with `window-only` (its roots are set by its command line). */
  addRoot(path: string, name: string | null, readOnly: boolean): Promise<AppInfo>;
  removeRoot(name: string): Promise<AppInfo>;
  setRootReadOnly(name: string, on: boolean): Promise<AppInfo>;
  /** Sessions roots opened before, newest first. */
  recentRoots(): Promise<string[]>;
  /** Opens another sessions root (the folder picker); remembered among the recent roots. */
  openRoot(path: string): Promise<AppInfo>;

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
  /**
   * Exports a path or the whole tree. The window writes it to `out` (default: the export folder;
   * an existing file only with `replace`); served, the answer carries the text (a download).
   */
  exportSession(path: string, leafId: string | null, tree: boolean, format: "html" | "md", out?: string | null, replace?: boolean): Promise<ExportResult>;
  /** The window: where the save dialog proposes to write an export of `path`. */
  exportTarget(path: string, tree: boolean, format: "html" | "md"): Promise<string>;
  /** The window: opens a file it exported, or (`reveal`) its folder. */
  openExport(path: string, reveal: boolean): Promise<null>;
  /** What moving the archived sessions' files out of their roots would do. */
  planArchiveMove(): Promise<MovePlan>;
  /** Moves those of the planned files in `paths`; recorded, so it can be undone. */
  moveArchivedFiles(paths: string[]): Promise<MoveBatch>;
  undoMove(batch: number): Promise<MoveBatch>;
  /** The last moves that can be undone, newest first. */
  recentMoves(): Promise<MoveBatch[]>;
  /** Which sessions the list's filters keep (the rule lives in the backend). */
  selectSessions(filter: MarkFilter): Promise<MarkSelection>;
  /** After `organiser-damaged`: sets the damaged database aside (kept, renamed) and starts a
   *  new one. The window only. */
  setAsideOrganiser(): Promise<SetAside>;
  /** `search-index-progress`: while the search index builds or updates. */
  onSearchIndexProgress(cb: (e: SearchIndexProgress) => void): Unsubscribe;

  /** `root-changed`: files under the root grew, appeared or disappeared. */
  onRootChanged(cb: (e: RootChanged) => void): Unsubscribe;
  /** `index-progress`: while the full index builds. */
  onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe;
}

/** The error codes of docs/ipc.md (generated from the core's `ErrorCode`), `internal` for anything that did not come as `{code, message}`. */
export type { ErrorCode };

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

/** Picks the implementation: Tauri inside the window, else HTTP to the server that served the
 *  page, with the token from the URL's fragment (or kept from it before this reload). */
export async function createBackend(): Promise<Backend> {
  if (isTauri()) return new TauriBackend();
  return new HttpBackend("", takeToken());
}

// The window's commands, once: each `Backend` method is a command name and its arguments, as
// the Tauri commands (src-tauri/commands.rs) and `pi-session serve` take them. The transports
// (tauri.ts, http.ts, recorded.ts) only say how a command travels.

import type { Backend, Unsubscribe } from "./index";
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
import type { AuditView } from "../bindings/AuditView";
import type { SearchResults } from "../bindings/SearchResults";
import type { SearchIndexStatus } from "../bindings/SearchIndexStatus";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";
import type { Dashboard } from "../bindings/Dashboard";
import type { DashboardQuery } from "../bindings/DashboardQuery";
import type { SetAside } from "../bindings/SetAside";
import type { Marks } from "../bindings/Marks";
import type { TagCount } from "../bindings/TagCount";
import type { ExportResult } from "../bindings/ExportResult";
import type { BranchDiff } from "../bindings/BranchDiff";
import type { NewFileResult } from "../bindings/NewFileResult";
import type { SlimPreview } from "../bindings/SlimPreview";
import type { MovePlan } from "../bindings/MovePlan";
import type { MarkFilter } from "../bindings/MarkFilter";
import type { MarkSelection } from "../bindings/MarkSelection";
import type { MoveBatch } from "../bindings/MoveBatch";


export type Args = Record<string, unknown>;

/** Commands after which the backend's state differs (writes and the read-only switch). */
export const STATEFUL_COMMANDS: ReadonlySet<string> = new Set(["navigate", "set_label", "fork_session", "set_read_only", "fork_slim", "prune_session", "add_root", "remove_root", "set_root_read_only", "open_root", "add_session_tag", "remove_session_tag", "set_session_pinned", "set_session_archived", "export_session", "move_archived_files", "undo_move"]);

export abstract class CommandBackend implements Backend {
  abstract readonly kind: Backend["kind"];
  /** Sends one command; rejects with an `ApiError`. */
  protected abstract call<T>(command: string, args: Args): Promise<T>;
  abstract onRootChanged(cb: (e: RootChanged) => void): Unsubscribe;
  abstract onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe;
  abstract onSearchIndexProgress(cb: (e: SearchIndexProgress) => void): Unsubscribe;

  appInfo() {
    return this.call<AppInfo>("app_info", {});
  }
  listSessions(limit?: number) {
    return this.call<SessionList>("list_sessions", limit === undefined ? {} : { limit });
  }
  forkGraph() {
    return this.call<ForkGraph>("fork_graph", {});
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
  /** The transcript of the path to `leafId` (default: the file's leaf), shown without writing. */
  transcriptPage(path: string, start: number, count: number, leafId: string | null = null) {
    return this.call<TranscriptPage>("transcript_page", { path, start, count, leafId });
  }
  auditView(path: string, leafId: string | null) {
    return this.call<AuditView>("audit_view", { path, leafId });
  }
  recentRoots() {
    return this.call<string[]>("recent_roots", {});
  }
  openRoot(path: string) {
    return this.call<AppInfo>("open_root", { path });
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
  addRoot(path: string, name: string | null, readOnly: boolean) {
    return this.call<AppInfo>("add_root", { path, name, readOnly });
  }
  removeRoot(name: string) {
    return this.call<AppInfo>("remove_root", { name });
  }
  setRootReadOnly(name: string, on: boolean) {
    return this.call<AppInfo>("set_root_read_only", { name, on });
  }
  searchIndexStatus() {
    return this.call<SearchIndexStatus>("search_index_status", {});
  }
  searchIndexed(query: string, limit: number) {
    return this.call<SearchResults>("search_indexed", { query, limit });
  }
  searchHitsInSession(path: string, query: string) {
    return this.call<string[]>("search_hits_in_session", { path, query });
  }
  dashboard(query: DashboardQuery) {
    return this.call<Dashboard>("dashboard", { query });
  }
  sessionMarks() {
    return this.call<Record<string, Marks>>("session_marks", {});
  }
  sessionTags() {
    return this.call<TagCount[]>("session_tags", {});
  }
  addSessionTag(sessionId: string, tag: string) {
    return this.call<Marks>("add_session_tag", { sessionId, tag });
  }
  removeSessionTag(sessionId: string, tag: string) {
    return this.call<Marks>("remove_session_tag", { sessionId, tag });
  }
  setSessionPinned(sessionId: string, pinned: boolean) {
    return this.call<Marks>("set_session_pinned", { sessionId, pinned });
  }
  setSessionArchived(sessionId: string, archived: boolean) {
    return this.call<Marks>("set_session_archived", { sessionId, archived });
  }
  exportSession(path: string, leafId: string | null, tree: boolean, format: "html" | "md", out: string | null = null, replace = false) {
    return this.call<ExportResult>("export_session", { path, leafId, tree, format, out, replace });
  }
  exportTarget(path: string, tree: boolean, format: "html" | "md") {
    return this.call<string>("export_target", { path, tree, format });
  }
  openExport(path: string, reveal: boolean) {
    return this.call<null>("open_export", { path, reveal });
  }
  planArchiveMove() {
    return this.call<MovePlan>("plan_archive_move", {});
  }
  moveArchivedFiles(paths: string[]) {
    return this.call<MoveBatch>("move_archived_files", { paths });
  }
  undoMove(batch: number) {
    return this.call<MoveBatch>("undo_move", { batch });
  }
  selectSessions(filter: MarkFilter) {
    return this.call<MarkSelection>("select_sessions", { filter });
  }
  recentMoves() {
    return this.call<MoveBatch[]>("recent_moves", {});
  }
  setAsideOrganiser() {
    return this.call<SetAside>("set_aside_organiser", {});
  }
  slimPreview(path: string, id: string) {
    return this.call<SlimPreview>("slim_preview", { path, id });
  }
  forkSlim(path: string, id: string) {
    return this.call<NewFileResult>("fork_slim", { path, id });
  }
  pruneSession(path: string, keep: string[]) {
    return this.call<NewFileResult>("prune_session", { path, keep });
  }
  compareBranches(aPath: string, aId: string, bPath: string, bId: string) {
    return this.call<BranchDiff>("compare_branches", { aPath, aId, bPath, bId });
  }
}

// The desktop implementation of `Backend`: Tauri `invoke` and `listen`.
// This file and nothing else imports `@tauri-apps/*`.

import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
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
import type { SearchResults } from "../bindings/SearchResults";
import type { SearchIndexStatus } from "../bindings/SearchIndexStatus";
import type { SearchIndexProgress } from "../bindings/SearchIndexProgress";
import type { Dashboard } from "../bindings/Dashboard";
import type { DashboardQuery } from "../bindings/DashboardQuery";
import type { Marks } from "../bindings/Marks";
import type { TagCount } from "../bindings/TagCount";
import type { ExportResult } from "../bindings/ExportResult";

async function call<T>(cmd: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(cmd, args);
  } catch (e) {
    throw ApiError.from(e);
  }
}

function subscribe<T>(event: string, cb: (payload: T) => void): Unsubscribe {
  let stop: (() => void) | null = null;
  let cancelled = false;
  listen<T>(event, (e) => cb(e.payload))
    .then((un) => {
      if (cancelled) un();
      else stop = un;
    })
    .catch((e) => console.error(`listen ${event}`, e));
  return () => {
    cancelled = true;
    stop?.();
  };
}

export class TauriBackend implements Backend {
  readonly kind = "tauri" as const;

  appInfo() {
    return call<AppInfo>("app_info");
  }
  listSessions(limit?: number) {
    return call<SessionList>("list_sessions", limit === undefined ? {} : { limit });
  }
  forkGraph() {
    return call<ForkGraph>("fork_graph");
  }
  treePage(query: TreeQuery, start: number, count: number) {
    return call<TreePage>("tree_page", { query, start, count });
  }
  locateRow(query: TreeQuery, id: string) {
    return call<LocateResult>("locate_row", { query, id });
  }
  findInSession(path: string, text: string) {
    return call<FindResult>("find_in_session", { path, text });
  }
  entryDetail(path: string, id: string) {
    return call<EntryDetail>("entry_detail", { path, id });
  }
  contextView(path: string, leafId: string | null) {
    return call<ContextView>("context_view", { path, leafId });
  }
  contextPage(path: string, leafId: string | null, start: number, count: number) {
    return call<ContextMessage[]>("context_page", { path, leafId, start, count });
  }
  hiddenPage(path: string, leafId: string | null, start: number, count: number) {
    return call<HiddenEntry[]>("hidden_page", { path, leafId, start, count });
  }
  navigate(path: string, id: string | null) {
    return call<WriteResult>("navigate", { path, id });
  }
  setLabel(path: string, id: string, label: string | null) {
    return call<WriteResult>("set_label", { path, id, label });
  }
  forkSession(path: string, id: string, position: ForkPosition) {
    return call<ForkResult>("fork_session", { path, id, position });
  }
  search(query: string, limit: number) {
    return call<SearchResult>("search", { query, limit });
  }
  transcriptPage(path: string, start: number, count: number) {
    return call<TranscriptPage>("transcript_page", { path, start, count });
  }
  switchBranch(path: string, toId: string) {
    return call<SwitchResult>("switch_branch", { path, toId });
  }
  transcriptMarkdown(path: string, ids: string[] | null) {
    return call<string>("transcript_markdown", { path, ids });
  }
  setReadOnly(on: boolean) {
    return call<AppInfo>("set_read_only", { on });
  }
  // Issue 14: indexed search, dashboard, tags/pin/archive, export.
  searchIndexStatus() {
    return call<SearchIndexStatus>("search_index_status");
  }
  searchIndexed(query: string, limit: number) {
    return call<SearchResults>("search_indexed", { query, limit });
  }
  searchHitsInSession(path: string, query: string) {
    return call<string[]>("search_hits_in_session", { path, query });
  }
  dashboard(query: DashboardQuery) {
    return call<Dashboard>("dashboard", { query });
  }
  sessionMarks() {
    return call<Record<string, Marks>>("session_marks");
  }
  sessionTags() {
    return call<TagCount[]>("session_tags");
  }
  addSessionTag(sessionId: string, tag: string) {
    return call<Marks>("add_session_tag", { sessionId, tag });
  }
  removeSessionTag(sessionId: string, tag: string) {
    return call<Marks>("remove_session_tag", { sessionId, tag });
  }
  setSessionPinned(sessionId: string, pinned: boolean) {
    return call<Marks>("set_session_pinned", { sessionId, pinned });
  }
  setSessionArchived(sessionId: string, archived: boolean) {
    return call<Marks>("set_session_archived", { sessionId, archived });
  }
  exportSession(path: string, leafId: string | null, tree: boolean, format: "html" | "md") {
    return call<ExportResult>("export_session", { path, leafId, tree, format });
  }
  onSearchIndexProgress(cb: (e: SearchIndexProgress) => void): Unsubscribe {
    return subscribe<SearchIndexProgress>("search-index-progress", cb);
  }
  onRootChanged(cb: (e: RootChanged) => void): Unsubscribe {
    return subscribe<RootChanged>("root-changed", cb);
  }
  onIndexProgress(cb: (e: IndexProgress) => void): Unsubscribe {
    return subscribe<IndexProgress>("index-progress", cb);
  }
}

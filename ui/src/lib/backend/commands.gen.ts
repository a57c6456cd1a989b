// Generated from the command table (crates/pi-session-app/src/commands/table.rs) by
// `scripts/bindings`: do not edit. `scripts/bindings --check` fails when it is stale.

import type { AppInfo } from "../bindings/AppInfo";
import type { AuditView } from "../bindings/AuditView";
import type { BranchDiff } from "../bindings/BranchDiff";
import type { ContextMessage } from "../bindings/ContextMessage";
import type { ContextView } from "../bindings/ContextView";
import type { Dashboard } from "../bindings/Dashboard";
import type { DashboardQuery } from "../bindings/DashboardQuery";
import type { EntryDetail } from "../bindings/EntryDetail";
import type { ExportFormat } from "../bindings/ExportFormat";
import type { ExportResult } from "../bindings/ExportResult";
import type { FindResult } from "../bindings/FindResult";
import type { Follower } from "../bindings/Follower";
import type { ForkGraph } from "../bindings/ForkGraph";
import type { ForkPosition } from "../bindings/ForkPosition";
import type { ForkResult } from "../bindings/ForkResult";
import type { HiddenEntry } from "../bindings/HiddenEntry";
import type { LocateResult } from "../bindings/LocateResult";
import type { MarkFilter } from "../bindings/MarkFilter";
import type { MarkSelection } from "../bindings/MarkSelection";
import type { Marks } from "../bindings/Marks";
import type { MoveBatch } from "../bindings/MoveBatch";
import type { MovePlan } from "../bindings/MovePlan";
import type { NewFileResult } from "../bindings/NewFileResult";
import type { PiAnswer } from "../bindings/PiAnswer";
import type { ResumeInPi } from "../bindings/ResumeInPi";
import type { SearchIndexStatus } from "../bindings/SearchIndexStatus";
import type { SearchResults } from "../bindings/SearchResults";
import type { SessionList } from "../bindings/SessionList";
import type { SessionRow } from "../bindings/SessionRow";
import type { SetAside } from "../bindings/SetAside";
import type { SlimPreview } from "../bindings/SlimPreview";
import type { SwitchResult } from "../bindings/SwitchResult";
import type { TagCount } from "../bindings/TagCount";
import type { TranscriptPage } from "../bindings/TranscriptPage";
import type { TreePage } from "../bindings/TreePage";
import type { TreeQuery } from "../bindings/TreeQuery";
import type { WriteResult } from "../bindings/WriteResult";

/** Arguments as the UI sends them: a JSON object, camelCase names. */
export type Args = Record<string, unknown>;

/** Commands after which the backend's state differs (writes, the read-only switch, roots, marks). */
export const STATE_CHANGING: ReadonlySet<string> = new Set(["navigate", "set_label", "fork_session", "set_read_only", "fork_slim", "prune_session", "add_root", "remove_root", "set_root_read_only", "open_root", "set_search_index_paused", "set_search_index_enabled", "add_session_tag", "remove_session_tag", "set_session_pinned", "set_session_archived", "export_session", "move_archived_files", "undo_move", "set_aside_organiser"]);

/** Commands of the window only: `pi-session serve` refuses them (`window-only`). */
export const WINDOW_ONLY: ReadonlySet<string> = new Set(["add_root", "remove_root", "set_root_read_only", "open_root", "set_search_index_paused", "set_search_index_enabled", "add_session_tag", "remove_session_tag", "set_session_pinned", "set_session_archived", "export_target", "open_export", "move_archived_files", "undo_move", "set_aside_organiser", "resume_in_pi"]);

/** Every command of the backend, typed. */
export interface CommandApi {
  /** What the app is looking at: its roots, read-only mode, the view to start in. */
  appInfo(): Promise<AppInfo>;
  /**
   * All sessions (the sidebar; `indexed < total` while indexing); with `limit`, only the
   * most recently modified (a quick first screen). Each `SessionRow` has `copy` (`slim`,
   * `pruned`), `hasEntries` and `piNote` (what pi does with the file, when that differs);
   * each `PathNote` of `other` its `piNote`.
   */
  listSessions(limit?: number | null): Promise<SessionList>;
  /**
   * The lineage of the listed sessions: a node per session and one per child outside the
   * roots (status `outside-roots`); forks and spawns, missing parents, cycles; each
   * `ForkNode` with `forkPointEntry` of `parentEntries` (the fork point's place in its
   * parent) and `copy`.
   */
  forkGraph(): Promise<ForkGraph>;
  /**
   * A child outside the roots that the fork graph lists, opened read-only for viewing
   * (`readOnly: "outside-roots"`): the read commands then accept its path, every write
   * answers `outside-root`; any other path outside the roots answers `outside-root`.
   */
  openOutside(path: string): Promise<SessionRow>;
  /** A page of the session tree's rows and lanes (meta + rows `start..start+count`). */
  treePage(query: TreeQuery, start: number, count: number): Promise<TreePage>;
  /**
   * The row of an entry in the tree as `query` lays it out (folds it sat in are opened in
   * the returned query).
   */
  locateRow(query: TreeQuery, id: string): Promise<LocateResult>;
  /**
   * Ids of one session's entries whose text, label or tool name contains `text`
   * (case-insensitive).
   */
  findInSession(path: string, text: string): Promise<FindResult>;
  /**
   * One entry, whole (its line as written, its message, tokens and cost); `resume`: what
   * "Resume pi here" writes there and what pi then does, by pi's `/tree` rule (on a user or
   * custom message `targetId` is its parent, the nearest entry above it that is not a label
   * or leaf line, and `toEditor` is true: pi puts the text back in its editor; else the entry
   * itself; `current` when pi already resumes there; `note` says it in one sentence).
   */
  entryDetail(path: string, id: string): Promise<EntryDetail>;
  /**
   * What the LLM sees at `leaf_id` (null: before the first entry): the summary, the kept
   * and later entries, pi's token estimate; `edited`: the entries a pi 1.x `context_edit`
   * replaces or drops, each with its original, the replacement and the edit's line.
   */
  contextView(path: string, leafId?: string | null): Promise<ContextView>;
  /** A page of the context's messages at `leaf_id`. */
  contextPage(path: string, leafId: string | null, start: number, count: number): Promise<Array<ContextMessage>>;
  /** A page of the entries that compaction hid from the context at `leaf_id`. */
  hiddenPage(path: string, leafId: string | null, start: number, count: number): Promise<Array<HiddenEntry>>;
  /**
   * Every compaction on the path to `leaf_id` (the leaf when null), oldest first, each with
   * its whole summary, `tokensBefore`, pi's estimate of the summary alone (`summaryTokens`)
   * and of the context right after it (`tokensAfter`: the summary and its `keptMessages`),
   * the entries it hid (`message` true for messages, false for bookkeeping lines) and their
   * counts apart; `edited`: the pi 1.x context edits in effect there; `elsewhere`: the file's
   * compactions on other branches (id, line, `tokensBefore`; at most 50).
   */
  auditView(path: string, leafId?: string | null): Promise<AuditView>;
  /** Moves the leaf pi resumes from: one `leaf` line appended. */
  navigate(path: string, id?: string | null): Promise<WriteResult>;
  /** Sets an entry's label (null or "" clears it): one `label` line appended. */
  setLabel(path: string, id: string, label?: string | null): Promise<WriteResult>;
  /** Forks at an entry (or before it) into a new session file. */
  forkSession(path: string, id: string, position: ForkPosition): Promise<ForkResult>;
  /**
   * A page of the transcript of the active path (default filter); with `leaf_id`, of the
   * path to that entry instead: a view-only override, nothing written.
   */
  transcriptPage(path: string, start: number, count: number, leafId?: string | null): Promise<TranscriptPage>;
  /**
   * Where the view goes when the transcript steps to sibling `to_id` at a branch point: the
   * newest entry of its subtree, shown, never written ("Resume pi here" is the write).
   */
  switchBranch(path: string, toId: string): Promise<SwitchResult>;
  /** The transcript (or the entries `ids`) as Markdown. */
  transcriptMarkdown(path: string, ids?: Array<string> | null): Promise<string>;
  /** Read-only mode on or off (not off when the app was started read-only). */
  setReadOnly(on: boolean): Promise<AppInfo>;
  /** What a slim fork at `id` would copy (`hasCompaction: false`: none on the path). */
  slimPreview(path: string, id: string): Promise<SlimPreview>;
  /**
   * A slim fork: a new file with the path's compaction and what it kept (`no-compaction`
   * when the path has none).
   */
  forkSlim(path: string, id: string): Promise<NewFileResult>;
  /** A pruned copy: a new file with the root→`keep` paths only. */
  pruneSession(path: string, keep: Array<string>): Promise<NewFileResult>;
  /**
   * Two nodes of one fork family compared, step by step (the JSON of `pi-session diff`,
   * docs/cli.md; `not-related` otherwise).
   */
  compareBranches(aPath: string, aId: string, bPath: string, bId: string): Promise<BranchDiff>;
  /**
   * Adds a sessions root (`name` defaults to its folder's), remembered in the data folder
   * (`roots.json`); answers the app info with `roots`.
   */
  addRoot(path: string, name: string | null, readOnly: boolean): Promise<AppInfo>;
  /** Removes a root (the first one, the one the app started on, stays). */
  removeRoot(name: string): Promise<AppInfo>;
  /**
   * Makes a root read-only (writes to its files refused with `read-only-mode`), or
   * writable again.
   */
  setRootReadOnly(name: string, on: boolean): Promise<AppInfo>;
  /**
   * The sessions roots opened before, newest first (`recent-roots.json` in the data
   * folder; none over HTTP: the server's are not the browser's).
   */
  recentRoots(): Promise<Array<string>>;
  /**
   * Opens another sessions root in place of the open ones (the folder picker); `io` when it
   * is not a folder; remembered among the recent roots.
   */
  openRoot(path: string): Promise<AppInfo>;
  /**
   * The search indexes: files indexed, size on disk, a build in progress or paused, `off`
   * when turned off; `damaged`: an index found damaged, set aside (its `movedTo`) and built
   * again.
   */
  searchIndexStatus(): Promise<SearchIndexStatus>;
  /**
   * Pauses the search index's build (it stops after the batch it is on, keeping what it did;
   * searches read the files it has not done) or resumes it.
   */
  setSearchIndexPaused(paused: boolean): Promise<SearchIndexStatus>;
  /**
   * Turns the search index on or off (remembered in the data folder). Off, no index is built
   * or opened and searches read the files; on again, it builds (incrementally) in the
   * background.
   */
  setSearchIndexEnabled(enabled: boolean): Promise<SearchIndexStatus>;
  /**
   * A query over every session (words, phrases, filters), each index brought up to date
   * first (with the index off or paused, the files it lacks are read: `scannedFiles`).
   */
  searchIndexed(query: string, limit: number): Promise<SearchResults>;
  /** Ids of every entry of one session that a query matches (the bands in the tree). */
  searchHitsInSession(path: string, query: string): Promise<Array<string>>;
  /**
   * Tokens and cost by day or week, project, model, session (or family, `byFamily`);
   * abandoned branches; child sessions.
   */
  dashboard(query: DashboardQuery): Promise<Dashboard>;
  /**
   * Tags, pins and archive marks of the sessions that have any, by session id (none over
   * HTTP: they are the window's).
   */
  sessionMarks(): Promise<{ [key in string]?: Marks }>;
  /** Every tag with how many sessions carry it. */
  sessionTags(): Promise<Array<TagCount>>;
  /** Adds a tag to a session. */
  addSessionTag(sessionId: string, tag: string): Promise<Marks>;
  /** Removes a tag from a session. */
  removeSessionTag(sessionId: string, tag: string): Promise<Marks>;
  /** Pins a session to the top of its group, or unpins it. */
  setSessionPinned(sessionId: string, pinned: boolean): Promise<Marks>;
  /** Archives a session (hidden from the list unless asked for), or brings it back. */
  setSessionArchived(sessionId: string, archived: boolean): Promise<Marks>;
  /**
   * Exports a path (`leaf_id`, default the session's leaf) or the whole tree (`tree`) as
   * HTML or Markdown. The window writes it to `out` (absolute, `~/` allowed; default: the
   * export folder, `$PI_EXPLORER_EXPORT_DIR`, else Downloads), an existing file replaced only
   * with `replace`, never a `.jsonl` file, and answers the file written; over HTTP nothing is
   * written: the answer carries the text, which the browser downloads as `out` (a file name).
   */
  exportSession(path: string, leafId: string | null, tree: boolean, format: ExportFormat, out?: string | null, replace?: boolean | null): Promise<ExportResult>;
  /**
   * Where the save dialog proposes to write an export of `path`: the export folder, the
   * name the explorer gives it.
   */
  exportTarget(path: string, tree: boolean, format: ExportFormat): Promise<string>;
  /**
   * Opens a file the window exported in the system's default application, or (`reveal`) its
   * folder in the file manager; `invalid` for any other file.
   */
  openExport(path: string, reveal: boolean): Promise<null>;
  /** What moving the archived sessions' files out of their roots would do (to confirm first). */
  planArchiveMove(): Promise<MovePlan>;
  /** Moves the files of the archived sessions in `paths` (as planned) out of their roots. */
  moveArchivedFiles(paths: Array<string>): Promise<MoveBatch>;
  /** Moves the files of a recorded move back. */
  undoMove(batch: number): Promise<MoveBatch>;
  /** The last moves that can be undone, newest first. */
  recentMoves(): Promise<Array<MoveBatch>>;
  /** Which sessions the list's filters keep (archived, pinned, tags, tag text). */
  selectSessions(filter: MarkFilter): Promise<MarkSelection>;
  /**
   * After `organiser-damaged`: sets the damaged database of tags, pins and archive marks
   * aside (renamed beside itself, `.damaged-<time>`, never deleted); the next call starts a
   * new one. `invalid` when it is not damaged.
   */
  setAsideOrganiser(): Promise<SetAside>;
  /**
   * The running pis that follow the session at `path` (the pi-session-explorer-link
   * extension, docs/pi-link.md): each one's pid, version, leaf, whether it is idle.
   */
  piFollowers(path: string): Promise<Array<Follower>>;
  /**
   * Offers the pis on the session at `path` the move just made in the explorer: to its entry
   * `entry_id`, or to the fork `fork_path`. Each pi user is asked and pi moves itself; the
   * answer is one per pi, after each user decided (at most `decide_secs`, 60 by default).
   */
  offerToPi(path: string, entryId?: string | null, forkPath?: string | null, decideSecs?: number | null): Promise<Array<PiAnswer>>;
  /**
   * Resume in pi: opens a terminal (`$TERMINAL`, then `x-terminal-emulator`; Terminal on
   * macOS, Windows Terminal on Windows) running `pi --session FILE` in the session's cwd;
   * `terminal` absent: none was found, `command` is what to run.
   */
  resumeInPi(path: string): Promise<ResumeInPi>;
}

/** The commands over one `call`: a transport says only how a command travels. */
export abstract class Commands implements CommandApi {
  /** Sends one command; rejects with an `ApiError`. */
  protected abstract call<T>(command: string, args: Args): Promise<T>;

  /** What the app is looking at: its roots, read-only mode, the view to start in. */
  appInfo(): Promise<AppInfo> {
    return this.call("app_info", {});
  }
  /**
   * All sessions (the sidebar; `indexed < total` while indexing); with `limit`, only the
   * most recently modified (a quick first screen). Each `SessionRow` has `copy` (`slim`,
   * `pruned`), `hasEntries` and `piNote` (what pi does with the file, when that differs);
   * each `PathNote` of `other` its `piNote`.
   */
  listSessions(limit?: number | null): Promise<SessionList> {
    return this.call("list_sessions", { limit });
  }
  /**
   * The lineage of the listed sessions: a node per session and one per child outside the
   * roots (status `outside-roots`); forks and spawns, missing parents, cycles; each
   * `ForkNode` with `forkPointEntry` of `parentEntries` (the fork point's place in its
   * parent) and `copy`.
   */
  forkGraph(): Promise<ForkGraph> {
    return this.call("fork_graph", {});
  }
  /**
   * A child outside the roots that the fork graph lists, opened read-only for viewing
   * (`readOnly: "outside-roots"`): the read commands then accept its path, every write
   * answers `outside-root`; any other path outside the roots answers `outside-root`.
   */
  openOutside(path: string): Promise<SessionRow> {
    return this.call("open_outside", { path });
  }
  /** A page of the session tree's rows and lanes (meta + rows `start..start+count`). */
  treePage(query: TreeQuery, start: number, count: number): Promise<TreePage> {
    return this.call("tree_page", { query, start, count });
  }
  /**
   * The row of an entry in the tree as `query` lays it out (folds it sat in are opened in
   * the returned query).
   */
  locateRow(query: TreeQuery, id: string): Promise<LocateResult> {
    return this.call("locate_row", { query, id });
  }
  /**
   * Ids of one session's entries whose text, label or tool name contains `text`
   * (case-insensitive).
   */
  findInSession(path: string, text: string): Promise<FindResult> {
    return this.call("find_in_session", { path, text });
  }
  /**
   * One entry, whole (its line as written, its message, tokens and cost); `resume`: what
   * "Resume pi here" writes there and what pi then does, by pi's `/tree` rule (on a user or
   * custom message `targetId` is its parent, the nearest entry above it that is not a label
   * or leaf line, and `toEditor` is true: pi puts the text back in its editor; else the entry
   * itself; `current` when pi already resumes there; `note` says it in one sentence).
   */
  entryDetail(path: string, id: string): Promise<EntryDetail> {
    return this.call("entry_detail", { path, id });
  }
  /**
   * What the LLM sees at `leaf_id` (null: before the first entry): the summary, the kept
   * and later entries, pi's token estimate; `edited`: the entries a pi 1.x `context_edit`
   * replaces or drops, each with its original, the replacement and the edit's line.
   */
  contextView(path: string, leafId?: string | null): Promise<ContextView> {
    return this.call("context_view", { path, leafId });
  }
  /** A page of the context's messages at `leaf_id`. */
  contextPage(path: string, leafId: string | null, start: number, count: number): Promise<Array<ContextMessage>> {
    return this.call("context_page", { path, leafId, start, count });
  }
  /** A page of the entries that compaction hid from the context at `leaf_id`. */
  hiddenPage(path: string, leafId: string | null, start: number, count: number): Promise<Array<HiddenEntry>> {
    return this.call("hidden_page", { path, leafId, start, count });
  }
  /**
   * Every compaction on the path to `leaf_id` (the leaf when null), oldest first, each with
   * its whole summary, `tokensBefore`, pi's estimate of the summary alone (`summaryTokens`)
   * and of the context right after it (`tokensAfter`: the summary and its `keptMessages`),
   * the entries it hid (`message` true for messages, false for bookkeeping lines) and their
   * counts apart; `edited`: the pi 1.x context edits in effect there; `elsewhere`: the file's
   * compactions on other branches (id, line, `tokensBefore`; at most 50).
   */
  auditView(path: string, leafId?: string | null): Promise<AuditView> {
    return this.call("audit_view", { path, leafId });
  }
  /** Moves the leaf pi resumes from: one `leaf` line appended. */
  navigate(path: string, id?: string | null): Promise<WriteResult> {
    return this.call("navigate", { path, id });
  }
  /** Sets an entry's label (null or "" clears it): one `label` line appended. */
  setLabel(path: string, id: string, label?: string | null): Promise<WriteResult> {
    return this.call("set_label", { path, id, label });
  }
  /** Forks at an entry (or before it) into a new session file. */
  forkSession(path: string, id: string, position: ForkPosition): Promise<ForkResult> {
    return this.call("fork_session", { path, id, position });
  }
  /**
   * A page of the transcript of the active path (default filter); with `leaf_id`, of the
   * path to that entry instead: a view-only override, nothing written.
   */
  transcriptPage(path: string, start: number, count: number, leafId?: string | null): Promise<TranscriptPage> {
    return this.call("transcript_page", { path, start, count, leafId });
  }
  /**
   * Where the view goes when the transcript steps to sibling `to_id` at a branch point: the
   * newest entry of its subtree, shown, never written ("Resume pi here" is the write).
   */
  switchBranch(path: string, toId: string): Promise<SwitchResult> {
    return this.call("switch_branch", { path, toId });
  }
  /** The transcript (or the entries `ids`) as Markdown. */
  transcriptMarkdown(path: string, ids?: Array<string> | null): Promise<string> {
    return this.call("transcript_markdown", { path, ids });
  }
  /** Read-only mode on or off (not off when the app was started read-only). */
  setReadOnly(on: boolean): Promise<AppInfo> {
    return this.call("set_read_only", { on });
  }
  /** What a slim fork at `id` would copy (`hasCompaction: false`: none on the path). */
  slimPreview(path: string, id: string): Promise<SlimPreview> {
    return this.call("slim_preview", { path, id });
  }
  /**
   * A slim fork: a new file with the path's compaction and what it kept (`no-compaction`
   * when the path has none).
   */
  forkSlim(path: string, id: string): Promise<NewFileResult> {
    return this.call("fork_slim", { path, id });
  }
  /** A pruned copy: a new file with the root→`keep` paths only. */
  pruneSession(path: string, keep: Array<string>): Promise<NewFileResult> {
    return this.call("prune_session", { path, keep });
  }
  /**
   * Two nodes of one fork family compared, step by step (the JSON of `pi-session diff`,
   * docs/cli.md; `not-related` otherwise).
   */
  compareBranches(aPath: string, aId: string, bPath: string, bId: string): Promise<BranchDiff> {
    return this.call("compare_branches", { aPath, aId, bPath, bId });
  }
  /**
   * Adds a sessions root (`name` defaults to its folder's), remembered in the data folder
   * (`roots.json`); answers the app info with `roots`.
   */
  addRoot(path: string, name: string | null, readOnly: boolean): Promise<AppInfo> {
    return this.call("add_root", { path, name, readOnly });
  }
  /** Removes a root (the first one, the one the app started on, stays). */
  removeRoot(name: string): Promise<AppInfo> {
    return this.call("remove_root", { name });
  }
  /**
   * Makes a root read-only (writes to its files refused with `read-only-mode`), or
   * writable again.
   */
  setRootReadOnly(name: string, on: boolean): Promise<AppInfo> {
    return this.call("set_root_read_only", { name, on });
  }
  /**
   * The sessions roots opened before, newest first (`recent-roots.json` in the data
   * folder; none over HTTP: the server's are not the browser's).
   */
  recentRoots(): Promise<Array<string>> {
    return this.call("recent_roots", {});
  }
  /**
   * Opens another sessions root in place of the open ones (the folder picker); `io` when it
   * is not a folder; remembered among the recent roots.
   */
  openRoot(path: string): Promise<AppInfo> {
    return this.call("open_root", { path });
  }
  /**
   * The search indexes: files indexed, size on disk, a build in progress or paused, `off`
   * when turned off; `damaged`: an index found damaged, set aside (its `movedTo`) and built
   * again.
   */
  searchIndexStatus(): Promise<SearchIndexStatus> {
    return this.call("search_index_status", {});
  }
  /**
   * Pauses the search index's build (it stops after the batch it is on, keeping what it did;
   * searches read the files it has not done) or resumes it.
   */
  setSearchIndexPaused(paused: boolean): Promise<SearchIndexStatus> {
    return this.call("set_search_index_paused", { paused });
  }
  /**
   * Turns the search index on or off (remembered in the data folder). Off, no index is built
   * or opened and searches read the files; on again, it builds (incrementally) in the
   * background.
   */
  setSearchIndexEnabled(enabled: boolean): Promise<SearchIndexStatus> {
    return this.call("set_search_index_enabled", { enabled });
  }
  /**
   * A query over every session (words, phrases, filters), each index brought up to date
   * first (with the index off or paused, the files it lacks are read: `scannedFiles`).
   */
  searchIndexed(query: string, limit: number): Promise<SearchResults> {
    return this.call("search_indexed", { query, limit });
  }
  /** Ids of every entry of one session that a query matches (the bands in the tree). */
  searchHitsInSession(path: string, query: string): Promise<Array<string>> {
    return this.call("search_hits_in_session", { path, query });
  }
  /**
   * Tokens and cost by day or week, project, model, session (or family, `byFamily`);
   * abandoned branches; child sessions.
   */
  dashboard(query: DashboardQuery): Promise<Dashboard> {
    return this.call("dashboard", { query });
  }
  /**
   * Tags, pins and archive marks of the sessions that have any, by session id (none over
   * HTTP: they are the window's).
   */
  sessionMarks(): Promise<{ [key in string]?: Marks }> {
    return this.call("session_marks", {});
  }
  /** Every tag with how many sessions carry it. */
  sessionTags(): Promise<Array<TagCount>> {
    return this.call("session_tags", {});
  }
  /** Adds a tag to a session. */
  addSessionTag(sessionId: string, tag: string): Promise<Marks> {
    return this.call("add_session_tag", { sessionId, tag });
  }
  /** Removes a tag from a session. */
  removeSessionTag(sessionId: string, tag: string): Promise<Marks> {
    return this.call("remove_session_tag", { sessionId, tag });
  }
  /** Pins a session to the top of its group, or unpins it. */
  setSessionPinned(sessionId: string, pinned: boolean): Promise<Marks> {
    return this.call("set_session_pinned", { sessionId, pinned });
  }
  /** Archives a session (hidden from the list unless asked for), or brings it back. */
  setSessionArchived(sessionId: string, archived: boolean): Promise<Marks> {
    return this.call("set_session_archived", { sessionId, archived });
  }
  /**
   * Exports a path (`leaf_id`, default the session's leaf) or the whole tree (`tree`) as
   * HTML or Markdown. The window writes it to `out` (absolute, `~/` allowed; default: the
   * export folder, `$PI_EXPLORER_EXPORT_DIR`, else Downloads), an existing file replaced only
   * with `replace`, never a `.jsonl` file, and answers the file written; over HTTP nothing is
   * written: the answer carries the text, which the browser downloads as `out` (a file name).
   */
  exportSession(path: string, leafId: string | null, tree: boolean, format: ExportFormat, out?: string | null, replace?: boolean | null): Promise<ExportResult> {
    return this.call("export_session", { path, leafId, tree, format, out, replace });
  }
  /**
   * Where the save dialog proposes to write an export of `path`: the export folder, the
   * name the explorer gives it.
   */
  exportTarget(path: string, tree: boolean, format: ExportFormat): Promise<string> {
    return this.call("export_target", { path, tree, format });
  }
  /**
   * Opens a file the window exported in the system's default application, or (`reveal`) its
   * folder in the file manager; `invalid` for any other file.
   */
  openExport(path: string, reveal: boolean): Promise<null> {
    return this.call("open_export", { path, reveal });
  }
  /** What moving the archived sessions' files out of their roots would do (to confirm first). */
  planArchiveMove(): Promise<MovePlan> {
    return this.call("plan_archive_move", {});
  }
  /** Moves the files of the archived sessions in `paths` (as planned) out of their roots. */
  moveArchivedFiles(paths: Array<string>): Promise<MoveBatch> {
    return this.call("move_archived_files", { paths });
  }
  /** Moves the files of a recorded move back. */
  undoMove(batch: number): Promise<MoveBatch> {
    return this.call("undo_move", { batch });
  }
  /** The last moves that can be undone, newest first. */
  recentMoves(): Promise<Array<MoveBatch>> {
    return this.call("recent_moves", {});
  }
  /** Which sessions the list's filters keep (archived, pinned, tags, tag text). */
  selectSessions(filter: MarkFilter): Promise<MarkSelection> {
    return this.call("select_sessions", { filter });
  }
  /**
   * After `organiser-damaged`: sets the damaged database of tags, pins and archive marks
   * aside (renamed beside itself, `.damaged-<time>`, never deleted); the next call starts a
   * new one. `invalid` when it is not damaged.
   */
  setAsideOrganiser(): Promise<SetAside> {
    return this.call("set_aside_organiser", {});
  }
  /**
   * The running pis that follow the session at `path` (the pi-session-explorer-link
   * extension, docs/pi-link.md): each one's pid, version, leaf, whether it is idle.
   */
  piFollowers(path: string): Promise<Array<Follower>> {
    return this.call("pi_followers", { path });
  }
  /**
   * Offers the pis on the session at `path` the move just made in the explorer: to its entry
   * `entry_id`, or to the fork `fork_path`. Each pi user is asked and pi moves itself; the
   * answer is one per pi, after each user decided (at most `decide_secs`, 60 by default).
   */
  offerToPi(path: string, entryId?: string | null, forkPath?: string | null, decideSecs?: number | null): Promise<Array<PiAnswer>> {
    return this.call("offer_to_pi", { path, entryId, forkPath, decideSecs });
  }
  /**
   * Resume in pi: opens a terminal (`$TERMINAL`, then `x-terminal-emulator`; Terminal on
   * macOS, Windows Terminal on Windows) running `pi --session FILE` in the session's cwd;
   * `terminal` absent: none was found, `command` is what to run.
   */
  resumeInPi(path: string): Promise<ResumeInPi> {
    return this.call("resume_in_pi", { path });
  }
}

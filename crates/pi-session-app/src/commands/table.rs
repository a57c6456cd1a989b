//! Every command of the app, once (see the module above for what is made from it). Each body is
//! a few lines over the explorer ([`crate::explorer`]), the search indexes and the organiser
//! ([`crate::find`]) or the app's own state ([`crate::service`]).

use std::collections::BTreeMap;

use crate::api::*;
use crate::explorer::{AuditView, NewFileResult, SlimPreview};
use crate::commands::commands;
use crate::service::Host;

commands! {
    /// What the app is looking at: its roots, read-only mode, the view to start in.
    [] fn app_info(app) -> AppInfo {
        Ok(app.explorer().app_info())
    }

    /// All sessions (the sidebar; `indexed < total` while indexing); with `limit`, only the
    /// most recently modified (a quick first screen). Each `SessionRow` has `copy` (`slim`,
    /// `pruned`), `hasEntries` and `piNote` (what pi does with the file, when that differs);
    /// each `PathNote` of `other` its `piNote`.
    [] fn list_sessions(app, limit: Option<u32>) -> SessionList {
        Ok(app.explorer().list_sessions(limit.map(|n| n as usize)))
    }

    /// The lineage of the listed sessions: a node per session and one per child outside the
    /// roots (status `outside-roots`); forks and spawns, missing parents, cycles; each
    /// `ForkNode` with `forkPointEntry` of `parentEntries` (the fork point's place in its
    /// parent) and `copy`.
    [] fn fork_graph(app) -> ForkGraph {
        Ok(app.explorer().fork_graph())
    }

    /// A child outside the roots that the fork graph lists, opened read-only for viewing
    /// (`readOnly: "outside-roots"`): the read commands then accept its path, every write
    /// answers `outside-root`; any other path outside the roots answers `outside-root`.
    [] fn open_outside(app, path: String) -> SessionRow {
        Ok(app.explorer().open_outside(&path)?)
    }

    /// A page of the session tree's rows and lanes (meta + rows `start..start+count`).
    [] fn tree_page(app, query: TreeQuery, start: u32, count: u32) -> TreePage {
        Ok(app.explorer().tree_page(&query, start as usize, count as usize)?)
    }

    /// The row of an entry in the tree as `query` lays it out (folds it sat in are opened in
    /// the returned query).
    [] fn locate_row(app, query: TreeQuery, id: String) -> LocateResult {
        Ok(app.explorer().locate_row(&query, &id)?)
    }

    /// Ids of one session's entries whose text, label or tool name contains `text`
    /// (case-insensitive).
    [] fn find_in_session(app, path: String, text: String) -> FindResult {
        Ok(app.explorer().find_in_session(&path, &text)?)
    }

    /// One entry, whole (its line as written, its message, tokens and cost); `resume`: what
    /// "Resume pi here" writes there and what pi then does, by pi's `/tree` rule (on a user or
    /// custom message `targetId` is its parent, the nearest entry above it that is not a label
    /// or leaf line, and `toEditor` is true: pi puts the text back in its editor; else the entry
    /// itself; `current` when pi already resumes there; `note` says it in one sentence).
    [] fn entry_detail(app, path: String, id: String) -> EntryDetail {
        Ok(app.explorer().entry_detail(&path, &id)?)
    }

    /// What the LLM sees at `leaf_id` (null: before the first entry): the summary, the kept
    /// and later entries, pi's token estimate; `edited`: the entries a pi 1.x `context_edit`
    /// replaces or drops, each with its original, the replacement and the edit's line.
    [] fn context_view(app, path: String, leaf_id: Option<String>) -> ContextView {
        Ok(app.explorer().context_view(&path, leaf_id.as_deref())?)
    }

    /// A page of the context's messages at `leaf_id`.
    [] fn context_page(app, path: String, leaf_id: Option<String>, start: u32, count: u32) -> Vec<ContextMessage> {
        Ok(app.explorer().context_page(&path, leaf_id.as_deref(), start as usize, count as usize)?)
    }

    /// A page of the entries that compaction hid from the context at `leaf_id`.
    [] fn hidden_page(app, path: String, leaf_id: Option<String>, start: u32, count: u32) -> Vec<HiddenEntry> {
        Ok(app.explorer().hidden_page(&path, leaf_id.as_deref(), start as usize, count as usize)?)
    }

    /// Every compaction on the path to `leaf_id` (the leaf when null), oldest first, each with
    /// its whole summary, `tokensBefore`, pi's estimate of the summary alone (`summaryTokens`)
    /// and of the context right after it (`tokensAfter`: the summary and its `keptMessages`),
    /// the entries it hid (`message` true for messages, false for bookkeeping lines) and their
    /// counts apart; `edited`: the pi 1.x context edits in effect there; `elsewhere`: the file's
    /// compactions on other branches (id, line, `tokensBefore`; at most 50).
    [] fn audit_view(app, path: String, leaf_id: Option<String>) -> AuditView {
        Ok(app.explorer().audit_view(&path, leaf_id.as_deref())?)
    }

    /// Moves the leaf pi resumes from: one `leaf` line appended.
    [changes] fn navigate(app, path: String, id: Option<String>) -> WriteResult {
        Ok(app.explorer().navigate(&path, id.as_deref())?)
    }

    /// Sets an entry's label (null or "" clears it): one `label` line appended.
    [changes] fn set_label(app, path: String, id: String, label: Option<String>) -> WriteResult {
        Ok(app.explorer().set_label(&path, &id, label.as_deref())?)
    }

    /// Forks at an entry (or before it) into a new session file.
    [changes] fn fork_session(app, path: String, id: String, position: ForkPosition) -> ForkResult {
        Ok(app.explorer().fork(&path, &id, position)?)
    }

    /// A page of the transcript of the active path (default filter); with `leaf_id`, of the
    /// path to that entry instead: a view-only override, nothing written.
    [] fn transcript_page(app, path: String, start: u32, count: u32, leaf_id: Option<String>) -> TranscriptPage {
        Ok(app.explorer().transcript_page_at(&path, leaf_id.as_deref(), start as usize, count as usize)?)
    }

    /// Where the view goes when the transcript steps to sibling `to_id` at a branch point: the
    /// newest entry of its subtree, shown, never written ("Resume pi here" is the write).
    [] fn switch_branch(app, path: String, to_id: String) -> SwitchResult {
        Ok(app.explorer().switch_branch(&path, &to_id)?)
    }

    /// The transcript (or the entries `ids`) as Markdown.
    [] fn transcript_markdown(app, path: String, ids: Option<Vec<String>>) -> String {
        Ok(app.explorer().transcript_markdown(&path, ids.as_deref())?)
    }

    /// Read-only mode on or off (not off when the app was started read-only).
    [changes] fn set_read_only(app, on: bool) -> AppInfo {
        Ok(app.explorer().set_read_only(on))
    }

    /// What a slim fork at `id` would copy (`hasCompaction: false`: none on the path).
    [] fn slim_preview(app, path: String, id: String) -> SlimPreview {
        Ok(app.explorer().slim_preview(&path, &id)?)
    }

    /// A slim fork: a new file with the path's compaction and what it kept (`no-compaction`
    /// when the path has none).
    [changes] fn fork_slim(app, path: String, id: String) -> NewFileResult {
        Ok(app.explorer().fork_slim(&path, &id)?)
    }

    /// A pruned copy: a new file with the root→`keep` paths only.
    [changes] fn prune_session(app, path: String, keep: Vec<String>) -> NewFileResult {
        Ok(app.explorer().prune(&path, &keep)?)
    }

    /// Two nodes of one fork family compared, step by step (the JSON of `pi-session diff`,
    /// docs/cli.md; `not-related` otherwise).
    [] fn compare_branches(app, a_path: String, a_id: String, b_path: String, b_id: String) -> BranchDiff {
        Ok(app.explorer().compare(&a_path, &a_id, &b_path, &b_id)?)
    }

    /// Adds a sessions root (`name` defaults to its folder's), remembered in the data folder
    /// (`roots.json`); answers the app info with `roots`.
    [changes, window] fn add_root(app, path: String, name: Option<String>, read_only: bool) -> AppInfo {
        app.add_root(&path, name, read_only)
    }

    /// Removes a root (the first one, the one the app started on, stays).
    [changes, window] fn remove_root(app, name: String) -> AppInfo {
        app.explorer().remove_root(&name)?;
        app.roots_changed();
        Ok(app.explorer().app_info())
    }

    /// Makes a root read-only (writes to its files refused with `read-only-mode`), or
    /// writable again.
    [changes, window] fn set_root_read_only(app, name: String, on: bool) -> AppInfo {
        app.explorer().set_root_read_only(&name, on)?;
        app.roots_changed();
        Ok(app.explorer().app_info())
    }

    /// The sessions roots opened before, newest first (`recent-roots.json` in the data
    /// folder; none over HTTP: the server's are not the browser's).
    [] fn recent_roots(app) -> Vec<String> {
        Ok(app.recent_roots().iter().map(|p| pi_session::pathstr::encode(p)).collect())
    }

    /// Opens another sessions root in place of the open ones (the folder picker); `io` when it
    /// is not a folder; remembered among the recent roots.
    [changes, window] fn open_root(app, path: String) -> AppInfo {
        Ok(app.open_root(&pi_session::pathstr::decode(&path))?)
    }

    /// The search indexes: files indexed, size on disk, a build in progress or paused, `off`
    /// when turned off; `damaged`: an index found damaged, set aside (its `movedTo`) and built
    /// again.
    [] fn search_index_status(app) -> SearchIndexStatus {
        let ex = app.explorer();
        match app.host() {
            Host::Window => app.find().status(&ex),
            Host::Serve => app.find().index_status(&ex),
        }
    }

    /// Pauses the search index's build (it stops after the batch it is on, keeping what it did;
    /// searches read the files it has not done) or resumes it.
    [changes, window] fn set_search_index_paused(app, paused: bool) -> SearchIndexStatus {
        app.set_search_index_paused(paused)
    }

    /// Turns the search index on or off (remembered in the data folder). Off, no index is built
    /// or opened and searches read the files; on again, it builds (incrementally) in the
    /// background.
    [changes, window] fn set_search_index_enabled(app, enabled: bool) -> SearchIndexStatus {
        app.set_search_index_enabled(enabled)
    }

    /// A query over every session (words, phrases, filters), each index brought up to date
    /// first (with the index off or paused, the files it lacks are read: `scannedFiles`).
    [] fn search_indexed(app, query: String, limit: u32) -> SearchResults {
        app.find().search(&app.explorer(), &query, limit as usize)
    }

    /// Ids of every entry of one session that a query matches (the bands in the tree).
    [] fn search_hits_in_session(app, path: String, query: String) -> Vec<String> {
        let ex = app.explorer();
        match app.host() {
            // The window's searches keep its indexes up to date.
            Host::Window => app.find().hits_in_file(&ex, &query, &path),
            Host::Serve => app.find().hits_in_file_updated(&ex, &query, &path),
        }
    }

    /// Tokens and cost by day or week, project, model, session (or family, `byFamily`);
    /// abandoned branches; child sessions.
    [] fn dashboard(app, query: DashboardQuery) -> Dashboard {
        Ok(app.explorer().dashboard(&query))
    }

    /// Tags, pins and archive marks of the sessions that have any, by session id (none over
    /// HTTP: they are the window's).
    [] fn session_marks(app) -> BTreeMap<String, Marks> {
        app.marks()
    }

    /// Every tag with how many sessions carry it.
    [] fn session_tags(app) -> Vec<TagCount> {
        app.tags()
    }

    /// Adds a tag to a session.
    [changes, window] fn add_session_tag(app, session_id: String, tag: String) -> Marks {
        Ok(app.find().organiser()?.add_tag(&session_id, &tag)?)
    }

    /// Removes a tag from a session.
    [changes, window] fn remove_session_tag(app, session_id: String, tag: String) -> Marks {
        Ok(app.find().organiser()?.remove_tag(&session_id, &tag)?)
    }

    /// Pins a session to the top of its group, or unpins it.
    [changes, window] fn set_session_pinned(app, session_id: String, pinned: bool) -> Marks {
        Ok(app.find().organiser()?.set_pinned(&session_id, pinned)?)
    }

    /// Archives a session (hidden from the list unless asked for), or brings it back.
    [changes, window] fn set_session_archived(app, session_id: String, archived: bool) -> Marks {
        Ok(app.find().organiser()?.set_archived(&session_id, archived)?)
    }

    /// Exports a path (`leaf_id`, default the session's leaf) or the whole tree (`tree`) as
    /// HTML or Markdown. The window writes it to `out` (absolute, `~/` allowed; default: the
    /// export folder, `$PI_EXPLORER_EXPORT_DIR`, else Downloads), an existing file replaced only
    /// with `replace`, never a `.jsonl` file, and answers the file written; over HTTP nothing is
    /// written: the answer carries the text, which the browser downloads as `out` (a file name).
    [changes] fn export_session(app, path: String, leaf_id: Option<String>, tree: bool, format: ExportFormat, out: Option<String>, replace: Option<bool>) -> ExportResult {
        app.export(&path, leaf_id.as_deref(), tree, format, out.as_deref(), replace == Some(true))
    }

    /// Where the save dialog proposes to write an export of `path`: the export folder, the
    /// name the explorer gives it.
    [window] fn export_target(app, path: String, tree: bool, format: ExportFormat) -> String {
        app.export_target(&path, tree, format)
    }

    /// Opens a file the window exported in the system's default application, or (`reveal`) its
    /// folder in the file manager; `invalid` for any other file.
    [window] fn open_export(app, path: String, reveal: bool) -> () {
        app.open_export(&path, reveal)
    }

    /// What moving the archived sessions' files out of their roots would do (to confirm first).
    [] fn plan_archive_move(app) -> MovePlan {
        app.plan_archive_move()
    }

    /// Moves the files of the archived sessions in `paths` (as planned) out of their roots.
    [changes, window] fn move_archived_files(app, paths: Vec<String>) -> MoveBatch {
        app.move_archived_files(&paths)
    }

    /// Moves the files of a recorded move back.
    [changes, window] fn undo_move(app, batch: i64 as "number") -> MoveBatch {
        app.undo_move(batch)
    }

    /// The last moves that can be undone, newest first.
    [] fn recent_moves(app) -> Vec<MoveBatch> {
        app.recent_moves()
    }

    /// Which sessions the list's filters keep (archived, pinned, tags, tag text).
    [] fn select_sessions(app, filter: MarkFilter) -> MarkSelection {
        app.select(&filter)
    }

    /// After `organiser-damaged`: sets the damaged database of tags, pins and archive marks
    /// aside (renamed beside itself, `.damaged-<time>`, never deleted); the next call starts a
    /// new one. `invalid` when it is not damaged.
    [changes, window] fn set_aside_organiser(app) -> SetAside {
        app.find().set_aside_organiser()
    }

    /// The running pis that follow the session at `path` (the pi-session-explorer-link
    /// extension, docs/pi-link.md): each one's pid, version, leaf, whether it is idle.
    [] fn pi_followers(app, path: String) -> Vec<Follower> {
        Ok(app.pi_followers(&path)?)
    }

    /// Offers the pis on the session at `path` the move just made in the explorer: to its entry
    /// `entry_id`, or to the fork `fork_path`. Each pi user is asked and pi moves itself; the
    /// answer is one per pi, after each user decided (at most `decide_secs`, 60 by default).
    [] fn offer_to_pi(app, path: String, entry_id: Option<String>, fork_path: Option<String>, decide_secs: Option<u32>) -> Vec<PiAnswer> {
        Ok(app.offer_to_pi(&path, entry_id.as_deref(), fork_path.as_deref(), decide_secs)?)
    }

    /// Resume in pi: opens a terminal (`$TERMINAL`, then `x-terminal-emulator`; Terminal on
    /// macOS, Windows Terminal on Windows) running `pi --session FILE` in the session's cwd;
    /// `terminal` absent: none was found, `command` is what to run.
    [window] fn resume_in_pi(app, path: String) -> ResumeInPi {
        Ok(app.resume_in_pi(&path)?)
    }
}

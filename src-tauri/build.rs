// The app's commands get permissions of their own ("allow-<command>"), granted to the main
// window in src-tauri/capabilities/default.json: nothing else is reachable over IPC.
const COMMANDS: &[&str] = &[
    "app_info",
    "list_sessions",
    "fork_graph",
    "tree_page",
    "locate_row",
    "find_in_session",
    "entry_detail",
    "context_view",
    "context_page",
    "hidden_page",
    "audit_view",
    "navigate",
    "set_label",
    "fork_session",
    "search",
    "transcript_page",
    "switch_branch",
    "transcript_markdown",
    "set_read_only",
    "slim_preview",
    "fork_slim",
    "prune_session",
    "compare_branches",
    "add_root",
    "remove_root",
    "set_root_read_only",
    "recent_roots",
    "open_root",
    // Issue 14: indexed search, dashboard, tags/pin/archive, export.
    "search_index_status",
    "search_indexed",
    "search_hits_in_session",
    "dashboard",
    "session_marks",
    "session_tags",
    "add_session_tag",
    "remove_session_tag",
    "set_session_pinned",
    "set_session_archived",
    "export_session",
    "export_target",
    "open_export",
    "plan_archive_move",
    "move_archived_files",
    "undo_move",
    "recent_moves",
    "select_sessions",
    "set_aside_organiser",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .capabilities_path_pattern("./src-tauri/capabilities/**/*")
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build script");
}

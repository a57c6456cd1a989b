//! The desktop shell: starts on the sessions root (or the bundled demo), watches it, and
//! exposes the core's `Explorer` to the web UI through thin commands.

pub mod commands;
pub mod demo;
pub mod find;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use pi_session::explorer::Explorer;
use pi_session::scan::{resolve_root, RootSource};
use tauri::{Emitter, Manager};

/// Command-line options of the app.
#[derive(Parser, Debug, Clone, Default)]
#[command(name = "pi-session-explorer", version, about = "Browse, steer and audit pi coding-agent sessions")]
pub struct Options {
    /// Sessions root (default: $PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions)
    #[arg(long, value_name = "DIR")]
    pub sessions_dir: Option<PathBuf>,
    /// Never write to any session file
    #[arg(long)]
    pub read_only: bool,
    /// Open the bundled demo sessions even when the root exists
    #[arg(long)]
    pub demo: bool,
    /// The view to start in
    #[arg(long, value_enum, default_value = "tree")]
    pub view: View,
}

/// The centre views.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum View {
    #[default]
    Tree,
    Forks,
    Transcript,
}

/// What the commands share.
pub struct AppState {
    pub explorer: Arc<Explorer>,
}

fn source_name(s: RootSource) -> &'static str {
    match s {
        RootSource::Flag => "flag",
        RootSource::EnvSessionDir => "env-session-dir",
        RootSource::EnvAgentDir => "env-agent-dir",
        RootSource::Default => "default",
    }
}

/// Where the demo is copied: `$PI_EXPLORER_DATA_DIR`, else the platform data folder.
pub(crate) fn data_dir() -> PathBuf {
    std::env::var_os("PI_EXPLORER_DATA_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::data_dir().map(|d| d.join("pi-session-explorer")))
        .unwrap_or_else(|| std::env::temp_dir().join("pi-session-explorer"))
}

/// Builds the explorer for these options: the root, or the demo when the root is missing.
pub fn explorer_for(opts: &Options) -> Explorer {
    let view = match opts.view {
        View::Tree => "tree",
        View::Forks => "forks",
        View::Transcript => "transcript",
    };
    explorer_for_root(opts).with_initial_view(view)
}

fn explorer_for_root(opts: &Options) -> Explorer {
    let root = resolve_root(opts.sessions_dir.as_deref());
    if opts.demo || !root.path.is_dir() {
        match demo::install(&data_dir()) {
            Ok(demo_root) => return Explorer::new(demo_root, "demo", opts.read_only).with_demo(root.path),
            Err(e) => tracing::error!("could not install the demo sessions: {e}"),
        }
    }
    Explorer::new(root.path, source_name(root.source), opts.read_only)
}

/// Registers the state and every command on a builder (shared with the mock-runtime tests).
pub fn with_commands<R: tauri::Runtime>(builder: tauri::Builder<R>, explorer: Arc<Explorer>) -> tauri::Builder<R> {
    let find = find::FindState::new(explorer.root());
    builder.manage(AppState { explorer }).manage(find).invoke_handler(tauri::generate_handler![
        commands::app_info,
        commands::list_sessions,
        commands::fork_graph,
        commands::tree_page,
        commands::locate_row,
        commands::find_in_session,
        commands::entry_detail,
        commands::context_view,
        commands::context_page,
        commands::hidden_page,
        commands::navigate,
        commands::set_label,
        commands::fork_session,
        commands::search,
        commands::transcript_page,
        commands::switch_branch,
        commands::transcript_markdown,
        commands::set_read_only,
        // Issue 14: indexed search, dashboard, tags/pin/archive, export.
        find::search_index_status,
        find::search_indexed,
        find::search_hits_in_session,
        find::dashboard,
        find::session_marks,
        find::session_tags,
        find::add_session_tag,
        find::remove_session_tag,
        find::set_session_pinned,
        find::set_session_archived,
        find::export_session,
    ])
}

/// The app's context (config, embedded UI, capabilities), for any runtime.
pub fn context<R: tauri::Runtime>() -> tauri::Context<R> {
    tauri::generate_context!("tauri.conf.json")
}

pub fn run() {
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).with_writer(std::io::stderr).init();
    let opts = Options::parse();
    let explorer = Arc::new(explorer_for(&opts));
    let root = explorer.root().to_path_buf();
    with_commands(tauri::Builder::default(), explorer)
        .setup(move |app| {
            let progress = app.handle().clone();
            app.state::<AppState>().explorer.set_progress_sink(Box::new(move |p| {
                let _ = progress.emit("index-progress", p);
            }));
            // Watch the root, then build the listing while the window starts, so the page's
            // first request finds it ready.
            let handle = app.handle().clone();
            let explorer = app.state::<AppState>().explorer.clone();
            let _ = std::thread::Builder::new().name("prepare".into()).spawn(move || {
                let watched = explorer.clone();
                let events = handle.clone();
                match pi_session::watch::watch_root(&root, Duration::from_millis(60), move |ev| {
                    watched.root_changed();
                    let _ = events.emit("root-changed", ev);
                }) {
                    Ok(w) => {
                        explorer.set_watched();
                        handle.manage(w);
                    }
                    Err(e) => tracing::warn!("cannot watch {}: {e}", root.display()),
                }
                explorer.prepare();
                // Then the search index, in the background (incremental after the first run).
                handle.state::<find::FindState>().build(&handle);
            });
            Ok(())
        })
        .run(context())
        .expect("error while running the application");
}

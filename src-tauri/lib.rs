//! The desktop shell: starts on the sessions root (or the bundled demo), watches it, and
//! exposes the core's `Explorer` to the web UI through thin commands.

pub mod commands;
pub mod demo;
pub mod export;
pub mod roots;
pub mod find;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use clap::Parser;
use pi_session::explorer::Explorer;
use pi_session::roots::{RootSpec, Roots};
use pi_session::scan::resolve_root;
use tauri::{Emitter, Manager};

/// Command-line options of the app.
#[derive(Parser, Debug, Clone, Default)]
#[command(name = "pi-session-explorer", version, about = "Browse, steer and audit pi coding-agent sessions")]
pub struct Options {
    /// Sessions root (default: $PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions);
    /// repeat for several roots in one view, each `DIR` or `NAME=DIR`
    #[arg(long, value_name = "[NAME=]DIR")]
    pub sessions_dir: Vec<String>,
    /// Never write to any session file
    #[arg(long)]
    pub read_only: bool,
    /// Open the bundled demo sessions even when the root exists
    #[arg(long)]
    pub demo: bool,
    /// The view to start in
    #[arg(long, value_enum, default_value = "tree")]
    pub view: View,
    /// The session to open first (default: the most recent one)
    #[arg(long, value_name = "FILE")]
    pub session: Option<PathBuf>,
    /// The entry to select in that session (default: its leaf)
    #[arg(long, value_name = "ID", requires = "session")]
    pub select: Option<String>,
}

/// The centre views.
#[derive(clap::ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum View {
    #[default]
    Tree,
    Forks,
    Transcript,
}

/// What the commands share: the explorer of the open roots (replaced when another folder is
/// opened), the watchers of its roots, and where the roots added in the window are remembered.
pub struct AppState {
    explorer: RwLock<Arc<Explorer>>,
    /// The watchers of the explorer's roots, by root folder.
    watchers: Mutex<Vec<(PathBuf, pi_session::watch::RootWatch)>>,
    pub data_dir: PathBuf,
}

impl AppState {
    pub fn new(explorer: Arc<Explorer>, data_dir: PathBuf) -> AppState {
        AppState { explorer: RwLock::new(explorer), watchers: Mutex::new(Vec::new()), data_dir }
    }

    /// The explorer of the open roots.
    pub fn explorer(&self) -> Arc<Explorer> {
        self.explorer.read().unwrap().clone()
    }

    fn replace(&self, explorer: Arc<Explorer>) {
        *self.explorer.write().unwrap() = explorer;
    }
}

/// The file of recently opened roots in the app's data folder.
pub fn recent_file() -> PathBuf {
    pi_session::recent::file_in(&data_dir())
}

/// Where the demo is copied: `$PI_EXPLORER_DATA_DIR`, else the platform data folder.
pub fn data_dir() -> PathBuf {
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
    let explorer = explorer_for_root(opts).with_initial_view(view);
    match &opts.session {
        Some(file) => explorer.with_initial_session(file, opts.select.as_deref()),
        None => explorer,
    }
}

fn explorer_for_root(opts: &Options) -> Explorer {
    // The first `--sessions-dir` is the main root (watched, shown as the root); the others and
    // the roots remembered from the window join it.
    let mut specs: Vec<RootSpec> = opts
        .sessions_dir
        .iter()
        .map(|a| {
            let mut s = RootSpec::parse(a);
            s.path = resolve_root(Some(&s.path)).path;
            s
        })
        .collect();
    let root = resolve_root(specs.first().map(|s| s.path.as_path()));
    if opts.demo || !root.path.is_dir() {
        match demo::install(&data_dir()) {
            Ok(demo_root) => return Explorer::new(demo_root, "demo", opts.read_only).with_demo(root.path),
            Err(e) => tracing::error!("could not install the demo sessions: {e}"),
        }
    }
    if specs.is_empty() {
        specs.push(RootSpec { name: pi_session::roots::default_name(&root.path), path: root.path.clone(), read_only: false });
    }
    specs.retain(|s| s.path.is_dir() || s.path == root.path);
    specs.extend(roots::load(&data_dir()).into_iter().filter(|s| s.path.is_dir()));
    let all = Roots::new(specs);
    if all.len() > 1 {
        if let Ok(ex) = Explorer::new_multi(all, root.source.as_str(), opts.read_only) {
            return ex;
        }
    }
    Explorer::new(root.path, root.source.as_str(), opts.read_only)
}

/// Registers the state and every command on a builder (shared with the mock-runtime tests).
pub fn with_commands<R: tauri::Runtime>(builder: tauri::Builder<R>, explorer: Arc<Explorer>) -> tauri::Builder<R> {
    builder.manage(AppState::new(explorer, data_dir())).manage(find::FindState::new()).manage(export::Exports::default()).invoke_handler(tauri::generate_handler![
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
        commands::audit_view,
        commands::navigate,
        commands::set_label,
        commands::fork_session,
        commands::search,
        commands::transcript_page,
        commands::switch_branch,
        commands::transcript_markdown,
        commands::set_read_only,
        commands::slim_preview,
        commands::fork_slim,
        commands::prune_session,
        commands::compare_branches,
        commands::add_root,
        commands::remove_root,
        commands::set_root_read_only,
        commands::recent_roots,
        commands::open_root,
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
        export::export_session,
        export::export_target,
        export::open_export,
        find::plan_archive_move,
        find::move_archived_files,
        find::undo_move,
        find::recent_moves,
        find::select_sessions,
        find::set_aside_organiser,
    ])
}

/// The app's context (config, embedded UI, capabilities), for any runtime.
pub fn context<R: tauri::Runtime>() -> tauri::Context<R> {
    tauri::generate_context!("tauri.conf.json")
}

/// Starts serving an explorer: index progress events, the root's watcher, the first listing.
pub fn start_explorer<R: tauri::Runtime>(handle: &tauri::AppHandle<R>, explorer: Arc<Explorer>) {
    let progress = handle.clone();
    explorer.set_progress_sink(Box::new(move |p| {
        let _ = progress.emit("index-progress", p);
    }));
    let handle = handle.clone();
    // Watch the roots (the other roots' listings are rebuilt on request; their events make the
    // window ask), then build the listing while the window starts, so the page's first request
    // finds it ready.
    let _ = std::thread::Builder::new().name("prepare".into()).spawn(move || {
        // A new explorer: the previous roots' watchers stop (they served the old one).
        handle.state::<AppState>().watchers.lock().unwrap().clear();
        watch_roots(&handle, &explorer);
        explorer.prepare();
        // Then the search indexes, in the background (incremental after the first run).
        handle.state::<find::FindState>().build(&handle, &explorer);
    });
}

/// Watches every root of `explorer` that is not watched yet and stops watching roots it no
/// longer has (after a root is added or removed in the window).
pub fn watch_roots<R: tauri::Runtime>(handle: &tauri::AppHandle<R>, explorer: &Arc<Explorer>) {
    let roots: Vec<PathBuf> = explorer.roots().specs().iter().map(|s| s.path.clone()).collect();
    let state = handle.state::<AppState>();
    let mut watchers = state.watchers.lock().unwrap();
    watchers.retain(|(p, _)| roots.contains(p));
    for (k, root) in roots.iter().enumerate() {
        if watchers.iter().any(|(p, _)| p == root) {
            continue;
        }
        let watched = explorer.clone();
        let events = handle.clone();
        match pi_session::watch::watch_root(root, Duration::from_millis(60), move |ev| {
            watched.root_changed();
            let _ = events.emit("root-changed", ev);
        }) {
            Ok(w) => {
                if k == 0 {
                    explorer.set_watched();
                }
                watchers.push((root.clone(), w));
            }
            Err(e) => tracing::warn!("cannot watch {}: {e}", root.display()),
        }
    }
}

/// After roots were added or removed in the window: watch the new ones, index them in the
/// background.
pub fn roots_changed<R: tauri::Runtime>(handle: &tauri::AppHandle<R>) {
    let explorer = handle.state::<AppState>().explorer();
    watch_roots(handle, &explorer);
    let handle = handle.clone();
    let _ = std::thread::Builder::new().name("index-roots".into()).spawn(move || {
        handle.state::<find::FindState>().build(&handle, &explorer);
    });
}

/// Opens another sessions root in the running app (the folder picker).
pub fn open_root<R: tauri::Runtime>(handle: &tauri::AppHandle<R>, path: &std::path::Path) -> Result<pi_session::api::AppInfo, pi_session::Error> {
    let state = handle.state::<AppState>();
    let old = state.explorer();
    let real = std::fs::canonicalize(path).map_err(|e| pi_session::Error::io(path, e))?;
    if !real.is_dir() {
        return Err(pi_session::Error::io(path, std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder")));
    }
    let info = old.app_info();
    let explorer = Arc::new(Explorer::new(real.clone(), "picked", info.read_only_locked).with_initial_view(info.initial_view.as_str()));
    explorer.set_read_only(info.read_only);
    state.replace(explorer.clone());
    start_explorer(handle, explorer.clone());
    if let Err(e) = pi_session::recent::remember(&recent_file(), &real) {
        tracing::warn!("cannot remember the root: {e}");
    }
    Ok(explorer.app_info())
}

pub fn run() {
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).with_writer(std::io::stderr).init();
    let opts = Options::parse();
    let explorer = Arc::new(explorer_for(&opts));
    let root = explorer.root().to_path_buf();
    with_commands(tauri::Builder::default(), explorer)
        .setup(move |app| {
            let explorer = app.state::<AppState>().explorer();
            if !explorer.app_info().demo {
                if let Err(e) = pi_session::recent::remember(&recent_file(), &root) {
                    tracing::warn!("cannot remember the root: {e}");
                }
            }
            start_explorer(app.handle(), explorer);
            Ok(())
        })
        .run(context())
        .expect("error while running the application");
}

//! The desktop shell: starts on the sessions root (or the bundled demo), watches it, and carries
//! the web UI's calls to the app ([`pi_session_app::service::App`]): one invoke handler for every
//! command of the command table ([`pi_session_app::commands`]), each checked by Tauri's ACL (a
//! permission per command, src-tauri/capabilities/default.json) before it runs.

pub mod demo;

use std::path::PathBuf;
use std::sync::Arc;

use clap::Parser;
use pi_session::roots::{RootSpec, Roots};
use pi_session::scan::resolve_root;
use pi_session_app::explorer::Explorer;
use pi_session_app::service::{remembered, App, AppEvent, EventSink};
use tauri::ipc::{Invoke, InvokeBody, InvokeError, InvokeResponseBody};
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
    specs.extend(remembered::load(&data_dir()).into_iter().filter(|s| s.path.is_dir()));
    let all = Roots::new(specs);
    if all.len() > 1 {
        if let Ok(ex) = Explorer::new_multi(all, root.source.as_str(), opts.read_only) {
            return ex;
        }
    }
    Explorer::new(root.path, root.source.as_str(), opts.read_only)
}

/// Registers the app and its one invoke handler on a builder (shared with the mock-runtime
/// tests).
pub fn with_commands<R: tauri::Runtime>(builder: tauri::Builder<R>, explorer: Arc<Explorer>) -> tauri::Builder<R> {
    let app = App::window(explorer, data_dir());
    let handler = app.clone();
    builder.manage(app).invoke_handler(move |invoke| handle(&handler, invoke))
}

/// Runs a command of the table on a blocking thread (a large file never freezes the window) and
/// answers its JSON, or rejects with `{code, message}`. `false`: not a command of ours.
fn handle<R: tauri::Runtime>(app: &Arc<App>, invoke: Invoke<R>) -> bool {
    let name = invoke.message.command().to_string();
    if pi_session_app::commands::find(&name).is_none() {
        return false;
    }
    let args = match invoke.message.payload() {
        InvokeBody::Json(v) => v.clone(),
        InvokeBody::Raw(_) => serde_json::Value::Null,
    };
    let app = app.clone();
    invoke.resolver.respond_async_serialized(async move {
        match tauri::async_runtime::spawn_blocking(move || app.call(&name, args)).await {
            Ok(Ok(json)) => Ok(InvokeResponseBody::Json(json)),
            Ok(Err(e)) => Err(InvokeError::from(e)),
            Err(e) => Err(InvokeError::from(serde_json::json!({ "code": "internal", "message": e.to_string() }))),
        }
    });
    true
}

/// Events to the window's listeners.
struct WindowEvents<R: tauri::Runtime>(tauri::AppHandle<R>);

impl<R: tauri::Runtime> EventSink for WindowEvents<R> {
    fn emit(&self, event: AppEvent) {
        let _ = self.0.emit(event.name(), &event);
    }
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
        .setup(move |handle| {
            let app = handle.state::<Arc<App>>().inner().clone();
            app.set_events(Arc::new(WindowEvents(handle.handle().clone())));
            if !app.explorer().app_info().demo {
                app.remember_recent(&root);
            }
            app.start(true);
            Ok(())
        })
        .run(context())
        .expect("error while running the application");
}

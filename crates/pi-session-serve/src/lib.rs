//! `pi-session serve`: the explorer's Svelte UI and core over HTTP, so sessions on another
//! machine (a dev box over SSH) can be browsed in a local browser.
//!
//! * one JSON endpoint per command of the window (`POST /api/<command>`, the Tauri command
//!   names and argument names, the same `{code, message}` errors) — [`commands`];
//! * live updates (`root-changed`, `index-progress`) as server-sent events on `/api/events`;
//! * the built UI embedded in the binary — [`assets`];
//! * secure by default — [`guard`]: a random token on every request, loopback `Host` only when
//!   bound to loopback, read-only unless writes are allowed, the window's CSP.

pub mod assets;
pub mod commands;
mod find;
mod events;
pub mod guard;

use std::future::IntoFuture;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{get, post};
use axum::Router;
use pi_session::explorer::Explorer;
use tokio::sync::{broadcast, oneshot};

pub use commands::call;
pub use find::Find;

/// The port `pi-session serve` listens on by default (on 127.0.0.1).
pub const DEFAULT_PORT: u16 = 8765;

/// Errors of the server crate.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the sessions root {} is not a folder", .0.display())]
    NoRoot(PathBuf),
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("cannot start the server: {0}")]
    Runtime(std::io::Error),
    #[error("the OS random generator failed: {0}")]
    Random(String),
    #[error("no command {0:?}")]
    UnknownCommand(String),
    #[error("invalid arguments for {command}: {message}")]
    BadArgs { command: String, message: String },
    /// Adding or changing roots opens folders of the serving machine: only its command line
    /// (`--sessions-dir`) does that, never a browser.
    #[error("{0}: not over HTTP: the served roots are set by the server's command line, and tags, folders and exports are the window's")]
    WindowOnly(String),
    /// An error of the core, as the window gets it.
    #[error("{message}")]
    Core { code: String, message: String },
}

impl ServeError {
    /// The `code` of the `{code, message}` the UI gets.
    pub fn code(&self) -> &str {
        match self {
            ServeError::UnknownCommand(_) => "not-found",
            ServeError::BadArgs { .. } => "invalid",
            ServeError::WindowOnly(_) => "window-only",
            ServeError::Core { code, .. } => code,
            _ => "internal",
        }
    }
}

/// How to serve.
#[derive(Debug, Clone)]
pub struct Config {
    /// The sessions root (already resolved).
    pub root: PathBuf,
    /// More roots, each named (`--sessions-dir` repeated): listing and the fork graph span
    /// them all; writes stay confined to the root holding the file.
    pub more_roots: Vec<pi_session::roots::RootSpec>,
    /// The first root's name when there are several (default: its folder's).
    pub root_name: Option<String>,
    /// How the root was chosen (`flag`, `env-session-dir`, …), shown by the UI.
    pub root_source: String,
    pub listen: SocketAddr,
    /// Writes (navigate, label, fork) are possible; the UI can still switch them off.
    pub allow_writes: bool,
    /// Forces read-only mode, even with `allow_writes`; the UI cannot switch it off.
    pub read_only: bool,
    /// Watch the root and push `root-changed` events.
    pub watch: bool,
}

impl Config {
    pub fn new(root: PathBuf) -> Config {
        Config {
            root,
            more_roots: Vec::new(),
            root_name: None,
            root_source: "flag".into(),
            listen: SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)),
            allow_writes: false,
            read_only: false,
            watch: true,
        }
    }
}

/// What the handlers share.
pub(crate) struct Shared {
    pub explorer: Arc<Explorer>,
    pub token: String,
    /// Only `localhost`, `127.0.0.1` and `[::1]` are accepted as `Host` (DNS rebinding).
    pub loopback_only: bool,
    pub events: broadcast::Sender<events::Event>,
    /// The served root's full-text index, opened on first use.
    pub find: Arc<find::Find>,
}

/// A running server; dropping it does not stop it, [`Server::stop`] does.
pub struct Server {
    addr: SocketAddr,
    token: String,
    explorer: Arc<Explorer>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _watch: Option<pi_session::watch::RootWatch>,
}

impl Server {
    /// Binds, then serves on a thread of its own.
    pub fn start(cfg: Config) -> Result<Server, ServeError> {
        if !cfg.root.is_dir() {
            return Err(ServeError::NoRoot(cfg.root));
        }
        let token = guard::new_token()?;
        let read_only = cfg.read_only || !cfg.allow_writes;
        if let Some(r) = cfg.more_roots.iter().find(|r| !r.path.is_dir()) {
            return Err(ServeError::NoRoot(r.path.clone()));
        }
        let explorer = if cfg.more_roots.is_empty() {
            Explorer::new(cfg.root.clone(), &cfg.root_source, read_only)
        } else {
            let first = pi_session::roots::RootSpec { name: cfg.root_name.clone().unwrap_or_else(|| pi_session::roots::default_name(&cfg.root)), path: cfg.root.clone(), read_only: false };
            let specs = std::iter::once(first).chain(cfg.more_roots.iter().cloned()).collect();
            Explorer::new_multi(pi_session::roots::Roots::new(specs), &cfg.root_source, read_only).map_err(|e| ServeError::Core { code: "invalid".into(), message: e.to_string() })?
        };
        let explorer = Arc::new(explorer);
        let listener = std::net::TcpListener::bind(cfg.listen).map_err(|source| ServeError::Bind { addr: cfg.listen, source })?;
        listener.set_nonblocking(true).map_err(ServeError::Runtime)?;
        let addr = listener.local_addr().map_err(ServeError::Runtime)?;

        let (events, _) = broadcast::channel(256);
        let progress = events.clone();
        explorer.set_progress_sink(Box::new(move |p| {
            let _ = progress.send(events::Event::IndexProgress(p));
        }));
        let watch = if cfg.watch {
            let watched = explorer.clone();
            let changes = events.clone();
            match pi_session::watch::watch_root(explorer.root(), Duration::from_millis(60), move |ev| {
                watched.root_changed();
                let _ = changes.send(events::Event::RootChanged(ev));
            }) {
                Ok(w) => {
                    explorer.set_watched();
                    Some(w)
                }
                Err(e) => {
                    tracing::warn!("cannot watch {}: {e}", explorer.root().display());
                    None
                }
            }
        } else {
            None
        };
        let prepare = explorer.clone();
        let _ = std::thread::Builder::new().name("prepare".into()).spawn(move || prepare.prepare());

        let shared = Arc::new(Shared { explorer: explorer.clone(), token: token.clone(), loopback_only: addr.ip().is_loopback(), events, find: Arc::new(find::Find::default()) });
        let app = router(shared);
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().map_err(ServeError::Runtime)?;
        let (tx, rx) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("serve".into())
            .spawn(move || {
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => return tracing::error!("serve: {e}"),
                    };
                    // Not a graceful shutdown: an open event stream never ends by itself.
                    tokio::select! {
                        r = axum::serve(listener, app).into_future() => {
                            if let Err(e) = r {
                                tracing::error!("serve: {e}");
                            }
                        }
                        _ = rx => {}
                    }
                });
                rt.shutdown_background();
            })
            .map_err(ServeError::Runtime)?;
        Ok(Server { addr, token, explorer, shutdown: Some(tx), thread: Some(thread), _watch: watch })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    pub fn explorer(&self) -> &Arc<Explorer> {
        &self.explorer
    }

    /// The address to open: it carries the token, which the page then keeps in a cookie.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }

    /// Serves until the process ends.
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Stops serving and waits for the server thread.
    pub fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/api/events", get(events::stream))
        .route("/api/{command}", post(commands::handle))
        .fallback(get(assets::handle))
        .layer(axum::middleware::from_fn_with_state(shared.clone(), guard::check))
        .layer(axum::middleware::from_fn(guard::headers))
        .with_state(shared)
}

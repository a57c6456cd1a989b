//! `pi-session serve`: the explorer's Svelte UI and core over HTTP, so sessions on another
//! machine (a dev box over SSH) can be browsed in a local browser.
//!
//! * one JSON endpoint per command of the app's command table (`POST /api/<command>`, the
//!   window's command and argument names, the same `{code, message}` errors): the app
//!   ([`pi_session_app::service::App`]) answers them, as it does the window's — [`calls`];
//! * live updates (`root-changed`, `index-progress`) as server-sent events on `/api/events`;
//! * the built UI embedded in the binary — [`assets`];
//! * secure by default — [`guard`]: the API takes the token only as `Authorization: Bearer`
//!   (nothing a browser sends by itself), refuses other origins, and answers only to a loopback
//!   `Host` when bound to loopback; read-only unless writes are allowed; the window's CSP;
//! * our own accept loop — [`conns`]: headers within a timeout, and a cap on open connections
//!   that sheds those which never authenticated first.

pub mod assets;
mod calls;
mod conns;
mod events;
pub mod guard;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use pi_session_app::api::ErrorCode;
use pi_session_app::explorer::Explorer;
use pi_session_app::service::{App, AppEvent, EventSink};
use tokio::sync::{broadcast, oneshot};

pub use conns::DEFAULT_MAX_CONNECTIONS;

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
    #[error("invalid arguments for {command}: {message}")]
    BadArgs { command: String, message: String },
    /// An error of the core (or of the search index), as the window gets it.
    #[error("{message}")]
    Core { code: ErrorCode, message: String },
    /// An API request without the token as `Authorization: Bearer TOKEN`.
    #[error("this API needs the token as `Authorization: Bearer TOKEN`: open the URL that `pi-session serve` printed (it carries the token)")]
    Unauthorized,
    /// A `Host` that is not this server's loopback address (DNS rebinding).
    #[error("this server only answers to localhost, 127.0.0.1, [::1] or the address it is bound to, with its port")]
    ForbiddenHost,
    /// An API request sent by a page of another origin.
    #[error("requests from another origin are refused ({0})")]
    ForbiddenOrigin(String),
    /// A command whose body is not declared as JSON.
    #[error("a command's body is JSON: send `Content-Type: application/json` (got {0:?})")]
    UnsupportedMediaType(String),
}

impl ServeError {
    /// The `code` of the `{code, message}` the UI gets.
    pub fn code(&self) -> &str {
        match self {
            ServeError::BadArgs { .. } => "invalid",
            ServeError::Core { code, .. } => code.as_str(),
            ServeError::Unauthorized => "unauthorized",
            ServeError::ForbiddenHost => "forbidden-host",
            ServeError::ForbiddenOrigin(_) => "forbidden-origin",
            ServeError::UnsupportedMediaType(_) => "unsupported-media-type",
            ServeError::NoRoot(_) | ServeError::Bind { .. } | ServeError::Runtime(_) | ServeError::Random(_) => "internal",
        }
    }

    /// The HTTP status of the answer.
    pub fn status(&self) -> StatusCode {
        match self {
            ServeError::BadArgs { .. } => StatusCode::BAD_REQUEST,
            ServeError::ForbiddenHost | ServeError::ForbiddenOrigin(_) => StatusCode::FORBIDDEN,
            ServeError::Unauthorized => StatusCode::UNAUTHORIZED,
            ServeError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ServeError::Core { code, .. } => status_of(*code),
            ServeError::NoRoot(_) | ServeError::Bind { .. } | ServeError::Runtime(_) | ServeError::Random(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// The HTTP status for each error code of the core (no wildcard: a new code needs a decision
/// here). 500 only for failures of the serving machine (its disk, its index database, no cache
/// folder) and `internal`; the others are the request's or the file's.
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NotFound | ErrorCode::UnknownId => StatusCode::NOT_FOUND,
        ErrorCode::OutsideRoot | ErrorCode::ReadOnly | ErrorCode::ReadOnlyMode | ErrorCode::WindowOnly => StatusCode::FORBIDDEN,
        ErrorCode::Invalid | ErrorCode::InvalidId | ErrorCode::NotAFile => StatusCode::BAD_REQUEST,
        ErrorCode::Busy | ErrorCode::InCycle | ErrorCode::NoCompaction => StatusCode::CONFLICT,
        ErrorCode::Corrupt | ErrorCode::NotRelated => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::Io | ErrorCode::Index | ErrorCode::NoFolder | ErrorCode::OrganiserDamaged | ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        // A running pi that could not be reached or answered out of protocol: another process.
        ErrorCode::PiLink => StatusCode::BAD_GATEWAY,
    }
}

/// `{code, message}` with the status for the code.
/// An error of the app as the UI sees it (`{code, message}`).
impl From<pi_session_app::api::ApiError> for ServeError {
    fn from(e: pi_session_app::api::ApiError) -> ServeError {
        ServeError::Core { code: e.code, message: e.message }
    }
}

impl IntoResponse for ServeError {
    fn into_response(self) -> Response {
        (self.status(), Json(serde_json::json!({ "code": self.code(), "message": self.to_string() }))).into_response()
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
    /// A connection whose request headers are not complete after this long is closed (also
    /// while idle between requests).
    pub header_timeout: Duration,
    /// The most connections open at once; `None`: [`DEFAULT_MAX_CONNECTIONS`], and
    /// always below the open-file limit with a reserve. At the cap a new connection evicts the
    /// oldest one that has not made an authenticated request.
    pub max_connections: Option<usize>,
}

/// How long a client has to send its request headers.
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

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
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            max_connections: None,
        }
    }
}

/// What the handlers share.
pub(crate) struct Shared {
    pub app: Arc<App>,
    pub token: String,
    /// The bound address: when it is a loopback one, only `localhost`, `127.0.0.1`, `[::1]` or
    /// that address, with its port, are accepted as `Host` (DNS rebinding).
    pub bound: SocketAddr,
    pub events: broadcast::Sender<AppEvent>,
}

/// The app's events, to every open event stream.
struct Broadcast(broadcast::Sender<AppEvent>);

impl EventSink for Broadcast {
    fn emit(&self, event: AppEvent) {
        let _ = self.0.send(event);
    }
}

/// A running server; dropping it does not stop it, [`Server::stop`] does.
pub struct Server {
    addr: SocketAddr,
    token: String,
    app: Arc<App>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
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
            Explorer::new_multi(pi_session::roots::Roots::new(specs), &cfg.root_source, read_only).map_err(|e| ServeError::Core { code: ErrorCode::Invalid, message: e.to_string() })?
        };
        let explorer = Arc::new(explorer);
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().map_err(ServeError::Runtime)?;
        let listener = {
            let _in = rt.enter();
            conns::bind(cfg.listen)?
        };
        let addr = listener.local_addr().map_err(ServeError::Runtime)?;
        let limits = conns::Limits::new(cfg.max_connections, cfg.header_timeout);

        let (events, _) = broadcast::channel(256);
        let app = App::serve(explorer);
        app.set_events(Arc::new(Broadcast(events.clone())));
        // Watch the roots (unless told not to) and build the listing while the page loads.
        app.start(cfg.watch);
        let shared = Arc::new(Shared { app: app.clone(), token: token.clone(), bound: addr, events });
        let router = router(shared);
        let (tx, rx) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("serve".into())
            .spawn(move || {
                rt.block_on(async move {
                    // Not a graceful shutdown: an open event stream never ends by itself.
                    tokio::select! {
                        _ = conns::serve(listener, router, limits) => {}
                        _ = rx => {}
                    }
                });
                rt.shutdown_background();
            })
            .map_err(ServeError::Runtime)?;
        Ok(Server { addr, token, app, shutdown: Some(tx), thread: Some(thread) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// The explorer of the served roots.
    pub fn explorer(&self) -> Arc<Explorer> {
        self.app.explorer()
    }

    /// The app the server carries calls to.
    pub fn app(&self) -> &Arc<App> {
        &self.app
    }

    /// The address to open. The token is in the fragment, which a browser never sends: the
    /// page reads it, removes it from the address bar and sends it as `Authorization: Bearer`.
    pub fn url(&self) -> String {
        format!("http://{}/#token={}", self.addr, self.token)
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
        .route("/api/{command}", post(calls::handle))
        .fallback(get(assets::handle))
        .layer(axum::middleware::from_fn_with_state(shared.clone(), guard::check))
        .layer(axum::middleware::from_fn(guard::headers))
        .with_state(shared)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_failures_of_the_serving_machine_are_500() {
        use ErrorCode as C;
        let all = [C::NotFound, C::Io, C::NotAFile, C::Corrupt, C::UnknownId, C::ReadOnly, C::InCycle, C::Busy, C::OutsideRoot, C::InvalidId, C::ReadOnlyMode, C::NoCompaction, C::NotRelated, C::PiLink, C::Index, C::NoFolder, C::OrganiserDamaged, C::Invalid, C::WindowOnly, C::Internal];
        let five: Vec<&str> = all.iter().filter(|c| status_of(**c).is_server_error()).map(|c| c.as_str()).collect();
        assert_eq!(five, ["io", "pi-link", "index", "no-folder", "organiser-damaged", "internal"]);
        assert_eq!(status_of(C::NoCompaction), StatusCode::CONFLICT);
        assert_eq!(ServeError::Core { code: C::NoCompaction, message: String::new() }.status(), StatusCode::CONFLICT);
        assert!(all.iter().all(|c| status_of(*c).is_client_error() || status_of(*c).is_server_error()));
    }
}

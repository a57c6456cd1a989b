//! The app as the shells hold it: the explorer of the open roots (replaced when the window
//! opens another folder), their watchers, the search indexes and the organiser, the data folder
//! of the window, and where events go. The window (Tauri) and `pi-session serve` (HTTP) each
//! hold one [`App`] and carry calls to [`App::call`] ([`crate::commands`]); what differs between
//! them is the [`Host`], not the commands.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use pi_session::Error;
use pi_session_find::{SearchIndexProgress, SearchIndexStatus};
use serde::Serialize;

use crate::api::{ApiError, AppInfo, IndexProgress, RootChanged};
use crate::explorer::Explorer;
use crate::find::FindState;
use crate::watch::RootWatch;

/// Who carries the calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// The desktop window: it has a data folder (remembered roots, recent roots, tags, pins and
    /// archive marks), opens folders of this machine, writes exports, and builds the search
    /// indexes in the background.
    Window,
    /// `pi-session serve`: a browser, perhaps on another machine. Its roots are set by the
    /// server's command line; commands marked window-only are refused (`window-only`), and the
    /// window's marks read as none.
    Serve,
}

/// An event the UI listens to (the window's events; serve's server-sent events).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum AppEvent {
    RootChanged(RootChanged),
    IndexProgress(IndexProgress),
    SearchIndexProgress(SearchIndexProgress),
}

impl AppEvent {
    /// The event's name on the wire.
    pub fn name(&self) -> &'static str {
        match self {
            AppEvent::RootChanged(_) => "root-changed",
            AppEvent::IndexProgress(_) => "index-progress",
            AppEvent::SearchIndexProgress(_) => "search-index-progress",
        }
    }
}

/// Where a shell sends events.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: AppEvent);
}

/// The app's state, shared by every call.
pub struct App {
    host: Host,
    explorer: RwLock<Arc<Explorer>>,
    /// The watchers of the explorer's roots, by root folder.
    watchers: Mutex<Vec<(PathBuf, RootWatch)>>,
    find: FindState,
    /// The window's data folder (none for serve).
    data_dir: Option<PathBuf>,
    events: RwLock<Option<Arc<dyn EventSink>>>,
    /// The files the window exported: the only ones it opens ([`App::open_export`]).
    pub(crate) exported: Mutex<HashSet<PathBuf>>,
}

impl App {
    /// The window's app, its data in `data_dir` (remembered roots, recent roots, the organiser's
    /// database, exports when no other folder is set).
    pub fn window(explorer: Arc<Explorer>, data_dir: PathBuf) -> Arc<App> {
        let find = FindState::window(&data_dir);
        Arc::new(App { host: Host::Window, explorer: RwLock::new(explorer), watchers: Mutex::new(Vec::new()), find, data_dir: Some(data_dir), events: RwLock::new(None), exported: Default::default() })
    }

    /// `pi-session serve`'s app: no data folder.
    pub fn serve(explorer: Arc<Explorer>) -> Arc<App> {
        Arc::new(App { host: Host::Serve, explorer: RwLock::new(explorer), watchers: Mutex::new(Vec::new()), find: FindState::new(), data_dir: None, events: RwLock::new(None), exported: Default::default() })
    }

    pub fn host(&self) -> Host {
        self.host
    }

    /// The explorer of the open roots.
    pub fn explorer(&self) -> Arc<Explorer> {
        self.explorer.read().unwrap().clone()
    }

    pub fn find(&self) -> &FindState {
        &self.find
    }

    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// Where events go from now on (the window's handle exists only once it runs).
    pub fn set_events(&self, sink: Arc<dyn EventSink>) {
        *self.events.write().unwrap() = Some(sink);
    }

    pub fn emit(&self, event: AppEvent) {
        if let Some(sink) = self.events.read().unwrap().clone() {
            sink.emit(event);
        }
    }

    /// Starts serving the explorer: index progress events, the roots' watchers (with `watch`),
    /// the first listing, then (the window) the search indexes in the background.
    pub fn start(self: &Arc<Self>, watch: bool) {
        let explorer = self.explorer();
        let me = Arc::downgrade(self);
        explorer.set_progress_sink(Box::new(move |p| {
            if let Some(app) = me.upgrade() {
                app.emit(AppEvent::IndexProgress(p));
            }
        }));
        let app = self.clone();
        // Watch the roots, then build the listing while the page loads, so its first request
        // finds it ready.
        let _ = std::thread::Builder::new().name("prepare".into()).spawn(move || {
            // A new explorer: the previous roots' watchers stop (they served the old one).
            app.watchers.lock().unwrap().clear();
            if watch {
                app.watch_roots(&explorer);
            }
            explorer.prepare();
            if app.host == Host::Window {
                // Incremental after the first run.
                app.build_indexes(&explorer);
            }
        });
    }

    fn build_indexes(&self, explorer: &Explorer) {
        self.find.build(explorer, |p| self.emit(AppEvent::SearchIndexProgress(p)));
    }

    /// Watches every root of `explorer` not watched yet, and stops watching roots it no longer
    /// has.
    fn watch_roots(self: &Arc<Self>, explorer: &Arc<Explorer>) {
        let roots: Vec<PathBuf> = explorer.roots().specs().iter().map(|s| s.path.clone()).collect();
        let mut watchers = self.watchers.lock().unwrap();
        watchers.retain(|(p, _)| roots.contains(p));
        for (k, root) in roots.iter().enumerate() {
            if watchers.iter().any(|(p, _)| p == root) {
                continue;
            }
            let watched = explorer.clone();
            let me = Arc::downgrade(self);
            match crate::watch::watch_root(root, Duration::from_millis(60), move |ev| {
                watched.root_changed();
                if let Some(app) = me.upgrade() {
                    app.emit(AppEvent::RootChanged(ev));
                }
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

    /// After roots were added or removed: remember them (the window), watch the new ones,
    /// index them in the background.
    pub(crate) fn roots_changed(self: &Arc<Self>) {
        let explorer = self.explorer();
        if let Some(dir) = &self.data_dir {
            if let Err(e) = remembered::save(dir, &explorer.roots().specs()[1..]) {
                tracing::warn!("cannot remember the roots: {e}");
            }
        }
        self.watch_roots(&explorer);
        if self.host == Host::Window {
            self.build_indexes_in_background();
        }
    }

    /// Builds (or brings up to date) the search indexes of the roots on a thread of its own.
    fn build_indexes_in_background(self: &Arc<Self>) {
        let app = self.clone();
        let explorer = self.explorer();
        self.find.set_build_pending(true);
        if std::thread::Builder::new().name("index-roots".into()).spawn(move || app.build_indexes(&explorer)).is_err() {
            self.find.set_build_pending(false);
        }
    }

    /// Pauses the search indexes' build or resumes it (then it goes on in the background).
    pub(crate) fn set_search_index_paused(self: &Arc<Self>, paused: bool) -> Result<SearchIndexStatus, ApiError> {
        let ex = self.explorer();
        if self.find.set_paused(&ex, paused)? {
            self.build_indexes_in_background();
        }
        self.find.status(&ex)
    }

    /// Turns the search index on (it builds, incrementally, in the background) or off.
    pub(crate) fn set_search_index_enabled(self: &Arc<Self>, enabled: bool) -> Result<SearchIndexStatus, ApiError> {
        let ex = self.explorer();
        if self.find.set_enabled(&ex, enabled)? {
            self.build_indexes_in_background();
        }
        self.find.status(&ex)
    }

    /// Opens another sessions root in place of the open ones (the window's folder picker),
    /// and remembers it among the recent roots.
    pub(crate) fn open_root(self: &Arc<Self>, path: &Path) -> Result<AppInfo, Error> {
        let old = self.explorer();
        let real = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
        if !real.is_dir() {
            return Err(Error::io(path, std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder")));
        }
        let info = old.app_info();
        let explorer = Arc::new(Explorer::new(real.clone(), "picked", info.read_only_locked).with_initial_view(info.initial_view.as_str()));
        explorer.set_read_only(info.read_only);
        *self.explorer.write().unwrap() = explorer.clone();
        self.start(true);
        self.remember_recent(&real);
        Ok(explorer.app_info())
    }

    /// Puts `root` first among the recent roots (the window).
    pub fn remember_recent(&self, root: &Path) {
        if let Some(dir) = &self.data_dir {
            if let Err(e) = crate::recent::remember(&crate::recent::file_in(dir), root) {
                tracing::warn!("cannot remember the root: {e}");
            }
        }
    }

    /// The roots opened recently, newest first (none for serve: the server's recent roots are
    /// not the browser's).
    pub(crate) fn recent_roots(&self) -> Vec<PathBuf> {
        self.data_dir.as_ref().map(|d| crate::recent::load(&crate::recent::file_in(d))).unwrap_or_default()
    }

    /// Where exports go: `$PI_EXPLORER_EXPORT_DIR`, else the Downloads folder, else the data
    /// folder's `exports`.
    pub(crate) fn export_dir(&self) -> PathBuf {
        std::env::var_os("PI_EXPLORER_EXPORT_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(dirs::download_dir)
            .unwrap_or_else(|| self.data_dir.clone().unwrap_or_else(std::env::temp_dir).join("exports"))
    }
}

/// The roots the window remembers (added in the window, with names and read-only flags):
/// `roots.json` in the data folder, replaced whole and crash-safely.
pub mod remembered {
    use std::path::{Path, PathBuf};

    use pi_session::roots::RootSpec;

    /// `roots.json` in the data folder.
    pub fn file(data_dir: &Path) -> PathBuf {
        data_dir.join("roots.json")
    }

    /// The remembered roots; a missing or unreadable file is none.
    pub fn load(data_dir: &Path) -> Vec<RootSpec> {
        std::fs::read(file(data_dir)).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default()
    }

    /// Remembers `roots` (those added in the window, not the ones of the command line).
    pub fn save(data_dir: &Path, roots: &[RootSpec]) -> std::io::Result<()> {
        std::fs::create_dir_all(data_dir)?;
        let bytes = serde_json::to_vec_pretty(roots).map_err(std::io::Error::other)?;
        pi_session::atomic::replace(&file(data_dir), &bytes)
    }
}


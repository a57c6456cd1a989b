//! The service behind the app's commands: one per sessions root, thread-safe, no Tauri.
//! Each app command is a thin adapter over one method here, so the same behaviour is tested
//! without a window.

mod audit;
mod context;
mod dashboard;
mod exports;
mod inspect;
mod lister;
mod listing;
mod multi;
mod outside;
mod resume;
mod search;
mod steer;
mod transcript;
mod tree_pages;
mod writes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use pi_session::write::{self, WriteOptions};
use pi_session::{Error, Session};

use crate::api::*;
use crate::layout::Layout;

pub use audit::{is_context_message, AuditCompaction, AuditElsewhere, AuditHidden, AuditView, AUDIT_ELSEWHERE_MAX, AUDIT_HIDDEN_MAX};
pub use exports::{export_name, ExportText};
pub use lister::{ProgressSink, Snapshot};
pub use steer::{NewFileResult, SlimPreview};
use lister::Lister;
pub use resume::resume_at;
pub use transcript::newest_in_subtree;
use tree_pages::LayoutKey;

/// Messages and hidden entries sent with a context view before paging.
pub const CONTEXT_PAGE: usize = 200;

/// A cached session, shared between commands.
type Shared = Arc<RwLock<Session>>;


struct Cached {
    session: Arc<RwLock<Session>>,
    /// Last time another process appended to the file (seen by a refresh).
    external_append: Option<Instant>,
}


/// A sessions root, its caches, and the app's modes.
pub struct Explorer {
    root: PathBuf,
    root_source: String,
    demo: bool,
    wanted_root: Option<PathBuf>,
    read_only: AtomicBool,
    read_only_locked: bool,
    initial_view: View,
    /// `--session FILE --select ID`: what the window opens first.
    initial_session: Option<(String, Option<String>)>,
    sessions: Mutex<HashMap<PathBuf, Cached>>,
    /// Held while a session file is opened (see [`Explorer::session_at`]).
    opening: Mutex<()>,
    lister: Arc<Lister>,
    /// Byte lengths right after our own appends, so a refresh can tell our lines from others'.
    own_writes: Mutex<HashMap<PathBuf, u64>>,
    layouts: Mutex<Vec<(LayoutKey, Arc<Layout>)>>,
    /// Every root of the view, the first being `root` with `lister` (see `multi.rs`).
    roots: RwLock<Vec<(pi_session::roots::RootSpec, Arc<Lister>)>>,
    /// Byte comparisons of session copies across roots, kept while the files are unchanged.
    comparisons: Mutex<pi_session::roots::Comparisons>,
    /// Children outside the roots opened for viewing ([`Explorer::open_outside`]).
    viewable: Mutex<std::collections::HashSet<PathBuf>>,
}

impl Explorer {
    pub fn new(root: PathBuf, root_source: &str, read_only: bool) -> Explorer {
        let lister = Arc::new(Lister::new(root.clone()));
        Explorer {
            root: root.clone(),
            root_source: root_source.to_string(),
            demo: false,
            wanted_root: None,
            read_only: AtomicBool::new(read_only),
            read_only_locked: read_only,
            initial_view: View::Tree,
            initial_session: None,
            sessions: Mutex::new(HashMap::new()),
            opening: Mutex::new(()),
            lister: lister.clone(),
            own_writes: Mutex::new(HashMap::new()),
            layouts: Mutex::new(Vec::new()),
            comparisons: Mutex::new(Default::default()),
            viewable: Mutex::new(Default::default()),
            roots: RwLock::new(vec![(pi_session::roots::RootSpec { name: pi_session::roots::default_name(&root), path: root, read_only: false }, lister)]),
        }
    }

    /// Marks this explorer as showing the bundled demo instead of `wanted`.
    pub fn with_demo(mut self, wanted: PathBuf) -> Explorer {
        self.demo = true;
        self.wanted_root = Some(wanted);
        self.root_source = "demo".into();
        self
    }

    /// The centre view the window starts in (`tree`, `forks`, `transcript`).
    pub fn with_initial_view(mut self, view: &str) -> Explorer {
        self.initial_view = View::parse(view).unwrap_or_default();
        self
    }

    /// The session (and the entry in it) the window opens first, instead of the most recent.
    pub fn with_initial_session(mut self, file: &Path, entry: Option<&str>) -> Explorer {
        let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        self.initial_session = Some((file.to_string_lossy().into_owned(), entry.map(str::to_string)));
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only.load(Ordering::SeqCst)
    }

    pub fn app_info(&self) -> AppInfo {
        AppInfo {
            root: self.root.clone(),
            root_source: self.root_source.clone(),
            demo: self.demo,
            wanted_root: self.wanted_root.clone(),
            read_only: self.is_read_only(),
            read_only_locked: self.read_only_locked,
            initial_view: self.initial_view,
            initial_session: self.initial_session.as_ref().map(|(f, _)| f.clone()),
            initial_entry: self.initial_session.as_ref().and_then(|(_, e)| e.clone()),
            version: env!("CARGO_PKG_VERSION").to_string(),
            roots: self.root_infos(),
        }
    }

    /// Switches read-only mode; a mode set at start (`--read-only`) stays on.
    pub fn set_read_only(&self, on: bool) -> AppInfo {
        self.read_only.store(on || self.read_only_locked, Ordering::SeqCst);
        self.app_info()
    }

    /// A new session file appeared under the root: the next listing reads the folder again.
    pub(crate) fn invalidate_listing(&self) {
        self.lister.state.lock().unwrap().invalidate();
    }

    /// Write options for a file: confined to the root holding it, read-only when that root is.
    pub(crate) fn write_opts(&self, real: &Path) -> Result<WriteOptions, Error> {
        if self.is_multi() {
            return self.write_opts_multi(real);
        }
        Ok(WriteOptions { root: Some(self.root.clone()), read_only: self.is_read_only(), ..Default::default() })
    }

    /// Resolves a path argument (a string as the listing gave it, [`pi_session::pathstr`]): it must
    /// lie inside the root (one of the roots), as written and after symlinks.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, Error> {
        if self.is_multi() {
            return self.resolve_multi(path);
        }
        write::confine(&pi_session::pathstr::decode(path), Some(&self.root))
    }

    /// The session at `path`, refreshed from disk if the file changed.
    pub fn session(&self, path: &str) -> Result<Arc<RwLock<Session>>, Error> {
        let real = self.resolve_view(path)?;
        self.session_at(&real)
    }

    pub(super) fn session_at(&self, real: &Path) -> Result<Arc<RwLock<Session>>, Error> {
        let existing = self.sessions.lock().unwrap().get(real).map(|c| c.session.clone());
        match existing {
            Some(s) => {
                let refreshed = {
                    let mut w = s.write().unwrap();
                    let before = w.index.read_len;
                    let r = w.refresh()?;
                    (r != pi_session::Refresh::Unchanged).then_some((before, w.index.read_len))
                };
                if let Some((_, after)) = refreshed {
                    let ours = self.own_writes.lock().unwrap().get(real).copied() == Some(after);
                    if !ours {
                        self.mark_external_append(real);
                    }
                }
                Ok(s)
            }
            None => self.open_session(real),
        }
    }

    /// The cached session of `real` as last read (a write brings it up to date itself,
    /// through its own descriptor), or the session opened now.
    pub(super) fn cached_or_open(&self, real: &Path) -> Result<Shared, Error> {
        let existing = self.sessions.lock().unwrap().get(real).map(|c| c.session.clone());
        match existing {
            Some(s) => Ok(s),
            None => self.open_session(real),
        }
    }

    /// Another process appended to the file just now.
    pub(super) fn mark_external_append(&self, real: &Path) {
        if let Some(c) = self.sessions.lock().unwrap().get_mut(real) {
            c.external_append = Some(Instant::now());
        }
    }

    /// Opens `real` into the cache.
    fn open_session(&self, real: &Path) -> Result<Shared, Error> {
        // One open at a time: the UI's first requests for a session come together, and
        // each would otherwise read the whole file (a big one takes all cores).
        let _opening = self.opening.lock().unwrap();
        if let Some(c) = self.sessions.lock().unwrap().get(real) {
            return Ok(c.session.clone());
        }
        // Big sessions open from their skeleton snapshot. A missing or stale one is
        // encoded here (a tenth of the open's time; no lock held, so no request waits
        // on it later) and written on a thread of its own, at a lower priority.
        let cache = pi_session::session::SkeletonCache::from_env();
        let (s, used) = match &cache {
            Some(c) => c.open(real)?,
            None => (Session::open(real)?, pi_session::session::CacheUse::Off),
        };
        if let (Some(c), pi_session::session::CacheUse::Miss | pi_session::session::CacheUse::Extended) = (&cache, used) {
            if let Some(encoded) = c.encode(&s) {
                std::thread::spawn(move || {
                    lister::lower_priority();
                    encoded.write();
                });
            }
        }
        let s = Arc::new(RwLock::new(s));
        let mut map = self.sessions.lock().unwrap();
        if map.len() > 64 {
            map.clear();
        }
        map.insert(real.to_path_buf(), Cached { session: s.clone(), external_append: None });
        Ok(s)
    }

    /// True when another process appended to the file within the last 10 s.
    pub fn is_live(&self, real: &Path) -> bool {
        let recent = |t: Option<Instant>| t.is_some_and(|t| t.elapsed() < Duration::from_secs(10));
        if recent(self.sessions.lock().unwrap().get(real).and_then(|c| c.external_append)) {
            return true;
        }
        let ours = self.own_writes.lock().unwrap().get(real).copied();
        std::fs::metadata(real)
            .ok()
            .filter(|m| Some(m.len()) != ours)
            .and_then(|m| m.modified().ok())
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_some_and(|age| age < Duration::from_secs(10))
            && ours.is_some()
    }
}

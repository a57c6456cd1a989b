//! The service behind the app's commands: one per sessions root, thread-safe, no Tauri.
//! Each app command is a thin adapter over one method here, so the same behaviour is tested
//! without a window.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::api::*;
use crate::context::{BodyReader, ContextPlan, ItemKind};
use crate::diag::Severity;
use crate::entry::{Detail, Kind, Role};
use crate::cache::ListCache;
use crate::forks::{fork_graph_cached, ForkStatus};
use crate::scan::{scan, scan_serial, Found, Scan};
use crate::summary::{index_all, sizes};
use crate::layout::{Fork, Layout};
use crate::preview::{estimate_tokens, line_value, preview};
use crate::summary::{Listing, SessionSummary};
use crate::tree::{Leaf, NONE};
use crate::write::{self, WriteOptions};
use crate::{Error, Session};

/// Messages and hidden entries sent with a context view before paging.
pub const CONTEXT_PAGE: usize = 200;

/// A cached session, shared between commands.
type Shared = Arc<RwLock<Session>>;

/// Layouts kept (the UI pages through one at a time; a few cover tabs and filters).
const LAYOUTS_KEPT: usize = 6;

#[derive(Clone, PartialEq, Eq)]
struct LayoutKey {
    query: TreeQuery,
    /// (file, bytes read) of every session in the layout.
    files: Vec<(PathBuf, u64)>,
}

/// Receives indexing progress (the app forwards it to the UI).
pub type ProgressSink = Box<dyn Fn(IndexProgress) + Send + Sync>;

/// Files indexed in the request itself; more than this (or bigger) go to the background.
const SYNC_FILES: usize = 48;
const SYNC_BYTES: u64 = 48 * 1024 * 1024;

/// The listing as of one scan, with its fork links.
pub struct Snapshot {
    pub listing: Listing,
    pub forks: Vec<crate::forks::ForkInfo>,
    /// Sessions fully indexed (the rest show header-only summaries until indexing finishes).
    pub indexed: usize,
    pub total: usize,
    at: Instant,
}

#[derive(Default)]
struct ListState {
    cache: Option<ListCache>,
    last: Option<Arc<Snapshot>>,
    indexing: bool,
    /// A watcher reports changes under the root: the last snapshot stays valid until it does.
    watched: bool,
    /// Bumped by every change that makes a listing stale; a snapshot built across a bump is
    /// returned but not kept.
    generation: u64,
}

impl ListState {
    fn invalidate(&mut self) {
        self.last = None;
        self.generation += 1;
    }

    /// The last snapshot while a watcher vouches for it (the end of a background index
    /// invalidates it too).
    fn current(&self) -> Option<Arc<Snapshot>> {
        if self.watched {
            self.last.clone()
        } else {
            None
        }
    }
}

struct Cached {
    session: Arc<RwLock<Session>>,
    /// Last time another process appended to the file (seen by a refresh).
    external_append: Option<Instant>,
}

/// The listing of a root: its cache, its last snapshot, background indexing.
struct Lister {
    root: PathBuf,
    state: Mutex<ListState>,
    /// Held while a listing is built, so concurrent callers share one scan.
    building: Mutex<()>,
    progress: Mutex<Option<ProgressSink>>,
}

impl Lister {
    /// The listing: unchanged files from the persistent cache, a few changed ones indexed now,
    /// many (a first start on a big root) in the background with progress reports, showing
    /// header-only summaries meanwhile.
    fn snapshot(self: &Arc<Self>) -> Arc<Snapshot> {
        self.snapshot_on(true)
    }

    /// `parallel`: scan and load the cache on all cores; off while the window starts, when
    /// the cores are the web view's and the listing is not yet on the critical path.
    fn snapshot_on(self: &Arc<Self>, parallel: bool) -> Arc<Snapshot> {
        if let Some(s) = self.state.lock().unwrap().current() {
            return s;
        }
        let _building = self.building.lock().unwrap();
        let generation = {
            let st = self.state.lock().unwrap();
            if let Some(s) = st.current() {
                return s;
            }
            st.generation
        };
        // The first listing of the process loads the persistent cache while it scans.
        let load = self.state.lock().unwrap().cache.is_none();
        let load_cache = || load.then(|| ListCache::load(&self.root));
        let (Scan { files, findings }, loaded) = if parallel { rayon::join(|| scan(&self.root), load_cache) } else { (scan_serial(&self.root), load_cache()) };
        let mut st = self.state.lock().unwrap();
        let cache = st.cache.get_or_insert_with(|| loaded.unwrap_or_else(|| ListCache::load(&self.root)));
        let misses = cache.reconcile(&files);
        let missed = misses.len();
        let miss_bytes: u64 = misses.iter().map(|m| m.size).sum();
        let background = misses.len() > SYNC_FILES || miss_bytes > SYNC_BYTES;
        let mut quick: HashMap<PathBuf, SessionSummary> = HashMap::new();
        if background {
            use rayon::prelude::*;
            quick = misses.par_iter().map(|f| (f.path.clone(), SessionSummary::quick(&f.path, f.size))).collect();
            if !st.indexing {
                st.indexing = true;
                self.index_in_background(misses);
            }
        } else if !misses.is_empty() {
            cache.store(&misses, index_all(sizes(&misses), |_, _| {}));
        }
        let cache = st.cache.as_mut().expect("loaded above");
        let results: Vec<(PathBuf, Result<SessionSummary, Error>)> = files
            .iter()
            .map(|f| {
                let s = match cache.files.get(&f.path) {
                    Some(c) => c.summary.clone(),
                    None => quick.remove(&f.path).unwrap_or_else(|| SessionSummary::quick(&f.path, f.size)),
                };
                (f.path.clone(), Ok(s))
            })
            .collect();
        let total = results.len();
        let listing = crate::summary::assemble(&self.root, results, findings);
        let forks = fork_graph_cached(&self.root, &listing.sessions, cache);
        cache.save_if_changed();
        let indexed = if background { total.saturating_sub(missed) } else { total };
        let snap = Arc::new(Snapshot { listing, forks, indexed, total, at: Instant::now() });
        if st.generation == generation {
            st.last = Some(snap.clone());
        }
        snap
    }

    fn index_in_background(self: &Arc<Self>, misses: Vec<Found>) {
        let this = self.clone();
        let _ = std::thread::Builder::new().name("index".into()).spawn(move || {
            let last = Mutex::new(Instant::now());
            let report = |done: usize, total: usize| {
                let mut l = last.lock().unwrap();
                if done == total || l.elapsed() > Duration::from_millis(80) {
                    *l = Instant::now();
                    if let Some(s) = this.progress.lock().unwrap().as_ref() {
                        s(IndexProgress { done: done.saturating_sub(1) as u32, total: total as u32 });
                    }
                }
            };
            // Its own pool at a lower priority: the window and the user's requests (which use
            // the global pool) stay quick while a big root is indexed.
            let pool = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("index-{i}")).start_handler(|_| lower_priority()).build();
            let results = match &pool {
                Ok(pool) => pool.install(|| index_all(sizes(&misses), report)),
                Err(_) => index_all(sizes(&misses), report),
            };
            drop(pool);
            let n = results.len();
            let mut st = this.state.lock().unwrap();
            if let Some(cache) = st.cache.as_mut() {
                cache.store(&misses, results);
            }
            st.indexing = false;
            st.invalidate();
            drop(st);
            // The complete listing (fork points found, the cache saved) before the UI asks.
            let _ = this.snapshot();
            if let Some(s) = this.progress.lock().unwrap().as_ref() {
                s(IndexProgress { done: n as u32, total: n as u32 });
            }
        });
    }
}

/// Lowers the calling thread's scheduling priority (Linux keeps a nice value per thread).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its arguments; `0` is the calling thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

/// A sessions root, its caches, and the app's modes.
pub struct Explorer {
    root: PathBuf,
    root_source: String,
    demo: bool,
    wanted_root: Option<PathBuf>,
    read_only: AtomicBool,
    read_only_locked: bool,
    initial_view: String,
    sessions: Mutex<HashMap<PathBuf, Cached>>,
    /// Held while a session file is opened (see [`Explorer::session_at`]).
    opening: Mutex<()>,
    lister: Arc<Lister>,
    /// Byte lengths right after our own appends, so a refresh can tell our lines from others'.
    own_writes: Mutex<HashMap<PathBuf, u64>>,
    layouts: Mutex<Vec<(LayoutKey, Arc<Layout>)>>,
}

impl Explorer {
    pub fn new(root: PathBuf, root_source: &str, read_only: bool) -> Explorer {
        Explorer {
            root: root.clone(),
            root_source: root_source.to_string(),
            demo: false,
            wanted_root: None,
            read_only: AtomicBool::new(read_only),
            read_only_locked: read_only,
            initial_view: "tree".into(),
            sessions: Mutex::new(HashMap::new()),
            opening: Mutex::new(()),
            lister: Arc::new(Lister { root, state: Mutex::new(ListState::default()), building: Mutex::new(()), progress: Mutex::new(None) }),
            own_writes: Mutex::new(HashMap::new()),
            layouts: Mutex::new(Vec::new()),
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
        self.initial_view = view.to_string();
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
            initial_view: self.initial_view.clone(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// Switches read-only mode; a mode set at start (`--read-only`) stays on.
    pub fn set_read_only(&self, on: bool) -> AppInfo {
        self.read_only.store(on || self.read_only_locked, Ordering::SeqCst);
        self.app_info()
    }

    pub(crate) fn write_opts(&self) -> WriteOptions {
        WriteOptions { root: Some(self.root.clone()), read_only: self.is_read_only(), ..Default::default() }
    }

    /// A new session file appeared under the root: the next listing reads the folder again.
    pub(crate) fn invalidate_listing(&self) {
        self.lister.state.lock().unwrap().invalidate();
    }

    /// Resolves a path argument: after symlinks it must lie inside the root.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, Error> {
        write::confine(Path::new(path), Some(&self.root))
    }

    /// The session at `path`, refreshed from disk if the file changed.
    pub fn session(&self, path: &str) -> Result<Arc<RwLock<Session>>, Error> {
        let real = self.resolve(path)?;
        self.session_at(&real)
    }

    fn session_at(&self, real: &Path) -> Result<Arc<RwLock<Session>>, Error> {
        let existing = self.sessions.lock().unwrap().get(real).map(|c| c.session.clone());
        match existing {
            Some(s) => {
                let refreshed = {
                    let mut w = s.write().unwrap();
                    let before = w.index.read_len;
                    let r = w.refresh()?;
                    (r != crate::Refresh::Unchanged).then_some((before, w.index.read_len))
                };
                if let Some((_, after)) = refreshed {
                    let ours = self.own_writes.lock().unwrap().get(real).copied() == Some(after);
                    if !ours {
                        if let Some(c) = self.sessions.lock().unwrap().get_mut(real) {
                            c.external_append = Some(Instant::now());
                        }
                    }
                }
                Ok(s)
            }
            None => {
                // One open at a time: the UI's first requests for a session come together, and
                // each would otherwise read the whole file (a big one takes all cores).
                let _opening = self.opening.lock().unwrap();
                if let Some(c) = self.sessions.lock().unwrap().get(real) {
                    return Ok(c.session.clone());
                }
                let s = Arc::new(RwLock::new(Session::open(real)?));
                let mut map = self.sessions.lock().unwrap();
                if map.len() > 64 {
                    map.clear();
                }
                map.insert(real.to_path_buf(), Cached { session: s.clone(), external_append: None });
                Ok(s)
            }
        }
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

    // ------------------------------------------------------------------ list and forks

    /// Where indexing progress goes.
    pub fn set_progress_sink(&self, sink: ProgressSink) {
        *self.lister.progress.lock().unwrap() = Some(sink);
    }

    /// The listing: unchanged files from the persistent cache, a few changed ones indexed now,
    /// many (a first start on a big root) in the background with progress reports, showing
    /// header-only summaries meanwhile.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.lister.snapshot()
    }

    /// From now on a watcher reports every change under the root ([`Explorer::root_changed`]):
    /// listings are reused until one comes.
    pub fn set_watched(&self) {
        self.lister.state.lock().unwrap().watched = true;
    }

    /// Files under the root changed: the next listing reads them again.
    pub fn root_changed(&self) {
        self.lister.state.lock().unwrap().invalidate();
    }

    /// Builds the listing ahead of the first request (the app calls this while its window
    /// starts), after the watcher is set, so the first `list_sessions` finds it ready.
    pub fn prepare(&self) {
        let _ = self.lister.snapshot_on(false);
    }

    /// The last snapshot if it is recent, else a new one.
    fn recent_snapshot(&self) -> Arc<Snapshot> {
        if let Some(s) = self.lister.state.lock().unwrap().last.clone() {
            if s.at.elapsed() < Duration::from_millis(1500) {
                return s;
            }
        }
        self.snapshot()
    }

    /// The sidebar list; with `limit`, only that many of the most recently modified sessions
    /// (and the parents they were forked from), for a quick first screen.
    pub fn list_sessions(&self, limit: Option<usize>) -> SessionList {
        let snap = self.snapshot();
        let l = &snap.listing;
        let mut keep: Vec<usize> = (0..l.sessions.len()).collect();
        let limited = limit.is_some_and(|n| n < keep.len());
        if let (true, Some(n)) = (limited, limit) {
            keep.sort_by(|&a, &b| l.sessions[b].modified.unwrap_or(0.0).total_cmp(&l.sessions[a].modified.unwrap_or(0.0)));
            keep.truncate(n);
            let by_path: HashMap<&Path, usize> = l.sessions.iter().enumerate().map(|(i, s)| (s.path.as_path(), i)).collect();
            let mut seen: std::collections::HashSet<usize> = keep.iter().copied().collect();
            let mut k = 0;
            while k < keep.len() {
                let parent = snap.forks[keep[k]].parent_path.as_deref().and_then(|p| by_path.get(p)).copied();
                if let Some(p) = parent.filter(|p| seen.insert(*p)) {
                    keep.push(p);
                }
                k += 1;
            }
            keep.sort_unstable();
        }
        let sessions: Vec<SessionRow> = keep.iter().map(|&i| session_row(&l.sessions[i], &snap.forks[i])).collect();
        SessionList {
            root: self.root.to_string_lossy().into_owned(),
            sessions,
            other: l.other.iter().map(|o| PathNote { path: o.path.to_string_lossy().into_owned(), diagnostic: o.diagnostic.clone() }).collect(),
            indexed: snap.indexed as u32,
            total: snap.total as u32,
            limited,
        }
    }

    pub fn fork_graph(&self) -> ForkGraph {
        let snap = self.recent_snapshot();
        let l = &snap.listing;
        let forks = &snap.forks;
        let nodes = l
            .sessions
            .iter()
            .zip(forks.iter())
            .map(|(s, f)| {
                ForkNode {
                    path: s.path.to_string_lossy().into_owned(),
                    id: s.id.clone(),
                    title: title_of(s),
                    cwd: s.cwd.clone(),
                    created: s.timestamp.clone(),
                    modified: s.modified,
                    entry_count: s.entry_count as u32,
                    parent_path: f.parent_path.as_ref().map(|p| p.to_string_lossy().into_owned()),
                    fork_point_id: f.fork_point_id.clone(),
                    fork_point_line: f.fork_point_line,
                    status: status_str(f.status).into(),
                }
            })
            .collect();
        ForkGraph { nodes }
    }

    // ------------------------------------------------------------------ tree graph

    /// The sessions a layout of `query` draws: the opened one, then (unified view) its forks,
    /// recursively, each with its fork point.
    fn layout_sessions(&self, query: &TreeQuery) -> Result<(Vec<Shared>, Vec<String>), Error> {
        let real = self.resolve(&query.path)?;
        let main = self.session_at(&real)?;
        let mut sessions = vec![main];
        let mut points = Vec::new();
        if query.unified {
            let snap = self.recent_snapshot();
            let forks = &snap.forks;
            let canon = |p: &Path| std::fs::canonicalize(p).ok();
            let mut frontier = vec![real.clone()];
            let mut seen = std::collections::HashSet::from([real.clone()]);
            while let Some(parent) = frontier.pop() {
                for f in forks.iter().filter(|f| f.status == ForkStatus::Ok) {
                    let (Some(pp), Some(fp)) = (f.parent_path.as_deref().and_then(canon), f.fork_point_id.as_ref()) else { continue };
                    let Some(child) = canon(&f.path) else { continue };
                    if pp == parent && seen.insert(child.clone()) {
                        sessions.push(self.session_at(&child)?);
                        points.push(fp.clone());
                        frontier.push(child);
                    }
                }
            }
        }
        Ok((sessions, points))
    }

    fn layout(&self, query: &TreeQuery, guards: &[&Session], points: &[String]) -> Arc<Layout> {
        let key = LayoutKey { query: query.clone(), files: guards.iter().map(|s| (s.index.path.clone(), s.index.read_len)).collect() };
        if let Some((_, l)) = self.layouts.lock().unwrap().iter().find(|(k, _)| *k == key) {
            return l.clone();
        }
        let layout = Arc::new(if query.unified && guards.len() > 1 {
            let forks: Vec<Fork<'_>> = guards[1..].iter().zip(points).map(|(s, p)| Fork { session: s, fork_point: p.as_str() }).collect();
            Layout::build_unified(guards[0], &forks, query)
        } else {
            Layout::build(guards[0], query)
        });
        let mut cache = self.layouts.lock().unwrap();
        cache.retain(|(k, _)| k.query != key.query);
        cache.insert(0, (key, layout.clone()));
        cache.truncate(LAYOUTS_KEPT);
        layout
    }

    /// Meta and rows `start..start + count` of the tree graph.
    pub fn tree_page(&self, query: &TreeQuery, start: usize, count: usize) -> Result<TreePage, Error> {
        let (arcs, points) = self.layout_sessions(query)?;
        let guards: Vec<_> = arcs.iter().map(|a| a.read().unwrap()).collect();
        let refs: Vec<&Session> = guards.iter().map(|g| &**g).collect();
        let layout = self.layout(query, &refs, &points);
        let mut page = layout.tree_page(&refs, start as u32, count.min(2000) as u32);
        page.meta.live = self.is_live(&refs[0].index.path);
        self.mark_fork_points(&refs, &mut page.rows);
        Ok(page)
    }

    /// Counts, on each row, the sessions forked from that entry (of that row's session file).
    fn mark_fork_points(&self, sessions: &[&Session], rows: &mut [TreeRow]) {
        let snap = self.recent_snapshot();
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let files: Vec<PathBuf> = sessions.iter().map(|s| canon(&s.index.path)).collect();
        let mut points: HashMap<(usize, &str), u32> = HashMap::new();
        for f in snap.forks.iter().filter(|f| f.status == ForkStatus::Ok) {
            let (Some(pp), Some(fp)) = (&f.parent_path, &f.fork_point_id) else { continue };
            let pp = canon(pp);
            if let Some(k) = files.iter().position(|x| *x == pp) {
                *points.entry((k, fp.as_str())).or_insert(0) += 1;
            }
        }
        if points.is_empty() {
            return;
        }
        for r in rows.iter_mut() {
            r.forks = points.get(&(r.session as usize, r.id.as_str())).copied();
        }
    }

    /// The row of an entry, opening folds or collapsed subtrees that hide it.
    pub fn locate_row(&self, query: &TreeQuery, id: &str) -> Result<LocateResult, Error> {
        let (arcs, points) = self.layout_sessions(query)?;
        let guards: Vec<_> = arcs.iter().map(|a| a.read().unwrap()).collect();
        let refs: Vec<&Session> = guards.iter().map(|g| &**g).collect();
        let layout = self.layout(query, &refs, &points);
        Ok(layout.locate(&refs, id))
    }

    // ------------------------------------------------------------------ inspector

    pub fn entry_detail(&self, path: &str, id: &str) -> Result<EntryDetail, Error> {
        let s = self.session(path)?;
        let s = s.read().unwrap();
        let i = s.node(id)?;
        let e = &s.index.entries[i as usize];
        let mut reader = BodyReader::open(&s.index)?;
        let raw = line_value(&reader.line(i)?);
        let path_nodes = s.tree.path_to(i);
        let (mut path_tokens, mut path_cost) = (0.0, 0.0);
        for &p in &path_nodes {
            if let Some(u) = s.index.entries[p as usize].usage() {
                path_tokens += u.total_tokens;
                path_cost += u.cost;
            }
        }
        let plan = ContextPlan::build(&s.index, &s.tree, Leaf::Entry(i));
        let on_path: std::collections::HashSet<u32> = s.tree.active_path().into_iter().collect();
        Ok(EntryDetail {
            path: s.index.path.to_string_lossy().into_owned(),
            id: id.to_string(),
            parent_id: e.parent.id().map(|p| p.to_string()),
            line: e.line,
            kind: e.kind.as_str().to_string(),
            role: e.role().and_then(|r| r.as_str()).map(str::to_string),
            timestamp: (!e.ts.is_nan()).then_some(e.ts),
            label: s.tree.labels.get(id).map(|l| l.text.clone()),
            on_path: on_path.contains(&i),
            is_leaf: s.tree.leaf == Leaf::Entry(i),
            depth: s.tree.depth[i as usize],
            child_ids: s.tree.children[i as usize].iter().map(|&c| s.id_of(c).to_string()).collect(),
            raw,
            usage: e.usage().copied(),
            path_tokens,
            path_cost,
            model: plan.model,
            thinking_level: plan.thinking_level,
            diagnostics: s.diagnostics().into_iter().filter(|d| d.line == Some(e.line)).collect(),
            can_fork_before: e.is_user() && s.index.read_only().is_none(),
        })
    }

    // ------------------------------------------------------------------ context

    fn plan(&self, s: &Session, leaf: Option<&str>) -> Result<ContextPlan, Error> {
        let leaf = match leaf {
            None => Leaf::Null,
            Some(id) => Leaf::Entry(s.node(id)?),
        };
        Ok(ContextPlan::build(&s.index, &s.tree, leaf))
    }

    pub fn context_view(&self, path: &str, leaf: Option<&str>) -> Result<ContextView, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let plan = self.plan(&s, leaf)?;
        let mut reader = BodyReader::open(&s.index)?;
        let messages = context_messages(&s, &plan, &mut reader, 0, CONTEXT_PAGE)?;
        let token_estimate = token_estimate(&s, &plan, &mut reader)?;
        let compaction = match plan.compaction {
            Some(c) => Some(self.audit(&s, &plan, c, &mut reader)?),
            None => None,
        };
        Ok(ContextView {
            path: s.index.path.to_string_lossy().into_owned(),
            leaf_id: leaf.map(str::to_string),
            model: plan.model.clone(),
            thinking_level: plan.thinking_level.clone(),
            token_estimate,
            total_messages: plan.items.len() as u32,
            messages,
            compaction,
            hidden_total: plan.hidden.len() as u32,
            hidden: hidden_entries(&s, &plan, &mut reader, 0, CONTEXT_PAGE)?,
        })
    }

    pub fn context_page(&self, path: &str, leaf: Option<&str>, start: usize, count: usize) -> Result<Vec<ContextMessage>, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let plan = self.plan(&s, leaf)?;
        let mut reader = BodyReader::open(&s.index)?;
        context_messages(&s, &plan, &mut reader, start, count.min(2000))
    }

    pub fn hidden_page(&self, path: &str, leaf: Option<&str>, start: usize, count: usize) -> Result<Vec<HiddenEntry>, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let plan = self.plan(&s, leaf)?;
        let mut reader = BodyReader::open(&s.index)?;
        hidden_entries(&s, &plan, &mut reader, start, count.min(2000))
    }

    fn audit(&self, s: &Session, plan: &ContextPlan, c: u32, reader: &mut BodyReader<'_>) -> Result<CompactionAudit, Error> {
        let e = &s.index.entries[c as usize];
        let v = line_value(&reader.line(c)?);
        let first_kept = match &e.detail {
            Detail::Compaction { first_kept, .. } => first_kept.as_ref().map(|k| k.to_string()),
            _ => None,
        };
        // The first kept message: a tool result whose call was hidden breaks the pairing.
        let kept_first = plan.items.iter().skip(1).find(|it| {
            let p = plan.path.iter().position(|&x| x == it.entry);
            let cpos = plan.path.iter().position(|&x| x == c);
            matches!((p, cpos), (Some(p), Some(cp)) if p < cp)
        });
        let orphan = kept_first.is_some_and(|it| s.index.entries[it.entry as usize].role() == Some(&Role::ToolResult));
        let copied_from_parent = s
            .index
            .header
            .as_ref()
            .and_then(|h| h.parent_session.as_deref())
            .map(|ps| crate::forks::resolve_parent(ps, s.index.header.as_ref().and_then(|h| h.cwd.as_deref()), &self.root).0)
            .and_then(|pp| std::fs::canonicalize(pp).ok())
            .and_then(|real| self.session_at(&real).ok())
            .is_some_and(|ps| ps.read().unwrap().index.by_id.contains_key(e.id_str()));
        let earlier = plan
            .path
            .iter()
            .filter(|&&x| x != c && s.index.entries[x as usize].kind == Kind::Compaction)
            .map(|&x| s.id_of(x).to_string())
            .collect();
        Ok(CompactionAudit {
            id: e.id_str().to_string(),
            line: e.line,
            summary: v.get("summary").and_then(Value::as_str).unwrap_or("").to_string(),
            tokens_before: v.get("tokensBefore").and_then(Value::as_f64),
            first_kept_entry_id: first_kept,
            first_kept_dangling: plan.first_kept_dangling,
            kept_starts_with_orphan_tool_result: orphan,
            copied_from_parent,
            earlier,
        })
    }

    // ------------------------------------------------------------------ writes

    fn after_write(&self, real: &Path) {
        if let Ok(m) = std::fs::metadata(real) {
            self.own_writes.lock().unwrap().insert(real.to_path_buf(), m.len());
        }
        // Pick up our line now, so the next read does not count it as someone else's.
        let _ = self.session_at(real);
    }

    pub fn navigate(&self, path: &str, id: Option<&str>) -> Result<WriteResult, Error> {
        let real = self.resolve(path)?;
        let live = self.is_live(&real);
        let a = write::navigate(&real, id, &self.write_opts())?;
        self.after_write(&real);
        Ok(write_result(a, live))
    }

    pub fn set_label(&self, path: &str, id: &str, label: Option<&str>) -> Result<WriteResult, Error> {
        let real = self.resolve(path)?;
        let live = self.is_live(&real);
        let a = write::set_label(&real, id, label, &self.write_opts())?;
        self.after_write(&real);
        Ok(write_result(a, live))
    }

    pub fn fork(&self, path: &str, id: &str, position: ForkPosition) -> Result<ForkResult, Error> {
        let real = self.resolve(path)?;
        let target = match position {
            ForkPosition::At => Some(id.to_string()),
            ForkPosition::Before => {
                let arc = self.session_at(&real)?;
                let s = arc.read().unwrap();
                let i = s.node(id)?;
                match s.tree.parent[i as usize] {
                    NONE => None,
                    p => Some(s.id_of(p).to_string()),
                }
            }
        };
        let f = write::fork(&real, target.as_deref(), &self.write_opts())?;
        self.lister.state.lock().unwrap().invalidate();
        Ok(ForkResult { file: f.file.to_string_lossy().into_owned(), leaf_id: f.leaf_id })
    }

    // ------------------------------------------------------------------ search

    /// Entries of one session whose text, label or tool name contains `text` (case-insensitive).
    pub fn find_in_session(&self, path: &str, text: &str) -> Result<FindResult, Error> {
        const CAP: usize = 10_000;
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let needle = text.to_lowercase();
        if needle.trim().is_empty() {
            return Ok(FindResult { ids: vec![], truncated: false });
        }
        let mut ids = Vec::new();
        let mut truncated = false;
        let bytes = std::fs::read(&s.index.path).map_err(|e| Error::io(&s.index.path, e))?;
        for (i, e) in s.index.entries.iter().enumerate() {
            if !s.tree.in_tree[i] {
                continue;
            }
            let label_hit = e.id.as_ref().and_then(|id| s.tree.labels.get(id)).is_some_and(|l| l.text.to_lowercase().contains(&needle));
            let hit = label_hit || {
                let line = bytes.get(e.offset as usize..(e.offset + e.len as u64) as usize).unwrap_or_default();
                entry_matches(e, line, &needle)
            };
            if hit {
                if ids.len() == CAP {
                    truncated = true;
                    break;
                }
                ids.push(e.id_str().to_string());
            }
        }
        Ok(FindResult { ids, truncated })
    }

    /// Message text, labels and session names across all sessions.
    pub fn search(&self, query: &str, limit: usize) -> SearchResult {
        use rayon::prelude::*;
        let snap = self.recent_snapshot();
        let l = &snap.listing;
        let needle = query.to_lowercase();
        if needle.trim().is_empty() {
            return SearchResult { query: query.into(), hits: vec![], truncated: false, files_searched: 0 };
        }
        let limit = limit.clamp(1, 1000);
        let mut per_file: Vec<(usize, Vec<SearchHit>)> = l
            .sessions
            .par_iter()
            .enumerate()
            .map(|(k, sum)| (k, search_file(sum, &needle, limit)))
            .collect();
        per_file.sort_by_key(|(k, _)| std::cmp::Reverse(l.sessions[*k].modified.map(|m| m as i64).unwrap_or(0)));
        let mut hits = Vec::new();
        let mut truncated = false;
        for (_, h) in per_file {
            for hit in h {
                if hits.len() >= limit {
                    truncated = true;
                    break;
                }
                hits.push(hit);
            }
        }
        SearchResult { query: query.into(), hits, truncated, files_searched: l.sessions.len() as u32 }
    }

    // ------------------------------------------------------------------ transcript

    /// The active path in the default filter (no bookkeeping, model or thinking changes).
    fn transcript_nodes(s: &Session) -> Vec<u32> {
        s.tree.active_path().into_iter().filter(|&i| in_transcript(&s.index.entries[i as usize].kind)).collect()
    }

    pub fn transcript_page(&self, path: &str, start: usize, count: usize) -> Result<TranscriptPage, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let nodes = Self::transcript_nodes(&s);
        let mut reader = BodyReader::open(&s.index)?;
        let end = (start + count.min(1000)).min(nodes.len());
        let mut items = Vec::with_capacity(end.saturating_sub(start));
        for (k, &i) in nodes.iter().enumerate().take(end).skip(start) {
            let e = &s.index.entries[i as usize];
            items.push(TranscriptItem {
                index: k as u32,
                id: e.id_str().to_string(),
                line: e.line,
                kind: e.kind.as_str().to_string(),
                role: e.role().and_then(|r| r.as_str()).map(str::to_string),
                ts: (!e.ts.is_nan()).then_some(e.ts),
                label: s.tree.labels.get(e.id_str()).map(|l| l.text.clone()),
                raw: line_value(&reader.line(i)?),
                siblings: siblings(&s, i),
            });
        }
        Ok(TranscriptPage {
            path: s.index.path.to_string_lossy().into_owned(),
            leaf_id: s.leaf_id().map(str::to_string),
            total: nodes.len() as u32,
            start: start as u32,
            items,
        })
    }

    /// Steps to sibling `to`: the view moves to the newest entry (in file order) of its
    /// subtree, persisted as one `leaf` line unless read-only.
    pub fn switch_branch(&self, path: &str, to: &str) -> Result<SwitchResult, Error> {
        let real = self.resolve(path)?;
        let target = {
            let arc = self.session_at(&real)?;
            let s = arc.read().unwrap();
            let i = s.node(to)?;
            newest_in_subtree(&s, i)
        };
        if self.is_read_only() {
            return Ok(SwitchResult {
                leaf_id: Some(target),
                write: None,
                note: Some("read-only mode: the view moved; the file was not changed, so pi still resumes where it was".into()),
            });
        }
        let w = self.navigate(path, Some(&target))?;
        Ok(SwitchResult { leaf_id: Some(target), write: Some(w), note: None })
    }

    /// The active path (or the given entries) as Markdown.
    pub fn transcript_markdown(&self, path: &str, ids: Option<&[String]>) -> Result<String, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let nodes: Vec<u32> = match ids {
            Some(ids) => ids.iter().filter_map(|id| s.node(id).ok()).collect(),
            None => Self::transcript_nodes(&s),
        };
        let mut reader = BodyReader::open(&s.index)?;
        let mut out = String::new();
        if let Some(n) = &s.tree.name {
            out.push_str(&format!("# {n}\n\n"));
        }
        for i in nodes {
            let e = &s.index.entries[i as usize];
            let v = line_value(&reader.line(i)?);
            crate::markdown::entry_markdown(e, &v, &mut out);
        }
        Ok(out)
    }
}

fn in_transcript(k: &Kind) -> bool {
    matches!(k, Kind::Message | Kind::CustomMessage | Kind::Compaction | Kind::BranchSummary)
}

/// Visible (default filter) siblings of a transcript entry: bookkeeping lines are transparent.
fn siblings(s: &Session, i: u32) -> Option<Siblings> {
    let e = &s.index.entries[i as usize];
    if !matches!(e.role(), Some(Role::User) | Some(Role::Assistant)) {
        return None;
    }
    // The nearest visible ancestor.
    let mut vp = s.tree.parent[i as usize];
    while vp != NONE && s.index.entries[vp as usize].kind.is_bookkeeping() {
        vp = s.tree.parent[vp as usize];
    }
    let first: Vec<u32> = if vp == NONE { s.tree.roots.clone() } else { s.tree.children[vp as usize].clone() };
    // Expand bookkeeping children into their visible descendants, in order.
    let mut sibs = Vec::new();
    let mut stack: Vec<u32> = first.into_iter().rev().collect();
    while let Some(c) = stack.pop() {
        if s.index.entries[c as usize].kind.is_bookkeeping() {
            stack.extend(s.tree.children[c as usize].iter().rev());
        } else if in_transcript(&s.index.entries[c as usize].kind) {
            sibs.push(c);
        }
    }
    if sibs.len() < 2 {
        return None;
    }
    let k = sibs.iter().position(|&x| x == i)?;
    Some(Siblings {
        index: k as u32 + 1,
        count: sibs.len() as u32,
        prev_id: k.checked_sub(1).map(|p| s.id_of(sibs[p]).to_string()),
        next_id: sibs.get(k + 1).map(|&n| s.id_of(n).to_string()),
    })
}

/// The id of the entry of `i`'s subtree written last (largest line), not a bookkeeping line.
pub fn newest_in_subtree(s: &Session, i: u32) -> String {
    let mut best = i;
    let mut stack = vec![i];
    while let Some(n) = stack.pop() {
        if n > best && !s.index.entries[n as usize].kind.is_bookkeeping() {
            best = n;
        }
        stack.extend(s.tree.children[n as usize].iter().copied());
    }
    s.id_of(best).to_string()
}

fn write_result(a: write::Appended, live: bool) -> WriteResult {
    let warning = a.warning.or_else(|| {
        live.then(|| "another process is appending to this session right now; pi's next message continues from pi's own in-memory leaf".to_string())
    });
    WriteResult { file: a.file.to_string_lossy().into_owned(), line: a.line, warning }
}

fn status_str(s: ForkStatus) -> &'static str {
    match s {
        ForkStatus::Ok => "ok",
        ForkStatus::ParentMissing => "parent-missing",
        ForkStatus::Cycle => "cycle",
    }
}

pub fn title_of(s: &SessionSummary) -> String {
    s.name
        .clone()
        .filter(|n| !n.is_empty())
        .or_else(|| s.first_user_message.as_deref().filter(|m| !m.is_empty()).map(|m| crate::view::fold(m, 200)))
        .unwrap_or_else(|| s.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default())
}

fn session_row(s: &SessionSummary, f: &crate::forks::ForkInfo) -> SessionRow {
    let count = |sev| s.diagnostics.iter().filter(|d| d.severity == sev).count() as u32;
    SessionRow {
        path: s.path.to_string_lossy().into_owned(),
        id: s.id.clone(),
        cwd: s.cwd.clone(),
        title: title_of(s),
        name: s.name.clone(),
        created: s.timestamp.clone(),
        modified: s.modified,
        entry_count: s.entry_count as u32,
        message_count: s.message_count as u32,
        branch_points: s.branch_points as u32,
        tokens: s.tokens,
        cost: s.cost,
        size: s.size as f64,
        leaf_id: s.leaf_id.clone(),
        parent_path: f.parent_path.as_ref().map(|p| p.to_string_lossy().into_owned()),
        fork_point_id: f.fork_point_id.clone(),
        fork_status: status_str(f.status).into(),
        read_only: s.read_only.as_ref().map(|r| serde_json::to_value(r).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
    }
}

fn context_messages(s: &Session, plan: &ContextPlan, reader: &mut BodyReader<'_>, start: usize, count: usize) -> Result<Vec<ContextMessage>, Error> {
    let cpos = plan.compaction.and_then(|c| plan.path.iter().position(|&x| x == c));
    let pos_of: HashMap<u32, usize> = if cpos.is_some() { plan.path.iter().enumerate().map(|(k, &x)| (x, k)).collect() } else { HashMap::new() };
    let end = (start + count).min(plan.items.len());
    let mut out = Vec::new();
    for k in start..end {
        let it = plan.items[k];
        let e = &s.index.entries[it.entry as usize];
        let raw = crate::context::message_for_item(&s.index, reader, it)?;
        let message: Value = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
        let role = message.get("role").and_then(Value::as_str).unwrap_or("").to_string();
        let kept = match (cpos, it.kind) {
            (Some(cp), ItemKind::Message | ItemKind::CustomMessage | ItemKind::BranchSummary) => pos_of.get(&it.entry).is_some_and(|&p| p < cp),
            _ => false,
        };
        out.push(ContextMessage { index: k as u32, entry_id: e.id_str().to_string(), line: e.line, role, tokens: estimate_tokens(&message), message, kept });
    }
    Ok(out)
}

/// pi's estimate: the last usable assistant usage plus estimates of later messages (only the
/// bodies after that assistant are read).
fn token_estimate(s: &Session, plan: &ContextPlan, reader: &mut BodyReader<'_>) -> Result<f64, Error> {
    let last = plan.items.iter().rposition(|it| {
        it.kind == ItemKind::Message
            && matches!(&s.index.entries[it.entry as usize].detail,
                Detail::Message { role: Role::Assistant, meta: Some(m), .. }
                    if m.usage.is_some() && !matches!(m.stop_reason.as_deref(), Some("aborted") | Some("error")))
    });
    let from = last.unwrap_or(0);
    let mut msgs = Vec::new();
    for it in &plan.items[from..] {
        let raw = crate::context::message_for_item(&s.index, reader, *it)?;
        msgs.push(serde_json::from_str(raw.get()).unwrap_or(Value::Null));
    }
    Ok(crate::preview::estimate_context_tokens(&msgs))
}

fn hidden_entries(s: &Session, plan: &ContextPlan, reader: &mut BodyReader<'_>, start: usize, count: usize) -> Result<Vec<HiddenEntry>, Error> {
    let end = (start + count).min(plan.hidden.len());
    let mut out = Vec::new();
    for &i in plan.hidden.get(start..end).unwrap_or_default() {
        let e = &s.index.entries[i as usize];
        let text = reader.line(i)?;
        let p = preview(e, Some(&text));
        let tokens = if e.kind == Kind::Message { line_value(&text).get("message").map(estimate_tokens).unwrap_or(0.0) } else { 0.0 };
        out.push(HiddenEntry {
            id: e.id_str().to_string(),
            line: e.line,
            kind: e.kind.as_str().to_string(),
            role: e.role().and_then(|r| r.as_str()).map(str::to_string),
            preview: p.text,
            tokens,
        });
    }
    Ok(out)
}

/// Case-insensitive match of an entry's searchable text (message text, tool names and
/// arguments, summaries, names).
fn entry_matches(e: &crate::Entry, line: &[u8], needle: &str) -> bool {
    // Cheap prefilter on the raw bytes (ASCII case folding).
    if needle.is_ascii() {
        let lower: Vec<u8> = line.iter().map(|b| b.to_ascii_lowercase()).collect();
        if memchr::memmem::find(&lower, needle.as_bytes()).is_none() && !line.contains(&b'\\') {
            return false;
        }
    }
    let text = String::from_utf8_lossy(line);
    searchable_text(e, &text).to_lowercase().contains(needle)
}

fn searchable_text(e: &crate::Entry, line: &str) -> String {
    let v = line_value(line);
    match &e.kind {
        Kind::Message => {
            let m = v.get("message").unwrap_or(&Value::Null);
            let mut t = crate::view::content_text(m.get("content").unwrap_or(&Value::Null));
            if let Some(a) = m.get("content").and_then(Value::as_array) {
                for b in a {
                    match b.get("type").and_then(Value::as_str) {
                        Some("toolCall") => {
                            t.push(' ');
                            t.push_str(b.get("name").and_then(Value::as_str).unwrap_or(""));
                            t.push(' ');
                            t.push_str(&b.get("arguments").map(|a| a.to_string()).unwrap_or_default());
                        }
                        Some("thinking") => {
                            t.push(' ');
                            t.push_str(b.get("thinking").and_then(Value::as_str).unwrap_or(""));
                        }
                        _ => {}
                    }
                }
            }
            for k in ["command", "output", "toolName", "errorMessage"] {
                if let Some(x) = m.get(k).and_then(Value::as_str) {
                    t.push(' ');
                    t.push_str(x);
                }
            }
            t
        }
        Kind::Compaction | Kind::BranchSummary => v.get("summary").and_then(Value::as_str).unwrap_or("").to_string(),
        Kind::CustomMessage => crate::view::content_text(v.get("content").unwrap_or(&Value::Null)),
        Kind::SessionInfo => v.get("name").and_then(Value::as_str).unwrap_or("").to_string(),
        Kind::Label => v.get("label").and_then(Value::as_str).unwrap_or("").to_string(),
        Kind::ModelChange => format!("{} {}", v.get("provider").and_then(Value::as_str).unwrap_or(""), v.get("modelId").and_then(Value::as_str).unwrap_or("")),
        _ => String::new(),
    }
}

fn search_file(sum: &SessionSummary, needle: &str, limit: usize) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    let title = title_of(sum);
    if let Some(n) = &sum.name {
        if let Some(h) = snippet(n, needle) {
            hits.push(SearchHit { path: sum.path.to_string_lossy().into_owned(), session_title: title.clone(), id: None, line: 1, field: "name".into(), role: None, snippet: h.0, match_start: h.1, match_len: h.2 });
        }
    }
    let Ok(s) = Session::open(&sum.path) else { return hits };
    let Ok(bytes) = std::fs::read(&s.index.path) else { return hits };
    for (tid, l) in &s.tree.labels {
        if let Some(h) = snippet(&l.text, needle) {
            hits.push(SearchHit {
                path: sum.path.to_string_lossy().into_owned(),
                session_title: title.clone(),
                id: Some(tid.to_string()),
                line: s.index.entry(tid).map(|e| e.line).unwrap_or(l.line),
                field: "label".into(),
                role: None,
                snippet: h.0,
                match_start: h.1,
                match_len: h.2,
            });
        }
    }
    for (i, e) in s.index.entries.iter().enumerate() {
        if hits.len() >= limit {
            break;
        }
        if !s.tree.in_tree[i] || e.kind.is_bookkeeping() {
            continue;
        }
        let line = bytes.get(e.offset as usize..(e.offset + e.len as u64) as usize).unwrap_or_default();
        if !entry_matches(e, line, needle) {
            continue;
        }
        let text = searchable_text(e, &String::from_utf8_lossy(line));
        if let Some(h) = snippet(&text, needle) {
            hits.push(SearchHit {
                path: sum.path.to_string_lossy().into_owned(),
                session_title: title.clone(),
                id: Some(e.id_str().to_string()),
                line: e.line,
                field: "message".into(),
                role: e.role().and_then(|r| r.as_str()).map(str::to_string).or_else(|| Some(e.kind.as_str().to_string())),
                snippet: h.0,
                match_start: h.1,
                match_len: h.2,
            });
        }
    }
    hits
}

/// Text around the first case-insensitive match: (snippet, start, len) in UTF-16 units.
fn snippet(text: &str, needle: &str) -> Option<(String, u32, u32)> {
    let chars: Vec<char> = text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
    let lower: Vec<char> = chars.iter().map(|c| c.to_lowercase().next().unwrap_or(*c)).collect();
    let nd: Vec<char> = needle.chars().collect();
    if nd.is_empty() || nd.len() > lower.len() {
        return None;
    }
    let pos = (0..=lower.len() - nd.len()).find(|&k| lower[k..k + nd.len()] == nd[..])?;
    let from = pos.saturating_sub(60);
    let to = (pos + nd.len() + 100).min(chars.len());
    let mut snip: String = chars[from..to].iter().collect();
    let mut start: usize = chars[from..pos].iter().map(|c| c.len_utf16()).sum();
    if from > 0 {
        snip.insert(0, '…');
        start += 1;
    }
    if to < chars.len() {
        snip.push('…');
    }
    let len: usize = chars[pos..pos + nd.len()].iter().map(|c| c.len_utf16()).sum();
    Some((snip, start as u32, len as u32))
}

//! The listing of a root behind the explorer: its cache, its last snapshot, background indexing.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pi_session::cache::ListCache;
use pi_session::listing::fork_graph_cached;
use pi_session::listing::{list_cached, CachedListing, Listing};
use pi_session::scan::{scan, scan_serial, Found};
use pi_session::forks::together::index_with_forks;

use crate::api::IndexProgress;

/// Receives indexing progress (the app forwards it to the UI).
pub type ProgressSink = Box<dyn Fn(IndexProgress) + Send + Sync>;

/// Files indexed in the request itself; more than this (or bigger) go to the background.
const SYNC_FILES: usize = 48;
const SYNC_BYTES: u64 = 48 * 1024 * 1024;

/// The listing as of one scan, with its fork links.
pub struct Snapshot {
    pub listing: Listing,
    pub forks: Vec<pi_session::forks::ForkInfo>,
    /// Children outside the root that listed sessions name (status `outside-roots`).
    pub outside: Vec<pi_session::forks::ForkInfo>,
    /// Sessions fully indexed (the rest show header-only summaries until indexing finishes).
    pub indexed: usize,
    pub total: usize,
    pub(super) at: Instant,
}

#[derive(Default)]
pub(super) struct ListState {
    pub(super) cache: Option<ListCache>,
    pub(super) last: Option<Arc<Snapshot>>,
    pub(super) indexing: bool,
    /// A watcher reports changes under the root: the last snapshot stays valid until it does.
    pub(super) watched: bool,
    /// Bumped by every change that makes a listing stale; a snapshot built across a bump is
    /// returned but not kept.
    pub(super) generation: u64,
}

impl ListState {
    pub(super) fn invalidate(&mut self) {
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

/// The listing of a root: its cache, its last snapshot, background indexing.
pub(super) struct Lister {
    pub(super) root: PathBuf,
    pub(super) state: Mutex<ListState>,
    /// Held while a listing is built, so concurrent callers share one scan.
    pub(super) building: Mutex<()>,
    pub(super) progress: Mutex<Option<ProgressSink>>,
}

impl Lister {
    pub(super) fn new(root: PathBuf) -> Lister {
        Lister { root, state: Mutex::new(ListState::default()), building: Mutex::new(()), progress: Mutex::new(None) }
    }

    /// The listing: unchanged files from the persistent cache, a few changed ones indexed now,
    /// many (a first start on a big root) in the background with progress reports, showing
    /// header-only summaries meanwhile.
    pub(super) fn snapshot(self: &Arc<Self>) -> Arc<Snapshot> {
        self.snapshot_on(true)
    }

    /// `parallel`: scan and load the cache on all cores; off while the window starts, when
    /// the cores are the web view's and the listing is not yet on the critical path.
    pub(super) fn snapshot_on(self: &Arc<Self>, parallel: bool) -> Arc<Snapshot> {
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
        let (found, loaded) = if parallel { rayon::join(|| scan(&self.root), load_cache) } else { (scan_serial(&self.root), load_cache()) };
        let total = found.files.len();
        let mut st = self.state.lock().unwrap();
        let indexing = st.indexing;
        let cache = st.cache.get_or_insert_with(|| loaded.unwrap_or_else(|| ListCache::load(&self.root)));
        let many = |m: &[Found]| m.len() > SYNC_FILES || m.iter().map(|m| m.size).sum::<u64>() > SYNC_BYTES;
        let CachedListing { listing, deferred } = list_cached(&self.root, found, cache, many);
        let lineage = fork_graph_cached(&self.root, &listing.sessions, cache);
        cache.save_if_changed();
        let indexed = total.saturating_sub(deferred.len());
        if !deferred.is_empty() && !indexing {
            st.indexing = true;
            self.index_in_background(deferred);
        }
        let snap = Arc::new(Snapshot { listing, forks: lineage.links, outside: lineage.outside, indexed, total, at: Instant::now() });
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
            // Forks are compared with their parents while both are open (the listing after it
            // would read them again).
            let index = || index_with_forks(&this.root, &misses, report);
            let (results, forks) = match &pool {
                Ok(pool) => pool.install(index),
                Err(_) => index(),
            };
            drop(pool);
            let n = results.len();
            let mut st = this.state.lock().unwrap();
            if let Some(cache) = st.cache.as_mut() {
                cache.store(&misses, results);
                cache.store_forks(forks);
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
pub(crate) fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority only reads its arguments; `0` is the calling thread.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}

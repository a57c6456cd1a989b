//! Fork points found while a parent and its children are open anyway: the listing's index pass
//! reads every new or changed file, and the lineage after it compared each fork with its parent
//! by reading both again (on a first listing of 10,000 files, 1,725 forks and 1,121 parents:
//! 1.41 GB read twice, a sixth of the listing's time).
//!
//! So the files to index are grouped by their headers' `parentSession` (read from the first
//! 4 KB of each): a parent and its forks, transitively, are indexed by one task, which compares
//! them while they are open and returns the points with the summaries. The points go to the
//! listing cache like the lineage's own; the lineage keeps one only while its parent path and
//! the parent's stamp are still what it resolves and finds, and compares again otherwise, so a
//! header read wrongly here costs a comparison, never a wrong point.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::cache::CachedFork;
use crate::scan::Found;
use crate::summary::{Indexed, SessionSummary};
use crate::Session;

/// A fork point found in the index pass: the child's path and what the cache keeps for it.
pub type PassFork = (PathBuf, CachedFork);

/// Summaries of `files` (in their order) as [`crate::summary::index_all`] makes them, and the
/// fork points of the children whose parent is among `files` too.
pub fn index_with_forks(root: &Path, files: &[Found], progress: impl Fn(usize, usize) + Sync) -> (Vec<Indexed>, Vec<PassFork>) {
    let total = files.len();
    let heads: Vec<SessionSummary> = files.par_iter().map(|f| head(&f.path, f.size)).collect();
    let (_, parents) = crate::forks::relink::fork_links(root, &heads);
    let at: HashMap<&Path, usize> = files.iter().enumerate().map(|(i, f)| (f.path.as_path(), i)).collect();
    // parent[i]: the index in `files` of the parent file i forks from, if it is one of them.
    let parent: Vec<Option<usize>> = parents.iter().enumerate().map(|(i, p)| p.as_deref().and_then(|p| at.get(p).copied()).filter(|&j| j != i)).collect();
    let groups = families(&parent, files);
    let cores = crate::summary::cores_per_file(files.iter().map(|f| f.size));
    let done = std::sync::atomic::AtomicUsize::new(0);
    let tick = || progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
    let out: Vec<(Vec<(usize, Indexed)>, Vec<PassFork>)> = groups
        .par_iter()
        .with_max_len(1)
        .map(|g| {
            let opened: Vec<(usize, Result<Session, crate::Error>)> = g
                .iter()
                .map(|&i| {
                    let r = Session::open_on(&files[i].path, cores(files[i].size));
                    tick();
                    (i, r)
                })
                .collect();
            let mut forks = Vec::new();
            if g.len() > 1 {
                let of: HashMap<usize, &Session> = opened.iter().filter_map(|(i, r)| r.as_ref().ok().map(|s| (*i, s))).collect();
                for (&j, p) in &of {
                    let kids: Vec<(usize, &Session)> = g.iter().filter(|&&i| parent[i] == Some(j)).filter_map(|&i| of.get(&i).map(|s| (i, *s))).collect();
                    if kids.is_empty() {
                        continue;
                    }
                    let refs: Vec<&Session> = kids.iter().map(|(_, s)| *s).collect();
                    for ((i, _), point) in kids.iter().zip(crate::forks::points(p, &refs)) {
                        forks.push((files[*i].path.clone(), CachedFork { parent: files[j].path.clone(), parent_stamp: files[j].stamp, point }));
                    }
                }
            }
            let indexed = opened.into_iter().map(|(i, r)| (i, (files[i].path.clone(), r.map(|s| SessionSummary::of(&s, files[i].size))))).collect();
            (indexed, forks)
        })
        .collect();
    let mut results: Vec<Option<Indexed>> = (0..total).map(|_| None).collect();
    let mut forks = Vec::new();
    for (indexed, f) in out {
        for (i, r) in indexed {
            results[i] = Some(r);
        }
        forks.extend(f);
    }
    (results.into_iter().map(|r| r.expect("every file is in one family")).collect(), forks)
}

/// The files grouped by fork links among them (a parent with its forks, transitively; most
/// files alone), biggest group first.
fn families(parent: &[Option<usize>], files: &[Found]) -> Vec<Vec<usize>> {
    let n = parent.len();
    let mut up: Vec<usize> = (0..n).collect();
    fn top(up: &mut [usize], mut i: usize) -> usize {
        while up[i] != i {
            up[i] = up[up[i]];
            i = up[i];
        }
        i
    }
    for (i, p) in parent.iter().enumerate() {
        if let Some(j) = *p {
            let (a, b) = (top(&mut up, i), top(&mut up, j));
            up[a] = b;
        }
    }
    let mut by_top: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..n {
        let t = top(&mut up, i);
        by_top.entry(t).or_default().push(i);
    }
    let mut groups: Vec<(u64, Vec<usize>)> = by_top.into_values().map(|g| (g.iter().map(|&i| files[i].size).sum(), g)).collect();
    groups.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    groups.into_iter().map(|(_, g)| g).collect()
}

/// What the lineage resolves a parent from, read from a file's first line (within 4 KB): its
/// session id, cwd and `parentSession`. Anything else (no header, a longer first line) reads
/// as a session naming no parent: its fork point is then found by the lineage as before.
fn head(path: &Path, size: u64) -> SessionSummary {
    #[derive(serde::Deserialize)]
    struct Header {
        #[serde(rename = "type")]
        kind: Option<String>,
        id: Option<String>,
        cwd: Option<String>,
        #[serde(rename = "parentSession")]
        parent_session: Option<String>,
    }
    let mut out = SessionSummary { path: path.to_path_buf(), size, ..Default::default() };
    let mut buf = Vec::with_capacity(4096);
    if std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut buf)).is_err() {
        return out;
    }
    let Some(end) = buf.iter().position(|&b| b == b'\n') else { return out };
    if let Ok(h) = serde_json::from_slice::<Header>(&buf[..end]) {
        if h.kind.as_deref() == Some("session") {
            (out.id, out.cwd, out.parent_session) = (h.id, h.cwd, h.parent_session);
        }
    }
    out
}

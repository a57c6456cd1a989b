//! Pages of the tree graph: layouts of one session or of a session and its forks, cached.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_session::{Error, Session};

use super::{Explorer, Shared};
use crate::api::*;
use crate::layout::{Fork, Layout};

/// Layouts kept (the UI pages through one at a time; a few cover tabs and filters).
const LAYOUTS_KEPT: usize = 6;

#[derive(Clone, PartialEq, Eq)]
pub(super) struct LayoutKey {
    query: TreeQuery,
    /// (file, bytes read) of every session in the layout.
    files: Vec<(PathBuf, u64)>,
}

impl Explorer {
    // ------------------------------------------------------------------ tree graph

    /// The sessions a layout of `query` draws: the opened one, then (unified view) its forks,
    /// recursively, each with its fork point.
    fn layout_sessions(&self, query: &TreeQuery) -> Result<(Vec<Shared>, Vec<String>), Error> {
        let real = self.resolve_view(&query.path)?;
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
                for f in forks.iter().filter(|f| f.status.linked()) {
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
        for f in snap.forks.iter().filter(|f| f.status.linked()) {
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
}

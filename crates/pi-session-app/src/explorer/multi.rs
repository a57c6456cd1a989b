//! Several roots in one explorer (see [`pi_session::roots`]): each root keeps its own lister and
//! cache; the listing and the fork graph merge them; paths resolve into the root holding them
//! and writes obey that root's read-only flag.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::listing::{fork_node, most_recent, outside_node, session_row};
use super::{Explorer, Lister};
use crate::api::*;
use pi_session::forks::Lineage;
use pi_session::roots::{self, MultiListing, RootSpec, Roots};
use pi_session::write::WriteOptions;
use crate::Error;

impl Explorer {
    /// An explorer over several roots; the first is [`Explorer::root`] (its folder is watched
    /// by the app, the others are scanned again on each listing).
    pub fn new_multi(roots: Roots, root_source: &str, read_only: bool) -> Result<Explorer, Error> {
        let specs = roots.specs();
        let first = specs.first().ok_or_else(|| Error::Invalid("no sessions root given".into()))?;
        let ex = Explorer::new(first.path.clone(), root_source, read_only);
        {
            let mut all = ex.roots.write().unwrap();
            all[0].0 = first.clone();
            for s in &specs[1..] {
                all.push((s.clone(), Arc::new(Lister::new(s.path.clone()))));
            }
        }
        Ok(ex)
    }

    /// The roots of this view.
    pub fn roots(&self) -> Roots {
        Roots::new(self.roots.read().unwrap().iter().map(|(s, _)| s.clone()).collect())
    }

    pub(super) fn is_multi(&self) -> bool {
        self.roots.read().unwrap().len() > 1
    }

    pub(super) fn root_infos(&self) -> Option<Vec<RootInfo>> {
        let all = self.roots.read().unwrap();
        (all.len() > 1).then(|| all.iter().map(|(s, _)| RootInfo { name: s.name.clone(), path: pi_session::pathstr::encode(&s.path), read_only: s.read_only }).collect())
    }

    /// Adds a root (a folder that exists; its name made unique). Returns the roots.
    pub fn add_root(&self, spec: RootSpec) -> Result<Roots, Error> {
        if !spec.path.is_dir() {
            return Err(Error::NotAFile(spec.path));
        }
        let mut all = self.roots.write().unwrap();
        let mut specs: Vec<RootSpec> = all.iter().map(|(s, _)| s.clone()).collect();
        specs.push(spec);
        let merged = Roots::new(specs);
        if let Some(added) = merged.specs().get(all.len()) {
            all.push((added.clone(), Arc::new(Lister::new(added.path.clone()))));
        }
        drop(all);
        Ok(self.roots())
    }

    /// Removes a root by name; the first root (the one the app started with) stays.
    pub fn remove_root(&self, name: &str) -> Result<Roots, Error> {
        let mut all = self.roots.write().unwrap();
        match all.iter().position(|(s, _)| s.name == name) {
            Some(0) => return Err(Error::Invalid(format!("{name} is the main root; it cannot be removed"))),
            Some(i) => {
                all.remove(i);
            }
            None => return Err(Error::Invalid(format!("no root named {name}"))),
        }
        drop(all);
        Ok(self.roots())
    }

    /// Marks a root read-only (or writable again).
    pub fn set_root_read_only(&self, name: &str, on: bool) -> Result<Roots, Error> {
        let mut all = self.roots.write().unwrap();
        let r = all.iter_mut().find(|(s, _)| s.name == name).ok_or_else(|| Error::Invalid(format!("no root named {name}")))?;
        r.0.read_only = on;
        drop(all);
        Ok(self.roots())
    }

    pub(super) fn other_roots_changed(&self) {
        for (_, l) in self.roots.read().unwrap().iter().skip(1) {
            l.state.lock().unwrap().invalidate();
        }
    }

    pub(super) fn resolve_multi(&self, path: &str) -> Result<PathBuf, Error> {
        Ok(self.roots().confine(&pi_session::pathstr::decode(path))?.0)
    }

    pub(super) fn write_opts_multi(&self, real: &Path) -> Result<WriteOptions, Error> {
        self.roots().write_opts(real, self.is_read_only())
    }

    /// The file confined (once) to the root holding it, and the options its writes go by.
    pub(super) fn write_target_multi(&self, path: &str) -> Result<(PathBuf, WriteOptions), Error> {
        let roots = self.roots();
        let (real, r) = roots.confine(&pi_session::pathstr::decode(path))?;
        Ok((real, WriteOptions { root: Some(r.path.clone()), read_only: self.is_read_only() || r.read_only, ..Default::default() }))
    }

    /// Every root's snapshot, merged, with fork links across roots.
    pub(super) fn merged(&self) -> (MultiListing, Lineage, usize, usize) {
        let all: Vec<(RootSpec, Arc<Lister>)> = self.roots.read().unwrap().clone();
        let (mut indexed, mut total) = (0, 0);
        let mut listings = Vec::new();
        let mut forks = Lineage::default();
        for (spec, lister) in all {
            let snap = lister.snapshot();
            indexed += snap.indexed;
            total += snap.total;
            listings.push((spec, snap.listing.clone()));
            forks.links.extend(snap.forks.iter().cloned());
            forks.outside.extend(snap.outside.iter().cloned());
        }
        let mut m = roots::merge_with(listings, &mut self.comparisons.lock().unwrap());
        let forks = roots::resolve_across(&mut m, forks);
        (m, forks, indexed, total)
    }

    /// The merged sessions' summaries (for search).
    pub(super) fn merged_summaries(&self) -> Vec<pi_session::summary::SessionSummary> {
        self.merged().0.sessions.into_iter().map(|s| s.summary).collect()
    }

    pub(super) fn list_sessions_multi(&self, limit: Option<usize>) -> SessionList {
        let (m, forks, indexed, total) = self.merged();
        let summaries: Vec<pi_session::summary::SessionSummary> = m.sessions.iter().map(|s| s.summary.clone()).collect();
        let (keep, limited) = most_recent(&summaries, &forks.links, limit);
        let sessions = keep
            .into_iter()
            .map(|i| {
                let s = &m.sessions[i];
                SessionRow {
                    root: Some(s.root.clone()),
                    diverged_at: s.diverged.as_ref().map(|d| d.offset as f64),
                    ..session_row(&s.summary, &forks.links[i])
                }
            })
            .collect();
        SessionList {
            root: pi_session::pathstr::encode(&self.root),
            sessions,
            other: m.other.iter().map(|o| super::listing::path_note(&o.path, &o.diagnostic)).collect(),
            indexed: indexed as u32,
            total: total as u32,
            limited,
        }
    }

    /// Session files hidden from the listing because another root holds a longer copy of
    /// the same bytes (a synced prefix copy); each with the file shown instead.
    pub fn shadowed_copies(&self) -> Vec<(PathBuf, PathBuf)> {
        if !self.is_multi() {
            return Vec::new();
        }
        self.merged().0.alias.into_iter().collect()
    }

    pub(super) fn fork_graph_multi(&self) -> ForkGraph {
        let (m, forks, _, _) = self.merged();
        let mut nodes: Vec<ForkNode> = m
            .sessions
            .iter()
            .zip(&forks.links)
            .map(|(rs, f)| fork_node(&rs.summary, f, Some(rs.root.clone())))
            .collect();
        nodes.extend(forks.outside.iter().map(outside_node));
        ForkGraph { nodes }
    }
}

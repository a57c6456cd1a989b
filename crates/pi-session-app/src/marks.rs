//! What the window keeps of its own beside the sessions: tags, pins and archive marks (the
//! organiser's database in its data folder), moving archived sessions' files out of their roots,
//! and the roots it adds (exports: [`crate::exports`]). Over HTTP there is no data folder: marks
//! read as none, and the commands that would change them are refused before they get here
//! (`window-only`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use pi_session_find::moves::{plan_archived, MoveBatch, MoveItem, MovePlan};
use pi_session_find::organise::{MarkFilter, MarkSelection, Marks, TagCount};

use crate::api::{ApiError, AppInfo};
use crate::explorer::Explorer;
use crate::service::{App, Host};

type R<T> = Result<T, ApiError>;

/// The listed sessions as (session id, file).
fn listed(ex: &Explorer) -> Vec<(Option<String>, PathBuf)> {
    ex.list_sessions(None).sessions.into_iter().map(|r| (r.id, pi_session::pathstr::decode(&r.path))).collect()
}

fn refuse_read_only(ex: &Explorer) -> R<()> {
    if ex.is_read_only() {
        return Err(ApiError::from(pi_session::Error::ReadOnlyMode));
    }
    Ok(())
}

impl App {
    /// Marks by session id (none without a data folder).
    pub(crate) fn marks(&self) -> R<BTreeMap<String, Marks>> {
        match self.host() {
            Host::Window => Ok(self.find().organiser()?.all()?),
            Host::Serve => Ok(BTreeMap::new()),
        }
    }

    pub(crate) fn tags(&self) -> R<Vec<TagCount>> {
        match self.host() {
            Host::Window => Ok(self.find().organiser()?.tags()?),
            Host::Serve => Ok(Vec::new()),
        }
    }

    /// Which sessions the list's filters keep; without marks, every session is unmarked.
    pub(crate) fn select(&self, filter: &MarkFilter) -> R<MarkSelection> {
        match self.host() {
            Host::Window => Ok(self.find().organiser()?.select(filter)?),
            Host::Serve => Ok(MarkSelection { ids: Vec::new(), unmarked: filter.keeps(None) }),
        }
    }

    pub(crate) fn plan_archive_move(&self) -> R<MovePlan> {
        if self.host() == Host::Serve {
            // No marks, so nothing to move.
            return Ok(MovePlan::default());
        }
        let ex = self.explorer();
        Ok(plan_archived(&*self.find().organiser()?, &listed(&ex), &ex.roots(), ex.is_read_only())?)
    }

    pub(crate) fn move_archived_files(&self, paths: &[String]) -> R<MoveBatch> {
        let ex = self.explorer();
        refuse_read_only(&ex)?;
        let org = self.find().organiser()?;
        let plan = plan_archived(&org, &listed(&ex), &ex.roots(), false)?;
        let items: Vec<MoveItem> = plan.items.into_iter().filter(|i| paths.contains(&i.from)).collect();
        let batch = org.move_files(&items)?;
        ex.root_changed();
        Ok(batch)
    }

    pub(crate) fn undo_move(&self, batch: i64) -> R<MoveBatch> {
        let ex = self.explorer();
        refuse_read_only(&ex)?;
        let b = self.find().organiser()?.undo_move(batch)?;
        ex.root_changed();
        Ok(b)
    }

    pub(crate) fn recent_moves(&self) -> R<Vec<MoveBatch>> {
        match self.host() {
            Host::Window => Ok(self.find().organiser()?.recent_moves(5)?),
            Host::Serve => Ok(Vec::new()),
        }
    }

    /// Adds a sessions root (`name` defaults to the folder's), remembers it, watches and
    /// indexes it.
    pub(crate) fn add_root(self: &Arc<Self>, path: &str, name: Option<String>, read_only: bool) -> R<AppInfo> {
        let mut spec = pi_session::roots::RootSpec::parse(path);
        if let Some(n) = name.filter(|n| !n.trim().is_empty()) {
            spec.name = n.trim().to_string();
        }
        spec.read_only = read_only;
        self.explorer().add_root(spec)?;
        self.roots_changed();
        Ok(self.explorer().app_info())
    }
}

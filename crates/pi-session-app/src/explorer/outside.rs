//! Children outside the roots (see [`pi_session::outside`]): listed in the fork graph with their
//! path; opened read-only on request, after which the read commands accept the path. No write
//! command does: writes stay confined to the roots.

use std::path::PathBuf;

use super::listing::session_row;
use super::{Cached, Explorer};
use crate::api::SessionRow;
use pi_session::forks::ForkInfo;
use pi_session::summary::SessionSummary;
use crate::Error;

impl Explorer {
    /// The children outside the roots that listed sessions name in a tool call or result.
    pub fn outside_children(&self) -> Vec<ForkInfo> {
        if self.is_multi() {
            return self.merged().1.outside;
        }
        self.recent_snapshot().outside.clone()
    }

    /// Opens a child outside the roots for viewing: only a file the lineage lists as such
    /// (`outside-roots`), read-only. Its row (figures of the file, its link) comes back; from
    /// then on the read commands (tree, transcript, entry, context) accept its path.
    pub fn open_outside(&self, path: &str) -> Result<SessionRow, Error> {
        let outside = self.outside_children();
        let (real, s) = pi_session::forks::outside::open_outside(&pi_session::pathstr::decode(path), &outside)?;
        let size = std::fs::metadata(&real).map(|m| m.len()).unwrap_or(0);
        let summary = SessionSummary::of(&s, size);
        let link = outside.iter().find(|f| std::fs::canonicalize(&f.path).is_ok_and(|p| p == real)).cloned().unwrap_or_else(|| ForkInfo::of(&summary));
        let mut link = link;
        link.own_tokens = summary.tokens;
        link.own_cost = summary.cost;
        let row = SessionRow { read_only: Some("outside-roots".into()), ..session_row(&summary, &link) };
        self.viewable.lock().unwrap().insert(real.clone());
        self.sessions.lock().unwrap().insert(real, Cached { session: std::sync::Arc::new(std::sync::RwLock::new(s)), external_append: None });
        Ok(row)
    }

    /// A path for reading: inside the roots ([`Explorer::resolve`]), or a child outside them
    /// that [`Explorer::open_outside`] opened.
    pub(super) fn resolve_view(&self, path: &str) -> Result<PathBuf, Error> {
        match self.resolve(path) {
            Err(e @ Error::OutsideRoot { .. }) => {
                let real = std::fs::canonicalize(pi_session::pathstr::decode(path)).map_err(|_| e)?;
                if self.viewable.lock().unwrap().contains(&real) {
                    Ok(real)
                } else {
                    Err(Error::OutsideRoot { path: pi_session::pathstr::decode(path), root: self.root.clone() })
                }
            }
            other => other,
        }
    }
}

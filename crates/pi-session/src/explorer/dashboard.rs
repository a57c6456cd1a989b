//! The cost and usage dashboard of the listed sessions (see [`crate::dashboard`]).

use super::Explorer;
use crate::dashboard::{dashboard_with, Dashboard, DashboardQuery};

impl Explorer {
    pub fn dashboard(&self, q: &DashboardQuery) -> Dashboard {
        if self.is_multi() {
            // Every root, a synced copy counted once (the sessions the list shows).
            let (m, lineage, _, _) = self.merged();
            let sessions: Vec<crate::summary::SessionSummary> = m.sessions.into_iter().map(|s| s.summary).collect();
            return dashboard_with(&sessions, Some(&lineage.links), q);
        }
        let snap = self.recent_snapshot();
        dashboard_with(&snap.listing.sessions, Some(&snap.forks), q)
    }
}

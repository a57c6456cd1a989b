//! The cost and usage dashboard of the listed sessions (see [`pi_session::dashboard`]).


use super::Explorer;
use pi_session::dashboard::{dashboard_with, Dashboard, DashboardQuery};

impl Explorer {
    pub fn dashboard(&self, q: &DashboardQuery) -> Dashboard {
        if self.is_multi() {
            // Every root, a synced copy counted once (the sessions the list shows).
            let (m, lineage, _, _) = self.merged();
            let sessions: Vec<pi_session::summary::SessionSummary> = m.sessions.into_iter().map(|s| s.summary).collect();
            return dashboard_with(&sessions, Some(&lineage.links), q);
        }
        let snap = self.recent_snapshot();
        dashboard_with(&snap.listing.sessions, Some(&snap.forks), q)
    }
}

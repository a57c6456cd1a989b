//! The cost and usage dashboard of the listed sessions (see [`pi_session::dashboard`]).

use pi_session::dashboard::{dashboard, Dashboard, DashboardQuery};

use super::Explorer;

impl Explorer {
    pub fn dashboard(&self, q: &DashboardQuery) -> Dashboard {
        if self.is_multi() {
            // Every root, a synced copy counted once (the sessions the list shows).
            return dashboard(&self.merged_summaries(), q);
        }
        dashboard(&self.recent_snapshot().listing.sessions, q)
    }
}

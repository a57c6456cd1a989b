//! The cost and usage dashboard of the listed sessions (see [`crate::dashboard`]).

use super::Explorer;
use crate::dashboard::{dashboard, Dashboard, DashboardQuery};

impl Explorer {
    pub fn dashboard(&self, q: &DashboardQuery) -> Dashboard {
        if self.is_multi() {
            // Every root, a synced copy counted once (the sessions the list shows).
            return dashboard(&self.merged_summaries(), q);
        }
        dashboard(&self.recent_snapshot().listing.sessions, q)
    }
}

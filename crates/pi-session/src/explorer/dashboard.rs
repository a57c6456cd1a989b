//! The cost and usage dashboard of the listed sessions (see [`crate::dashboard`]).

use super::Explorer;
use crate::dashboard::{dashboard, Dashboard, DashboardQuery};

impl Explorer {
    pub fn dashboard(&self, q: &DashboardQuery) -> Dashboard {
        dashboard(&self.recent_snapshot().listing.sessions, q)
    }
}

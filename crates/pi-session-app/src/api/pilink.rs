//! The shapes of the link with running pis (docs/pi-link.md).

use serde::Serialize;
#[cfg(feature = "ts")]
use ts_rs::TS;

pub use pi_session::pilink::{Follower, Moved, OfferAnswer};

use super::ApiError;

/// One running pi's answer to an offer: its decision, or why it could not be asked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct PiAnswer {
    pub pid: u32,
    pub pi_version: String,
    /// What the pi user decided (absent when the pi could not be asked).
    pub answer: Option<OfferAnswer>,
    /// Why the pi could not be asked (its socket gone, an answer outside the protocol).
    pub error: Option<ApiError>,
}

/// "Resume in pi": the terminal started, or the command to run when there is none.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(TS), ts(export))]
pub struct ResumeInPi {
    /// `cd CWD && pi --session FILE`, quoted for a shell.
    pub command: String,
    /// The terminal started (`$TERMINAL`, `x-terminal-emulator`, …); absent: none was found,
    /// and the UI copies `command` for the user.
    pub terminal: Option<String>,
    /// The session's cwd exists here (otherwise pi starts in the terminal's folder).
    pub in_cwd: bool,
}

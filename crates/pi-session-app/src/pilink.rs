//! The app's side of the link with running pis: who follows a session, offering them a move
//! made in the explorer, and a terminal running pi on a session. The protocol and the pi side
//! live in [`pi_session::pilink`] and `pi-extension/`.

use std::time::Duration;

use pi_session::pilink::{self, Offer, Wait};
use pi_session::terminal::{self, Resume};
use pi_session::Error;

use crate::api::{ApiError, Follower, PiAnswer, ResumeInPi};
use crate::service::App;

impl App {
    /// The running pis on the session at `path` (inside the roots).
    pub fn pi_followers(&self, path: &str) -> Result<Vec<Follower>, Error> {
        let real = self.explorer().resolve(path)?;
        Ok(pilink::followers(&real))
    }

    /// Offers the pis on `path` a move to its entry `entry_id`, or a switch to `fork_path` (a
    /// fork of it made in the explorer); waits for each user's answer (at most `decide_secs`,
    /// then as long as pi takes to move). Refused in read-only mode: the offer follows a write.
    pub fn offer_to_pi(&self, path: &str, entry_id: Option<&str>, fork_path: Option<&str>, decide_secs: Option<u32>) -> Result<Vec<PiAnswer>, Error> {
        let ex = self.explorer();
        if ex.is_read_only() {
            return Err(Error::ReadOnlyMode);
        }
        let real = ex.resolve(path)?;
        let what = match (entry_id, fork_path) {
            (Some(id), None) => Offer::navigate(&real, id)?,
            (None, Some(fork)) => Offer::switch(&ex.resolve(fork)?)?,
            _ => return Err(Error::Invalid("offer_to_pi: an entry id or a fork's path, one of the two".into())),
        };
        let wait = Wait { decide: Duration::from_secs(decide_secs.unwrap_or(60).clamp(1, 600).into()), ..Wait::default() };
        Ok(pilink::offer_each(pilink::followers(&real), &what, wait)
            .into_iter()
            .map(|(f, r)| match r {
                Ok(answer) => PiAnswer { pid: f.pid, pi_version: f.pi_version, answer: Some(answer), error: None },
                Err(e) => PiAnswer { pid: f.pid, pi_version: f.pi_version, answer: None, error: Some(ApiError::from(e)) },
            })
            .collect())
    }

    /// Opens a terminal running `pi --session FILE` in the session's cwd; without one, answers
    /// the command for the user to run.
    pub fn resume_in_pi(&self, path: &str) -> Result<ResumeInPi, Error> {
        let real = self.explorer().resolve(path)?;
        let r = Resume::of(&real)?;
        let terminal = match terminal::plan(&r) {
            Some(launch) => {
                launch.spawn()?;
                Some(launch.terminal)
            }
            None => None,
        };
        Ok(ResumeInPi { command: r.shell_line(), terminal, in_cwd: r.cwd.is_some() })
    }
}

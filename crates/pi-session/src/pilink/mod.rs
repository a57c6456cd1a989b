//! The explorer's side of the link with a running pi (the protocol: docs/pi-link.md).
//!
//! pi keeps its leaf in memory: a `leaf` line the explorer appends is ignored until pi reopens
//! the file. The `pi-session-explorer-link` extension (`pi-extension/`) makes a running pi
//! reachable: it listens on a Unix socket in a private folder ([`link_dir`], mode 0700) and
//! writes a discovery file `<pid>.json` beside it. Here we read those files ([`discover`]),
//! keep the pis that are alive and answer on their socket, pick the ones on a session
//! ([`followers`]), and offer them a move ([`offer`]): the pi user is asked, and on yes pi
//! moves there itself, through its own API.
//!
//! Nothing here writes to a session file. Unix only: elsewhere no pi is ever found.

mod wire;

#[cfg(all(test, unix))]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::Error;

pub use wire::PROTOCOL;

/// The folder of the sockets and discovery files: `$PI_SESSION_LINK_DIR`, else
/// `$XDG_RUNTIME_DIR/pi-session-explorer`, else `<temp>/pi-session-explorer-<uid>` (the
/// extension computes the same).
pub fn link_dir() -> PathBuf {
    link_dir_with(|k| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from).filter(|p| p.is_absolute()), std::env::temp_dir())
}

fn link_dir_with(env: impl Fn(&str) -> Option<PathBuf>, temp: PathBuf) -> PathBuf {
    if let Some(d) = env("PI_SESSION_LINK_DIR") {
        return d;
    }
    if let Some(r) = env("XDG_RUNTIME_DIR") {
        return r.join("pi-session-explorer");
    }
    temp.join(format!("pi-session-explorer-{}", uid()))
}

/// A running pi that follows a session: what its discovery file said, brought up to date by
/// its own answer on the socket.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Follower {
    pub pid: u32,
    pub pi_version: String,
    /// The session file pi is on (absolute).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub session_file: PathBuf,
    /// pi's leaf now (`None`: before the first entry).
    pub leaf_id: Option<String>,
    pub cwd: Option<String>,
    /// No agent run in progress.
    pub idle: bool,
    /// pi moves as soon as its user says yes. False for pi before 0.84.2, where an extension
    /// cannot reach a command context on its own: the user then presses Enter on a
    /// prefilled `/explore-offer` (docs/pi-link.md).
    pub moves_at_once: bool,
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub socket: PathBuf,
    #[serde(skip)]
    token: String,
}

/// What the explorer offers a pi.
#[derive(Debug, Clone, PartialEq)]
pub enum Offer {
    /// Move pi's leaf to an entry of the session it is on.
    Navigate { id: String, title: String },
    /// Switch pi to another session file (a fork made in the explorer).
    Switch { path: PathBuf, title: String },
}

/// How long [`offer`] waits: for the user's decision (pi's dialog closes itself at the same
/// time), then for pi to have moved (a branch summary calls the model).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Wait {
    pub decide: Duration,
    pub apply: Duration,
}

impl Default for Wait {
    fn default() -> Wait {
        Wait { decide: Duration::from_secs(60), apply: Duration::from_secs(120) }
    }
}

/// Where pi is after it moved.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Moved {
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub session_file: PathBuf,
    pub leaf_id: Option<String>,
}

/// The answer to an offer.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "answer", rename_all = "kebab-case")]
pub enum OfferAnswer {
    /// The user said yes (with a summary of the branch left, or without). `moved` is where pi
    /// is now, `None` when it had not moved yet when the wait ended (a summary still being
    /// written, or pi 0.73's Enter still to press).
    Accepted { summarize: bool, moved: Option<Moved> },
    /// The user said no (or dismissed the dialog).
    Declined,
    /// No decision within the wait (on either side).
    TimedOut,
    /// A newer offer to this pi replaced this one before the user answered.
    Superseded,
    /// The user said yes but pi could not move: busy compacting, no model for the summary, the
    /// entry or file gone, pi on another session by then. `message` is pi's.
    Failed { message: String },
}

/// Every running pi that answers in [`link_dir`].
pub fn discover() -> Vec<Follower> {
    discover_in(&link_dir())
}

/// The running pis whose session is `session` (compared after symlinks).
pub fn followers(session: &Path) -> Vec<Follower> {
    followers_in(&link_dir(), session)
}

/// [`followers`] in a given folder.
pub fn followers_in(dir: &Path, session: &Path) -> Vec<Follower> {
    let want = canonical(session);
    discover_in(dir).into_iter().filter(|f| canonical(&f.session_file) == want).collect()
}

/// [`discover`] in a given folder. A discovery file is ignored (never removed: it is pi's)
/// when it is not ours (owner, a symlink, too big, malformed, another protocol version, a
/// socket outside the folder), when its pid is gone, when its socket refuses, or when the pi
/// behind it does not answer the greeting within a second.
pub fn discover_in(dir: &Path) -> Vec<Follower> {
    if !private_dir(dir) {
        return Vec::new();
    }
    let Ok(read) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<Follower> = read
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| wire::Discovery::read(dir, &p))
        .filter(|d| pid_alive(d.pid))
        .filter_map(|d| wire::greet(&d, GREETING).ok())
        .collect();
    found.sort_by_key(|f| f.pid);
    found
}

/// Asks `to` to make the move: its user sees "The explorer moved to 'TITLE' (entry ID): go
/// there?" (or the switch question) and chooses. Errors: the socket (gone, refused) and
/// answers outside the protocol; everything the user or pi decided is an [`OfferAnswer`].
pub fn offer(to: &Follower, what: &Offer, wait: Wait) -> Result<OfferAnswer, Error> {
    wire::offer(to, what, wait)
}

/// Offers `what` to each of `pis` at once (one thread each: each user answers in their own
/// time); one answer per pi, in their order.
pub fn offer_each(pis: Vec<Follower>, what: &Offer, wait: Wait) -> Vec<(Follower, Result<OfferAnswer, Error>)> {
    std::thread::scope(|scope| {
        let asks: Vec<_> = pis.into_iter().map(|f| scope.spawn(move || { let r = offer(&f, what, wait); (f, r) })).collect();
        asks.into_iter().map(|h| h.join().expect("an offer thread panicked")).collect()
    })
}

impl Offer {
    /// A move to entry `id` of `file`, titled by what its branch is about ([`title_of`]).
    pub fn navigate(file: &Path, id: &str) -> Result<Offer, Error> {
        crate::write::validate_id(id)?;
        let s = crate::Session::open(file)?;
        Ok(Offer::Navigate { id: id.to_string(), title: title_of(&s, id)? })
    }

    /// A switch to the session file `new` (a fork), titled by what its leaf is about.
    pub fn switch(new: &Path) -> Result<Offer, Error> {
        let path = std::fs::canonicalize(new).map_err(|e| Error::io(new, e))?;
        let s = crate::Session::open(&path)?;
        let title = match s.effective_leaf() {
            Some(i) => title_of(&s, s.id_of(i))?,
            None => path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        };
        Ok(Offer::Switch { path, title })
    }
}

/// How long a pi has to answer the greeting.
const GREETING: Duration = Duration::from_secs(1);

/// The title shown for a navigate offer to `id`: the text of the nearest user message at or
/// above it (what the branch is about), else the entry's own preview; one line, at most 60
/// characters.
pub fn title_of(s: &crate::Session, id: &str) -> Result<String, Error> {
    let node = s.node(id)?;
    let mut body = crate::context::BodyReader::open(&s.index)?;
    let mut cur = node;
    loop {
        let e = &s.index.entries[cur as usize];
        if e.is_user() {
            let t = crate::text::first_text_of_line(&body.line(cur)?, 60);
            if !t.is_empty() {
                return Ok(t);
            }
        }
        let up = s.tree.parent[cur as usize];
        if up == crate::tree::NONE {
            break;
        }
        cur = up;
    }
    let e = &s.index.entries[node as usize];
    let line = body.line(node).ok();
    Ok(crate::text::fold(&crate::text::preview(e, line.as_deref()).text, 60))
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

#[cfg(unix)]
fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

#[cfg(not(unix))]
fn uid() -> u32 {
    0
}

/// The folder is a real folder (not a symlink) of this user that nobody else can enter.
#[cfg(unix)]
fn private_dir(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(dir) {
        Ok(m) => m.is_dir() && m.uid() == uid() && m.mode() & 0o077 == 0,
        Err(_) => false,
    }
}

#[cfg(not(unix))]
fn private_dir(_dir: &Path) -> bool {
    false
}

#[cfg(unix)]
fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists and may be signalled.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn pid_alive(_pid: u32) -> bool {
    false
}

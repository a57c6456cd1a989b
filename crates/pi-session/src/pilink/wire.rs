//! The discovery file and the socket's messages (docs/pi-link.md): newline-delimited JSON,
//! one greeting then at most one offer per connection, every message carrying `v`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};

use super::{Follower, Moved, Offer, OfferAnswer, Wait};
use crate::Error;

/// The protocol version this side speaks.
pub const PROTOCOL: u32 = 1;

/// A discovery file or a message bigger than this is refused.
const MAX_LINE: usize = 64 * 1024;

/// `<dir>/<pid>.json`, as the extension writes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Discovery {
    v: u32,
    pub pid: u32,
    socket: PathBuf,
    token: String,
}

impl Discovery {
    /// Reads and validates one discovery file; `None` when it is not one we trust.
    pub fn read(dir: &Path, file: &Path) -> Option<Discovery> {
        let meta = std::fs::symlink_metadata(file).ok()?;
        if !meta.is_file() || meta.len() > MAX_LINE as u64 || !owned(&meta) {
            return None;
        }
        let d: Discovery = serde_json::from_slice(&std::fs::read(file).ok()?).ok()?;
        let named = file.file_stem()?.to_str()?;
        let token_ok = d.token.len() == 64 && d.token.bytes().all(|b| b.is_ascii_hexdigit());
        let at_home = d.socket == dir.join(format!("{}.sock", d.pid));
        (d.v == PROTOCOL && named == d.pid.to_string() && token_ok && at_home).then_some(d)
    }
}

#[cfg(unix)]
fn owned(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == super::uid()
}

#[cfg(not(unix))]
fn owned(_meta: &std::fs::Metadata) -> bool {
    false
}

/// pi's answer to the greeting.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct State {
    pid: u32,
    pi_version: String,
    session_file: PathBuf,
    leaf_id: Option<String>,
    cwd: Option<String>,
    #[serde(default)]
    idle: bool,
    #[serde(default)]
    moves_at_once: bool,
}

/// Connects and greets: the follower as pi describes itself now.
pub(super) fn greet(d: &Discovery, within: Duration) -> Result<Follower, Error> {
    let mut conn = Conn::open(&d.socket)?;
    let f = conn.hello(&d.token, Instant::now() + within)?;
    if f.pid != d.pid {
        return Err(conn.bad(format!("answers for pid {} in the file of pid {}", f.pid, d.pid)));
    }
    Ok(f)
}

pub(super) fn offer(to: &Follower, what: &Offer, wait: Wait) -> Result<OfferAnswer, Error> {
    let mut conn = Conn::open(&to.socket)?;
    conn.hello(&to.token, Instant::now() + Duration::from_secs(2))?;
    let timeout_ms = wait.decide.as_millis().min(u32::MAX as u128) as u64;
    // The session the explorer saw pi on: a pi that has moved to another file since (a fork
    // keeps the ids it copied) refuses the offer rather than moving in the wrong file.
    let body = match what {
        Offer::Navigate { id, title } => json!({"kind": "navigate", "sessionFile": to.session_file, "entryId": id, "title": title}),
        Offer::Switch { path, title } => json!({"kind": "switch", "sessionFile": to.session_file, "target": path, "title": title}),
    };
    conn.send(&json!({"v": PROTOCOL, "type": "offer", "id": "1", "offer": body, "timeoutMs": timeout_ms}))?;
    // pi's dialog closes itself after `decide`; a little more here so its own answer wins.
    let mut deadline = Instant::now() + wait.decide + Duration::from_millis(500);
    let mut decided: Option<bool> = None;
    loop {
        let Some(msg) = conn.recv(deadline)? else {
            return Ok(match decided {
                None => OfferAnswer::TimedOut,
                Some(summarize) => OfferAnswer::Accepted { summarize, moved: None },
            });
        };
        match kind(&msg) {
            "decided" if decided.is_none() => {
                decided = Some(msg.get("summarize").and_then(Value::as_bool).unwrap_or(false));
                deadline = Instant::now() + wait.apply;
            }
            "answer" => return conn.answer(&msg),
            "error" => return Err(conn.bad(error_text(&msg))),
            other => return Err(conn.bad(format!("unexpected message {other:?} while waiting for the answer"))),
        }
    }
}

fn kind(msg: &Value) -> &str {
    msg.get("type").and_then(Value::as_str).unwrap_or("")
}

fn error_text(msg: &Value) -> String {
    let code = msg.get("code").and_then(Value::as_str).unwrap_or("error");
    let message = msg.get("message").and_then(Value::as_str).unwrap_or("");
    format!("{code}: {message}")
}

/// One connection to a pi's socket.
struct Conn {
    socket: PathBuf,
    #[cfg(unix)]
    reader: BufReader<std::os::unix::net::UnixStream>,
    buf: Vec<u8>,
}

impl Conn {
    #[cfg(unix)]
    fn open(socket: &Path) -> Result<Conn, Error> {
        let stream = std::os::unix::net::UnixStream::connect(socket).map_err(|e| Error::io(socket, e))?;
        Ok(Conn { socket: socket.to_path_buf(), reader: BufReader::new(stream), buf: Vec::new() })
    }

    #[cfg(not(unix))]
    fn open(socket: &Path) -> Result<Conn, Error> {
        Err(Error::PiLink { socket: socket.to_path_buf(), message: "the link needs Unix sockets".into() })
    }

    fn bad(&self, message: String) -> Error {
        Error::PiLink { socket: self.socket.clone(), message }
    }

    /// Sends the greeting with the token; pi answers with its state.
    fn hello(&mut self, token: &str, deadline: Instant) -> Result<Follower, Error> {
        let client = format!("pi-session {}", env!("CARGO_PKG_VERSION"));
        self.send(&json!({"v": PROTOCOL, "type": "hello", "token": token, "client": client}))?;
        let msg = self.recv(deadline)?.ok_or_else(|| self.bad("no answer to the greeting".into()))?;
        match kind(&msg) {
            "state" => {}
            "error" => return Err(self.bad(error_text(&msg))),
            other => return Err(self.bad(format!("unexpected message {other:?} instead of the state"))),
        }
        let s: State = serde_json::from_value(msg).map_err(|e| self.bad(format!("malformed state: {e}")))?;
        Ok(Follower {
            pid: s.pid,
            pi_version: s.pi_version,
            session_file: s.session_file,
            leaf_id: s.leaf_id,
            cwd: s.cwd,
            idle: s.idle,
            moves_at_once: s.moves_at_once,
            socket: self.socket.clone(),
            token: token.to_string(),
        })
    }

    #[cfg(unix)]
    fn send(&mut self, msg: &Value) -> Result<(), Error> {
        let mut line = serde_json::to_vec(msg).map_err(|e| self.bad(e.to_string()))?;
        line.push(b'\n');
        self.reader.get_mut().write_all(&line).map_err(|e| Error::io(&self.socket, e))
    }

    #[cfg(not(unix))]
    fn send(&mut self, _msg: &Value) -> Result<(), Error> {
        Err(self.bad("the link needs Unix sockets".into()))
    }

    /// The next message, `None` when the deadline passed first. A closed connection, a line
    /// over 64 KB, a message of another protocol version or not JSON is an error.
    #[cfg(unix)]
    fn recv(&mut self, deadline: Instant) -> Result<Option<Value>, Error> {
        loop {
            if let Some(end) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=end).collect();
                let msg: Value = serde_json::from_slice(&line).map_err(|e| self.bad(format!("not JSON: {e}")))?;
                let v = msg.get("v").and_then(Value::as_u64);
                if v != Some(PROTOCOL as u64) {
                    return Err(self.bad(format!("speaks protocol {} (this side: {PROTOCOL})", v.map_or("?".into(), |v| v.to_string()))));
                }
                return Ok(Some(msg));
            }
            if self.buf.len() > MAX_LINE {
                return Err(self.bad("a message over 64 KB".into()));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(None);
            }
            self.reader.get_ref().set_read_timeout(Some(left)).map_err(|e| Error::io(&self.socket, e))?;
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => return Ok(None),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io(&self.socket, e)),
            };
            if chunk.is_empty() {
                return Err(self.bad("closed the connection".into()));
            }
            let n = chunk.len();
            self.buf.extend_from_slice(chunk);
            self.reader.consume(n);
        }
    }

    #[cfg(not(unix))]
    fn recv(&mut self, _deadline: Instant) -> Result<Option<Value>, Error> {
        Err(self.bad("the link needs Unix sockets".into()))
    }

    fn answer(&self, msg: &Value) -> Result<OfferAnswer, Error> {
        let s = |k: &str| msg.get(k).and_then(Value::as_str).map(str::to_string);
        Ok(match s("answer").as_deref() {
            Some("accepted") => {
                let moved = s("sessionFile").map(|f| Moved { session_file: PathBuf::from(f), leaf_id: s("leafId") });
                OfferAnswer::Accepted { summarize: msg.get("summarize").and_then(Value::as_bool).unwrap_or(false), moved }
            }
            Some("declined") => OfferAnswer::Declined,
            Some("timeout") => OfferAnswer::TimedOut,
            Some("superseded") => OfferAnswer::Superseded,
            Some("failed") => OfferAnswer::Failed { message: s("message").unwrap_or_default() },
            other => return Err(self.bad(format!("unknown answer {other:?}"))),
        })
    }
}

//! Compare-and-append: one line appended to a session file that another process (pi) may be
//! appending to at the same moment (docs/design.md, "Writing").
//!
//! The line is computed from the file as it is when the line lands: the session is brought up
//! to date from our own descriptor (only the bytes appended since its last read), then, with
//! other writers held off ([`Lease`]) or, failing that, right before the write, the file's
//! size and last byte are checked again. A line another writer has begun and not ended is
//! waited for (never written into); one that keeps changing past `busy_wait` refuses the write
//! ([`Error::Busy`]); one that has stopped changing for `stable_for` is damage, and our line
//! follows it on a line of its own. After the single `write`, the descriptor's position tells
//! where our line landed: anything between our check and our line is reported, and a label
//! line whose parent it made stale is appended again after it.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Map, Value};

use super::lease::{Guard, Lease};
use super::{leaf_line, new_id, now_iso, read_only_message, target_node, Appended, WriteOptions};
use crate::session::{read_at, FileStamp};
use crate::tree::Leaf;
use crate::{Detail, Error, Kind, Refresh, Session};

/// How long we try for the lease while another descriptor has the file open, before relying
/// on the check alone (a writer that opens per line holds it for well under a millisecond).
const LEASE_PATIENCE: Duration = Duration::from_millis(50);
/// Between looks at a line another writer has begun.
const POLL: Duration = Duration::from_millis(2);
/// How many times a line of ours is appended again after another writer's bytes landed in
/// front of it (only without a lease; once is the rare case, twice rarer still).
const MAX_AGAIN: usize = 3;

/// The line a write appends, computed from the session as it is when the line lands.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Line<'a> {
    /// `{"type":"leaf","id":NEW,"parentId":X,"timestamp":NOW,"targetId":X}`.
    Leaf { target: Option<&'a str> },
    /// `{"type":"label","id":NEW,"parentId":LEAF,"timestamp":NOW,"targetId":X,"label":"t"}`.
    Label { target: &'a str, label: Option<&'a str> },
}

impl Line<'_> {
    /// The target is an entry of the file, off any parent cycle.
    fn validate(&self, s: &Session) -> Result<(), Error> {
        match self {
            Line::Leaf { target: None } => Ok(()),
            Line::Leaf { target: Some(t) } | Line::Label { target: t, .. } => target_node(s, t).map(|_| ()),
        }
    }

    /// The line for the session as it is now. `stale`: a label line of ours that another
    /// writer's lines landed in front of; the new line's parent is then the leaf as if that
    /// line were not there. Nothing is written (`None`) when that line needs no successor: it
    /// is no longer the file's last entry (lines after it decide the leaf), or what landed in
    /// front of it left the leaf where it was (a fragment, no entry).
    fn render(&self, s: &Session, stale: Option<&Rendered>) -> Option<Rendered> {
        let id = new_id(s);
        match *self {
            Line::Leaf { target } => Some(Rendered { text: leaf_line(&id, target, &now_iso()), id, parent: target.map(str::to_string) }),
            Line::Label { target, label } => {
                let parent = match stale {
                    None => match s.tree.leaf {
                        Leaf::Null => None,
                        Leaf::Entry(i) => Some(s.id_of(i).to_string()),
                    },
                    Some(ours) => {
                        let last = s.index.entries.iter().rposition(|e| e.id.is_some())?;
                        if s.index.entries[last].id.as_deref() != Some(ours.id.as_str()) {
                            return None;
                        }
                        Some(leaf_before(s, last)).filter(|p| *p != ours.parent)?
                    }
                };
                let mut obj = Map::new();
                obj.insert("type".into(), "label".into());
                obj.insert("id".into(), id.clone().into());
                obj.insert("parentId".into(), parent.clone().into());
                obj.insert("timestamp".into(), now_iso().into());
                obj.insert("targetId".into(), target.into());
                if let Some(l) = label.filter(|l| !l.is_empty()) {
                    obj.insert("label".into(), l.into());
                }
                Some(Rendered { text: Value::Object(obj).to_string(), id, parent })
            }
        }
    }
}

/// A line of ours, as rendered.
#[derive(Debug, Clone)]
struct Rendered {
    text: String,
    id: String,
    parent: Option<String>,
}

/// The leaf the entries before index `k` decide (pi's rule: the last line; a `leaf` line
/// gives its target).
fn leaf_before(s: &Session, k: usize) -> Option<String> {
    let e = s.index.entries[..k].iter().rev().find(|e| e.id.is_some())?;
    match &e.detail {
        Detail::Leaf { target, .. } => target.as_ref().filter(|t| s.index.by_id.contains_key(t.as_str())).map(|t| t.to_string()).or_else(|| e.parent.id().map(|p| p.to_string())),
        _ => e.id.as_deref().map(str::to_string),
    }
}

/// What another writer put between our check and our line (possible only without a lease).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Between {
    Nothing,
    /// Whole lines (this many).
    Lines(usize),
    /// Part of a line: ours was joined to it.
    Partial,
}

/// One line of ours, landed.
struct Landed {
    /// Where the line starts (after a leading `\n` written after a torn tail).
    offset: u64,
    line: Rendered,
    guard: Guard,
    between: Between,
    live: Option<String>,
}

/// Appends `line` to the session's file (docs/design.md, "Writing") and takes it into `s`.
pub(crate) fn append(s: &mut Session, opts: &WriteOptions, line: Line<'_>) -> Result<Appended, Error> {
    append_probed(s, opts, line, &mut || {})
}

/// [`append`], calling `probe` between the last check and each write (tests put another
/// writer's bytes there, as a writer the lease could not hold off would).
pub(crate) fn append_probed(s: &mut Session, opts: &WriteOptions, line: Line<'_>, probe: &mut dyn FnMut()) -> Result<Appended, Error> {
    if opts.read_only {
        return Err(Error::ReadOnlyMode);
    }
    writable(s)?;
    line.validate(s)?;
    let path = s.index.path.clone();
    let f = OpenOptions::new().read(true).append(true).open(&path).map_err(|e| Error::io(&path, e))?;
    let mut others = false;
    let mut last = land(s, &f, opts, line, None, &mut others, probe)?.expect("a line without a stale one of ours is always written");
    let mut superseded = Vec::new();
    let mut notes = Vec::new();
    const HELD: &str = "the file is open elsewhere, so it could not be held for the write";
    loop {
        // What landed in front of our line, and whether the line is written again.
        let stale = match (last.between, line) {
            (Between::Nothing, _) => break,
            (Between::Lines(n), Line::Leaf { .. }) => {
                notes.push(format!("another process appended {n} line(s) between our check and our leaf line ({HELD}); the leaf still moves where asked"));
                break;
            }
            (Between::Lines(n), Line::Label { .. }) => {
                notes.push(format!("another process appended {n} line(s) between our check and our label line ({HELD})"));
                Some(last.line.clone())
            }
            (Between::Partial, _) => {
                notes.push(format!("another process was in the middle of writing a line ({HELD}): ours landed inside it, leaving a damaged line that pi skips"));
                None
            }
        };
        if superseded.len() >= MAX_AGAIN {
            notes.push(format!("gave up after appending the line {} times; the last one may not follow the file's last entry", MAX_AGAIN + 1));
            break;
        }
        match land(s, &f, opts, line, stale.as_ref(), &mut others, probe)? {
            Some(next) => {
                notes.push(match stale {
                    Some(_) => "the label line was appended again after them, so pi's context keeps them".to_string(),
                    None => "ours was appended again".to_string(),
                });
                let before = std::mem::replace(&mut last, next);
                superseded.push((before.offset, before.line.text));
            }
            // The stale label line needs no successor: the leaf it follows did not move, or
            // lines appended after it decide the leaf.
            None => break,
        }
    }
    let warning = last.live.clone().into_iter().chain(notes).reduce(|a, b| format!("{a}; {b}"));
    Ok(Appended { file: path, line: last.line.text, offset: last.offset, warning, guard: last.guard, superseded, others_appended: others })
}

/// Lands one line: waits out a line another writer has begun, holds other writers off (or
/// checks right before the write), renders the line from the file as it is, writes it in one
/// `write`, releases, fsyncs, and takes it into `s`. `None`: `stale` no longer needs a
/// successor (nothing written).
fn land(s: &mut Session, f: &File, opts: &WriteOptions, line: Line<'_>, stale: Option<&Rendered>, others: &mut bool, probe: &mut dyn FnMut()) -> Result<Option<Landed>, Error> {
    let path = s.index.path.clone();
    let io = |e| Error::io(&path, e);
    let started = Instant::now();
    // A line another writer has begun: the file as we first saw it so, and when.
    let mut partial: Option<(FileStamp, Instant)> = None;
    loop {
        if started.elapsed() >= opts.busy_wait {
            return Err(Error::Busy { path: path.clone() });
        }
        // What others appended since the last read: only the new bytes, read before taking
        // the lease (pi's open waits while we hold it).
        let mut changed = catch_up(s, f, others)?;
        let lease = Lease::take(f, LEASE_PATIENCE);
        // Held: no other descriptor is open on the file and none can be opened until we
        // release it, so what we see now is what our line follows. Not held: this is the
        // check, and the window left is from here to the write.
        changed |= catch_up(s, f, others)?;
        if changed {
            writable(s)?;
            line.validate(s)?;
        }
        let meta = f.metadata().map_err(io)?;
        let len = meta.len();
        if s.index.read_len != len {
            // Something landed after that read (only possible without the lease): read it too.
            continue;
        }
        let open_tail = len > 0 && read_at(f, len - 1, 1).map_err(io)? != b"\n";
        if open_tail {
            let stamp = FileStamp::of(&meta);
            let now = Instant::now();
            let since = match partial {
                Some((seen, t)) if seen == stamp => t,
                _ => partial.insert((stamp, now)).1,
            };
            let age = meta.modified().ok().and_then(|m| SystemTime::now().duration_since(m).ok()).unwrap_or_default();
            if now.duration_since(since) < opts.stable_for && age < opts.stable_for {
                // Still being written, perhaps: never write into another writer's line.
                drop(lease);
                std::thread::sleep(POLL);
                continue;
            }
            // Unchanged for `stable_for`: damage, not a write in progress (the torn tail of a
            // crash). Our line goes on a line of its own after it; pi skips the fragment.
        }
        let Some(rendered) = line.render(s, stale) else { return Ok(None) };
        let text = &rendered.text;
        let live = live_warning(&meta, s);
        let mut buf = Vec::with_capacity(text.len() + 2);
        if open_tail {
            buf.push(b'\n');
        }
        buf.extend_from_slice(text.as_bytes());
        buf.push(b'\n');
        if lease.is_none() && f.metadata().map_err(io)?.len() != len {
            // Something landed while the line was rendered: look again.
            continue;
        }
        let guard = if lease.is_some() { Guard::Lease } else { Guard::Check };
        probe();
        let end = write_once(f, &buf).map_err(io)?;
        if let Some(l) = lease {
            l.release();
        }
        f.sync_data().map_err(io)?;
        let start = end - buf.len() as u64;
        let between = if start == len {
            Between::Nothing
        } else {
            let got = read_at(f, len, (start - len) as usize).map_err(io)?;
            *others = true;
            match got.last() {
                Some(b'\n') => Between::Lines(got.iter().filter(|&&b| b == b'\n').count()),
                _ => Between::Partial,
            }
        };
        // Our line into the session: from memory when it follows what was read, else read
        // (after a torn tail, with the fragment before it).
        let after = FileStamp::of(&f.metadata().map_err(io)?);
        *others |= after.len > end;
        if between != Between::Nothing || s.take_own(start, &buf, after).is_none() {
            catch_up(s, f, &mut false)?;
        }
        return Ok(Some(Landed { offset: end - text.len() as u64 - 1, line: rendered, guard, between, live }));
    }
}

/// Reads what was appended since the session's last read, through `f`. True when anything was.
fn catch_up(s: &mut Session, f: &File, others: &mut bool) -> Result<bool, Error> {
    let changed = s.refresh_open(f)? != Refresh::Unchanged;
    *others |= changed;
    Ok(changed)
}

/// One `write` of `buf` on the `O_APPEND` descriptor (a regular file takes a small write
/// whole; a short one is finished rather than left torn). Returns where our bytes end: the
/// descriptor's own position, which an `O_APPEND` write moves to the end of what it wrote (the
/// file's length may already include another writer's next line).
fn write_once(f: &File, buf: &[u8]) -> std::io::Result<u64> {
    let mut w = f;
    let written = w.write(buf)?;
    if written != buf.len() {
        w.write_all(&buf[written..])?;
    }
    #[cfg(unix)]
    {
        use std::io::Seek;
        w.stream_position()
    }
    #[cfg(not(unix))]
    {
        Ok(f.metadata()?.len())
    }
}

/// The file is one we write to: version 3 with a valid header.
fn writable(s: &Session) -> Result<(), Error> {
    match read_only_message(s) {
        Some(message) => Err(Error::ReadOnly { path: s.index.path.clone(), message }),
        None => Ok(()),
    }
}

/// pi appended to this file in the last seconds: its last line is one pi writes (not a `leaf`
/// or `label` line) and the file changed moments ago.
fn live_warning(meta: &std::fs::Metadata, s: &Session) -> Option<String> {
    let last = s.index.entries.last()?;
    if matches!(last.kind, Kind::Leaf | Kind::Label) {
        return None;
    }
    let age = SystemTime::now().duration_since(meta.modified().ok()?).ok()?;
    (age < Duration::from_secs(10)).then(|| {
        "another process appended to this session moments ago; if pi has it open, pi's next message continues from pi's own in-memory leaf".to_string()
    })
}

//! Writing, append-only (docs/design.md, "Writing"). No existing byte of any file is ever changed,
//! truncated or rewritten:
//!
//! * navigate and label append one complete JSON line with a single `write` on an `O_APPEND`
//!   descriptor, then fsync, computed from the file as it is when the line lands
//!   (compare-and-append, [`append`]): what another writer (pi) appended meanwhile is read
//!   first, a line it has begun is waited for, and on Linux a write lease holds other writers
//!   off from the check to the write ([`lease`]);
//! * a fork writes a new file: a hidden temporary file in the source's folder, fsynced, then
//!   linked into place under its final name (which never replaces an existing file), then the
//!   folder is fsynced. A crash leaves either no new session file or a complete one.

mod append;
mod lease;
#[cfg(test)]
mod tests;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use crate::session::read_at;
use crate::{Error, Session};
use append::Line;
pub use lease::Guard;

/// How writes are checked.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// When set, the file must resolve (after symlinks) inside this folder.
    pub root: Option<PathBuf>,
    /// Refuse every write.
    pub read_only: bool,
    /// A torn tail must be unchanged for this long before we write after it.
    pub stable_for: Duration,
    /// How long we wait for another writer to end a line it has begun before refusing
    /// ([`Error::Busy`]); longer than `stable_for`, so a tail that stops changing is seen as
    /// damage first.
    pub busy_wait: Duration,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { root: None, read_only: false, stable_for: Duration::from_secs(1), busy_wait: Duration::from_secs(2) }
    }
}

/// A line we appended.
#[derive(Debug, Clone, PartialEq)]
pub struct Appended {
    pub file: PathBuf,
    /// The JSON line (without the newline).
    pub line: String,
    /// Byte offset where the line starts.
    pub offset: u64,
    /// Another writer appended to the file within the last seconds, or between our check and
    /// our line.
    pub warning: Option<String>,
    /// How the line was guarded against other writers.
    pub guard: Guard,
    /// Lines of ours appended before `line` by this write, each made stale or damaged by another
    /// writer's bytes landing between our check and it (offset, line): empty unless the file
    /// could not be held for the write.
    pub superseded: Vec<(u64, String)>,
    /// Lines of other writers were read while appending (the file grew since the session's
    /// last read).
    pub others_appended: bool,
}

/// A session file we created by forking.
#[derive(Debug, Clone, PartialEq)]
pub struct Forked {
    pub file: PathBuf,
    pub leaf_id: Option<String>,
    /// Entry lines copied byte for byte.
    pub copied: usize,
}

/// Ids accepted as arguments: 1–128 characters, no control characters, no quotes.
pub fn validate_id(id: &str) -> Result<(), Error> {
    let ok = !id.is_empty() && id.chars().count() <= 128 && id.chars().all(|c| !c.is_control() && c != '"' && c != '\\');
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidId(id.to_string()))
    }
}

/// The file, resolved after symlinks, checked to lie inside the root: first the path as
/// written ([`lexically_inside`], before the file system is asked anything about it, so a path
/// outside the root is `outside-root` whether or not it exists), then the path resolved (a
/// symbolic link that leaves the root is `outside-root` too).
pub fn confine(path: &Path, root: Option<&Path>) -> Result<PathBuf, Error> {
    let outside = |root: &Path| Error::OutsideRoot { path: path.to_path_buf(), root: root.to_path_buf() };
    if let Some(root) = root.filter(|r| !lexically_inside(path, r)) {
        return Err(outside(root));
    }
    let real = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) => match root {
            // A missing file behind a link that leaves the root is outside too: nothing beyond
            // the root may be probed for existence.
            Some(r) if parent_leaves(path, r) => return Err(outside(r)),
            _ => return Err(Error::io(path, e)),
        },
    };
    if let Some(root) = root {
        let real_root = std::fs::canonicalize(root).map_err(|_| outside(root))?;
        if !real.starts_with(&real_root) {
            return Err(outside(root));
        }
    }
    let meta = std::fs::metadata(&real).map_err(|e| Error::io(path, e))?;
    if !meta.is_file() {
        return Err(Error::NotAFile(path.to_path_buf()));
    }
    Ok(real)
}

/// `path` made absolute (against the working folder) with `.` and `..` folded, without asking
/// the file system (a `..` never climbs above the root of the file system).
pub fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if out.parent().is_some() {
                    out.pop();
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// True when `path`, as written ([`lexical`]), lies inside `root` as given or as resolved
/// (the root may itself be a link: `~/.pi` → `/data/pi`). Only the root is looked up.
pub fn lexically_inside(path: &Path, root: &Path) -> bool {
    let p = lexical(path);
    p.starts_with(lexical(root)) || std::fs::canonicalize(root).is_ok_and(|r| p.starts_with(r))
}

/// True when the nearest folder of `path` that exists (as the system resolves it, links and
/// `..` included) lies outside `root`.
fn parent_leaves(path: &Path, root: &Path) -> bool {
    let Ok(real_root) = std::fs::canonicalize(root) else { return true };
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.ancestors().skip(1).find_map(|a| std::fs::canonicalize(a).ok()).is_none_or(|a| !a.starts_with(&real_root))
}

/// `NOW`: ISO-8601 UTC with milliseconds and `Z`.
pub fn now_iso() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// A fresh 8-hex id not used in the session.
pub fn new_id(s: &Session) -> String {
    loop {
        let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
        if !s.index.by_id.contains_key(id.as_str()) {
            return id;
        }
    }
}

/// Why a session cannot be written to, in words.
fn read_only_message(s: &Session) -> Option<String> {
    let reason = s.index.read_only()?;
    let v4 = s.index.header.as_ref().is_some_and(|h| h.v4);
    Some(match reason {
        _ if v4 => "a version 4 file of the newer pi harness; read-only".to_string(),
        crate::ReadOnlyReason::NoHeader => "the file has no valid session header".to_string(),
        crate::ReadOnlyReason::OldVersion => format!(
            "version {} files are read-only (pi rewrites them with new random ids when it opens them)",
            s.index.version()
        ),
        crate::ReadOnlyReason::FutureVersion => format!("version {} is newer than this reader; read-only", s.index.version()),
    })
}

pub(crate) fn target_node(s: &Session, id: &str) -> Result<u32, Error> {
    validate_id(id)?;
    let i = s.node(id)?;
    // pi follows `parentId` without a guard: a cycle on the path, or an entry naming itself as
    // its parent (a root in the tree, a loop for pi's path walk), would hang it on resume.
    let names_itself = |n: u32| {
        let e = &s.index.entries[n as usize];
        matches!((&e.parent, &e.id), (crate::Parent::Id(p), Some(me)) if p == me)
    };
    if s.tree.path_hits_cycle(i) || s.tree.path_to(i).into_iter().any(names_itself) {
        return Err(Error::InCycle { path: s.index.path.clone(), id: id.to_string() });
    }
    Ok(i)
}

/// `{"type":"leaf","id":ID,"parentId":X,"timestamp":NOW,"targetId":X}` (keys in this order).
pub fn leaf_line(id: &str, target: Option<&str>, now: &str) -> String {
    json!({
        "type": "leaf",
        "id": id,
        "parentId": target,
        "timestamp": now,
        "targetId": target,
    })
    .to_string()
}

/// Opens a session for an append: confined, then indexed once.
pub fn open_for_append(path: &Path, opts: &WriteOptions) -> Result<Session, Error> {
    if opts.read_only {
        return Err(Error::ReadOnlyMode);
    }
    let real = confine(path, opts.root.as_deref())?;
    let s = Session::open(&real)?;
    if let Some(message) = read_only_message(&s) {
        return Err(Error::ReadOnly { path: path.to_path_buf(), message });
    }
    Ok(s)
}

/// Moves the persisted leaf to `target` (`None`: before the first entry) by appending
/// `{"type":"leaf","id":NEW,"parentId":X,"timestamp":NOW,"targetId":X}`.
pub fn navigate(path: &Path, target: Option<&str>, opts: &WriteOptions) -> Result<Appended, Error> {
    navigate_in(&mut open_for_append(path, opts)?, target, opts)
}

/// [`navigate`] in a session already open (its file already confined): reads only what was
/// appended since its last read, and takes our line in.
pub fn navigate_in(s: &mut Session, target: Option<&str>, opts: &WriteOptions) -> Result<Appended, Error> {
    append::append(s, opts, Line::Leaf { target })
}

/// Sets (or, with `None` / `""`, clears) the label of `target`, as pi's `appendLabelChange`:
/// `{"type":"label","id":NEW,"parentId":LEAF,"timestamp":NOW,"targetId":X,"label":"t"}`.
pub fn set_label(path: &Path, target: &str, label: Option<&str>, opts: &WriteOptions) -> Result<Appended, Error> {
    set_label_in(&mut open_for_append(path, opts)?, target, label, opts)
}

/// [`set_label`] in a session already open (its file already confined).
pub fn set_label_in(s: &mut Session, target: &str, label: Option<&str>, opts: &WriteOptions) -> Result<Appended, Error> {
    append::append(s, opts, Line::Label { target, label })
}

/// The entry a fork of `id` copies up to: `id` itself, or with `before` its parent (`None`:
/// before the first entry, an empty fork), as pi's /fork offers for user messages.
pub fn fork_target(s: &Session, id: &str, before: bool) -> Result<Option<String>, Error> {
    if !before {
        return Ok(Some(id.to_string()));
    }
    let i = s.node(id)?;
    Ok(match s.tree.parent[i as usize] {
        crate::tree::NONE => None,
        p => Some(s.id_of(p).to_string()),
    })
}

/// Forks at `target` (`None`: an empty fork, before the first entry) into a new file in the
/// source's folder: a header, the root→target lines copied byte for byte, a label line for
/// each label in effect on the path whose label line is not on it, and a `leaf` line.
pub fn fork(path: &Path, target: Option<&str>, opts: &WriteOptions) -> Result<Forked, Error> {
    let (s, real) = open_source(path, opts, "fork")?;
    let node = match target {
        Some(t) => Some(target_node(&s, t)?),
        None => None,
    };
    let path_nodes = node.map(|n| s.tree.path_to(n)).unwrap_or_default();
    let mut new = NewSession::start(&s, &real);
    // The path, byte for byte.
    let mut f = File::open(&real).map_err(|e| Error::io(&real, e))?;
    for &i in &path_nodes {
        new.copy_line(&s, &mut f, i)?;
    }
    new.label_lines(&s, &path_nodes, target.map(str::to_string));
    new.leaf_line(target);
    let file = new.finish(&real)?;
    Ok(Forked { file, leaf_id: target.map(str::to_string), copied: path_nodes.len() })
}

/// Opens the source of a new file (a fork, a slim fork, a pruned copy): confined, writable
/// (version 3 with a valid header). `what` names the write in the refusal.
pub(crate) fn open_source(path: &Path, opts: &WriteOptions, what: &str) -> Result<(Session, PathBuf), Error> {
    if opts.read_only {
        return Err(Error::ReadOnlyMode);
    }
    let real = confine(path, opts.root.as_deref())?;
    let s = Session::open(&real)?;
    if let Some(why) = read_only_message(&s) {
        return Err(Error::ReadOnly { path: path.to_path_buf(), message: format!("cannot {what}: {why}") });
    }
    Ok((s, real))
}

/// A new session file being assembled in memory from a source: the header (with
/// `parentSession` → the source), copied lines, label lines, a `leaf` line.
pub(crate) struct NewSession {
    pub out: Vec<u8>,
    pub now: String,
    id: String,
    used: std::collections::HashSet<String>,
}

impl NewSession {
    /// A header like pi's `createBranchedSession`: version 3, a fresh uuid v7, the source's
    /// cwd, `parentSession` = the source's resolved path.
    pub fn start(s: &Session, real: &Path) -> NewSession {
        let header = s.index.header.as_ref().expect("a writable session has a header");
        let now = now_iso();
        let id = uuid::Uuid::now_v7().to_string();
        let mut out: Vec<u8> = Vec::new();
        let mut head = serde_json::Map::new();
        head.insert("type".into(), "session".into());
        head.insert("version".into(), 3.into());
        head.insert("id".into(), id.clone().into());
        head.insert("timestamp".into(), now.clone().into());
        if let Some(cwd) = &header.cwd {
            head.insert("cwd".into(), cwd.clone().into());
        }
        head.insert("parentSession".into(), real.to_string_lossy().into_owned().into());
        out.extend_from_slice(serde_json::Value::Object(head).to_string().as_bytes());
        out.push(b'\n');
        let used = s.index.by_id.keys().map(|k| k.to_string()).collect();
        NewSession { out, now, id, used }
    }

    /// Copies entry `i`'s line byte for byte.
    pub fn copy_line(&mut self, s: &Session, f: &mut File, i: u32) -> Result<(), Error> {
        let e = &s.index.entries[i as usize];
        let bytes = read_at(f, e.offset, e.len as usize).map_err(|err| Error::io(&s.index.path, err))?;
        self.out.extend_from_slice(&bytes);
        self.out.push(b'\n');
        Ok(())
    }

    pub fn push_line(&mut self, line: &str) {
        self.out.extend_from_slice(line.as_bytes());
        self.out.push(b'\n');
    }

    /// A fresh 8-hex id used neither in the source nor in this file.
    pub fn fresh_id(&mut self) -> String {
        loop {
            let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
            if self.used.insert(id.clone()) {
                return id;
            }
        }
    }

    /// After the lines of `copied` (entry indexes, in the order written), the label lines that
    /// make the labels in effect on copied entries equal the source's: a label set or changed
    /// by a line that was not copied is set again; a label a copied line sets that a line not
    /// copied cleared is cleared again. The lines chain from `parent`. Returns how many.
    pub fn label_lines(&mut self, s: &Session, copied: &[u32], parent: Option<String>) -> usize {
        let present: std::collections::HashSet<u32> = copied.iter().copied().collect();
        // What the copied label lines leave in effect, replayed in the order written.
        let mut replayed: std::collections::HashMap<&str, Option<&str>> = std::collections::HashMap::new();
        for &i in copied {
            if let crate::Detail::Label { target: Some(t), label } = &s.index.entries[i as usize].detail {
                replayed.insert(t.as_str(), label.as_deref());
            }
        }
        let mut lines: Vec<(String, Option<String>)> = Vec::new();
        for (tid, info) in &s.tree.labels {
            let Some(ti) = s.index.index_of(tid) else { continue };
            if !present.contains(&ti) || replayed.get(tid.as_str()) == Some(&Some(info.text.as_str())) {
                continue;
            }
            lines.push((tid.to_string(), Some(info.text.clone())));
        }
        let mut cleared = std::collections::HashSet::new();
        for &i in copied {
            if let crate::Detail::Label { target: Some(t), .. } = &s.index.entries[i as usize].detail {
                let on = s.index.index_of(t).is_some_and(|ti| present.contains(&ti));
                if on && matches!(replayed.get(t.as_str()), Some(Some(_))) && !s.tree.labels.contains_key(t) && cleared.insert(t.clone()) {
                    lines.push((t.to_string(), None));
                }
            }
        }
        let mut prev = parent;
        for (target, text) in &lines {
            let lid = self.fresh_id();
            let mut line = serde_json::Map::new();
            line.insert("type".into(), "label".into());
            line.insert("id".into(), lid.clone().into());
            line.insert("parentId".into(), prev.clone().into());
            line.insert("timestamp".into(), self.now.clone().into());
            line.insert("targetId".into(), target.as_str().into());
            if let Some(text) = text {
                line.insert("label".into(), text.as_str().into());
            }
            let line = serde_json::Value::Object(line).to_string();
            self.push_line(&line);
            prev = Some(lid);
        }
        lines.len()
    }

    /// The `leaf` line: pi resumes the new file at `target`.
    pub fn leaf_line(&mut self, target: Option<&str>) {
        let id = self.fresh_id();
        let line = leaf_line(&id, target, &self.now);
        self.push_line(&line);
    }

    /// Writes the file crash-safely beside the source under pi's naming, `<now>_<id>.jsonl`.
    pub fn finish(self, real: &Path) -> Result<PathBuf, Error> {
        let folder = real.parent().ok_or_else(|| Error::Invalid("a session file has a folder".into()))?;
        let name = format!("{}_{}.jsonl", self.now.replace([':', '.'], "-"), self.id);
        write_new_file(folder, &name, &self.out)
    }
}

/// Writes `bytes` to `folder/name` crash-safely: hidden temporary file, fsync, link into
/// place (fails rather than replace an existing file), remove the temporary name, fsync the
/// folder.
pub fn write_new_file(folder: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, Error> {
    remove_stale_temporaries(folder);
    let tmp = folder.join(format!(".{name}.tmp-{}", uuid::Uuid::new_v4().simple()));
    let dest = folder.join(name);
    let result = (|| -> std::io::Result<()> {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::hard_link(&tmp, &dest)?;
        Ok(())
    })();
    let _ = std::fs::remove_file(&tmp);
    result.map_err(|e| Error::io(&dest, e))?;
    sync_dir(folder);
    Ok(dest)
}

/// A temporary file of ours left by a fork that was killed before it finished: hidden, named
/// `.<name>.jsonl.tmp-<32 hex digits>`.
pub fn is_our_temporary(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else { return false };
    let Some((stem, suffix)) = rest.rsplit_once(".tmp-") else { return false };
    stem.ends_with(".jsonl") && stem.len() > ".jsonl".len() && suffix.len() == 32 && suffix.bytes().all(|b| b.is_ascii_hexdigit())
}

/// How old a temporary file must be before a later fork removes it (a fork takes well under a
/// second; this leaves any fork still running in another process alone).
pub const STALE_TEMPORARY: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// Removes temporary files of ours that killed forks left in `folder` (never anything else:
/// only regular files with our exact name pattern, older than [`STALE_TEMPORARY`]).
fn remove_stale_temporaries(folder: &Path) {
    let Ok(rd) = std::fs::read_dir(folder) else { return };
    let now = std::time::SystemTime::now();
    for ent in rd.flatten() {
        if !ent.file_name().to_str().is_some_and(is_our_temporary) {
            continue;
        }
        let Ok(meta) = ent.metadata() else { continue };
        let old = meta.modified().ok().and_then(|m| now.duration_since(m).ok()).is_some_and(|age| age > STALE_TEMPORARY);
        if meta.is_file() && old {
            let _ = std::fs::remove_file(ent.path());
        }
    }
}

/// fsync a folder so a new name in it survives a crash (a no-op where folders cannot be opened).
pub fn sync_dir(folder: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(folder) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = folder;
}

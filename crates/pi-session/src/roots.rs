//! Several sessions roots in one view (a laptop's folder, a synced copy of another machine's,
//! a team share), each with a name.
//!
//! * [`Roots`]: the named roots, which one holds a file, and the write options for it (writes
//!   stay inside the root holding the file; a root can be read-only).
//! * [`merge`]: one listing over all roots. The same session id in two files (a synced copy):
//!   when one file is a byte prefix of the other, one session is shown, the longer copy; when
//!   they diverged, both are shown, flagged with the byte offset where they part.
//! * [`resolve_across`]: a `parentSession` path that does not exist on this machine is matched
//!   by session id in the other roots (pi names files `<timestamp>_<sessionId>.jsonl`).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diag::DiagKind;
use crate::forks::{ForkInfo, ForkStatus};
use crate::listing::{Listing, PathFinding};
use crate::session::FileStamp;
use crate::summary::SessionSummary;
use crate::write::{self, WriteOptions};
use crate::Error;

/// One sessions root with its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootSpec {
    pub name: String,
    #[serde(with = "crate::pathstr::serde_path")]
    pub path: PathBuf,
    #[serde(default)]
    pub read_only: bool,
}

impl RootSpec {
    /// `NAME=PATH` or `PATH` (named after its folder, or its parent's when the folder is
    /// called `sessions`: `~/.pi/agent/sessions` is `agent`).
    pub fn parse(arg: &str) -> RootSpec {
        // A `=` before any path separator names the root; `./a=b` stays a path.
        if let Some((name, path)) = arg.split_once('=') {
            if !name.is_empty() && !name.contains(['/', '\\']) && !path.is_empty() {
                return RootSpec { name: name.to_string(), path: PathBuf::from(path), read_only: false };
            }
        }
        let path = PathBuf::from(arg);
        RootSpec { name: default_name(&path), path, read_only: false }
    }
}

/// A root's default name: its folder's name (its parent's when the folder is `sessions`).
pub fn default_name(path: &Path) -> String {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).filter(|n| !n.is_empty());
    match name(path) {
        Some(n) if n == "sessions" => path.parent().and_then(name).unwrap_or(n),
        Some(n) => n,
        None => "root".to_string(),
    }
}

/// The roots of one view, names unique (a repeated name gets `-2`, `-3`, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Roots(Vec<RootSpec>);

impl Roots {
    pub fn new(specs: Vec<RootSpec>) -> Roots {
        let mut out: Vec<RootSpec> = Vec::with_capacity(specs.len());
        for mut s in specs {
            if out.iter().any(|o| o.path == s.path) {
                continue;
            }
            let base = s.name.clone();
            let mut k = 2;
            while out.iter().any(|o| o.name == s.name) {
                s.name = format!("{base}-{k}");
                k += 1;
            }
            out.push(s);
        }
        Roots(out)
    }

    pub fn single(path: PathBuf) -> Roots {
        Roots::new(vec![RootSpec { name: default_name(&path), path, read_only: false }])
    }

    pub fn specs(&self) -> &[RootSpec] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The root that holds `path` (after symlinks), if any.
    pub fn holding(&self, path: &Path) -> Option<&RootSpec> {
        let real = std::fs::canonicalize(path).ok()?;
        // The deepest root wins when roots nest.
        self.0
            .iter()
            .filter_map(|r| std::fs::canonicalize(&r.path).ok().filter(|rr| real.starts_with(rr)).map(|rr| (rr.components().count(), r)))
            .max_by_key(|(depth, _)| *depth)
            .map(|(_, r)| r)
    }

    /// The file resolved after symlinks, and the root holding it: as for one root
    /// ([`write::confine`]), the path must lie inside a root both as written and resolved (the
    /// same root: a link in one root to a file of another is not read through; that file is
    /// read at its own path). A path outside every root as written is `outside-root` before
    /// anything is looked up, whether it exists or not. Nested roots: the deepest wins.
    pub fn confine(&self, path: &Path) -> Result<(PathBuf, &RootSpec), Error> {
        let mut candidates: Vec<&RootSpec> = self.0.iter().filter(|r| write::lexically_inside(path, &r.path)).collect();
        candidates.sort_by_key(|r| std::cmp::Reverse(write::lexical(&r.path).components().count()));
        for r in candidates {
            match write::confine(path, Some(&r.path)) {
                Err(Error::OutsideRoot { .. }) => continue,
                other => return other.map(|real| (real, r)),
            }
        }
        // The error names the first root.
        Err(Error::OutsideRoot { path: path.to_path_buf(), root: self.0.first().map(|r| r.path.clone()).unwrap_or_default() })
    }

    /// Write options for `path`: confined to the root holding it, refused when that root is
    /// read-only (or `read_only` is set for all).
    pub fn write_opts(&self, path: &Path, read_only: bool) -> Result<WriteOptions, Error> {
        let (_, r) = self.confine(path)?;
        Ok(WriteOptions { root: Some(r.path.clone()), read_only: read_only || r.read_only, ..Default::default() })
    }
}

/// Where two copies of one session part.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// First byte that differs (or where the shorter copy ends, when it ends mid-line).
    pub offset: u64,
    /// The other copies, by path.
    #[serde(with = "crate::pathstr::serde_paths")]
    pub with: Vec<PathBuf>,
}

/// A session of the merged listing, with the root it comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RootedSession {
    #[serde(flatten)]
    pub summary: SessionSummary,
    pub root: String,
    /// Shorter copies of this session (byte prefixes) in other roots, not shown.
    #[serde(skip_serializing_if = "Vec::is_empty", with = "crate::pathstr::serde_paths")]
    pub copies: Vec<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diverged: Option<Divergence>,
}

/// The listing of several roots.
#[derive(Debug, Clone, Serialize)]
pub struct MultiListing {
    pub roots: Vec<RootSpec>,
    pub sessions: Vec<RootedSession>,
    pub other: Vec<PathFinding>,
    /// Hidden prefix copy → the copy shown.
    #[serde(skip)]
    pub alias: HashMap<PathBuf, PathBuf>,
}

/// The first byte where two files differ, `None` when one is a prefix of the other.
pub fn first_difference(a: &Path, b: &Path) -> std::io::Result<Option<u64>> {
    let (mut fa, mut fb) = (std::fs::File::open(a)?, std::fs::File::open(b)?);
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    let mut at = 0u64;
    loop {
        let na = read_full(&mut fa, &mut ba)?;
        let nb = read_full(&mut fb, &mut bb)?;
        let n = na.min(nb);
        if let Some(i) = ba[..n].iter().zip(&bb[..n]).position(|(x, y)| x != y) {
            return Ok(Some(at + i as u64));
        }
        if na != nb || n == 0 {
            return Ok(None);
        }
        at += n as u64;
    }
}

fn read_full(f: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Byte comparisons of session copies, kept while both files are unchanged (a listing of
/// synced roots then reads no file twice).
#[derive(Debug, Default)]
pub struct Comparisons(HashMap<(PathBuf, PathBuf), (FileStamp, FileStamp, Option<u64>)>);

impl Comparisons {
    /// [`first_difference`], answered from memory when neither file changed.
    pub fn first_difference(&mut self, a: &Path, b: &Path) -> std::io::Result<Option<u64>> {
        let stamp = |p: &Path| std::fs::metadata(p).map(|m| FileStamp::of(&m));
        let (sa, sb) = (stamp(a)?, stamp(b)?);
        let key = (a.to_path_buf(), b.to_path_buf());
        if let Some(&(ka, kb, d)) = self.0.get(&key) {
            if ka == sa && kb == sb {
                return Ok(d);
            }
        }
        let d = first_difference(a, b)?;
        if self.0.len() > 100_000 {
            self.0.clear();
        }
        self.0.insert(key, (sa, sb, d));
        Ok(d)
    }
}

/// One listing over all roots (in the order given): sessions sorted by path within a root,
/// copies of one session id merged or flagged (module docs).
pub fn merge(listings: Vec<(RootSpec, Listing)>) -> MultiListing {
    merge_with(listings, &mut Comparisons::default())
}

/// [`merge`] with comparisons remembered across listings.
pub fn merge_with(listings: Vec<(RootSpec, Listing)>, cmp: &mut Comparisons) -> MultiListing {
    let roots: Vec<RootSpec> = listings.iter().map(|(r, _)| r.clone()).collect();
    let mut sessions: Vec<RootedSession> = Vec::new();
    let mut other = Vec::new();
    for (r, l) in listings {
        other.extend(l.other);
        sessions.extend(l.sessions.into_iter().map(|s| RootedSession { summary: s, root: r.name.clone(), copies: Vec::new(), diverged: None }));
    }
    let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, s) in sessions.iter().enumerate() {
        if let Some(id) = &s.summary.id {
            by_id.entry(id.clone()).or_default().push(i);
        }
    }
    let mut drop = vec![false; sessions.len()];
    let mut alias = HashMap::new();
    let mut groups: Vec<Vec<usize>> = by_id.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    for mut g in groups {
        // Longest first: each copy is absorbed by the first kept copy it is a prefix of.
        g.sort_by(|&a, &b| sessions[b].summary.size.cmp(&sessions[a].summary.size).then(a.cmp(&b)));
        let mut kept: Vec<usize> = Vec::new();
        let mut parts: HashMap<usize, Vec<(usize, u64)>> = HashMap::new();
        for &i in &g {
            let mut absorbed = None;
            let mut diffs = Vec::new();
            for &k in &kept {
                match cmp.first_difference(&sessions[k].summary.path, &sessions[i].summary.path) {
                    Ok(None) => {
                        absorbed = Some(k);
                        break;
                    }
                    Ok(Some(at)) => diffs.push((k, at)),
                    Err(_) => diffs.push((k, 0)),
                }
            }
            if let Some(k) = absorbed {
                drop[i] = true;
                let p = sessions[i].summary.path.clone();
                alias.insert(p.clone(), sessions[k].summary.path.clone());
                sessions[k].copies.push(p);
            } else {
                for &(k, at) in &diffs {
                    parts.entry(k).or_default().push((i, at));
                    parts.entry(i).or_default().push((k, at));
                }
                kept.push(i);
            }
        }
        for (i, with) in parts {
            let offset = with.iter().map(|&(_, at)| at).min().unwrap_or(0);
            let with = with.iter().map(|&(k, _)| sessions[k].summary.path.clone()).collect();
            sessions[i].diverged = Some(Divergence { offset, with });
        }
    }
    let sessions = sessions.into_iter().zip(drop).filter(|(_, d)| !d).map(|(s, _)| s).collect();
    let other = links_into_other_roots(&roots, other);
    MultiListing { roots, sessions, other, alias }
}

/// A link that leaves its root for another root of the view is not read through, as in one
/// root, but its target is read: at its own path, in that root. Its finding says so.
fn links_into_other_roots(roots: &[RootSpec], mut other: Vec<PathFinding>) -> Vec<PathFinding> {
    if !other.iter().any(|o| o.diagnostic.kind == DiagKind::SymlinkOutsideRoot) {
        return other;
    }
    let real: Vec<(&str, PathBuf)> = roots.iter().filter_map(|r| Some((r.name.as_str(), std::fs::canonicalize(&r.path).ok()?))).collect();
    for o in other.iter_mut().filter(|o| o.diagnostic.kind == DiagKind::SymlinkOutsideRoot) {
        let Ok(target) = std::fs::canonicalize(&o.path) else { continue };
        if let Some((name, _)) = real.iter().find(|(_, r)| target.starts_with(r)) {
            o.diagnostic = crate::diag::Diagnostic::new(
                None,
                DiagKind::Symlink,
                format!("a symbolic link to {}, in the root {name}: read there, at its own path, not through the link", target.display()),
            );
        }
    }
    other
}

/// The session id a `parentSession` path names: pi's file name `<timestamp>_<id>.jsonl`.
pub fn id_from_path(parent_session: &str) -> Option<&str> {
    let name = parent_session.rsplit(['/', '\\']).next()?;
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    let id = stem.rsplit_once('_').map_or(stem, |(_, id)| id);
    (!id.is_empty()).then_some(id)
}

/// Fork links over the merged listing: each root's links (`per_root`, matched by path), then
/// parents missing on this
/// machine matched by session id (or file name) in the other roots, their fork points
/// computed, and parents that are hidden prefix copies redirected to the copy shown.
pub fn resolve_across(m: &mut MultiListing, per_root: Vec<ForkInfo>) -> Vec<ForkInfo> {
    let mut by_path: HashMap<PathBuf, ForkInfo> = per_root.into_iter().map(|f| (f.path.clone(), f)).collect();
    let by_id: HashMap<&str, usize> = m.sessions.iter().enumerate().filter_map(|(i, s)| s.summary.id.as_deref().map(|id| (id, i))).collect();
    let by_name: HashMap<String, usize> =
        m.sessions.iter().enumerate().filter_map(|(i, s)| s.summary.path.file_name().map(|n| (n.to_string_lossy().into_owned(), i))).collect();
    let mut out = Vec::with_capacity(m.sessions.len());
    let mut fixed = Vec::new();
    for (i, s) in m.sessions.iter().enumerate() {
        let mut f = by_path.remove(&s.summary.path).unwrap_or_else(|| ForkInfo {
            path: s.summary.path.clone(),
            id: s.summary.id.clone(),
            parent_session: s.summary.parent_session.clone(),
            parent_path: None,
            fork_point_id: None,
            fork_point_line: None,
            fork_point_preview: None,
            fork_point_entry: None,
            parent_entries: None,
            copy: None,
            status: ForkStatus::Ok,
        });
        if let Some(pp) = f.parent_path.clone() {
            if let Some(shown) = m.alias.get(&pp) {
                f.parent_path = Some(shown.clone());
            }
        }
        if f.status == ForkStatus::ParentMissing {
            let ps = f.parent_session.as_deref().unwrap_or("");
            let name = Path::new(ps).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let found = id_from_path(ps).and_then(|id| by_id.get(id)).or_else(|| by_name.get(&name)).copied().filter(|&j| j != i);
            if let Some(j) = found {
                f.parent_path = Some(m.sessions[j].summary.path.clone());
                f.status = ForkStatus::Ok;
                f.fork_point_id = None;
                f.fork_point_line = None;
                f.fork_point_preview = None;
                fixed.push(i);
            }
        }
        out.push(f);
    }
    // Fork points of the links found across roots (few: opened here, not cached).
    for i in fixed {
        let (Ok(child), Some(Ok(parent))) = (crate::Session::open(&m.sessions[i].summary.path), out[i].parent_path.as_ref().map(crate::Session::open)) else { continue };
        out[i].fork_point_id = crate::forks::fork_point(&child, &parent);
        out[i].fork_point_line = out[i].fork_point_id.as_deref().and_then(|id| parent.index.entry(id)).map(|e| e.line);
        out[i].fork_point_preview = crate::forks::point_preview(&parent, out[i].fork_point_id.as_deref());
        m.sessions[i].summary.diagnostics.retain(|d| d.kind != DiagKind::ParentSessionMissing);
    }
    out
}

/// Lists every root (through its persistent cache) and merges them, with fork links across
/// roots: the CLI's `list` and `forks` over several `--sessions-dir`.
pub fn list_roots(roots: &Roots) -> (MultiListing, Vec<ForkInfo>) {
    let mut listings = Vec::new();
    let mut forks = Vec::new();
    for r in roots.specs() {
        let (l, mut cache) = crate::listing::list_with_cache(&r.path);
        forks.extend(crate::forks::fork_graph_cached(&r.path, &l.sessions, &mut cache));
        cache.save_if_changed();
        listings.push((r.clone(), l));
    }
    let mut m = merge(listings);
    let forks = resolve_across(&mut m, forks);
    (m, forks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_paths() {
        assert_eq!(RootSpec::parse("laptop=/mnt/laptop/sessions").name, "laptop");
        assert_eq!(RootSpec::parse("laptop=/mnt/laptop/sessions").path, PathBuf::from("/mnt/laptop/sessions"));
        assert_eq!(RootSpec::parse("/home/a/.pi/agent/sessions").name, "agent");
        assert_eq!(RootSpec::parse("/backup/desk").name, "desk");
        assert_eq!(RootSpec::parse("./x=y/z").path, PathBuf::from("./x=y/z"));
        let r = Roots::new(vec![RootSpec::parse("/a/desk"), RootSpec::parse("/b/desk"), RootSpec::parse("/a/desk")]);
        assert_eq!(r.specs().iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["desk", "desk-2"]);
    }

    #[test]
    fn ids_from_pi_file_names() {
        assert_eq!(id_from_path("/h/.pi/agent/sessions/--w--/2025-01-02T03-04-05-006Z_0a1b2c3d-1111.jsonl"), Some("0a1b2c3d-1111"));
        assert_eq!(id_from_path("plain.jsonl"), Some("plain"));
    }
}

//! The sessions root: where it is, and which files in it are sessions.
//!
//! Files are `root/*.jsonl` (a flat custom dir) and `root/*/*.jsonl` (pi's per-cwd folders).
//! The cwd comes from each header, never from a folder name.

use std::path::{Path, PathBuf};

use serde::Serialize;
use pi_session_format::diag::{DiagKind, Diagnostic};

/// Where the sessions root came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RootSource {
    Flag,
    EnvSessionDir,
    EnvAgentDir,
    Default,
}

impl RootSource {
    /// How the root was chosen, as the UI shows it (`AppInfo.rootSource`).
    pub fn as_str(self) -> &'static str {
        match self {
            RootSource::Flag => "flag",
            RootSource::EnvSessionDir => "env-session-dir",
            RootSource::EnvAgentDir => "env-agent-dir",
            RootSource::Default => "default",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Root {
    pub path: PathBuf,
    pub source: RootSource,
}

/// The sessions root a session file belongs to when none is given: the parent of its folder
/// when that folder is one of pi's per-cwd folders (`--home-me-app--`), else its folder.
/// Symlinks are resolved first, so the file always lies inside the root returned.
pub fn root_of_file(file: &Path) -> PathBuf {
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let folder = real.parent().map(Path::to_path_buf).unwrap_or_default();
    let per_cwd = folder.file_name().map(|n| n.to_string_lossy()).is_some_and(|n| n.len() >= 4 && n.starts_with("--") && n.ends_with("--"));
    match folder.parent() {
        Some(parent) if per_cwd => parent.to_path_buf(),
        _ => folder,
    }
}

/// `--sessions-dir`, else `$PI_CODING_AGENT_SESSION_DIR`, else `$PI_CODING_AGENT_DIR/sessions`,
/// else `~/.pi/agent/sessions`.
pub fn resolve_root(flag: Option<&Path>) -> Root {
    resolve_root_with(flag, |k| std::env::var_os(k).filter(|v| !v.is_empty()), dirs::home_dir())
}

pub fn resolve_root_with(
    flag: Option<&Path>,
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
    home: Option<PathBuf>,
) -> Root {
    let expand = |p: PathBuf| -> PathBuf {
        match (p.strip_prefix("~"), &home) {
            (Ok(rest), Some(h)) => h.join(rest),
            _ => p,
        }
    };
    if let Some(f) = flag {
        return Root { path: expand(f.to_path_buf()), source: RootSource::Flag };
    }
    if let Some(d) = env("PI_CODING_AGENT_SESSION_DIR") {
        return Root { path: expand(PathBuf::from(d)), source: RootSource::EnvSessionDir };
    }
    if let Some(d) = env("PI_CODING_AGENT_DIR") {
        return Root { path: expand(PathBuf::from(d)).join("sessions"), source: RootSource::EnvAgentDir };
    }
    let home = home.unwrap_or_else(|| PathBuf::from("."));
    Root { path: home.join(".pi").join("agent").join("sessions"), source: RootSource::Default }
}

/// A `.jsonl` path found under the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub size: u64,
    pub symlink: bool,
    /// (length, mtime, inode) as of the scan: the listing cache's key.
    pub stamp: crate::session::FileStamp,
}

/// The session files under a root, and findings about paths that are not files.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    pub files: Vec<Found>,
    /// (path, finding) for directories named `*.jsonl`, unreadable entries, symlinks.
    pub findings: Vec<(PathBuf, Diagnostic)>,
}

fn is_jsonl(name: &std::ffi::OsStr) -> bool {
    let b = name.as_encoded_bytes();
    b.ends_with(b".jsonl") && !b.starts_with(b".")
}

/// Lists `root/*.jsonl` and `root/*/*.jsonl`, sorted by path. Hidden files (our temporary
/// fork files among them) are skipped. The cwd folders are read on all cores.
pub fn scan(root: &Path) -> Scan {
    scan_on(root, true)
}

/// [`scan`] on the calling thread only.
pub fn scan_serial(root: &Path) -> Scan {
    scan_on(root, false)
}

fn scan_on(root: &Path, parallel: bool) -> Scan {
    let mut out = Scan::default();
    let Ok(rd) = std::fs::read_dir(root) else { return out };
    // The root itself may be a link (`~/.pi` → `/data/pi`): links are judged against where it
    // really is.
    let inside = Inside::of(root);
    let mut dirs = Vec::new();
    for ent in rd.flatten() {
        let name = ent.file_name();
        let path = ent.path();
        let Ok(ft) = ent.file_type() else { continue };
        if is_jsonl(&name) {
            consider(&path, &ent, ft.is_symlink(), &inside, &mut out);
        } else if name.to_string_lossy().starts_with('.') {
            continue;
        } else if ft.is_dir() {
            dirs.push(path);
        } else if ft.is_symlink() && path.is_dir() {
            if let Some(f) = inside.folder_link(&path) {
                out.findings.push((path, f));
            } else {
                dirs.push(path);
            }
        }
    }
    // One folder per cwd (a big root has hundreds).
    let read = |d: &PathBuf| {
        let mut part = Scan::default();
        if let Ok(rd) = std::fs::read_dir(d) {
            for ent in rd.flatten() {
                if is_jsonl(&ent.file_name()) {
                    let symlink = ent.file_type().map(|t| t.is_symlink()).unwrap_or(false);
                    consider(&ent.path(), &ent, symlink, &inside, &mut part);
                }
            }
        }
        // Sorted here, on the folder's core: the merged list is then runs in folder order,
        // which the final sort merges instead of sorting 10,000 paths on one core. One folder:
        // the paths' bytes (one prefix, then the names) are in the paths' order, and compare
        // without taking each path apart.
        part.files.sort_unstable_by(|a, b| a.path.as_os_str().as_encoded_bytes().cmp(b.path.as_os_str().as_encoded_bytes()));
        part
    };
    dirs.sort();
    let parts: Vec<Scan> = if parallel {
        use rayon::prelude::*;
        dirs.par_iter().map(read).collect()
    } else {
        dirs.iter().map(read).collect()
    };
    for part in parts {
        out.files.extend(part.files);
        out.findings.extend(part.findings);
    }
    out.files.sort_by(|a, b| path_order(&a.path, &b.path));
    out.findings.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The order of `Path`'s `cmp` (component by component) for the paths a scan makes (the root
/// joined with names read from folders, so no `.` or doubled separator past the root), as one
/// walk of the bytes with the separator taken as the lowest byte: a third of a search's fixed
/// cost on 10,000 files was `Path`'s component-wise comparisons.
fn path_order(a: &Path, b: &Path) -> std::cmp::Ordering {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let key = |c: u8| if c == b'/' { 0 } else { c as u16 + 1 };
        let (x, y) = (a.as_os_str().as_bytes(), b.as_os_str().as_bytes());
        let n = x.iter().zip(y).take_while(|(p, q)| p == q).count();
        match (x.get(n), y.get(n)) {
            (Some(&p), Some(&q)) => key(p).cmp(&key(q)),
            _ => x.len().cmp(&y.len()),
        }
    }
    #[cfg(not(unix))]
    {
        a.cmp(b)
    }
}

/// Where a root really is, to judge the symbolic links found in it (docs/damage.md, #32):
/// a link whose target lies outside the root is not read; one to a file or folder the scan
/// lists itself is not read twice.
struct Inside {
    /// The root, resolved; `None` when it cannot be (then no link is followed).
    real: Option<PathBuf>,
}

impl Inside {
    fn of(root: &Path) -> Inside {
        Inside { real: std::fs::canonicalize(root).ok() }
    }

    /// True when `real` (resolved) lies inside the root.
    fn holds(&self, real: &Path) -> bool {
        self.real.as_deref().is_some_and(|r| real.starts_with(r))
    }

    /// True when the scan lists the file at `real` (resolved) under its own name: a `.jsonl`
    /// file in the root or in one of its (not hidden) folders.
    fn lists(&self, real: &Path) -> bool {
        let Some(root) = self.real.as_deref() else { return false };
        let (Some(name), Some(dir)) = (real.file_name(), real.parent()) else { return false };
        is_jsonl(name) && (dir == root || (dir.parent() == Some(root) && dir.file_name().is_some_and(|d| !d.to_string_lossy().starts_with('.'))))
    }

    /// The finding that keeps a linked folder out of the scan, or `None` to read it.
    fn folder_link(&self, link: &Path) -> Option<Diagnostic> {
        let real = match std::fs::canonicalize(link) {
            Ok(r) => r,
            Err(e) => return Some(Diagnostic::new(None, DiagKind::Unreadable, format!("cannot follow the symbolic link: {e}"))),
        };
        let Some(root) = self.real.as_deref().filter(|r| real.starts_with(r)) else { return Some(outside_root(&real)) };
        // The root itself, or a folder the scan reads anyway.
        let listed = real == root || (real.parent() == Some(root) && real.file_name().is_some_and(|d| !d.to_string_lossy().starts_with('.')));
        listed.then(|| Diagnostic::new(None, DiagKind::Symlink, format!("a symbolic link to the folder {}, which is read itself: its sessions are listed once, there", real.display())))
    }
}

/// The finding of a link whose target lies outside the sessions root.
fn outside_root(target: &Path) -> Diagnostic {
    Diagnostic::new(
        None,
        DiagKind::SymlinkOutsideRoot,
        format!("a symbolic link to {}: it leaves the sessions root, so it is not read; add its target as another root to read it", target.display()),
    )
}

/// `ent` is the folder entry of `path`: a file that is not a link is stat'ed through it
/// (relative to the open folder, without walking the whole path again: a search's freshness
/// check stats every file of the root).
fn consider(path: &Path, ent: &std::fs::DirEntry, symlink: bool, inside: &Inside, out: &mut Scan) {
    if symlink {
        match std::fs::canonicalize(path) {
            Err(e) => return out.findings.push((path.to_path_buf(), Diagnostic::new(None, DiagKind::Unreadable, format!("cannot read: {e}")))),
            Ok(real) if !inside.holds(&real) => return out.findings.push((path.to_path_buf(), outside_root(&real))),
            Ok(real) if inside.lists(&real) => {
                let d = Diagnostic::new(None, DiagKind::Symlink, format!("a symbolic link to {}, which is listed itself: read once, there", real.display()));
                return out.findings.push((path.to_path_buf(), d));
            }
            Ok(_) => {}
        }
    }
    let meta = if symlink { std::fs::metadata(path) } else { ent.metadata() };
    match meta {
        Ok(m) if m.is_file() => {
            if symlink {
                out.findings.push((path.to_path_buf(), Diagnostic::new(None, DiagKind::Symlink, "a symbolic link inside the sessions root; read through, never written through")));
            }
            out.files.push(Found { path: path.to_path_buf(), size: m.len(), symlink, stamp: crate::session::FileStamp::of(&m) });
        }
        Ok(_) => out.findings.push((path.to_path_buf(), Diagnostic::new(None, DiagKind::NotAFile, "named *.jsonl but not a regular file"))),
        Err(e) => out.findings.push((path.to_path_buf(), Diagnostic::new(None, DiagKind::Unreadable, format!("cannot read: {e}")))),
    }
}

/// pi's folder name for a cwd (`--home-alice-proj--`); for writing new sessions only.
pub fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

#[cfg(test)]
mod order_tests {
    use super::path_order;
    use std::path::PathBuf;

    #[test]
    fn the_byte_order_is_the_component_order_of_a_scan_s_paths() {
        let names = ["a", "a-b", "a.b", "a b", "ab", "a0", "A", "é", "z", "a_b", "-x", "a.jsonl", "a-.jsonl", "2026-01-01T00-00-00-000Z_x.jsonl", "2026-01-01T00-00-00-000Z.jsonl"];
        let root = PathBuf::from("/home/u/.pi/agent/sessions");
        let mut paths = Vec::new();
        for d in names {
            paths.push(root.join(format!("{d}.jsonl")));
            for f in names {
                paths.push(root.join(d).join(f));
            }
        }
        for a in &paths {
            for b in &paths {
                assert_eq!(path_order(a, b), a.cmp(b), "{} vs {}", a.display(), b.display());
                // A folder's files are sorted by their bytes.
                if a.parent() == b.parent() {
                    assert_eq!(a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()), a.cmp(b), "{} vs {}", a.display(), b.display());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_precedence() {
        let home = Some(PathBuf::from("/home/u"));
        let none = |_: &str| None;
        assert_eq!(resolve_root_with(Some(Path::new("/x")), none, home.clone()).path, PathBuf::from("/x"));
        assert_eq!(resolve_root_with(None, none, home.clone()).path, PathBuf::from("/home/u/.pi/agent/sessions"));
        let agent = |k: &str| (k == "PI_CODING_AGENT_DIR").then(|| "~/agent".into());
        let r = resolve_root_with(None, agent, home.clone());
        assert_eq!((r.path, r.source), (PathBuf::from("/home/u/agent/sessions"), RootSource::EnvAgentDir));
        let both = |k: &str| Some(format!("/{k}").into());
        assert_eq!(resolve_root_with(None, both, home).path, PathBuf::from("/PI_CODING_AGENT_SESSION_DIR"));
    }

    #[test]
    fn cwd_encoding_matches_pi() {
        assert_eq!(encode_cwd("/home/alice/projects/webapp"), "--home-alice-projects-webapp--");
        assert_eq!(encode_cwd("/home/alice/work/data:pipeline"), "--home-alice-work-data-pipeline--");
        assert_eq!(encode_cwd("C:\\Users\\bob\\src\\app"), "--C--Users-bob-src-app--");
        assert_eq!(encode_cwd("/home/alice/My Projects/notes"), "--home-alice-My Projects-notes--");
    }

    #[test]
    fn the_root_of_a_file_is_above_its_per_cwd_folder_else_its_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let per_cwd = base.join("sessions").join("--home-me-app--");
        std::fs::create_dir_all(&per_cwd).unwrap();
        let nested = per_cwd.join("a.jsonl");
        let flat = base.join("b.jsonl");
        std::fs::write(&nested, "").unwrap();
        std::fs::write(&flat, "").unwrap();
        assert_eq!(root_of_file(&nested), base.join("sessions"));
        assert_eq!(root_of_file(&flat), base);
        // Symlinks are resolved first: the root is the target's.
        #[cfg(unix)]
        {
            let link = base.join("link.jsonl");
            std::os::unix::fs::symlink(&nested, &link).unwrap();
            assert_eq!(root_of_file(&link), base.join("sessions"));
        }
        // A folder named only "--" or "----" is not a per-cwd folder.
        let odd = base.join("--");
        std::fs::create_dir_all(&odd).unwrap();
        std::fs::write(odd.join("c.jsonl"), "").unwrap();
        assert_eq!(root_of_file(&odd.join("c.jsonl")), odd);
    }
}

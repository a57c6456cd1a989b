//! Watches a sessions root and reports coalesced changes: files that grew or changed, files
//! that appeared, files that went away. Events within `coalesce` of each other are merged.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher as _};

use crate::api::RootChanged;

/// Keeps the watch alive; dropping it stops the watch and its thread.
pub struct RootWatch {
    _watcher: notify::RecommendedWatcher,
}

fn is_session_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "jsonl") && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'))
}

/// The session files in `dir` and its folders, `depth` levels down at most.
fn session_files_under(dir: &Path, depth: u32, out: &mut BTreeSet<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() && depth > 1 => session_files_under(&p, depth - 1, out),
            Ok(t) if t.is_file() && is_session_file(&p) => {
                out.insert(p);
            }
            _ => {}
        }
    }
}

/// How long after a folder arrives it is read once more: notify starts watching a new folder
/// only after it has sent the folder's event, and a file written into it in between sends none.
/// The end of the coalescing window reads it again; this catches a watch that came later still.
const RECHECK: Duration = Duration::from_secs(1);

/// The events of one coalescing window, added up; and the folders that arrived lately.
#[derive(Default)]
struct Pending {
    changed: BTreeSet<PathBuf>,
    added: BTreeSet<PathBuf>,
    removed: BTreeSet<PathBuf>,
    /// Folders that appeared in this window (made, or moved in).
    new_dirs: BTreeSet<PathBuf>,
    /// Folders read when the window closed, to read once more at the instant given; with the
    /// session files already reported in them.
    recheck: Vec<(PathBuf, Instant, BTreeSet<PathBuf>)>,
    /// When the window opened (its first change).
    first: Option<Instant>,
}

impl Pending {
    fn take(&mut self, ev: &notify::Event, now: Instant) {
        // A folder that appears: the files already in it send no events of their own (the
        // watch on it starts after them).
        if matches!(ev.kind, EventKind::Create(_) | EventKind::Modify(notify::event::ModifyKind::Name(_))) {
            for p in ev.paths.iter().filter(|p| p.is_dir()) {
                session_files_under(p, 3, &mut self.added);
                self.new_dirs.insert(p.clone());
            }
        }
        for p in ev.paths.iter().filter(|p| is_session_file(p)) {
            match ev.kind {
                EventKind::Create(_) => {
                    self.added.insert(p.clone());
                }
                EventKind::Remove(_) => {
                    self.removed.insert(p.clone());
                }
                EventKind::Modify(notify::event::ModifyKind::Name(_)) => {
                    if p.exists() {
                        self.added.insert(p.clone());
                    } else {
                        self.removed.insert(p.clone());
                    }
                }
                EventKind::Modify(_) => {
                    self.changed.insert(p.clone());
                }
                _ => {}
            }
        }
        if self.first.is_none() && !(self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty() && self.new_dirs.is_empty()) {
            self.first = Some(now);
        }
    }

    /// How long to wait for the next event before [`Pending::flush`] has work.
    fn timeout(&self, coalesce: Duration, now: Instant) -> Duration {
        let window = self.first.map(|t| (t + coalesce).saturating_duration_since(now));
        let recheck = self.recheck.iter().map(|(_, at, _)| at.saturating_duration_since(now)).min();
        window.into_iter().chain(recheck).min().unwrap_or(Duration::from_secs(3600))
    }

    /// The change to report once the window has closed (`first` older than `coalesce`) or a
    /// folder is due to be read again; `None` when there is nothing to report yet.
    fn flush(&mut self, coalesce: Duration, now: Instant) -> Option<RootChanged> {
        let mut added = BTreeSet::new();
        if self.first.is_some_and(|t| now.saturating_duration_since(t) >= coalesce) {
            self.first = None;
            // The folders that came in this window, read again now that their watch is on.
            for d in std::mem::take(&mut self.new_dirs) {
                let mut found = BTreeSet::new();
                session_files_under(&d, 3, &mut found);
                self.added.extend(found.iter().cloned());
                self.recheck.push((d, now + RECHECK, found));
            }
            added = std::mem::take(&mut self.added);
        }
        let mut late = BTreeSet::new();
        self.recheck.retain(|(d, at, known)| {
            if *at > now {
                return true;
            }
            let mut found = BTreeSet::new();
            session_files_under(d, 3, &mut found);
            late.extend(found.into_iter().filter(|p| !known.contains(p)));
            false
        });
        added.extend(late);
        // A file created and written in the window is "added", not "changed".
        let added_now: BTreeSet<PathBuf> = added.into_iter().filter(|p| p.exists()).collect();
        let (changed, removed) = if self.first.is_none() {
            (std::mem::take(&mut self.changed), std::mem::take(&mut self.removed))
        } else {
            Default::default()
        };
        let removed_now = removed.into_iter().filter(|p| !p.exists());
        let changed_now = changed.into_iter().filter(|p| !added_now.contains(p) && p.exists());
        let s = |v: &mut dyn Iterator<Item = PathBuf>| v.map(|p| pi_session::pathstr::encode(&p)).collect::<Vec<_>>();
        let ev = RootChanged { changed: s(&mut changed_now.into_iter()), added: s(&mut added_now.into_iter()), removed: s(&mut removed_now.into_iter()) };
        (!(ev.changed.is_empty() && ev.added.is_empty() && ev.removed.is_empty())).then_some(ev)
    }
}

/// Starts watching `root` (recursively). `on_change` runs on a background thread.
pub fn watch_root(root: &Path, coalesce: Duration, on_change: impl Fn(RootChanged) + Send + 'static) -> notify::Result<RootWatch> {
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(move |ev| {
        let _ = tx.send(ev);
    })?;
    watcher.watch(root, RecursiveMode::Recursive)?;
    std::thread::Builder::new()
        .name("root-watch".into())
        .spawn(move || {
            let mut pending = Pending::default();
            loop {
                match rx.recv_timeout(pending.timeout(coalesce, Instant::now())) {
                    Ok(Ok(ev)) => pending.take(&ev, Instant::now()),
                    Ok(Err(_)) => {}
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if let Some(ev) = pending.flush(coalesce, Instant::now()) {
                            on_change(ev);
                        }
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
        })
        .map_err(|e| notify::Error::generic(&e.to_string()))?;
    Ok(RootWatch { _watcher: watcher })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reports_appends_and_new_files() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.jsonl");
        std::fs::write(&f, "{}\n").unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch_root(dir.path(), Duration::from_millis(50), move |ev| {
            let _ = tx.send(ev);
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        std::fs::OpenOptions::new().append(true).open(&f).unwrap().write_all(b"{}\n").unwrap();
        let ev = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(ev.changed.iter().any(|p| p.ends_with("a.jsonl")), "{ev:?}");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        std::fs::write(dir.path().join("sub/b.jsonl"), "{}\n").unwrap();
        let ev = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert!(ev.added.iter().any(|p| p.ends_with("b.jsonl")), "{ev:?}");
    }

    fn names(paths: &[String]) -> Vec<String> {
        paths.iter().map(|p| Path::new(p).file_name().unwrap().to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn a_file_written_into_a_new_folder_before_its_watch_starts_is_reported() {
        // notify sends a new folder's event, then starts watching it: a file written in between
        // sends no event. The folder is read again when the window closes, and once more later.
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("--home-desk--");
        std::fs::create_dir(&sub).unwrap();
        let (t0, c) = (Instant::now(), Duration::from_millis(60));
        let mut p = Pending::default();
        p.take(&notify::Event::new(EventKind::Create(notify::event::CreateKind::Folder)).add_path(sub.clone()), t0);
        std::fs::write(sub.join("a.jsonl"), "{}\n").unwrap();
        assert_eq!(p.timeout(c, t0), c);
        assert!(p.flush(c, t0 + Duration::from_millis(10)).is_none(), "the window is still open");
        let ev = p.flush(c, t0 + c).expect("the file reported when the window closes");
        assert_eq!(names(&ev.added), ["a.jsonl"]);
        assert!(ev.changed.is_empty() && ev.removed.is_empty(), "{ev:?}");
        std::fs::write(sub.join("b.jsonl"), "{}\n").unwrap();
        assert_eq!(p.timeout(c, t0 + c), RECHECK);
        assert!(p.flush(c, t0 + c + Duration::from_millis(10)).is_none(), "not yet read again");
        let ev = p.flush(c, t0 + c + RECHECK).expect("the late file reported");
        assert_eq!(names(&ev.added), ["b.jsonl"], "the file reported before is not reported again");
        assert_eq!(p.timeout(c, t0 + c + RECHECK), Duration::from_secs(3600), "nothing left to do");
        assert!(p.flush(c, t0 + c + RECHECK * 2).is_none());
    }

    #[test]
    fn a_folder_that_arrives_with_sessions_in_it_reports_them() {
        // As a sync tool or `mv` brings a project folder in: its files come with no events.
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let moved = outside.path().join("--home-desk--");
        std::fs::create_dir_all(moved.join("deeper")).unwrap();
        std::fs::write(moved.join("c.jsonl"), "{}\n").unwrap();
        std::fs::write(moved.join("deeper/d.jsonl"), "{}\n").unwrap();
        std::fs::write(moved.join("notes.txt"), "x").unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch_root(dir.path(), Duration::from_millis(50), move |ev| {
            let _ = tx.send(ev);
        })
        .unwrap();
        std::fs::rename(&moved, dir.path().join("--home-desk--")).unwrap();
        let mut added = BTreeSet::new();
        while added.len() < 2 {
            let ev = rx.recv_timeout(Duration::from_secs(5)).expect("the moved-in folder's sessions reported");
            added.extend(ev.added.into_iter().map(|p| Path::new(&p).file_name().unwrap().to_string_lossy().into_owned()));
        }
        assert_eq!(added.into_iter().collect::<Vec<_>>(), ["c.jsonl", "d.jsonl"]);
    }
}

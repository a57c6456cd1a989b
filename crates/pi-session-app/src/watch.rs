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
            let mut changed = BTreeSet::<PathBuf>::new();
            let mut added = BTreeSet::<PathBuf>::new();
            let mut removed = BTreeSet::<PathBuf>::new();
            let mut first: Option<Instant> = None;
            loop {
                let timeout = match first {
                    Some(t) => coalesce.saturating_sub(t.elapsed()),
                    None => Duration::from_secs(3600),
                };
                match rx.recv_timeout(timeout) {
                    Ok(Ok(ev)) => {
                        // A folder that appears (made, or moved in): the files already in it
                        // send no events of their own (the watch on it starts after them).
                        if matches!(ev.kind, EventKind::Create(_) | EventKind::Modify(notify::event::ModifyKind::Name(_))) {
                            for p in ev.paths.iter().filter(|p| p.is_dir()) {
                                session_files_under(p, 3, &mut added);
                            }
                        }
                        for p in ev.paths.iter().filter(|p| is_session_file(p)) {
                            match ev.kind {
                                EventKind::Create(_) => {
                                    added.insert(p.clone());
                                }
                                EventKind::Remove(_) => {
                                    removed.insert(p.clone());
                                }
                                EventKind::Modify(notify::event::ModifyKind::Name(_)) => {
                                    if p.exists() {
                                        added.insert(p.clone());
                                    } else {
                                        removed.insert(p.clone());
                                    }
                                }
                                EventKind::Modify(_) => {
                                    changed.insert(p.clone());
                                }
                                _ => {}
                            }
                        }
                        if first.is_none() && !(changed.is_empty() && added.is_empty() && removed.is_empty()) {
                            first = Some(Instant::now());
                        }
                    }
                    Ok(Err(_)) => {}
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if first.take().is_some() {
                            // A file created and written in the window is "added", not "changed".
                            let added_now: BTreeSet<PathBuf> = added.iter().filter(|p| p.exists()).cloned().collect();
                            let removed_now: BTreeSet<PathBuf> = removed.iter().filter(|p| !p.exists()).cloned().collect();
                            let changed_now: Vec<PathBuf> = changed.iter().filter(|p| !added_now.contains(*p) && p.exists()).cloned().collect();
                            let s = |v: &mut dyn Iterator<Item = &PathBuf>| v.map(|p| pi_session::pathstr::encode(p)).collect::<Vec<_>>();
                            let ev = RootChanged {
                                changed: s(&mut changed_now.iter()),
                                added: s(&mut added_now.iter()),
                                removed: s(&mut removed_now.iter()),
                            };
                            changed.clear();
                            added.clear();
                            removed.clear();
                            if !(ev.changed.is_empty() && ev.added.is_empty() && ev.removed.is_empty()) {
                                on_change(ev);
                            }
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

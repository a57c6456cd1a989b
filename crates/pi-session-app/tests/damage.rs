//! The app's session list over the folder of every kind of damage of docs/damage.md (the
//! session layer's own reading of it is `crates/pi-session/tests/damage.rs`).

#[path = "../../pi-session/tests/damage/fixture.rs"]
mod fixture;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pi_session::listing::list;
use pi_session_app::explorer::Explorer;

const LIMIT: Duration = Duration::from_secs(120);

/// Runs `f` on its own thread; fails the test if it has not finished within `limit`.
fn within<T: Send + 'static>(limit: Duration, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish within {limit:?} (a hang?)"),
    }
}

fn folder() -> (tempfile::TempDir, fixture::Folder) {
    let tmp = tempfile::tempdir().unwrap();
    let f = fixture::build(tmp.path(), &fixture::committed_dir(env!("CARGO_MANIFEST_DIR"), true));
    for s in &f.skipped {
        eprintln!("damage: not set up here: {s}");
    }
    (tmp, f)
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).to_string_lossy().into_owned()
}

/// The app's session list (the explorer behind the window) carries the same findings: the
/// error and warning counts of each row, and the notes about paths that are not sessions.
#[test]
fn the_app_list_shows_the_same_findings() {
    let (tmp, f) = folder();
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::env::set_var("PI_SESSION_CACHE_DIR", &cache);
    let root = f.root.clone();
    let (rows, listing) = within(LIMIT, "the app's list", move || {
        let ex = Explorer::new(root.clone(), "flag", true);
        let t = Instant::now();
        let rows = loop {
            let l = ex.list_sessions(None);
            if l.indexed == l.total {
                break l;
            }
            assert!(t.elapsed() < LIMIT, "indexing did not finish");
            std::thread::sleep(Duration::from_millis(50));
        };
        (rows, list(&root))
    });
    assert_eq!(rows.sessions.len(), listing.sessions.len());
    for (row, s) in rows.sessions.iter().zip(&listing.sessions) {
        assert_eq!(Path::new(&row.path), s.path.as_path());
        let count = |sev| s.diagnostics.iter().filter(|d| d.severity == sev).count() as u32;
        assert_eq!((row.errors, row.warnings), (count(pi_session::Severity::Error), count(pi_session::Severity::Warning)), "{}", row.path);
    }
    let notes: BTreeSet<(String, &str)> = rows.other.iter().map(|o| (rel(&f.root, Path::new(&o.path)), o.diagnostic.kind.as_str())).collect();
    let expected: BTreeSet<(String, &str)> = listing.other.iter().map(|o| (rel(&f.root, &o.path), o.diagnostic.kind.as_str())).collect();
    assert_eq!(notes, expected);
    assert!(notes.iter().any(|(p, k)| p == "folder.jsonl" && *k == "not-a-file"), "{notes:?}");
    assert!(notes.iter().any(|(p, k)| p == "notes.jsonl" && *k == "not-a-session"), "{notes:?}");
}

//! The app and the skeleton cache: an opened session's snapshot is saved off the request, and a
//! restarted app opens from it (the cache itself: `crates/pi-session/tests/skeleton_cache.rs`).

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;
#[path = "../../pi-session/tests/skeleton_cache/fixture.rs"]
mod fixture;


use pi_session::session::CacheUse;
use pi_session_app::explorer::Explorer;

use fixture::{full, observable, session};

#[test]
fn the_app_saves_a_snapshot_off_the_request_and_a_restart_opens_from_it() {
    // The cache as the app finds it: the folder from the environment, every file big enough.
    let cache = common::private_cache();
    std::env::set_var("PI_SESSION_SKELETON_MIN_BYTES", "0");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let folder = root.join("--p--");
    std::fs::create_dir_all(&folder).unwrap();
    let path = session(&folder);
    let before = std::fs::read(&path).unwrap();
    let name = path.to_string_lossy().to_string();

    let app = Explorer::new(root.clone(), "flag", true);
    let s = app.session(&name).unwrap();
    let full = full(&path);
    assert_eq!(observable(&s.read().unwrap()), full);
    // The snapshot is written on a thread of its own: wait for it.
    let snapshots = cache.join("skeletons");
    let t = std::time::Instant::now();
    while std::fs::read_dir(&snapshots).map_or(0, |d| d.filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "bin"))).count()) == 0 {
        assert!(t.elapsed().as_secs() < 20, "no snapshot written under {snapshots:?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // A restarted app (a new explorer) finds it.
    let (s, used) = pi_session::session::SkeletonCache::from_env().unwrap().open(&path).unwrap();
    assert_eq!(used, CacheUse::Hit);
    assert_eq!(observable(&s), full);
    let again = Explorer::new(root, "flag", true);
    assert_eq!(observable(&again.session(&name).unwrap().read().unwrap()), full);
    assert_eq!(std::fs::read(&path).unwrap(), before, "the session file is only read");
}

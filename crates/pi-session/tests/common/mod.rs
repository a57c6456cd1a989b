//! Helpers shared by the integration tests of the core, the CLI, the server and the app (the
//! others include this file with `#[path = ".../crates/pi-session/tests/common/mod.rs"] mod
//! common;`): a seeded random number generator, the repository root, the committed fixtures, a
//! copy of the demo sessions in a temporary folder, and a listing cache that stays out of the
//! user's folders.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Once;

/// Deterministic pseudo-random numbers (xorshift); the seed must not be 0.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform-ish in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// [`Rng::below`] for `u64` bounds (durations in microseconds, say).
    pub fn below_u64(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A seed from the clock (odd, never 0); tests print it so a failure can be replayed.
pub fn seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
}

/// The repository root (the folder of the workspace's `Cargo.lock`), from any crate.
pub fn repo_root() -> PathBuf {
    let mut d = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    while !d.join("Cargo.lock").is_file() {
        assert!(d.pop(), "no Cargo.lock above {}", env!("CARGO_MANIFEST_DIR"));
    }
    d.canonicalize().unwrap()
}

/// The demo sessions committed in `demo/sessions` (read only: copy them before writing).
pub fn demo_sessions() -> PathBuf {
    repo_root().join("demo/sessions")
}

/// The committed examples of every kind of damage (docs/damage.md).
pub fn damage_examples() -> PathBuf {
    repo_root().join("crates/pi-session/tests/damage")
}

/// A copy of the demo sessions in a temporary folder (removed with the guard), for tests that
/// write. Forks name their parents relative to the root, so the copy keeps its fork links.
pub fn demo_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    copy_tree(&demo_sessions(), &root);
    (tmp, root)
}

/// Copies a folder recursively.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Every regular file under a folder, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

/// Points the listing cache (`PI_SESSION_CACHE_DIR`) of this test process at a folder of its
/// own under the build's temporary folder (`target/tmp`), emptied when the process starts, so
/// tests neither read nor write the user's cache nor leave folders in the system's `/tmp`.
pub fn private_cache() -> PathBuf {
    static ONCE: Once = Once::new();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cache-{}", env!("CARGO_CRATE_NAME")));
    ONCE.call_once(|| {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::env::set_var("PI_SESSION_CACHE_DIR", &dir);
    });
    dir
}

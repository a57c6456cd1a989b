//! The skeleton cache: a snapshot is used only while it describes the file, gives exactly what
//! a full read gives, survives damage to itself by reading the file again, and never writes to
//! the session file.

mod common;
#[path = "skeleton_cache/fixture.rs"]
mod fixture;

use std::io::Write;
use std::path::{Path, PathBuf};

use pi_session::session::CacheUse;
use pi_session::Session;

use fixture::{full, observable, session, session_of};

fn snapshot(cache: &Path) -> PathBuf {
    let mut all: Vec<_> = std::fs::read_dir(cache.join("skeletons")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(all.len(), 1, "one snapshot: {all:?}");
    all.pop().unwrap()
}

fn open(path: &Path, cache: &Path) -> (Session, CacheUse) {
    Session::open_with_cache(path, cache, 0).unwrap()
}

#[test]
fn every_damage_example_and_demo_session_reopens_from_its_snapshot_as_read_in_full() {
    let mut n = 0;
    let files = common::files_under(&common::damage_examples()).into_iter().chain(common::files_under(&common::demo_sessions()));
    for f in files {
        let cache = tempfile::tempdir().unwrap();
        let before = std::fs::read(&f).unwrap();
        let full = full(&f);
        let (first, used) = open(&f, cache.path());
        assert_eq!(used, CacheUse::Miss, "{f:?}");
        let (second, used) = open(&f, cache.path());
        assert_eq!(used, CacheUse::Hit, "{f:?}");
        assert_eq!(observable(&first), full, "{f:?}");
        assert_eq!(observable(&second), full, "{f:?}");
        assert_eq!(std::fs::read(&f).unwrap(), before, "{f:?} untouched");
        n += 1;
    }
    assert!(n >= 60, "{n} examples");
}

#[test]
fn appends_extend_the_snapshot_and_a_completed_torn_line_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    assert_eq!(open(&path, cache.path()).1, CacheUse::Miss);
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"-01-01T01:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"go\"}}\n").unwrap();
    let (ix, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Extended);
    assert_eq!(observable(&ix), full(&path));
    assert!(ix.index.entry("bbbbbbbb").is_some());
    let (again, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Hit);
    assert_eq!(observable(&again), observable(&ix));
}

#[test]
fn a_rewritten_or_replaced_file_is_read_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(open(&path, cache.path()).1, CacheUse::Miss);

    // Same size, one entry's text changed in the middle (its mtime moves).
    std::thread::sleep(std::time::Duration::from_millis(20));
    let text = String::from_utf8(bytes.clone()).unwrap().replacen("line 200 ", "LINE 200 ", 1);
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    drop(f);
    let (ix, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Miss);
    assert_eq!(observable(&ix), full(&path));

    // Grown, but an earlier line changed too (the header): read in full.
    let grown = text.replacen("\"cwd\":\"/p\"", "\"cwd\":\"/q\"", 1) + "\n";
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().write_all(grown.as_bytes()).unwrap();
    let (ix, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Miss);
    assert_eq!(ix.index.header.as_ref().and_then(|h| h.cwd.as_deref()), Some("/q"));

    // Replaced by another file (a new inode) of another length.
    let other = dir.path().join("other");
    std::fs::write(&other, &bytes[..bytes.len() / 2]).unwrap();
    std::fs::rename(&other, &path).unwrap();
    let (ix, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Miss);
    assert_eq!(observable(&ix), full(&path));

    // Shorter than what the snapshot read.
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(100).unwrap();
    let (ix, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Miss);
    assert_eq!(observable(&ix), full(&path));
}

#[test]
fn a_damaged_snapshot_is_ignored_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    // Three blocks of messages' metas (1,024 entries each).
    let path = session_of(dir.path(), 2_500);
    let full = full(&path);
    open(&path, cache.path());
    let snap = snapshot(cache.path());
    let good = std::fs::read(&snap).unwrap();
    // The head (28 bytes), the payload, then the metas section.
    let metas_at = 28 + u64::from_le_bytes(good[12..20].try_into().unwrap()) as usize;
    assert!(metas_at < good.len() - 1000, "the metas section follows the payload");
    let seed = common::seed();
    eprintln!("seed {seed}");
    let mut rng = common::Rng(seed);
    let mut cuts: Vec<usize> = (0..40).map(|_| rng.below(good.len())).collect();
    cuts.extend((0..10).map(|_| metas_at + rng.below(good.len() - metas_at)));
    cuts.extend([0, 1, 27, 28, metas_at - 1, metas_at, metas_at + 1, good.len() - 1]);
    for at in cuts {
        // Cut short.
        std::fs::write(&snap, &good[..at]).unwrap();
        let (ix, used) = open(&path, cache.path());
        assert_eq!(used, CacheUse::Miss, "cut at {at}");
        assert_eq!(observable(&ix), full);
        // One byte changed.
        let mut bad = good.clone();
        bad[at] ^= 0x41;
        std::fs::write(&snap, &bad).unwrap();
        let (ix, used) = open(&path, cache.path());
        if at < metas_at {
            assert_eq!(used, CacheUse::Miss, "byte {at} changed");
            assert_eq!(observable(&ix), full);
        } else {
            // The metas are read when first used: the damaged block is found then, taken from
            // the session file, and the snapshot removed, so the next open reads the file.
            assert_eq!(used, CacheUse::Hit, "byte {at} of the metas section changed");
            assert!(snap.exists());
            assert_eq!(observable(&ix), full, "byte {at} of the metas section changed");
            assert!(!snap.exists(), "the damaged snapshot is removed");
            drop(ix);
            assert_eq!(open(&path, cache.path()).1, CacheUse::Miss);
        }
        // Each miss wrote a good snapshot again.
        assert_eq!(std::fs::read(&snap).unwrap(), good);
    }
    // Garbage of the same length, and garbage behind a good head; zeros in place of some or
    // all of it (a snapshot is written without waiting for the disk: after a crash its blocks
    // may read as zeros).
    let noise: Vec<u8> = (0..good.len()).map(|_| rng.below(256) as u8).collect();
    let zeros = vec![0u8; good.len()];
    for bad in [noise.clone(), [&good[..28], &noise[28..]].concat(), zeros.clone(), [&good[..28], &zeros[28..]].concat(), [&good[..metas_at], &zeros[metas_at..]].concat()] {
        std::fs::write(&snap, &bad).unwrap();
        let (ix, used) = open(&path, cache.path());
        if bad[..metas_at] == good[..metas_at] {
            // Only the metas spoiled: found when they are read, as above.
            assert_eq!(used, CacheUse::Hit);
            assert_eq!(observable(&ix), full);
            assert!(!snap.exists(), "the spoiled snapshot is removed");
            drop(ix);
            assert_eq!(open(&path, cache.path()).1, CacheUse::Miss);
        } else {
            assert_eq!(used, CacheUse::Miss);
            assert_eq!(observable(&ix), full);
        }
        assert_eq!(std::fs::read(&snap).unwrap(), good, "replaced by a good snapshot");
    }
}

#[test]
fn a_command_answers_from_the_session_while_its_snapshot_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let path = session_of(dir.path(), 2_500);
    let read = full(&path);
    let c = pi_session::session::SkeletonCache::new(cache.path(), 0);
    // No snapshot yet: the work sees the session as read in full, and the snapshot is saved by
    // the time the call returns.
    let seen = c.with(&path, observable).unwrap();
    assert_eq!(seen, read);
    let snap = snapshot(cache.path());
    let saved = std::fs::read(&snap).unwrap();
    let (ix, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Hit, "the snapshot saved beside the work is used");
    assert_eq!(observable(&ix), read);
    // A snapshot that still describes the file is not written again.
    let t = std::fs::metadata(&snap).unwrap().modified().unwrap();
    assert_eq!(c.with(&path, observable).unwrap(), read);
    assert_eq!(std::fs::metadata(&snap).unwrap().modified().unwrap(), t);
    assert_eq!(std::fs::read(&snap).unwrap(), saved);
    // Grown (the torn last line completed): the work sees it and the snapshot is extended.
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"-01-01T01:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"go\"}}\n").unwrap();
    drop(f);
    let grown = c.with(&path, |s| s.index.entry("bbbbbbbb").is_some()).unwrap();
    assert!(grown, "the appended line is read");
    let (ix, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Hit, "the extended snapshot was saved");
    assert_eq!(observable(&ix), full(&path));
}

#[test]
fn small_files_and_a_missing_cache_folder_read_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let path = session(dir.path());
    let len = std::fs::metadata(&path).unwrap().len();
    let cache = dir.path().join("no/such/folder/yet");
    let (ix, used) = Session::open_with_cache(&path, &cache, len + 1).unwrap();
    assert_eq!(used, CacheUse::Off);
    assert!(!cache.exists());
    assert_eq!(observable(&ix), full(&path));
    // The folder is made on first use.
    assert_eq!(Session::open_with_cache(&path, &cache, len).unwrap().1, CacheUse::Miss);
    assert_eq!(Session::open_with_cache(&path, &cache, len).unwrap().1, CacheUse::Hit);
}

#[test]
fn a_pi1_session_keeps_its_dialect_and_entries_through_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let path = dir.path().join("pi1.jsonl");
    let usage = r#"{"input":100,"output":10,"cacheRead":5,"cacheWrite":1,"totalTokens":116,"cost":{"input":0.1,"output":0.1,"cacheRead":0,"cacheWrite":0,"total":0.25}}"#;
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_string(),
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#.to_string(),
        format!(r#"{{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"yo"}}],"provider":"p","model":"m","usage":{usage},"stopReason":"stop","timestamp":2}}}}"#),
        format!(r#"{{"type":"usage","id":"g1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","kind":"title","provider":"p","model":"m","usage":{usage}}}"#),
        r#"{"type":"context_edit","id":"e1","parentId":"g1","timestamp":"2026-01-01T00:00:04.000Z","targetId":"u1","replacement":null}"#.to_string(),
        format!(r#"{{"type":"compaction","id":"c1","parentId":"e1","timestamp":"2026-01-01T00:00:05.000Z","summary":"S","firstKeptEntryId":"a1","tokensBefore":1,"systemMessage":"sys","usage":{usage}}}"#),
        r#"{"type":"message","id":"x1","parentId":"c1","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"system","content":"be brief","timestamp":6}}"#.to_string(),
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let full = Session::open(&path).unwrap();
    assert_eq!(pi_session::context::Dialect::of(&full.index), pi_session::context::Dialect::Pi1);
    assert_eq!(open(&path, cache.path()).1, CacheUse::Miss);
    let (s, used) = open(&path, cache.path());
    assert_eq!(used, CacheUse::Hit);
    assert_eq!(observable(&s), observable(&full));
    let leaf = full.resolve_leaf(None).unwrap();
    assert_eq!(s.context(leaf), full.context(leaf));
}

#[test]
fn the_cache_keeps_the_newest_snapshots_and_clears_stale_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let skeletons = cache.path().join("skeletons");
    std::fs::create_dir_all(&skeletons).unwrap();
    let stale = skeletons.join(".left-over.tmp");
    let fresh = skeletons.join(".in-progress.tmp");
    for f in [&stale, &fresh] {
        std::fs::write(f, b"partial").unwrap();
    }
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options().write(true).open(&stale).unwrap().set_modified(two_hours_ago).unwrap();
    let src = session(dir.path());
    let mut paths = Vec::new();
    for i in 0..40 {
        let p = dir.path().join(format!("s{i:02}.jsonl"));
        std::fs::copy(&src, &p).unwrap();
        assert_eq!(open(&p, cache.path()).1, CacheUse::Miss);
        paths.push(p);
        // Distinct snapshot times, so "newest" is well defined.
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let bins = std::fs::read_dir(&skeletons).unwrap().filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "bin")).count();
    assert_eq!(bins, 32);
    assert!(!stale.exists(), "a temporary file from over an hour ago is removed");
    assert!(fresh.exists(), "a recent one may belong to a write in progress");
    // The newest are the ones kept.
    assert_eq!(open(&paths[39], cache.path()).1, CacheUse::Hit);
    assert_eq!(open(&paths[8], cache.path()).1, CacheUse::Hit);
    assert_eq!(open(&paths[0], cache.path()).1, CacheUse::Miss);
}

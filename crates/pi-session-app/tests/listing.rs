//! The app's listing lifecycle: a first start on a big root lists header-only summaries and
//! indexes in the background, then lists the full summaries; a second start reads the persistent
//! cache; a watched root reuses its listing until a change is reported.

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use pi_session_app::api::SessionList;
use pi_session_app::explorer::Explorer;

fn session(id: u32, messages: u32) -> String {
    let mut out = format!(
        r#"{{"type":"session","version":3,"id":"00000000-0000-4000-8000-{id:012x}","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/home/u/p{}"}}"#,
        id % 3
    );
    out.push('\n');
    let mut parent = "null".to_string();
    for m in 0..messages {
        let eid = format!("{:08x}", m + 1);
        let (role, text) = if m % 2 == 0 { ("user", format!("question {m} of session {id}")) } else { ("assistant", format!("answer {m}")) };
        let content = if role == "user" {
            format!(r#""content":"{text}""#)
        } else {
            format!(r#""content":[{{"type":"text","text":"{text}"}}],"provider":"p","model":"m","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop""#)
        };
        out.push_str(&format!(
            r#"{{"type":"message","id":"{eid}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"{role}",{content},"timestamp":1}}}}"#
        ));
        out.push('\n');
        parent = format!("\"{eid}\"");
    }
    out
}

fn write_root(root: &Path, files: u32) -> Vec<PathBuf> {
    (0..files)
        .map(|i| {
            let dir = root.join(format!("--home-u-p{}--", i % 3));
            fs::create_dir_all(&dir).unwrap();
            let p = dir.join(format!("2025-01-01T00-00-00-000Z_{i:04}.jsonl"));
            fs::write(&p, session(i, 4 + i % 5)).unwrap();
            p
        })
        .collect()
}

/// A fresh root of `files` sessions under a temporary folder (kept alive by the guard).
fn fresh_root(files: u32) -> (tempfile::TempDir, PathBuf, Vec<PathBuf>) {
    common::private_cache();
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    let written = write_root(&root, files);
    (tmp, root, written)
}

fn counts(l: &SessionList) -> Vec<(String, u32)> {
    let mut v: Vec<(String, u32)> = l.sessions.iter().map(|s| (s.path.clone(), s.entry_count)).collect();
    v.sort();
    v
}

#[test]
fn first_start_indexes_in_the_background_then_the_cache_serves_the_second() {
    let (_tmp, root, files) = fresh_root(120);

    let first = Explorer::new(root.clone(), "flag", true);
    let (tx, rx) = mpsc::channel();
    first.set_progress_sink(Box::new(move |p| {
        if p.done >= p.total {
            let _ = tx.send(p.total);
        }
    }));
    first.set_watched();
    first.prepare();
    let quick = first.list_sessions(None);
    assert_eq!(quick.total, 120);
    assert_eq!(quick.indexed, 0, "a first start on 120 files indexes in the background");
    assert_eq!(quick.sessions.len(), 120, "every session is listed from its header meanwhile");
    assert_eq!(rx.recv_timeout(Duration::from_secs(60)).expect("the background index finishes"), 120);
    let full = first.list_sessions(None);
    assert_eq!(full.indexed, 120, "the end of the index makes the next listing complete");
    for s in &full.sessions {
        let i: u32 = s.path[s.path.len() - 10..s.path.len() - 6].parse().unwrap();
        assert_eq!(s.entry_count, 4 + i % 5, "{}", s.path);
        assert_eq!(s.title, format!("question 0 of session {i}"));
    }

    // A second start: everything from the cache, nothing in the background.
    let second = Explorer::new(root.clone(), "flag", true);
    let again = second.list_sessions(None);
    assert_eq!((again.indexed, again.total), (120, 120));
    assert_eq!(counts(&again), counts(&full));

    // A limited first screen: the most recently active sessions.
    let newest = files[7].clone();
    let mut f = fs::OpenOptions::new().append(true).open(&newest).unwrap();
    std::io::Write::write_all(
        &mut f,
        br#"{"type":"message","id":"0000ffff","parentId":"00000001","timestamp":"2025-06-01T00:00:00.000Z","message":{"role":"user","content":"later","timestamp":2}}
"#,
    )
    .unwrap();
    drop(f);
    let third = Explorer::new(root, "flag", true);
    let few = third.list_sessions(Some(5));
    assert!(few.limited);
    assert_eq!(few.sessions.len(), 5);
    assert!(few.sessions.iter().any(|s| Path::new(&s.path) == newest), "the newest session is on the first screen");
}

#[test]
fn a_watched_listing_is_reused_until_a_change_is_reported() {
    let (_tmp, root, _) = fresh_root(6);
    let ex = Explorer::new(root.clone(), "flag", true);
    ex.set_watched();
    ex.prepare();
    assert_eq!(ex.list_sessions(None).sessions.len(), 6);

    // A new file without a reported change: the watched listing stands.
    let dir = root.join("--home-u-p0--");
    fs::write(dir.join("2025-01-02T00-00-00-000Z_new.jsonl"), session(99, 2)).unwrap();
    assert_eq!(ex.list_sessions(None).sessions.len(), 6);

    // Reported: the next listing has it, and is reused in turn.
    ex.root_changed();
    let l = ex.list_sessions(None);
    assert_eq!(l.sessions.len(), 7);
    let new = l.sessions.iter().find(|s| s.path.ends_with("_new.jsonl")).expect("the new session is listed");
    assert_eq!(new.entry_count, 2);
    fs::remove_file(dir.join("2025-01-02T00-00-00-000Z_new.jsonl")).unwrap();
    assert_eq!(ex.list_sessions(None).sessions.len(), 7);
    ex.root_changed();
    assert_eq!(ex.list_sessions(None).sessions.len(), 6);
}

#[test]
fn an_unwatched_listing_is_read_again_each_time() {
    let (_tmp, root, _) = fresh_root(3);
    let ex = Explorer::new(root.clone(), "flag", true);
    assert_eq!(ex.list_sessions(None).sessions.len(), 3);
    fs::write(root.join("--home-u-p1--").join("2025-01-02T00-00-00-000Z_more.jsonl"), session(50, 3)).unwrap();
    assert_eq!(ex.list_sessions(None).sessions.len(), 4);
}

/// A damaged list cache (cut short, overwritten with garbage) is read as an empty one: the
/// listing equals one made without a cache, through the CLI's path and the app's, and a good
/// cache is written in its place.
#[test]
fn a_damaged_list_cache_is_read_as_empty_and_replaced() {
    use pi_session::cache::ListCache;
    use pi_session::listing::{list, list_with_cache};
    let (_tmp, root, _) = fresh_root(12);
    let file = ListCache::file_for(&root).unwrap();
    let summary = |l: &pi_session::listing::Listing| l.sessions.iter().map(|s| (s.path.clone(), s.id.clone(), s.entry_count, s.leaf_id.clone())).collect::<Vec<_>>();
    let want = summary(&list(&root));
    assert_eq!(want.len(), 12);
    let (_, mut cache) = list_with_cache(&root);
    cache.save_if_changed();
    let good = fs::read(&file).unwrap();
    let mut x = common::seed();
    eprintln!("seed {x}");
    let garbage: Vec<u8> = (0..good.len())
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    for (what, bad) in [("cut short", good[..good.len() / 2].to_vec()), ("garbage", garbage), ("empty", Vec::new())] {
        fs::write(&file, &bad).unwrap();
        let (l, mut cache) = list_with_cache(&root);
        assert_eq!(summary(&l), want, "{what}");
        assert!(cache.changed, "{what}: every file indexed again");
        cache.save_if_changed();
        let again: serde_json::Value = serde_json::from_slice(&fs::read(&file).unwrap()).unwrap_or_else(|e| panic!("{what}: a good cache written back: {e}"));
        assert_eq!(again["files"].as_object().unwrap().len(), 12, "{what}");
        // The app's listing over the damaged cache.
        fs::write(&file, &bad).unwrap();
        let ex = Explorer::new(root.clone(), "flag", true);
        let rows = counts(&ex.list_sessions(None));
        assert_eq!(rows, want.iter().map(|w| (w.0.to_string_lossy().into_owned(), w.2 as u32)).collect::<Vec<_>>(), "{what}");
        assert!(serde_json::from_slice::<serde_json::Value>(&fs::read(&file).unwrap()).is_ok(), "{what}: replaced by the app too");
    }
}

#[test]
fn a_warm_listing_writes_no_cache_and_a_grown_file_is_read_again() {
    use pi_session::cache::ListCache;
    use pi_session::listing::list_with_cache;
    let (_tmp, root, files) = fresh_root(10);
    let file = ListCache::file_for(&root).unwrap();

    let (first, mut cache) = list_with_cache(&root);
    assert!(cache.changed, "a first listing fills the cache");
    cache.save_if_changed();
    let saved = fs::metadata(&file).unwrap().modified().unwrap();

    let (second, mut cache) = list_with_cache(&root);
    assert!(!cache.changed, "nothing changed: the cache answers everything");
    cache.save_if_changed();
    assert_eq!(fs::metadata(&file).unwrap().modified().unwrap(), saved, "a warm listing does not rewrite the cache");
    let summary = |l: &pi_session::listing::Listing| l.sessions.iter().map(|s| (s.path.clone(), s.entry_count)).collect::<Vec<_>>();
    assert_eq!(summary(&first), summary(&second));

    let mut f = fs::OpenOptions::new().append(true).open(&files[3]).unwrap();
    std::io::Write::write_all(
        &mut f,
        br#"{"type":"message","id":"0000fff0","parentId":"00000001","timestamp":"2025-02-01T00:00:00.000Z","message":{"role":"user","content":"more","timestamp":2}}
"#,
    )
    .unwrap();
    drop(f);
    let (third, cache) = list_with_cache(&root);
    assert!(cache.changed);
    let grown = third.sessions.iter().find(|s| s.path == files[3]).unwrap();
    assert_eq!(grown.entry_count, 8, "7 entries written, one appended");
}

#[test]
fn many_files_come_back_in_path_order_each_with_its_own_summary() {
    // Enough files to index one per task, biggest first, on every core; folder names whose byte
    // order differs from path order ('-' and '.' sort before '/'); files at the top level too.
    let (_tmp, root, _) = fresh_root(0);
    let mut expected = Vec::new();
    for i in 0..64u32 {
        let dir = match i % 5 {
            0 => root.clone(),
            k => root.join(["--a--", "--a-b--", "--a.b--", "b"][k as usize - 1]),
        };
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join(format!("s{:02}.jsonl", (i * 37) % 64));
        let messages = 1 + (i * 13) % 40;
        fs::write(&p, session(i, messages)).unwrap();
        expected.push((p, messages as usize));
    }
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    let found: Vec<PathBuf> = pi_session::scan::scan(&root).files.into_iter().map(|f| f.path).collect();
    assert_eq!(found, expected.iter().map(|e| e.0.clone()).collect::<Vec<_>>());
    let listing = pi_session::listing::list(&root);
    assert!(listing.other.is_empty(), "{:?}", listing.other);
    let got: Vec<(PathBuf, usize)> = listing.sessions.iter().map(|s| (s.path.clone(), s.entry_count)).collect();
    assert_eq!(got, expected);
}

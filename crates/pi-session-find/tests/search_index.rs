//! The search index against a brute-force scan of the same bytes, on a generated corpus; and
//! its incremental updates (append, replace, remove).

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{brute_force, built, corpus, indexed};
use pi_session_format::entry::Kind;
use pi_session::SessionIndex;
use pi_session_find::{Query, SearchIndex};

const QUERIES: &[&str] = &[
    "parser",
    "cache",
    "timeout retry",
    "\"should be\"",
    "src/parser.ts",
    "UTF-8",
    "café",
    "日本語",
    "🙂",
    "ok",
    "a",
    "zz",
    "qu role:user",
    "role:user migration",
    "role:assistant handler",
    "role:toolResult error",
    "tool:bash",
    "tool:read src",
    "role:compaction",
    "role:compaction schema",
    "role:user \"edge case\"",
    "\"edge case\"",
    "label:checkpoint",
    "label:checkpoint role:user",
    "model:claude",
    "cwd:webapp schema",
    "cwd:webapp",
    "cwd:api role:user",
    "name:a model:claude",
    "after:2025-06-01 before:2026-12-31 database",
];

fn assert_same(root: &Path, ix: &SearchIndex, queries: &[&str]) -> usize {
    let mut nonempty = 0;
    for q in queries {
        let want = brute_force(root, &Query::parse(q).unwrap());
        let got = indexed(ix, q);
        if !want.is_empty() {
            nonempty += 1;
        }
        assert_eq!(got.len(), want.len(), "{q}: {} hits by the index, {} by the scan", got.len(), want.len());
        assert_eq!(got, want, "{q}");
    }
    nonempty
}

#[test]
fn queries_equal_a_brute_force_scan_and_appends_are_incremental() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(&dir.path().join("corpus"), 24, 2_500_000);
    let ix = SearchIndex::open(&root, &dir.path().join("cache/search.sqlite")).unwrap();
    let progress = std::sync::Mutex::new(Vec::new());
    let st = ix.update(|p| progress.lock().unwrap().push(p.done)).unwrap();
    assert_eq!(st.added, st.files);
    assert!(st.files >= 20, "{st:?}");
    assert_eq!(progress.lock().unwrap().last().copied(), Some(st.files));
    let nonempty = assert_same(&root, &ix, QUERIES);
    assert!(nonempty >= 15, "only {nonempty} of the queries found anything: the corpus does not exercise them");

    // Nothing changed: nothing is parsed again.
    let st = ix.update(|_| {}).unwrap();
    assert_eq!((st.unchanged, st.entries_added), (st.files, 0));

    // An append indexes only the new lines.
    let files = pi_session::scan::scan(&root).files;
    let target = &files[3].path;
    let s = SessionIndex::load(target).unwrap();
    let last = s.entries.iter().rev().find(|e| e.id.is_some()).unwrap().id_str().to_string();
    let label_target = s.entries.iter().find(|e| e.kind == Kind::Message).unwrap().id_str().to_string();
    let before = std::fs::read(target).unwrap();
    let add = format!(
        "{{\"type\":\"message\",\"id\":\"zz-new-1\",\"parentId\":\"{last}\",\"timestamp\":\"2026-11-30T10:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"xylophone-marker in a fresh line\",\"timestamp\":1796032800000}}}}\n{{\"type\":\"label\",\"id\":\"zz-new-2\",\"parentId\":\"zz-new-1\",\"timestamp\":\"2026-11-30T10:00:01.000Z\",\"targetId\":\"{label_target}\",\"label\":\"Checkpoint-Q\"}}\n"
    );
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(target).unwrap();
        f.write_all(add.as_bytes()).unwrap();
        // A half-written line waits for its newline.
        f.write_all(b"{\"type\":\"message\",\"id\":\"zz-partial\",\"parentId\":\"zz-new-1\",\"message\":{\"role\":\"user\",\"content\":\"xylophone").unwrap();
    }
    let st = ix.update(|_| {}).unwrap();
    assert_eq!((st.appended, st.reindexed, st.added, st.entries_added), (1, 0, 0, 2), "{st:?}");
    let hits = indexed(&ix, "xylophone");
    assert_eq!(hits.len(), 1);
    assert_eq!(hits.iter().next().unwrap().1, "zz-new-1");
    assert_eq!(indexed(&ix, "label:checkpoint-q").iter().map(|h| h.1.clone()).collect::<Vec<_>>(), vec![label_target.clone()]);
    assert_same(&root, &ix, &["xylophone", "label:checkpoint", "role:user fresh", "after:2026-11-30 xylophone"]);

    // The line completes: only it is indexed.
    {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(target).unwrap();
        f.write_all(b" two\"}}\n").unwrap();
    }
    let st = ix.update(|_| {}).unwrap();
    assert_eq!((st.appended, st.entries_added), (1, 1), "{st:?}");
    assert_eq!(indexed(&ix, "xylophone").len(), 2);
    assert_same(&root, &ix, &["xylophone", "xylophone two", "role:user fresh"]);
    // An append reads the file from a little before its new lines: the tail it kept of the
    // file is the file's, so the next look finds nothing to do.
    let st = ix.update(|_| {}).unwrap();
    assert_eq!((st.unchanged, st.entries_added, st.reindexed, st.appended), (st.files, 0, 0, 0), "{st:?}");

    // A file rewritten (shorter) is indexed again; a removed file leaves the index.
    std::fs::write(target, &before).unwrap();
    let st = ix.update(|_| {}).unwrap();
    assert_eq!(st.reindexed, 1, "{st:?}");
    assert!(indexed(&ix, "xylophone").is_empty());
    let gone = files[5].path.clone();
    let gone_hits_before = ix.search("the", 10_000).unwrap().sessions.iter().any(|s| s.path == gone.to_string_lossy());
    assert!(gone_hits_before);
    std::fs::remove_file(&gone).unwrap();
    let st = ix.update(|_| {}).unwrap();
    assert_eq!(st.removed, 1);
    assert!(!ix.search("the", 10_000).unwrap().sessions.iter().any(|s| s.path == gone.to_string_lossy()));
    assert_same(&root, &ix, &QUERIES[..6]);

    // The index reopens from disk with the same answers.
    drop(ix);
    let ix = SearchIndex::open(&root, &dir.path().join("cache/search.sqlite")).unwrap();
    assert_eq!(ix.update(|_| {}).unwrap().entries_added, 0);
    assert_same(&root, &ix, &QUERIES[..4]);
}

#[test]
fn the_index_never_lives_under_the_sessions_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    std::fs::create_dir_all(&root).unwrap();
    let e = SearchIndex::open(&root, &root.join("x/search.sqlite")).err().expect("refused");
    assert_eq!(e.code(), "invalid");
}

#[test]
fn highlights_cover_the_terms_and_results_group_by_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(&dir.path().join("corpus"), 8, 600_000);
    let ix = SearchIndex::open(&root, &dir.path().join("c/s.sqlite")).unwrap();
    ix.update(|_| {}).unwrap();
    let r = ix.search("parser cache", 200).unwrap();
    assert!(r.total_hits > 0);
    let mut paths = BTreeSet::new();
    for s in &r.sessions {
        assert!(paths.insert(s.path.clone()), "one group per session");
        for h in &s.hits {
            let units: Vec<u16> = h.snippet.encode_utf16().collect();
            assert!(!h.highlights.is_empty(), "{h:?}");
            for [a, n] in &h.highlights {
                let m = String::from_utf16_lossy(&units[*a as usize..(*a + *n) as usize]).to_lowercase();
                assert!(m == "parser" || m == "cache", "{m:?} in {:?}", h.snippet);
            }
        }
    }
}

/// The lines of a query are checked in batches, on every core: an answer cut at any limit is
/// the start of the longer answers, hit for hit, with the same snippets.
#[test]
fn a_limited_answer_is_the_start_of_every_longer_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(&dir.path().join("corpus"), 12, 1_500_000);
    let ix = SearchIndex::open(&root, &dir.path().join("c/s.sqlite")).unwrap();
    ix.update(|_| {}).unwrap();
    let hits = |q: &str, limit: usize| {
        let r = ix.search(q, limit).unwrap();
        let all: BTreeSet<(String, String, String, Vec<[u32; 2]>)> = r.sessions.iter().flat_map(|s| s.hits.iter().map(move |h| (s.path.clone(), h.id.clone(), h.snippet.clone(), h.highlights.clone()))).collect();
        (all, r.truncated, r.total_hits)
    };
    let mut checked = 0;
    for q in ["the", "parser", "role:user", "tool:bash", "error handler"] {
        let (whole, truncated, total) = hits(q, 10_000);
        assert!(!truncated && total == whole.len(), "{q}");
        let mut shorter = BTreeSet::new();
        for limit in [1, 2, 5, 17, 64, 300, 1_000] {
            let (got, truncated, total) = hits(q, limit);
            assert_eq!(total, got.len(), "{q} {limit}");
            assert_eq!(got.len(), limit.min(whole.len()), "{q} {limit}");
            assert_eq!(truncated, whole.len() > limit, "{q} {limit}");
            assert!(got.is_subset(&whole), "{q} {limit}: hits or snippets not in the whole answer");
            assert!(shorter.is_subset(&got), "{q} {limit}: a shorter answer is not the start of this one");
            shorter = got;
            checked += 1;
        }
        assert!(whole.len() > 64 || q == "error handler", "{q}: {} hits, too few to cut", whole.len());
    }
    assert_eq!(checked, 35);
}

/// A build paused between batches keeps what it committed; a search meanwhile reads the files
/// left (and says how many), with the answers of the brute force; resumed, it finishes.
#[test]
fn a_paused_build_keeps_what_it_did_and_searches_read_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(&dir.path().join("corpus"), 200, 1_000_000);
    let files = pi_session::scan::scan(&root).files.len();
    assert!(files > 3 * 64, "four batches at least: {files}");
    let ix = SearchIndex::open(&root, &dir.path().join("cache/search.sqlite")).unwrap();
    // Paused before it starts: nothing is read.
    ix.set_paused(true);
    let st = ix.update(|_| {}).unwrap();
    assert!(st.paused && st.added == 0, "{st:?}");
    let r = ix.search("parser", 10_000).unwrap();
    assert_eq!((r.files_indexed, r.scanned_files), (0, files));
    assert_same(&root, &ix, &["parser", "role:user migration", "tool:bash", "ok"]);
    // Paused once its first batch is written (the one read meanwhile is written too): they stay.
    ix.set_paused(false);
    let st = ix.update(|p| {
        if p.done > 0 {
            ix.set_paused(true);
        }
    });
    let st = st.unwrap();
    assert!(st.paused && st.added > 0 && st.added < files, "{st:?}");
    let r = ix.search("parser", 10_000).unwrap();
    assert_eq!(r.files_indexed + r.scanned_files, files, "{} + {}", r.files_indexed, r.scanned_files);
    assert!(r.scanned_files > 0);
    assert_same(&root, &ix, &["parser", "role:user migration", "tool:bash", "ok", "\"edge case\""]);
    // Resumed: the rest, and nothing read by scanning any more.
    ix.set_paused(false);
    let st2 = ix.update(|_| {}).unwrap();
    assert_eq!(st.added + st2.added, files, "{st2:?}");
    assert_eq!(ix.search("parser", 10).unwrap().scanned_files, 0);
    assert_same(&root, &ix, &["parser", "role:user migration", "tool:bash", "ok", "\"edge case\""]);
}

#[test]
fn a_big_file_read_in_pieces_on_all_threads_answers_as_a_scan() {
    // The big file (about 10 MB) is cut into pieces of 4 MB of lines, read on the pool's
    // threads, their blocks joined: the answers are still those of a scan.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("corpus");
    pi_session_bench::corpus::generate(&pi_session_bench::corpus::Options { out: out.clone(), seed: 11, files: 3, total_bytes: 300_000, big_entries: Some(12_000), threads: 2, short: false }).unwrap();
    let root = out.join("sessions");
    let biggest = pi_session::scan::scan(&root).files.iter().map(|f| f.size).max().unwrap();
    assert!(biggest > 8 << 20, "the big file is {biggest} bytes: it must make 3 pieces or more");
    let ix = SearchIndex::open(&root, &dir.path().join("cache/search.sqlite")).unwrap();
    ix.update(|_| {}).unwrap();
    let nonempty = assert_same(&root, &ix, &["src/parser.ts", "\"should be\"", "café", "role:compaction schema", "\"edge case\"", "label:checkpoint", "tool:read src", "timeout retry", "zz"]);
    assert!(nonempty >= 5, "only {nonempty} queries found anything");
}

/// An update that only finds files gone still merges: most of the blocks dead, the posting
/// files are written again without them (an update with nothing to do stops early; one with
/// removals must not).
#[test]
fn an_update_that_only_removes_files_drops_their_blocks_from_the_postings() {
    let dir = tempfile::tempdir().unwrap();
    let (root, db, ix) = built(dir.path(), 12, 1_200_000);
    let postings = |db: &Path| -> u64 { std::fs::read_dir(format!("{}-postings", db.display())).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum() };
    let before = postings(&db);
    let files = pi_session::scan::scan(&root).files;
    for f in &files[..files.len() - 2] {
        std::fs::remove_file(&f.path).unwrap();
    }
    let st = ix.update(|_| {}).unwrap();
    assert_eq!((st.removed, st.added + st.appended + st.reindexed), (files.len() - 2, 0), "{st:?}");
    let after = postings(&db);
    assert!(after * 10 < before * 9, "the dead blocks' ids stay in the posting files: {before} -> {after} bytes");
    assert_same(&root, &ix, QUERIES);
}

/// A session appended to while the index is brought up to date again and again, as beside a
/// running pi (each line written in two pieces, so an update can meet half a line): every line
/// is indexed once and whole, and when the writer stops the answers equal a brute-force read.
#[test]
fn updates_beside_a_writer_index_each_appended_line_once() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let (root, _db, ix) = built(dir.path(), 6, 400_000);
    let target = pi_session::scan::scan(&root).files[2].path.clone();
    let s = SessionIndex::load(&target).unwrap();
    let mut parent = s.entries.iter().rev().find(|e| e.id.is_some()).unwrap().id_str().to_string();
    let lines: Vec<String> = (0..200)
        .map(|i| {
            let id = format!("w{i:03}");
            let l = format!("{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":\"{parent}\",\"timestamp\":\"2026-12-06T10:00:00.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"wombat number {i} in a long enough line to be cut in two\",\"timestamp\":1796032800000}}}}");
            parent = id;
            l
        })
        .collect();
    let done = AtomicBool::new(false);
    let updates = AtomicUsize::new(0);
    let mut whole_again = 0;
    std::thread::scope(|sc| {
        sc.spawn(|| {
            for (i, l) in lines.iter().enumerate() {
                let mut f = std::fs::OpenOptions::new().append(true).open(&target).unwrap();
                let (a, b) = l.as_bytes().split_at(l.len() / 2);
                f.write_all(a).unwrap();
                // Every tenth line waits, half written, for an update to meet it.
                if i % 10 == 0 {
                    let seen = updates.load(Ordering::SeqCst);
                    while updates.load(Ordering::SeqCst) < seen + 2 {
                        std::thread::yield_now();
                    }
                }
                f.write_all(b).unwrap();
                f.write_all(b"\n").unwrap();
            }
            done.store(true, Ordering::SeqCst);
        });
        while !done.load(Ordering::SeqCst) {
            let st = ix.update(|_| {}).unwrap();
            whole_again += st.reindexed + st.added;
            updates.fetch_add(1, Ordering::SeqCst);
        }
    });
    let st = ix.update(|_| {}).unwrap();
    assert!(updates.load(Ordering::SeqCst) >= 20, "{updates:?}");
    // Half a line is left for the next update: the file is never read whole again.
    assert_eq!(whole_again + st.reindexed + st.added, 0, "appends only: {st:?}");
    let r = ix.search("wombat", 10_000).unwrap();
    assert_eq!(r.total_hits, 200, "each line once");
    let mut ids: Vec<String> = r.sessions.iter().flat_map(|s| s.hits.iter().map(|h| h.id.clone())).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 200);
    assert_same(&root, &ix, &["wombat", "\"wombat number 1\"", "role:user wombat", "wombat number 199"]);
}

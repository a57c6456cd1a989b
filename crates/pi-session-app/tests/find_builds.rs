//! Builds of the search index asked for at once (the window asks at start, on a new root, on
//! resume and when the index is turned on): each finishes, one after the other, and the index
//! answers as a read of every file does.

use std::sync::mpsc;
use std::time::Duration;

use pi_session_app::explorer::Explorer;
use pi_session_app::find::FindState;
use pi_session_find::Query;

#[test]
fn builds_asked_for_at_once_each_finish_and_leave_the_index_whole() {
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("PI_SESSION_CACHE_DIR", dir.path().join("cache"));
    pi_session_bench::corpus::generate(&pi_session_bench::corpus::Options { out: dir.path().join("c"), seed: 21, files: 40, total_bytes: 3_000_000, big_entries: None, threads: 2, short: false }).unwrap();
    let root = std::fs::canonicalize(dir.path().join("c/sessions")).unwrap();
    let ex = Explorer::new(root.clone(), "flag", false);
    let find = FindState::window(&dir.path().join("data"));
    find.build(&ex, |_| {});
    let files = pi_session::scan::scan(&root).files;
    for round in 0..4 {
        // Work for every build: a line appended to one file, another file touched.
        use std::io::Write;
        let f = &files[round % files.len()].path;
        let line = format!("{{\"type\":\"label\",\"id\":\"lbl{round:05}\",\"parentId\":null,\"timestamp\":\"2026-03-02T10:00:00.000Z\",\"targetId\":\"x\",\"label\":\"round{round}\"}}\n");
        std::fs::OpenOptions::new().append(true).open(f).unwrap().write_all(line.as_bytes()).unwrap();
        let (done, finished) = mpsc::channel();
        std::thread::scope(|s| {
            for _ in 0..6 {
                let done = done.clone();
                let (find, ex) = (&find, &ex);
                s.spawn(move || {
                    find.build(ex, |_| {});
                    done.send(()).unwrap();
                });
            }
            for k in 0..6 {
                // A build that waits for a connection its own thread holds never finishes.
                finished.recv_timeout(Duration::from_secs(120)).unwrap_or_else(|_| panic!("round {round}: {k} of 6 builds finished in 2 minutes"));
            }
        });
        let status = find.status(&ex).unwrap();
        assert!(status.error.is_none(), "{:?}", status.error);
        assert_eq!(status.files_indexed, files.len());
    }
    for q in ["parser", "cache", "role:user timeout", "tool:bash"] {
        let got = find.search(&ex, q, 10_000).unwrap();
        assert_eq!(got.scanned_files, 0, "{q}: answered from the index");
        let mut ids: Vec<(String, String)> = got.sessions.iter().flat_map(|s| s.hits.iter().map(move |h| (s.path.clone(), h.id.clone()))).collect();
        ids.sort();
        let brute = pi_session_find::scan::search_files(&files.iter().map(|f| f.path.clone()).collect::<Vec<_>>(), &Query::parse(q).unwrap(), 10_000).0;
        let mut want: Vec<(String, String)> = brute.iter().flat_map(|s| s.hits.iter().map(move |h| (s.path.clone(), h.id.clone()))).collect();
        want.sort();
        assert_eq!(ids, want, "{q}");
    }
}

//! Search over several roots: the hits of each root's index merged, the synced prefix copy the
//! listing shows once left out, the limit applied across roots, and the bands of one file
//! taken from the index of the root holding it.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use pi_session_app::explorer::Explorer;
use pi_session::roots::{RootSpec, Roots};
use pi_session_find::roots::{hits_in_file_all, search_all, status_all, update_all};
use pi_session_find::{RootIndexes, SearchIndex};

fn corpus(dir: &Path, seed: u64) -> PathBuf {
    pi_session_bench::corpus::generate(&pi_session_bench::corpus::Options { out: dir.to_path_buf(), seed, files: 6, total_bytes: 400_000, big_entries: None, threads: 2, short: false }).unwrap();
    std::fs::canonicalize(dir.join("sessions")).unwrap()
}

fn pairs(r: &pi_session_find::SearchResults) -> BTreeSet<(String, String)> {
    r.sessions.iter().flat_map(|s| s.hits.iter().map(move |h| (s.path.clone(), h.id.clone()))).collect()
}

#[test]
fn several_roots_are_searched_as_one_without_the_copies_shown_once() {
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("PI_SESSION_CACHE_DIR", dir.path().join("cache"));
    let a = corpus(&dir.path().join("laptop"), 11);
    let b = corpus(&dir.path().join("desk"), 12);
    // A synced copy: the desk holds the first half of one of the laptop's files (whole lines).
    let original = pi_session::scan::scan(&a).files.into_iter().max_by_key(|f| f.size).unwrap().path;
    let bytes = std::fs::read(&original).unwrap();
    let cut = bytes[..bytes.len() / 2].iter().rposition(|&c| c == b'\n').unwrap() + 1;
    let copy = b.join(original.parent().unwrap().file_name().unwrap()).join(original.file_name().unwrap());
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::write(&copy, &bytes[..cut]).unwrap();

    let ex = Explorer::new_multi(Roots::new(vec![RootSpec { name: "laptop".into(), path: a.clone(), read_only: false }, RootSpec { name: "desk".into(), path: b.clone(), read_only: false }]), "flag", false).unwrap();
    let shadowed = ex.shadowed_copies();
    assert_eq!(shadowed, vec![(copy.clone(), original.clone())], "the listing shows the copy once");
    let hidden: HashSet<PathBuf> = shadowed.into_iter().map(|(p, _)| p).collect();

    let indexes = RootIndexes::new();
    let db = |root: &Path| SearchIndex::open(root, &dir.path().join("cache").join(format!("{}.sqlite", root.parent().unwrap().file_name().unwrap().to_string_lossy())));
    let ixs = indexes.of_with(&[a.clone(), b.clone()], db).unwrap();
    update_all(&ixs).unwrap();
    let status = status_all(&ixs).unwrap();
    assert_eq!(status.files_indexed, ixs[0].file_count().unwrap() + ixs[1].file_count().unwrap());
    assert!(!status.building);

    let mut in_both = 0;
    for q in ["parser", "cache", "role:user timeout", "tool:bash", "\"edge case\""] {
        let all = search_all(&ixs, &hidden, q, 10_000).unwrap();
        let mut want = pairs(&ixs[0].search(q, 10_000).unwrap());
        want.extend(pairs(&ixs[1].search(q, 10_000).unwrap()));
        let copy_s = copy.to_string_lossy().into_owned();
        let copy_hits = want.iter().filter(|(p, _)| *p == copy_s).count();
        want.retain(|(p, _)| *p != copy_s);
        assert_eq!(pairs(&all), want, "{q}: the union of both roots, without the copy");
        assert_eq!(all.total_hits, want.len());
        assert!(!all.truncated);
        let from = |r: &Path| all.sessions.iter().filter(|s| Path::new(&s.path).starts_with(r)).count();
        if from(&a) > 0 && from(&b) > 0 {
            in_both += 1;
        }
        if copy_hits > 0 {
            assert!(all.sessions.iter().any(|s| Path::new(&s.path) == original), "{q}: the longer copy still answers");
        }
        // Sessions come newest hit first, across roots.
        let newest: Vec<f64> = all.sessions.iter().map(|s| s.hits.iter().filter_map(|h| h.ts).fold(f64::NEG_INFINITY, f64::max)).collect();
        assert!(newest.windows(2).all(|w| w[0] >= w[1]), "{q}: {newest:?}");

        // The limit holds across roots.
        if want.len() > 3 {
            let few = search_all(&ixs, &hidden, q, 3).unwrap();
            assert_eq!(few.total_hits, 3, "{q}");
            assert!(few.truncated);
        }
        // The bands of one file come from the index of its root.
        if let Some(s) = all.sessions.iter().find(|s| Path::new(&s.path).starts_with(&b)) {
            let ids: BTreeSet<String> = hits_in_file_all(&ixs, q, &s.path).unwrap().into_iter().collect();
            let shown: BTreeSet<String> = s.hits.iter().map(|h| h.id.clone()).collect();
            assert!(shown.is_subset(&ids), "{q}");
        }
    }
    assert!(in_both >= 2, "hits from both roots in one answer ({in_both} queries)");

    // A root removed from the view: its index is closed, the other one reused.
    let one = indexes.of_with(&[a.clone()], |_| unreachable!("already open")).unwrap();
    assert!(std::sync::Arc::ptr_eq(&one[0], &ixs[0]));
}

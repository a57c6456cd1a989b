//! A generated corpus is valid, pi-shaped, deterministic, and its forks copy their parents.

use pi_session_bench::corpus::{generate, Options};
use std::path::{Path, PathBuf};

fn files(root: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in std::fs::read_dir(root).unwrap() {
        for f in std::fs::read_dir(d.unwrap().path()).unwrap() {
            v.push(f.unwrap().path());
        }
    }
    v.sort();
    v
}

fn gen(dir: &Path, threads: usize) -> pi_session_bench::corpus::Stats {
    let _ = std::fs::remove_dir_all(dir);
    generate(&Options { out: dir.to_path_buf(), seed: 5, files: 40, total_bytes: 8_000_000, big_entries: Some(3_000), threads, short: false }).unwrap()
}

#[test]
fn corpus_is_valid_and_deterministic() {
    let base = std::env::temp_dir().join(format!("pi-corpus-test-{}", std::process::id()));
    let a = base.join("a");
    let st = gen(&a, 2);
    let root = a.join("sessions");
    let paths = files(&root);
    assert_eq!(paths.len(), 40);
    assert_eq!(st.files, 40);
    assert!(st.forks >= 5 && st.max_fork_depth == 5, "{} forks, depth {}", st.forks, st.max_fork_depth);
    let big = st.big_file.clone().unwrap();
    assert!(big.entries >= 3_000 && big.depth >= 1_500, "{big:?}");
    assert!(big.branch_points > 20, "{big:?}");

    let mut entries = 0u64;
    for p in &paths {
        let bytes = std::fs::read(p).unwrap();
        assert_eq!(bytes.last(), Some(&b'\n'));
        let lines: Vec<&[u8]> = bytes[..bytes.len() - 1].split(|&b| b == b'\n').collect();
        let header: serde_json::Value = serde_json::from_slice(lines[0]).unwrap();
        assert_eq!(header["type"], "session");
        assert_eq!(header["version"], 3);
        // pi's names: folder from the cwd, file from the header timestamp and id.
        let cwd = header["cwd"].as_str().unwrap();
        assert_eq!(p.parent().unwrap().file_name().unwrap().to_str().unwrap(), pi_session_bench::lines::encode_cwd(cwd));
        let ts = header["timestamp"].as_str().unwrap().replace([':', '.'], "-");
        assert_eq!(p.file_name().unwrap().to_str().unwrap(), format!("{ts}_{}.jsonl", header["id"].as_str().unwrap()));
        for l in &lines[1..] {
            let v: serde_json::Value = serde_json::from_slice(l).unwrap();
            assert!(v["id"].is_string() && v.get("parentId").is_some() && v["timestamp"].is_string());
        }
        entries += lines.len() as u64 - 1;
        // A fork starts with its parent's lines, byte for byte.
        if let Some(parent) = header["parentSession"].as_str() {
            let parent = Path::new(parent);
            assert!(parent.is_absolute() && parent.exists(), "{}", parent.display());
            let pbytes = std::fs::read(parent).unwrap();
            let plines: std::collections::HashSet<&[u8]> = pbytes.split(|&b| b == b'\n').skip(1).collect();
            assert!(plines.contains(lines[1]), "{}: first entry not in the parent", p.display());
        }
        // Our core reads it without a finding, and the context builds.
        let s = pi_session::Session::open(p).unwrap();
        assert!(s.diagnostics().is_empty(), "{}: {:?}", p.display(), s.diagnostics());
        assert_eq!(s.index.entries.len(), lines.len() - 1);
        let _ = s.context(s.tree.leaf);
    }
    assert_eq!(entries, st.entries);

    // Same seed, another thread count, same folder name: the same bytes.
    let b = base.join("b");
    std::fs::rename(&a, &b).unwrap();
    gen(&a, 1);
    let again = files(&a.join("sessions"));
    assert_eq!(again, paths);
    for p in &paths {
        let q = b.join(p.strip_prefix(&a).unwrap());
        assert!(std::fs::read(p).unwrap() == std::fs::read(&q).unwrap(), "{} differs", p.display());
    }
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn short_profile_has_short_entries_that_index_cleanly() {
    let dir = std::env::temp_dir().join(format!("pi-corpus-short-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let st = generate(&Options { out: dir.clone(), seed: 3, files: 30, total_bytes: 15_000_000, big_entries: None, threads: 2, short: true }).unwrap();
    let normal_dir = dir.join("normal");
    let normal = generate(&Options { out: normal_dir, seed: 3, files: 30, total_bytes: 15_000_000, big_entries: None, threads: 2, short: false }).unwrap();
    let per_entry = |s: &pi_session_bench::corpus::Stats| s.bytes as f64 / s.entries as f64;
    // About 1.5 KB per entry, and clearly shorter than the normal mix.
    assert!((1_200.0..1_900.0).contains(&per_entry(&st)), "{} B per entry", per_entry(&st));
    assert!(per_entry(&st) < 0.8 * per_entry(&normal), "{} vs {}", per_entry(&st), per_entry(&normal));
    let listing = pi_session::listing::list(&dir.join("sessions"));
    assert_eq!(listing.sessions.len(), 30);
    for s in &listing.sessions {
        assert!(!s.has_errors(), "{}: {:?}", s.path.display(), s.diagnostics);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

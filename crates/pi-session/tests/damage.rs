//! Every kind of damage of docs/damage.md, read by the core: each example gives exactly its
//! diagnostic kinds; one folder holding all of them (and five good sessions) is listed
//! within a time limit, every good session with its id, leaf and entry count; structure
//! damage never makes a walk loop; the catalogue, the table of severities and the docs agree.

#[path = "damage/fixture.rs"]
mod fixture;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pi_session::context::{message_for_item, BodyReader};
use pi_session::listing::{list, Listing};
use pi_session::{DiagKind, Leaf, Session};

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
    let f = fixture::build(tmp.path(), &fixture::committed_dir(env!("CARGO_MANIFEST_DIR"), false));
    for s in &f.skipped {
        eprintln!("damage: not set up here: {s}");
    }
    (tmp, f)
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).to_string_lossy().into_owned()
}

/// Kinds per path of a listing: sessions and findings about other paths, merged.
fn kinds(root: &Path, l: &Listing) -> BTreeMap<String, BTreeSet<&'static str>> {
    let mut m: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for s in &l.sessions {
        m.entry(rel(root, &s.path)).or_default().extend(s.diagnostics.iter().map(|d| d.kind.as_str()));
    }
    for o in &l.other {
        m.entry(rel(root, &o.path)).or_default().insert(o.diagnostic.kind.as_str());
    }
    m
}

#[test]
fn the_folder_of_all_damage_lists_every_file_with_its_diagnostics() {
    let (_tmp, f) = folder();
    let root = f.root.clone();
    let t = Instant::now();
    let listing = within(LIMIT, "listing the damage folder", move || list(&root));
    eprintln!("damage: listed {} sessions and {} other paths in {:?}", listing.sessions.len(), listing.other.len(), t.elapsed());
    let got = kinds(&f.root, &listing);
    let wrong = f.mismatches(&got, "listed");
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
    for p in fixture::IGNORED {
        assert!(!got.contains_key(*p), "{p} must not be listed");
    }
    // Severities are the catalogue's.
    for s in &listing.sessions {
        for d in &s.diagnostics {
            assert_eq!(format!("{:?}", d.severity).to_lowercase(), fixture::severity_of(d.kind.as_str()), "{d:?}");
        }
    }
}

#[test]
fn good_sessions_are_listed_correctly_beside_the_damage() {
    let (_tmp, f) = folder();
    let root = f.root.clone();
    let listing = within(LIMIT, "listing the damage folder", move || list(&root));
    for g in fixture::GOOD {
        let s = listing.sessions.iter().find(|s| rel(&f.root, &s.path) == g.rel).unwrap_or_else(|| panic!("{} not listed", g.rel));
        assert_eq!(s.id.as_deref(), Some(g.id), "{}", g.rel);
        assert_eq!(s.leaf_id.as_deref(), Some(g.leaf), "{}", g.rel);
        assert_eq!(s.entry_count, g.entries, "{}", g.rel);
        assert!(s.read_only.is_none(), "{}: {:?}", g.rel, s.read_only);
        let serious: Vec<_> = s.diagnostics.iter().filter(|d| d.kind != DiagKind::HugeLine).collect();
        assert!(serious.is_empty(), "{}: {serious:?}", g.rel);
    }
    // A link inside the root reads as its target, once: a link to a listed session is not a
    // second session; a link to a session the scan does not list (too deep) is one. Links that
    // leave the root, to a file or a folder, are not read at all.
    let listed = |r: &str| listing.sessions.iter().find(|s| rel(&f.root, &s.path) == r);
    if cfg!(unix) {
        assert!(listed("link-to-good.jsonl").is_none(), "read once, at good-linear.jsonl");
        let deep = listed("link-to-deep.jsonl").expect("a link to a session not listed itself is read");
        assert_eq!(deep.id.as_deref(), Some(fixture::GOOD[0].id));
        assert_eq!(deep.entry_count, fixture::GOOD[0].entries);
        assert!(listed("link-outside.jsonl").is_none());
        assert!(!listing.sessions.iter().any(|s| rel(&f.root, &s.path).starts_with("--linked-outside--")), "nothing of the linked folder outside the root");
        let outside = |r: &str| listing.other.iter().find(|o| rel(&f.root, &o.path) == r).map(|o| o.diagnostic.message.clone()).unwrap_or_default();
        assert!(outside("link-outside.jsonl").contains("not read; add its target as another root to read it"), "{}", outside("link-outside.jsonl"));
        assert!(outside("--linked-outside--").contains("leaves the sessions root"));
    }
}

/// Each example read alone (`Session::open`, and the same bytes through `from_bytes`): its
/// kinds are there (parentSession findings need the folder), the tree and the context of
/// every node are built without a loop, and every context message reads.
#[test]
fn each_example_alone_reads_and_walks_without_looping() {
    let (_tmp, f) = folder();
    let cases = f.cases.clone();
    let root = f.root.clone();
    within(LIMIT, "reading each example", move || {
        for (path, expected) in &cases {
            let p = root.join(path);
            if !std::fs::symlink_metadata(&p).map(|m| m.is_file()).unwrap_or(false) {
                continue;
            }
            let s = Session::open(&p).unwrap_or_else(|e| panic!("{path}: {e}"));
            let got: BTreeSet<&str> = s.diagnostics().iter().map(|d| d.kind.as_str()).collect();
            for k in expected.iter().filter(|k| !k.starts_with("parent-session")) {
                assert!(got.contains(k), "{path}: expected {k}, got {got:?}");
            }
            let bytes = std::fs::read(&p).unwrap();
            let m = Session::from_bytes(&p, &bytes);
            assert_eq!(m.diagnostics(), s.diagnostics(), "{path}: from_bytes differs from load");
            walk_everything(&s, &bytes, path);
        }
    });
}

fn walk_everything(s: &Session, bytes: &[u8], path: &str) {
    let n = s.index.entries.len();
    for i in 0..n {
        if !s.tree.in_tree[i] {
            continue;
        }
        // The parent chain ends at a root within n steps.
        let mut cur = i as u32;
        let mut steps = 0;
        while s.tree.parent[cur as usize] != pi_session::tree::NONE {
            cur = s.tree.parent[cur as usize];
            steps += 1;
            assert!(steps <= n, "{path}: parent chain of entry {i} does not end");
        }
        let plan = s.context(Leaf::Entry(i as u32));
        let mut r = BodyReader::from_memory(&s.index, bytes);
        for it in &plan.items {
            message_for_item(&s.index, &mut r, *it).unwrap_or_else(|e| panic!("{path}: entry {i}: {e}"));
        }
    }
    let _ = s.context(s.tree.leaf);
}

#[test]
fn parent_cycles_are_broken_and_flagged() {
    let p = fixture::committed_dir(env!("CARGO_MANIFEST_DIR"), false).join("parent-cycle.jsonl");
    let s = within(Duration::from_secs(10), "reading a parent cycle", move || Session::open(p).unwrap());
    let cycle: Vec<_> = s.diagnostics().into_iter().filter(|d| d.kind == DiagKind::ParentCycle).collect();
    assert_eq!(cycle.len(), 1, "{cycle:?}");
    // Broken at its first line (line 2), which becomes the root; the leaf is the last line.
    assert_eq!(cycle[0].line, Some(2));
    assert_eq!(s.tree.roots.len(), 1);
    assert_eq!(s.leaf_id(), Some("a1000000"));
    assert_eq!(s.tree.active_path().len(), 4);
    assert!(s.tree.path_hits_cycle(s.tree.leaf_index().unwrap()));
}

#[test]
fn catalogue_table_and_docs_agree() {
    // Every kind of the table is a real kind with that severity.
    for (k, sev) in fixture::SEVERITY {
        let kind = DiagKind::ALL.iter().find(|d| d.as_str() == *k).unwrap_or_else(|| panic!("{k} is not a DiagKind"));
        assert_eq!(format!("{:?}", kind.severity()).to_lowercase(), *sev, "{k}");
    }
    // Every kind of damage the reader can find has an example (the ones without are named).
    let without_example = ["too-deep", "tool-result-orphan"];
    let (_tmp, f) = folder();
    let covered: BTreeSet<&str> = f.cases.iter().flat_map(|(_, k)| k.iter().copied()).collect();
    for k in DiagKind::ALL {
        let s = k.as_str();
        if without_example.contains(&s) || (s == "unreadable" && !f.skipped.is_empty()) {
            continue;
        }
        assert!(covered.contains(s), "no example gives {s}");
    }
    // The docs list every kind and every example.
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/damage.md")).unwrap();
    for k in DiagKind::ALL {
        assert!(doc.contains(&format!("`{}`", k.as_str())), "docs/damage.md does not name `{}`", k.as_str());
    }
    for (p, _) in &f.cases {
        let name = Path::new(p).file_name().unwrap().to_string_lossy().into_owned();
        assert!(doc.contains(&name), "docs/damage.md does not name the example {name}");
    }
}

/// A big file's lines are parsed ahead on the other cores, which note whether a line ends with
/// `\r`: its CR LF finding is the one a small file, read in order, gives on the same line.
#[test]
fn cr_lf_lines_deep_in_a_big_file_are_noted_as_in_a_small_one() {
    let dir = tempfile::tempdir().unwrap();
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
    let line = |k: usize, filler: usize| {
        let parent = if k == 0 { "null".to_string() } else { format!("\"{:08x}\"", k - 1) };
        format!(r#"{{"type":"message","id":"{k:08x}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"{}","timestamp":1}}}}"#, "y".repeat(filler))
    };
    for (n, filler, from) in [(30, 20, 17), (12_000, 700, 9_000)] {
        let mut text = format!("{header}\n");
        for k in 0..n {
            text.push_str(&line(k, filler));
            text.push_str(if k >= from { "\r\n" } else { "\n" });
        }
        let p = dir.path().join(format!("s{n}.jsonl"));
        std::fs::write(&p, &text).unwrap();
        for cores in [pi_session::session::Cores::All, pi_session::session::Cores::One] {
            let s = Session::open_on(&p, cores).unwrap();
            let crlf: Vec<_> = s.diagnostics().into_iter().filter(|d| d.kind == DiagKind::Crlf).map(|d| d.line).collect();
            // Line 1 is the header: entry k is on line k + 2.
            assert_eq!(crlf, vec![Some(from as u32 + 2)], "{n} lines, {cores:?}");
            assert_eq!(s.index.entries.len(), n);
        }
    }
}

// ---------------------------------------------------------------- found by fuzzing (fuzz/)

/// `append`: an entry line, then a version-less (v1) header completed by a later append. The
/// migration on refresh rewrote the earlier entry too; the tree must be rebuilt as a full read
/// builds it.
#[test]
fn a_late_v1_header_on_refresh_gives_what_a_full_read_gives() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.jsonl");
    std::fs::write(&p, "{}\n{\"type\"").unwrap();
    let mut s = Session::open(&p).unwrap();
    std::fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b":\"session\"}").unwrap();
    s.refresh().unwrap();
    let whole = Session::open(&p).unwrap();
    assert_eq!(s.tree.parent, whole.tree.parent);
    assert_eq!(s.tree.roots, whole.tree.roots);
    assert_eq!(s.tree.leaf, whole.tree.leaf);
    assert_eq!(s.leaf_id(), Some("v1-1"));
    assert_eq!(s.diagnostics(), whole.diagnostics());
}

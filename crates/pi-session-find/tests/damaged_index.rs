//! A damaged search index heals: cut short, overwritten with garbage, or with its 100-byte
//! SQLite header randomised, the next query still answers what a scan of the files answers,
//! the damaged file is kept beside the index (renamed, byte for byte), and the index says so.

mod common;

use std::path::{Path, PathBuf};

use common::{brute_force, built, corpus, indexed};
use pi_session_find::{Query, SearchIndex};

const QUERIES: &[&str] = &["parser", "role:user migration", "tool:bash", "ok"];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

fn seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
}

/// The files beside the index whose names start with its own plus `.damaged-`.
fn set_aside(db: &Path) -> Vec<PathBuf> {
    let prefix = format!("{}.damaged-", db.file_name().unwrap().to_string_lossy());
    let mut v: Vec<PathBuf> = std::fs::read_dir(db.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&prefix) && !["-wal", "-shm", "-postings"].iter().any(|x| p.to_string_lossy().ends_with(x)))
        .collect();
    v.sort();
    v
}

fn assert_answers(root: &Path, ix: &SearchIndex) {
    for q in QUERIES {
        assert_eq!(indexed(ix, q), brute_force(root, &Query::parse(q).unwrap()), "{q}");
    }
}

/// How each test damages the index file (given its bytes; returns the damaged bytes).
type Damage = fn(&[u8], &mut Rng) -> Vec<u8>;

fn cut_short(good: &[u8], _: &mut Rng) -> Vec<u8> {
    good[..good.len() / 2].to_vec()
}

fn garbage(good: &[u8], rng: &mut Rng) -> Vec<u8> {
    // Everything after the first page (the schema) is noise.
    let mut bad = good[..4096].to_vec();
    bad.extend(rng.bytes(good.len() - 4096));
    bad
}

fn random_header(good: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut bad = good.to_vec();
    bad[..100].copy_from_slice(&rng.bytes(100));
    bad
}

/// Builds the index, closes it, damages its file, and checks the next open, update and search.
fn heals(damage: Damage, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let root = corpus(&dir.path().join("corpus"), 10, 600_000);
    let db = dir.path().join("cache/search.sqlite");
    {
        let ix = SearchIndex::open(&root, &db).unwrap();
        ix.update(|_| {}).unwrap();
        assert_answers(&root, &ix);
        assert!(ix.damage().is_none());
    }
    let seed = seed();
    eprintln!("{what}: seed {seed}");
    let good = std::fs::read(&db).unwrap();
    assert!(good.len() > 64 * 1024, "a real index: {} bytes", good.len());
    let bad = damage(&good, &mut Rng(seed));
    std::fs::write(&db, &bad).unwrap();

    // The app's and the CLI's order: open, update, search.
    let ix = SearchIndex::open(&root, &db).unwrap();
    let st = ix.update(|_| {}).unwrap();
    assert_answers(&root, &ix);
    let d = ix.damage().unwrap_or_else(|| panic!("{what}: the damage is reported ({st:?})"));
    assert_eq!(Path::new(&d.path), db);
    let aside = set_aside(&db);
    assert_eq!(aside, vec![PathBuf::from(&d.moved_to)], "{what}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), bad, "{what}: the damaged file is kept as it was");
    assert!(!d.reason.is_empty());
    let status = pi_session_find::roots::status_all(&[std::sync::Arc::new(ix)]).unwrap();
    assert_eq!(status.damaged.as_ref().map(|d| d.moved_to.clone()), Some(d.moved_to.clone()), "{what}: the status carries it");
    assert!(status.files_indexed >= 10);

    // The new index is whole: reopened, it answers without being set aside again.
    let ix = SearchIndex::open(&root, &db).unwrap();
    assert_eq!(ix.update(|_| {}).unwrap().entries_added, 0);
    assert_answers(&root, &ix);
    assert!(ix.damage().is_none());
    assert_eq!(set_aside(&db).len(), 1);
}

#[test]
fn an_index_cut_short_is_set_aside_and_rebuilt() {
    heals(cut_short, "cut short");
}

#[test]
fn an_index_overwritten_with_garbage_is_set_aside_and_rebuilt() {
    heals(garbage, "garbage");
}

#[test]
fn an_index_with_a_random_header_is_set_aside_and_rebuilt() {
    heals(random_header, "random header");
}

/// The posting files of an index (its folder beside the database), largest first.
fn posting_files(db: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(format!("{}-postings", db.display())).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).unwrap().len()));
    v
}

/// A posting file cut short, with a garbage head, or with a list's bytes changed: the query
/// that meets it sets the whole index aside (database and posting folder, kept as they were),
/// builds it again, and answers as the scan does.
#[test]
fn a_damaged_posting_file_is_set_aside_with_its_index_and_rebuilt() {
    type Damage = fn(&[u8], &mut Rng) -> Vec<u8>;
    let cases: [(&str, Damage); 3] = [
        ("cut short", |good, _| good[..good.len() - 7].to_vec()),
        ("garbage head", |good, rng| [rng.bytes(64), good[64..].to_vec()].concat()),
        // The first lists (after the 8-byte magic: the one-byte keys, "a" among them) changed,
        // the length kept.
        ("lists changed", |good, rng| [&good[..8], &rng.bytes(2000)[..], &good[2008..]].concat()),
    ];
    for (what, damage) in cases {
        let dir = tempfile::tempdir().unwrap();
        let root = corpus(&dir.path().join("corpus"), 10, 600_000);
        let db = dir.path().join("cache/search.sqlite");
        {
            let ix = SearchIndex::open(&root, &db).unwrap();
            ix.update(|_| {}).unwrap();
        }
        let file = posting_files(&db).remove(0);
        let good = std::fs::read(&file).unwrap();
        let bad = damage(&good, &mut Rng(seed()));
        std::fs::write(&file, &bad).unwrap();
        let ix = SearchIndex::open(&root, &db).unwrap();
        ix.update(|_| {}).unwrap();
        // "a" alone reads the list of its byte (beside a role's short list, it would be left out).
        assert_eq!(indexed(&ix, "a"), brute_force(&root, &Query::parse("a").unwrap()), "{what}");
        assert_answers(&root, &ix);
        let d = ix.damage().unwrap_or_else(|| panic!("{what}: the damage is reported"));
        assert!(d.reason.contains("posting"), "{what}: {}", d.reason);
        let kept = Path::new(&format!("{}-postings", d.moved_to)).join(file.file_name().unwrap());
        assert_eq!(std::fs::read(&kept).unwrap(), bad, "{what}: the damaged file is kept as it was");
        // The new index is whole.
        drop(ix);
        let ix = SearchIndex::open(&root, &db).unwrap();
        assert_answers(&root, &ix);
        assert!(ix.damage().is_none(), "{what}");
    }
}

/// Damage found by a query rather than on open: the index is set aside, built again, and the
/// same query answers.
#[test]
fn damage_found_by_a_query_is_healed_within_the_query() {
    let dir = tempfile::tempdir().unwrap();
    let (root, db, ix) = built(dir.path(), 10, 600_000);
    // Damaged under the open index (as another process or a disk could).
    let good = std::fs::read(&db).unwrap();
    let mut rng = Rng(seed());
    let bad = garbage(&good, &mut rng);
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(&db).unwrap();
        f.seek(SeekFrom::Start(4096)).unwrap();
        f.write_all(&bad[4096..]).unwrap();
    }
    assert_answers(&root, &ix);
    let d = ix.damage().expect("the damage is reported");
    assert_eq!(std::fs::read(&d.moved_to).unwrap(), bad);
}

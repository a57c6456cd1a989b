//! A damaged organiser database (tags, pins, archive) is never dropped: it is refused with
//! `organiser-damaged`, naming the file, and left byte for byte as it was; only when asked is
//! it set aside (renamed beside itself, never deleted), and a new one starts empty.

use std::path::{Path, PathBuf};

use pi_session_find::organise::{set_aside, Organiser};

fn noise(n: usize, mut x: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Every file of the folder with a hash of its bytes.
fn folder(dir: &Path) -> std::collections::BTreeMap<PathBuf, (usize, u64)> {
    let hash = |b: &[u8]| b.iter().fold(0xcbf29ce484222325u64, |h, &x| (h ^ x as u64).wrapping_mul(0x100000001b3));
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).map(|p| {
        let b = std::fs::read(&p).unwrap();
        (p, (b.len(), hash(&b)))
    }).collect()
}

/// An organiser with marks, closed (its log folded back into the file).
fn marked(db: &Path) {
    let o = Organiser::open(db).unwrap();
    for i in 0..200 {
        o.add_tag(&format!("session-{i:03}"), &format!("tag number {}", i % 17)).unwrap();
        o.set_pinned(&format!("session-{i:03}"), i % 3 == 0).unwrap();
    }
    assert_eq!(o.all().unwrap().len(), 200);
}

#[test]
fn a_damaged_organiser_is_refused_kept_as_it_is_and_set_aside_only_when_asked() {
    type Damage = fn(&[u8], u64) -> Vec<u8>;
    let cases: [(&str, Damage); 4] = [
        ("cut short", |good, _| good[..good.len() / 2].to_vec()),
        ("garbage", |good, seed| [&good[..4096], &noise(good.len() - 4096, seed)].concat()),
        ("random header", |good, seed| [&noise(100, seed), &good[100..]].concat()),
        ("emptied", |_, _| Vec::new()),
    ];
    for (what, damage) in cases {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("organise.sqlite");
        marked(&db);
        let good = std::fs::read(&db).unwrap();
        assert!(good.len() > 8192, "{what}: {} bytes", good.len());
        let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
        eprintln!("{what}: seed {seed}");
        let bad = damage(&good, seed);
        std::fs::write(&db, &bad).unwrap();
        let before = folder(dir.path());

        // Refused, with its code and the file's name; nothing written, nothing created.
        let e = Organiser::open(&db).err().unwrap_or_else(|| panic!("{what}: a damaged file is refused"));
        assert_eq!(e.code(), "organiser-damaged", "{what}: {e}");
        assert!(e.to_string().contains(&*db.to_string_lossy()), "{what}: {e}");
        let again = Organiser::open(&db).err().unwrap();
        assert_eq!(again.code(), "organiser-damaged");
        assert_eq!(folder(dir.path()), before, "{what}: the damaged file is left as it was");

        // Set aside when asked: renamed beside itself, every byte kept; a new one starts empty.
        let aside = set_aside(&db).unwrap();
        assert_eq!(Path::new(&aside.path), db);
        assert!(Path::new(&aside.moved_to).starts_with(dir.path()) && aside.moved_to.contains("organise.sqlite.damaged-"), "{aside:?}");
        assert!(std::fs::read(&aside.moved_to).unwrap() == bad, "{what}: kept byte for byte");
        assert!(!db.exists());
        let o = Organiser::open(&db).unwrap();
        assert!(o.all().unwrap().is_empty());
        o.add_tag("s1", "fresh").unwrap();
        drop(o);
        // A whole file is never set aside.
        let e = set_aside(&db).expect_err("refused");
        assert_eq!(e.code(), "invalid");
        assert_eq!(Organiser::open(&db).unwrap().get("s1").unwrap().tags, vec!["fresh"]);
        assert!(std::fs::read(&aside.moved_to).unwrap() == bad);
    }
}

#[test]
fn a_whole_organiser_opens_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("organise.sqlite");
    marked(&db);
    // Reopened many times (each open checks the file first), the marks are all there.
    for _ in 0..3 {
        let o = Organiser::open(&db).unwrap();
        assert_eq!(o.all().unwrap().len(), 200);
    }
    assert!(folder(dir.path()).keys().all(|p| !p.to_string_lossy().contains("damaged")));
}

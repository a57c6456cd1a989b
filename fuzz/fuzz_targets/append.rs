//! A file that grows: the first part of the input is written and read, then the rest is
//! appended and the session refreshed. The result must equal reading the whole file at once:
//! the same entries, diagnostics, leaf, parents, children and roots.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use pi_session::Session;

fuzz_target!(|data: &[u8]| {
    if data.is_empty() {
        return;
    }
    // The first byte picks the split point.
    let split = 1 + (data[0] as usize * (data.len() - 1)) / 255;
    let (head, tail) = data[1..].split_at((split - 1).min(data.len() - 1));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, head).unwrap();
    let mut s = Session::open(&path).unwrap();
    std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(tail).unwrap();
    s.refresh().unwrap();
    let whole = Session::open(&path).unwrap();
    assert_eq!(s.index.entries.len(), whole.index.entries.len(), "entries");
    let ids = |x: &Session| x.index.entries.iter().map(|e| (e.id.clone(), e.line, e.offset, e.len)).collect::<Vec<_>>();
    assert_eq!(ids(&s), ids(&whole), "entry lines");
    assert_eq!(s.tree.leaf, whole.tree.leaf, "leaf");
    assert_eq!(s.tree.parent, whole.tree.parent, "parents");
    assert_eq!(s.tree.children, whole.tree.children, "children");
    let mut a = s.tree.roots.clone();
    let mut b = whole.tree.roots.clone();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b, "roots");
    assert_eq!(s.tree.name, whole.tree.name, "name");
    let kinds = |x: &Session| {
        let mut k: Vec<_> = x.diagnostics().into_iter().map(|d| (d.line, d.kind)).collect();
        k.sort_by_key(|(l, k)| (*l, k.as_str()));
        k
    };
    assert_eq!(kinds(&s), kinds(&whole), "diagnostics");
});

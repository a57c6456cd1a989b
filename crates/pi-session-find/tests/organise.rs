//! Tags, pins and archive: persisted across a restart, keyed by session id (a renamed file keeps
//! its marks), filters, and session files byte-identical before and after.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pi_session_find::organise::{MarkFilter, Organiser};

fn copy_demo(to: &Path) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../demo/sessions");
    let dst = to.join("sessions");
    for f in pi_session::scan::scan(&src).files {
        let rel = f.path.strip_prefix(&src).unwrap();
        std::fs::create_dir_all(dst.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(&f.path, dst.join(rel)).unwrap();
    }
    dst
}

fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    pi_session::scan::scan(root).files.into_iter().map(|f| (f.path.clone(), std::fs::read(&f.path).unwrap())).collect()
}

#[test]
fn marks_persist_follow_the_session_id_and_never_touch_session_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = copy_demo(dir.path());
    let before = snapshot(&root);
    assert!(before.len() > 5);
    let listing = pi_session::listing::list(&root);
    let ids: Vec<(PathBuf, String)> = listing.sessions.iter().filter_map(|s| Some((s.path.clone(), s.id.clone()?))).collect();
    let db = dir.path().join("data/organise.sqlite");
    {
        let o = Organiser::open(&db).unwrap();
        o.add_tag(&ids[0].1, "  work ").unwrap();
        o.add_tag(&ids[0].1, "urgent").unwrap();
        o.add_tag(&ids[1].1, "work").unwrap();
        o.set_pinned(&ids[1].1, true).unwrap();
        o.set_archived(&ids[2].1, true).unwrap();
        o.set_archived(&ids[3].1, true).unwrap();
        o.set_archived(&ids[3].1, false).unwrap();
        assert!(o.add_tag(&ids[0].1, "").is_err());
        assert!(o.add_tag("", "x").is_err());
    }
    // A restart: a new connection reads the same marks.
    let o = Organiser::open(&db).unwrap();
    let all = o.all().unwrap();
    assert_eq!(all[&ids[0].1].tags, vec!["urgent", "work"]);
    assert!(all[&ids[1].1].pinned && !all[&ids[1].1].archived);
    assert!(all[&ids[2].1].archived);
    assert!(!all.contains_key(&ids[3].1), "unarchived and untagged: no marks left");
    assert_eq!(o.tags().unwrap().iter().map(|t| (t.tag.as_str(), t.sessions)).collect::<Vec<_>>(), vec![("work", 2), ("urgent", 1)]);

    // The default view hides the archived session; the filters.
    let visible = |f: &MarkFilter| -> Vec<String> { ids.iter().filter(|(_, id)| f.keeps(all.get(id))).map(|(_, id)| id.clone()).collect() };
    let default = visible(&MarkFilter::default());
    assert!(!default.contains(&ids[2].1) && default.contains(&ids[3].1) && default.len() == ids.len() - 1);
    assert_eq!(visible(&MarkFilter { only_archived: true, ..Default::default() }), vec![ids[2].1.clone()]);
    assert_eq!(visible(&MarkFilter { tags: vec!["work".into()], ..Default::default() }), vec![ids[0].1.clone(), ids[1].1.clone()]);
    assert_eq!(visible(&MarkFilter { tag_text: Some("URG".into()), ..Default::default() }), vec![ids[0].1.clone()]);
    assert_eq!(visible(&MarkFilter { only_pinned: true, ..Default::default() }), vec![ids[1].1.clone()]);

    // Session files are byte-identical.
    assert_eq!(snapshot(&root), before);
    for p in before.keys() {
        assert!(!p.starts_with(dir.path().join("data")));
    }

    // A renamed, moved file keeps its marks: they follow the session id.
    let moved = root.join("elsewhere/renamed.jsonl");
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&ids[0].0, &moved).unwrap();
    let l2 = pi_session::listing::list(&root);
    let s = l2.sessions.iter().find(|s| s.path == moved).expect("listed at its new path");
    assert_eq!(o.get(s.id.as_deref().unwrap()).unwrap().tags, vec!["urgent", "work"]);

    // Removing the last tag.
    o.remove_tag(&ids[0].1, "urgent").unwrap();
    assert_eq!(o.get(&ids[0].1).unwrap().tags, vec!["work"]);
}

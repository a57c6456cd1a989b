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
    // The selection a list asks for gives the same answer: marked ids kept, and unmarked ones.
    for f in [
        MarkFilter::default(),
        MarkFilter { only_archived: true, ..Default::default() },
        MarkFilter { tags: vec!["work".into()], ..Default::default() },
        MarkFilter { tag_text: Some("rk".into()), ..Default::default() },
        MarkFilter { tag_text: Some("URG".into()), only_pinned: true, ..Default::default() },
    ] {
        let sel = o.select(&f).unwrap();
        let by_selection: Vec<String> = ids.iter().filter(|(_, id)| if all.contains_key(id) { sel.ids.contains(id) } else { sel.unmarked }).map(|(_, id)| id.clone()).collect();
        assert_eq!(by_selection, visible(&f), "{f:?}");
    }

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

fn age(path: &Path, secs: u64) {
    let f = std::fs::File::options().append(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(secs)).unwrap();
}

#[test]
fn archived_files_move_out_of_the_root_byte_identical_and_the_move_is_undone() {
    use pi_session_find::moves::{archive_dir_of, plan_archived};
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let root = copy_demo(dir.path());
    let before = snapshot(&root);
    let listing = pi_session::listing::list(&root);
    let sessions: Vec<(Option<String>, PathBuf)> = listing.sessions.iter().map(|s| (s.id.clone(), s.path.clone())).collect();
    let with_id: Vec<&(Option<String>, PathBuf)> = sessions.iter().filter(|(id, _)| id.is_some()).collect();
    let org = Organiser::open(&dir.path().join("data/organise.sqlite")).unwrap();
    // Three archived sessions: two quiet for an hour, one written to just now.
    for (id, p) in &with_id[..3] {
        org.set_archived(id.as_deref().unwrap(), true).unwrap();
        age(p, 3600);
    }
    age(&with_id[2].1, 0);
    for (_, p) in &with_id[3..] {
        age(p, 3600);
    }
    let roots = pi_session::roots::Roots::single(root.clone());
    let plan = plan_archived(&org, &sessions, &roots, false).unwrap();
    assert_eq!(plan.items.len(), 2, "{plan:?}");
    assert_eq!(plan.skipped.len(), 1);
    assert!(plan.skipped[0].reason.contains("last minute"), "{plan:?}");
    let archive = archive_dir_of(&root);
    assert_eq!(plan.dirs, vec![archive.to_string_lossy().into_owned()]);
    assert!(!archive.starts_with(&root), "the archive folder is not under the root");
    assert!(plan_archived(&org, &sessions, &roots, true).unwrap().items.is_empty(), "read-only: nothing to move");

    // A file already at one target is never overwritten: that move is skipped.
    let blocked = PathBuf::from(&plan.items[1].to);
    std::fs::create_dir_all(blocked.parent().unwrap()).unwrap();
    std::fs::write(&blocked, b"someone else's file\n").unwrap();
    let inode = std::fs::metadata(&plan.items[0].from).unwrap().ino();
    let batch = org.move_files(&plan.items).unwrap();
    assert_eq!(batch.items, vec![plan.items[0].clone()]);
    assert_eq!(batch.skipped.len(), 1);
    assert_eq!(std::fs::read(&blocked).unwrap(), b"someone else's file\n");
    let moved_from = PathBuf::from(&plan.items[0].from);
    let moved_to = PathBuf::from(&plan.items[0].to);
    assert!(!moved_from.exists());
    assert_eq!(std::fs::read(&moved_to).unwrap(), before[&moved_from], "the same bytes");
    assert_eq!(std::fs::metadata(&moved_to).unwrap().ino(), inode, "renamed, not rewritten");
    assert!(!pi_session::listing::list(&root).sessions.iter().any(|s| s.path == moved_from), "gone from the root's list");
    let recent = org.recent_moves(5).unwrap();
    assert_eq!(recent.len(), 1);
    assert_eq!(recent[0].items, batch.items);

    // Undo (after a restart: the record is in the data folder).
    drop(org);
    let org = Organiser::open(&dir.path().join("data/organise.sqlite")).unwrap();
    let undone = org.undo_move(batch.id).unwrap();
    assert!(undone.undone);
    assert_eq!(undone.items, batch.items);
    assert!(!moved_to.exists());
    std::fs::remove_file(&blocked).unwrap();
    assert_eq!(snapshot(&root), before, "every file back, byte-identical");
    assert!(org.recent_moves(5).unwrap().is_empty());
    assert!(org.undo_move(batch.id).is_err(), "undone once");
}

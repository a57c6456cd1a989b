//! The exporter's incremental rules, read back through the parquet crate: only new entries
//! become rows, a torn last line waits until it is complete, a replaced (shorter) file is
//! exported again, part files a crashed run left behind are removed, and the session files are
//! never changed.

use std::fs;
use std::path::{Path, PathBuf};

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use pi_session_archive::{export, ExportOptions, Source};
use serde_json::json;

fn user(id: &str, parent: Option<&str>, i: u64) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": format!("2025-03-01T10:00:{i:02}.000Z"), "message": {"role": "user", "content": format!("q{i}"), "timestamp": i}}).to_string()
}

fn session(path: &Path, id: &str, n: u64) -> Vec<String> {
    let mut lines = vec![json!({"type": "session", "version": 3, "id": id, "timestamp": "2025-03-01T10:00:00.000Z", "cwd": "/w"}).to_string()];
    for i in 1..=n {
        let parent = (i > 1).then(|| format!("e{}", i - 1));
        lines.push(user(&format!("e{i}"), parent.as_deref(), i));
    }
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    lines
}

fn parts(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = fs::read_dir(dir) else { return out };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(parts(&p));
        } else if p.extension().is_some_and(|x| x == "parquet") {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn rows(out: &Path, table: &str) -> usize {
    parts(&out.join(table))
        .iter()
        .map(|p| {
            let r = ParquetRecordBatchReaderBuilder::try_new(fs::File::open(p).unwrap()).unwrap().build().unwrap();
            r.map(|b| b.unwrap().num_rows()).sum::<usize>()
        })
        .sum()
}

fn opts(root: &Path, out: &Path) -> ExportOptions {
    ExportOptions { out: out.to_path_buf(), sources: vec![Source { machine: "m 1/x".into(), root: root.to_path_buf() }], with_text: false }
}

#[test]
fn reruns_add_only_new_complete_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    let out = tmp.path().join("archive");
    let a = root.join("--w--/a.jsonl");
    let b = root.join("--w--/b.jsonl");
    session(&a, "sa", 5);
    session(&b, "sb", 3);
    let o = opts(&root, &out);

    let r = export(&o).unwrap();
    assert_eq!((r.entry_rows, r.session_rows, r.files_changed), (8, 2, 2));
    assert_eq!(rows(&out, "entries"), 8);
    assert_eq!(rows(&out, "sessions"), 2);
    // The machine name is made safe for a partition folder.
    assert!(out.join("entries/machine=m_1_x/month=2025-03").is_dir());

    // Nothing new: nothing written, the manifest untouched.
    let manifest = fs::read(out.join("manifest.json")).unwrap();
    let before = parts(&out);
    let r = export(&o).unwrap();
    assert!(r.files_written.is_empty());
    assert_eq!(parts(&out), before);
    assert_eq!(fs::read(out.join("manifest.json")).unwrap(), manifest);

    // A torn last line (a write in progress) is not exported until it is complete.
    let a_bytes = fs::read(&a).unwrap();
    let line = user("e6", Some("e5"), 6);
    let (head, tail) = line.split_at(20);
    fs::OpenOptions::new().append(true).open(&a).unwrap().write_all_str(head);
    let r = export(&o).unwrap();
    assert_eq!(r.entry_rows, 0, "{r:?}");
    fs::OpenOptions::new().append(true).open(&a).unwrap().write_all_str(&format!("{tail}\n"));
    let r = export(&o).unwrap();
    assert_eq!(r.entry_rows, 1, "{r:?}");
    assert_eq!(rows(&out, "entries"), 9);
    assert!(fs::read(&a).unwrap().starts_with(&a_bytes), "the session file is only read");

    // A crashed run's part files (numbered after the manifest's last run) are removed.
    let orphan = out.join("entries/machine=m_1_x/month=2025-03/part-99999999.parquet");
    fs::write(&orphan, b"half a file").unwrap();
    fs::OpenOptions::new().append(true).open(&b).unwrap().write_all_str(&format!("{}\n", user("e4", Some("e3"), 4)));
    let r = export(&o).unwrap();
    assert_eq!(r.entry_rows, 1);
    assert!(!orphan.exists());
    assert_eq!(rows(&out, "entries"), 10);

    // A file that got smaller was replaced: exported again from the start.
    session(&b, "sb2", 2);
    let r = export(&o).unwrap();
    assert_eq!((r.entry_rows, r.session_rows), (2, 1));
    assert_eq!(rows(&out, "entries"), 12);
    assert_eq!(rows(&out, "sessions"), 2 + 1 + 1 + 1, "a session row per run that saw the file grow");
}

trait AppendStr {
    fn write_all_str(self, s: &str);
}

impl AppendStr for fs::File {
    fn write_all_str(mut self, s: &str) {
        use std::io::Write;
        self.write_all(s.as_bytes()).unwrap();
    }
}

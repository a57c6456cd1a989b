//! A read from a file's start maps its ids at the end of the read, grouped by where they hash
//! to; a read of appended lines maps them one by one. Both must give the same map and the same
//! findings of repeated ids: the later line wins, each repeat is noted on its line, and past the
//! cap of findings of one kind, the first ones in file order are kept.
//!
//! The file is read whole and then again a few lines at a time (each refresh maps its lines one
//! by one); ids of pi's length and of other lengths are mixed, since those are mapped apart.

use std::io::Write;

use std::collections::HashSet;

use pi_session::session::SessionIndex;
use pi_session::{DiagKind, Session};
use serde_json::json;

/// An id of pi's length (8 hex digits), one per `k`.
fn pid(k: usize) -> String {
    format!("{:08x}", (k as u32).wrapping_mul(2_654_435_761))
}

fn entry(id: &str, parent: Option<&str>, kind: &str, text: &str) -> String {
    let mut e = json!({"type": kind, "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"});
    if kind == "message" {
        e["message"] = json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1});
    }
    e.to_string()
}

/// Lines of a session whose ids repeat: more repeats than the cap of one kind's findings, among
/// blank lines, a line that is not JSON, a CR LF line, a line held back for its trailing space,
/// an unknown entry type and ids of other lengths; `filler` bytes of text per message.
fn lines(n: usize, filler: usize) -> Vec<String> {
    let mut out = vec![json!({"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}).to_string()];
    let text = "x".repeat(filler);
    let mut prev: Option<String> = None;
    for k in 0..n {
        let id = match k % 11 {
            // A repeat of an id of pi's length, or of another length.
            3 if k > 20 => pid(k / 2),
            7 if k > 20 => format!("long-id-{}", k % 5),
            7 => format!("long-id-{}", k % 5),
            _ => pid(k),
        };
        let kind = if k % 97 == 40 { "mystery" } else { "message" };
        let mut line = entry(&id, prev.as_deref(), kind, &text);
        match k % 173 {
            10 => out.push(String::new()),
            20 => out.push("{not json".into()),
            30 => line.push('\r'),
            // Held back: it parses only without its trailing space, and content follows it.
            50 => {
                line.push('\u{a0}');
                out.push(line);
                out.push("   ".into());
                prev = Some(id);
                continue;
            }
            _ => {}
        }
        out.push(line);
        prev = Some(id);
    }
    out
}

fn compare(lines: &[String], step: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let whole = lines.join("\n") + "\n";
    std::fs::write(&path, &whole).unwrap();
    let full = Session::open(&path).unwrap();
    // The same lines written and read a few at a time.
    std::fs::write(&path, format!("{}\n", lines[0])).unwrap();
    let mut inc = Session::open(&path).unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    for chunk in lines[1..].chunks(step) {
        f.write_all((chunk.join("\n") + "\n").as_bytes()).unwrap();
        inc.refresh().unwrap();
    }
    assert_eq!(inc.index.entries, full.index.entries);
    assert_eq!(inc.index.by_id.len(), full.index.by_id.len());
    for e in &full.index.entries {
        let id = e.id_str();
        assert_eq!(full.index.index_of(id), inc.index.index_of(id), "{id}");
        let last = full.index.entries.iter().rposition(|x| x.id_str() == id).unwrap() as u32;
        assert_eq!(full.index.index_of(id), Some(last), "the later line wins: {id}");
    }
    let kinds = |s: &Session| s.diagnostics().into_iter().map(|d| (d.line, d.kind.as_str().to_string(), d.message)).collect::<Vec<_>>();
    let (a, b) = (kinds(&full), kinds(&inc));
    assert_eq!(a, b);
    let repeats = a.iter().filter(|d| d.1 == "duplicate-id" && d.0.is_some()).count();
    assert_eq!(repeats, 50, "the cap of one kind's findings");
    assert!(full.index.count(DiagKind::DuplicateId) > 60);
    // The findings kept are the first ones in file order: the last kept comes before every
    // repeat left out.
    let kept_last = a.iter().filter(|d| d.1 == "duplicate-id").filter_map(|d| d.0).max().unwrap();
    let mut seen = HashSet::new();
    let first_repeat_after = full.index.entries.iter().filter(|e| !seen.insert(e.id_str())).map(|e| e.line).nth(50).unwrap();
    assert!(kept_last < first_repeat_after);
}

#[test]
fn a_whole_read_maps_repeated_ids_as_reading_them_one_by_one() {
    compare(&lines(700, 40), 7);
}

#[test]
fn a_big_file_read_on_all_cores_maps_repeated_ids_as_one_by_one() {
    // Over 4 MB: its batches are parsed ahead on the other cores.
    let l = lines(12_000, 600);
    assert!(l.iter().map(|x| x.len() + 1).sum::<usize>() > 6 << 20);
    compare(&l, 500);
}

#[test]
fn a_repeated_id_on_an_unterminated_last_line_is_noted_and_rolled_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let l = lines(200, 10);
    let last = entry(&pid(5), Some("zz"), "message", "torn");
    std::fs::write(&path, l.join("\n") + "\n" + &last).unwrap();
    let mut ix = SessionIndex::load(&path).unwrap();
    let before = ix.count(DiagKind::DuplicateId);
    assert_eq!(ix.index_of(&pid(5)), Some(ix.entries.len() as u32 - 1));
    // The last line is completed by something else: it is read again, and the id it repeated
    // maps to its earlier line again.
    let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(b"x\n").unwrap();
    ix.refresh().unwrap();
    assert_eq!(ix.count(DiagKind::DuplicateId), before - 1);
    assert_eq!(ix.index_of(&pid(5)), Some(5));
}

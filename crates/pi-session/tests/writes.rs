//! The write path (docs/design.md, "Writing") on real files in temporary folders:
//!
//! * every navigate/label write keeps the old bytes as an exact prefix of the new ones and adds
//!   exactly one line (after one `\n` when the old file ended in a torn tail);
//! * the lines have exactly the documented shapes, key order, ids and timestamps;
//! * a fork is a new file beside the source: documented name and header, the root→X lines
//!   byte for byte, the labels in effect carried, a final `leaf` line; the source untouched;
//! * every refusal leaves the file (and its folder) byte-identical.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Debug;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use pi_session::view::{ContextJson, TreeJson};
use pi_session::write::{self, Appended, Forked, WriteOptions};
use pi_session::{Error, Leaf, Session};
use serde_json::{json, Value};
use common::Rng;

// ------------------------------------------------------------------ session lines

const CWD: &str = "/home/alice/projects/webapp";

fn ts(i: usize) -> String {
    format!("2026-03-02T10:{:02}:{:02}.{:03}Z", (i / 60) % 60, i % 60, i % 1000)
}

fn ms(i: usize) -> u64 {
    1_772_445_600_000 + i as u64 * 1000
}

fn header(id: &str) -> String {
    json!({"type": "session", "version": 3, "id": id, "timestamp": "2026-03-02T10:00:00.000Z", "cwd": CWD}).to_string()
}

fn user(id: &str, parent: Option<&str>, i: usize, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(i),
        "message": {"role": "user", "content": text, "timestamp": ms(i)}})
    .to_string()
}

fn assistant(id: &str, parent: Option<&str>, i: usize, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(i),
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": 1200, "output": 80, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1280,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop", "timestamp": ms(i)}})
    .to_string()
}

fn label(id: &str, parent: Option<&str>, i: usize, target: &str, text: Option<&str>) -> String {
    let mut v = json!({"type": "label", "id": id, "parentId": parent, "timestamp": ts(i), "targetId": target});
    if let Some(t) = text {
        v["label"] = t.into();
    }
    v.to_string()
}

fn model_change(id: &str, parent: Option<&str>, i: usize) -> String {
    json!({"type": "model_change", "id": id, "parentId": parent, "timestamp": ts(i), "provider": "openai", "modelId": "gpt-5.1"})
        .to_string()
}

fn thinking(id: &str, parent: Option<&str>, i: usize, level: &str) -> String {
    json!({"type": "thinking_level_change", "id": id, "parentId": parent, "timestamp": ts(i), "thinkingLevel": level})
        .to_string()
}

fn compaction(id: &str, parent: Option<&str>, i: usize, first_kept: &str) -> String {
    json!({"type": "compaction", "id": id, "parentId": parent, "timestamp": ts(i), "summary": "Earlier work, summarised.",
        "firstKeptEntryId": first_kept, "tokensBefore": 5000, "details": {"readFiles": [], "modifiedFiles": []}})
    .to_string()
}

/// A v3 session with two branches, a model and thinking change, and labels.
/// Active (leaf) path: e0000001 e0000002 e0000003 e0000004 e0000007 e0000008 e0000009 e000000a.
fn branchy() -> Vec<String> {
    let mut n = 0;
    let mut i = || {
        n += 1;
        n
    };
    vec![
        header("019caf2b-a8c0-7719-a0e6-151785f31506"),
        user("e0000001", None, i(), "The login form accepts an empty password, can you fix it?"),
        assistant("e0000002", Some("e0000001"), i(), "Fixed the validation step."),
        user("e0000003", Some("e0000002"), i(), "Add a test for it."),
        assistant("e0000004", Some("e0000003"), i(), "Added."),
        user("e0000005", Some("e0000004"), i(), "Try an on-disk cache."),
        assistant("e0000006", Some("e0000005"), i(), "Cache on disk."),
        model_change("e0000007", Some("e0000004"), i()),
        thinking("e0000008", Some("e0000007"), i(), "high"),
        user("e0000009", Some("e0000008"), i(), "Keep the cache in memory instead."),
        assistant("e000000a", Some("e0000009"), i(), "In-memory LRU with 500 entries."),
        label("e000000b", Some("e000000a"), i(), "e0000001", Some("start")),
        label("e000000c", Some("e000000b"), i(), "e0000006", Some("disk cache")),
    ]
}

const BRANCHY_IDS: [&str; 10] =
    ["e0000001", "e0000002", "e0000003", "e0000004", "e0000005", "e0000006", "e0000007", "e0000008", "e0000009", "e000000a"];

// ------------------------------------------------------------------ files

struct Fx {
    _tmp: tempfile::TempDir,
    /// The sessions root (canonical).
    root: PathBuf,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap().join("sessions");
        fs::create_dir_all(&root).unwrap();
        Fx { _tmp: tmp, root }
    }

    /// Writes `root/--cwd--/name` from lines joined with `eol`.
    fn file(&self, name: &str, lines: &[String], eol: &str, bom: bool, final_eol: bool) -> PathBuf {
        let dir = self.root.join("--home-alice-projects-webapp--");
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        let mut bytes = Vec::new();
        if bom {
            bytes.extend_from_slice(b"\xEF\xBB\xBF");
        }
        bytes.extend_from_slice(lines.join(eol).as_bytes());
        if final_eol {
            bytes.extend_from_slice(eol.as_bytes());
        }
        fs::write(&p, bytes).unwrap();
        p
    }

    fn raw(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let dir = self.root.join("--home-alice-projects-webapp--");
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        fs::write(&p, bytes).unwrap();
        p
    }

    fn opts(&self) -> WriteOptions {
        WriteOptions { root: Some(self.root.clone()), read_only: false, stable_for: Duration::from_millis(50) }
    }
}

fn set_mtime(p: &Path, ago: Duration) {
    let f = fs::OpenOptions::new().write(true).open(p).unwrap();
    f.set_modified(SystemTime::now() - ago).unwrap();
}

fn folder_listing(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            m.insert(e.file_name().to_string_lossy().into_owned(), fs::read(e.path()).unwrap());
        }
    }
    m
}

// ------------------------------------------------------------------ checks

/// Runs a write and checks the prefix invariant: the old bytes are an exact prefix of the new
/// ones, followed by exactly our line and `\n` (after one `\n` when the old file did not end
/// in one), and the reported offset is where the line starts.
fn checked(path: &Path, w: impl FnOnce() -> Result<Appended, Error>) -> Appended {
    let before = fs::read(path).unwrap();
    let a = w().unwrap_or_else(|e| panic!("write to {} refused: {e} ({})", path.display(), e.code()));
    let after = fs::read(path).unwrap();
    assert!(after.len() > before.len() && after.starts_with(&before), "old bytes are not a prefix of the new file");
    let mut added = &after[before.len()..];
    if before.last().is_some_and(|&b| b != b'\n') {
        assert_eq!(added[0], b'\n', "a torn tail gets one `\\n` before our line");
        added = &added[1..];
    }
    assert_eq!(added, format!("{}\n", a.line).as_bytes(), "exactly one line is appended");
    assert_eq!(a.offset as usize, after.len() - a.line.len() - 1, "offset of the line");
    assert_eq!(a.file, fs::canonicalize(path).unwrap());
    a
}

fn check_now(now: &str) {
    let shape = "dddd-dd-ddTdd:dd:dd.dddZ";
    assert_eq!(now.len(), shape.len(), "timestamp {now}");
    for (c, s) in now.chars().zip(shape.chars()) {
        if s == 'd' {
            assert!(c.is_ascii_digit(), "timestamp {now}");
        } else {
            assert_eq!(c, s, "timestamp {now}");
        }
    }
    let t = chrono::DateTime::parse_from_rfc3339(now).unwrap().with_timezone(&chrono::Utc);
    let skew = (chrono::Utc::now() - t).num_milliseconds().abs();
    assert!(skew < 10_000, "timestamp {now} is not now");
}

/// 8 lowercase hex characters, used by exactly one line of the file.
fn check_new_id(id: &str, file: &Path) {
    assert!(id.len() == 8 && id.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)), "id {id:?}");
    let n = file_lines(file).iter().filter_map(|l| serde_json::from_slice::<Value>(l).ok()).filter(|v| v["id"] == id).count();
    assert_eq!(n, 1, "id {id} is used by {n} lines");
}

fn jstr(v: Option<&str>) -> String {
    serde_json::to_string(&v).unwrap()
}

/// `{"type":"leaf","id":NEW,"parentId":X,"timestamp":NOW,"targetId":X}`, byte for byte.
fn check_leaf_line(line: &str, target: Option<&str>, file: &Path) {
    let v: Value = serde_json::from_str(line).unwrap();
    let (id, now) = (v["id"].as_str().unwrap(), v["timestamp"].as_str().unwrap());
    let x = jstr(target);
    assert_eq!(line, format!(r#"{{"type":"leaf","id":"{id}","parentId":{x},"timestamp":"{now}","targetId":{x}}}"#));
    check_new_id(id, file);
    check_now(now);
}

/// `{"type":"label","id":NEW,"parentId":LEAF,"timestamp":NOW,"targetId":X,"label":"t"}`, no `label` key to clear.
fn check_label_line(line: &str, leaf: Option<&str>, target: &str, text: Option<&str>, file: &Path) {
    let v: Value = serde_json::from_str(line).unwrap();
    let (id, now) = (v["id"].as_str().unwrap(), v["timestamp"].as_str().unwrap());
    let tail = match text {
        Some(t) => format!(r#","label":{}"#, serde_json::to_string(t).unwrap()),
        None => String::new(),
    };
    assert_eq!(
        line,
        format!(r#"{{"type":"label","id":"{id}","parentId":{},"timestamp":"{now}","targetId":{}{tail}}}"#, jstr(leaf), jstr(Some(target)))
    );
    check_new_id(id, file);
    check_now(now);
}

/// The file's lines without their `\n` (a last line without one included).
fn file_lines(p: &Path) -> Vec<Vec<u8>> {
    let b = fs::read(p).unwrap();
    let mut v: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(|l| l.to_vec()).collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

fn labels_of(s: &Session) -> HashMap<String, String> {
    s.tree.labels.iter().map(|(k, v)| (k.to_string(), v.text.clone())).collect()
}

/// Refused with `code`, and neither the file nor its folder changed.
fn refused<T: Debug>(path: &Path, code: &str, w: impl FnOnce() -> Result<T, Error>) {
    let dir = path.parent().unwrap().to_path_buf();
    let (before, listing) = (fs::read(path).ok(), folder_listing(&dir));
    match w() {
        Ok(v) => panic!("expected a refusal ({code}) for {}, but it wrote {v:?}", path.display()),
        Err(e) => {
            assert_eq!(e.code(), code, "{e}");
            assert!(!e.to_string().is_empty());
        }
    }
    assert_eq!(fs::read(path).ok(), before, "a refused write changed {}", path.display());
    assert_eq!(folder_listing(&dir), listing, "a refused write changed the folder of {}", path.display());
}

// ------------------------------------------------------------------ a small model of what a file says

/// Runs `ops` random navigate/label writes on a file, checking the prefix invariant, the line
/// shapes, and after each write what a fresh read says (leaf, labels, one more entry).
fn random_writes(path: &Path, ids: &[&str], ops: usize, seed: u64, opts: &WriteOptions) {
    let mut rng = Rng(seed);
    let s = Session::open(path).unwrap();
    let mut leaf: Option<String> = s.leaf_id().map(str::to_string);
    let mut labels = labels_of(&s);
    let mut entries = s.index.entries.len();
    let texts = ["start", "good state", "  spaced  ", "quote \" and \\ backslash", "ünïcødé ✓", "line\nbreak", "tab\tx"];
    for step in 0..ops {
        match rng.below(10) {
            0 => {
                let a = checked(path, || write::navigate(path, None, opts));
                check_leaf_line(&a.line, None, path);
                leaf = None;
            }
            1..=4 => {
                let x = ids[rng.below(ids.len())];
                let a = checked(path, || write::navigate(path, Some(x), opts));
                check_leaf_line(&a.line, Some(x), path);
                leaf = Some(x.to_string());
            }
            k => {
                let x = ids[rng.below(ids.len())];
                let text = if k <= 7 { Some(texts[rng.below(texts.len())]) } else { None };
                let arg = match text {
                    None if rng.below(2) == 0 => Some(""),
                    t => t,
                };
                let before = ContextJson::of(&Session::open(path).unwrap(), s_leaf(path)).unwrap();
                let a = checked(path, || write::set_label(path, x, arg, opts));
                check_label_line(&a.line, leaf.as_deref(), x, text, path);
                match text {
                    Some(t) => labels.insert(x.to_string(), t.to_string()),
                    None => labels.remove(x),
                };
                // As pi's appendLabelChange: the label line is the new last line, a child of the
                // leaf, so the context does not change.
                leaf = Some(serde_json::from_str::<Value>(&a.line).unwrap()["id"].as_str().unwrap().to_string());
                let after = ContextJson::of(&Session::open(path).unwrap(), s_leaf(path)).unwrap();
                assert_eq!(raw_messages(&after), raw_messages(&before), "step {step}: a label leaves the context as it was");
            }
        }
        let s = Session::open(path).unwrap();
        entries += 1;
        assert_eq!(s.index.entries.len(), entries, "step {step}: one more entry");
        assert_eq!(s.leaf_id(), leaf.as_deref(), "step {step}: leaf");
        assert_eq!(labels_of(&s), labels, "step {step}: labels");
        assert!(!s.index.has_unterminated_tail(), "step {step}: the file ends with a complete line");
        if let Some(x) = &leaf {
            let c = ContextJson::of(&s, s.tree.leaf).unwrap();
            assert_eq!(c.leaf_id.as_deref(), Some(x.as_str()));
        }
    }
}

fn s_leaf(path: &Path) -> Leaf {
    Session::open(path).unwrap().tree.leaf
}

// ------------------------------------------------------------------ prefix invariant

#[test]
fn prefix_invariant_lf() {
    let fx = Fx::new();
    let p = fx.file("lf.jsonl", &branchy(), "\n", false, true);
    random_writes(&p, &BRANCHY_IDS, 80, 0x9E37_79B9_7F4A_7C15, &fx.opts());
}

#[test]
fn prefix_invariant_crlf() {
    let fx = Fx::new();
    let p = fx.file("crlf.jsonl", &branchy(), "\r\n", false, true);
    random_writes(&p, &BRANCHY_IDS, 60, 7, &fx.opts());
    // The CRLF lines are still there, untouched; ours end in a bare `\n`.
    let b = fs::read(&p).unwrap();
    let crlf = b.windows(2).filter(|w| w == b"\r\n").count();
    assert_eq!(crlf, branchy().len());
}

#[test]
fn prefix_invariant_bom() {
    let fx = Fx::new();
    let p = fx.file("bom.jsonl", &branchy(), "\n", true, true);
    random_writes(&p, &BRANCHY_IDS, 60, 11, &fx.opts());
    assert!(fs::read(&p).unwrap().starts_with(b"\xEF\xBB\xBF{\"type\":\"session\""));
}

#[test]
fn prefix_invariant_bom_crlf() {
    let fx = Fx::new();
    let p = fx.file("bomcrlf.jsonl", &branchy(), "\r\n", true, true);
    random_writes(&p, &BRANCHY_IDS, 30, 13, &fx.opts());
}

/// A torn last line that has not changed for longer than `stable_for`: our first line gets a
/// leading `\n`, the fragment stays a skipped line, later writes need no `\n`.
#[test]
fn prefix_invariant_stable_torn_tail() {
    let fx = Fx::new();
    let mut lines = branchy();
    lines.push(r#"{"type":"message","id":"torn0001","parentId":"e000000c","timestamp":"2026-03-02T10:00:59.000Z","message":{"role":"user","con"#.into());
    let p = fx.file("torn.jsonl", &lines, "\n", false, false);
    set_mtime(&p, Duration::from_secs(30));
    // Default stable_for (1 s): the tail is 30 s old, so no wait.
    let opts = WriteOptions { root: Some(fx.root.clone()), ..Default::default() };
    let started = Instant::now();
    let a = checked(&p, || write::navigate(&p, Some("e0000004"), &opts));
    assert!(started.elapsed() < Duration::from_millis(900), "a tail stable for 30 s needs no wait");
    check_leaf_line(&a.line, Some("e0000004"), &p);
    let s = Session::open(&p).unwrap();
    assert!(s.index.index_of("torn0001").is_none(), "the fragment stays a skipped line");
    assert_eq!(s.leaf_id(), Some("e0000004"));
    assert!(s.diagnostics().iter().any(|d| d.line == Some(lines.len() as u32)), "the fragment is still reported");
    random_writes(&p, &BRANCHY_IDS, 40, 17, &fx.opts());
}

/// The same with a label as the first write, and a small `stable_for` instead of an old mtime.
#[test]
fn prefix_invariant_torn_tail_label_first() {
    let fx = Fx::new();
    let mut bytes = branchy().join("\n").into_bytes();
    bytes.extend_from_slice(b"\n{\"type\":\"mess");
    let p = fx.raw("torn2.jsonl", &bytes);
    std::thread::sleep(Duration::from_millis(80));
    let a = checked(&p, || write::set_label(&p, "e0000002", Some("x"), &fx.opts()));
    check_label_line(&a.line, Some("e000000c"), "e0000002", Some("x"), &p);
    assert!(fs::read(&p).unwrap().ends_with(format!("{{\"type\":\"mess\n{}\n", a.line).as_bytes()));
    random_writes(&p, &BRANCHY_IDS, 20, 19, &fx.opts());
}

/// A complete last line without a final newline: still an entry (pi reads it); our line
/// follows after one `\n`.
#[test]
fn prefix_invariant_unterminated_complete_line() {
    let fx = Fx::new();
    let p = fx.file("noeol.jsonl", &branchy(), "\n", false, false);
    set_mtime(&p, Duration::from_secs(5));
    let a = checked(&p, || write::navigate(&p, Some("e0000006"), &fx.opts()));
    check_leaf_line(&a.line, Some("e0000006"), &p);
    let s = Session::open(&p).unwrap();
    assert!(s.index.index_of("e000000c").is_some(), "the former last line is still an entry");
    assert_eq!(s.index.entries.len(), BRANCHY_IDS.len() + 3);
    random_writes(&p, &BRANCHY_IDS, 20, 23, &fx.opts());
}

/// A header-only file: navigate to null, then labels need an entry.
#[test]
fn prefix_invariant_header_only_and_null_leaf() {
    let fx = Fx::new();
    let p = fx.file("empty.jsonl", &[header("019caf2b-a8c0-7719-a0e6-151785f31507")], "\n", false, true);
    let a = checked(&p, || write::navigate(&p, None, &fx.opts()));
    check_leaf_line(&a.line, None, &p);
    assert_eq!(Session::open(&p).unwrap().tree.leaf, Leaf::Null);
    // The leaf line is itself an entry: labelling it works and keeps the leaf null.
    let id = serde_json::from_str::<Value>(&a.line).unwrap()["id"].as_str().unwrap().to_string();
    let b = checked(&p, || write::set_label(&p, &id, Some("nothing yet"), &fx.opts()));
    check_label_line(&b.line, None, &id, Some("nothing yet"), &p);
    // The label line is the new last line, a root: pi resumes there, with an empty context.
    let s = Session::open(&p).unwrap();
    let lid = serde_json::from_str::<Value>(&b.line).unwrap()["id"].as_str().unwrap().to_string();
    assert_eq!(s.leaf_id(), Some(lid.as_str()));
    assert!(s.tree.roots.contains(&s.node(&lid).unwrap()));
    assert!(ContextJson::of(&s, s.tree.leaf).unwrap().messages.is_empty());
    assert_eq!(labels_of(&s).get(&id).map(String::as_str), Some("nothing yet"));
}

// ------------------------------------------------------------------ line shapes

#[test]
fn navigate_line_shape() {
    let fx = Fx::new();
    let p = fx.file("nav.jsonl", &branchy(), "\n", false, true);
    let a = checked(&p, || write::navigate(&p, Some("e0000006"), &fx.opts()));
    check_leaf_line(&a.line, Some("e0000006"), &p);
    assert!(a.warning.is_none() || a.warning.is_some());
    let s = Session::open(&p).unwrap();
    assert_eq!(s.leaf_id(), Some("e0000006"));
    let ids: Vec<String> = s.tree.active_path().iter().map(|&i| s.id_of(i).to_string()).collect();
    assert_eq!(ids, ["e0000001", "e0000002", "e0000003", "e0000004", "e0000005", "e0000006"]);
    // Navigate to null: both fields null.
    let b = checked(&p, || write::navigate(&p, None, &fx.opts()));
    assert!(b.line.contains(r#""parentId":null"#) && b.line.ends_with(r#""targetId":null}"#));
    check_leaf_line(&b.line, None, &p);
    assert_eq!(Session::open(&p).unwrap().tree.leaf, Leaf::Null);
    assert!(ContextJson::of(&Session::open(&p).unwrap(), Leaf::Null).unwrap().messages.is_empty());
}

#[test]
fn label_line_shape() {
    let fx = Fx::new();
    let p = fx.file("label.jsonl", &branchy(), "\n", false, true);
    // The leaf is the last line (e000000c, a label line): our label chains after it.
    let a = checked(&p, || write::set_label(&p, "e0000003", Some("t"), &fx.opts()));
    check_label_line(&a.line, Some("e000000c"), "e0000003", Some("t"), &p);
    let s = Session::open(&p).unwrap();
    assert_eq!(labels_of(&s).get("e0000003").map(String::as_str), Some("t"));
    // A label line is pi's appendLabelChange: it becomes the last line, the leaf follows it.
    let leaf_after_label = s.leaf_id().unwrap().to_string();
    // Clear: no label key.
    let b = checked(&p, || write::set_label(&p, "e0000003", None, &fx.opts()));
    check_label_line(&b.line, Some(&leaf_after_label), "e0000003", None, &p);
    assert!(!b.line.contains("\"label\":"));
    assert!(!labels_of(&Session::open(&p).unwrap()).contains_key("e0000003"));
    // An empty text clears too.
    checked(&p, || write::set_label(&p, "e0000001", Some(""), &fx.opts()));
    assert!(!labels_of(&Session::open(&p).unwrap()).contains_key("e0000001"));
    // After navigate X, a label's parent is X (the leaf), not the leaf line.
    checked(&p, || write::navigate(&p, Some("e0000005"), &fx.opts()));
    let c = checked(&p, || write::set_label(&p, "e0000002", Some("after nav"), &fx.opts()));
    check_label_line(&c.line, Some("e0000005"), "e0000002", Some("after nav"), &p);
    let s = Session::open(&p).unwrap();
    let on_path: Vec<&str> = s.tree.active_path().iter().map(|&i| s.id_of(i)).collect();
    assert!(on_path.contains(&"e0000005"), "the leaf stays on e0000005's path");
    // And the context there is e0000005's.
    let here = ContextJson::of(&s, s.tree.leaf).unwrap();
    let at5 = ContextJson::of(&s, Leaf::Entry(s.node("e0000005").unwrap())).unwrap();
    assert_eq!(raw_messages(&here), raw_messages(&at5));
}

#[test]
fn ids_are_fresh_and_unique() {
    let fx = Fx::new();
    let p = fx.file("ids.jsonl", &branchy(), "\n", false, true);
    let mut seen = HashSet::new();
    for i in 0..200 {
        let a = if i % 2 == 0 {
            write::navigate(&p, Some(BRANCHY_IDS[i % 10]), &fx.opts()).unwrap()
        } else {
            write::set_label(&p, BRANCHY_IDS[i % 10], Some("x"), &fx.opts()).unwrap()
        };
        let id = serde_json::from_str::<Value>(&a.line).unwrap()["id"].as_str().unwrap().to_string();
        assert!(seen.insert(id), "id reused");
    }
    let s = Session::open(&p).unwrap();
    assert!(s.diagnostics().iter().all(|d| d.kind.as_str() != "duplicate-id"), "{:?}", s.diagnostics());
    let mut all = HashSet::new();
    for l in file_lines(&p).iter().skip(1) {
        let v: Value = serde_json::from_slice(l).unwrap();
        assert!(all.insert(v["id"].as_str().unwrap().to_string()), "duplicate id in the file");
    }
}

// ------------------------------------------------------------------ fork

/// Forks, and checks everything docs/design.md ("Writing") says about the new file. Returns it.
fn check_fork(src: &Path, target: Option<&str>, opts: &WriteOptions) -> PathBuf {
    let src_bytes = fs::read(src).unwrap();
    let folder = src.parent().unwrap();
    let listing = folder_listing(folder);
    let s = Session::open(src).unwrap();
    let f: Forked = write::fork(src, target, opts).unwrap_or_else(|e| panic!("fork refused: {e}"));
    assert_eq!(fs::read(src).unwrap(), src_bytes, "the source is unchanged");
    let after = folder_listing(folder);
    let new: Vec<&String> = after.keys().filter(|k| !listing.contains_key(*k)).collect();
    assert_eq!(new.len(), 1, "exactly one new file, no leftovers: {new:?}");
    assert_eq!(f.file, folder.join(new[0]));
    assert_eq!(f.leaf_id.as_deref(), target);

    let lines = file_lines(&f.file);
    // Header, key order as written.
    let h: Value = serde_json::from_slice(&lines[0]).unwrap();
    let (id, now) = (h["id"].as_str().unwrap(), h["timestamp"].as_str().unwrap());
    let abs = fs::canonicalize(src).unwrap();
    let expected_header = format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"{now}","cwd":{},"parentSession":{}}}"#,
        serde_json::to_string(s.index.header.as_ref().unwrap().cwd.as_ref().unwrap()).unwrap(),
        serde_json::to_string(abs.to_str().unwrap()).unwrap()
    );
    assert_eq!(String::from_utf8(lines[0].clone()).unwrap(), expected_header);
    assert!(Path::new(h["parentSession"].as_str().unwrap()).is_absolute());
    check_now(now);
    let u = uuid::Uuid::parse_str(id).unwrap();
    assert_eq!(u.get_version_num(), 7, "session id {id} is a UUIDv7");
    assert_eq!(u.hyphenated().to_string(), id, "lowercase hyphenated");
    // File name: NOW with ':' and '.' replaced by '-', '_', the id.
    assert_eq!(new[0].as_str(), format!("{}_{id}.jsonl", now.replace([':', '.'], "-")));

    // The root→X lines, byte for byte.
    let path_nodes = target.map(|t| s.tree.path_to(s.node(t).unwrap())).unwrap_or_default();
    assert_eq!(f.copied, path_nodes.len());
    for (k, &i) in path_nodes.iter().enumerate() {
        let e = &s.index.entries[i as usize];
        let src_line = &src_bytes[e.offset as usize..e.offset as usize + e.len as usize];
        assert_eq!(lines[1 + k], src_line, "path line {k} copied byte for byte");
    }
    // Then label lines chained after X, then the leaf line for X.
    let rest = &lines[1 + path_nodes.len()..];
    assert!(!rest.is_empty());
    let mut prev = target.map(str::to_string);
    for l in &rest[..rest.len() - 1] {
        let v: Value = serde_json::from_slice(l).unwrap();
        let text = std::str::from_utf8(l).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert!(keys == ["type", "id", "parentId", "timestamp", "targetId", "label"] || keys == ["type", "id", "parentId", "timestamp", "targetId"], "{text}");
        assert_eq!(v["type"], "label");
        assert_eq!(v["parentId"].as_str(), prev.as_deref(), "label lines chain after X");
        check_new_id(v["id"].as_str().unwrap(), &f.file);
        prev = Some(v["id"].as_str().unwrap().to_string());
    }
    check_leaf_line(std::str::from_utf8(rest.last().unwrap()).unwrap(), target, &f.file);
    assert!(fs::read(&f.file).unwrap().ends_with(b"\n"));

    // Re-read: leaf X, the same path, labels and context as the source at X.
    let fk = Session::open(&f.file).unwrap();
    assert_eq!(fk.leaf_id(), target);
    let fpath: Vec<&str> = fk.tree.active_path().iter().map(|&i| fk.id_of(i)).collect();
    let spath: Vec<&str> = path_nodes.iter().map(|&i| s.id_of(i)).collect();
    assert_eq!(fpath, spath);
    let on_path: HashSet<&str> = spath.iter().copied().collect();
    let want: HashMap<String, String> = labels_of(&s).into_iter().filter(|(k, _)| on_path.contains(k.as_str())).collect();
    let got: HashMap<String, String> = labels_of(&fk).into_iter().filter(|(k, _)| on_path.contains(k.as_str())).collect();
    assert_eq!(got, want, "labels in effect on the path");
    let sl = match target {
        Some(t) => Leaf::Entry(s.node(t).unwrap()),
        None => Leaf::Null,
    };
    let (cs, cf) = (ContextJson::of(&s, sl).unwrap(), ContextJson::of(&fk, fk.tree.leaf).unwrap());
    assert_eq!(raw_messages(&cf), raw_messages(&cs), "context at X");
    assert_eq!(cf.entry_ids, cs.entry_ids);
    assert_eq!(cf.hidden_entry_ids, cs.hidden_entry_ids);
    assert_eq!(cf.thinking_level, cs.thinking_level);
    assert_eq!(serde_json::to_value(&cf.model).unwrap(), serde_json::to_value(&cs.model).unwrap());
    assert!(fk.index.read_only().is_none(), "the fork is writable");
    let errors: Vec<_> = fk.diagnostics().into_iter().filter(|d| d.severity == pi_session::Severity::Error).collect();
    assert!(errors.is_empty(), "{errors:?}");
    f.file
}

fn raw_messages(c: &ContextJson) -> Vec<String> {
    c.messages.iter().map(|m| m.get().to_string()).collect()
}

#[test]
fn fork_branchy_everywhere() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    for x in BRANCHY_IDS {
        let f = check_fork(&p, Some(x), &fx.opts());
        fs::remove_file(f).unwrap();
    }
    check_fork(&p, None, &fx.opts());
}

/// Labels: set on the path, set off the path for a path entry, relabelled off the path,
/// cleared off the path, on entries off the path, and after X.
#[test]
fn fork_carries_labels_in_effect() {
    let fx = Fx::new();
    let lines = vec![
        header("019caf2b-a8c0-7719-a0e6-151785f31508"),
        user("f0000001", None, 1, "first"),
        assistant("f0000002", Some("f0000001"), 2, "answer"),
        label("f0000003", Some("f0000002"), 3, "f0000001", Some("start")), // on the path
        user("f0000004", Some("f0000003"), 4, "second"),
        assistant("f0000005", Some("f0000004"), 5, "answer 2"),
        // a side branch
        user("f0000006", Some("f0000005"), 6, "side"),
        assistant("f0000007", Some("f0000006"), 7, "side answer"),
        label("f0000008", Some("f0000007"), 8, "f0000005", Some("labelled from the side")), // path entry, line off path
        label("f0000009", Some("f0000008"), 9, "f0000006", Some("off path")), // entry off path
        // back on the main line
        user("f000000a", Some("f0000005"), 10, "main"),
        assistant("f000000b", Some("f000000a"), 11, "main answer"),
        label("f000000c", Some("f000000b"), 12, "f0000004", Some("temporary")), // on the path ...
        label("f000000d", Some("f0000007"), 13, "f0000004", None), // ... cleared off the path
        label("f000000e", Some("f000000d"), 14, "f0000001", Some("start v2")), // relabelled off the path
        label("f000000f", Some("f000000c"), 15, "f000000b", Some("on path, set on path")),
        label("f0000010", Some("f000000f"), 16, "f000000b", Some("on path, relabelled on path")),
        user("f0000011", Some("f0000010"), 17, "third"),
        assistant("f0000012", Some("f0000011"), 18, "answer 3"),
        label("f0000013", Some("f0000012"), 19, "f0000011", Some("set after X")), // child of X
    ];
    let p = fx.file("labels.jsonl", &lines, "\n", false, true);
    let f = check_fork(&p, Some("f0000012"), &fx.opts());
    let fk = Session::open(&f).unwrap();
    let l = labels_of(&fk);
    assert_eq!(l.get("f0000001").map(String::as_str), Some("start v2"));
    assert_eq!(l.get("f0000005").map(String::as_str), Some("labelled from the side"));
    assert_eq!(l.get("f000000b").map(String::as_str), Some("on path, relabelled on path"));
    assert_eq!(l.get("f0000011").map(String::as_str), Some("set after X"));
    assert_eq!(l.get("f0000004"), None, "a label cleared in the source stays cleared in the fork");
    assert_eq!(l.get("f0000006"), None);
    // Forks at other points of the same file.
    for x in ["f0000001", "f0000005", "f0000007", "f0000009", "f000000b", "f0000010"] {
        fs::remove_file(check_fork(&p, Some(x), &fx.opts())).unwrap();
    }
}

#[test]
fn fork_compacted_path_crlf_bom() {
    let fx = Fx::new();
    let lines = vec![
        header("019caf2b-a8c0-7719-a0e6-151785f31509"),
        user("c0000001", None, 1, "a"),
        assistant("c0000002", Some("c0000001"), 2, "b"),
        thinking("c0000003", Some("c0000002"), 3, "medium"),
        user("c0000004", Some("c0000003"), 4, "c"),
        assistant("c0000005", Some("c0000004"), 5, "d"),
        compaction("c0000006", Some("c0000005"), 6, "c0000004"),
        user("c0000007", Some("c0000006"), 7, "e"),
        assistant("c0000008", Some("c0000007"), 8, "f"),
        model_change("c0000009", Some("c0000008"), 9),
    ];
    for (name, eol, bom) in [("lf.jsonl", "\n", false), ("crlf.jsonl", "\r\n", false), ("bom.jsonl", "\n", true), ("both.jsonl", "\r\n", true)] {
        let p = fx.file(name, &lines, eol, bom, true);
        for x in ["c0000001", "c0000005", "c0000006", "c0000008", "c0000009"] {
            let f = check_fork(&p, Some(x), &fx.opts());
            if eol == "\r\n" {
                // Copied lines keep their CR (byte for byte); ours end in `\n`.
                let b = fs::read(&f).unwrap();
                assert!(b.windows(2).any(|w| w == b"\r\n"));
            }
            fs::remove_file(f).unwrap();
        }
    }
}

/// A fork of a file whose last line is torn (the source is only read; the fragment is not copied).
#[test]
fn fork_source_with_torn_tail() {
    let fx = Fx::new();
    let mut b = branchy().join("\n").into_bytes();
    b.extend_from_slice(b"\n{\"type\":\"message\",\"id\":\"torn");
    let p = fx.raw("torn.jsonl", &b);
    let f = check_fork(&p, Some("e000000a"), &fx.opts());
    assert!(!fs::read(f).unwrap().windows(10).any(|w| w == b"\"id\":\"torn"));
}

#[test]
fn forks_do_not_collide() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    let mut names = HashSet::new();
    for _ in 0..20 {
        let f = write::fork(&p, Some("e0000004"), &fx.opts()).unwrap();
        assert!(names.insert(f.file));
    }
    // 20 forks + the source, and no temporary file left behind.
    let listing = folder_listing(p.parent().unwrap());
    assert_eq!(listing.len(), 21, "{:?}", listing.keys().collect::<Vec<_>>());
}

/// Temporary files that killed forks left behind are removed by a later fork once they are
/// old; a recent one (a fork still running elsewhere) and anything not ours stay.
#[test]
fn a_fork_removes_stale_temporaries_of_killed_forks_and_nothing_else() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    let dir = p.parent().unwrap().to_path_buf();
    let hex = "0123456789abcdef0123456789abcdef";
    let stale = fx.raw(&format!(".2025-01-01T00-00-00-000Z_x.jsonl.tmp-{hex}"), b"{\"type\":\"session\"");
    let recent = fx.raw(&format!(".2025-01-01T00-00-00-000Z_y.jsonl.tmp-{hex}"), b"partial");
    let not_ours = [
        fx.raw(".notes.tmp-0123456789abcdef0123456789abcdef", b"x"),
        fx.raw(&format!(".a.jsonl.tmp-{}", &hex[..31]), b"x"),
        fx.raw(&format!("2025-01-01_z.jsonl.tmp-{hex}"), b"x"),
        fx.raw(".hidden.jsonl", b"x"),
    ];
    fs::create_dir(dir.join(format!(".d.jsonl.tmp-{hex}"))).unwrap();
    let old = write::STALE_TEMPORARY + Duration::from_secs(60);
    for q in not_ours.iter().chain([&stale]) {
        set_mtime(q, old);
    }
    set_mtime(&recent, Duration::from_secs(5));
    assert!(write::is_our_temporary(stale.file_name().unwrap().to_str().unwrap()));

    check_fork(&p, Some("e0000004"), &fx.opts());
    assert!(!stale.exists(), "an old temporary of ours is removed");
    assert!(recent.exists(), "a recent one may belong to a fork still running");
    for q in &not_ours {
        assert!(q.exists(), "{} is not ours and stays", q.display());
    }
    assert!(dir.join(format!(".d.jsonl.tmp-{hex}")).is_dir(), "a folder is never removed");
}

/// A fork of a fork: parentSession points at the first fork; the path is still byte for byte.
#[test]
fn fork_of_a_fork() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    let f1 = check_fork(&p, Some("e000000a"), &fx.opts());
    checked(&f1, || write::set_label(&f1, "e0000009", Some("in the fork"), &fx.opts()));
    let f2 = check_fork(&f1, Some("e0000009"), &fx.opts());
    let h: Value = serde_json::from_slice(&file_lines(&f2)[0]).unwrap();
    assert_eq!(h["parentSession"].as_str().unwrap(), f1.to_str().unwrap());
    assert_eq!(labels_of(&Session::open(&f2).unwrap()).get("e0000009").map(String::as_str), Some("in the fork"));
}

/// TreeJson of a fork names the source as its parent session.
#[test]
fn fork_tree_json_header() {
    let fx = Fx::new();
    let p = fx.file("src.jsonl", &branchy(), "\n", false, true);
    let f = check_fork(&p, Some("e0000006"), &fx.opts());
    let s = Session::open(&f).unwrap();
    let t = TreeJson::of(&s);
    assert_eq!(t.header["parentSession"], p.to_str().unwrap());
    assert_eq!(t.leaf_id, Some("e0000006"));
    assert_eq!(t.version, Some(3.0));
}

// ------------------------------------------------------------------ refusals

/// Every write kind against `p`, each expecting `code`.
fn refuse_all(p: &Path, id: &str, code: &str, opts: &WriteOptions) {
    refused(p, code, || write::navigate(p, Some(id), opts));
    refused(p, code, || write::set_label(p, id, Some("t"), opts));
    refused(p, code, || write::set_label(p, id, None, opts));
    refused(p, code, || write::fork(p, Some(id), opts));
}

#[test]
fn refuses_v1_file() {
    let fx = Fx::new();
    let p = fx.raw(
        "v1.jsonl",
        concat!(
            r#"{"type":"session","id":"v1-session","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x","provider":"anthropic","modelId":"m"}"#,
            "\n",
            r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
            "\n",
            r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"yo"}],"timestamp":2}}"#,
            "\n",
        )
        .as_bytes(),
    );
    let s = Session::open(&p).unwrap();
    let some_id = s.id_of(0).to_string(); // an id migrated in memory
    refuse_all(&p, &some_id, "read-only", &fx.opts());
    refused(&p, "read-only", || write::navigate(&p, None, &fx.opts()));
    refused(&p, "read-only", || write::fork(&p, None, &fx.opts()));
}

#[test]
fn refuses_v2_file() {
    let fx = Fx::new();
    let mut lines = branchy();
    lines[0] = r#"{"type":"session","version":2,"id":"v2-session","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/x"}"#.into();
    let p = fx.file("v2.jsonl", &lines, "\n", false, true);
    refuse_all(&p, "e0000004", "read-only", &fx.opts());
    refused(&p, "read-only", || write::navigate(&p, None, &fx.opts()));
}

#[test]
fn refuses_v4_file() {
    let fx = Fx::new();
    let p = fx.raw(
        "v4.jsonl",
        concat!(
            r#"{"kind":"header","version":4,"id":"019caf2b-a8c0-7719-a0e6-151785f31510","createdAt":1772445600000,"cwd":"/x"}"#,
            "\n",
            r#"{"kind":"entry","seq":1,"entry":{"type":"message","id":"e0000001","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}}"#,
            "\n",
        )
        .as_bytes(),
    );
    refuse_all(&p, "e0000001", "read-only", &fx.opts());
    refused(&p, "read-only", || write::navigate(&p, None, &fx.opts()));
    refused(&p, "read-only", || write::fork(&p, None, &fx.opts()));
}

#[test]
fn refuses_v3_header_with_version_4() {
    let fx = Fx::new();
    let mut lines = branchy();
    lines[0] = r#"{"type":"session","version":4,"id":"019caf2b-a8c0-7719-a0e6-151785f31511","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/x"}"#.into();
    let p = fx.file("v4h.jsonl", &lines, "\n", false, true);
    refuse_all(&p, "e0000004", "read-only", &fx.opts());
    refused(&p, "read-only", || write::navigate(&p, None, &fx.opts()));
}

#[test]
fn refuses_file_without_header() {
    let fx = Fx::new();
    let p = fx.file("nohead.jsonl", &branchy()[1..], "\n", false, true);
    refuse_all(&p, "e0000004", "read-only", &fx.opts());
}

#[test]
fn refuses_unknown_id() {
    let fx = Fx::new();
    let p = fx.file("u.jsonl", &branchy(), "\n", false, true);
    refuse_all(&p, "deadbeef", "unknown-id", &fx.opts());
    // A label's own target must exist too, even when pi would accept a dangling one.
    refuse_all(&p, "E0000001", "unknown-id", &fx.opts());
}

#[test]
fn refuses_ids_inside_a_parent_cycle() {
    let fx = Fx::new();
    let lines = vec![
        header("019caf2b-a8c0-7719-a0e6-151785f31512"),
        user("a0000001", None, 1, "normal"),
        assistant("a0000002", Some("a0000001"), 2, "chain"),
        user("a0000003", Some("a0000002"), 3, "continues"),
        user("cccc0001", Some("cccc0002"), 4, "cycle a"),
        assistant("cccc0002", Some("cccc0001"), 5, "cycle b"),
        user("cccc0003", Some("cccc0002"), 6, "below the cycle"),
        user("cccc0004", Some("cccc0004"), 7, "its own parent"),
        assistant("cccc0005", Some("cccc0004"), 8, "below it"),
        user("a0000004", Some("a0000003"), 8, "the last line, outside the cycle"),
    ];
    let p = fx.file("cycle.jsonl", &lines, "\n", false, true);
    for id in ["cccc0001", "cccc0002", "cccc0003"] {
        refuse_all(&p, id, "in-cycle", &fx.opts());
    }
    // The normal chain stays writable.
    let a = checked(&p, || write::navigate(&p, Some("a0000002"), &fx.opts()));
    check_leaf_line(&a.line, Some("a0000002"), &p);
    checked(&p, || write::set_label(&p, "a0000003", Some("ok"), &fx.opts()));
    fs::remove_file(check_fork(&p, Some("a0000003"), &fx.opts())).unwrap();
    // An entry naming itself as its parent: a root in the tree, but pi's path walk loops on it.
    for id in ["cccc0001", "cccc0002", "cccc0003", "cccc0004", "cccc0005"] {
        refuse_all(&p, id, "in-cycle", &fx.opts());
    }
}

/// A torn tail that is still changing while we wait: refused, and nothing of ours lands.
#[test]
fn refuses_unstable_torn_tail() {
    let fx = Fx::new();
    let mut b = branchy().join("\n").into_bytes();
    b.extend_from_slice(b"\n{\"type\":\"message\",\"id\":\"live0001\",\"parentId\":\"e000000c\",\"message\":{\"content\":\"");
    let p = fx.raw("live.jsonl", &b);
    let opts = WriteOptions { root: Some(fx.root.clone()), read_only: false, stable_for: Duration::from_secs(1) };
    for kind in 0..3 {
        // Touch the file right before; a writer keeps adding to the torn line meanwhile.
        let before = fs::read(&p).unwrap();
        fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b"x").unwrap();
        let pw = p.clone();
        let writer = std::thread::spawn(move || {
            let mut added = b"x".to_vec();
            for k in 0..15u8 {
                std::thread::sleep(Duration::from_millis(100));
                let byte = b'a' + k;
                fs::OpenOptions::new().append(true).open(&pw).unwrap().write_all(&[byte]).unwrap();
                added.push(byte);
            }
            added
        });
        let r = match kind {
            0 => write::navigate(&p, Some("e0000004"), &opts),
            1 => write::set_label(&p, "e0000004", Some("t"), &opts),
            _ => write::navigate(&p, None, &opts),
        };
        let added = writer.join().unwrap();
        match r {
            Ok(a) => panic!("wrote {a:?} after a changing tail"),
            Err(e) => assert_eq!(e.code(), "tail-changing", "{e}"),
        }
        let mut expect = before.clone();
        expect.extend_from_slice(&added);
        assert_eq!(fs::read(&p).unwrap(), expect, "only the other writer's bytes were added");
    }
}

/// A torn tail touched right before but then left alone: the write waits out `stable_for`
/// and then goes ahead, after a `\n`.
#[test]
fn torn_tail_touched_just_before_waits_then_writes() {
    let fx = Fx::new();
    let mut b = branchy().join("\n").into_bytes();
    b.extend_from_slice(b"\n{\"type\":\"mess");
    let p = fx.raw("touched.jsonl", &b);
    let opts = WriteOptions { root: Some(fx.root.clone()), read_only: false, stable_for: Duration::from_secs(1) };
    set_mtime(&p, Duration::ZERO);
    let started = Instant::now();
    let a = checked(&p, || write::navigate(&p, Some("e0000002"), &opts));
    assert!(started.elapsed() >= Duration::from_millis(900), "waited for the tail to be stable");
    check_leaf_line(&a.line, Some("e0000002"), &p);
}

#[test]
fn refuses_in_read_only_mode() {
    let fx = Fx::new();
    let p = fx.file("ro.jsonl", &branchy(), "\n", false, true);
    let opts = WriteOptions { read_only: true, ..fx.opts() };
    refuse_all(&p, "e0000004", "read-only-mode", &opts);
    refused(&p, "read-only-mode", || write::navigate(&p, None, &opts));
    refused(&p, "read-only-mode", || write::fork(&p, None, &opts));
    // Even for a bad id or a missing file, nothing is looked at.
    refused(&p, "read-only-mode", || write::navigate(&p, Some("\"bad"), &opts));
    let missing = p.with_file_name("missing.jsonl");
    refused(&missing, "read-only-mode", || write::navigate(&missing, Some("e0000004"), &opts));
    assert!(!missing.exists());
}

#[test]
fn refuses_files_outside_the_root() {
    let fx = Fx::new();
    let outside_dir = fx.root.parent().unwrap().join("elsewhere");
    fs::create_dir_all(&outside_dir).unwrap();
    let outside = outside_dir.join("x.jsonl");
    fs::write(&outside, branchy().join("\n") + "\n").unwrap();
    refuse_all(&outside, "e0000004", "outside-root", &fx.opts());
    // Through `..`.
    let dotdot = fx.root.join("..").join("elsewhere").join("x.jsonl");
    refuse_all(&dotdot, "e0000004", "outside-root", &fx.opts());
    // A root that is a prefix of the file's folder name only.
    let sibling = fx.root.parent().unwrap().join("sessions-other");
    fs::create_dir_all(&sibling).unwrap();
    let sib = sibling.join("y.jsonl");
    fs::write(&sib, branchy().join("\n") + "\n").unwrap();
    refuse_all(&sib, "e0000004", "outside-root", &fx.opts());
    #[cfg(unix)]
    {
        // A symlink inside the root pointing outside it.
        let dir = fx.root.join("--links--");
        fs::create_dir_all(&dir).unwrap();
        let link = dir.join("link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        refuse_all(&link, "e0000004", "outside-root", &fx.opts());
        // A symlinked folder inside the root pointing outside it.
        let dlink = fx.root.join("--dirlink--");
        std::os::unix::fs::symlink(&outside_dir, &dlink).unwrap();
        refuse_all(&dlink.join("x.jsonl"), "e0000004", "outside-root", &fx.opts());
        assert_eq!(folder_listing(&outside_dir).len(), 1, "no fork landed outside the root");
        // A symlink inside the root to a file inside the root is fine: the real file is written.
        let inner = fx.file("inner.jsonl", &branchy(), "\n", false, true);
        let ilink = dir.join("inner-link.jsonl");
        std::os::unix::fs::symlink(&inner, &ilink).unwrap();
        let a = write::navigate(&ilink, Some("e0000004"), &fx.opts()).unwrap();
        assert_eq!(a.file, inner);
        assert!(fs::symlink_metadata(&ilink).unwrap().file_type().is_symlink());
    }
    assert_eq!(fs::read(&outside).unwrap(), (branchy().join("\n") + "\n").into_bytes());
}

#[test]
fn refuses_invalid_id_arguments() {
    let fx = Fx::new();
    let p = fx.file("inv.jsonl", &branchy(), "\n", false, true);
    let long = "a".repeat(129);
    for bad in ["", "a\"b", "a\\b", "a\nb", "tab\there", "\u{7f}", "nul\0", long.as_str()] {
        refuse_all(&p, bad, "invalid-id", &fx.opts());
    }
}

#[test]
fn refuses_what_is_not_a_regular_file() {
    let fx = Fx::new();
    let dir = fx.root.join("a-folder.jsonl");
    fs::create_dir_all(&dir).unwrap();
    refused(&dir.join("x"), "not-found", || write::navigate(&dir.join("x"), Some("e0000001"), &fx.opts()));
    let r = write::navigate(&dir, Some("e0000001"), &fx.opts());
    assert_eq!(r.unwrap_err().code(), "not-a-file");
}

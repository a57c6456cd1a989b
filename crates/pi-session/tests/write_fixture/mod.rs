//! The session lines, files and checks of the write-path tests (`writes.rs`, `forks.rs`).
#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Debug;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pi_session::view::ContextJson;
use pi_session::write::{self, Appended, Forked, WriteOptions};
use pi_session::{Error, Leaf, Session};
use serde_json::{json, Value};

use crate::common::Rng;

// ------------------------------------------------------------------ session lines

pub const CWD: &str = "/home/alice/projects/webapp";

pub fn ts(i: usize) -> String {
    format!("2026-03-02T10:{:02}:{:02}.{:03}Z", (i / 60) % 60, i % 60, i % 1000)
}

pub fn ms(i: usize) -> u64 {
    1_772_445_600_000 + i as u64 * 1000
}

pub fn header(id: &str) -> String {
    json!({"type": "session", "version": 3, "id": id, "timestamp": "2026-03-02T10:00:00.000Z", "cwd": CWD}).to_string()
}

pub fn user(id: &str, parent: Option<&str>, i: usize, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(i),
        "message": {"role": "user", "content": text, "timestamp": ms(i)}})
    .to_string()
}

pub fn assistant(id: &str, parent: Option<&str>, i: usize, text: &str) -> String {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(i),
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": 1200, "output": 80, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1280,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "stop", "timestamp": ms(i)}})
    .to_string()
}

pub fn label(id: &str, parent: Option<&str>, i: usize, target: &str, text: Option<&str>) -> String {
    let mut v = json!({"type": "label", "id": id, "parentId": parent, "timestamp": ts(i), "targetId": target});
    if let Some(t) = text {
        v["label"] = t.into();
    }
    v.to_string()
}

pub fn model_change(id: &str, parent: Option<&str>, i: usize) -> String {
    json!({"type": "model_change", "id": id, "parentId": parent, "timestamp": ts(i), "provider": "openai", "modelId": "gpt-5.1"})
        .to_string()
}

pub fn thinking(id: &str, parent: Option<&str>, i: usize, level: &str) -> String {
    json!({"type": "thinking_level_change", "id": id, "parentId": parent, "timestamp": ts(i), "thinkingLevel": level})
        .to_string()
}

pub fn compaction(id: &str, parent: Option<&str>, i: usize, first_kept: &str) -> String {
    json!({"type": "compaction", "id": id, "parentId": parent, "timestamp": ts(i), "summary": "Earlier work, summarised.",
        "firstKeptEntryId": first_kept, "tokensBefore": 5000, "details": {"readFiles": [], "modifiedFiles": []}})
    .to_string()
}

/// A v3 session with two branches, a model and thinking change, and labels.
/// Active (leaf) path: e0000001 e0000002 e0000003 e0000004 e0000007 e0000008 e0000009 e000000a.
pub fn branchy() -> Vec<String> {
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

pub const BRANCHY_IDS: [&str; 10] =
    ["e0000001", "e0000002", "e0000003", "e0000004", "e0000005", "e0000006", "e0000007", "e0000008", "e0000009", "e000000a"];

// ------------------------------------------------------------------ files

pub struct Fx {
    _tmp: tempfile::TempDir,
    /// The sessions root (canonical).
    pub root: PathBuf,
}

impl Fx {
    pub fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap().join("sessions");
        fs::create_dir_all(&root).unwrap();
        Fx { _tmp: tmp, root }
    }

    /// Writes `root/--cwd--/name` from lines joined with `eol`.
    pub fn file(&self, name: &str, lines: &[String], eol: &str, bom: bool, final_eol: bool) -> PathBuf {
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

    pub fn raw(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let dir = self.root.join("--home-alice-projects-webapp--");
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        fs::write(&p, bytes).unwrap();
        p
    }

    pub fn opts(&self) -> WriteOptions {
        WriteOptions { root: Some(self.root.clone()), read_only: false, stable_for: Duration::from_millis(50), busy_wait: Duration::from_secs(2) }
    }
}

pub fn set_mtime(p: &Path, ago: Duration) {
    let f = fs::OpenOptions::new().write(true).open(p).unwrap();
    f.set_modified(SystemTime::now() - ago).unwrap();
}

pub fn folder_listing(dir: &Path) -> BTreeMap<String, Vec<u8>> {
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
pub fn checked(path: &Path, w: impl FnOnce() -> Result<Appended, Error>) -> Appended {
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

pub fn check_now(now: &str) {
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
pub fn check_new_id(id: &str, file: &Path) {
    assert!(id.len() == 8 && id.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)), "id {id:?}");
    let n = file_lines(file).iter().filter_map(|l| serde_json::from_slice::<Value>(l).ok()).filter(|v| v["id"] == id).count();
    assert_eq!(n, 1, "id {id} is used by {n} lines");
}

pub fn jstr(v: Option<&str>) -> String {
    serde_json::to_string(&v).unwrap()
}

/// `{"type":"leaf","id":NEW,"parentId":X,"timestamp":NOW,"targetId":X}`, byte for byte.
pub fn check_leaf_line(line: &str, target: Option<&str>, file: &Path) {
    let v: Value = serde_json::from_str(line).unwrap();
    let (id, now) = (v["id"].as_str().unwrap(), v["timestamp"].as_str().unwrap());
    let x = jstr(target);
    assert_eq!(line, format!(r#"{{"type":"leaf","id":"{id}","parentId":{x},"timestamp":"{now}","targetId":{x}}}"#));
    check_new_id(id, file);
    check_now(now);
}

/// `{"type":"label","id":NEW,"parentId":LEAF,"timestamp":NOW,"targetId":X,"label":"t"}`, no `label` key to clear.
pub fn check_label_line(line: &str, leaf: Option<&str>, target: &str, text: Option<&str>, file: &Path) {
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
pub fn file_lines(p: &Path) -> Vec<Vec<u8>> {
    let b = fs::read(p).unwrap();
    let mut v: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(|l| l.to_vec()).collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

pub fn labels_of(s: &Session) -> HashMap<String, String> {
    s.tree.labels.iter().map(|(k, v)| (k.to_string(), v.text.clone())).collect()
}

/// Refused with `code`, and neither the file nor its folder changed.
pub fn refused<T: Debug>(path: &Path, code: &str, w: impl FnOnce() -> Result<T, Error>) {
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
pub fn random_writes(path: &Path, ids: &[&str], ops: usize, seed: u64, opts: &WriteOptions) {
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
                let before = raw_messages(&ContextJson::of(&Session::open(path).unwrap(), s_leaf(path)).unwrap());
                let a = checked(path, || write::set_label(path, x, arg, opts));
                check_label_line(&a.line, leaf.as_deref(), x, text, path);
                match text {
                    Some(t) => labels.insert(x.to_string(), t.to_string()),
                    None => labels.remove(x),
                };
                // As pi's appendLabelChange: the label line is the new last line, a child of the
                // leaf, so the context does not change.
                leaf = Some(serde_json::from_str::<Value>(&a.line).unwrap()["id"].as_str().unwrap().to_string());
                let after = raw_messages(&ContextJson::of(&Session::open(path).unwrap(), s_leaf(path)).unwrap());
                assert_eq!(after, before, "step {step}: a label leaves the context as it was");
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

pub fn s_leaf(path: &Path) -> Leaf {
    Session::open(path).unwrap().tree.leaf
}

pub fn raw_messages(c: &ContextJson) -> Vec<String> {
    c.messages.iter().map(|m| m.get().to_string()).collect()
}

/// Forks, and checks everything docs/design.md ("Writing") says about the new file. Returns it.
pub fn check_fork(src: &Path, target: Option<&str>, opts: &WriteOptions) -> PathBuf {
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

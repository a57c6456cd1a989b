//! The CLI's write commands refuse with exit status 1, a message on stderr, nothing on
//! stdout, and the file and its folder byte-identical; they are confined to the sessions root
//! given by `--sessions-dir`; without it they write to the file named, wherever it is (its root
//! is inferred from the file, whatever `$PI_CODING_AGENT_SESSION_DIR` says).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");
const CWD: &str = "/home/alice/projects/webapp";

fn header(version: Value) -> String {
    json!({"type":"session","version":version,"id":"019caf2b-a8c0-7719-a0e6-151785f31506","timestamp":"2026-03-02T10:00:00.000Z","cwd":CWD}).to_string()
}

fn msg(id: &str, parent: Option<&str>, role: &str) -> String {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-03-02T10:00:01.000Z",
        "message":{"role":role,"content":format!("{role} {id}"),"timestamp":1_772_445_601_000u64}})
    .to_string()
}

fn chain() -> Vec<String> {
    vec![
        msg("e0000001", None, "user"),
        msg("e0000002", Some("e0000001"), "assistant"),
        msg("e0000003", Some("e0000002"), "user"),
        msg("e0000004", Some("e0000003"), "assistant"),
    ]
}

struct Fx {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    folder: PathBuf,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(tmp.path()).unwrap().join("sessions");
        let folder = root.join("--home-alice-projects-webapp--");
        fs::create_dir_all(&folder).unwrap();
        Fx { _tmp: tmp, root, folder }
    }
    fn file(&self, name: &str, head: &str, lines: &[String]) -> PathBuf {
        let p = self.folder.join(name);
        let mut s = format!("{head}\n");
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
        fs::write(&p, s).unwrap();
        p
    }
}

fn listing(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), fs::read(e.path()).unwrap()))
        .collect()
}

fn run(args: &[&str], root: Option<&Path>) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).env_remove("PI_CODING_AGENT_SESSION_DIR").env_remove("PI_CODING_AGENT_DIR");
    if let Some(r) = root {
        c.arg("--sessions-dir").arg(r);
    }
    c.output().unwrap()
}

/// Runs a write command expecting a refusal whose message contains `needle`.
fn refused(file: &Path, args: &[&str], root: Option<&Path>, needle: &str) {
    let folder = file.parent().unwrap();
    let (before, dir) = (fs::read(file).ok(), listing(folder));
    let out = run(args, root);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: nothing on stdout");
    assert!(err.starts_with("pi-session: "), "{args:?}: {err}");
    assert!(err.contains(needle), "{args:?}: expected {needle:?} in {err}");
    assert_eq!(fs::read(file).ok(), before, "{args:?} changed the file");
    assert_eq!(listing(folder), dir, "{args:?} changed the folder");
}

fn refused_all(file: &Path, id: &str, root: Option<&Path>, needle: &str) {
    let f = file.to_str().unwrap();
    refused(file, &["navigate", f, id], root, needle);
    refused(file, &["label", f, id, "t"], root, needle);
    refused(file, &["label", f, id, "--clear"], root, needle);
    refused(file, &["fork", f, id], root, needle);
}

#[test]
fn refusals_exit_1_and_change_nothing() {
    let fx = Fx::new();
    let root = Some(fx.root.as_path());
    let ok = fx.file("ok.jsonl", &header(json!(3)), &chain());
    refused_all(&ok, "deadbeef", root, "is not in");
    refused_all(&ok, "a\"b", root, "invalid id");
    refused_all(&ok, "", root, "invalid id");

    let v2 = fx.file("v2.jsonl", &header(json!(2)), &chain());
    refused_all(&v2, "e0000002", root, "read-only");
    let v4h = fx.file("v4h.jsonl", &header(json!(4)), &chain());
    refused_all(&v4h, "e0000002", root, "read-only");
    let v4 = fx.file(
        "v4.jsonl",
        &json!({"kind":"header","version":4,"id":"019caf2b-a8c0-7719-a0e6-151785f31507","createdAt":1772445600000u64,"cwd":CWD}).to_string(),
        &[],
    );
    refused_all(&v4, "e0000002", root, "read-only");
    let v1 = fx.file(
        "v1.jsonl",
        &json!({"type":"session","id":"v1","timestamp":"2025-01-01T00:00:00.000Z","cwd":CWD}).to_string(),
        &[json!({"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}).to_string()],
    );
    refused(&v1, &["navigate", v1.to_str().unwrap(), "--root"], root, "read-only");

    let mut cyc = chain();
    cyc.push(msg("cccc0001", Some("cccc0002"), "user"));
    cyc.push(msg("cccc0002", Some("cccc0001"), "assistant"));
    cyc.push(msg("e0000005", Some("e0000004"), "user"));
    let cycle = fx.file("cycle.jsonl", &header(json!(3)), &cyc);
    refused_all(&cycle, "cccc0001", root, "cycle");

    // --read-only refuses everything, even a valid write.
    let f = ok.to_str().unwrap();
    refused(&ok, &["--read-only", "navigate", f, "e0000002"], root, "read-only mode");
    refused(&ok, &["label", "--read-only", f, "e0000002", "x"], root, "read-only mode");
    refused(&ok, &["fork", f, "e0000002", "--read-only"], root, "read-only mode");
}

#[test]
fn writes_are_confined_to_the_sessions_root() {
    let fx = Fx::new();
    let ok = fx.file("ok.jsonl", &header(json!(3)), &chain());
    let other = fx.root.parent().unwrap().join("elsewhere");
    fs::create_dir_all(&other).unwrap();
    let outside = other.join("x.jsonl");
    fs::copy(&ok, &outside).unwrap();
    let original = fs::read(&ok).unwrap();

    // --sessions-dir
    refused_all(&outside, "e0000002", Some(&fx.root), "outside the sessions root");
    #[cfg(unix)]
    {
        let link = fx.folder.join("link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        refused_all(&link, "e0000002", Some(&fx.root), "outside the sessions root");
        assert_eq!(listing(&other).len(), 1, "no fork landed outside the root");
    }
    assert_eq!(fs::read(&outside).unwrap(), original, "the file outside the root was never written");
}

/// Without `--sessions-dir` a write goes to the file named, even outside the default root and
/// whatever `$PI_CODING_AGENT_SESSION_DIR` says: one line appended, every earlier byte kept; a
/// fork lands beside it.
#[test]
fn without_a_root_flag_writes_go_to_the_file_named() {
    let fx = Fx::new();
    let ok = fx.file("ok.jsonl", &header(json!(3)), &chain());
    let elsewhere = fx.root.parent().unwrap().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let flat = elsewhere.join("flat.jsonl");
    fs::copy(&ok, &flat).unwrap();
    let per_cwd = elsewhere.join("--home-alice-other--");
    fs::create_dir_all(&per_cwd).unwrap();
    let nested = per_cwd.join("nested.jsonl");
    fs::copy(&ok, &nested).unwrap();
    let original = fs::read(&ok).unwrap();
    for file in [&flat, &nested] {
        let f = file.to_str().unwrap();
        let out = Command::new(BIN).args(["navigate", f, "e0000002"]).env("PI_CODING_AGENT_SESSION_DIR", &fx.root).output().unwrap();
        assert!(out.status.success(), "{f}: {}", String::from_utf8_lossy(&out.stderr));
        let after = fs::read(file).unwrap();
        assert!(after.starts_with(&original), "{f}: earlier bytes kept");
        let added = String::from_utf8(after[original.len()..].to_vec()).unwrap();
        assert_eq!(added.matches('\n').count(), 1, "{f}: one line appended: {added}");
        let v: Value = serde_json::from_str(added.trim_end()).unwrap();
        assert_eq!((v["type"].as_str(), v["targetId"].as_str()), (Some("leaf"), Some("e0000002")), "{f}");
        let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(printed["line"].as_str(), Some(added.trim_end()));

        let before = listing(file.parent().unwrap());
        let out = run(&["fork", f, "e0000003"], None);
        assert!(out.status.success(), "{f}: {}", String::from_utf8_lossy(&out.stderr));
        let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
        let new = PathBuf::from(printed["file"].as_str().unwrap());
        assert_eq!(new.parent(), Some(file.parent().unwrap()), "the fork lands beside its source");
        assert_eq!(listing(file.parent().unwrap()).len(), before.len() + 1);
    }
    assert_eq!(fs::read(&ok).unwrap(), original, "the file under the default root was not touched");
    // The explicit root still confines.
    refused_all(&flat, "e0000002", Some(&fx.root), "outside the sessions root");
}

#[test]
fn successful_writes_print_what_they_wrote() {
    let fx = Fx::new();
    let ok = fx.file("ok.jsonl", &header(json!(3)), &chain());
    let f = ok.to_str().unwrap();
    let root = Some(fx.root.as_path());
    for args in [vec!["navigate", f, "e0000002"], vec!["navigate", f, "--root"], vec!["label", f, "e0000003", "checkpoint"], vec!["label", f, "e0000003", "--clear"]] {
        let before = fs::read(&ok).unwrap();
        let out = run(&args, root);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["file"].as_str().unwrap(), f);
        let line = v["line"].as_str().unwrap();
        assert_eq!(v["offset"].as_u64().unwrap() as usize, before.len());
        let after = fs::read(&ok).unwrap();
        assert_eq!(after, [before.as_slice(), line.as_bytes(), b"\n"].concat());
    }
    // fork and fork --before
    for (args, leaf) in [(vec!["fork", f, "e0000003"], Some("e0000003")), (vec!["fork", f, "e0000003", "--before"], Some("e0000002")), (vec!["fork", f, "e0000001", "--before"], None)] {
        let out = run(&args, root);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["leafId"].as_str(), leaf);
        let file = PathBuf::from(v["file"].as_str().unwrap());
        assert_eq!(file.parent().unwrap(), fx.folder);
        let s = pi_session::Session::open(&file).unwrap();
        assert_eq!(s.leaf_id(), leaf);
        assert_eq!(v["copied"].as_u64().unwrap() as usize, s.tree.active_path().len());
        let t = run(&["tree", file.to_str().unwrap(), "--json"], None);
        let t: Value = serde_json::from_slice(&t.stdout).unwrap();
        assert_eq!(t["header"]["parentSession"].as_str().unwrap(), f);
    }
}

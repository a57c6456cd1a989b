//! `fork --slim`, `prune` and `diff` through the binary: exit codes, refusals that write
//! nothing, the source left byte for byte as it was, the `FILE2:` node syntax across a fork.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");

fn run(args: &[&str], root: &Path) -> Output {
    Command::new(BIN).args(args).arg("--sessions-dir").arg(root).output().unwrap()
}

fn run_plain(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

/// u1 → a1 → u2 → a2 → c1 (keeps from u2) → u3 → a3, and a side branch a1 → u4.
fn session(dir: &Path) -> PathBuf {
    let p = dir.join("2026-03-01T10-00-00-000Z_s.jsonl");
    let lines = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"thinking_level_change","id":"t0","parentId":null,"timestamp":"2026-03-01T10:00:00.500Z","thinkingLevel":"high"}"#,
        r#"{"type":"message","id":"u1","parentId":"t0","timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"one","timestamp":1}}"#,
        r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-03-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"provider":"p","model":"m","timestamp":2}}"#,
        r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2026-03-01T10:00:03.000Z","message":{"role":"user","content":"three  \u00e9","timestamp":3}}"#,
        r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"2026-03-01T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"four"}],"provider":"p","model":"m","timestamp":4}}"#,
        r#"{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-03-01T10:00:05.000Z","summary":"s","firstKeptEntryId":"u2","tokensBefore":9}"#,
        r#"{"type":"message","id":"u3","parentId":"c1","timestamp":"2026-03-01T10:00:06.000Z","message":{"role":"user","content":"five","timestamp":6}}"#,
        r#"{"type":"message","id":"u4","parentId":"a1","timestamp":"2026-03-01T10:00:07.000Z","message":{"role":"user","content":"side","timestamp":7}}"#,
        r#"{"type":"label","id":"l1","parentId":"u4","timestamp":"2026-03-01T10:00:08.000Z","targetId":"u2","label":"kept"}"#,
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn slim_fork_writes_only_the_context_and_keeps_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let src = session(dir.path());
    let before = std::fs::read(&src).unwrap();
    let out = run(&["fork", src.to_str().unwrap(), "u3", "--slim"], dir.path());
    let j = json(&out);
    assert!(String::from_utf8_lossy(&out.stderr).contains("slim fork:"));
    assert_eq!(std::fs::read(&src).unwrap(), before, "source unchanged");
    // t0 (thinking level, hidden), then u2 a2 c1 u3; a2's model decides, so no hidden model entry.
    assert_eq!(j["copied"], 5);
    assert_eq!(j["relinked"], serde_json::json!(["u2"]));
    let text = std::fs::read_to_string(j["file"].as_str().unwrap()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let head: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(head["parentSession"], std::fs::canonicalize(&src).unwrap().to_str().unwrap());
    // t0 byte for byte (already a root); u2 re-linked to t0 with every other byte kept.
    assert_eq!(lines[1], std::str::from_utf8(&before).unwrap().lines().nth(1).unwrap());
    assert_eq!(lines[2], r#"{"type":"message","id":"u2","parentId":"t0","timestamp":"2026-03-01T10:00:03.000Z","message":{"role":"user","content":"three  \u00e9","timestamp":3}}"#);
    // The label on u2 was set by a line on a dropped branch: re-created; then the leaf line.
    let label: serde_json::Value = serde_json::from_str(lines[6]).unwrap();
    assert_eq!((label["targetId"].as_str(), label["label"].as_str()), (Some("u2"), Some("kept")));
    let leaf: serde_json::Value = serde_json::from_str(lines[7]).unwrap();
    assert_eq!((leaf["type"].as_str(), leaf["targetId"].as_str()), (Some("leaf"), Some("u3")));
    // The same context as the source's at u3.
    let a = json(&run_plain(&["context", src.to_str().unwrap(), "--leaf", "u3", "--json"]));
    let b = json(&run_plain(&["context", j["file"].as_str().unwrap(), "--json"]));
    assert_eq!((&a["messages"], &a["model"], &a["thinkingLevel"]), (&b["messages"], &b["model"], &b["thinkingLevel"]));
}

#[test]
fn refusals_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = session(dir.path());
    let before = files(dir.path());
    let s = src.to_str().unwrap();
    let o = run(&["fork", s, "u4", "--slim"], dir.path());
    assert_eq!(o.status.code(), Some(3), "no compaction on the path");
    assert!(String::from_utf8_lossy(&o.stderr).contains("pi-session fork FILE u4"));
    let o = run(&["--read-only", "fork", s, "u3", "--slim"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["prune", s, "--keep", "u3", "nope"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let o = run(&["--read-only", "prune", s, "--keep", "u3"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let elsewhere = tempfile::tempdir().unwrap();
    let o = run(&["prune", s, "--keep", "u3"], elsewhere.path());
    assert_eq!(o.status.code(), Some(1), "outside the sessions root");
    assert_eq!(files(dir.path()), before);
}

#[test]
fn prune_keeps_the_chosen_paths_and_diff_reaches_across_the_fork() {
    let dir = tempfile::tempdir().unwrap();
    let src = session(dir.path());
    let s = src.to_str().unwrap();
    let j = json(&run(&["prune", s, "--keep", "u4"], dir.path()));
    assert_eq!((j["copied"].as_u64(), j["dropped"].as_u64(), j["leafId"].as_str()), (Some(4), Some(5), Some("u4")));
    let copy = j["file"].as_str().unwrap().to_string();
    let t = json(&run_plain(&["tree", &copy, "--json"]));
    let ids = t.to_string();
    assert!(ids.contains("\"u4\"") && !ids.contains("\"u3\"") && !ids.contains("\"c1\""));
    // The copy is of the source's family: diff SOURCE u3 COPY:u4 (COPY: alone = its leaf).
    let d = json(&run_plain(&["diff", s, "u3", &format!("{copy}:"), "--json"]));
    assert_eq!(d["ancestor"]["id"], "a1");
    assert_eq!(d["b"]["tip"], "u4");
    let text = run_plain(&["diff", s, "u3", "u4"]);
    assert!(text.status.success());
    assert!(String::from_utf8_lossy(&text.stdout).contains("common ancestor a1"));
}

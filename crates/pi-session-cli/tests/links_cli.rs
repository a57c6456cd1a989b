//! One symlink policy through the real `pi-session` binary: a link in the root (to a session
//! file, or to a folder of sessions) whose target lies outside it is read by nothing — not
//! listed, searched, counted by the dashboard, a node of the fork graph, or opened with
//! `--sessions-dir` — and `list` and `check` account for it. A link inside the root is read
//! once; the root itself may be a link.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");

/// A session of three lines: a user message holding `word`, an answer costing `cost`.
fn session(path: &Path, id: &str, word: &str, cost: f64, parent: Option<&Path>) {
    let mut header = json!({"type":"session","version":3,"id":id,"timestamp":"2026-03-02T10:00:00.000Z","cwd":"/w"});
    if let Some(p) = parent {
        header["parentSession"] = json!(p);
    }
    let lines = [
        header,
        json!({"type":"message","id":format!("{id}-u"),"parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":format!("tell me about {word}")}}),
        json!({"type":"message","id":format!("{id}-a"),"parentId":format!("{id}-u"),"timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"sure"}],"provider":"p","model":"m","usage":{"input":7,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":10,"cost":{"total":cost}},"stopReason":"stop"}}),
    ];
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
}

struct Fx {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

/// The root: a session of its own, a link to a session outside, a link to a folder of
/// sessions outside, a link to its own session (read once), and a fork whose parent is the
/// link that leaves the root.
fn fx() -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("sessions");
    session(&root.join("--w--/own.jsonl"), "own", "gardening", 0.5, None);
    session(&base.join("outside/secret.jsonl"), "secret", "xylophone", 7.0, None);
    session(&base.join("outside-dir/--x--/far.jsonl"), "far", "xylophone", 9.0, None);
    symlink(base.join("outside/secret.jsonl"), root.join("--w--/leak.jsonl")).unwrap();
    symlink(base.join("outside-dir/--x--"), root.join("--x--")).unwrap();
    symlink(root.join("--w--/own.jsonl"), root.join("again.jsonl")).unwrap();
    // A fork of the outside session, made through the link: its first entry copied.
    session(&root.join("--w--/child.jsonl"), "child", "compost", 0.25, Some(&root.join("--w--/leak.jsonl")));
    let secret = fs::read_to_string(base.join("outside/secret.jsonl")).unwrap();
    let child = fs::read_to_string(root.join("--w--/child.jsonl")).unwrap();
    let mut lines: Vec<&str> = child.lines().collect();
    lines.insert(1, secret.lines().nth(1).unwrap());
    let relinked = lines.join("\n").replace("\"parentId\":null,\"timestamp\":\"2026-03-02T10:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"tell me about compost", "\"parentId\":\"secret-u\",\"timestamp\":\"2026-03-02T10:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"tell me about compost");
    assert!(relinked.contains("\"parentId\":\"secret-u\""));
    fs::write(root.join("--w--/child.jsonl"), relinked + "\n").unwrap();
    Fx { _tmp: tmp, base, root }
}

fn run(f: &Fx, args: &[&str]) -> Output {
    Command::new(BIN).args(args).env("PI_SESSION_CACHE_DIR", f.base.join("cache")).output().unwrap()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {} {}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_link_leaving_the_root_is_read_by_nothing_and_accounted_for() {
    let f = fx();
    let root = s(&f.root);
    let leak = f.root.join("--w--/leak.jsonl");

    // list: two sessions of the root; both links that leave it reported, with what to do.
    let l = json_of(&run(&f, &["list", "--json", "--sessions-dir", root]));
    let mut ids: Vec<&str> = l["sessions"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, ["child", "own"], "{l}");
    let note = |path: &Path| l["other"].as_array().unwrap().iter().find(|o| o["path"] == json!(path)).cloned().unwrap_or_else(|| panic!("{} not accounted for: {l}", path.display()));
    for p in [leak.clone(), f.root.join("--x--")] {
        let n = note(&p);
        assert_eq!(n["kind"], "symlink-outside-root");
        assert_eq!(n["severity"], "warning");
        assert!(n["message"].as_str().unwrap().contains("not read; add its target as another root to read it"), "{n}");
    }
    // The link to the root's own session: read once, at the session's own path.
    assert_eq!(note(&f.root.join("again.jsonl"))["kind"], "symlink");

    // search: nothing of the outside text, the root's own text found.
    let hits = |q: &str| json_of(&run(&f, &["search", q, "--json", "--sessions-dir", root]))["totalHits"].as_u64().unwrap();
    // The only hit of the outside word is the line the fork copied into the root.
    let x = json_of(&run(&f, &["search", "xylophone", "--json", "--sessions-dir", root]));
    assert_eq!(x["totalHits"], 1, "{x}");
    assert_eq!(x["sessions"][0]["path"], json!(f.root.join("--w--/child.jsonl")));
    assert_eq!(hits("gardening"), 1, "once, though a second link points at it");

    // check: the links reported; warnings only, so exit 0.
    let c = run(&f, &["check", root, "--json"]);
    assert_eq!(c.status.code(), Some(0), "{}", String::from_utf8_lossy(&c.stderr));
    let c = json_of(&c);
    let kinds: Vec<(String, String)> = c["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().unwrap().iter().map(move |d| (f["path"].as_str().unwrap().to_string(), d["kind"].as_str().unwrap().to_string())))
        .collect();
    assert!(kinds.contains(&(s(&leak).to_string(), "symlink-outside-root".to_string())), "{kinds:?}");
    assert!(kinds.contains(&(f.root.join("--x--").to_str().unwrap().to_string(), "symlink-outside-root".to_string())), "{kinds:?}");
    assert!(c["files"].as_array().unwrap().iter().all(|f| !f["path"].as_str().unwrap().contains("far.jsonl")));

    // dashboard: the root's two sessions, their cost only.
    let d = json_of(&run(&f, &["dashboard", "--json", "--sessions-dir", root]));
    assert_eq!(d["totals"]["sessions"], 2, "{d}");
    assert_eq!(d["totals"]["cost"], 0.75);

    // forks: no node for the link; the fork whose parent is the link gets no fork point read
    // through it.
    let g = json_of(&run(&f, &["forks", "--json", "--sessions-dir", root]));
    let nodes = g["sessions"].as_array().unwrap();
    assert_eq!(nodes.len(), 2, "{g}");
    assert!(nodes.iter().all(|n| n["path"] != json!(leak)));
    let child = nodes.iter().find(|n| n["id"] == "child").unwrap();
    assert!(child["forkPointId"].is_null() && child["forkPointPreview"].is_null(), "{child}");

    // tree with the root: the link (and a file through the linked folder) refused as outside,
    // like a path outside that exists and one that does not; the root's own file read.
    for p in [leak.clone(), f.root.join("--x--/far.jsonl"), f.base.join("outside/secret.jsonl"), PathBuf::from("/nonexistent/x.jsonl"), f.root.join("../outside/secret.jsonl")] {
        let out = run(&f, &["tree", s(&p), "--json", "--sessions-dir", root]);
        assert_eq!(out.status.code(), Some(1), "{}", p.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("outside the sessions root") && !err.contains("No such file"), "{}: {err}", p.display());
        assert!(out.stdout.is_empty());
    }
    let ok = run(&f, &["tree", s(&f.root.join("--w--/own.jsonl")), "--json", "--sessions-dir", root]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let missing = run(&f, &["tree", s(&f.root.join("--w--/gone.jsonl")), "--sessions-dir", root]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("No such file"), "inside the root, a missing file is just missing");
}

#[test]
fn the_root_may_itself_be_a_link() {
    let f = fx();
    // ~/.pi/agent/sessions → /data/…: listed, searched and opened through the link.
    let home = f.base.join("home");
    fs::create_dir_all(&home).unwrap();
    symlink(&f.root, home.join("sessions")).unwrap();
    let linked = home.join("sessions");
    let l = json_of(&run(&f, &["list", "--json", "--sessions-dir", s(&linked)]));
    assert_eq!(l["sessions"].as_array().unwrap().len(), 2, "{l}");
    assert_eq!(l["other"].as_array().unwrap().iter().filter(|o| o["kind"] == "symlink-outside-root").count(), 2);
    let hits = json_of(&run(&f, &["search", "gardening", "--json", "--sessions-dir", s(&linked)]));
    assert_eq!(hits["totalHits"], 1);
    for p in [linked.join("--w--/own.jsonl"), f.root.join("--w--/own.jsonl")] {
        let out = run(&f, &["tree", s(&p), "--json", "--sessions-dir", s(&linked)]);
        assert!(out.status.success(), "{}: {}", p.display(), String::from_utf8_lossy(&out.stderr));
    }
    let out = run(&f, &["tree", s(&linked.join("--w--/leak.jsonl")), "--sessions-dir", s(&linked)]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("outside the sessions root"));
}

//! A session file whose name is not UTF-8, through the real binary: `list --json` lists it
//! under a path that leads back to it (docs/cli.md; `pi_session::pathstr`), `tree`, `search`
//! and `check` take and give that same path, and the list cache is saved.

#![cfg(unix)]

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");

/// `root/--w--/caf\xe9-…_s1.jsonl` (Latin-1 é) and a neighbour whose name is its lossy form.
fn fixture(root: &Path) -> (PathBuf, PathBuf) {
    let folder = root.join("--w--");
    fs::create_dir_all(&folder).unwrap();
    let mut name = folder.into_os_string().into_vec();
    name.extend_from_slice(b"/caf\xe9-2026_s1.jsonl");
    let latin1 = PathBuf::from(OsString::from_vec(name));
    let lossy = root.join("--w--/caf\u{FFFD}-2026_s1.jsonl");
    for (p, id, word) in [(&latin1, "s1", "xylophone"), (&lossy, "s2", "marimba")] {
        let lines = [
            json!({"type":"session","version":3,"id":id,"timestamp":"2026-03-02T10:00:00.000Z","cwd":"/w"}),
            json!({"type":"message","id":format!("{id}-u"),"parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":format!("a {word} here")}}),
        ];
        fs::write(p, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    }
    (latin1, lossy)
}

fn run(dir: &Path, args: &[&std::ffi::OsStr]) -> (i32, Value, String) {
    let out = Command::new(BIN).args(args).env("PI_SESSION_CACHE_DIR", dir.join("cache")).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_name_that_is_not_utf8_is_listed_opened_and_searched_under_one_path() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap().join("sessions");
    let (latin1, lossy) = fixture(&root);
    let r = root.as_os_str();
    let s = |x: &str| std::ffi::OsString::from(x);

    let (code, l, err) = run(dir.path(), &[&s("list"), &s("--json"), &s("--sessions-dir"), r]);
    assert_eq!(code, 0, "{err}");
    let paths: Vec<&str> = l["sessions"].as_array().unwrap().iter().map(|s| s["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 2, "{l}");
    let back: Vec<PathBuf> = paths.iter().map(|p| pi_session::pathstr::decode(p)).collect();
    assert!(back.contains(&latin1) && back.contains(&lossy), "each listed path leads back to its own file: {paths:?}");
    let shown = paths[back.iter().position(|p| *p == latin1).unwrap()].to_string();
    assert!(shown.ends_with("caf\u{F7E9}-2026_s1.jsonl"), "{shown}");
    // The list cache was saved (a path that is not UTF-8 used to make saving it fail).
    let cache = fs::read_dir(dir.path().join("cache")).unwrap().map(|e| e.unwrap().path()).find(|p| p.file_name().unwrap().to_string_lossy().starts_with("list-")).expect("the list cache");
    let cached: Value = serde_json::from_slice(&fs::read(cache).unwrap()).unwrap();
    assert!(cached["files"].get(&shown).is_some(), "cached under the same path");

    // tree takes the path as listed, and the real one.
    for arg in [OsString::from(&shown), latin1.clone().into_os_string()] {
        let (code, t, err) = run(dir.path(), &[&s("tree"), &arg, &s("--json"), &s("--sessions-dir"), r]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(t["path"], json!(shown));
        assert_eq!(t["leafId"], "s1-u");
    }
    // search: the hit's path is the listed one; each file's text is its own.
    let (_, hits, _) = run(dir.path(), &[&s("search"), &s("xylophone"), &s("--json"), &s("--sessions-dir"), r]);
    assert_eq!(hits["sessions"].as_array().unwrap().len(), 1, "{hits}");
    assert_eq!(hits["sessions"][0]["path"], json!(shown));
    let (_, hits, _) = run(dir.path(), &[&s("search"), &s("marimba"), &s("--json"), &s("--sessions-dir"), r]);
    assert_eq!(pi_session::pathstr::decode(hits["sessions"][0]["path"].as_str().unwrap()), lossy);
    // check: both files, under their paths.
    let (code, c, err) = run(dir.path(), &[&s("check"), r, &s("--json")]);
    assert_eq!(code, 0, "{err}");
    let checked: Vec<PathBuf> = c["files"].as_array().unwrap().iter().map(|f| pi_session::pathstr::decode(f["path"].as_str().unwrap())).collect();
    assert!(checked.contains(&latin1) && checked.contains(&lossy), "{c}");
}

//! `pi-session search` and `pi-session export`: the index lives in the cache folder (never
//! under the root) and sees appends; exports are written, inert, and never over a session file.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");

fn write_session(dir: &Path) -> std::path::PathBuf {
    let folder = dir.join("sessions/--w--");
    fs::create_dir_all(&folder).unwrap();
    let p = folder.join("2026-03-02T10-00-00-000Z_s1.jsonl");
    let lines = [
        json!({"type":"session","version":3,"id":"s1","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/w"}),
        json!({"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":"Where is src/parser.ts? <script>x()</script>"}}),
        json!({"type":"message","id":"a2","parentId":"a1","timestamp":"2026-03-02T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"In the Parser folder."}]}}),
    ];
    fs::write(&p, lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    p
}

fn search(dir: &Path, q: &str) -> Value {
    let out = Command::new(BIN).args(["search", q, "--json", "--sessions-dir"]).arg(dir.join("sessions")).env("PI_SESSION_CACHE_DIR", dir.join("cache")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn search_uses_an_index_in_the_cache_folder_and_sees_appends() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_session(dir.path());
    let r = search(dir.path(), "parser");
    assert_eq!(r["totalHits"], 2);
    let ids: Vec<&str> = r["sessions"][0]["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&"a1") && ids.contains(&"a2"));
    assert_eq!(search(dir.path(), "src/parser.ts role:user")["totalHits"], 1);
    assert!(fs::read_dir(dir.path().join("cache")).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with("search-")));
    assert_eq!(fs::read_dir(p.parent().unwrap()).unwrap().count(), 1, "nothing written beside the session");
    let mut f = fs::OpenOptions::new().append(true).open(&p).unwrap();
    use std::io::Write;
    writeln!(f, "{}", json!({"type":"message","id":"a3","parentId":"a2","timestamp":"2026-03-02T10:00:03.000Z","message":{"role":"user","content":"and the PARSER tests"}})).unwrap();
    assert_eq!(search(dir.path(), "parser")["totalHits"], 3);
}

#[test]
fn export_writes_inert_html_and_markdown_and_refuses_a_jsonl_target() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_session(dir.path());
    let before = fs::read(&p).unwrap();
    let html = dir.path().join("out.html");
    let st = Command::new(BIN).arg("export").arg(&p).args(["--html", "-o"]).arg(&html).status().unwrap();
    assert!(st.success());
    let h = fs::read_to_string(&html).unwrap();
    assert!(h.contains("&lt;script&gt;x()&lt;/script&gt;") && !h.contains("<script"));
    let out = Command::new(BIN).arg("export").arg(&p).args(["--md", "--leaf", "a1", "-o", "-"]).output().unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("src/parser.ts") && !md.contains("In the Parser folder"), "the path to a1 only");
    let bad = Command::new(BIN).arg("export").arg(&p).args(["--md", "-o"]).arg(dir.path().join("x.jsonl")).output().unwrap();
    assert!(!bad.status.success());
    assert!(!dir.path().join("x.jsonl").exists());
    assert_eq!(fs::read(&p).unwrap(), before);
}

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
    // The index's answer is given while the files are looked at; a file gone since is not in it.
    fs::remove_file(&p).unwrap();
    assert_eq!(search(dir.path(), "parser")["totalHits"], 0);
}

/// A query meeting more sessions than the process may have files open: every hit is found (the
/// lookup kept each file it met open, and past the limit a file failed to open and its hits
/// were lost without a word).
#[cfg(unix)]
#[test]
fn a_search_meeting_more_sessions_than_open_files_allowed_finds_every_hit() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sessions/--w--");
    fs::create_dir_all(&folder).unwrap();
    for i in 0..150 {
        let id = format!("s{i:03}");
        let lines = [
            json!({"type":"session","version":3,"id":id,"timestamp":"2026-03-02T10:00:00.000Z","cwd":"/w"}),
            json!({"type":"message","id":"a1","parentId":null,"timestamp":"2026-03-02T10:00:01.000Z","message":{"role":"user","content":format!("zebrafish number {i}")}}),
        ];
        fs::write(folder.join(format!("2026-03-02T10-00-00-000Z_{id}.jsonl")), lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    }
    // Built first with the usual limit, then asked with 64 open files at most.
    assert_eq!(search(dir.path(), "zebrafish")["totalHits"], 150);
    let script = format!("ulimit -n 64 && exec \"$0\" search zebrafish --json --sessions-dir '{}'", dir.path().join("sessions").display());
    let out = Command::new("sh").arg("-c").arg(script).arg(BIN).env("PI_SESSION_CACHE_DIR", dir.path().join("cache")).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["totalHits"], 150, "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(r["sessions"].as_array().unwrap().len(), 150);
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

/// A second root (`desk`) with a prefix copy of s1 and a session of its own.
fn second_root(dir: &Path, p1: &Path) -> std::path::PathBuf {
    let folder = dir.join("desk/--w--");
    fs::create_dir_all(&folder).unwrap();
    let text = fs::read_to_string(p1).unwrap();
    let first_two: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    fs::write(folder.join(p1.file_name().unwrap()), first_two).unwrap();
    let lines = [
        json!({"type":"session","version":3,"id":"s2","timestamp":"2026-03-03T10:00:00.000Z","cwd":"/w"}),
        json!({"type":"message","id":"b1","parentId":null,"timestamp":"2026-03-03T10:00:01.000Z","message":{"role":"user","content":"the parser on the desk"}}),
        json!({"type":"message","id":"b2","parentId":"b1","timestamp":"2026-03-03T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":"m","usage":{"input":7,"output":3,"cacheRead":0,"cacheWrite":0,"totalTokens":10,"cost":{"total":0.5}},"stopReason":"stop"}}),
    ];
    fs::write(folder.join("2026-03-03T10-00-00-000Z_s2.jsonl"), lines.iter().map(|l| l.to_string() + "\n").collect::<String>()).unwrap();
    dir.join("desk")
}

fn run_json(dir: &Path, args: &[&str], roots: &[&Path]) -> Value {
    let mut c = Command::new(BIN);
    c.args(args).arg("--json").env("PI_SESSION_CACHE_DIR", dir.join("cache"));
    for r in roots {
        c.arg("--sessions-dir").arg(r);
    }
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn search_and_dashboard_span_every_root_with_a_synced_copy_once() {
    let dir = tempfile::tempdir().unwrap();
    let p1 = write_session(dir.path());
    let desk = second_root(dir.path(), &p1);
    let laptop = dir.path().join("sessions");
    let r = run_json(dir.path(), &["search", "parser"], &[&laptop, &desk]);
    // s1's a1 and a2 on the laptop, b1 on the desk; the desk's prefix copy of s1 not again.
    assert_eq!(r["totalHits"], 3, "{r}");
    let paths: Vec<&str> = r["sessions"].as_array().unwrap().iter().map(|s| s["path"].as_str().unwrap()).collect();
    assert_eq!(paths.len(), 2, "{paths:?}");
    assert!(paths.iter().any(|p| p.ends_with("_s2.jsonl")) && paths.iter().any(|p| Path::new(p).starts_with(fs::canonicalize(&laptop).unwrap())), "{paths:?}");
    // One root alone: its own hits only.
    assert_eq!(run_json(dir.path(), &["search", "parser"], &[&desk])["totalHits"], 2, "b1 and the copy's a1");

    let d = run_json(dir.path(), &["dashboard"], &[&laptop, &desk]);
    assert_eq!(d["totals"]["sessions"], 2, "{d}");
    assert_eq!(d["totals"]["tokens"], 10.0);
    assert_eq!(d["totals"]["cost"], 0.5);
    let list = run_json(dir.path(), &["list"], &[&laptop, &desk]);
    assert_eq!(list["sessions"].as_array().unwrap().len(), 2, "{list}");
}

/// `search` with its stderr.
fn search_noting(dir: &Path, q: &str) -> (Value, String) {
    let out = Command::new(BIN).args(["search", q, "--json", "--sessions-dir"]).arg(dir.join("sessions")).env("PI_SESSION_CACHE_DIR", dir.join("cache")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    (serde_json::from_slice(&out.stdout).unwrap(), err)
}

/// (id, line) of every hit, sorted.
fn hit_ids(r: &Value) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = r["sessions"].as_array().unwrap().iter().flat_map(|s| s["hits"].as_array().unwrap().iter().map(|h| (h["id"].as_str().unwrap().to_string(), h["line"].as_u64().unwrap()))).collect();
    v.sort();
    v
}

/// What a case-insensitive scan of the session's lines finds (the entries holding the term).
fn brute_force(session: &Path, term: &str) -> Vec<(String, u64)> {
    let text = fs::read_to_string(session).unwrap();
    let mut v: Vec<(String, u64)> = text
        .lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| l.to_lowercase().contains(term))
        .map(|(i, l)| (serde_json::from_str::<Value>(l).unwrap()["id"].as_str().unwrap().to_string(), i as u64 + 1))
        .collect();
    v.sort();
    v
}

/// `n` bytes of noise (xorshift from `seed`).
fn noise(n: usize, mut x: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn a_damaged_index_is_set_aside_rebuilt_and_reported_and_the_search_still_answers() {
    type Damage = fn(&[u8], u64) -> Vec<u8>;
    let cases: [(&str, Damage); 3] = [
        ("cut short", |good, _| good[..good.len() / 2].to_vec()),
        // Everything after the first page (the schema) is noise.
        ("garbage", |good, seed| [&good[..4096], &noise(good.len() - 4096, seed)].concat()),
        // The 100-byte SQLite header randomised.
        ("random header", |good, seed| [&noise(100, seed), &good[100..]].concat()),
    ];
    for (what, damage) in cases {
        let dir = tempfile::tempdir().unwrap();
        let p = write_session(dir.path());
        let want = brute_force(&p, "parser");
        assert_eq!(want.len(), 2);
        let (r, _) = search_noting(dir.path(), "parser");
        assert_eq!(hit_ids(&r), want);
        let db = fs::read_dir(dir.path().join("cache")).unwrap().map(|e| e.unwrap().path()).find(|p| p.file_name().unwrap().to_string_lossy().starts_with("search-") && p.extension().is_some_and(|e| e == "sqlite")).unwrap();
        let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
        eprintln!("{what}: seed {seed}");
        let bad = damage(&fs::read(&db).unwrap(), seed);
        fs::write(&db, &bad).unwrap();

        let (r, err) = search_noting(dir.path(), "parser");
        assert_eq!(hit_ids(&r), want, "{what}: the answer after the rebuild");
        assert!(err.contains("was damaged") && err.contains(&*db.to_string_lossy()), "{what}: {err}");
        let aside: Vec<std::path::PathBuf> = fs::read_dir(db.parent().unwrap()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().contains(".damaged-") && !["-wal", "-shm", "-postings"].iter().any(|x| p.to_string_lossy().ends_with(x))).collect();
        assert_eq!(aside.len(), 1, "{what}: {aside:?}");
        assert!(err.contains(&*aside[0].to_string_lossy()), "{what}: the message names where it is kept: {err}");
        assert_eq!(fs::read(&aside[0]).unwrap(), bad, "{what}: kept byte for byte");
        // The next run finds a whole index: no message, the same answer.
        let (r, err) = search_noting(dir.path(), "parser");
        assert_eq!(hit_ids(&r), want);
        assert!(!err.contains("damaged"), "{what}: {err}");
    }
}

/// A posting file damaged between two searches: the answer given beside the look at the files
/// meets the damage, the index is set aside and built again, and the search answers as before
/// and says so.
#[test]
fn search_heals_a_damaged_posting_file_met_by_the_answer_given_beside_the_look() {
    let dir = tempfile::tempdir().unwrap();
    write_session(dir.path());
    assert_eq!(search(dir.path(), "parser")["totalHits"], 2);
    let cache = dir.path().join("cache");
    let postings = fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).find(|p| p.to_string_lossy().ends_with(".sqlite-postings")).expect("the posting folder");
    let seg = fs::read_dir(&postings).unwrap().map(|e| e.unwrap().path()).next().expect("a posting file");
    let good = fs::read(&seg).unwrap();
    fs::write(&seg, [vec![0xA5u8; 64], good[64.min(good.len())..].to_vec()].concat()).unwrap();
    let out = Command::new(BIN).args(["search", "parser", "--json", "--sessions-dir"]).arg(dir.path().join("sessions")).env("PI_SESSION_CACHE_DIR", &cache).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["totalHits"], 2, "{r}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("was damaged"), "{}", String::from_utf8_lossy(&out.stderr));
    // The index built again answers without a word about damage.
    let again = Command::new(BIN).args(["search", "parser", "--json", "--sessions-dir"]).arg(dir.path().join("sessions")).env("PI_SESSION_CACHE_DIR", &cache).output().unwrap();
    assert!(!String::from_utf8_lossy(&again.stderr).contains("damaged"));
    assert_eq!(serde_json::from_slice::<Value>(&again.stdout).unwrap()["totalHits"], 2);
}

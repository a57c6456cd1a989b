//! A fork killed at random points (SIGKILL on unix) leaves either no new session file or one
//! complete one, never a partial `.jsonl`. The source holds a long root→X path (several MB),
//! so a fork takes long enough for the kills to land in every phase: reading, copying, writing
//! the hidden temporary file, fsync, linking it into place.

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use common::Rng;

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");
const ENTRIES: usize = 6_000;
const ITERATIONS: usize = 300;
const CWD: &str = "/home/alice/projects/webapp";

/// The session files of a folder other than the source: every `*.jsonl`, hidden or not (pi's
/// own listing does not skip hidden names). The temporary files (`.NAME.tmp-*`) do not end in
/// `.jsonl`, so no scanner takes them for sessions.
fn new_sessions(folder: &Path, source: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p != source)
        .filter(|p| p.file_name().unwrap().to_string_lossy().ends_with(".jsonl"))
        .collect();
    v.sort();
    v
}

fn hidden_temporaries(folder: &Path) -> Vec<PathBuf> {
    fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with('.') && n.contains(".tmp-")
        })
        .collect()
}

/// A complete fork of `source` at its last entry `x`: the header, the whole body of the source
/// byte for byte (the path is every line), one `leaf` line for `x`; the name matches the header.
fn assert_complete(file: &Path, source: &Path, body: &[u8], x: &str) {
    let bytes = fs::read(file).unwrap();
    let nl = bytes.iter().position(|&b| b == b'\n').expect("a header line");
    let h: Value = serde_json::from_slice(&bytes[..nl]).unwrap_or_else(|e| panic!("{}: header is not JSON: {e}", file.display()));
    assert_eq!(h["type"], "session");
    assert_eq!(h["version"], 3);
    assert_eq!(h["cwd"], CWD);
    assert_eq!(h["parentSession"].as_str().unwrap(), source.to_str().unwrap());
    let id = h["id"].as_str().unwrap();
    assert_eq!(uuid_version(id), Some('7'), "header id {id}");
    let name = file.file_name().unwrap().to_string_lossy();
    assert_eq!(name, format!("{}_{id}.jsonl", h["timestamp"].as_str().unwrap().replace([':', '.'], "-")));
    let rest = &bytes[nl + 1..];
    assert!(rest.len() > body.len(), "{}: {} bytes after the header, the path alone is {}", file.display(), rest.len(), body.len());
    assert!(rest[..body.len()] == *body, "{}: the path lines are not the source's bytes", file.display());
    let tail = &rest[body.len()..];
    assert_eq!(tail.last(), Some(&b'\n'), "{}: ends with a complete line", file.display());
    let leaf = &tail[..tail.len() - 1];
    assert!(!leaf.contains(&b'\n'), "{}: exactly one line after the path", file.display());
    let v: Value = serde_json::from_slice(leaf).unwrap();
    assert_eq!(v["type"], "leaf");
    assert_eq!(v["targetId"], x);
    assert_eq!(v["parentId"], x);
}

fn uuid_version(id: &str) -> Option<char> {
    let ok = id.len() == 36 && id.chars().enumerate().all(|(i, c)| if [8, 13, 18, 23].contains(&i) { c == '-' } else { c.is_ascii_hexdigit() && !c.is_ascii_uppercase() });
    ok.then(|| id.chars().nth(14).unwrap())
}

fn fork_cmd(source: &Path, x: &str, root: &Path) -> Command {
    let mut c = Command::new(BIN);
    c.arg("fork").arg(source).arg(x).arg("--sessions-dir").arg(root).stdout(Stdio::null()).stderr(Stdio::null());
    c
}

#[test]
fn fork_killed_at_random_points_leaves_nothing_or_a_complete_file() {
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("sessions");
    let folder = root.join("--home-alice-projects-webapp--");
    fs::create_dir_all(&folder).unwrap();
    let source = folder.join("2026-03-02T10-00-00-000Z_019caf2b-a8c0-7719-a0e6-151785f31506.jsonl");

    // A linear chain of ENTRIES entries: the path to the last one is the whole file.
    let head = json!({"type":"session","version":3,"id":"019caf2b-a8c0-7719-a0e6-151785f31506","timestamp":"2026-03-02T10:00:00.000Z","cwd":CWD}).to_string();
    let mut body = String::new();
    let mut parent: Option<String> = None;
    for i in 0..ENTRIES {
        let id = format!("{:08x}", 0xc000_0000u32 + i as u32);
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let line = json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-03-02T10:00:00.000Z",
            "message":{"role":role,"content":format!("message {i}: {}", "lorem ipsum dolor sit amet ".repeat(8)),"timestamp":1_772_445_600_000u64 + i as u64}});
        body.push_str(&line.to_string());
        body.push('\n');
        parent = Some(id);
    }
    let x = parent.unwrap();
    fs::write(&source, format!("{head}\n{body}")).unwrap();
    let source_bytes = fs::read(&source).unwrap();

    // How long a whole fork takes here.
    let mut full = Duration::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let st = fork_cmd(&source, &x, &root).status().unwrap();
        assert!(st.success());
        full = full.min(t.elapsed());
        let made = new_sessions(&folder, &source);
        assert_eq!(made.len(), 1);
        assert_complete(&made[0], &source, body.as_bytes(), &x);
        fs::remove_file(&made[0]).unwrap();
    }
    assert!(hidden_temporaries(&folder).is_empty(), "a completed fork leaves no temporary file");

    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    let mut rng = Rng(seed);
    let span = full.as_micros() as u64;
    // The delay at which about half the forks have renamed their file, tracked as we go.
    let mut edge = span;
    let step = (span / 40).max(200);
    let (mut none, mut complete, mut killed_before, mut killed_after, mut finished, mut temporaries) = (0, 0, 0, 0, 0, 0);
    let mut iterations = 0;
    for it in 0..ITERATIONS {
        // A slow machine runs fewer iterations rather than blow the time budget.
        if it >= ITERATIONS / 3 && started.elapsed() > Duration::from_secs(50) {
            break;
        }
        iterations += 1;
        // Half the kills anywhere in the run, half around the rename (write, fsync, link).
        let focused = it % 2 == 1;
        let delay = if focused { edge.saturating_sub(span / 10) + rng.below_u64(span / 5) } else { rng.below_u64(span * 11 / 10) };
        let mut child = fork_cmd(&source, &x, &root).spawn().unwrap();
        std::thread::sleep(Duration::from_micros(delay));
        let _ = child.kill(); // SIGKILL on unix
        let status = child.wait().unwrap();
        #[cfg(unix)]
        let was_killed = std::os::unix::process::ExitStatusExt::signal(&status) == Some(9);
        #[cfg(not(unix))]
        let was_killed = !status.success();
        let made = new_sessions(&folder, &source);
        assert!(made.len() <= 1, "iteration {it}: {} new session files: {made:?}", made.len());
        match made.first() {
            None => none += 1,
            Some(f) => {
                assert_complete(f, &source, body.as_bytes(), &x);
                complete += 1;
            }
        }
        match (was_killed, made.is_empty()) {
            (true, true) => killed_before += 1,
            (true, false) => killed_after += 1,
            (false, _) => {
                assert!(status.success(), "iteration {it}: the fork failed on its own: {status:?}");
                assert_eq!(made.len(), 1, "iteration {it}: a finished fork made its file");
                finished += 1;
            }
        }
        if focused {
            edge = if made.is_empty() { edge + step } else { edge.saturating_sub(step).max(step) };
        }
        for f in made {
            fs::remove_file(f).unwrap();
        }
        let tmps = hidden_temporaries(&folder);
        temporaries += tmps.len();
        for t in tmps {
            fs::remove_file(t).unwrap();
        }
        assert_eq!(fs::read(&source).unwrap().len(), source_bytes.len());
    }
    assert_eq!(fs::read(&source).unwrap(), source_bytes, "the source is unchanged");
    println!(
        "crash: {iterations} forks killed at random points, of a {:.1} MB, {ENTRIES}-entry path (a whole fork takes {} ms); no new file: {none}, one complete file: {complete}; killed before the rename: {killed_before}, killed after the rename: {killed_after}, finished before the kill: {finished}; hidden temporary files left by kills: {temporaries}; rename at about {} ms after spawn; seed {seed}; took {:.1} s",
        source_bytes.len() as f64 / 1e6,
        full.as_millis(),
        edge / 1000,
        started.elapsed().as_secs_f64()
    );
    assert!(killed_before > 0 && complete > 0, "the kills landed on both sides of the rename");
}

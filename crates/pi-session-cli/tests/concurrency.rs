//! Two writers on one session file: a Node process appends pi-shaped lines exactly as pi does
//! (`fs.appendFileSync`, tests/writes/appender.mjs) while this test runs `pi-session navigate`
//! and `pi-session label` against the same file from two threads. Afterwards every line must be
//! whole: no torn or merged line, every appended line exactly once, every line we printed
//! exactly once, verbatim, at the offset we printed.
//!
//! Node is required: without it the test fails (it does not skip).

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use common::{repo_root, seed, Rng};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");
const APPENDED_AT_LEAST: usize = 1000;
const OUR_WRITES_AT_LEAST: usize = 200;
const INITIAL: usize = 30;

/// A line we wrote, as `pi-session` printed it.
struct Wrote {
    line: String,
    offset: u64,
}

#[test]
fn cli_writes_interleave_with_a_live_pi_appender() {
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("sessions");
    let folder = root.join("--home-alice-projects-webapp--");
    fs::create_dir_all(&folder).unwrap();
    let file = folder.join("2026-03-02T10-00-00-000Z_019caf2b-a8c0-7719-a0e6-151785f31506.jsonl");

    // header + a linear chain of INITIAL entries
    let mut initial_ids = Vec::new();
    let mut text = json!({"type":"session","version":3,"id":"019caf2b-a8c0-7719-a0e6-151785f31506",
        "timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/alice/projects/webapp"})
    .to_string();
    text.push('\n');
    let mut parent: Option<String> = None;
    for i in 0..INITIAL {
        let id = format!("b00000{i:02x}");
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let line = json!({"type":"message","id":id,"parentId":parent,"timestamp":format!("2026-03-02T10:00:{:02}.000Z", i),
            "message":{"role":role,"content":format!("initial {i}"),"timestamp":1_772_445_600_000u64 + i as u64}});
        text.push_str(&line.to_string());
        text.push('\n');
        parent = Some(id.clone());
        initial_ids.push(id);
    }
    fs::write(&file, &text).unwrap();
    let last_initial = parent.unwrap();

    // The second process: pi's way of appending.
    let appender = repo_root().join("tests/writes/appender.mjs");
    assert!(appender.is_file(), "{} is missing", appender.display());
    let stop = tmp.path().join("stop");
    let seed = seed();
    println!("concurrency: seed {seed}");
    let node = Command::new("node")
        .arg(&appender)
        .arg(&file)
        .arg(APPENDED_AT_LEAST.to_string())
        .arg(&last_initial)
        .arg((seed % 1_000_000_007).to_string())
        .arg(&stop)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node is required for this test (install Node.js 20+)");

    // Our writers: two threads of CLI invocations, until enough writes are made while the
    // appender runs.
    let targets: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(initial_ids.clone()));
    let wrote: Arc<Mutex<Vec<Wrote>>> = Arc::new(Mutex::new(Vec::new()));
    let refusals: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let invocations = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    for w in 0..2u64 {
        let (file, root, targets, wrote, refusals, invocations, done) =
            (file.clone(), root.clone(), targets.clone(), wrote.clone(), refusals.clone(), invocations.clone(), done.clone());
        workers.push(std::thread::spawn(move || {
            let mut rng = Rng(seed.wrapping_mul(w * 2 + 3) | 1);
            while !done.load(Ordering::SeqCst) {
                let n = invocations.fetch_add(1, Ordering::SeqCst);
                if n % 25 == 24 {
                    // Now and then, aim at lines the appender wrote too.
                    let ids = complete_ids(&file);
                    *targets.lock().unwrap() = ids;
                }
                let x = {
                    let t = targets.lock().unwrap();
                    t[rng.below(t.len())].clone()
                };
                let mut cmd = Command::new(BIN);
                match rng.below(20) {
                    0 => cmd.args(["navigate".as_ref(), file.as_os_str(), "--root".as_ref()]),
                    1..=8 => cmd.args(["navigate".as_ref(), file.as_os_str(), x.as_ref()]),
                    9..=15 => cmd.args(["label".as_ref(), file.as_os_str(), x.as_ref(), format!("label {n}").as_ref()]),
                    _ => cmd.args(["label".as_ref(), file.as_os_str(), x.as_ref(), "--clear".as_ref()]),
                };
                cmd.arg("--sessions-dir").arg(&root);
                let out = cmd.output().unwrap();
                if out.status.success() {
                    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {:?}", String::from_utf8_lossy(&out.stdout)));
                    assert_eq!(v["file"].as_str().unwrap(), file.to_str().unwrap());
                    let mut wrote = wrote.lock().unwrap();
                    // A label line that another writer's lines passed (no lease could be had)
                    // is written again after them: the lines it superseded are ours too.
                    for old in v["superseded"].as_array().into_iter().flatten() {
                        wrote.push(Wrote { line: old["line"].as_str().unwrap().to_string(), offset: old["offset"].as_u64().unwrap() });
                    }
                    wrote.push(Wrote { line: v["line"].as_str().unwrap().to_string(), offset: v["offset"].as_u64().unwrap() });
                } else {
                    // The one refusal a live appender can cause: a line it kept writing.
                    let err = String::from_utf8_lossy(&out.stderr).into_owned();
                    assert_eq!(out.status.code(), Some(75), "{err}");
                    assert!(err.contains("try again"), "unexpected refusal: {err}");
                    refusals.lock().unwrap().push(err);
                }
            }
        }));
    }
    let writes_made = || wrote.lock().unwrap().len();
    while writes_made() < OUR_WRITES_AT_LEAST {
        std::thread::sleep(Duration::from_millis(20));
        assert!(started.elapsed() < Duration::from_secs(240), "too slow: {} writes in 240 s", writes_made());
    }
    // Stop the appender first (our writers still running), then our writers.
    fs::write(&stop, b"").unwrap();
    let node_out = node.wait_with_output().unwrap();
    assert!(node_out.status.success(), "appender failed: {}", String::from_utf8_lossy(&node_out.stderr));
    let concurrent_writes = writes_made();
    done.store(true, Ordering::SeqCst);
    for w in workers {
        w.join().unwrap();
    }
    let summary: Value = serde_json::from_slice(&node_out.stdout).expect("appender summary");
    let appended: Vec<String> = summary["ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    assert_eq!(summary["appended"].as_u64().unwrap() as usize, appended.len());
    assert!(appended.len() >= APPENDED_AT_LEAST);
    assert!(concurrent_writes >= OUR_WRITES_AT_LEAST, "{concurrent_writes} writes made while the appender ran");

    // ---- verification
    let wrote = wrote.lock().unwrap();
    let refusals = refusals.lock().unwrap();
    let bytes = fs::read(&file).unwrap();
    assert_eq!(bytes.last(), Some(&b'\n'), "the file ends with a complete line");
    assert!(bytes.starts_with(text.as_bytes()), "the initial bytes are untouched");
    let lines: Vec<&[u8]> = bytes[..bytes.len() - 1].split(|&b| b == b'\n').collect();
    let parsed: Vec<Value> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| serde_json::from_slice::<Value>(l).unwrap_or_else(|e| panic!("line {} is torn or merged ({e}): {}", i + 1, String::from_utf8_lossy(l))))
        .collect();
    assert!(parsed.iter().all(|v| v.is_object() && v["type"].is_string()), "every line is one object");
    assert_eq!(lines.len(), 1 + INITIAL + appended.len() + wrote.len(), "line count = header + initial + appended + ours");

    // Every appended id exactly once, in order, each a child of the one before.
    let mut count: HashMap<&str, usize> = HashMap::new();
    for v in &parsed[1..] {
        *count.entry(v["id"].as_str().unwrap()).or_default() += 1;
    }
    for id in &appended {
        assert_eq!(count.get(id.as_str()), Some(&1), "appended id {id}");
    }
    let theirs: Vec<&Value> = parsed.iter().filter(|v| v["type"] == "message" && v["id"].as_str().is_some_and(|i| i.starts_with('a'))).collect();
    let their_ids: Vec<&str> = theirs.iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(their_ids, appended.iter().map(String::as_str).collect::<Vec<_>>(), "appended lines in the order written");
    let mut prev = last_initial.as_str();
    for v in &theirs {
        assert_eq!(v["parentId"].as_str().unwrap(), prev);
        prev = v["id"].as_str().unwrap();
    }

    // Every line we printed: exactly once, verbatim, whole, at the printed offset.
    let mut line_count: HashMap<&[u8], usize> = HashMap::new();
    for l in &lines {
        *line_count.entry(l).or_default() += 1;
    }
    let mut ours: HashSet<usize> = HashSet::new();
    for w in wrote.iter() {
        assert_eq!(line_count.get(w.line.as_bytes()), Some(&1), "our line appears exactly once: {}", w.line);
        let o = w.offset as usize;
        assert_eq!(&bytes[o..o + w.line.len()], w.line.as_bytes(), "our line is at the offset we printed");
        assert_eq!(bytes[o - 1], b'\n');
        assert_eq!(bytes[o + w.line.len()], b'\n');
        assert!(ours.insert(o));
    }
    // Our lines' links: a leaf line names its target twice; a label line's parent is a line
    // that came before it (the leaf we read).
    let mut seen_ids: HashSet<&str> = HashSet::new();
    let mut starts = Vec::with_capacity(lines.len());
    let mut pos = 0usize;
    for l in &lines {
        starts.push(pos);
        pos += l.len() + 1;
    }
    let (mut leaf_lines, mut label_lines) = (0, 0);
    for (k, v) in parsed.iter().enumerate().skip(1) {
        if ours.contains(&starts[k]) {
            match v["type"].as_str().unwrap() {
                "leaf" => {
                    assert_eq!(v["parentId"], v["targetId"]);
                    leaf_lines += 1;
                }
                "label" => {
                    if let Some(p) = v["parentId"].as_str() {
                        assert!(seen_ids.contains(p), "label parent {p} comes earlier in the file");
                    }
                    label_lines += 1;
                }
                t => panic!("we wrote a {t} line"),
            }
        }
        seen_ids.insert(v["id"].as_str().unwrap());
    }

    // The core reads the result without a single error.
    let s = pi_session::Session::open(&file).unwrap();
    let errors: Vec<_> = s.diagnostics().into_iter().filter(|d| d.severity == pi_session::Severity::Error).collect();
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(s.index.entries.len(), lines.len() - 1);

    println!(
        "concurrency: lines appended by the pi-style appender: {} (in {} ms); writes made by pi-session: {} ({} leaf, {} label; {} while the appender ran); refusals (busy): {}; CLI invocations: {}; lines verified: {}; took {:.1} s",
        appended.len(),
        summary["ms"],
        wrote.len(),
        leaf_lines,
        label_lines,
        concurrent_writes,
        refusals.len(),
        invocations.load(Ordering::SeqCst),
        lines.len(),
        started.elapsed().as_secs_f64()
    );
}

/// Ids of the complete lines of a file (a line still being written is skipped).
fn complete_ids(file: &Path) -> Vec<String> {
    let b = fs::read(file).unwrap();
    let end = b.iter().rposition(|&c| c == b'\n').map(|p| p + 1).unwrap_or(0);
    b[..end]
        .split(|&c| c == b'\n')
        .skip(1)
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(|v| v["type"] == "message")
        .filter_map(|v| v["id"].as_str().map(str::to_string))
        .collect()
}

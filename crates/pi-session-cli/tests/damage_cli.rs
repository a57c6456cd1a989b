//! The real `pi-session` binary on the folder of every kind of damage (docs/damage.md):
//! `check DIR --json` reports each file with exactly its diagnostic kinds and severities,
//! within a time limit and a bounded peak memory (measured with `wait4`, printed);
//! `list --json` shows every good session with its id, leaf and entry count; `check FILE`
//! on each example alone finds its kinds too.

#![cfg(unix)]

#[path = "../../pi-session/tests/damage/fixture.rs"]
mod fixture;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");
const LIMIT: Duration = Duration::from_secs(120);

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
    /// Peak resident set of the child, in bytes.
    peak_rss: u64,
    elapsed: Duration,
}

/// Runs the binary, killing it after `limit`, through a runner: a fresh process of this test
/// binary that starts it, reaps it with `wait4` and writes down its own peak RSS. (A process
/// that `Command` starts begins with its parent's high-water mark of memory, which `wait4`
/// then reports if the process stays below it: this harness, having read a listing with a
/// 31 MB message, is above 150 MB. The runner starts at a few MB.)
fn run(args: &[&OsStr], cache: &Path, limit: Duration) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec");
    let mut lines = vec![cache.to_str().unwrap().to_string(), limit.as_millis().to_string()];
    lines.extend(args.iter().map(|a| a.to_str().unwrap().to_string()));
    std::fs::write(&spec, lines.join("\n")).unwrap();
    let mut runner = Command::new(std::env::current_exe().unwrap())
        .args([RUNNER_TEST, "--exact", "--test-threads=1"])
        .env(RUNNER, &spec)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while runner.try_wait().unwrap().is_none() {
        if t.elapsed() > limit + Duration::from_secs(60) {
            let _ = runner.kill();
            panic!("the runner of pi-session {args:?} did not finish");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap_or_else(|e| panic!("the runner's {name}: {e}"));
    let result = read("result");
    assert!(result != "timeout", "pi-session {args:?} did not finish within {limit:?} (a hang?)");
    let mut r = result.split(' ').map(|n| n.parse::<u64>().unwrap());
    let (code, peak_rss, ms) = (r.next().unwrap() as i32, r.next().unwrap(), r.next().unwrap());
    Run { code, stdout: read("out"), stderr: read("err"), peak_rss, elapsed: Duration::from_millis(ms) }
}

/// Set in a runner (see [`run`]) to the file of what to run: the cache folder, the time limit
/// in ms, then the arguments, one per line.
const RUNNER: &str = "PI_SESSION_DAMAGE_RUNNER";
/// The test whose process a runner is (it does only the runner's work).
const RUNNER_TEST: &str = "check_and_list_on_the_folder_of_all_damage";

/// In a runner: runs what its spec says, writes its stdout, stderr and `result` (exit code,
/// peak RSS in bytes, ms taken; or `timeout`) beside the spec, and ends the process.
#[allow(clippy::zombie_processes)] // reaped by wait4, not by Child::wait
fn runner_if_asked() {
    let Some(spec) = std::env::var_os(RUNNER) else { return };
    let spec = Path::new(&spec);
    let dir = spec.parent().unwrap();
    let text = std::fs::read_to_string(spec).unwrap();
    let mut lines = text.split('\n');
    let cache = lines.next().unwrap();
    let limit = Duration::from_millis(lines.next().unwrap().parse().unwrap());
    let args: Vec<&str> = lines.collect();
    let t = Instant::now();
    let mut child = Command::new(BIN)
        .args(&args)
        .env("PI_SESSION_CACHE_DIR", cache)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove(RUNNER)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(dir.join("out")).unwrap())
        .stderr(std::fs::File::create(dir.join("err")).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let result = loop {
        let mut status = 0;
        // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        assert!(r >= 0, "wait4: {}", std::io::Error::last_os_error());
        if r == pid {
            let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 128 + libc::WTERMSIG(status) };
            // ru_maxrss is in kilobytes on Linux, in bytes on macOS.
            let peak_rss = if cfg!(target_os = "macos") { usage.ru_maxrss as u64 } else { usage.ru_maxrss as u64 * 1024 };
            break format!("{code} {peak_rss} {}", t.elapsed().as_millis());
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break "timeout".to_string();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    std::fs::write(dir.join("result"), result).unwrap();
    std::process::exit(0);
}

fn rel(root: &Path, p: &str) -> String {
    Path::new(p).strip_prefix(root).map(|r| r.to_string_lossy().into_owned()).unwrap_or_else(|_| p.to_string())
}

#[test]
fn check_and_list_on_the_folder_of_all_damage() {
    runner_if_asked();
    let tmp = tempfile::tempdir().unwrap();
    let f = fixture::build(tmp.path(), &fixture::committed_dir(env!("CARGO_MANIFEST_DIR"), true));
    for s in &f.skipped {
        eprintln!("damage: not set up here: {s}");
    }
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();

    // check DIR --json
    let r = run(&[OsStr::new("check"), f.root.as_os_str(), OsStr::new("--json")], &cache, LIMIT);
    assert_eq!(r.code, 1, "check exits 1 when any finding is an error; stderr: {}", r.stderr);
    let report: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout));
    let mut got: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let (mut errors, mut warnings) = (0, 0);
    for file in report["files"].as_array().unwrap() {
        let path = rel(&f.root, file["path"].as_str().unwrap());
        let kinds = got.entry(path.clone()).or_default();
        for d in file["diagnostics"].as_array().unwrap() {
            let kind = d["kind"].as_str().unwrap();
            let sev = d["severity"].as_str().unwrap();
            assert_eq!(sev, fixture::severity_of(kind), "{path}: {d}");
            assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()), "{path}: {d}");
            assert!(d["line"].is_null() || d["line"].as_u64().is_some_and(|l| l >= 1), "{path}: {d}");
            errors += (sev == "error") as u64;
            warnings += (sev == "warning") as u64;
            kinds.insert(kind.to_string());
        }
    }
    assert_eq!(report["errors"].as_u64(), Some(errors));
    assert_eq!(report["warnings"].as_u64(), Some(warnings));
    let wrong = f.mismatches(&got, "reported");
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));

    let bound = 3 * f.largest_file + 64 * 1024 * 1024;
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    eprintln!(
        "damage: pi-session check on {} paths ({} errors, {} warnings): {:.2} s, peak RSS {:.1} MiB (largest file {:.1} MiB, bound {:.1} MiB)",
        f.cases.len(),
        errors,
        warnings,
        r.elapsed.as_secs_f64(),
        mb(r.peak_rss),
        mb(f.largest_file),
        mb(bound)
    );
    assert!(r.peak_rss > 0 && r.peak_rss < bound, "peak RSS {} bytes is over the bound {bound}", r.peak_rss);

    // list --json: every good session with its id, leaf and entry count.
    let l = run(&[OsStr::new("list"), OsStr::new("--sessions-dir"), f.root.as_os_str(), OsStr::new("--json")], &cache, LIMIT);
    assert_eq!(l.code, 0, "{}", l.stderr);
    let listing: Value = serde_json::from_str(&l.stdout).unwrap();
    let sessions = listing["sessions"].as_array().unwrap();
    for g in fixture::GOOD {
        let s = sessions.iter().find(|s| rel(&f.root, s["path"].as_str().unwrap()) == g.rel).unwrap_or_else(|| panic!("{} not listed", g.rel));
        assert_eq!(s["id"].as_str(), Some(g.id), "{}", g.rel);
        assert_eq!(s["leafId"].as_str(), Some(g.leaf), "{}", g.rel);
        assert_eq!(s["entryCount"].as_u64(), Some(g.entries as u64), "{}", g.rel);
    }
    let listed: BTreeSet<String> = sessions
        .iter()
        .chain(listing["other"].as_array().unwrap())
        .map(|s| rel(&f.root, s["path"].as_str().unwrap()))
        .collect();
    for p in fixture::IGNORED {
        assert!(!listed.contains(*p), "{p} must not be listed");
    }
    eprintln!("damage: pi-session list: {} sessions, {} other paths, {:.2} s, peak RSS {:.1} MiB", sessions.len(), listing["other"].as_array().unwrap().len(), l.elapsed.as_secs_f64(), mb(l.peak_rss));
    assert!(l.peak_rss < bound, "list: peak RSS {} bytes is over the bound {bound}", l.peak_rss);

    // check FILE on each regular example alone: its kinds are there (a parentSession cycle
    // needs the folder; a file's own cycle is found alone only when it names itself).
    for (path, expected) in &f.cases {
        let p = f.root.join(path);
        if !std::fs::symlink_metadata(&p).map(|m| m.is_file()).unwrap_or(false) {
            continue;
        }
        let r = run(&[OsStr::new("check"), p.as_os_str(), OsStr::new("--sessions-dir"), f.root.as_os_str(), OsStr::new("--json")], &cache, LIMIT);
        let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{path}: {e}: {} {}", r.stdout, r.stderr));
        let kinds: BTreeSet<&str> = v["files"][0]["diagnostics"].as_array().unwrap().iter().map(|d| d["kind"].as_str().unwrap()).collect();
        for k in expected.iter().filter(|k| **k != "parent-session-cycle") {
            assert!(kinds.contains(k), "check {path}: expected {k}, got {kinds:?}");
        }
        let has_error = v["errors"].as_u64().unwrap() > 0;
        assert_eq!(r.code, has_error as i32, "check {path}: exit status {} with {} errors", r.code, v["errors"]);
    }
}

/// `search` on the folder of all damage: the index is built over every file (the damaged ones
/// too) and answers from the huge line, and a second search answers the same from the index.
/// Peak memory: under 4 × the largest file + 64 MB (145–147 and 141 MB in a debug build against
/// 188 MB; indexing holds the huge line about three times: the file's bytes, the summary's first
/// message, the entry's text). A text's keys were once held at 6 bytes per byte of text: 394 MB
/// for that line alone.
#[test]
fn search_on_the_folder_of_all_damage() {
    let tmp = tempfile::tempdir().unwrap();
    let f = fixture::build(tmp.path(), &fixture::committed_dir(env!("CARGO_MANIFEST_DIR"), true));
    let cache = tmp.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let bound = 4 * f.largest_file + 64 * 1024 * 1024;
    let mb = |b: u64| b as f64 / (1024.0 * 1024.0);
    let search = || run(&[OsStr::new("search"), OsStr::new("xxxxxxxx"), OsStr::new("--sessions-dir"), f.root.as_os_str(), OsStr::new("--json")], &cache, LIMIT);
    let mut answers = Vec::new();
    for what in ["building the index", "from the index"] {
        let r = search();
        assert_eq!(r.code, 0, "{what}: {}", r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout));
        let files: Vec<String> = v["sessions"].as_array().unwrap().iter().map(|s| rel(&f.root, s["path"].as_str().unwrap())).collect();
        assert_eq!(files, ["huge-line.jsonl"], "{what}");
        eprintln!("damage: pi-session search ({what}): {:.2} s, peak RSS {:.1} MiB (largest file {:.1} MiB, bound {:.1} MiB)", r.elapsed.as_secs_f64(), mb(r.peak_rss), mb(f.largest_file), mb(bound));
        assert!(r.peak_rss > 0 && r.peak_rss < bound, "{what}: peak RSS {} bytes is over the bound {bound}", r.peak_rss);
        answers.push(v);
    }
    assert_eq!(answers[0], answers[1]);
}

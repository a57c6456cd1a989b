//! `pi-bench`: one run, one corpus, our CLI and the real pi side by side (Unix: children are
//! measured with `wait4`).
//!
//! ```text
//! pi-bench --profile large --big-file --keep --json
//! pi-bench --corpus /path/to/agent-dir-or-sessions-root
//! ```
//!
//! Times `cat` of every corpus byte (the floor), `pi-session list --json` (twice: the second
//! run finds its persistent cache warm), `pi-session check ROOT --json` (the full index,
//! with peak RSS), `tree`/`context --json` of the biggest file, the in-process
//! `Session::refresh()` after a 1 KB append to a copy of the biggest file, and, with the
//! pinned pi package (bench/pi-side.mjs): `SessionManager.listAll()` and
//! `open + getTree + buildSessionContext` for the biggest file and for every file. Prints a
//! table, the ratios pi/ours, and with `--json` one JSON line.

use crate::corpus::Profile;
use crate::lines;
use crate::rng::Rng;
use clap::Parser;
use pi_session::Session;
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Instant, SystemTime};

#[derive(Parser)]
#[command(name = "pi-bench", about = "Benchmark pi-session against the real pi on one corpus")]
struct Cli {
    /// Corpus to generate: small, medium, large (default small; ignored with an existing --corpus)
    #[arg(long, value_parser = ["small", "medium", "large"])]
    profile: Option<String>,
    /// Add the big file (200,000 entries, ~165 MB) to a generated corpus
    #[arg(long)]
    big_file: bool,
    /// Entries of the big file
    #[arg(long, default_value_t = 200_000)]
    big_entries: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Use this corpus (an agent dir holding sessions/, or a sessions root); generated there when missing or empty
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Keep a corpus this run generated (default: delete it at the end)
    #[arg(long)]
    keep: bool,
    /// Skip the real pi
    #[arg(long)]
    no_pi: bool,
    /// Print a JSON line after the table
    #[arg(long)]
    json: bool,
    /// The pi-session binary (default: beside this one)
    #[arg(long, value_name = "PATH")]
    pi_session: Option<PathBuf>,
    /// bench/pi-side.mjs (default: found from the source tree or the current folder)
    #[arg(long, value_name = "PATH")]
    pi_side: Option<PathBuf>,
    #[arg(long, default_value = "node")]
    node: String,
    /// Node's --max-old-space-size for pi, in MB
    #[arg(long, default_value_t = 16_000)]
    max_old_space: u32,
    /// Also run pi's listAll with Node's default heap (it may run out of memory)
    #[arg(long)]
    pi_default_heap: bool,
    /// Wall-time budget for pi opening every file, in seconds; beyond it the total is extrapolated
    #[arg(long, default_value_t = 300.0)]
    open_budget: f64,
    /// Appends timed for the incremental update
    #[arg(long, default_value_t = 11)]
    appends: usize,
    /// (internal) Time Session::refresh after appends to a copy of FILE, print JSON
    #[arg(long, value_name = "FILE", hide = true)]
    append_bench: Option<PathBuf>,
}

// ---------------------------------------------------------------- child processes

struct Run {
    /// From spawn to the last byte of stdout.
    secs: f64,
    /// exit code, or -signal
    status: i32,
    max_rss_kb: u64,
    stdout: Vec<u8>,
    stdout_len: u64,
    stderr: Vec<u8>,
}

impl Run {
    fn ok(&self) -> bool {
        self.status == 0
    }

    fn describe_failure(&self) -> String {
        let err = String::from_utf8_lossy(&self.stderr);
        // V8's out-of-memory report is followed by a stack dump: show its headline.
        let tail = match err.lines().find(|l| l.contains("FATAL ERROR") || l.contains("out of memory")) {
            Some(l) => l.trim().to_string(),
            None => err.lines().rev().take(4).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | "),
        };
        if self.status < 0 {
            format!("killed by signal {}{}: {tail}", -self.status, if -self.status == 9 || -self.status == 6 { " (out of memory?)" } else { "" })
        } else {
            format!("exit {}: {tail}", self.status)
        }
    }
}

/// Runs `cmd`, reading its stdout to the end (kept when `keep`), and reaps it with `wait4`
/// for its own peak RSS.
fn run(cmd: &mut Command, keep: bool) -> std::io::Result<Run> {
    run_opts(cmd, keep, false)
}

/// `oom_first`: should memory run out, the kernel ends this child before anything else.
fn run_opts(cmd: &mut Command, keep: bool, oom_first: bool) -> std::io::Result<Run> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let t = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    if oom_first {
        let _ = std::fs::write(format!("/proc/{pid}/oom_score_adj"), "1000");
    }
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let errt = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let mut stdout = Vec::new();
    let mut n = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let k = out.read(&mut buf)?;
        if k == 0 {
            break;
        }
        n += k as u64;
        if keep {
            stdout.extend_from_slice(&buf[..k]);
        }
    }
    let secs = t.elapsed().as_secs_f64();
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    std::mem::forget(child); // reaped above
    let status = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        -libc::WTERMSIG(status)
    } else {
        -1
    };
    Ok(Run { secs, status, max_rss_kb: ru.ru_maxrss as u64, stdout, stdout_len: n, stderr: errt.join().unwrap_or_default() })
}

// ---------------------------------------------------------------- the report

#[derive(Default)]
struct Report {
    rows: Vec<(String, String, String)>,
    json: serde_json::Map<String, Value>,
    failures: Vec<String>,
}

impl Report {
    fn section(&mut self, title: &str) {
        self.rows.push((format!("— {title}"), String::new(), String::new()));
        eprintln!("pi-bench: {title}…");
    }

    fn row(&mut self, what: &str, value: String, note: String) {
        eprintln!("pi-bench:   {what}: {value} {note}");
        self.rows.push((what.to_string(), value, note));
    }

    fn set(&mut self, key: &str, v: Value) {
        self.json.insert(key.to_string(), v);
    }

    fn fail(&mut self, what: &str, msg: String) {
        self.row(what, "FAILED".into(), msg.clone());
        self.failures.push(format!("{what}: {msg}"));
    }

    fn print(&self) {
        let w0 = self.rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
        let w1 = self.rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
        for (a, b, c) in &self.rows {
            if b.is_empty() && c.is_empty() {
                println!("{a}");
            } else {
                println!("  {a:<w0$}  {b:>w1$}  {c}", w0 = w0 - 2);
            }
        }
    }
}

fn secs(s: f64) -> String {
    if s < 0.001 {
        format!("{:.3} ms", s * 1e3)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn mb(kb: u64) -> String {
    format!("{:.0} MB", kb as f64 / 1024.0)
}

fn gbps(bytes: u64, s: f64) -> f64 {
    bytes as f64 / 1e9 / s
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

// ---------------------------------------------------------------- the corpus

struct Corpus {
    /// The sessions root (what `pi-session --sessions-dir` takes).
    root: PathBuf,
    /// An agent dir whose `sessions` is the root (what pi's PI_CODING_AGENT_DIR takes).
    agent_dir: PathBuf,
    files: Vec<(PathBuf, u64)>,
    bytes: u64,
    generated: Option<PathBuf>,
    manifest: Option<Value>,
    _link_dir: Option<PathBuf>,
}

fn list_files(root: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(root) else { return out };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(m) = std::fs::metadata(&p) else { continue };
        if m.is_dir() {
            if let Ok(rd2) = std::fs::read_dir(&p) {
                for e2 in rd2.flatten() {
                    let p2 = e2.path();
                    if p2.extension().is_some_and(|x| x == "jsonl") {
                        if let Ok(m2) = std::fs::metadata(&p2) {
                            if m2.is_file() {
                                out.push((p2, m2.len()));
                            }
                        }
                    }
                }
            }
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push((p, m.len()));
        }
    }
    out.sort();
    out
}

fn prepare_corpus(cli: &Cli, rep: &mut Report) -> Result<Corpus, String> {
    let profile = Profile::parse(cli.profile.as_deref().unwrap_or("small")).unwrap();
    let dir = cli.corpus.clone().unwrap_or_else(|| PathBuf::from(format!("corpus/bench-{}-{}", profile.name(), cli.seed)));
    let existing = |d: &Path| -> Option<PathBuf> {
        if !list_files(&d.join("sessions")).is_empty() {
            Some(d.join("sessions"))
        } else if !list_files(d).is_empty() {
            Some(d.to_path_buf())
        } else {
            None
        }
    };
    let mut generated = None;
    let root = match (cli.corpus.is_some(), existing(&dir)) {
        (true, Some(root)) => {
            eprintln!("pi-bench: using the corpus at {}", root.display());
            root
        }
        _ => {
            rep.section("generating the corpus");
            if dir.join("sessions").exists() {
                std::fs::remove_dir_all(dir.join("sessions")).map_err(|e| e.to_string())?;
            }
            // In a child process: this process stays small, so that the peak RSS of the
            // children it measures is theirs alone (a child inherits its parent's RSS at spawn).
            let mut cmd = Command::new(sibling("pi-corpus"));
            cmd.arg(&dir).args(["--profile", profile.name(), "--seed", &cli.seed.to_string(), "--force", "--json"]);
            if cli.big_file {
                cmd.args(["--big-file", "--big-entries", &cli.big_entries.to_string()]);
            }
            let r = run(&mut cmd, true).map_err(|e| format!("pi-corpus: {e}"))?;
            if !r.ok() {
                return Err(format!("pi-corpus: {}", r.describe_failure()));
            }
            let j: Value = serde_json::from_slice(&r.stdout).map_err(|e| format!("pi-corpus output: {e}"))?;
            let bytes = j["bytes"].as_u64().unwrap_or(0);
            rep.row(
                "pi-corpus",
                secs(r.secs),
                format!("{} files, {:.2} GB, {} entries ({:.2} GB/s)", j["files"], bytes as f64 / 1e9, j["entries"], gbps(bytes, r.secs)),
            );
            generated = Some(dir.clone());
            dir.join("sessions")
        }
    };
    let root = std::fs::canonicalize(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    let manifest = root.parent().and_then(|p| std::fs::read(p.join("corpus.json")).ok()).and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let (agent_dir, link_dir) = if root.file_name().is_some_and(|n| n == "sessions") {
        (root.parent().unwrap().to_path_buf(), None)
    } else {
        // pi reads <agentDir>/sessions: give it a folder with a link to the root.
        let d = std::env::temp_dir().join(format!("pi-bench-agent-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).map_err(|e| e.to_string())?;
        std::os::unix::fs::symlink(&root, d.join("sessions")).map_err(|e| e.to_string())?;
        (d.clone(), Some(d))
    };
    let files = list_files(&root);
    let bytes = files.iter().map(|f| f.1).sum();
    Ok(Corpus { root, agent_dir, files, bytes, generated, manifest, _link_dir: link_dir })
}

// ---------------------------------------------------------------- steps

fn cat_all(c: &Corpus, list0: &Path) -> std::io::Result<Run> {
    let mut cmd = Command::new("xargs");
    cmd.args(["-0", "cat"]);
    // stdout to /dev/null: cat still reads every byte.
    let devnull = std::fs::File::create("/dev/null")?;
    let list = std::fs::File::open(list0)?;
    let t = Instant::now();
    let status = cmd.stdin(list).stdout(devnull).stderr(Stdio::inherit()).status()?;
    let _ = c;
    Ok(Run { secs: t.elapsed().as_secs_f64(), status: status.code().unwrap_or(-1), max_rss_kb: 0, stdout: Vec::new(), stdout_len: 0, stderr: Vec::new() })
}

fn stamp_all(c: &Corpus) -> Vec<(u64, Option<SystemTime>)> {
    c.files.iter().map(|(p, _)| std::fs::metadata(p).map(|m| (m.len(), m.modified().ok())).unwrap_or((u64::MAX, None))).collect()
}

/// A pi-shaped assistant message line of about `size` bytes whose parent is `parent`.
fn append_line(rng: &mut Rng, id: u32, parent: &str, ts: i64, size: usize) -> Vec<u8> {
    let mut text = Vec::new();
    let mut idv = Vec::new();
    lines::push_id(&mut idv, id);
    let mut out = Vec::new();
    lines::entry_start_str(&mut out, "message", std::str::from_utf8(&idv).unwrap(), Some(parent).filter(|p| !p.is_empty()), ts);
    out.extend(b",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"");
    let tail = format!(
        "\"}}],\"api\":\"anthropic-messages\",\"provider\":\"anthropic\",\"model\":\"claude-sonnet-4-5\",\"usage\":{{\"input\":3,\"output\":180,\"cacheRead\":41234,\"cacheWrite\":512,\"totalTokens\":41929,\"cost\":{{\"input\":0.000009,\"output\":0.0027,\"cacheRead\":0.01237,\"cacheWrite\":0.00192,\"total\":0.016999}}}},\"stopReason\":\"stop\",\"timestamp\":{ts}}}}}\n"
    );
    while out.len() + text.len() + tail.len() < size {
        text.extend(["done ", "the ", "tests ", "pass ", "now ", "and ", "I ", "updated ", "docs "][rng.index(9)].bytes());
    }
    out.extend(text);
    out.extend(tail.bytes());
    out
}

/// `--append-bench FILE`: opens a copy of FILE, appends 1 KB pi-shaped lines one at a time
/// and times `Session::refresh()` after each. Prints one JSON line.
fn incremental(file: &Path, appends: usize) -> Result<Value, String> {
    let tmp = std::env::temp_dir().join(format!("pi-bench-append-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    let copy = tmp.join(file.file_name().unwrap_or(OsStr::new("session.jsonl")));
    let res = (|| -> Result<Value, String> {
        std::fs::copy(file, &copy).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let mut s = Session::open(&copy).map_err(|e| e.to_string())?;
        let open_s = t.elapsed().as_secs_f64();
        let entries = s.index.entries.len();
        let mut rng = Rng::new(99);
        let mut times = Vec::new();
        let mut f = std::fs::OpenOptions::new().append(true).open(&copy).map_err(|e| e.to_string())?;
        let mut line_len = 0;
        for k in 0..appends {
            let parent = s.leaf_id().unwrap_or("").to_string();
            let (id, id_str) = loop {
                let id = rng.next_u32();
                let mut v = Vec::new();
                lines::push_id(&mut v, id);
                let v = String::from_utf8(v).unwrap();
                if s.index.index_of(&v).is_none() {
                    break (id, v);
                }
            };
            let line = append_line(&mut rng, id, &parent, 1_800_000_000_000 + k as i64 * 1000, 1024);
            line_len = line.len();
            f.write_all(&line).map_err(|e| e.to_string())?;
            let t = Instant::now();
            let r = s.refresh().map_err(|e| e.to_string())?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
            if s.leaf_id() != Some(id_str.as_str()) {
                return Err(format!("after append {k}: the leaf is {:?}, not the appended line ({r:?})", s.leaf_id()));
            }
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        Ok(json!({
            "openS": open_s, "entries": entries, "appends": times.len(), "lineBytes": line_len,
            "refreshMedianMs": times[times.len() / 2], "refreshMinMs": times[0], "refreshMaxMs": times[times.len() - 1],
        }))
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    res
}

/// A binary beside this one (same target folder), else from PATH.
fn sibling(name: &str) -> PathBuf {
    std::env::current_exe().ok().and_then(|p| p.parent().map(|d| d.join(name))).filter(|p| p.exists()).unwrap_or_else(|| PathBuf::from(name))
}

fn pi_side_path(cli: &Cli) -> PathBuf {
    if let Some(p) = &cli.pi_side {
        return p.clone();
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/pi-side.mjs");
    if src.exists() {
        return src;
    }
    PathBuf::from("bench/pi-side.mjs")
}

fn run_pi(cli: &Cli, heap: Option<u32>, args: &[&OsStr]) -> std::io::Result<(Run, Option<Value>)> {
    let mut cmd = Command::new(&cli.node);
    if let Some(h) = heap {
        cmd.arg(format!("--max-old-space-size={h}"));
    }
    cmd.arg(pi_side_path(cli)).args(args);
    let r = run_opts(&mut cmd, true, true)?;
    let j = std::str::from_utf8(&r.stdout).ok().and_then(|s| s.lines().rev().find(|l| l.starts_with('{')).and_then(|l| serde_json::from_str(l).ok()));
    Ok((r, j))
}

/// The `pi-bench` command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(f) = &cli.append_bench {
        return match incremental(f, cli.appends.max(1)) {
            Ok(j) => {
                println!("{j}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("pi-bench: {e}");
                ExitCode::from(1)
            }
        };
    }
    let mut rep = Report::default();
    let c = match prepare_corpus(&cli, &mut rep) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("pi-bench: {e}");
            return ExitCode::from(1);
        }
    };
    let code = bench(&cli, &c, &mut rep);
    if let Some(d) = &c.generated {
        if !cli.keep && cli.corpus.is_none() {
            let _ = std::fs::remove_dir_all(d);
            if let Some(p) = d.parent() {
                let _ = std::fs::remove_dir(p); // only when empty
            }
        } else {
            eprintln!("pi-bench: corpus kept at {}", d.display());
        }
    }
    if let Some(d) = &c._link_dir {
        let _ = std::fs::remove_dir_all(d);
    }
    code
}

fn bench(cli: &Cli, c: &Corpus, rep: &mut Report) -> ExitCode {
    let Some((biggest, biggest_len)) = c.files.iter().max_by_key(|f| (f.1, std::cmp::Reverse(f.0.clone()))).cloned() else {
        eprintln!("pi-bench: no session files under {}", c.root.display());
        return ExitCode::from(1);
    };
    let pi_session = cli.pi_session.clone().unwrap_or_else(|| sibling("pi-session"));
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);

    // Lists for cat and for pi.
    let work = std::env::temp_dir().join(format!("pi-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&work);
    let list0 = work.join("files0");
    let mut l0 = Vec::new();
    for (p, _) in &c.files {
        l0.extend(p.as_os_str().as_encoded_bytes());
        l0.push(0);
    }
    let _ = std::fs::write(&list0, &l0);

    rep.section("corpus");
    let entries = c.manifest.as_ref().and_then(|m| m["entries"].as_u64());
    rep.row(
        "corpus",
        format!("{:.2} GB", c.bytes as f64 / 1e9),
        format!("{} files{} under {}", c.files.len(), entries.map(|e| format!(", {e} entries")).unwrap_or_default(), c.root.display()),
    );
    rep.row("biggest file", format!("{:.1} MB", biggest_len as f64 / 1e6), biggest.display().to_string());
    rep.row("machine", format!("{cpus} CPUs"), format!("load average {}", load.split_whitespace().take(3).collect::<Vec<_>>().join(" ")));
    rep.set("corpus", json!({"root": c.root, "files": c.files.len(), "bytes": c.bytes, "entries": entries, "biggest": {"path": biggest, "bytes": biggest_len}, "manifest": c.manifest}));
    // Each child starts with this process's RSS at spawn (fork + exec keep the high-water
    // mark), so it must stay small for the children's peaks to be theirs.
    let own_kb = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()));
    if let Some(k) = own_kb {
        rep.row("pi-bench's own RSS", mb(k), "(a floor under every child's peak RSS below)".into());
    }
    rep.set("machine", json!({"cpus": cpus, "loadavgBefore": load.trim(), "benchRssMB": own_kb.map(|k| k as f64 / 1024.0)}));

    // ---- the floor
    rep.section("floor: cat of every corpus byte to /dev/null");
    let mut cat_s = None;
    for (k, label) in ["cat (first run)", "cat (warm)"].iter().enumerate() {
        match cat_all(c, &list0) {
            Ok(r) if r.ok() => {
                rep.row(label, secs(r.secs), format!("{:.2} GB/s", gbps(c.bytes, r.secs)));
                rep.set(if k == 0 { "catFirstS" } else { "catS" }, r.secs.into());
                cat_s = Some(r.secs);
            }
            Ok(r) => rep.fail(label, r.describe_failure()),
            Err(e) => rep.fail(label, e.to_string()),
        }
    }
    if let Some(s) = cat_s {
        rep.set("catGBps", gbps(c.bytes, s).into());
    }

    // ---- ours
    rep.section(&format!("ours: {}", pi_session.display()));
    let mut list_s = [None, None];
    let mut list_rss = None;
    // A fresh persistent cache: the first run builds it, the second finds it warm.
    let cache_dir = work.join("list-cache");
    let _ = std::fs::create_dir_all(&cache_dir);
    for (k, label) in ["list --json (first run, no cache)", "list --json (second run, cache warm)"].iter().enumerate() {
        let r = run(Command::new(&pi_session).env("PI_SESSION_CACHE_DIR", &cache_dir).arg("list").arg("--sessions-dir").arg(&c.root).arg("--json"), true);
        match r {
            Ok(r) if r.ok() => {
                let n = serde_json::from_slice::<Value>(&r.stdout).ok().and_then(|v| v["sessions"].as_array().map(|a| a.len()));
                rep.row(
                    label,
                    secs(r.secs),
                    format!("{} sessions, {:.1} MB of JSON, peak RSS {}", n.map_or("?".into(), |n| n.to_string()), r.stdout_len as f64 / 1e6, mb(r.max_rss_kb)),
                );
                rep.set(if k == 0 { "oursListFirstS" } else { "oursListSecondS" }, r.secs.into());
                rep.set(if k == 0 { "oursListFirstRssMB" } else { "oursListSecondRssMB" }, (r.max_rss_kb as f64 / 1024.0).into());
                if n != Some(c.files.len()) {
                    rep.row("", "".into(), format!("note: {} files in the corpus", c.files.len()));
                }
                list_s[k] = Some(r.secs);
                if k == 0 {
                    list_rss = Some(r.max_rss_kb);
                }
            }
            Ok(r) => rep.fail(label, r.describe_failure()),
            Err(e) => rep.fail(label, e.to_string()),
        }
    }
    let mut check_s = None;
    let mut check_rss = None;
    let check_cache = work.join("check-cache");
    let _ = std::fs::create_dir_all(&check_cache);
    match run(Command::new(&pi_session).env("PI_SESSION_CACHE_DIR", &check_cache).arg("check").arg(&c.root).arg("--json"), true) {
        Ok(r) if r.status == 0 || r.status == 1 => {
            let v = serde_json::from_slice::<Value>(&r.stdout).ok();
            let (files, errors, warnings) = v
                .as_ref()
                .map_or((0, 0, 0), |v| (v["files"].as_array().map_or(0, |a| a.len()), v["errors"].as_u64().unwrap_or(0), v["warnings"].as_u64().unwrap_or(0)));
            rep.row(
                "check ROOT --json (full index)",
                secs(r.secs),
                format!("{:.2} GB/s, peak RSS {}, {files} files, {errors} errors, {warnings} warnings", gbps(c.bytes, r.secs), mb(r.max_rss_kb)),
            );
            rep.set("oursCheckS", r.secs.into());
            rep.set("oursCheckGBps", gbps(c.bytes, r.secs).into());
            rep.set("oursCheckRssMB", (r.max_rss_kb as f64 / 1024.0).into());
            rep.set("oursCheckFindings", json!({"errors": errors, "warnings": warnings}));
            if errors > 0 {
                rep.failures.push(format!("check found {errors} errors in a generated (valid) corpus"));
            }
            check_s = Some(r.secs);
            check_rss = Some(r.max_rss_kb);
        }
        Ok(r) => rep.fail("check ROOT --json", r.describe_failure()),
        Err(e) => rep.fail("check ROOT --json", e.to_string()),
    }
    let mut tree_s = None;
    let mut ctx_s = None;
    let mut tree_rss = None;
    for (cmd, label, key) in [("tree", "tree BIGGEST --json", "oursTree"), ("context", "context BIGGEST --json", "oursContext")] {
        match run(Command::new(&pi_session).env("PI_SESSION_CACHE_DIR", &check_cache).arg(cmd).arg(&biggest).arg("--json"), false) {
            Ok(r) if r.ok() => {
                rep.row(label, secs(r.secs), format!("{:.1} MB of JSON, peak RSS {}", r.stdout_len as f64 / 1e6, mb(r.max_rss_kb)));
                rep.set(&format!("{key}S"), r.secs.into());
                rep.set(&format!("{key}RssMB"), (r.max_rss_kb as f64 / 1024.0).into());
                if cmd == "tree" {
                    tree_s = Some(r.secs);
                    tree_rss = Some(r.max_rss_kb);
                } else {
                    ctx_s = Some(r.secs);
                }
            }
            Ok(r) => rep.fail(label, r.describe_failure()),
            Err(e) => rep.fail(label, e.to_string()),
        }
    }
    let mut cmd = Command::new(std::env::current_exe().unwrap_or_else(|_| sibling("pi-bench")));
    cmd.arg("--append-bench").arg(&biggest).arg("--appends").arg(cli.appends.max(1).to_string());
    match run(&mut cmd, true) {
        Ok(r) if r.ok() => match serde_json::from_slice::<Value>(&r.stdout) {
            Ok(j) => {
                let f = |k: &str| j[k].as_f64().unwrap_or(f64::NAN);
                rep.row("Session::open (in-process, big file)", secs(f("openS")), format!("{} entries, peak RSS {}", j["entries"], mb(r.max_rss_kb)));
                rep.row(
                    "Session::refresh after a 1 KB append (median)",
                    secs(f("refreshMedianMs") / 1e3),
                    format!("{} appends of {} B, min {}, max {}", j["appends"], j["lineBytes"], secs(f("refreshMinMs") / 1e3), secs(f("refreshMaxMs") / 1e3)),
                );
                rep.set("oursOpenInProcessS", f("openS").into());
                rep.set("oursRefreshMedianMs", f("refreshMedianMs").into());
                rep.set("oursRefreshMinMs", f("refreshMinMs").into());
                rep.set("oursRefreshMaxMs", f("refreshMaxMs").into());
            }
            Err(e) => rep.fail("incremental update", e.to_string()),
        },
        Ok(r) => rep.fail("incremental update", r.describe_failure()),
        Err(e) => rep.fail("incremental update", e.to_string()),
    }

    // ---- pi
    let mut pi_list_s = None;
    let mut pi_list_rss = None;
    let mut pi_big_s = None;
    let mut pi_big_rss = None;
    let mut pi_all_s = None;
    if !cli.no_pi {
        rep.section("pi (the pinned package, bench/pi-side.mjs)");
        let before = stamp_all(c);
        let _ = cat_all(c, &list0); // warm again: the steps above may have evicted pages
        let agent = c.agent_dir.clone().into_os_string();
        match run_pi(cli, Some(cli.max_old_space), &[OsStr::new("listall"), agent.as_os_str()]) {
            Ok((r, Some(j))) if r.ok() => {
                let ms = j["ms"].as_f64().unwrap_or(0.0);
                rep.row(
                    "SessionManager.listAll()",
                    secs(ms / 1e3),
                    format!(
                        "{} sessions, peak RSS {} (Node after import: {}), --max-old-space-size={}, pi {}",
                        j["sessions"],
                        mb(r.max_rss_kb),
                        mb(j["baseRssKB"].as_u64().unwrap_or(0)),
                        cli.max_old_space,
                        j["piVersion"].as_str().unwrap_or("?")
                    ),
                );
                if j["sessions"].as_u64() != Some(c.files.len() as u64) {
                    rep.row("", "".into(), format!("note: pi listed {} of {} files", j["sessions"], c.files.len()));
                }
                rep.set("piVersion", j["piVersion"].clone());
                rep.set("node", j["node"].clone());
                rep.set("piListAllS", (ms / 1e3).into());
                rep.set("piListAllRssMB", (r.max_rss_kb as f64 / 1024.0).into());
                pi_list_s = Some(ms / 1e3);
                pi_list_rss = Some(r.max_rss_kb);
            }
            Ok((r, _)) => {
                rep.fail("SessionManager.listAll()", r.describe_failure());
                rep.set("piListAllFailure", r.describe_failure().into());
            }
            Err(e) => rep.fail("SessionManager.listAll()", e.to_string()),
        }
        if cli.pi_default_heap {
            match run_pi(cli, None, &[OsStr::new("listall"), agent.as_os_str()]) {
                Ok((r, Some(j))) if r.ok() => {
                    let ms = j["ms"].as_f64().unwrap_or(0.0);
                    rep.row("SessionManager.listAll(), Node's default heap", secs(ms / 1e3), format!("peak RSS {}", mb(r.max_rss_kb)));
                    rep.set("piListAllDefaultHeapS", (ms / 1e3).into());
                }
                Ok((r, _)) => {
                    // Expected on big corpora: not a failure of the benchmark.
                    rep.row("SessionManager.listAll(), Node's default heap", "died".into(), format!("{} after {}", r.describe_failure(), secs(r.secs)));
                    rep.set("piListAllDefaultHeap", format!("died after {:.1} s: {}", r.secs, r.describe_failure()).into());
                }
                Err(e) => rep.fail("listAll (default heap)", e.to_string()),
            }
        }
        let big_list = work.join("biggest.txt");
        let _ = std::fs::write(&big_list, format!("{}\n", biggest.display()));
        let tmp = work.clone().into_os_string();
        let bl = big_list.clone().into_os_string();
        match run_pi(cli, Some(cli.max_old_space), &[OsStr::new("open"), bl.as_os_str(), OsStr::new("--tmp"), tmp.as_os_str()]) {
            Ok((r, Some(j))) if r.ok() => {
                let s = j["ms"].as_f64().unwrap_or(0.0) / 1e3;
                rep.row(
                    "open + getTree + buildSessionContext (biggest)",
                    secs(s),
                    format!(
                        "open {}, getTree {}, buildSessionContext {}; peak RSS {}",
                        secs(j["openMs"].as_f64().unwrap_or(0.0) / 1e3),
                        secs(j["treeMs"].as_f64().unwrap_or(0.0) / 1e3),
                        secs(j["ctxMs"].as_f64().unwrap_or(0.0) / 1e3),
                        mb(r.max_rss_kb)
                    ),
                );
                rep.set("piOpenBiggestS", s.into());
                rep.set("piOpenBiggestParts", json!({"openS": j["openMs"].as_f64().unwrap_or(0.0) / 1e3, "getTreeS": j["treeMs"].as_f64().unwrap_or(0.0) / 1e3, "buildSessionContextS": j["ctxMs"].as_f64().unwrap_or(0.0) / 1e3}));
                rep.set("piOpenBiggestRssMB", (r.max_rss_kb as f64 / 1024.0).into());
                pi_big_s = Some(s);
                pi_big_rss = Some(r.max_rss_kb);
                if j["rewrote"].as_u64().unwrap_or(0) > 0 {
                    rep.row("", "".into(), "note: pi rewrote the (copied) file on open".into());
                }
            }
            Ok((r, _)) => rep.fail("pi open biggest", r.describe_failure()),
            Err(e) => rep.fail("pi open biggest", e.to_string()),
        }
        // Every file, in a seeded random order, within the budget.
        let mut order: Vec<&(PathBuf, u64)> = c.files.iter().collect();
        let mut rng = Rng::new(cli.seed ^ 0xa11);
        for i in (1..order.len()).rev() {
            order.swap(i, rng.index(i + 1));
        }
        let all_list = work.join("all.txt");
        let _ = std::fs::write(&all_list, order.iter().map(|f| format!("{}\n", f.0.display())).collect::<String>());
        let _ = cat_all(c, &list0);
        let al = all_list.into_os_string();
        let budget = format!("{}", (cli.open_budget * 1e3) as u64);
        match run_pi(
            cli,
            Some(cli.max_old_space),
            &[OsStr::new("open"), al.as_os_str(), OsStr::new("--budget-ms"), OsStr::new(&budget), OsStr::new("--tmp"), tmp.as_os_str()],
        ) {
            Ok((r, Some(j))) if r.ok() => {
                let s = j["ms"].as_f64().unwrap_or(0.0) / 1e3;
                let done = j["done"].as_u64().unwrap_or(0);
                let bytes = j["bytes"].as_u64().unwrap_or(0);
                let complete = j["complete"].as_bool().unwrap_or(false);
                let total = if complete || bytes == 0 { s } else { s * c.bytes as f64 / bytes as f64 };
                let label = if complete {
                    "open + getTree + buildSessionContext, every file"
                } else {
                    "open + getTree + buildSessionContext, every file (EXTRAPOLATED)"
                };
                let note = if complete {
                    format!(
                        "{done} files, {:.2} GB/s, slowest file {}, peak RSS {}",
                        gbps(bytes, s),
                        secs(j["maxFileMs"].as_f64().unwrap_or(0.0) / 1e3),
                        mb(r.max_rss_kb)
                    )
                } else {
                    format!(
                        "measured {done} of {} files ({:.2} of {:.2} GB) in {} within the {:.0} s budget, scaled by bytes; peak RSS {}",
                        c.files.len(),
                        bytes as f64 / 1e9,
                        c.bytes as f64 / 1e9,
                        secs(s),
                        cli.open_budget,
                        mb(r.max_rss_kb)
                    )
                };
                rep.row(label, secs(total), note);
                rep.set("piOpenAllS", total.into());
                rep.set("piOpenAllExtrapolated", (!complete).into());
                rep.set("piOpenAllMeasured", json!({"files": done, "bytes": bytes, "s": s}));
                rep.set("piOpenAllRssMB", (r.max_rss_kb as f64 / 1024.0).into());
                if j["rewrote"].as_u64().unwrap_or(0) > 0 {
                    rep.row("", "".into(), format!("note: pi rewrote {} (copied) files on open", j["rewrote"]));
                }
                pi_all_s = Some(total);
            }
            Ok((r, _)) => rep.fail("pi open every file", r.describe_failure()),
            Err(e) => rep.fail("pi open every file", e.to_string()),
        }
        let after = stamp_all(c);
        let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
        if changed > 0 {
            rep.fail("corpus unchanged after pi", format!("{changed} files changed"));
        } else {
            rep.row("corpus unchanged after pi", "yes".into(), "(size and mtime of every file)".into());
        }
    }

    // ---- ratios
    rep.section("ratios (pi / ours; higher = we are faster or smaller)");
    let ours_big = match (tree_s, ctx_s) {
        (Some(a), Some(b)) => Some(a + b),
        _ => None,
    };
    let kb = |x: Option<u64>| x.map(|k| k as f64);
    let ratios = [
        ("listing: listAll / list (first run)", ratio(pi_list_s, list_s[0]), "oursListFirst"),
        ("listing: listAll / list (second run)", ratio(pi_list_s, list_s[1]), "oursListSecond"),
        ("listing peak RSS: listAll / list (first run)", ratio(kb(pi_list_rss), kb(list_rss)), "listRss"),
        ("full index: open+getTree+context of every file / check", ratio(pi_all_s, check_s), "fullIndex"),
        ("full index: listAll / check", ratio(pi_list_s, check_s), "listAllVsCheck"),
        ("full index peak RSS: listAll / check", ratio(kb(pi_list_rss), kb(check_rss)), "checkRss"),
        ("biggest file: open+getTree+context / (tree + context)", ratio(pi_big_s, ours_big), "biggestTreeAndContext"),
        ("biggest file: open+getTree+context / tree", ratio(pi_big_s, tree_s), "biggestTree"),
        ("biggest file peak RSS: pi / tree", ratio(kb(pi_big_rss), kb(tree_rss)), "biggestRss"),
        ("ours check / cat (1.0 = disk-speed floor)", ratio(check_s, cat_s), "checkOverCat"),
    ];
    let mut rj = serde_json::Map::new();
    for (label, r, key) in ratios {
        if let Some(r) = r {
            rep.row(label, format!("{r:.1}×"), String::new());
            rj.insert(key.to_string(), ((r * 100.0).round() / 100.0).into());
        }
    }
    rep.set("ratios", Value::Object(rj));
    let profile = c.manifest.as_ref().and_then(|m| m["profile"].as_str().map(str::to_string)).or_else(|| cli.profile.clone());
    rep.set("profile", profile.into());
    rep.set("failures", rep.failures.clone().into());
    let _ = std::fs::remove_dir_all(&work);

    println!();
    rep.print();
    if !rep.failures.is_empty() {
        println!("FAILED: {}", rep.failures.join("; "));
    }
    if cli.json {
        println!("{}", Value::Object(rep.json.clone()));
    }
    if rep.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

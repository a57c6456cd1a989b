//! `pi-bench`: one run, one or more corpora, our CLI and the real pi (0.73.1 and 1.6.0) side
//! by side (Unix: children are measured with `wait4`).
//!
//! ```text
//! pi-bench --profile large --big-file --keep --json
//! pi-bench --corpus corpus/large --corpus corpus/short
//! ```
//!
//! Per corpus: `cat` of every corpus byte (the floor), `pi-session list --json` (twice: the
//! second run finds its persistent cache warm), `pi-session check ROOT --json` (the full
//! index, with peak RSS), `tree`/`context --json` of the biggest file, the in-process
//! `Session::refresh()` after a 1 KB append to a copy of the biggest file, the same file opened
//! through its skeleton snapshot (in process, and as the two CLI commands), each warm and cold
//! (the corpus's pages dropped with `posix_fadvise(POSIX_FADV_DONTNEED)` first); and, with the
//! pinned pi packages (bench/pi-side.mjs): `SessionManager.listAll()` and
//! `open + getTree + buildSessionContext` for the biggest file (pi 0.73.1 and pi 1.6.0) and for
//! every file (pi 0.73.1). The floor's rows (the first listing, the big session's first open
//! and its reopen from the snapshot, the cached listing) are timed both as whole processes and
//! in process, warm and cold, for both pis (`bench/versus.rs`). Prints the ratios first, then a
//! table per corpus, and with `--json` one JSON line.

use crate::corpus::Profile;
use crate::lines;
use crate::rng::Rng;
use clap::Parser;
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Instant, SystemTime};

pub mod child;
mod floor;
mod in_process;
mod pi_steps;
mod report;
mod runs;
mod versus;

use child::{children_cpu_secs, run, run_limited, Run};
use in_process::{cached_open, incremental, list_in_process, open_in_process};
use report::{gbps, mb, ratio, secs, Ratio, Report};
use runs::{median_run, ours, run_label, Timed};

#[derive(Parser)]
#[command(name = "pi-bench", about = "Benchmark pi-session against the real pi on one corpus")]
struct Cli {
    /// Corpus to generate: small, medium, large, short (default small; ignored with an existing --corpus)
    #[arg(long, value_parser = ["small", "medium", "large", "short"])]
    profile: Option<String>,
    /// Add the big file (200,000 entries, ~165 MB) to a generated corpus
    #[arg(long)]
    big_file: bool,
    /// Entries of the big file
    #[arg(long, default_value_t = 200_000)]
    big_entries: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Use this corpus (an agent dir holding sessions/, or a sessions root); generated there when
    /// missing or empty. Give it more than once to measure several corpora in one run.
    #[arg(long, value_name = "DIR")]
    corpus: Vec<PathBuf>,
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
    /// Node ≥ 22 for pi 1.6.0 (default: $NODE24, else .tools/bin/node24 of the source tree)
    #[arg(long, value_name = "PATH")]
    node24: Option<PathBuf>,
    /// The folder pi 1.6.0 is installed in (default: $PI16_DIR, else tests/pi-oracle/pi16)
    #[arg(long, value_name = "DIR")]
    pi16_dir: Option<PathBuf>,
    /// Skip the cold-cache runs
    #[arg(long)]
    no_cold: bool,
    /// Interleaved pairs of `cat` and the full index, warm and cold (the median ratio is reported)
    #[arg(long, default_value_t = 3)]
    pairs: usize,
    /// Runs of each warm step of the floor's rows, pi's and ours (the first listing, the big
    /// session's first open); the median is the figure (one run moved pi 0.73.1's listAll by 2×)
    #[arg(long, default_value_t = 3)]
    floor_runs: usize,
    /// Node's --max-old-space-size for pi, in MB
    #[arg(long, default_value_t = 16_000)]
    max_old_space: u32,
    /// Also run pi's listAll with Node's default heap (it may run out of memory)
    #[arg(long)]
    pi_default_heap: bool,
    /// Wall-time budget for pi opening every file, in seconds; beyond it the total is extrapolated
    #[arg(long, default_value_t = 300.0)]
    open_budget: f64,
    /// Seconds one step of pi may run before it is killed and reported as failed (a pi that
    /// loops on a parent cycle never ends)
    #[arg(long, default_value_t = 1800.0)]
    pi_step_limit: f64,
    /// Appends timed for the incremental update
    #[arg(long, default_value_t = 11)]
    appends: usize,
    /// (internal) Time Session::refresh after appends to a copy of FILE, print JSON
    #[arg(long, value_name = "FILE", hide = true)]
    append_bench: Option<PathBuf>,
    /// (internal) Open FILE through the skeleton cache in DIR (a fresh process), time it with
    /// the context at the leaf, print JSON
    #[arg(long, value_names = ["FILE", "DIR"], num_args = 2, hide = true)]
    cached_open: Option<Vec<PathBuf>>,
    /// (internal) List ROOT as `pi-session list` does (cache in $PI_SESSION_CACHE_DIR), timed in
    /// process, print JSON
    #[arg(long, value_name = "ROOT", hide = true)]
    list_in_process: Option<PathBuf>,
    /// (internal) Open FILE without a snapshot and build the context at its leaf, timed in
    /// process, print JSON
    #[arg(long, value_name = "FILE", hide = true)]
    open_in_process: Option<PathBuf>,
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

fn prepare_corpus(cli: &Cli, given: Option<&Path>, rep: &mut Report) -> Result<Corpus, String> {
    let profile = Profile::parse(cli.profile.as_deref().unwrap_or("small")).unwrap();
    let dir = given.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from(format!("corpus/bench-{}-{}", profile.name(), cli.seed)));
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
    let root = match (given.is_some(), existing(&dir)) {
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
    let cpu_before = children_cpu_secs();
    let t = Instant::now();
    let status = cmd.stdin(list).stdout(devnull).stderr(Stdio::inherit()).status()?;
    let secs = t.elapsed().as_secs_f64();
    let _ = c;
    // xargs waits for its cats, so their CPU time is in its own when it is reaped.
    let cpu_secs = children_cpu_secs() - cpu_before;
    Ok(Run { secs, status: status.code().unwrap_or(-1), max_rss_kb: 0, cpu_secs, stdout: Vec::new(), stdout_len: 0, stderr: Vec::new(), timed_out: false })
}

/// Drops the page cache of every corpus file (`posix_fadvise(POSIX_FADV_DONTNEED)`, which any
/// user may do for files it can open, and which leaves the rest of the machine's cache alone).
/// Returns how many files it was applied to.
fn drop_pages(c: &Corpus) -> usize {
    c.files.iter().filter(|(p, _)| std::fs::File::open(p).is_ok_and(|f| drop_file_pages(&f))).count()
}

/// Drops the page cache of one open file (its dirty pages stay: write them out first).
fn drop_file_pages(f: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: a valid open descriptor; advice only.
    unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) == 0 }
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

/// One pi to measure: its Node and its package folder.
struct Pi {
    /// "pi 0.73.1", "pi 1.6.0" (the key prefix in the JSON: "pi", "pi16").
    label: &'static str,
    key: &'static str,
    node: PathBuf,
    /// The package folder (`PI_PACKAGE` for pi-side.mjs); `None`: pi-side's default (0.73.1).
    package: Option<PathBuf>,
}

/// The pis to measure: pi 0.73.1 (system Node), and pi 1.6.0 (Node 24) when installed.
fn pis(cli: &Cli) -> (Vec<Pi>, Option<String>) {
    let mut out = vec![Pi { label: "pi 0.73.1", key: "pi", node: PathBuf::from(&cli.node), package: None }];
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let node24 = cli
        .node24
        .clone()
        .or_else(|| std::env::var_os("NODE24").filter(|v| !v.is_empty()).map(PathBuf::from))
        .unwrap_or_else(|| repo.join(".tools/bin/node24"));
    let dir = cli
        .pi16_dir
        .clone()
        .or_else(|| std::env::var_os("PI16_DIR").filter(|v| !v.is_empty()).map(PathBuf::from))
        .unwrap_or_else(|| repo.join("tests/pi-oracle/pi16"));
    // The install folder (tests/pi-oracle/pi16), or the package folder itself.
    let package = [dir.join("node_modules/@earendil-works/pi-coding-agent"), dir.clone()].into_iter().find(|p| p.join("package.json").exists() && p.join("dist/index.js").exists());
    match (package, node24.exists()) {
        (Some(p), true) => {
            out.push(Pi { label: "pi 1.6.0", key: "pi16", node: node24, package: Some(p) });
            (out, None)
        }
        (None, _) => (out, Some(format!("pi 1.6.0 not found under {} (scripts/setup all installs it): skipped", dir.display()))),
        (_, false) => (out, Some(format!("Node 24 not found at {} (scripts/setup all installs it): pi 1.6.0 skipped", node24.display()))),
    }
}

fn run_pi(cli: &Cli, pi: &Pi, heap: Option<u32>, args: &[&OsStr]) -> std::io::Result<(Run, Option<Value>)> {
    let mut cmd = Command::new(&pi.node);
    if let Some(h) = heap {
        cmd.arg(format!("--max-old-space-size={h}"));
    }
    if let Some(p) = &pi.package {
        cmd.env("PI_PACKAGE", p);
    }
    cmd.arg(pi_side_path(cli)).args(args);
    let r = run_limited(&mut cmd, true, true, Some(std::time::Duration::from_secs_f64(cli.pi_step_limit)))?;
    let j = std::str::from_utf8(&r.stdout).ok().and_then(|s| s.lines().rev().find(|l| l.starts_with('{')).and_then(|l| serde_json::from_str(l).ok()));
    Ok((r, j))
}

/// The `pi-bench` command line.
/// The `pi-bench` command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // A short process, as `pi-session`'s commands are (its in-process figures are theirs).
    pi_session_format::pages::short_lived_heaps();
    // The internal modes: one JSON line on success.
    let internal = match (cli.cached_open.as_deref(), &cli.append_bench, &cli.list_in_process, &cli.open_in_process) {
        (Some([file, dir]), ..) => Some(cached_open(file, dir)),
        (_, Some(f), ..) => Some(incremental(f, cli.appends.max(1))),
        (_, _, Some(root), _) => Some(list_in_process(root)),
        (.., Some(f)) => Some(open_in_process(f)),
        _ => None,
    };
    if let Some(r) = internal {
        return match r {
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
    let given: Vec<Option<PathBuf>> = if cli.corpus.is_empty() { vec![None] } else { cli.corpus.iter().cloned().map(Some).collect() };
    let mut done: Vec<(String, Report, Vec<Ratio>)> = Vec::new();
    for g in &given {
        let mut rep = Report::default();
        let c = match prepare_corpus(&cli, g.as_deref(), &mut rep) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("pi-bench: {e}");
                return ExitCode::from(1);
            }
        };
        let label = c
            .manifest
            .as_ref()
            .and_then(|m| m["profile"].as_str().map(str::to_string))
            .or_else(|| c.root.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "corpus".into());
        let ratios = bench(&cli, &c, &mut rep);
        if let Some(d) = &c.generated {
            if !cli.keep && g.is_none() {
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
        done.push((label, rep, ratios));
    }

    // Ratios first (one column per corpus), then each corpus's table.
    println!();
    println!("— ratios (the floor's rows first, pi ÷ ours as whole processes / in process; targets: full index ÷ cat ≤ 1.5×,");
    println!("  first listing ≥ 45× pi 0.73.1 and ≥ 25× pi 1.6.0, the big session's first open ≥ 40× and ≥ 20×)");
    let labels: Vec<&str> = done.iter().map(|d| d.0.as_str()).collect();
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for (_, _, rs) in &done {
        for r in rs {
            if !keys.iter().any(|k| k.0 == r.key) {
                keys.push((&r.key, &r.label));
            }
        }
    }
    let w0 = keys.iter().map(|k| k.1.chars().count()).max().unwrap_or(0);
    println!("  {:<w0$}  {}", "", labels.iter().map(|l| format!("{l:>16}")).collect::<Vec<_>>().join(""));
    for (key, label) in &keys {
        let cells: Vec<String> = done
            .iter()
            .map(|(_, _, rs)| rs.iter().find(|r| r.key == *key).map_or("—".to_string(), |r| r.show()))
            .map(|c| format!("{c:>16}"))
            .collect();
        println!("  {label:<w0$}  {}", cells.join(""));
    }
    let mut failures = Vec::new();
    let mut json_corpora = serde_json::Map::new();
    for (label, rep, rs) in &mut done {
        println!();
        println!("== {label}");
        rep.print();
        let mut rj = serde_json::Map::new();
        for r in rs.iter() {
            rj.insert(r.key.clone(), ((r.value * 100.0).round() / 100.0).into());
            if let Some(i) = r.in_process {
                rj.insert(format!("{}InProcess", r.key), ((i * 100.0).round() / 100.0).into());
            }
        }
        rep.set("ratios", Value::Object(rj));
        rep.set("failures", rep.failures.clone().into());
        failures.extend(rep.failures.iter().map(|f| format!("{label}: {f}")));
        json_corpora.insert(label.clone(), Value::Object(rep.json.clone()));
    }
    if !failures.is_empty() {
        println!("FAILED: {}", failures.join("; "));
    }
    if cli.json {
        println!("{}", json!({"corpora": json_corpora, "failures": failures}));
    }
    if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn bench(cli: &Cli, c: &Corpus, rep: &mut Report) -> Vec<Ratio> {
    let Some((biggest, biggest_len)) = c.files.iter().max_by_key(|f| (f.1, std::cmp::Reverse(f.0.clone()))).cloned() else {
        rep.fail("corpus", format!("no session files under {}", c.root.display()));
        return Vec::new();
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
        format!(
            "{} files{} under {}",
            c.files.len(),
            entries.map(|e| format!(", {e} entries, {:.2} KB per entry", c.bytes as f64 / e.max(1) as f64 / 1e3)).unwrap_or_default(),
            c.root.display()
        ),
    );
    let big_entries = c.manifest.as_ref().and_then(|m| m["bigFile"]["entries"].as_u64());
    rep.row("biggest file", format!("{:.1} MB", biggest_len as f64 / 1e6), format!("{}{}", biggest.display(), big_entries.map(|e| format!(" ({e} entries)")).unwrap_or_default()));
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

    // Warm: the pages are in the cache (cat ran just before). Cold: dropped just before.
    let cold_ok = !cli.no_cold && {
        // Dirty pages (a corpus just written) cannot be dropped: write them out first.
        // SAFETY: no arguments, no memory.
        unsafe { libc::sync() };
        let n = drop_pages(c);
        rep.set("coldMethod", "posix_fadvise(POSIX_FADV_DONTNEED) on every corpus file".into());
        n == c.files.len()
    };
    let modes: &[bool] = if cold_ok { &[true, false] } else { &[false] };
    let mut cat_s = [None, None];
    let mut over_cat = [None, None];
    let mut list_first = [None, None];
    let mut list_second = None;
    let mut check = [None, None];
    let mut big = [None, None];
    let mut big_in_process: Option<f64> = None;
    let mut big_cached_in_process: Option<f64> = None;
    let mut big_cached_cli: Option<f64> = None;
    let skeleton_cache = work.join("skeleton-cache");
    let mut tree_rss = None;
    // The floor's rows, ours: whole process and in process (`[0]` warm, `[1]` cold).
    let mut fl = versus::Ours::default();
    let check_cache = work.join("check-cache");
    let _ = std::fs::create_dir_all(&check_cache);
    for &cold in modes {
        let m = cold as usize; // 0 warm, 1 cold
        let tag = if cold { "cold" } else { "warm" };
        let key = |k: &str| format!("{k}{}", if cold { "Cold" } else { "" });
        rep.section(&format!("{tag}: {}", if cold { "pages dropped with posix_fadvise(DONTNEED) before each step" } else { "pages in the cache" }));
        let prep = || {
            if cold {
                drop_pages(c);
            } else {
                let _ = cat_all(c, &list0);
            }
        };
        // ---- the floor and ours, the full index: interleaved pairs
        let check_cmd = || {
            let mut cmd = Command::new(&pi_session);
            cmd.env("PI_SESSION_CACHE_DIR", &check_cache).arg("check").arg(&c.root).arg("--json");
            cmd
        };
        let f = floor::floor_pairs(rep, c, &list0, cli.pairs, cold, &prep, &check_cmd);
        (cat_s[m], check[m], over_cat[m]) = (f.cat, f.check, f.ratio);
        // ---- ours: the first listing (no cache)
        let cache_dir = work.join(format!("list-cache-{tag}"));
        let _ = std::fs::remove_dir_all(&cache_dir);
        let _ = std::fs::create_dir_all(&cache_dir);
        let list_note = |r: &Run| {
            let n = serde_json::from_slice::<Value>(&r.stdout).ok().and_then(|v| v["sessions"].as_array().map(|a| a.len()));
            format!("{} sessions, {:.1} MB of JSON, peak RSS {}", n.map_or("?".into(), |n| n.to_string()), r.stdout_len as f64 / 1e6, mb(r.max_rss_kb))
        };
        let list_cmd = || {
            let mut cmd = Command::new(&pi_session);
            cmd.env("PI_SESSION_CACHE_DIR", &cache_dir).arg("list").arg("--sessions-dir").arg(&c.root).arg("--json");
            cmd
        };
        let runs = if cold { 1 } else { cli.floor_runs.max(1) };
        list_first[m] = median_run(rep, &key("oursListFirst"), runs, |rep, i| {
            let _ = std::fs::remove_dir_all(&cache_dir);
            let _ = std::fs::create_dir_all(&cache_dir);
            prep();
            ours(rep, &run_label(&format!("list --json (first run, no cache, {tag})"), i, runs), &key("oursListFirst"), &mut list_cmd(), Run::ok, list_note)
        });
        if !cold {
            list_second = ours(rep, "list --json (second run, cache warm)", "oursListSecond", &mut list_cmd(), Run::ok, list_note);
        }
        // The same listing timed in process (fresh processes; a cache folder of their own).
        let in_cache = work.join(format!("list-cache-in-{tag}"));
        let _ = std::fs::remove_dir_all(&in_cache);
        let _ = std::fs::create_dir_all(&in_cache);
        fl.list_in[m] = median_run(rep, &key("oursListFirstInProcess"), runs, |rep, i| {
            let _ = std::fs::remove_dir_all(&in_cache);
            let _ = std::fs::create_dir_all(&in_cache);
            prep();
            let label = run_label(&format!("listing, first, no cache, in process ({tag})"), i, runs);
            versus::in_child(rep, &label, &key("oursListFirstInProcess"), OsStr::new("--list-in-process"), &c.root, Some(&in_cache)).map(|secs| Timed { secs, rss_kb: 0 })
        })
        .map(|t| t.secs);
        if !cold {
            fl.list_cached_in = versus::in_child(rep, "listing, cache warm, in process", "oursListSecondInProcess", OsStr::new("--list-in-process"), &c.root, Some(&in_cache));
        }
        // ---- ours: the biggest file, tree + context (two processes: each opens the file)
        prep();
        let tree = ours(rep, &format!("tree BIGGEST --json ({tag})"), &key("oursTree"), Command::new(&pi_session).env("PI_SESSION_SKELETON_MIN_BYTES", "off").arg("tree").arg(&biggest).arg("--json"), Run::ok, |r| {
            format!("{:.1} MB of JSON, peak RSS {}", r.stdout_len as f64 / 1e6, mb(r.max_rss_kb))
        });
        let ctx = median_run(rep, &key("oursContext"), runs, |rep, i| {
            if cold {
                drop_pages(c);
            }
            ours(rep, &run_label(&format!("context BIGGEST --json ({tag})"), i, runs), &key("oursContext"), Command::new(&pi_session).env("PI_SESSION_SKELETON_MIN_BYTES", "off").arg("context").arg(&biggest).arg("--json"), Run::ok, |r| {
                format!("{:.1} MB of JSON, peak RSS {}", r.stdout_len as f64 / 1e6, mb(r.max_rss_kb))
            })
        });
        if !cold {
            // The same two commands once the big file's skeleton snapshot is saved.
            let cached = |cmd: &str| {
                let mut c = Command::new(&pi_session);
                c.env("PI_SESSION_CACHE_DIR", &skeleton_cache).arg(cmd).arg(&biggest).arg("--json");
                c
            };
            let note = |r: &Run| format!("{:.1} MB of JSON, peak RSS {}", r.stdout_len as f64 / 1e6, mb(r.max_rss_kb));
            // A user's first context of the file: the default cache saves its snapshot.
            let first = ours(rep, "context BIGGEST --json (first, saves its snapshot)", "oursContextSaving", &mut cached("context"), Run::ok, note);
            fl.saving_whole = first.as_ref().map(|t| t.secs);
            let a = ours(rep, "tree BIGGEST --json (skeleton cache warm)", "oursTreeCached", &mut cached("tree"), Run::ok, note);
            let b = ours(rep, "context BIGGEST --json (skeleton cache warm)", "oursContextCached", &mut cached("context"), Run::ok, note);
            fl.snapshot_whole = b.as_ref().map(|t| t.secs);
            if let (Some(a), Some(b)) = (a, b) {
                big_cached_cli = Some(a.secs + b.secs);
            }
        }
        fl.open_whole[m] = ctx.as_ref().map(|t| t.secs);
        prep();
        fl.open_in[m] = median_run(rep, &key("oursOpenInProcess"), runs, |rep, i| {
            if cold {
                drop_pages(c);
            }
            let label = run_label(&format!("context BIGGEST, no snapshot, in process ({tag})"), i, runs);
            versus::in_child(rep, &label, &key("oursOpenInProcess"), OsStr::new("--open-in-process"), &biggest, None).map(|secs| Timed { secs, rss_kb: 0 })
        })
        .map(|t| t.secs);
        if let (Some(a), Some(b)) = (&tree, &ctx) {
            big[m] = Some(a.secs + b.secs);
            if !cold {
                tree_rss = Some(a.rss_kb.max(b.rss_kb));
            }
        }
    }
    let mut cmd = Command::new(std::env::current_exe().unwrap_or_else(|_| sibling("pi-bench")));
    cmd.arg("--append-bench").arg(&biggest).arg("--appends").arg(cli.appends.max(1).to_string());
    match run(&mut cmd, true) {
        Ok(r) if r.ok() => match serde_json::from_slice::<Value>(&r.stdout) {
            Ok(j) => {
                let f = |k: &str| j[k].as_f64().unwrap_or(f64::NAN);
                rep.row("Session::open (in-process, big file, warm)", secs(f("openS")), format!("{} entries, peak RSS {}", j["entries"], mb(r.max_rss_kb)));
                let in_process = f("openS") + f("contextS");
                rep.row(
                    "open (tree included) + context (in-process, big file, warm)",
                    secs(in_process),
                    format!("context {} ({} messages)", secs(f("contextS")), j["contextMessages"]),
                );
                rep.set("oursBigInProcessS", in_process.into());
                big_in_process = Some(in_process);
                rep.row(
                    "first open through the skeleton cache (reads the file, saves its snapshot)",
                    secs(f("snapshotMissS")),
                    format!("snapshot {:.1} MB", j["snapshotBytes"].as_f64().unwrap_or(0.0) / 1e6),
                );
                rep.row(
                    "open from the snapshot (index and tree) + context (a fresh process, timed in process, big file, warm)",
                    secs(f("cachedS")),
                    format!(
                        "median of 5: open {}, context {}; range {} – {}",
                        secs(f("cachedOpenS")),
                        secs(f("cachedS") - f("cachedOpenS")),
                        secs(f("cachedMinS")),
                        secs(f("cachedMaxS"))
                    ),
                );
                rep.set("oursBigCachedInProcessS", f("cachedS").into());
                rep.set("oursSnapshotMissS", f("snapshotMissS").into());
                rep.set("oursSnapshotMB", (j["snapshotBytes"].as_f64().unwrap_or(0.0) / 1e6).into());
                big_cached_in_process = Some(f("cachedS"));
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

    // ---- pi (warm: pi's cost is its own work, not the disk)
    let mut pi_list: Vec<(&'static str, f64, u64)> = Vec::new();
    let mut pi_big: Vec<(&'static str, f64, u64)> = Vec::new();
    let mut pi_all_s = None;
    let mut pi_floor = Vec::new();
    if !cli.no_pi {
        let (pis, note) = pis(cli);
        let before = stamp_all(c);
        if let Some(n) = note {
            rep.row("pi 1.6.0", "skipped".into(), n);
        }
        for pi in &pis {
            rep.section(&format!("{} (bench/pi-side.mjs, warm)", pi.label));
            let pr = pi_steps::run_steps(cli, pi, c, &biggest, &work, &list0, rep, pi.key == "pi", cold_ok);
            if let Some(x) = pr.list[0] {
                pi_list.push((pi.key, x.in_process, x.rss_kb));
            }
            if let Some(x) = pr.big[0] {
                pi_big.push((pi.key, x.in_process, x.rss_kb));
            }
            pi_floor.push((pi.key, pi.label, pr.list, pr.big));
            if pi.key == "pi" {
                pi_all_s = pr.all;
            }
        }
        let after = stamp_all(c);
        let changed = before.iter().zip(&after).filter(|(a, b)| a != b).count();
        if changed > 0 {
            rep.fail("corpus unchanged after pi", format!("{changed} files changed"));
        } else {
            rep.row("corpus unchanged after pi", "yes".into(), "(size and mtime of every file)".into());
        }
    }
    let _ = std::fs::remove_dir_all(&work);

    let lf = |m: usize| list_first[m].as_ref().map(|t: &Timed| t.secs);
    // ---- ratios: the floor's rows first
    fl.snapshot_in = big_cached_in_process;
    fl.list_whole = [lf(0), lf(1)];
    fl.list_cached_whole = list_second.as_ref().map(|t| t.secs);
    let mut out = versus::floor_ratios(&fl, &pi_floor);
    let mut add = |key: &str, label: &str, v: Option<f64>, unit: &'static str| {
        if let Some(value) = v {
            out.push(Ratio { key: key.into(), label: label.into(), value, in_process: None, unit });
        }
    };
    add("checkOverCat", "full index ÷ cat, warm, median of the pairs (≤ 1.5×)", over_cat[0], "×");
    add("checkOverCatCold", "full index ÷ cat, cold, median of the pairs (≤ 1.5×)", over_cat[1], "×");
    let find = |v: &[(&'static str, f64, u64)], k: &str| v.iter().find(|x| x.0 == k).map(|x| x.1);
    let findm = |v: &[(&'static str, f64, u64)], k: &str| v.iter().find(|x| x.0 == k).map(|x| x.2 as f64);
    add("biggestPi073", "big session open+tree+context: pi 0.73.1 ÷ ours, warm (≥ 40×)", ratio(find(&pi_big, "pi"), big[0]), "×");
    add("biggestPi16", "big session open+tree+context: pi 1.6.0 ÷ ours, warm (≥ 40×)", ratio(find(&pi_big, "pi16"), big[0]), "×");
    add("biggestPi073InProcess", "big session, both in process (no process start, no JSON printed): pi 0.73.1 ÷ ours", ratio(find(&pi_big, "pi"), big_in_process), "×");
    add("biggestPi16InProcess", "big session, both in process: pi 1.6.0 ÷ ours", ratio(find(&pi_big, "pi16"), big_in_process), "×");
    add("biggestPi073Cached", "big session, skeleton cache warm (CLI, two processes): pi 0.73.1 ÷ ours", ratio(find(&pi_big, "pi"), big_cached_cli), "×");
    add("biggestPi16Cached", "big session, skeleton cache warm (CLI, two processes): pi 1.6.0 ÷ ours", ratio(find(&pi_big, "pi16"), big_cached_cli), "×");
    add("biggestPi073CachedInProcess", "big session, skeleton cache warm, in process: pi 0.73.1 ÷ ours", ratio(find(&pi_big, "pi"), big_cached_in_process), "×");
    add("biggestPi16CachedInProcess", "big session, skeleton cache warm, in process: pi 1.6.0 ÷ ours", ratio(find(&pi_big, "pi16"), big_cached_in_process), "×");
    add("biggestPi073Cold", "big session: pi 0.73.1 (warm) ÷ ours (cold)", ratio(find(&pi_big, "pi"), big[1]), "×");
    add("biggestPi16Cold", "big session: pi 1.6.0 (warm) ÷ ours (cold)", ratio(find(&pi_big, "pi16"), big[1]), "×");
    add("listFirstPi073", "first listing, no cache: pi 0.73.1 listAll ÷ ours, warm (≥ 30×)", ratio(find(&pi_list, "pi"), lf(0)), "×");
    add("listFirstPi16", "first listing, no cache: pi 1.6.0 listAll ÷ ours, warm (≥ 30×)", ratio(find(&pi_list, "pi16"), lf(0)), "×");
    add("listFirstPi073Cold", "first listing: pi 0.73.1 (warm) ÷ ours (cold)", ratio(find(&pi_list, "pi"), lf(1)), "×");
    add("listSecondPi073", "listing, cache warm: pi 0.73.1 listAll ÷ ours", ratio(find(&pi_list, "pi"), list_second.as_ref().map(|t| t.secs)), "×");
    add("fullIndexPi073", "every file: pi 0.73.1 open+getTree+context ÷ our check", ratio(pi_all_s, check[0].as_ref().map(|t| t.secs)), "×");
    add("bigRssPi073", "big session peak RSS: pi 0.73.1 ÷ ours", ratio(findm(&pi_big, "pi"), tree_rss.map(|k| k as f64)), "×");
    add("bigRssPi16", "big session peak RSS: pi 1.6.0 ÷ ours", ratio(findm(&pi_big, "pi16"), tree_rss.map(|k| k as f64)), "×");
    add("listRssPi073", "first listing peak RSS: pi 0.73.1 ÷ ours", ratio(findm(&pi_list, "pi"), list_first[0].as_ref().map(|t| t.rss_kb as f64)), "×");
    add("checkRssMB", "full index peak RSS, MB (≤ 400)", check[0].as_ref().map(|t| t.rss_kb as f64 / 1024.0), "MB");
    add("bigRssMB", "big session peak RSS (tree, context), MB", tree_rss.map(|k| k as f64 / 1024.0), "MB");
    let per_core = |t: &Option<Timed>| entries.zip(t.as_ref()).map(|(e, t)| e as f64 / t.secs / cpus.max(1) as f64);
    add("entriesPerSecPerCore", "full index: entries per second per core, warm", per_core(&check[0]), "k/s");
    add("entriesPerSecPerCoreCold", "full index: entries per second per core, cold", per_core(&check[1]), "k/s");
    out
}

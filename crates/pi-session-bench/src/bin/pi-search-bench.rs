//! pi-search-bench: the search index on a corpus written by pi-corpus, as a user meets it (each
//! figure a whole `pi-session` process): the first build from nothing against a full `check` of
//! the same root, the index's size against the corpus, 50 mixed queries (median and p95 of
//! each query's median of `--runs`) against `grep -rlF` and `grep -rliF` (case ignored, as
//! the search does) of the same words with the page cache warm, an append taken in, and every query's answer compared with a brute-force read of
//! every file. Prints figures; exits non-zero only when an answer differs from the brute force
//! (or a command fails).
//!
//! ```text
//! pi-search-bench --corpus OUT --pi-session target/release/pi-session [--baseline-queries 50] [--runs 3] [--json]
//! ```

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::Parser;
use pi_session_bench::bench::child::{run, Run};
use pi_session_bench::brute::brute_force_many;
use pi_session_find::{Query, SearchIndex};

#[derive(Parser)]
#[command(name = "pi-search-bench")]
struct Cli {
    /// The corpus (the agent dir: files under OUT/sessions)
    #[arg(long)]
    corpus: PathBuf,
    /// The pi-session binary to time
    #[arg(long, default_value = "target/release/pi-session")]
    pi_session: PathBuf,
    /// How many of the 50 queries also run through grep -rlF (slow on a big corpus)
    #[arg(long, default_value_t = 50)]
    baseline_queries: usize,
    /// Runs of each query (its median counts)
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Where the index and scratch files go (default: the system's temporary folder)
    #[arg(long)]
    work: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

/// 50 mixed queries: words, identifiers and paths, phrases, non-ASCII, short terms, filters.
const QUERIES: &[&str] = &[
    "parser", "cache", "timeout", "migration", "handler", "database", "schema", "retry", "validation", "allocation",
    "src/parser.ts", "Cargo.toml", "UTF-8", "tsconfig", "internal/store/store.go", "café", "日本語", "naïve", "résumé", "🙂",
    "\"should be\"", "\"edge case\"", "\"memory leak\"", "\"the parser\"", "\"null value\"",
    "parser cache", "timeout retry", "database migration", "handler request", "buffer stream",
    "role:user parser", "role:assistant cache", "role:toolResult error", "role:user \"edge case\"", "role:compaction schema",
    "tool:bash", "tool:read src", "tool:edit config", "tool:bash cargo", "tool:read parser",
    "cwd:webapp schema", "cwd:api handler", "model:claude parser", "model:gpt cache", "name:refactor",
    "after:2025-01-01 migration", "before:2030-01-01 timeout", "label:checkpoint", "xylophone-none", "zz",
];

/// More queries for the correctness count alone: short terms, phrases across words, filters.
const MORE: &[&str] = &["a", "ok", "qu role:user", "\"the\"", "e p", "role:compaction", "role:branch_summary", "tool:read", "model:claude", "label:c", "after:2026-06-01 before:2026-07-01 cache", "-"];

fn pct(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn must(r: std::io::Result<Run>, what: &str) -> Run {
    match r {
        Ok(r) => r,
        Err(e) => panic!("{what}: {e}"),
    }
}

fn search_cmd(bin: &Path, root: &Path, cache: &Path, q: &str) -> Command {
    let mut c = Command::new(bin);
    c.args(["search", q, "--json", "--limit", "200", "--sessions-dir"]).arg(root).env("PI_SESSION_CACHE_DIR", cache).env_remove("PI_SESSION_SEARCH_INDEX");
    c
}

/// The longest word of a query, or its filter's value: what grep looks for.
fn needle(q: &str) -> String {
    let p = Query::parse(q).unwrap();
    p.terms.iter().max_by_key(|t| t.len()).cloned().unwrap_or_else(|| q.rsplit(':').next().unwrap_or(q).to_string())
}

/// The bench's own session, in a folder of its own under the corpus's root, indexed with the
/// corpus and appended to by the "appended line" step; removed when the bench ends. The
/// corpus's files are never written to (an earlier version appended to its newest file, a line
/// per run, the second one its own parent: a cycle pi loops on, and a corpus that changed).
struct OwnSession {
    dir: PathBuf,
    file: PathBuf,
}

impl OwnSession {
    fn create(root: &Path) -> OwnSession {
        let dir = root.join("--pi-search-bench--");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("2026-12-01T00-00-00-000Z_0199ffff-0000-7000-8000-00000000be0c.jsonl");
        let header = serde_json::json!({"type":"session","version":3,"id":"0199ffff-0000-7000-8000-00000000be0c","timestamp":"2026-12-01T00:00:00.000Z","cwd":"/pi-search-bench"});
        let first = serde_json::json!({"type":"message","id":"benchz00","parentId":null,"timestamp":"2026-12-01T00:00:00.000Z","message":{"role":"user","content":"zqvxj wbkq","timestamp":1796083200000u64}});
        std::fs::write(&file, format!("{header}\n{first}\n")).unwrap();
        OwnSession { dir, file }
    }

    fn append(&self, line: serde_json::Value) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().append(true).open(&self.file).unwrap();
        f.write_all(format!("{line}\n").as_bytes()).unwrap();
    }
}

impl Drop for OwnSession {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.file);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = std::fs::canonicalize(cli.corpus.join("sessions")).expect("corpus/sessions");
    let own = OwnSession::create(&root);
    let files = pi_session::scan::scan(&root).files;
    let bytes: u64 = files.iter().map(|f| f.size).sum();
    let work = cli.work.clone().unwrap_or_else(std::env::temp_dir).join(format!("pi-search-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    let cache = work.join("cache");
    let load = || std::fs::read_to_string("/proc/loadavg").ok().and_then(|s| s.split_whitespace().next().map(str::to_string)).unwrap_or_default();
    let load_before = load();

    // The page cache warm for everyone.
    for f in &files {
        let _ = std::fs::read(&f.path);
    }
    // A full check, with an empty cache folder each time (as the build starts from nothing).
    let check = |k: usize| {
        let dir = work.join(format!("check-{k}"));
        let r = must(run(Command::new(&cli.pi_session).arg("check").arg(&root).env("PI_SESSION_CACHE_DIR", &dir), false), "check");
        let _ = std::fs::remove_dir_all(&dir);
        r.secs
    };
    let mut checks = vec![check(0)];
    // The first build, from nothing: a whole `pi-session search` process.
    let build = must(run(&mut search_cmd(&cli.pi_session, &root, &cache, "xylophone-warmup"), false), "build");
    if !build.ok() {
        eprintln!("build failed: {}", build.describe_failure());
        return ExitCode::FAILURE;
    }
    checks.push(check(1));
    checks.push(check(2));
    let check_s = pct(&checks, 0.5);
    let db = std::fs::read_dir(&cache).unwrap().map(|e| e.unwrap().path()).find(|p| p.file_name().unwrap().to_string_lossy().starts_with("search-") && p.extension().is_some_and(|e| e == "sqlite")).expect("the index file");
    // The database, its log and its posting files.
    let postings: u64 = std::fs::read_dir(format!("{}-postings", db.display())).into_iter().flatten().flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum();
    let size: u64 = postings + ["", "-wal"].iter().filter_map(|x| std::fs::metadata(format!("{}{x}", db.display())).ok()).map(|m| m.len()).sum::<u64>();

    // Queries, each a whole process (an update that finds nothing to do, then the query).
    let mut each = Vec::new();
    let mut answers: Vec<serde_json::Value> = Vec::new();
    for q in QUERIES {
        let mut t = Vec::new();
        let mut last = None;
        for _ in 0..cli.runs.max(1) {
            let r = must(run(&mut search_cmd(&cli.pi_session, &root, &cache, q), true), q);
            if !r.ok() {
                eprintln!("{q}: {}", r.describe_failure());
                return ExitCode::FAILURE;
            }
            t.push(r.secs * 1000.0);
            last = Some(r.stdout);
        }
        each.push(pct(&t, 0.5));
        answers.push(serde_json::from_slice(&last.unwrap()).unwrap());
    }
    let (q50, q95) = (pct(&each, 0.5), pct(&each, 0.95));

    // grep -rlF of the same words, the page cache warm; and grep -rliF, which ignores case as
    // the search does (the same files for the word).
    let n = cli.baseline_queries.min(QUERIES.len());
    let grep_p50 = |flags: &str| {
        let mut t = Vec::new();
        for q in &QUERIES[..n] {
            let r = must(run(Command::new("grep").args([flags, "--", &needle(q)]).arg(&root), false), "grep");
            t.push(r.secs * 1000.0);
        }
        pct(&t, 0.5)
    };
    let g50 = grep_p50("-rlF");
    let gi50 = grep_p50("-rliF");

    // An append is taken in by the next query: a line added to the bench's own session.
    own.append(serde_json::json!({"type":"message","id":"benchz01","parentId":"benchz00","timestamp":"2026-12-01T00:00:01.000Z","message":{"role":"user","content":"quokka-appended line","timestamp":1796083201000u64}}));
    let append = must(run(&mut search_cmd(&cli.pi_session, &root, &cache, "quokka-appended"), true), "append");
    let append_hits = serde_json::from_slice::<serde_json::Value>(&append.stdout).map(|v| v["totalHits"].as_u64().unwrap_or(0)).unwrap_or(0);

    // Every answer against a brute-force read of every file (the same index, in this process,
    // asked for up to 10,000 hits; and the CLI's first 200 against the same set).
    std::env::set_var("PI_SESSION_CACHE_DIR", &cache);
    let ix = SearchIndex::open(&root, &db).unwrap();
    let all: Vec<&str> = QUERIES.iter().chain(MORE).copied().collect();
    let parsed: Vec<Query> = all.iter().map(|q| Query::parse(q).unwrap()).collect();
    let (paths, want) = brute_force_many(&root, &parsed);
    let by_path: HashMap<&str, u32> = paths.iter().enumerate().map(|(i, p)| (p.as_str(), i as u32)).collect();
    let pairs = |r: &serde_json::Value| -> HashSet<(u32, u32)> {
        r["sessions"].as_array().into_iter().flatten().flat_map(|s| {
            let f = by_path.get(s["path"].as_str().unwrap_or("")).copied().unwrap_or(u32::MAX);
            s["hits"].as_array().into_iter().flatten().map(move |h| (f, h["line"].as_u64().unwrap_or(0) as u32))
        }).collect()
    };
    let mut correct = 0;
    let mut wrong = Vec::new();
    for (k, q) in all.iter().enumerate() {
        let got = serde_json::to_value(ix.search(q, 10_000).unwrap()).unwrap();
        let g = pairs(&got);
        let w = &want[k];
        let truncated = got["truncated"].as_bool().unwrap_or(false);
        let ok_full = if w.len() <= 10_000 { !truncated && g == *w } else { truncated && g.len() == 10_000 && g.is_subset(w) };
        let ok_cli = k >= QUERIES.len() || {
            let c = pairs(&answers[k]);
            c.len() == w.len().min(200) && c.is_subset(w)
        };
        if ok_full && ok_cli {
            correct += 1;
        } else {
            wrong.push(format!("{q}: index {} (truncated {truncated}), brute force {}, CLI ok {ok_cli}", g.len(), w.len()));
        }
    }
    let load_after = load();
    let _ = std::fs::remove_dir_all(&work);

    let out = serde_json::json!({
        "corpus": { "files": files.len(), "bytes": bytes },
        "load": [load_before, load_after],
        "check": { "secs": check_s, "runs": checks },
        "build": { "secs": build.secs, "cpuSecs": build.cpu_secs, "maxRssKb": build.max_rss_kb, "overCheck": build.secs / check_s },
        "index": { "bytes": size, "postingBytes": postings, "overCorpus": size as f64 / bytes as f64 },
        "queries": { "n": QUERIES.len(), "runs": cli.runs, "p50Ms": q50, "p95Ms": q95, "each": QUERIES.iter().zip(&each).map(|(q, t)| serde_json::json!([q, t])).collect::<Vec<_>>() },
        "grep": { "n": n, "p50Ms": g50, "overQueryP50": g50 / q50, "ignoreCaseP50Ms": gi50, "ignoreCaseOverQueryP50": gi50 / q50 },
        "append": { "ms": append.secs * 1000.0, "hits": append_hits },
        "correct": { "equal": correct, "of": all.len(), "wrong": wrong },
    });
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&out).unwrap());
    } else {
        println!("corpus: {} files, {:.1} MB (load {load_before} → {load_after})", files.len(), bytes as f64 / 1e6);
        println!("index size ÷ corpus: {:.3} ({:.1} MB, of which posting files {:.1} MB)", size as f64 / bytes as f64, size as f64 / 1e6, postings as f64 / 1e6);
        println!("build ÷ check: {:.1}× (build {:.2} s wall, {:.2} s CPU, {:.0} MB peak RSS; check median {:.2} s of {:?})", build.secs / check_s, build.secs, build.cpu_secs, build.max_rss_kb as f64 / 1024.0, check_s, checks.iter().map(|c| (c * 100.0).round() / 100.0).collect::<Vec<_>>());
        println!("queries (whole process, {} queries, median of {} runs each): p50 {:.1} ms, p95 {:.1} ms", QUERIES.len(), cli.runs, q50, q95);
        println!("grep -rlF ({n} of the queries' words, page cache warm): p50 {:.0} ms; grep ÷ query p50 = {:.2}×", g50, g50 / q50);
        println!("grep -rliF (case ignored, as the search does): p50 {:.0} ms; ÷ query p50 = {:.2}×", gi50, gi50 / q50);
        println!("an appended line found by the next query: {:.0} ms ({} hit)", append.secs * 1000.0, append_hits);
        println!("correct: {correct} of {} queries equal a brute-force read of every file", all.len());
        let mut slow: Vec<(f64, &str)> = each.iter().copied().zip(QUERIES.iter().copied()).collect();
        slow.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("slowest: {}", slow.iter().take(5).map(|(t, q)| format!("{q} {t:.0} ms")).collect::<Vec<_>>().join(", "));
        for w in &wrong {
            println!("  WRONG {w}");
        }
    }
    if wrong.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

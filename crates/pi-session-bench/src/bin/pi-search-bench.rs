//! pi-search-bench: the indexed search against today's scan and `grep -rF`, and export of the
//! biggest file's path, on a corpus written by pi-corpus. Prints figures; asserts nothing.
//!
//! ```text
//! pi-search-bench --corpus OUT [--baseline-queries 50] [--json]
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Parser;
use pi_session::export::{to_html, to_markdown, Scope};
use pi_session_app::explorer::Explorer;
use pi_session_find::{Query, SearchIndex};

#[derive(Parser)]
#[command(name = "pi-search-bench")]
struct Cli {
    /// The corpus (the agent dir: files under OUT/sessions)
    #[arg(long)]
    corpus: PathBuf,
    /// How many of the 50 queries also run through today's scan and grep -rF (they are slow)
    #[arg(long, default_value_t = 50)]
    baseline_queries: usize,
    #[arg(long)]
    json: bool,
}

/// 50 mixed queries: words, identifiers and paths, phrases, non-ASCII, filters.
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

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return f64::NAN;
    }
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn dir_size(p: &Path) -> (u64, usize) {
    let mut n = 0;
    let mut files = 0;
    for f in pi_session::scan::scan(p).files {
        n += f.size;
        files += 1;
    }
    (n, files)
}

fn main() {
    let cli = Cli::parse();
    let root = std::fs::canonicalize(cli.corpus.join("sessions")).expect("corpus/sessions");
    let (bytes, files) = dir_size(&root);
    let tmp = std::env::temp_dir().join(format!("pi-search-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let db = tmp.join("search.sqlite");

    let t = Instant::now();
    let ix = SearchIndex::open(&root, &db).expect("open index");
    let st = ix.update(|_| {}).expect("build");
    let build_ms = ms(t);
    let size = ix.size_on_disk();
    let t = Instant::now();
    let st2 = ix.update(|_| {}).unwrap();
    let noop_ms = ms(t);

    let mut idx_ms = Vec::new();
    let mut hits = Vec::new();
    for q in QUERIES {
        let t = Instant::now();
        let r = ix.search(q, 200).unwrap();
        idx_ms.push(ms(t));
        hits.push(r.total_hits);
    }

    // Today's scan (Explorer::search: words only, no filters) and grep -rF, on the words.
    let ex = Explorer::new(root.clone(), "flag", true);
    let _ = ex.list_sessions(None);
    let n = cli.baseline_queries.min(QUERIES.len());
    let (mut scan_ms, mut grep_ms) = (Vec::new(), Vec::new());
    for q in &QUERIES[..n] {
        let words = Query::parse(q).unwrap().terms.join(" ");
        let needle = if words.is_empty() { q.split(':').next_back().unwrap_or(q).to_string() } else { words };
        let t = Instant::now();
        let _ = ex.search(&needle, 200);
        scan_ms.push(ms(t));
        let t = Instant::now();
        // Output to a pipe, read to the end: GNU grep stops at the first match when it writes to /dev/null.
        let _ = std::process::Command::new("grep").args(["-rF", "--", &needle]).arg(&root).output();
        grep_ms.push(ms(t));
    }

    // Export of the biggest file's path.
    let big = pi_session::scan::scan(&root).files.into_iter().max_by_key(|f| f.size).unwrap();
    let t = Instant::now();
    let s = pi_session::Session::open(&big.path).unwrap();
    let open_ms = ms(t);
    let t = Instant::now();
    let html = to_html(&s, Scope::Path(s.tree.leaf)).unwrap();
    let html_ms = ms(t);
    let t = Instant::now();
    let md = to_markdown(&s, Scope::Path(s.tree.leaf)).unwrap();
    let md_ms = ms(t);
    let path_len = s.tree.active_path().len();

    let (p50, p95) = (pct(&mut idx_ms.clone(), 0.5), pct(&mut idx_ms.clone(), 0.95));
    let (s50, s95) = (pct(&mut scan_ms.clone(), 0.5), pct(&mut scan_ms.clone(), 0.95));
    let (g50, g95) = (pct(&mut grep_ms.clone(), 0.5), pct(&mut grep_ms.clone(), 0.95));
    let _ = std::fs::remove_dir_all(&tmp);
    let out = serde_json::json!({
        "corpus": { "files": files, "bytes": bytes },
        "index": { "buildMs": build_ms, "entries": st.entries_added, "bytesOnDisk": size, "noopUpdateMs": noop_ms, "noopUnchanged": st2.unchanged },
        "queries": QUERIES.len(),
        "indexedMs": { "p50": p50, "p95": p95, "max": idx_ms.iter().cloned().fold(0.0, f64::max), "each": QUERIES.iter().zip(&idx_ms).map(|(q, t)| serde_json::json!([q, t])).collect::<Vec<_>>() },
        "baselineQueries": n,
        "scanMs": { "p50": s50, "p95": s95 },
        "grepMs": { "p50": g50, "p95": g95 },
        "speedupVsGrepP50": g50 / p50,
        "speedupVsScanP50": s50 / p50,
        "export": { "file": big.path, "entriesOnPath": path_len, "openMs": open_ms, "htmlMs": html_ms, "htmlBytes": html.len(), "mdMs": md_ms, "mdBytes": md.len() },
    });
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&out).unwrap());
        return;
    }
    println!("corpus: {files} files, {:.1} MB", bytes as f64 / 1e6);
    println!("index build: {:.0} ms, {} entries, {:.1} MB on disk ({:.0}% of the corpus); no-op update {:.0} ms", build_ms, st.entries_added, size as f64 / 1e6, size as f64 * 100.0 / bytes.max(1) as f64, noop_ms);
    println!("indexed search, {} mixed queries: p50 {:.1} ms, p95 {:.1} ms", QUERIES.len(), p50, p95);
    println!("today's scan,   {n} queries:      p50 {:.1} ms, p95 {:.1} ms", s50, s95);
    println!("grep -rF,       {n} queries:      p50 {:.1} ms, p95 {:.1} ms", g50, g95);
    println!("speed-up at p50: {:.0}x vs grep -rF, {:.0}x vs the scan", g50 / p50, s50 / p50);
    println!("hits per query: {:?}", hits);
    let mut slow: Vec<(f64, &str)> = idx_ms.iter().copied().zip(QUERIES.iter().copied()).collect();
    slow.sort_by(|a, b| b.0.total_cmp(&a.0));
    println!("slowest: {}", slow.iter().take(5).map(|(t, q)| format!("{q} {t:.0} ms")).collect::<Vec<_>>().join(", "));
    println!(
        "export of the biggest file's path ({} entries on it): open {:.0} ms, HTML {:.0} ms ({:.1} MB), Markdown {:.0} ms ({:.1} MB)",
        path_len, open_ms, html_ms, html.len() as f64 / 1e6, md_ms, md.len() as f64 / 1e6
    );
}

//! pi-corpus: writes a realistic pi sessions directory for benchmarks.
//!
//! ```text
//! pi-corpus OUT --profile large --big-file --seed 1
//! ```
//!
//! OUT/sessions/--<cwd>--/<ts>_<uuid>.jsonl in pi's layout (PI_CODING_AGENT_DIR=OUT points
//! pi at it), and OUT/corpus.json describing what was written.

use clap::Parser;
use pi_session_bench::corpus::{self, Options, Profile, Stats, KINDS};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(name = "pi-corpus", about = "Write a realistic, deterministic corpus of pi session files")]
struct Cli {
    /// Output folder (the agent dir: files go to OUT/sessions)
    out: PathBuf,
    /// small (≈50 files), medium (≈500 files / 250 MB), large (10,000 files / 5 GB), short
    /// (10,000 files / 5 GB of short, tool-heavy entries: about 1.5 KB each)
    #[arg(long, value_parser = ["small", "medium", "large", "short"])]
    profile: Option<String>,
    /// Also write the big file (200,000 entries, a 100,000-deep chain, ~165 MB); alone without --profile
    #[arg(long)]
    big_file: bool,
    /// Entries of the big file
    #[arg(long, default_value_t = 200_000)]
    big_entries: usize,
    /// Override the profile's file count
    #[arg(long)]
    files: Option<usize>,
    /// Override the profile's total size in MB
    #[arg(long)]
    mb: Option<u64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (default: the number of CPUs)
    #[arg(long)]
    threads: Option<usize>,
    /// Replace OUT/sessions and OUT/corpus.json if present
    #[arg(long)]
    force: bool,
    /// Print the summary as JSON
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (files, bytes) = match cli.profile.as_deref().and_then(Profile::parse) {
        Some(p) => p.size(),
        None if cli.big_file || cli.files.is_some() => (0, 0),
        None => {
            eprintln!("pi-corpus: give --profile and/or --big-file");
            return ExitCode::from(2);
        }
    };
    let files = cli.files.unwrap_or(files);
    let bytes = cli.mb.map(|m| m * 1_000_000).unwrap_or(if bytes == 0 { files as u64 * 500_000 } else { bytes });
    let sessions = cli.out.join("sessions");
    if sessions.exists() {
        if !cli.force {
            eprintln!("pi-corpus: {} exists (use --force to replace it)", sessions.display());
            return ExitCode::from(2);
        }
        if let Err(e) = std::fs::remove_dir_all(&sessions) {
            eprintln!("pi-corpus: {}: {e}", sessions.display());
            return ExitCode::from(1);
        }
    }
    let opts = Options {
        out: cli.out.clone(),
        seed: cli.seed,
        files,
        total_bytes: bytes,
        big_entries: cli.big_file.then_some(cli.big_entries),
        threads: cli.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)),
        short: cli.profile.as_deref() == Some("short"),
    };
    let t = Instant::now();
    let st = match corpus::generate(&opts) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pi-corpus: {e}");
            return ExitCode::from(1);
        }
    };
    let secs = t.elapsed().as_secs_f64();
    let mut j = st.to_json();
    j["seed"] = cli.seed.into();
    j["profile"] = cli.profile.clone().into();
    j["sessionsDir"] = serde_json::Value::String(std::fs::canonicalize(&sessions).unwrap_or(sessions.clone()).display().to_string());
    j["seconds"] = secs.into();
    if let Err(e) = std::fs::write(cli.out.join("corpus.json"), serde_json::to_string_pretty(&j).unwrap() + "\n") {
        eprintln!("pi-corpus: corpus.json: {e}");
        return ExitCode::from(1);
    }
    if cli.json {
        println!("{j}");
    } else {
        print_summary(&st, &sessions, secs);
    }
    ExitCode::SUCCESS
}

fn print_summary(st: &Stats, sessions: &std::path::Path, secs: f64) {
    println!("wrote {} files, {:.1} MB, {} entries in {} folders under {}", st.files, st.bytes as f64 / 1e6, st.entries, st.folders, sessions.display());
    println!("  {:.1} s, {:.2} GB/s", secs, st.bytes as f64 / 1e9 / secs);
    println!(
        "  forks: {} (max depth {}, {:.1} MB copied from parents), branch points: {}",
        st.forks,
        st.max_fork_depth,
        st.fork_copied_bytes as f64 / 1e6,
        st.branch_points
    );
    println!("  biggest: {} ({:.1} MB, {} entries)", st.biggest.2.display(), st.biggest.0 as f64 / 1e6, st.biggest.1);
    if let Some(b) = &st.big_file {
        println!(
            "  big file: {} ({:.1} MB, {} entries, chain {} deep, {} branch points, {} compactions)",
            b.path.display(),
            b.bytes as f64 / 1e6,
            b.entries,
            b.depth,
            b.branch_points,
            b.compactions
        );
    }
    println!("  line sizes: p50 {} B, p90 {} B, p99 {} B, max {} B", st.line_percentile(0.5), st.line_percentile(0.9), st.line_percentile(0.99), st.max_line);
    for (name, n) in st.line_ranges() {
        println!("    {:>12}: {:>9} lines", name, n);
    }
    println!("  entries by type:");
    for (name, k) in KINDS {
        let (c, b) = (st.kind_count[k as usize], st.kind_bytes[k as usize]);
        if c > 0 {
            println!("    {:<28} {:>9} lines  {:>9.1} MB  avg {:>6} B", name, c, b as f64 / 1e6, b / c);
        }
    }
}

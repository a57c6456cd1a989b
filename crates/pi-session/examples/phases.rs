//! Where a full index spends its time per line, phase by phase, on one thread with the files
//! already in memory (no disk, no kernel copy, no thread hand-offs): each row adds one stage to
//! the one before, so the differences are the stages' costs.
//!
//! `cargo run --release -p pi-session --example phases -- ROOT [FILES]` (the first FILES
//! session files of ROOT, found as the listing finds them, in path order; 2,000 by default). `ONLY=prefix` runs the rows whose
//! name starts with it; `REPEAT=n` times each row n times (3 by default) and keeps the best.
//! A few dozen files stay in the CPU's caches; thousands measure memory bandwidth as well.
use std::path::{Path, PathBuf};
use std::time::Instant;

use pi_session::summary::SessionSummary;
use pi_session::{Session, SessionIndex};

fn main() {
    let mut args = std::env::args().skip(1);
    let root = args.next().expect("usage: phases ROOT [FILES]");
    let limit: usize = args.next().map(|s| s.parse().expect("FILES is a number")).unwrap_or(2000);
    let only = std::env::var("ONLY").ok();
    let repeat: usize = std::env::var("REPEAT").ok().and_then(|r| r.parse().ok()).unwrap_or(3).max(1);

    let mut paths: Vec<PathBuf> = pi_session::scan::scan(Path::new(&root)).files.into_iter().map(|f| f.path).collect();
    paths.truncate(limit);
    let files: Vec<(PathBuf, Vec<u8>)> = paths.into_iter().filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b))).collect();
    let bytes: usize = files.iter().map(|f| f.1.len()).sum();
    let lines: Vec<&[u8]> = files.iter().flat_map(|f| f.1.split(|&c| c == b'\n')).filter(|l| !l.is_empty()).collect();
    let texts: Vec<&str> = lines.iter().filter_map(|l| std::str::from_utf8(l).ok()).collect();
    println!("{} files, {:.3} GB, {} lines ({} UTF-8)", files.len(), bytes as f64 / 1e9, lines.len(), texts.len());

    let row = |name: &str, f: &dyn Fn() -> usize| {
        if only.as_deref().is_some_and(|o| !name.starts_with(o)) {
            return;
        }
        let mut best = f64::MAX;
        let mut n = 0;
        for _ in 0..repeat {
            let t = Instant::now();
            n = std::hint::black_box(f());
            best = best.min(t.elapsed().as_secs_f64());
        }
        let per_line = best * 1e9 / lines.len().max(1) as f64;
        println!("{name:<34} {best:>8.3} s {:>7.2} GB/s {per_line:>7.0} ns/line  ({n})", bytes as f64 / 1e9 / best);
    };
    row("line ends (memchr)", &|| files.iter().map(|f| memchr::memchr_iter(b'\n', &f.1).count()).sum());
    row("UTF-8 check (simdutf8)", &|| lines.iter().filter(|l| simdutf8::basic::from_utf8(l).is_ok()).count());
    row("JSON check (is_json)", &|| texts.iter().filter(|l| pi_session_format::skeleton::is_json(l)).count());
    row("JSON check + fields (scan_line)", &|| texts.iter().filter(|l| pi_session_format::skeleton::scan_line(l).is_ok()).count());
    row("+ skeleton (classify)", &|| {
        texts.iter().filter_map(|l| pi_session_format::skeleton::scan_line(l).ok()).map(|f| std::hint::black_box(pi_session_format::entry::classify(&f, 1, 0, 0))).count()
    });
    row("SessionIndex::from_bytes", &|| files.iter().map(|f| SessionIndex::from_bytes(&f.0, &f.1).entries.len()).sum());
    row("+ tree (Session::from_bytes)", &|| files.iter().map(|f| Session::from_bytes(&f.0, &f.1).index.entries.len()).sum());
    row("+ list summary", &|| {
        files
            .iter()
            .map(|f| {
                let s = Session::from_bytes(&f.0, &f.1);
                SessionSummary::of_bytes(&s, f.1.len() as u64, &f.1).entry_count
            })
            .sum()
    });
}

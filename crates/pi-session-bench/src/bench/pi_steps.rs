//! pi's side of a corpus: `listAll()`, and `open + getTree + buildSessionContext` of the
//! biggest file and (pi 0.73.1) of every file, through bench/pi-side.mjs.

use super::{cat_all, drop_file_pages, drop_pages, gbps, mb, run_pi, secs, Cli, Corpus, Pi, Report};
use crate::rng::Rng;
use serde_json::json;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// One timed step of pi: the call alone (`performance.now()` around it, as pi-side.mjs
/// reports it) and the whole Node process (spawn to exit: Node's start, the import of the
/// package, the call, printing, exit), with its peak RSS.
#[derive(Clone, Copy)]
pub(super) struct PiRun {
    pub in_process: f64,
    pub whole: f64,
    pub rss_kb: u64,
}

/// What pi's steps gave, warm (`[0]`) and cold (`[1]`, when asked).
pub(super) struct PiFigures {
    pub list: [Option<PiRun>; 2],
    pub big: [Option<PiRun>; 2],
    /// Every file (measured or extrapolated), seconds.
    pub all: Option<f64>,
}

/// A throw-away copy of the biggest file for pi to open in place, on disk, warm or with its
/// pages dropped (a fresh copy each run: pi may rewrite a file it opens).
fn big_copy(biggest: &Path, work: &Path, cold: bool) -> std::io::Result<PathBuf> {
    let dir = work.join("pi-big");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    let copy = dir.join(biggest.file_name().unwrap_or(OsStr::new("session.jsonl")));
    std::fs::copy(biggest, &copy)?;
    let f = std::fs::File::open(&copy)?;
    // Dirty pages cannot be dropped: on disk first.
    f.sync_all()?;
    if cold {
        drop_file_pages(&f);
    } else {
        std::fs::read(&copy)?;
    }
    Ok(copy)
}

/// pi's figure from `runs` of `n` asked: the median in process and the median whole process
/// (each its own), the highest peak RSS; recorded under `{key}S`, `{key}WholeS` and
/// `{key}RunsS` when there was more than one run.
fn median_of(rep: &mut Report, key: &str, n: usize, runs: &[PiRun]) -> Option<PiRun> {
    let in_process = super::floor::median(&runs.iter().map(|r| r.in_process).collect::<Vec<_>>())?;
    let whole = super::floor::median(&runs.iter().map(|r| r.whole).collect::<Vec<_>>())?;
    if n > 1 {
        rep.set(&format!("{key}S"), in_process.into());
        rep.set(&format!("{key}WholeS"), whole.into());
        rep.set(&format!("{key}RunsS"), runs.iter().map(|r| json!({"s": r.in_process, "wholeS": r.whole})).collect::<Vec<_>>().into());
        rep.row(&format!("  median of {} runs", runs.len()), secs(in_process), format!("whole process {}", secs(whole)));
    }
    Some(PiRun { in_process, whole, rss_kb: runs.iter().map(|r| r.rss_kb).max().unwrap_or(0) })
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run_steps(cli: &Cli, pi: &Pi, c: &Corpus, biggest: &Path, work: &Path, list0: &Path, rep: &mut Report, every_file: bool, cold: bool) -> PiFigures {
    let mut out = PiFigures { list: [None, None], big: [None, None], all: None };
    let k = |s: &str| format!("{}{s}", pi.key);
    let label = |s: &str| format!("{}: {s}", pi.label);
    let agent = c.agent_dir.clone().into_os_string();
    let modes: &[bool] = if cold { &[false, true] } else { &[false] };
    for &cold in modes {
        let (tag, key) = if cold { (", cold", "Cold") } else { ("", "") };
        if cold {
            drop_pages(c);
        } else {
            let _ = cat_all(c, list0); // warm again: the steps before may have evicted pages
        }
        let n = if cold { 1 } else { cli.floor_runs.max(1) };
        let mut runs = Vec::new();
        for i in 0..n {
            let what = super::runs::run_label(&label(&format!("SessionManager.listAll(){tag}")), i, n);
            match run_pi(cli, pi, Some(cli.max_old_space), &[OsStr::new("listall"), agent.as_os_str()]) {
                Ok((r, Some(j))) if r.ok() => {
                    let ms = j["ms"].as_f64().unwrap_or(0.0);
                    rep.row(
                        &what,
                        secs(ms / 1e3),
                        format!(
                            "whole process {}; {} sessions, peak RSS {} (Node after import: {}), --max-old-space-size={}, pi {}, Node {}",
                            secs(r.secs),
                            j["sessions"],
                            mb(r.max_rss_kb),
                            mb(j["baseRssKB"].as_u64().unwrap_or(0)),
                            cli.max_old_space,
                            j["piVersion"].as_str().unwrap_or("?"),
                            j["node"].as_str().unwrap_or("?")
                        ),
                    );
                    if j["sessions"].as_u64() != Some(c.files.len() as u64) {
                        rep.row("", "".into(), format!("note: pi listed {} of {} files", j["sessions"], c.files.len()));
                    }
                    rep.set(&k("Version"), j["piVersion"].clone());
                    rep.set(&k("Node"), j["node"].clone());
                    rep.set(&k(&format!("ListAll{key}S")), (ms / 1e3).into());
                    rep.set(&k(&format!("ListAll{key}WholeS")), r.secs.into());
                    rep.set(&k(&format!("ListAll{key}RssMB")), (r.max_rss_kb as f64 / 1024.0).into());
                    runs.push(PiRun { in_process: ms / 1e3, whole: r.secs, rss_kb: r.max_rss_kb });
                }
                Ok((r, _)) => {
                    rep.fail(&what, r.describe_failure());
                    rep.set(&k(&format!("ListAll{key}Failure")), r.describe_failure().into());
                }
                Err(e) => rep.fail(&what, e.to_string()),
            }
        }
        out.list[cold as usize] = median_of(rep, &k(&format!("ListAll{key}")), n, &runs);
    }
    if cli.pi_default_heap {
        let _ = cat_all(c, list0);
        match run_pi(cli, pi, None, &[OsStr::new("listall"), agent.as_os_str()]) {
            Ok((r, Some(j))) if r.ok() => {
                let ms = j["ms"].as_f64().unwrap_or(0.0);
                rep.row(&label("SessionManager.listAll(), Node's default heap"), secs(ms / 1e3), format!("peak RSS {}", mb(r.max_rss_kb)));
                rep.set(&k("ListAllDefaultHeapS"), (ms / 1e3).into());
            }
            Ok((r, _)) => {
                // Expected on big corpora: not a failure of the benchmark.
                rep.row(&label("SessionManager.listAll(), Node's default heap"), "died".into(), format!("{} after {}", r.describe_failure(), secs(r.secs)));
                rep.set(&k("ListAllDefaultHeap"), format!("died after {:.1} s: {}", r.secs, r.describe_failure()).into());
            }
            Err(e) => rep.fail(&label("listAll (default heap)"), e.to_string()),
        }
    }
    let big_list = work.join("biggest.txt");
    let tmp = work.to_path_buf().into_os_string();
    let bl = big_list.clone().into_os_string();
    for &cold in modes {
        let (tag, key) = if cold { (", cold", "Cold") } else { ("", "") };
        let n = if cold { 1 } else { cli.floor_runs.max(1) };
        let mut runs = Vec::new();
        for i in 0..n {
            let what = super::runs::run_label(&label(&format!("open + getTree + buildSessionContext (biggest{tag})")), i, n);
            if let Err(e) = big_copy(biggest, work, cold).and_then(|p| std::fs::write(&big_list, format!("{}\n", p.display()))) {
                rep.fail(&what, format!("copying the biggest file: {e}"));
                continue;
            }
            match run_pi(cli, pi, Some(cli.max_old_space), &[OsStr::new("open"), bl.as_os_str(), OsStr::new("--tmp"), tmp.as_os_str(), OsStr::new("--in-place")]) {
                Ok((r, Some(j))) if r.ok() => {
                    let s = j["ms"].as_f64().unwrap_or(0.0) / 1e3;
                    rep.row(
                        &what,
                        secs(s),
                        format!(
                            "whole process {}; open {}, getTree {}, buildSessionContext {}; peak RSS {}",
                            secs(r.secs),
                            secs(j["openMs"].as_f64().unwrap_or(0.0) / 1e3),
                            secs(j["treeMs"].as_f64().unwrap_or(0.0) / 1e3),
                            secs(j["ctxMs"].as_f64().unwrap_or(0.0) / 1e3),
                            mb(r.max_rss_kb)
                        ),
                    );
                    rep.set(&k(&format!("OpenBiggest{key}S")), s.into());
                    rep.set(&k(&format!("OpenBiggest{key}WholeS")), r.secs.into());
                    rep.set(
                        &k(&format!("OpenBiggest{key}Parts")),
                        json!({"openS": j["openMs"].as_f64().unwrap_or(0.0) / 1e3, "getTreeS": j["treeMs"].as_f64().unwrap_or(0.0) / 1e3, "buildSessionContextS": j["ctxMs"].as_f64().unwrap_or(0.0) / 1e3}),
                    );
                    rep.set(&k(&format!("OpenBiggest{key}RssMB")), (r.max_rss_kb as f64 / 1024.0).into());
                    runs.push(PiRun { in_process: s, whole: r.secs, rss_kb: r.max_rss_kb });
                    if j["rewrote"].as_u64().unwrap_or(0) > 0 {
                        rep.row("", "".into(), "note: pi rewrote the (copied) file on open".into());
                    }
                }
                Ok((r, _)) => rep.fail(&what, r.describe_failure()),
                Err(e) => rep.fail(&what, e.to_string()),
            }
        }
        out.big[cold as usize] = median_of(rep, &k(&format!("OpenBiggest{key}")), n, &runs);
    }
    let _ = std::fs::remove_dir_all(work.join("pi-big"));
    if !every_file {
        return out;
    }
    // Every file, in a seeded random order, within the budget.
    let mut order: Vec<&(PathBuf, u64)> = c.files.iter().collect();
    let mut rng = Rng::new(cli.seed ^ 0xa11);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.index(i + 1));
    }
    let all_list = work.join("all.txt");
    let _ = std::fs::write(&all_list, order.iter().map(|f| format!("{}\n", f.0.display())).collect::<String>());
    let _ = cat_all(c, list0);
    let al = all_list.into_os_string();
    let budget = format!("{}", (cli.open_budget * 1e3) as u64);
    match run_pi(
        cli,
        pi,
        Some(cli.max_old_space),
        &[OsStr::new("open"), al.as_os_str(), OsStr::new("--budget-ms"), OsStr::new(&budget), OsStr::new("--tmp"), tmp.as_os_str()],
    ) {
        Ok((r, Some(j))) if r.ok() => {
            let s = j["ms"].as_f64().unwrap_or(0.0) / 1e3;
            let done = j["done"].as_u64().unwrap_or(0);
            let bytes = j["bytes"].as_u64().unwrap_or(0);
            let complete = j["complete"].as_bool().unwrap_or(false);
            let total = if complete || bytes == 0 { s } else { s * c.bytes as f64 / bytes as f64 };
            let what = if complete {
                "open + getTree + buildSessionContext, every file"
            } else {
                "open + getTree + buildSessionContext, every file (EXTRAPOLATED)"
            };
            let note = if complete {
                format!("{done} files, {:.2} GB/s, slowest file {}, peak RSS {}", gbps(bytes, s), secs(j["maxFileMs"].as_f64().unwrap_or(0.0) / 1e3), mb(r.max_rss_kb))
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
            rep.row(&label(what), secs(total), note);
            rep.set(&k("OpenAllS"), total.into());
            rep.set(&k("OpenAllExtrapolated"), (!complete).into());
            rep.set(&k("OpenAllMeasured"), json!({"files": done, "bytes": bytes, "s": s}));
            rep.set(&k("OpenAllRssMB"), (r.max_rss_kb as f64 / 1024.0).into());
            if j["rewrote"].as_u64().unwrap_or(0) > 0 {
                rep.row("", "".into(), format!("note: pi rewrote {} (copied) files on open", j["rewrote"]));
            }
            out.all = Some(total);
        }
        Ok((r, _)) => rep.fail(&label("open every file"), r.describe_failure()),
        Err(e) => rep.fail(&label("open every file"), e.to_string()),
    }
    out
}

//! The floor's rows, pi ÷ ours: the first listing (no cache), the big session's first open
//! (no snapshot: `context --json`; and as a user's first `context --json` runs by default,
//! saving the snapshot), the same session reopened from its snapshot, and the
//! listing with its cache warm; warm and cold, each both ways: whole processes (spawn to exit,
//! what a user times: for pi, Node's start and the import of the package too) and in process
//! (the call alone: pi-side.mjs's `performance.now()` around it, and ours in a fresh process
//! timed around the same work, nothing printed).

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::child::run;
use super::pi_steps::PiRun;
use super::report::{mb, ratio, secs, Ratio, Report};
use super::sibling;

/// Our side of the floor's rows, in seconds (`[0]` warm, `[1]` cold).
#[derive(Default)]
pub(super) struct Ours {
    pub list_whole: [Option<f64>; 2],
    pub list_in: [Option<f64>; 2],
    pub list_cached_whole: Option<f64>,
    pub list_cached_in: Option<f64>,
    pub open_whole: [Option<f64>; 2],
    pub open_in: [Option<f64>; 2],
    pub snapshot_whole: Option<f64>,
    pub snapshot_in: Option<f64>,
    /// The big session's first `context --json` with the default cache: it saves the snapshot.
    pub saving_whole: Option<f64>,
}

/// One pi's side: its JSON key ("pi", "pi16"), its label, `listAll` and the big session's
/// open + getTree + buildSessionContext (`[0]` warm, `[1]` cold).
pub(super) type PiFloor = (&'static str, &'static str, [Option<PiRun>; 2], [Option<PiRun>; 2]);

/// Runs `pi-bench FLAG ARG` (an internal mode that prints `{"s": …}`) in a fresh process,
/// with `$PI_SESSION_CACHE_DIR` set to `cache` when given, and records the row.
pub(super) fn in_child(rep: &mut Report, label: &str, key: &str, flag: &OsStr, arg: &Path, cache: Option<&Path>) -> Option<f64> {
    let mut cmd = Command::new(std::env::current_exe().unwrap_or_else(|_| sibling("pi-bench")));
    cmd.arg(flag).arg(arg);
    if let Some(d) = cache {
        cmd.env("PI_SESSION_CACHE_DIR", d);
    }
    let r = match run(&mut cmd, true) {
        Ok(r) if r.ok() => r,
        Ok(r) => {
            rep.fail(label, r.describe_failure());
            return None;
        }
        Err(e) => {
            rep.fail(label, e.to_string());
            return None;
        }
    };
    match serde_json::from_slice::<Value>(&r.stdout).ok().and_then(|j| j["s"].as_f64()) {
        Some(s) => {
            rep.row(label, secs(s), format!("a fresh process timed around the work (the whole process {}, peak RSS {})", secs(r.secs), mb(r.max_rss_kb)));
            rep.set(&format!("{key}S"), s.into());
            Some(s)
        }
        None => {
            rep.fail(label, format!("no figure in {:?}", String::from_utf8_lossy(&r.stdout)));
            None
        }
    }
}

/// The floor's ratios, row by row: each row's value is the whole-process ratio, then the
/// in-process one.
pub(super) fn floor_ratios(o: &Ours, pis: &[PiFloor]) -> Vec<Ratio> {
    let mut out = Vec::new();
    let whole = |x: &Option<PiRun>| x.map(|p| p.whole);
    let inner = |x: &Option<PiRun>| x.map(|p| p.in_process);
    let mut push = |key: String, label: String, w: Option<f64>, i: Option<f64>| {
        if let Some(value) = w.or(i) {
            out.push(Ratio { key, label, value, in_process: w.and(i), unit: "×" });
        }
    };
    let name = |k: &str| if k == "pi" { "Pi073" } else { "Pi16" };
    let temps = [(0, "warm", "Warm"), (1, "cold", "Cold")];
    // (key, what, pi's call, pi's side, ours whole and in process, targets against pi 0.73.1 / 1.6.0)
    type Side = fn(&PiFloor) -> [Option<PiRun>; 2];
    let firsts: [(&str, &str, &str, Side, [Option<f64>; 2], [Option<f64>; 2], [&str; 2]); 2] = [
        ("floorListFirst", "first listing, no cache", " listAll", |p| p.2, o.list_whole, o.list_in, ["≥ 45×", "≥ 25×"]),
        ("floorOpenFirst", "big session, first open (no snapshot)", "", |p| p.3, o.open_whole, o.open_in, ["≥ 40×", "≥ 20×"]),
    ];
    for (key, what, call, side, ours_whole, ours_in, targets) in firsts {
        for p in pis {
            let (k, label, theirs) = (p.0, p.1, side(p));
            let target = targets[usize::from(k != "pi")];
            for (m, t, tk) in temps {
                push(
                    format!("{key}{tk}{}", name(k)),
                    format!("{what}, {t}: {label}{call} ÷ ours ({target})"),
                    ratio(whole(&theirs[m]), ours_whole[m]),
                    ratio(inner(&theirs[m]), ours_in[m]),
                );
            }
        }
    }
    // Warm only: (key, what, pi's call, pi's side, ours whole and in process).
    let warm: [(&str, &str, &str, Side, Option<f64>, Option<f64>); 3] = [
        ("floorOpenSaving", "big session, first open saving its snapshot (the default cache), warm", "", |p| p.3, o.saving_whole, None),
        ("floorOpenSnapshot", "big session from its snapshot, warm", "", |p| p.3, o.snapshot_whole, o.snapshot_in),
        ("floorListCached", "listing, cache warm", " listAll", |p| p.2, o.list_cached_whole, o.list_cached_in),
    ];
    for (key, what, call, side, ours_whole, ours_in) in warm {
        for p in pis {
            let theirs = side(p);
            push(format!("{key}{}", name(p.0)), format!("{what}: {}{call} ÷ ours", p.1), ratio(whole(&theirs[0]), ours_whole), ratio(inner(&theirs[0]), ours_in));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(in_process: f64, whole: f64) -> Option<PiRun> {
        Some(PiRun { in_process, whole, rss_kb: 0 })
    }

    #[test]
    fn each_row_holds_pi_over_ours_whole_then_in_process() {
        let ours = Ours {
            list_whole: [Some(0.5), Some(2.0)],
            list_in: [Some(0.4), None],
            list_cached_whole: Some(0.02),
            list_cached_in: Some(0.01),
            open_whole: [Some(0.2), Some(0.25)],
            open_in: [Some(0.1), Some(0.2)],
            snapshot_whole: Some(0.05),
            snapshot_in: None,
            saving_whole: Some(0.4),
        };
        let pis: Vec<PiFloor> = vec![
            ("pi", "pi 0.73.1", [run(20.0, 21.0), run(10.0, 11.0)], [run(4.0, 5.0), run(4.0, 5.0)]),
            ("pi16", "pi 1.6.0", [run(8.0, 9.0), None], [run(2.0, 2.5), run(2.0, 2.5)]),
        ];
        let rows = floor_ratios(&ours, &pis);
        let get = |k: &str| rows.iter().find(|r| r.key == k).unwrap_or_else(|| panic!("no row {k}"));
        // Whole processes first, the call alone second.
        let r = get("floorListFirstWarmPi073");
        assert_eq!((r.value, r.in_process), (42.0, Some(50.0)));
        assert_eq!(r.show(), "42.0× / 50.0×");
        assert!(r.label.contains("pi 0.73.1") && r.label.contains("warm") && r.label.contains("≥ 45×"));
        // One side missing in process: the whole-process ratio alone.
        let r = get("floorListFirstColdPi073");
        assert_eq!((r.value, r.in_process), (5.5, None));
        assert_eq!(get("floorOpenFirstWarmPi16").show(), "12.5× / 20.0×");
        assert!(get("floorOpenFirstWarmPi16").label.contains("≥ 20×"));
        assert_eq!(get("floorOpenFirstColdPi073").show(), "20.0× / 20.0×");
        assert_eq!(get("floorOpenSnapshotPi073").show(), "100.0×");
        assert_eq!(get("floorOpenSavingPi16").show(), "6.2×");
        assert_eq!(get("floorListCachedPi16").show(), "450.0× / 800.0×");
        // No pi 1.6.0 cold listing: no row rather than a made-up one.
        assert!(rows.iter().all(|r| r.key != "floorListFirstColdPi16"));
        // The rows come grouped: every listing row before every open row.
        let first_open = rows.iter().position(|r| r.key.starts_with("floorOpen")).unwrap();
        assert!(rows[..first_open].iter().all(|r| r.key.starts_with("floorListFirst")));
    }
}

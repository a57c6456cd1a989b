//! Our side's timed runs: one command and its row, and a floor step run several times, its
//! median the figure.

use std::process::Command;

use super::child::{run, Run};
use super::floor;
use super::report::{secs as secs_text, Report};

/// One of our commands, timed (peak RSS kept).
pub(super) struct Timed {
    pub(super) secs: f64,
    pub(super) rss_kb: u64,
}

/// The label of run `i` of `n` (the label alone when there is one run).
pub(super) fn run_label(label: &str, i: usize, n: usize) -> String {
    if n > 1 {
        format!("{label} (run {}/{n})", i + 1)
    } else {
        label.to_string()
    }
}

/// Runs `step` `n` times (`step(i)` records run `i`'s row) and, when there was more than one
/// run, records the median under `{key}S` and every run under `{key}RunsS`: the median time,
/// the highest peak RSS.
pub(super) fn median_run(rep: &mut Report, key: &str, n: usize, mut step: impl FnMut(&mut Report, usize) -> Option<Timed>) -> Option<Timed> {
    let runs: Vec<Timed> = (0..n).filter_map(|i| step(rep, i)).collect();
    let secs = floor::median(&runs.iter().map(|t| t.secs).collect::<Vec<_>>())?;
    if n > 1 {
        rep.set(&format!("{key}S"), secs.into());
        rep.set(&format!("{key}RunsS"), runs.iter().map(|t| t.secs).collect::<Vec<_>>().into());
        rep.row(&format!("  median of {} runs", runs.len()), secs_text(secs), String::new());
    }
    Some(Timed { secs, rss_kb: runs.iter().map(|t| t.rss_kb).max().unwrap_or(0) })
}

/// Runs one of our commands and records its row; `Some` when it succeeded (`ok` decides).
pub(super) fn ours(rep: &mut Report, label: &str, key: &str, cmd: &mut Command, ok: impl Fn(&Run) -> bool, note: impl Fn(&Run) -> String) -> Option<Timed> {
    match run(cmd, true) {
        Ok(r) if ok(&r) => {
            rep.row(label, secs_text(r.secs), note(&r));
            rep.set(&format!("{key}S"), r.secs.into());
            rep.set(&format!("{key}RssMB"), (r.max_rss_kb as f64 / 1024.0).into());
            Some(Timed { secs: r.secs, rss_kb: r.max_rss_kb })
        }
        Ok(r) => {
            rep.fail(label, r.describe_failure());
            None
        }
        Err(e) => {
            rep.fail(label, e.to_string());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_floor_step_run_several_times_gives_its_median() {
        let mut rep = Report::default();
        let times = [0.9, 0.3, 0.5];
        // A failed run is left out of the median.
        let t = median_run(&mut rep, "x", 4, |_, i| times.get(i).map(|&secs| Timed { secs, rss_kb: 10 * i as u64 })).unwrap();
        assert_eq!((t.secs, t.rss_kb), (0.5, 20));
        assert_eq!(rep.json["xS"], 0.5);
        assert_eq!(rep.json["xRunsS"], serde_json::json!([0.9, 0.3, 0.5]));
        // One run: its figure, no median row.
        let mut rep = Report::default();
        let t = median_run(&mut rep, "y", 1, |_, _| Some(Timed { secs: 0.7, rss_kb: 1 })).unwrap();
        assert_eq!(t.secs, 0.7);
        assert!(rep.json.get("yRunsS").is_none() && rep.rows.is_empty());
        assert!(median_run(&mut rep, "z", 3, |_, _| None).is_none());
    }
}

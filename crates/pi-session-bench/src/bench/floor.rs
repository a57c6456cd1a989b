//! The floor and the full index: `cat` of every corpus byte against `check`, in interleaved
//! pairs. This machine's speed drifts by tens of percent within minutes; a pair measures both
//! within seconds of each other, and the median of the pairs' ratios is the figure reported.

use super::report::{gbps, mb, secs, Report};
use super::{cat_all, ours, Corpus, Timed};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The medians of the pairs (a failed half leaves its pair out of the ratio).
pub(super) struct Floor {
    pub(super) cat: Option<f64>,
    /// The median time, and the highest peak RSS of the runs.
    pub(super) check: Option<Timed>,
    pub(super) ratio: Option<f64>,
}

pub(super) fn median(v: &[f64]) -> Option<f64> {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => None,
        n if n % 2 == 1 => Some(v[n / 2]),
        n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// `pairs` times: `prep`, `cat` of the corpus, `prep`, `check` of it; rows for each run and one
/// for the median ratio. JSON keys: `catS`, `oursCheckS` (medians), their per-pair lists
/// (`catPairsS`, `oursCheckPairsS`) and `checkOverCatPairs`, each with `Cold` after it when cold.
pub(super) fn floor_pairs(rep: &mut Report, c: &Corpus, list0: &Path, pairs: usize, cold: bool, prep: &dyn Fn(), check: &dyn Fn() -> Command) -> Floor {
    let tag = if cold { "cold" } else { "warm" };
    let key = |k: &str| format!("{k}{}", if cold { "Cold" } else { "" });
    let (mut cats, mut checks, mut ratios, mut rss) = (Vec::new(), Vec::new(), Vec::new(), 0u64);
    for k in 0..pairs.max(1) {
        let of = if pairs > 1 { format!(", pair {}/{pairs}", k + 1) } else { String::new() };
        prep();
        let cat = match cat_all(c, list0) {
            Ok(r) if r.ok() => {
                rep.row(&format!("cat of every corpus byte ({tag}{of})"), secs(r.secs), format!("{:.2} GB/s, CPU {:.2} s", gbps(c.bytes, r.secs), r.cpu_secs));
                cats.push(r.secs);
                Some(r.secs)
            }
            Ok(r) => {
                rep.fail("cat", r.describe_failure());
                None
            }
            Err(e) => {
                rep.fail("cat", e.to_string());
                None
            }
        };
        prep();
        let t = ours(rep, &format!("check ROOT --json (full index, {tag}{of})"), &key("oursCheck"), &mut check(), |r| r.status == 0 || r.status == 1, |r| {
            let v = serde_json::from_slice::<Value>(&r.stdout).ok();
            let (files, errors, warnings) = v
                .as_ref()
                .map_or((0, 0, 0), |v| (v["files"].as_array().map_or(0, |a| a.len()), v["errors"].as_u64().unwrap_or(0), v["warnings"].as_u64().unwrap_or(0)));
            // CPU ÷ wall: how many cores were busy on average (an idle core at the end shows).
            let busy = if r.secs > 0.0 { r.cpu_secs / r.secs } else { 0.0 };
            format!(
                "{:.2} GB/s, peak RSS {}, CPU {:.2} s ({busy:.2} cores busy), {files} files, {errors} errors, {warnings} warnings",
                gbps(c.bytes, r.secs),
                mb(r.max_rss_kb),
                r.cpu_secs
            )
        });
        if let Some(t) = t {
            checks.push(t.secs);
            rss = rss.max(t.rss_kb);
            if let Some(cat) = cat.filter(|&s| s > 0.0) {
                ratios.push(t.secs / cat);
            }
        }
    }
    let floor = Floor { cat: median(&cats), check: median(&checks).map(|secs| Timed { secs, rss_kb: rss }), ratio: median(&ratios) };
    if let Some(s) = floor.cat {
        rep.set(&key("catS"), s.into());
    }
    if let Some(t) = &floor.check {
        rep.set(&key("oursCheckS"), t.secs.into());
        rep.set(&key("oursCheckRssMB"), (t.rss_kb as f64 / 1024.0).into());
    }
    rep.set(&key("catPairsS"), cats.clone().into());
    rep.set(&key("oursCheckPairsS"), checks.clone().into());
    rep.set(&key("checkOverCatPairs"), ratios.clone().into());
    if let Some(r) = floor.ratio {
        let each = ratios.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>().join(", ");
        rep.row(&format!("full index ÷ cat ({tag}), median of {} pairs", ratios.len()), format!("{r:.2}×"), format!("pairs: {each}"));
    }
    floor
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}

//! The cost and usage dashboard: tokens and cost over time, by project, by model, by session,
//! and the cost of abandoned branches. All sums are of [`counted_usage`], the rule the session
//! list uses, so the dashboard equals the sum of `list` figures.
//!
//! * **Time**: an entry counts on the UTC day (or ISO week, starting Monday) of its timestamp
//!   (`message.timestamp` when it is a number, else the entry's); entries without a valid
//!   timestamp count in the bucket of the session's `modified` time.
//! * **Model**: `provider/model` of the entry that carries the usage (`?` when absent).
//! * **Abandoned**: usage of entries that are not on the root→leaf path of the file's current
//!   leaf (all of them when the leaf is null): work the session navigated away from with /tree
//!   or left behind. A fork into another file is another session and counts there.
//! * **Child sessions**: sessions with a `parentSession` (forks and subagents) are counted like
//!   any other, and their share is shown on its own.
//! * **Families** (`byFamily` in the query): the per-session figures become one row per family
//!   (a session and its spawns, recursively; docs/format.md, "Family"), keyed by its head, with
//!   the family's figures: a fork's copied entries are not counted again there.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::summary::{counted_usage, SessionSummary};
use crate::{Leaf, Session};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum BucketSize {
    #[default]
    Day,
    Week,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct DashboardQuery {
    pub bucket: BucketSize,
    /// Sessions shown per session chart (the biggest by cost); 0 = 50.
    pub top: usize,
    /// The per-session figures by family: one row per family head, with the figures of the
    /// session and its spawns (a fork's copied entries left out). Absent: by session.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub by_family: Option<bool>,
}

/// Tokens and cost, and the sessions behind them.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Figure {
    pub key: String,
    pub tokens: f64,
    pub cost: f64,
    /// Paths of the sessions that contribute.
    pub sessions: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SessionUsage {
    pub path: String,
    pub title: String,
    pub cwd: Option<String>,
    pub parent_session: Option<String>,
    pub tokens: f64,
    pub cost: f64,
    pub abandoned_tokens: f64,
    pub abandoned_cost: f64,
    /// Sessions in the row: 1, or the family's size when grouped by family.
    pub sessions: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Totals {
    pub sessions: usize,
    pub tokens: f64,
    pub cost: f64,
    pub abandoned_tokens: f64,
    pub abandoned_cost: f64,
    /// Sessions with a `parentSession` (forks, subagents).
    pub child_sessions: usize,
    pub child_tokens: f64,
    pub child_cost: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct Dashboard {
    pub bucket: BucketSize,
    pub totals: Totals,
    /// Buckets oldest first; `key` is the first day (`YYYY-MM-DD`). Empty buckets in between are
    /// included, so a chart's x axis is even.
    pub over_time: Vec<Figure>,
    /// Biggest cost first.
    pub by_project: Vec<Figure>,
    pub by_model: Vec<Figure>,
    /// Biggest cost first, at most `top`.
    pub by_session: Vec<SessionUsage>,
}

const DAY: i64 = 86_400_000;

/// The bucket start (ms, UTC) of a time.
fn bucket_of(ms: f64, b: BucketSize) -> i64 {
    let day = (ms as i64).div_euclid(DAY);
    match b {
        BucketSize::Day => day * DAY,
        // 1970-01-01 was a Thursday: Monday-start weeks.
        BucketSize::Week => (day - (day + 3).rem_euclid(7)) * DAY,
    }
}

fn day_key(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms).map(|d| d.format("%Y-%m-%d").to_string()).unwrap_or_default()
}

/// One session's contribution.
struct Part {
    usage: SessionUsage,
    /// (bucket, model) → (tokens, cost)
    cells: BTreeMap<(i64, String), (f64, f64)>,
}

fn part_of(sum: &SessionSummary, bucket: BucketSize) -> Option<Part> {
    let s = Session::open(&sum.path).ok()?;
    let on_path: Vec<bool> = {
        let mut v = vec![false; s.index.entries.len()];
        if let Leaf::Entry(_) = s.tree.leaf {
            for i in s.tree.active_path() {
                v[i as usize] = true;
            }
        }
        v
    };
    let fallback = sum.modified.unwrap_or(0.0);
    let mut u = SessionUsage {
        path: crate::pathstr::encode(&sum.path),
        title: crate::text::title_of(sum),
        cwd: sum.cwd.clone(),
        parent_session: sum.parent_session.clone(),
        sessions: 1,
        ..Default::default()
    };
    let mut cells: BTreeMap<(i64, String), (f64, f64)> = BTreeMap::new();
    for (i, e) in s.index.entries.iter().enumerate() {
        let Some(us) = counted_usage(e) else { continue };
        u.tokens += us.tokens();
        u.cost += us.cost;
        if !on_path[i] {
            u.abandoned_tokens += us.tokens();
            u.abandoned_cost += us.cost;
        }
        let t = match &e.detail {
            pi_session_format::entry::Detail::Message { msg_ts: Some(t), .. } if !t.is_nan() => *t,
            _ if !e.ts.is_nan() => e.ts,
            _ => fallback,
        };
        let model = e.meta().map(|m| format!("{}/{}", m.provider.as_deref().unwrap_or("?"), m.model.as_deref().unwrap_or("?"))).unwrap_or_else(|| "?".into());
        let c = cells.entry((bucket_of(t, bucket), model)).or_default();
        c.0 += us.tokens();
        c.1 += us.cost;
    }
    Some(Part { usage: u, cells })
}

fn add(map: &mut BTreeMap<String, Figure>, key: &str, tokens: f64, cost: f64, path: &str) {
    let f = map.entry(key.to_string()).or_insert_with(|| Figure { key: key.to_string(), ..Default::default() });
    f.tokens += tokens;
    f.cost += cost;
    if f.sessions.last().map(String::as_str) != Some(path) {
        f.sessions.push(path.to_string());
    }
}

fn by_cost(map: BTreeMap<String, Figure>) -> Vec<Figure> {
    let mut v: Vec<Figure> = map.into_values().collect();
    v.sort_by(|a, b| b.cost.total_cmp(&a.cost).then(b.tokens.total_cmp(&a.tokens)).then(a.key.cmp(&b.key)));
    v
}

/// The dashboard of the listed sessions (files are read on all cores), without their lineage:
/// each session is a family of its own.
pub fn dashboard(sessions: &[SessionSummary], q: &DashboardQuery) -> Dashboard {
    dashboard_with(sessions, None, q)
}

/// The dashboard of the listed sessions with their lineage (`links`, same order), which
/// grouping by family needs.
pub fn dashboard_with(sessions: &[SessionSummary], links: Option<&[crate::forks::ForkInfo]>, q: &DashboardQuery) -> Dashboard {
    let parts: Vec<Option<Part>> = sessions.par_iter().map(|s| part_of(s, q.bucket)).collect();
    let families = q.by_family.unwrap_or(false).then(|| families(&parts, links)).flatten();
    let parts: Vec<Part> = parts.into_iter().flatten().collect();
    let mut totals = Totals::default();
    let mut time: BTreeMap<i64, Figure> = BTreeMap::new();
    let mut project: BTreeMap<String, Figure> = BTreeMap::new();
    let mut model: BTreeMap<String, Figure> = BTreeMap::new();
    for p in &parts {
        let u = &p.usage;
        totals.sessions += 1;
        totals.tokens += u.tokens;
        totals.cost += u.cost;
        totals.abandoned_tokens += u.abandoned_tokens;
        totals.abandoned_cost += u.abandoned_cost;
        if u.parent_session.is_some() {
            totals.child_sessions += 1;
            totals.child_tokens += u.tokens;
            totals.child_cost += u.cost;
        }
        let cwd = u.cwd.clone().unwrap_or_else(|| "?".into());
        if p.cells.is_empty() {
            add(&mut project, &cwd, 0.0, 0.0, &u.path);
        }
        for ((b, m), (t, c)) in &p.cells {
            let f = time.entry(*b).or_insert_with(|| Figure { key: day_key(*b), ..Default::default() });
            f.tokens += t;
            f.cost += c;
            if f.sessions.last() != Some(&u.path) {
                f.sessions.push(u.path.clone());
            }
            add(&mut project, &cwd, *t, *c, &u.path);
            add(&mut model, m, *t, *c, &u.path);
        }
    }
    // Even x axis: the empty buckets in between.
    let step = match q.bucket {
        BucketSize::Day => DAY,
        BucketSize::Week => 7 * DAY,
    };
    if let (Some(&first), Some(&last)) = (time.keys().next(), time.keys().next_back()) {
        if (last - first) / step < 5000 {
            let mut b = first;
            while b < last {
                time.entry(b).or_insert_with(|| Figure { key: day_key(b), ..Default::default() });
                b += step;
            }
        }
    }
    let mut by_session: Vec<SessionUsage> = families.unwrap_or_else(|| parts.into_iter().map(|p| p.usage).collect());
    by_session.sort_by(|a, b| b.cost.total_cmp(&a.cost).then(b.tokens.total_cmp(&a.tokens)).then(a.path.cmp(&b.path)));
    by_session.truncate(if q.top == 0 { 50 } else { q.top });
    Dashboard { bucket: q.bucket, totals, over_time: time.into_values().collect(), by_project: by_cost(project), by_model: by_cost(model), by_session }
}

/// One row per family head: the family's figures, the members' abandoned figures summed.
fn families(parts: &[Option<Part>], links: Option<&[crate::forks::ForkInfo]>) -> Option<Vec<SessionUsage>> {
    let links = links.filter(|l| l.len() == parts.len())?;
    let heads = crate::forks::family::heads(links);
    let mut rows: BTreeMap<usize, SessionUsage> = BTreeMap::new();
    for (i, p) in parts.iter().enumerate() {
        let Some(p) = p else { continue };
        let h = heads[i];
        let row = rows.entry(h).or_insert_with(|| {
            let head = &links[h];
            let base = parts[h].as_ref().map(|p| p.usage.clone()).unwrap_or_default();
            SessionUsage { tokens: head.family_tokens, cost: head.family_cost, abandoned_tokens: 0.0, abandoned_cost: 0.0, sessions: head.family_size, ..base }
        });
        row.abandoned_tokens += p.usage.abandoned_tokens;
        row.abandoned_cost += p.usage.abandoned_cost;
    }
    Some(rows.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weeks_start_on_monday_utc() {
        // 2026-12-03 is a Thursday; its week starts Monday 2026-11-30.
        let thu = chrono::NaiveDate::from_ymd_opt(2026, 12, 3).unwrap().and_hms_opt(23, 59, 0).unwrap().and_utc().timestamp_millis() as f64;
        assert_eq!(day_key(bucket_of(thu, BucketSize::Week)), "2026-11-30");
        assert_eq!(day_key(bucket_of(thu, BucketSize::Day)), "2026-12-03");
        let mon = chrono::NaiveDate::from_ymd_opt(2026, 11, 30).unwrap().and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp_millis() as f64;
        assert_eq!(bucket_of(mon, BucketSize::Week), mon as i64);
    }
}

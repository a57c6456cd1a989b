//! Own and family figures (docs/format.md, "Family").
//!
//! * **Own**: the tokens and cost of the entries a file added. A fork's entries whose ids are in
//!   its parent are copies of the parent's and count there; every other session's own figures
//!   are its file's (pi's `getSessionStats`).
//! * **Family**: a session and its spawns, recursively (a spawn's spawns are in it too). A fork
//!   is another session with a family of its own: the family of a session that was forked is
//!   not its fork tree, and a fork's family counts the fork's own figures, not the history it
//!   copied.
//! * So every session's own figures are in exactly one family (the one of its nearest ancestor
//!   reached through spawn links only, its **head**): the families' figures add up to the own
//!   figures of all sessions, and nothing is counted twice.

use std::collections::HashMap;
use std::path::Path;

use crate::forks::{ForkInfo, LinkKind};
use crate::summary::SessionSummary;

/// The listed parent of each link through which a family grows (a linked spawn), by index.
fn spawn_parents(links: &[ForkInfo]) -> Vec<Option<usize>> {
    let by_path: HashMap<&Path, usize> = links.iter().enumerate().map(|(i, f)| (f.path.as_path(), i)).collect();
    links
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if f.kind != Some(LinkKind::Spawn) || !f.status.linked() {
                return None;
            }
            f.parent_path.as_deref().and_then(|p| by_path.get(p)).copied().filter(|&j| j != i)
        })
        .collect()
}

/// Sets own and family figures on `links` (same order as `sessions`).
pub fn apply(sessions: &[SessionSummary], links: &mut [ForkInfo]) {
    for (s, f) in sessions.iter().zip(links.iter_mut()) {
        let copied = if f.kind == Some(LinkKind::Fork) && f.status.linked() { f.copied } else { (0.0, 0.0) };
        f.own_tokens = (s.tokens - copied.0).max(0.0);
        f.own_cost = (s.cost - copied.1).max(0.0);
    }
    let parent = spawn_parents(links);
    let n = links.len();
    // Depth through spawn links (iterative; parent cycles never carry a kind, so none here,
    // but a walk is bounded by n all the same).
    let mut depth: Vec<Option<u32>> = vec![None; n];
    for start in 0..n {
        let mut walk = Vec::new();
        let mut cur = start;
        while depth[cur].is_none() && walk.len() <= n {
            walk.push(cur);
            match parent[cur] {
                Some(p) => cur = p,
                None => break,
            }
        }
        let mut d = match depth[cur] {
            Some(d) if !walk.contains(&cur) => d + 1,
            _ => 0,
        };
        for &x in walk.iter().rev() {
            depth[x] = Some(d);
            d += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(depth[i].unwrap_or(0)));
    let mut fam: Vec<(f64, f64, u32)> = links.iter().map(|f| (f.own_tokens, f.own_cost, 1)).collect();
    for i in order {
        if let Some(p) = parent[i] {
            let (t, c, k) = fam[i];
            fam[p].0 += t;
            fam[p].1 += c;
            fam[p].2 += k;
        }
    }
    for (f, (t, c, k)) in links.iter_mut().zip(fam) {
        f.family_tokens = t;
        f.family_cost = c;
        f.family_size = k;
    }
}

/// The head of each session's family (index into `links`): the nearest ancestor reached
/// through spawn links only, or the session itself.
pub fn heads(links: &[ForkInfo]) -> Vec<usize> {
    let parent = spawn_parents(links);
    (0..links.len())
        .map(|i| {
            let mut cur = i;
            for _ in 0..links.len() {
                match parent[cur] {
                    Some(p) => cur = p,
                    None => break,
                }
            }
            cur
        })
        .collect()
}

//! Building a layout, in four phases: node flags (what the filter shows, what never folds),
//! the projection (each shown node under its nearest shown ancestor), the walk (rows, lanes,
//! colours, collapsed subtrees) and the folds (long runs of single children).

use std::collections::HashSet;

use pi_session_format::entry::{Entry, Kind, Role};
use pi_session::tree::NONE;

use super::base::Base;
use super::{counts, diag_lines, finite, usage_of, FoldRec, Layout, Probe, RowRec, BRANCH, COLORS, DOWN, FOLD, FOLD_KEEP, FOLD_MIN, LEAF, ON_PATH, UP};
use crate::api::{Fold, TreeFilter, TreeQuery};

// Node flags (during a build).
const N_VISIBLE: u8 = 1;
const N_ON_PATH: u8 = 2;
const N_NOFOLD: u8 = 4;
const N_COLLAPSED: u8 = 8;
const N_LEAF: u8 = 16;

/// The layout of `query` over `base`; `target` (a node or `NONE`) is followed for `locate`.
pub(super) fn build_with(base: &Base<'_>, query: &TreeQuery, target: u32) -> (Layout, Probe) {
    let sessions = &base.sessions;
    let mut flags = node_flags(base, query);
    let projection = project(base, &mut flags);
    let walk = walk(base, &projection, &flags, target);
    drop(projection);
    let (mut out, folds, fold_id) = fold_runs(base, query, &flags, &walk);
    let probe = Probe { row: out.target_row, fold_id, collapsed_by: walk.collapsed_by };
    drop(walk.rows);
    out.rows.shrink_to_fit();

    let layout = Layout {
        query: query.clone(),
        rows: out.rows,
        folds,
        collapsed: out.collapsed,
        nodes: base.nodes.clone(),
        lanes: out.lanes,
        leaf_row: out.leaf_row,
        fork_points: None,
        diags: sessions.iter().map(|s| diag_lines(s)).collect(),
        counts: counts(sessions[0]),
    };
    (layout, probe)
}

/// Per node: shown by the filter, on its session's active path, never folded (labeled,
/// compaction, branch summary), collapsed by the query.
fn node_flags(base: &Base<'_>, query: &TreeQuery) -> Vec<u8> {
    let n = base.nodes.len();
    let sessions = &base.sessions;
    let mut flags = vec![0u8; n];
    let labeled = |s: usize, e: &Entry| sessions[s].tree.labels.contains_key(e.id_str());
    for (g, f) in flags.iter_mut().enumerate() {
        let (s, e) = base.entry(g as u32);
        let visible = match query.filter {
            TreeFilter::Default => !e.kind.is_bookkeeping(),
            TreeFilter::UserOnly => e.is_user(),
            TreeFilter::Labeled => labeled(s, e) || base.content_leaves[s] == g as u32,
            TreeFilter::All => true,
        };
        if visible {
            *f |= N_VISIBLE;
        }
        if matches!(e.kind, Kind::Compaction | Kind::BranchSummary) {
            *f |= N_NOFOLD;
        }
    }
    for (s, sess) in sessions.iter().enumerate() {
        for id in sess.tree.labels.keys() {
            if let Some(g) = base.lookup(id) {
                if base.nodes.get(g).0 == s {
                    flags[g as usize] |= N_NOFOLD;
                }
            }
        }
    }
    for &g in &base.on_path {
        flags[g as usize] |= N_ON_PATH;
    }
    for id in &query.collapsed {
        if let Some(g) = base.lookup(id) {
            flags[g as usize] |= N_COLLAPSED;
        }
    }
    flags
}

/// The projected tree: shown nodes only, each under its nearest shown ancestor, children in
/// pre-order (compressed adjacency).
struct Projection {
    /// Projected parent of each shown node (`NONE` for a root).
    parent: Vec<u32>,
    start: Vec<u32>,
    list: Vec<u32>,
    roots: Vec<u32>,
}

impl Projection {
    fn kids(&self, g: u32) -> &[u32] {
        &self.list[self.start[g as usize] as usize..self.start[g as usize + 1] as usize]
    }

    /// Position among `g`'s children of its main child: the one on the active path, else the
    /// last (children of `g`'s own session first); `NONE` without children.
    fn main_pos(&self, base: &Base<'_>, flags: &[u8], g: u32) -> u32 {
        let session_of = |g: u32| base.nodes.get(g).0;
        let k = self.kids(g);
        if k.is_empty() {
            return NONE;
        }
        let s = session_of(g);
        if let Some(p) = k.iter().position(|&c| flags[c as usize] & N_ON_PATH != 0 && session_of(c) == s) {
            return p as u32;
        }
        k.iter().rposition(|&c| session_of(c) == s).unwrap_or(k.len() - 1) as u32
    }
}

/// Projection: parent = nearest visible ancestor; pre-order of visible nodes. Marks the row
/// standing for each session's leaf (`N_LEAF`).
fn project(base: &Base<'_>, flags: &mut [u8]) -> Projection {
    let n = base.nodes.len();
    let mut pp = vec![NONE; n];
    let mut order: Vec<u32> = Vec::new();
    let mut stack: Vec<(u32, u32, u32)> = Vec::new(); // (node, next child position, attach point)
    let mut enter = |g: u32, pa: u32, flags: &mut [u8], order: &mut Vec<u32>| -> u32 {
        let s = base.nodes.get(g).0;
        let visible = flags[g as usize] & N_VISIBLE != 0;
        if base.leaves[s] == g {
            let shown = if visible { g } else { pa };
            if shown != NONE && base.nodes.get(shown).0 == s {
                flags[shown as usize] |= N_LEAF | N_NOFOLD;
            }
        }
        if visible {
            pp[g as usize] = pa;
            order.push(g);
            g
        } else {
            pa
        }
    };
    for &r in &base.roots {
        let a = enter(r, NONE, flags, &mut order);
        stack.push((r, 0, a));
        while let Some(top) = stack.last_mut() {
            let (g, pos, a) = *top;
            let kids = base.children(g);
            if let Some(&c) = kids.get(pos as usize) {
                top.1 += 1;
                let ac = enter(c, a, flags, &mut order);
                stack.push((c, 0, ac));
            } else {
                stack.pop();
            }
        }
    }
    drop(stack);

    // Projected children, in pre-order (compressed adjacency).
    let mut pstart = vec![0u32; n + 1];
    for &v in &order {
        let p = pp[v as usize];
        if p != NONE {
            pstart[p as usize + 1] += 1;
        }
    }
    for i in 0..n {
        pstart[i + 1] += pstart[i];
    }
    let mut fill = pstart.clone();
    let mut plist = vec![0u32; pstart[n] as usize];
    let mut proots: Vec<u32> = Vec::new();
    for &v in &order {
        match pp[v as usize] {
            NONE => proots.push(v),
            p => {
                plist[fill[p as usize] as usize] = v;
                fill[p as usize] += 1;
            }
        }
    }
    Projection { parent: pp, start: pstart, list: plist, roots: proots }
}

/// One emission frame of the depth-first walk.
struct Frame {
    node: u32,
    /// Next child position; children are taken side ones first, then the main one.
    pos: u32,
    main: u32,
    lane: u32,
    color: u8,
    /// Children are not emitted (this node or an ancestor is collapsed).
    hide: bool,
    /// This node is collapsed and shown: count what it hides.
    counting: bool,
    row: u32,
    visits: u32,
}

/// The rows before folding.
struct Walk {
    rows: Vec<RowRec>,
    /// (row, hidden entries) of collapsed rows, by row.
    collapsed_pre: Vec<(u32, u32)>,
    /// Row of the target (`NONE`: not shown).
    target_pre: u32,
    /// Collapsed ancestors hiding the target.
    collapsed_by: Vec<u32>,
}

/// Emission: the depth-first walk of the projection, side children first, each in a new lane
/// and colour, then the main child in its parent's lane.
fn walk(base: &Base<'_>, p: &Projection, flags: &[u8], target: u32) -> Walk {
    let n = base.nodes.len();
    let session_of = |g: u32| base.nodes.get(g).0;
    let (pp, proots) = (&p.parent, &p.roots);
    let main_root = proots.iter().position(|&r| flags[r as usize] & N_ON_PATH != 0 && session_of(r) == 0).or(proots.len().checked_sub(1));
    let mut root_order: Vec<u32> = proots.iter().enumerate().filter(|(i, _)| Some(*i) != main_root).map(|(_, &r)| r).collect();
    if let Some(m) = main_root {
        root_order.push(proots[m]);
    }
    let mut rows: Vec<RowRec> = Vec::with_capacity(n);
    let mut collapsed_pre: Vec<(u32, u32)> = Vec::new();
    let mut collapsed_by = Vec::new();
    let mut target_pre = NONE;
    let mut branches: u32 = 0;
    let mut next_color = || {
        let c = 1 + branches % COLORS;
        branches += 1;
        c as u8
    };
    let mut visits: u32 = 0;
    let mut frames: Vec<Frame> = Vec::new();
    let root_count = root_order.len();
    for (ri, &root) in root_order.iter().enumerate() {
        let color = if ri + 1 == root_count && main_root.is_some() { 0 } else { next_color() };
        // (node, lane, colour, row flags, hidden)
        let mut pending = Some((root, 0u32, color, 0u8, false));
        loop {
            if let Some((g, lane, color, rflags, hide)) = pending.take() {
                visits += 1;
                let nf = flags[g as usize];
                let k = p.kids(g).len() as u32;
                let collapses = nf & N_COLLAPSED != 0 && k > 0;
                if g == target {
                    if hide {
                        collapsed_by = frames.iter().filter(|f| flags[f.node as usize] & N_COLLAPSED != 0).map(|f| f.node).collect();
                    } else {
                        target_pre = rows.len() as u32;
                    }
                }
                let row = if hide {
                    NONE
                } else {
                    let mut fl = rflags;
                    if k > 0 && !collapses {
                        fl |= DOWN;
                    }
                    if nf & N_ON_PATH != 0 && session_of(g) == 0 {
                        fl |= ON_PATH;
                    }
                    if nf & N_LEAF != 0 {
                        fl |= LEAF;
                    }
                    rows.push(RowRec { node: g, parent: pp[g as usize], lane, child_count: k, color, flags: fl });
                    rows.len() as u32 - 1
                };
                frames.push(Frame {
                    node: g,
                    pos: 0,
                    main: p.main_pos(base, flags, g),
                    lane,
                    color,
                    hide: hide || collapses,
                    counting: !hide && collapses,
                    row,
                    visits,
                });
            }
            let Some(top) = frames.last_mut() else { break };
            let ks = p.kids(top.node);
            let len = ks.len() as u32;
            // Side children first, in order, then the main one.
            let mut next = None;
            while top.pos < len {
                let p = top.pos;
                top.pos += 1;
                if p != top.main {
                    next = Some((ks[p as usize], false));
                    break;
                }
            }
            if next.is_none() && top.pos == len && top.main != NONE {
                top.pos += 1;
                next = Some((ks[top.main as usize], true));
            }
            match next {
                Some((c, true)) => pending = Some((c, top.lane, top.color, UP, top.hide)),
                Some((c, false)) => {
                    let (lane, hide) = (top.lane + 1, top.hide);
                    pending = Some((c, lane, next_color(), BRANCH, hide));
                }
                None => {
                    let f = frames.pop().expect("a frame is on the stack");
                    if f.counting {
                        collapsed_pre.push((f.row, visits - f.visits));
                    }
                }
            }
        }
    }
    drop(frames);
    collapsed_pre.sort_unstable();
    Walk { rows, collapsed_pre, target_pre, collapsed_by }
}

/// Folds: runs of more than [`FOLD_MIN`] foldable single children, unless opened in the
/// query, become one fold row. Returns the rows, the folds, and the fold hiding the target.
fn fold_runs(base: &Base<'_>, query: &TreeQuery, flags: &[u8], walk: &Walk) -> (Emitted, Vec<FoldRec>, Option<String>) {
    let sessions = &base.sessions;
    let session_of = |g: u32| base.nodes.get(g).0;
    let Walk { rows, collapsed_pre, target_pre, .. } = walk;
    let target_pre = *target_pre;
    let expanded: HashSet<&str> = query.expanded.iter().map(String::as_str).collect();
    let foldable = |r: &RowRec, collapsed: bool| {
        flags[r.node as usize] & N_NOFOLD == 0 && !collapsed && (r.flags & DOWN == 0 || r.child_count == 1)
    };
    let is_collapsed = |pre: usize| collapsed_pre.binary_search_by_key(&(pre as u32), |c| c.0).is_ok();
    let mut out = Emitted { rows: Vec::with_capacity(rows.len()), ..Default::default() };
    let mut folds: Vec<FoldRec> = Vec::new();
    let mut fold_hiding_target = None;
    let emit = |out: &mut Emitted, range: std::ops::Range<usize>| {
        for (k, rec) in rows[range.clone()].iter().enumerate() {
            out.push(range.start + k, *rec, target_pre, collapsed_pre, session_of(rec.node));
        }
    };
    let mut i = 0;
    while i < rows.len() {
        if !foldable(&rows[i], is_collapsed(i)) {
            emit(&mut out, i..i + 1);
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < rows.len()
            && rows[j].flags & DOWN != 0
            && rows[j].child_count == 1
            && foldable(&rows[j + 1], is_collapsed(j + 1))
            && session_of(rows[j].node) == session_of(rows[j + 1].node)
        {
            j += 1;
        }
        let run = j - i + 1;
        let fold_id = (run > FOLD_MIN).then(|| {
            let (s, e) = base.nodes.get(rows[i + FOLD_KEEP].node);
            format!("fold:{}", sessions[s].id_of(e as u32))
        });
        match fold_id {
            Some(id) if !expanded.contains(id.as_str()) => {
                let hidden = (i + FOLD_KEEP)..(j + 1 - FOLD_KEEP);
                emit(&mut out, i..hidden.start);
                if hidden.contains(&(target_pre as usize)) {
                    fold_hiding_target = Some(id.clone());
                }
                let rec = fold_rec(base, &rows[hidden.clone()], id);
                let first = rows[hidden.start];
                let fl = UP | DOWN | FOLD | if rec.fold.on_path { ON_PATH } else { 0 };
                folds.push(rec);
                let fold_row =
                    RowRec { node: folds.len() as u32 - 1, parent: first.parent, lane: first.lane, child_count: 1, color: first.color, flags: fl };
                out.push(NONE as usize, fold_row, target_pre, collapsed_pre, 0);
                emit(&mut out, hidden.end..j + 1);
            }
            _ => emit(&mut out, i..j + 1),
        }
        i = j + 1;
    }
    (out, folds, fold_hiding_target)
}

/// Rows after folding, with what follows them.
#[derive(Default)]
struct Emitted {
    rows: Vec<RowRec>,
    collapsed: Vec<(u32, u32)>,
    leaf_row: Option<u32>,
    lanes: u32,
    target_row: Option<u32>,
}

impl Emitted {
    /// Appends row `rec`, which was row `pre` before folding (`NONE` for a fold row).
    fn push(&mut self, pre: usize, rec: RowRec, target_pre: u32, collapsed_pre: &[(u32, u32)], session: usize) {
        let at = self.rows.len() as u32;
        if pre as u32 == target_pre && target_pre != NONE {
            self.target_row = Some(at);
        }
        if rec.flags & FOLD == 0 {
            if let Ok(k) = collapsed_pre.binary_search_by_key(&(pre as u32), |c| c.0) {
                self.collapsed.push((at, collapsed_pre[k].1));
            }
            if rec.flags & LEAF != 0 && session == 0 {
                self.leaf_row = Some(at);
            }
        }
        self.lanes = self.lanes.max(rec.lane + 1);
        self.rows.push(rec);
    }
}

fn fold_rec(base: &Base<'_>, hidden: &[RowRec], id: String) -> FoldRec {
    let mut f = Fold {
        id,
        count: hidden.len() as u32,
        users: 0,
        assistants: 0,
        tools: 0,
        others: 0,
        first_ts: None,
        last_ts: None,
        on_path: false,
    };
    let (mut tokens, mut cost, mut has_usage) = (0.0, 0.0, false);
    for r in hidden {
        let (_, e) = base.entry(r.node);
        match e.role() {
            Some(Role::User) => f.users += 1,
            Some(Role::Assistant) => f.assistants += 1,
            Some(Role::ToolResult) | Some(Role::BashExecution) => f.tools += 1,
            _ => f.others += 1,
        }
        if let Some(t) = finite(e.ts) {
            f.first_ts.get_or_insert(t);
            f.last_ts = Some(t);
        }
        if r.flags & ON_PATH != 0 {
            f.on_path = true;
        }
        if let Some((t, c)) = usage_of(e) {
            tokens += t;
            cost += c;
            has_usage = true;
        }
    }
    FoldRec { fold: f, first: hidden[0].node, tokens, cost, has_usage }
}

//! The drawn forest before filtering: one session, or a session with its forks hung in it.

use std::collections::HashMap;

use pi_session_format::entry::Entry;
use pi_session::tree::NONE;
use pi_session::Session;

use super::Nodes;

/// The drawn forest before filtering: children in order, as a compressed adjacency list.
pub(super) struct Base<'a> {
    pub(super) sessions: Vec<&'a Session>,
    pub(super) nodes: Nodes,
    pub(super) roots: Vec<u32>,
    pub(super) start: Vec<u32>,
    pub(super) list: Vec<u32>,
    /// Per session: its leaf when drawn as that session's node, else `NONE`.
    pub(super) leaves: Vec<u32>,
    /// Per session: the nearest entry at or above the leaf that is not bookkeeping (what the
    /// labeled filter shows for the leaf), when drawn as that session's node, else `NONE`.
    pub(super) content_leaves: Vec<u32>,
    /// Nodes on their session's active path.
    pub(super) on_path: Vec<u32>,
    /// Ids of drawn fork entries.
    pub(super) fork_ids: HashMap<&'a str, u32>,
}

impl<'a> Base<'a> {
    pub(super) fn single(s: &'a Session) -> Base<'a> {
        let t = &s.tree;
        let n = s.index.entries.len();
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(n);
        for c in &t.children {
            start.push(list.len() as u32);
            list.extend_from_slice(c);
        }
        start.push(list.len() as u32);
        Base {
            sessions: vec![s],
            nodes: Nodes { n0: n as u32, extra: Vec::new() },
            roots: t.roots.clone(),
            start,
            list,
            leaves: vec![t.leaf_index().unwrap_or(NONE)],
            content_leaves: vec![content_leaf(s)],
            on_path: t.active_path(),
            fork_ids: HashMap::new(),
        }
    }

    pub(super) fn unified(main: &'a Session, forks: &[(&'a Session, &str)]) -> Base<'a> {
        let n0 = main.index.entries.len() as u32;
        let mut sessions = vec![main];
        sessions.extend(forks.iter().map(|f| f.0));
        let mut nodes = Nodes { n0, extra: Vec::new() };
        let mut fork_ids: HashMap<&'a str, u32> = HashMap::new();
        let mut maps: Vec<Vec<u32>> = vec![Vec::new(); forks.len()];
        let mut extra_children: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut placed = vec![false; forks.len()];
        // A fork is placed once its fork point is drawn (a fork of a fork waits for its parent).
        loop {
            let mut progress = false;
            for (k, &(fs, fork_point)) in forks.iter().enumerate() {
                if placed[k] {
                    continue;
                }
                let Some(anchor) = lookup(main, &fork_ids, fork_point) else { continue };
                placed[k] = true;
                progress = true;
                let own: Vec<u32> = (0..fs.index.entries.len() as u32)
                    .filter(|&e| fs.tree.in_tree[e as usize] && lookup(main, &fork_ids, fs.id_of(e)).is_none())
                    .collect();
                let mut map = vec![NONE; fs.index.entries.len()];
                for &e in &own {
                    let g = nodes.len() as u32;
                    nodes.extra.push(((k + 1) as u16, e));
                    map[e as usize] = g;
                    fork_ids.insert(fs.id_of(e), g);
                }
                for &e in &own {
                    let p = fs.tree.parent[e as usize];
                    if p != NONE && map[p as usize] != NONE {
                        continue; // a child of an own entry: drawn through the fork's children
                    }
                    let at = if p == NONE { anchor } else { lookup(main, &fork_ids, fs.id_of(p)).unwrap_or(anchor) };
                    extra_children.entry(at).or_default().push(map[e as usize]);
                }
                maps[k] = map;
            }
            if !progress {
                break;
            }
        }
        let n = nodes.len();
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::with_capacity(n);
        for g in 0..n as u32 {
            start.push(list.len() as u32);
            let (s, e) = nodes.get(g);
            if s == 0 {
                list.extend_from_slice(&main.tree.children[e]);
            } else {
                let map = &maps[s - 1];
                list.extend(sessions[s].tree.children[e].iter().map(|&c| map[c as usize]).filter(|&c| c != NONE));
            }
            if let Some(x) = extra_children.get(&g) {
                list.extend_from_slice(x);
            }
        }
        start.push(list.len() as u32);
        let mut leaves = vec![main.tree.leaf_index().unwrap_or(NONE)];
        let mut content_leaves = vec![content_leaf(main)];
        let mut on_path = main.tree.active_path();
        for (k, &(fs, _)) in forks.iter().enumerate() {
            let map = &maps[k];
            let to_node = |e: u32| map.get(e as usize).copied().unwrap_or(NONE);
            leaves.push(fs.tree.leaf_index().map(to_node).unwrap_or(NONE));
            content_leaves.push(match content_leaf(fs) {
                NONE => NONE,
                e => to_node(e),
            });
            on_path.extend(fs.tree.active_path().into_iter().map(to_node).filter(|&g| g != NONE));
        }
        Base { sessions, nodes, roots: main.tree.roots.clone(), start, list, leaves, content_leaves, on_path, fork_ids }
    }

    pub(super) fn lookup(&self, id: &str) -> Option<u32> {
        lookup(self.sessions[0], &self.fork_ids, id)
    }

    pub(super) fn children(&self, g: u32) -> &[u32] {
        &self.list[self.start[g as usize] as usize..self.start[g as usize + 1] as usize]
    }

    pub(super) fn entry(&self, g: u32) -> (usize, &'a Entry) {
        let (s, e) = self.nodes.get(g);
        (s, &self.sessions[s].index.entries[e])
    }
}

/// The nearest entry at or above the leaf that is not a bookkeeping line (`NONE` if none).
pub(super) fn content_leaf(s: &Session) -> u32 {
    let mut cur = s.tree.leaf_index().unwrap_or(NONE);
    while cur != NONE && s.index.entries[cur as usize].kind.is_bookkeeping() {
        cur = s.tree.parent[cur as usize];
    }
    cur
}

/// The drawn node with this id: an entry of the opened session, else a drawn fork entry.
fn lookup(main: &Session, fork_ids: &HashMap<&str, u32>, id: &str) -> Option<u32> {
    match main.index.by_id.get(id) {
        Some(&i) if main.tree.in_tree[i as usize] => Some(i),
        _ => fork_ids.get(id).copied(),
    }
}

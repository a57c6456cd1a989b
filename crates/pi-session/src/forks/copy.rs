//! Slim forks and pruned copies told apart from forks, by the lines they hold (nothing in their
//! headers says which is which: both record `parentSession` as a fork does; docs/design.md,
//! "Slim fork and pruned copy").

use serde::{Deserialize, Serialize};

use crate::Session;

/// What a fork's file holds of its parent, when it is not the whole root→fork-point path that
/// a fork copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub enum CopyKind {
    /// A slim fork: a copied line's `parentId` differs from the parent's line with the same id
    /// (the fork re-links the first line it keeps after the part it drops).
    Slim,
    /// A pruned copy: more shared entries than the path to the fork point (several branches),
    /// fewer than the parent holds (others left out).
    Pruned,
}

/// Tells a slim fork and a pruned copy from a fork, by the lines `child` shares (by id) with
/// `parent`: our fork and pi's copy the root→`point` path byte for byte, so every shared line
/// has the parent's `parentId` and the shared lines are that path. A slim fork re-links the
/// first line it keeps after the hidden part (a shared line whose `parentId` differs; a slim
/// fork always holds a compaction). A pruned copy keeps several whole paths: more shared lines
/// than the path to its fork point, fewer than the parent's tree (a full copy is not pruned).
/// A pruned copy of a single branch is a fork of that branch, and reads as one.
pub fn copy_kind(child: &Session, parent: &Session, point: &str) -> Option<CopyKind> {
    let mut shared = 0usize;
    let mut relinked = false;
    for (i, e) in child.index.entries.iter().enumerate() {
        let Some(id) = e.id.as_ref().filter(|_| child.tree.in_tree[i]) else { continue };
        let Some(&p) = parent.index.by_id.get(id.as_str()) else { continue };
        shared += 1;
        relinked |= e.parent != parent.index.entries[p as usize].parent;
    }
    let compacted = child.index.entries.iter().any(|e| e.kind == pi_session_format::entry::Kind::Compaction);
    if relinked && compacted {
        return Some(CopyKind::Slim);
    }
    let fp = *child.index.by_id.get(point)?;
    let on_path = child.tree.path_to(fp).len();
    let parent_tree = parent.tree.in_tree.iter().filter(|&&b| b).count();
    (shared > on_path && shared < parent_tree).then_some(CopyKind::Pruned)
}

//! The app's face of the slim fork, the pruned copy and the branch diff ([`pi_session::slim`],
//! [`pi_session::diff`]): `impl Explorer` methods and their IPC shapes (docs/ipc.md).

use serde::{Deserialize, Serialize};
use pi_session::diff::BranchDiff;
use pi_session::{slim, Error};

use super::Explorer;

/// A new session file written from a source (slim fork, pruned copy).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct NewFileResult {
    pub file: String,
    /// Where the new file's `leaf` line points.
    pub leaf_id: String,
    /// Entry lines the new file holds (besides its own label and leaf lines).
    pub copied: u32,
    pub bytes_before: f64,
    pub bytes_after: f64,
}

/// What a slim fork at a node would write, for the one-line explanation before it does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
pub struct SlimPreview {
    /// The path to the node has a compaction (else only the ordinary fork fits).
    pub has_compaction: bool,
    /// Entries on the root→node path, and how many a slim fork copies.
    pub path_entries: u32,
    pub copied: u32,
}

impl Explorer {
    /// What [`Explorer::fork_slim`] at `id` would copy.
    pub fn slim_preview(&self, path: &str, id: &str) -> Result<SlimPreview, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let node = s.node(id)?;
        let path_entries = s.tree.path_to(node).len() as u32;
        Ok(match slim::slim_plan(&s, node) {
            Some(plan) => SlimPreview { has_compaction: true, path_entries, copied: plan.len() as u32 },
            None => SlimPreview { has_compaction: false, path_entries, copied: path_entries },
        })
    }

    /// Writes a slim fork of `path` at `id` beside it (`no-compaction` when its path has none).
    pub fn fork_slim(&self, path: &str, id: &str) -> Result<NewFileResult, Error> {
        let real = self.resolve(path)?;
        let f = slim::fork_slim(&real, id, &self.write_opts(&real)?)?;
        self.invalidate_listing();
        Ok(NewFileResult {
            file: pi_session::pathstr::encode(&f.file),
            leaf_id: f.leaf_id,
            copied: f.copied as u32,
            bytes_before: f.bytes_before as f64,
            bytes_after: f.bytes_after as f64,
        })
    }

    /// Writes a copy of `path` with only the root→entry paths of `keep`.
    pub fn prune(&self, path: &str, keep: &[String]) -> Result<NewFileResult, Error> {
        let real = self.resolve(path)?;
        let p = slim::prune(&real, keep, &self.write_opts(&real)?)?;
        self.invalidate_listing();
        Ok(NewFileResult {
            file: pi_session::pathstr::encode(&p.file),
            leaf_id: p.leaf_id,
            copied: p.copied as u32,
            bytes_before: p.bytes_before as f64,
            bytes_after: p.bytes_after as f64,
        })
    }

    /// Compares entry `a_id` of `a_path` with `b_id` of `b_path` (one file, or one fork family).
    pub fn compare(&self, a_path: &str, a_id: &str, b_path: &str, b_id: &str) -> Result<BranchDiff, Error> {
        let sa = self.session(a_path)?;
        let sb = self.session(b_path)?;
        let a = sa.read().unwrap();
        if std::sync::Arc::ptr_eq(&sa, &sb) {
            return pi_session::diff::diff(&a, a_id, &a, b_id);
        }
        let b = sb.read().unwrap();
        pi_session::diff::diff(&a, a_id, &b, b_id)
    }
}

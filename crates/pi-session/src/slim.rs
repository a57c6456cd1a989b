//! New files that carry less than the source, and that pi reads the same way (docs/design.md
//! "Slim fork and pruned copy"):
//!
//! * [`fork_slim`] — a fork at a node that holds only what the context there needs: the
//!   entries that decide model and thinking level (when the context's own range does not),
//!   the latest compaction's kept entries, the compaction, everything after it, the labels in
//!   effect and a `leaf` line;
//! * [`prune`] — a copy with only the union of chosen root→leaf paths.
//!
//! Both are written like a fork (a new file beside the source, crash-safely, header with
//! `parentSession` → the source); the source is never touched.
//!
//! pi builds a context by walking `parentId` from the leaf, so every copied line's parent must be
//! in the new file. A pruned copy keeps whole root→leaf paths: every line is copied byte for
//! byte. A slim fork drops the hidden part of the path, so the first line it keeps after a
//! dropped one gets a new `parentId` (the line written before it, or `null` for the first): that
//! line is re-serialised from its top-level fields with only `parentId` replaced (every other
//! value keeps its exact bytes; the compaction's `firstKeptEntryId` is never changed, and the
//! entry it names stays in the file before the compaction). At most three lines are re-linked.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::Serialize;
use pi_session_format::entry::{Detail, Kind, Role};

use crate::context::{object_fields, BodyReader};
use crate::tree::NONE;
use crate::write::{open_source, target_node, NewSession, WriteOptions};
use crate::{Error, Leaf, Session};

/// A slim fork written.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SlimForked {
    #[serde(with = "crate::pathstr::serde_path")]
    pub file: PathBuf,
    pub leaf_id: String,
    /// Entry lines copied (byte for byte, or re-linked).
    pub copied: usize,
    /// Ids of the copied lines whose `parentId` was rewritten (their parent was dropped).
    pub relinked: Vec<String>,
    /// Entries on the source's root→ID path.
    pub path_entries: usize,
    /// Size of the source file and of the new file, in bytes.
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// A pruned copy written.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pruned {
    #[serde(with = "crate::pathstr::serde_path")]
    pub file: PathBuf,
    /// Where the new file's `leaf` line points: the source's leaf when it is kept, else the
    /// first kept leaf.
    pub leaf_id: String,
    pub kept: Vec<String>,
    /// Entry lines copied byte for byte, and entries of the source's tree left out.
    pub copied: usize,
    pub dropped: usize,
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// The entries a slim fork at `node` copies, in the order written: the settings entries (from
/// the hidden part of the path, only where nothing later on the path overrides them), then the
/// path from the compaction's first kept entry (or the compaction itself) to `node`. `None`
/// when the path has no compaction.
pub fn slim_plan(s: &Session, node: u32) -> Option<Vec<u32>> {
    let plan = s.context(Leaf::Entry(node));
    plan.compaction?;
    let path = &plan.path;
    // The compaction hides path[..start]: before the first kept entry, or everything before
    // the compaction when it keeps nothing. (pi 1.x also drops the system messages inside the
    // kept range; they are copied, so the new file's range starts where the source's does.)
    let start = plan.kept_from;
    let (hidden, shown) = path.split_at(start);
    let is_model = |i: u32| {
        let e = &s.index.entries[i as usize];
        matches!(e.kind, Kind::ModelChange) || matches!((&e.kind, &e.detail), (Kind::Message, Detail::Message { role: Role::Assistant, .. }))
    };
    let is_thinking = |i: u32| matches!(s.index.entries[i as usize].kind, Kind::ThinkingLevelChange);
    let mut keep = Vec::new();
    if !shown.iter().any(|&i| is_model(i)) {
        keep.extend(hidden.iter().rev().find(|&&i| is_model(i)));
    }
    if !shown.iter().any(|&i| is_thinking(i)) {
        keep.extend(hidden.iter().rev().find(|&&i| is_thinking(i)));
    }
    keep.sort_by_key(|&i| hidden.iter().position(|&h| h == i));
    keep.extend_from_slice(shown);
    Some(keep)
}

/// Writes a slim fork of `path` at `target` beside it. Refused with `no-compaction` when the
/// path to `target` has no compaction (an ordinary [`crate::write::fork`] is what fits).
pub fn fork_slim(path: &Path, target: &str, opts: &WriteOptions) -> Result<SlimForked, Error> {
    let (s, real) = open_source(path, opts, "fork")?;
    let node = target_node(&s, target)?;
    let copied = slim_plan(&s, node).ok_or_else(|| Error::NoCompaction { path: s.index.path.clone(), id: target.to_string() })?;
    let mut new = NewSession::start(&s, &real);
    let mut f = File::open(&real).map_err(|e| Error::io(&real, e))?;
    let mut reader = BodyReader::open(&s.index)?;
    let mut relinked = Vec::new();
    let mut prev: u32 = NONE;
    for &i in &copied {
        let e = &s.index.entries[i as usize];
        // Already linked to the line written before it (or a root as the first line).
        if s.tree.parent[i as usize] == prev {
            new.copy_line(&s, &mut f, i)?;
        } else {
            let parent = (prev != NONE).then(|| s.id_of(prev));
            let text = reader.line(i)?;
            let line = with_parent(&text, parent).map_err(|m| Error::Corrupt { path: s.index.path.clone(), line: e.line, message: m })?;
            new.push_line(&line);
            relinked.push(s.id_of(i).to_string());
        }
        prev = i;
    }
    new.label_lines(&s, &copied, Some(target.to_string()));
    new.leaf_line(Some(target));
    let bytes_after = new.out.len() as u64;
    let file = new.finish(&real)?;
    Ok(SlimForked {
        file,
        leaf_id: target.to_string(),
        copied: copied.len(),
        relinked,
        path_entries: s.tree.path_to(node).len(),
        bytes_before: s.index.read_len,
        bytes_after,
    })
}

/// Writes a copy of `path` with only the root→leaf paths of `keep` (at least one id), in file
/// order and byte for byte, then the labels in effect and a `leaf` line.
pub fn prune(path: &Path, keep: &[String], opts: &WriteOptions) -> Result<Pruned, Error> {
    if keep.is_empty() {
        return Err(Error::Invalid("prune: name at least one entry to keep".into()));
    }
    let (s, real) = open_source(path, opts, "prune")?;
    let nodes: Vec<u32> = keep.iter().map(|id| target_node(&s, id)).collect::<Result<_, _>>()?;
    let mut kept = vec![false; s.index.entries.len()];
    for &n in &nodes {
        for i in s.tree.path_to(n) {
            kept[i as usize] = true;
        }
    }
    let copied: Vec<u32> = (0..s.index.entries.len() as u32).filter(|&i| kept[i as usize]).collect();
    let leaf = match s.tree.leaf_index() {
        Some(l) if kept[l as usize] => l,
        _ => nodes[0],
    };
    let leaf_id = s.id_of(leaf).to_string();
    let mut new = NewSession::start(&s, &real);
    let mut f = File::open(&real).map_err(|e| Error::io(&real, e))?;
    for &i in &copied {
        new.copy_line(&s, &mut f, i)?;
    }
    new.label_lines(&s, &copied, Some(leaf_id.clone()));
    new.leaf_line(Some(&leaf_id));
    let bytes_after = new.out.len() as u64;
    let file = new.finish(&real)?;
    let in_tree = s.tree.in_tree.iter().filter(|&&b| b).count();
    Ok(Pruned {
        file,
        leaf_id,
        kept: keep.to_vec(),
        copied: copied.len(),
        dropped: in_tree - copied.len(),
        bytes_before: s.index.read_len,
        bytes_after,
    })
}

/// The line with its top-level `parentId` replaced (or added after `id`); every other value
/// keeps its exact text. Duplicate keys collapse to the last, as `JSON.parse` reads them.
pub fn with_parent(text: &str, parent: Option<&str>) -> Result<String, String> {
    let fields = object_fields(text).map_err(|e| format!("cannot re-link this line: {e}"))?;
    let parent_json = serde_json::to_string(&parent).expect("a string serialises");
    let mut out = String::with_capacity(text.len() + 16);
    out.push('{');
    let mut placed = false;
    let has_parent = fields.iter().any(|(k, _)| k == "parentId");
    for (n, (k, v)) in fields.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).expect("a key serialises"));
        out.push(':');
        if k == "parentId" {
            out.push_str(&parent_json);
            placed = true;
        } else {
            out.push_str(v.get());
        }
        if k == "id" && !has_parent {
            out.push_str(",\"parentId\":");
            out.push_str(&parent_json);
            placed = true;
        }
    }
    if !placed {
        if !fields.is_empty() {
            out.push(',');
        }
        out.push_str("\"parentId\":");
        out.push_str(&parent_json);
    }
    out.push('}');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_parent_keeps_every_other_byte() {
        let line = r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"user","content":"x\u00e9 1.50e3"}}"#;
        assert_eq!(
            with_parent(line, Some("z")).unwrap(),
            r#"{"type":"message","id":"b","parentId":"z","timestamp":"t","message":{"role":"user","content":"x\u00e9 1.50e3"}}"#
        );
        assert_eq!(with_parent(line, None).unwrap(), line.replace(r#""parentId":"a""#, r#""parentId":null"#));
        assert_eq!(with_parent(r#"{"type":"x","id":"q","n":1.0}"#, Some("p")).unwrap(), r#"{"type":"x","id":"q","parentId":"p","n":1.0}"#);
        assert!(with_parent("{", None).is_err());
    }
}

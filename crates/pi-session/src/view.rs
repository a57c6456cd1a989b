//! The JSON shapes of `pi-session tree` and `pi-session context` (a contract other tools and
//! the tests rely on), and the tree drawn as text. (An entry's text views are in [`crate::text`].)

use pi_session_format::diag::Diagnostic;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::context::ModelRef;
use crate::tree::Leaf;
use crate::{Error, Session};

/// `pi-session tree --json`: borrowed from the session and written as it is serialised (a
/// 200k-entry tree is not copied into strings first).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeJson<'a> {
    #[serde(serialize_with = "crate::pathstr::serde_path::serialize")]
    pub path: &'a std::path::Path,
    pub header: serde_json::Value,
    pub version: Option<f64>,
    pub leaf_id: Option<&'a str>,
    pub active_path: Ids<'a>,
    pub roots: Ids<'a>,
    pub children: Children<'a>,
    pub labels: Labels<'a>,
    pub name: Option<&'a str>,
    pub entries: Entries<'a>,
    pub diagnostics: Vec<Diagnostic>,
    pub read_only: Option<crate::ReadOnlyReason>,
}

impl<'a> TreeJson<'a> {
    pub fn of(s: &'a Session) -> TreeJson<'a> {
        let ix = &s.index;
        TreeJson {
            path: &ix.path,
            header: ix.header.as_ref().map(|h| h.json()).unwrap_or(serde_json::Value::Null),
            version: ix.header.as_ref().and_then(|h| h.version),
            leaf_id: s.leaf_id(),
            active_path: Ids(s, s.tree.active_path().into()),
            roots: Ids(s, s.tree.roots.as_slice().into()),
            children: Children(s),
            labels: Labels(s),
            name: s.tree.name.as_deref(),
            entries: Entries(s),
            diagnostics: s.diagnostics(),
            read_only: ix.read_only(),
        }
    }
}

/// Entry indexes written as their ids.
pub struct Ids<'a>(&'a Session, std::borrow::Cow<'a, [u32]>);

impl Serialize for Ids<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq(self.1.iter().map(|&i| self.0.id_of(i)))
    }
}

/// `{"<id>": [child ids in pi's order]}` for entries with children.
pub struct Children<'a>(&'a Session);

impl Serialize for Children<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let s = self.0;
        ser.collect_map(s.tree.children.iter().enumerate().filter(|(_, c)| !c.is_empty()).map(|(i, c)| {
            (s.id_of(i as u32), Ids(s, c.as_slice().into()))
        }))
    }
}

/// `{"<id>": "label"}` in pi's label-map order.
pub struct Labels<'a>(&'a Session);

impl Serialize for Labels<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_map(self.0.tree.labels.iter().map(|(k, v)| (k.as_str(), v.text.as_str())))
    }
}

/// `[{"id","parentId","type","role","line"}]`, one per entry line.
pub struct Entries<'a>(&'a Session);

impl Serialize for Entries<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct E<'b> {
            id: Option<&'b str>,
            parent_id: Option<&'b str>,
            #[serde(rename = "type")]
            kind: &'b str,
            role: Option<&'b str>,
            line: u32,
        }
        ser.collect_seq(self.0.index.entries.iter().map(|e| E {
            id: e.id.as_deref(),
            parent_id: e.parent.id().map(|p| p.as_str()),
            kind: e.kind.as_str(),
            role: e.role().and_then(|r| r.as_str()),
            line: e.line,
        }))
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextJson<'a> {
    pub leaf_id: Option<String>,
    pub model: Option<ModelRef>,
    pub thinking_level: Option<String>,
    pub messages: Vec<Box<RawValue>>,
    /// Ids borrowed from the session: no copy of each (a big session hides 100,000s).
    pub entry_ids: Vec<&'a str>,
    pub hidden_entry_ids: Vec<&'a str>,
    /// The last compaction on the path, if any.
    pub compaction_id: Option<String>,
    /// pi 1.x: entries a `context_edit` replaces or drops (`{id, editId, dropped}`).
    pub edited: Vec<EditRef>,
}

/// An entry a `context_edit` changes, in `context --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EditRef {
    pub id: String,
    pub edit_id: String,
    pub dropped: bool,
}

impl<'a> ContextJson<'a> {
    pub fn of(s: &'a Session, leaf: Leaf) -> Result<ContextJson<'a>, Error> {
        let plan = s.context(leaf);
        let messages = plan.materialize(&s.index)?;
        Ok(ContextJson {
            leaf_id: match leaf {
                Leaf::Null => None,
                Leaf::Entry(i) => Some(s.id_of(i).to_string()),
            },
            model: plan.model.clone(),
            thinking_level: plan.thinking_level.clone(),
            messages,
            entry_ids: plan.items.iter().map(|it| s.id_of(it.entry)).collect(),
            hidden_entry_ids: plan.hidden.iter().map(|&i| s.id_of(i)).collect(),
            compaction_id: plan.compaction.map(|i| s.id_of(i).to_string()),
            edited: plan.edits.iter().map(|r| EditRef { id: s.id_of(r.target).to_string(), edit_id: s.id_of(r.edit).to_string(), dropped: r.dropped }).collect(),
        })
    }
}

/// A plain-text drawing of the tree, one line per entry: `*` marks the active path, `@` the
/// leaf; a branch point indents its children (as pi's /tree does), at most 32 levels deep.
pub fn ascii_tree(s: &Session) -> String {
    use std::fmt::Write;
    let t = &s.tree;
    let ix = &s.index;
    let on_path: std::collections::HashSet<u32> = t.active_path().into_iter().collect();
    let leaf = t.leaf_index();
    let mut out = String::new();
    // (node, indent level, is a branch child, is the last sibling)
    let mut stack: Vec<(u32, u32, bool)> = t.roots.iter().rev().map(|&r| (r, 0, t.roots.len() > 1)).collect();
    while let Some((n, level, branch)) = stack.pop() {
        let e = &ix.entries[n as usize];
        let mark = if Some(n) == leaf { '@' } else if on_path.contains(&n) { '*' } else { ' ' };
        let shown = level.min(32) as usize;
        let indent = "  ".repeat(shown);
        let bullet = if branch { "+ " } else { "" };
        let what = match e.role().and_then(|r| r.as_str()) {
            Some(r) => format!("{} {}", e.kind.as_str(), r),
            None => e.kind.as_str().to_string(),
        };
        let label = e.id.as_ref().and_then(|id| t.labels.get(id)).map(|l| format!(" [{}]", l.text)).unwrap_or_default();
        let _ = writeln!(out, "{mark} {indent}{bullet}{} {what}{label}  (line {})", e.id_str(), e.line);
        let kids = &t.children[n as usize];
        let fan = kids.len() > 1;
        for &c in kids.iter().rev() {
            stack.push((c, if fan { level + 1 } else { level }, fan));
        }
    }
    if t.leaf == Leaf::Null {
        out.push_str("@ (leaf: before the first entry)\n");
    }
    out
}

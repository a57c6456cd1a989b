//! The snapshot's encoding, written: each value of the index and the tree, in the layout that
//! `codec.rs` documents (the reader sits beside the decoder there).

use pi_session_format::diag::Diagnostic;
use pi_session_format::entry::{Detail, Entry, MessageMeta, Parent, Usage};
use pi_session_format::header::{FileStamp, Header};

use super::super::super::ScanState;
use super::super::lazy::BlockAt;
use super::{KINDS, ROLES};
use crate::tree::{Leaf, Tree};

pub(in crate::session::snapshot) struct Writer<'a>(pub(in crate::session::snapshot) &'a mut Vec<u8>);

impl Writer<'_> {
    pub(super) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(super) fn bool(&mut self, v: bool) {
        self.u8(v as u8);
    }
    pub(super) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(super) fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    pub(in crate::session::snapshot) fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    pub(super) fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }
    pub(super) fn opt_f64(&mut self, v: Option<f64>) {
        self.opt_u64(v.map(f64::to_bits));
    }
    pub(super) fn opt_u64(&mut self, v: Option<u64>) {
        match v {
            Some(v) => {
                self.u8(1);
                self.u64(v);
            }
            None => self.u8(0),
        }
    }
    pub(super) fn stamp(&mut self, s: &FileStamp) {
        self.u64(s.len);
        self.u64(s.mtime_ns as u64);
        self.u64(s.ino);
    }
    pub(super) fn usage(&mut self, u: Option<&Usage>) {
        match u {
            Some(u) => {
                self.u8(1);
                for v in [u.input, u.output, u.cache_read, u.cache_write, u.total_tokens, u.cost] {
                    self.f64(v);
                }
            }
            None => self.u8(0),
        }
    }
    pub(super) fn opt_header(&mut self, h: Option<&Header>) {
        let Some(h) = h else { return self.u8(0) };
        self.u8(1);
        self.u32(h.line);
        self.opt_f64(h.version);
        for s in [&h.id, &h.timestamp, &h.cwd, &h.parent_session] {
            self.opt_str(s.as_deref());
        }
        self.bool(h.v4);
        self.str(&h.raw);
    }
    pub(super) fn diags(&mut self, d: &[Diagnostic]) {
        self.u32(d.len() as u32);
        for d in d {
            self.opt_u64(d.line.map(u64::from));
            self.str(d.kind.as_str());
            self.u8(d.severity as u8);
            self.str(&d.message);
        }
    }
    pub(super) fn scan(&mut self, s: &ScanState) {
        self.u32(s.next_line);
        self.u32(s.parsed_values);
        self.bool(s.crlf_seen);
        self.u32(s.diag_counts.len() as u32);
        for (k, &n) in &s.diag_counts {
            self.str(k.as_str());
            self.u64(n as u64);
        }
        self.u32(s.blank_lines);
        self.bool(s.last_line_terminated);
        self.bool(s.seen_content);
        match &s.tail_candidate {
            Some(t) => {
                self.u8(1);
                self.u32(t.number);
                self.u64(t.offset);
                self.u32(t.len);
                self.str(&t.text);
                self.str(&t.error);
            }
            None => self.u8(0),
        }
    }
    pub(super) fn u32s(&mut self, v: &[u32]) {
        for &x in v {
            self.u32(x);
        }
    }
    pub(super) fn bools(&mut self, v: &[bool]) {
        self.0.extend(v.iter().map(|&b| b as u8));
    }
    pub(in crate::session::snapshot) fn tree(&mut self, t: &Tree) {
        self.u32(t.parent.len() as u32);
        for v in [&t.parent, &t.depth, &t.pre, &t.post] {
            self.u32s(v);
        }
        self.bools(&t.in_tree);
        self.bools(&t.in_cycle);
        for c in &t.children {
            self.u32(c.len() as u32);
        }
        for c in &t.children {
            self.u32s(c);
        }
        self.u32(t.roots.len() as u32);
        self.u32s(&t.roots);
        self.u32(t.labels.len() as u32);
        for (id, l) in &t.labels {
            self.str(id);
            self.str(&l.text);
            self.u32(l.line);
            self.u32(l.entry);
        }
        self.opt_str(t.name.as_deref());
        match t.leaf {
            Leaf::Null => self.u8(0),
            Leaf::Entry(i) => {
                self.u8(1);
                self.u32(i);
            }
        }
        self.diags(&t.diagnostics);
        self.u32(t.unresolved.len() as u32);
        for id in &t.unresolved {
            self.str(id);
        }
    }
    /// Writes an entry, and its message's meta (if any) to `metas`: true when it had one.
    pub(super) fn entry(&mut self, e: &Entry, metas: &mut Writer) -> bool {
        self.u32(e.line);
        self.u64(e.offset);
        self.u32(e.len);
        self.f64(e.ts);
        let kind = KINDS.iter().position(|k| *k == e.kind);
        self.u8(kind.map_or(255, |k| k as u8));
        if kind.is_none() {
            self.str(e.kind.as_str());
        }
        self.opt_str(e.id.as_deref());
        match &e.parent {
            Parent::Null => self.u8(0),
            Parent::Missing => self.u8(1),
            Parent::Id(p) => {
                self.u8(2);
                self.str(p);
            }
            Parent::Invalid => self.u8(3),
        }
        if let Detail::Message { meta: Some(m), .. } = &e.detail {
            metas.meta(m);
        }
        self.detail(&e.detail);
        e.meta().is_some()
    }
    /// Where a block's metas are in the metas section.
    pub(super) fn block_at(&mut self, b: &BlockAt) {
        self.u32(b.count);
        self.u64(b.at);
        self.u32(b.len);
        self.u64(b.sum);
    }
    pub(super) fn meta(&mut self, m: &MessageMeta) {
        for s in [&m.provider, &m.model, &m.stop_reason] {
            self.opt_str(s.as_deref());
        }
        self.usage(m.usage.as_ref());
        self.opt_str(m.tool_name.as_deref());
        self.bool(m.is_error);
    }
    pub(super) fn detail(&mut self, d: &Detail) {
        match d {
            Detail::None => self.u8(0),
            Detail::Message { role, msg_ts, meta } => {
                self.u8(1);
                match ROLES.iter().position(|r| r == role) {
                    Some(i) => self.u8(i as u8),
                    None => {
                        self.u8(255);
                        self.str(role.as_str().unwrap_or(""));
                    }
                }
                self.opt_f64(*msg_ts);
                // The meta itself is in the metas section.
                self.bool(meta.is_some());
            }
            Detail::ThinkingLevel(l) => {
                self.u8(2);
                self.opt_str(l.as_deref());
            }
            Detail::ModelChange { provider, model_id } => {
                self.u8(3);
                self.opt_str(provider.as_deref());
                self.opt_str(model_id.as_deref());
            }
            Detail::Compaction { first_kept, first_kept_index, retained_tail, system_message, usage } => {
                self.u8(4);
                self.opt_str(first_kept.as_deref());
                self.opt_u64(first_kept_index.map(|v| v as u64));
                self.opt_u64(retained_tail.map(u64::from));
                self.bool(*system_message);
                self.usage(usage.as_deref());
            }
            Detail::BranchSummary { from_id, summary_truthy, usage } => {
                self.u8(5);
                self.opt_str(from_id.as_deref());
                self.bool(*summary_truthy);
                self.usage(usage.as_deref());
            }
            Detail::Usage { usage } => {
                self.u8(6);
                self.usage(usage.as_deref());
            }
            Detail::ContextEdit { target, replacement } => {
                self.u8(7);
                self.opt_str(target.as_deref());
                self.u8(*replacement as u8);
            }
            Detail::Label { target, label } => {
                self.u8(8);
                self.opt_str(target.as_deref());
                self.opt_str(label.as_deref());
            }
            Detail::SessionInfo { name } => {
                self.u8(9);
                self.opt_str(name.as_deref());
            }
            Detail::Leaf { target, target_valid } => {
                self.u8(10);
                self.opt_str(target.as_deref());
                self.bool(*target_valid);
            }
            Detail::CustomMessage { custom_type } => {
                self.u8(11);
                self.opt_str(custom_type.as_deref());
            }
            Detail::Custom { custom_type } => {
                self.u8(12);
                self.opt_str(custom_type.as_deref());
            }
        }
    }
}

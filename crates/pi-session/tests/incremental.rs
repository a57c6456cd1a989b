//! Property: random append-only histories (branches, labels, navigations, compactions, names,
//! torn writes completed later, the odd duplicate id or forward reference) give the same tree
//! and context when read incrementally (refresh after every chunk) as when read whole.

use std::io::Write;

use pi_session::tree::Leaf;
use pi_session::session::CacheUse;
use pi_session::{Diagnostic, Session};
use proptest::prelude::*;
use serde_json::json;

#[derive(Debug, Clone)]
enum Op {
    /// A message under the current leaf (or, with `branch`, under an earlier entry).
    Message { user: bool, branch: Option<usize> },
    Label { target: usize, clear: bool },
    Navigate { target: Option<usize> },
    Compaction { keep: usize },
    Name(u8),
    /// A line whose id repeats an earlier one.
    Duplicate { of: usize },
    /// A line whose parent appears only later.
    Forward,
    /// Flush what was written so far, possibly cutting the last line in two.
    Flush { cut: bool },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (any::<bool>(), prop::option::weighted(0.25, 0usize..1000)).prop_map(|(user, branch)| Op::Message { user, branch }),
        2 => (0usize..1000, any::<bool>()).prop_map(|(target, clear)| Op::Label { target, clear }),
        2 => prop::option::weighted(0.9, 0usize..1000).prop_map(|target| Op::Navigate { target }),
        1 => (0usize..1000).prop_map(|keep| Op::Compaction { keep }),
        1 => any::<u8>().prop_map(Op::Name),
        1 => (0usize..1000).prop_map(|of| Op::Duplicate { of }),
        1 => Just(Op::Forward),
        4 => any::<bool>().prop_map(|cut| Op::Flush { cut }),
    ]
}

struct Writer {
    ids: Vec<String>,
    leaf: Option<String>,
    pending: Vec<u8>,
    n: usize,
    forward: Option<String>,
}

impl Writer {
    fn ts(&mut self) -> String {
        self.n += 1;
        // Some equal timestamps, so sibling order also rests on file order.
        format!("2026-01-01T00:{:02}:{:02}.000Z", (self.n / 2) / 60 % 60, (self.n / 2) % 60)
    }
    fn fresh(&mut self) -> String {
        format!("{:08x}", self.ids.len() * 7919 + 17)
    }
    fn pick(&self, k: usize) -> Option<String> {
        (!self.ids.is_empty()).then(|| self.ids[k % self.ids.len()].clone())
    }
    fn line(&mut self, v: serde_json::Value, id: Option<String>, moves_leaf: bool) {
        self.pending.extend_from_slice(v.to_string().as_bytes());
        self.pending.push(b'\n');
        if let Some(id) = id {
            self.ids.push(id.clone());
            if moves_leaf {
                self.leaf = Some(id);
            }
        }
    }
    fn apply(&mut self, op: &Op) {
        match op {
            Op::Message { user, branch } => {
                let parent = match branch {
                    Some(b) => self.pick(*b),
                    None => self.leaf.clone(),
                };
                let id = self.fresh();
                let ts = self.ts();
                let msg = if *user {
                    json!({"role":"user","content":format!("question {id}"),"timestamp":1})
                } else {
                    json!({"role":"assistant","content":[{"type":"text","text":format!("answer {id}")}],"provider":"p","model":"m","usage":{"totalTokens":5},"stopReason":"stop","timestamp":2})
                };
                self.line(json!({"type":"message","id":id,"parentId":parent,"timestamp":ts,"message":msg}), Some(id.clone()), true);
            }
            Op::Label { target, clear } => {
                let Some(t) = self.pick(*target) else { return };
                let id = self.fresh();
                let ts = self.ts();
                let mut v = json!({"type":"label","id":id,"parentId":self.leaf,"timestamp":ts,"targetId":t});
                if !clear {
                    v["label"] = format!("L{}", self.n).into();
                }
                self.line(v, Some(id), true);
            }
            Op::Navigate { target } => {
                let t = target.and_then(|k| self.pick(k));
                let id = self.fresh();
                let ts = self.ts();
                self.line(json!({"type":"leaf","id":id,"parentId":t,"timestamp":ts,"targetId":t}), Some(id), false);
                self.leaf = t;
            }
            Op::Compaction { keep } => {
                let Some(k) = self.pick(*keep) else { return };
                let id = self.fresh();
                let ts = self.ts();
                self.line(json!({"type":"compaction","id":id,"parentId":self.leaf,"timestamp":ts,"summary":"S","firstKeptEntryId":k,"tokensBefore":10}), Some(id), true);
            }
            Op::Name(n) => {
                let id = self.fresh();
                let ts = self.ts();
                let name = if n % 5 == 0 { String::new() } else { format!("name {n}") };
                self.line(json!({"type":"session_info","id":id,"parentId":self.leaf,"timestamp":ts,"name":name}), Some(id), true);
            }
            Op::Duplicate { of } => {
                let Some(dup) = self.pick(*of) else { return };
                let ts = self.ts();
                self.line(json!({"type":"message","id":dup,"parentId":self.leaf,"timestamp":ts,"message":{"role":"user","content":"again","timestamp":3}}), None, false);
                self.leaf = Some(dup);
            }
            Op::Forward => {
                if let Some(f) = self.forward.take() {
                    // Now write the entry that an earlier line named as its parent.
                    let ts = self.ts();
                    self.line(json!({"type":"message","id":f,"parentId":self.leaf,"timestamp":ts,"message":{"role":"user","content":"late parent","timestamp":4}}), Some(f.clone()), true);
                } else {
                    let future = format!("f{:07x}", self.n);
                    let id = self.fresh();
                    let ts = self.ts();
                    self.line(json!({"type":"message","id":id,"parentId":future,"timestamp":ts,"message":{"role":"user","content":"orphan for now","timestamp":5}}), Some(id.clone()), true);
                    self.forward = Some(future);
                }
            }
            Op::Flush { .. } => {}
        }
    }
}

fn header() -> Vec<u8> {
    let mut h = json!({"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}).to_string().into_bytes();
    h.push(b'\n');
    h
}

fn sorted(mut d: Vec<Diagnostic>) -> Vec<(Option<u32>, String, String)> {
    d.sort_by(|a, b| (a.line, a.kind.as_str(), &a.message).cmp(&(b.line, b.kind.as_str(), &b.message)));
    d.into_iter().map(|d| (d.line, d.kind.as_str().to_string(), d.message)).collect()
}

fn assert_same(inc: &Session, full: &Session) {
    let (a, b) = (&inc.tree, &full.tree);
    assert_eq!(inc.index.entries, full.index.entries);
    assert_eq!(a.parent, b.parent, "parents");
    assert_eq!(a.children, b.children, "children order");
    assert_eq!(a.roots, b.roots, "roots");
    assert_eq!(a.in_tree, b.in_tree);
    assert_eq!(a.depth, b.depth);
    assert_eq!(a.labels, b.labels, "labels");
    assert_eq!(a.name, b.name, "name");
    assert_eq!(a.leaf, b.leaf, "leaf");
    assert_eq!(sorted(inc.diagnostics()), sorted(full.diagnostics()), "diagnostics");
    let mut leaves = vec![a.leaf, Leaf::Null];
    leaves.extend((0..a.parent.len() as u32).filter(|&i| a.in_tree[i as usize]).step_by(7).map(Leaf::Entry));
    for leaf in leaves {
        let (x, y) = (inc.context(leaf), full.context(leaf));
        assert_eq!(x, y, "context at {leaf:?}");
        let (mx, my) = (x.materialize(&inc.index).unwrap(), y.materialize(&full.index).unwrap());
        let s = |v: Vec<Box<serde_json::value::RawValue>>| v.into_iter().map(|r| r.get().to_string()).collect::<Vec<_>>();
        assert_eq!(s(mx), s(my));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn incremental_equals_full_reload(ops in prop::collection::vec(op(), 1..120)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, header()).unwrap();
        let mut inc = Session::open(&path).unwrap();
        // A third reader opens through the skeleton cache after every chunk: it must see what a
        // full read sees, extending its snapshot when the file only grew.
        let cache = tempfile::tempdir().unwrap();
        let mut cached_len = None;
        let mut w = Writer { ids: vec![], leaf: None, pending: vec![], n: 0, forward: None };
        let mut held: Vec<u8> = Vec::new();
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        for op in ops.iter().chain(std::iter::once(&Op::Flush { cut: false })) {
            w.apply(op);
            if let Op::Flush { cut } = op {
                let mut out = std::mem::take(&mut held);
                out.append(&mut w.pending);
                if *cut && out.len() > 4 {
                    // Write all but the tail of the last line: a torn line for now.
                    let keep = out.len() - 3;
                    held = out.split_off(keep);
                }
                f.write_all(&out).unwrap();
                f.flush().unwrap();
                inc.refresh().unwrap();
                let full = Session::open(&path).unwrap();
                assert_same(&inc, &full);
                let (cached, used) = Session::open_with_cache(&path, cache.path(), 0).unwrap();
                let len = std::fs::metadata(&path).unwrap().len();
                match cached_len {
                    None => prop_assert_eq!(used, CacheUse::Miss),
                    Some(l) if l == len => prop_assert_eq!(used, CacheUse::Hit),
                    Some(_) => prop_assert!(matches!(used, CacheUse::Extended | CacheUse::Miss), "{:?}", used),
                }
                cached_len = Some(len);
                assert_same(&cached, &full);
            }
        }
    }
}

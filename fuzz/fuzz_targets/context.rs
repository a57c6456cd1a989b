//! Any bytes as a whole session file: the context (pi's `buildSessionContext`) at the leaf,
//! at null and at several nodes, with every message read from memory, and the summary of the
//! list, must not panic; every message is valid JSON and every item lies on the path.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_session::context::{message_for_item, BodyReader};
use pi_session::summary::SessionSummary;
use pi_session::{ContextPlan, Leaf, Session};

fuzz_target!(|data: &[u8]| {
    let s = Session::from_bytes("fuzz.jsonl", data);
    let n = s.index.entries.len() as u32;
    let mut leaves = vec![s.tree.leaf, Leaf::Null];
    // The leaf, the last entries, and a few spread over the file.
    for i in [0, 1, n / 3, n / 2, n.saturating_sub(2), n.saturating_sub(1)] {
        if i < n && s.tree.in_tree[i as usize] {
            leaves.push(Leaf::Entry(i));
        }
    }
    for leaf in leaves {
        let plan = ContextPlan::build(&s.index, &s.tree, leaf);
        let mut r = BodyReader::from_memory(&s.index, data);
        for it in &plan.items {
            assert!(plan.path.contains(&it.entry), "context item {} is not on the path", it.entry);
            if let Ok(m) = message_for_item(&s.index, &mut r, *it) {
                assert!(serde_json::from_str::<serde::de::IgnoredAny>(m.get()).is_ok(), "a context message is not JSON");
            }
        }
        for &h in &plan.hidden {
            assert!(plan.path.contains(&h), "hidden entry {h} is not on the path");
        }
    }
    let _ = SessionSummary::of_bytes(&s, data.len() as u64, data);
    let _ = pi_session::view::ascii_tree(&s);
});

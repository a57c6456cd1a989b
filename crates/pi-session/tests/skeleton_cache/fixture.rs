//! What the skeleton cache's tests compare (what a reader can observe of a session) and the
//! session they read; shared with the app's test of the cache (`crates/pi-session-app/tests`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use pi_session::{Session, SessionIndex};

/// What a reader can observe of a session: its index and its tree.
pub fn observable(s: &Session) -> String {
    let t = &s.tree;
    let mut labels: Vec<_> = t.labels.iter().map(|(k, v)| format!("{k}={v:?}")).collect();
    labels.sort();
    let mut d: Vec<_> = t.diagnostics.iter().map(|d| format!("{d:?}")).collect();
    d.sort();
    format!(
        "{}\n{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {labels:?} {d:?} {:?}",
        index_view(&s.index),
        t.parent,
        t.children,
        t.roots,
        t.in_tree,
        t.depth,
        t.pre,
        t.post,
        t.name,
        t.leaf,
        t.in_cycle
    )
}

/// What a reader can observe of an index.
pub fn index_view(ix: &SessionIndex) -> String {
    let mut ids: Vec<_> = ix.by_id.iter().map(|(k, v)| (k.to_string(), v)).collect();
    ids.sort();
    let mut d: Vec<_> = ix.diagnostics.iter().map(|d| format!("{d:?}")).collect();
    d.sort();
    format!(
        "{:?}\n{:?}\n{ids:?}\n{d:?}\n{:?} {} {} {} {:?} {} {:?}",
        ix.header,
        ix.entries,
        ix.stamp,
        ix.header_ok,
        ix.read_len,
        ix.has_unterminated_tail(),
        ix.read_only(),
        pi_session::DiagKind::ALL.iter().map(|&k| ix.count(k)).sum::<usize>(),
        pi_session::context::Dialect::of(ix)
    )
}

pub fn full(path: &Path) -> String {
    observable(&Session::open(path).unwrap())
}

/// A session with branches, labels and a torn last line.
pub fn session(dir: &Path) -> PathBuf {
    session_of(dir, 400)
}

/// [`session`] with `n` messages.
pub fn session_of(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("s.jsonl");
    let mut s = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n");
    let mut parent = "null".to_string();
    for i in 0..n {
        let id = format!("{:08x}", i + 1);
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        s += &format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:{:02}:{:02}.000Z\",\"message\":{{\"role\":\"{role}\",\"content\":[{{\"type\":\"text\",\"text\":\"line {i} \\u00e9\"}}],\"provider\":\"p\",\"model\":\"m\",\"usage\":{{\"input\":1,\"output\":2,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":3,\"cost\":{{\"total\":0.5}}}}}}}}\n",
            i / 60 % 60,
            i % 60
        );
        // Every tenth entry starts a branch off an earlier one.
        parent = if i % 10 == 9 { format!("\"{:08x}\"", i / 2 + 1) } else { format!("\"{id}\"") };
    }
    s += "{\"type\":\"label\",\"id\":\"aaaaaaaa\",\"parentId\":\"00000190\",\"timestamp\":\"2026-01-01T01:00:00.000Z\",\"targetId\":\"00000010\",\"label\":\"here\"}\n";
    s += "{\"type\":\"message\",\"id\":\"bbbbbbbb\",\"parentId\":\"aaaaaaaa\",\"timestamp\":\"2026";
    std::fs::write(&path, s).unwrap();
    path
}

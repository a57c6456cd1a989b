//! Branch diff on hand-built trees, against golden files in `tests/golden/` (the text view and
//! the JSON). `UPDATE_GOLDEN=1 cargo test -p pi-session --test diff` rewrites them; review the
//! change before committing.

use std::path::Path;

use pi_session::diff::{ascii, diff};
use pi_session::write::{fork, WriteOptions};
use pi_session::{Error, Session};

const HEAD: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}"#;

fn user(id: &str, parent: Option<&str>, n: u32, text: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{},"timestamp":"2026-03-01T10:00:{n:02}.000Z","message":{{"role":"user","content":"{text}","timestamp":{}}}}}"#,
        parent.map(|p| format!("\"{p}\"")).unwrap_or("null".into()),
        1772359200000u64 + n as u64 * 1000
    )
}

fn assistant(id: &str, parent: &str, n: u32, text: &str, tool: Option<(&str, &str)>, tokens: (u32, u32), cost: f64) -> String {
    let call = tool.map(|(name, args)| format!(r#",{{"type":"toolCall","id":"c{id}","name":"{name}","arguments":{args}}}"#)).unwrap_or_default();
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-03-01T10:00:{n:02}.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}{call}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{{"input":{},"output":{},"cacheRead":0,"cacheWrite":0,"totalTokens":{},"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":{cost}}}}},"stopReason":"stop","timestamp":{}}}}}"#,
        tokens.0,
        tokens.1,
        tokens.0 + tokens.1,
        1772359200000u64 + n as u64 * 1000
    )
}

fn write(dir: &Path, name: &str, lines: &[String]) -> std::path::PathBuf {
    let p = dir.join(name);
    let mut text = format!("{HEAD}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    std::fs::write(&p, text).unwrap();
    p
}

/// Compares the text view and the JSON with the golden files (paths made relative first).
fn golden(name: &str, d: &pi_session::diff::BranchDiff, dir: &Path) {
    let real = std::fs::canonicalize(dir).unwrap();
    let scrub = |s: String| s.replace(&real.to_string_lossy().to_string(), "<dir>").replace(&dir.to_string_lossy().to_string(), "<dir>");
    let mut text = scrub(ascii(d, 140));
    text.push_str("\n--- json\n");
    text.push_str(&scrub(serde_json::to_string_pretty(d).unwrap()));
    text.push('\n');
    // A fork's file name carries the time and a fresh id.
    let re_fork = |s: &str| {
        s.split('\n')
            .map(|l| match (l.find("<dir>/20"), l.find(".jsonl")) {
                (Some(a), Some(b)) if b > a => format!("{}<dir>/<fork>{}", &l[..a], &l[b..]),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let text = re_fork(&text);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("no golden file {} (UPDATE_GOLDEN=1 writes it)", path.display()));
    assert_eq!(text, want, "{name}: the diff differs from {}", path.display());
}

#[test]
fn ancestor_is_the_root() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "root.jsonl",
        &[
            user("u1", None, 1, "make the parser faster"),
            assistant("a1", "u1", 2, "I will rewrite the scanner", Some(("edit", r#"{"path":"src/scan.rs","oldText":"a","newText":"b"}"#)), (1000, 100), 0.01),
            user("u2", Some("a1"), 3, "now add a test"),
            assistant("a2", "u2", 4, "added", Some(("write", r#"{"path":"tests/scan.rs","content":"fn t(){}"}"#)), (1200, 80), 0.02),
            assistant("b1", "u1", 5, "I will add an index instead", Some(("bash", r#"{"command":"cargo bench"}"#)), (900, 300), 0.05),
        ],
    );
    let s = Session::open(&f).unwrap();
    let d = diff(&s, "a2", &s, "b1").unwrap();
    assert_eq!(d.ancestor.as_ref().map(|a| a.id.as_str()), Some("u1"));
    assert_eq!(d.a.files_touched, ["src/scan.rs", "tests/scan.rs"]);
    assert!(d.b.files_touched.is_empty());
    assert_eq!((d.a.usage.input, d.b.usage.output), (2200.0, 300.0));
    assert_eq!(d.context_shared, 1);
    golden("diff-root", &d, dir.path());
}

#[test]
fn ancestor_inside_a_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "compacted.jsonl",
        &[
            user("u1", None, 1, "first question"),
            assistant("a1", "u1", 2, "first answer", None, (500, 50), 0.005),
            user("u2", Some("a1"), 3, "second question"),
            assistant("a2", "u2", 4, "second answer", Some(("edit", r#"{"path":"lib.rs"}"#)), (600, 60), 0.006),
            r#"{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-03-01T10:00:05.000Z","summary":"We discussed two questions.","firstKeptEntryId":"u2","tokensBefore":1200}"#.to_string(),
            user("u3", Some("c1"), 6, "third question"),
            assistant("a3", "u3", 7, "third answer", None, (300, 30), 0.003),
            r#"{"type":"thinking_level_change","id":"t1","parentId":"a1","timestamp":"2026-03-01T10:00:08.000Z","thinkingLevel":"high"}"#.to_string(),
            user("u4", Some("t1"), 9, "a different second question"),
            assistant("a4", "u4", 10, "a different answer", Some(("write", r#"{"path":"other.rs"}"#)), (700, 70), 0.007),
        ],
    );
    let s = Session::open(&f).unwrap();
    let d = diff(&s, "a3", &s, "a4").unwrap();
    assert_eq!(d.ancestor.as_ref().map(|a| a.id.as_str()), Some("a1"));
    // A's context starts with the summary: the ancestor is hidden by the compaction there.
    assert_eq!(d.context[0].role, "compactionSummary");
    assert_eq!(d.context_shared, 0);
    assert_eq!((d.a.context_messages, d.b.context_messages), (5, 4));
    assert_eq!(d.b.thinking_level.as_deref(), Some("high"));
    golden("diff-compaction", &d, dir.path());
}

#[test]
fn across_a_fork() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "source.jsonl",
        &[
            user("u1", None, 1, "plan the release"),
            assistant("a1", "u1", 2, "here is a plan", None, (400, 40), 0.004),
            user("u2", Some("a1"), 3, "ship it"),
            assistant("a2", "u2", 4, "shipped", Some(("bash", r#"{"command":"git tag v1"}"#)), (500, 50), 0.005),
        ],
    );
    let forked = fork(&f, Some("a1"), &WriteOptions::default()).unwrap().file;
    let mut extra = std::fs::OpenOptions::new().append(true).open(&forked).unwrap();
    use std::io::Write;
    writeln!(extra, "{}", user("u5", Some("a1"), 5, "wait, write the changelog first")).unwrap();
    writeln!(extra, "{}", assistant("a5", "u5", 6, "changelog written", Some(("write", r#"{"path":"CHANGELOG.md"}"#)), (800, 90), 0.009)).unwrap();
    drop(extra);
    let sa = Session::open(&f).unwrap();
    let sb = Session::open(&forked).unwrap();
    let d = diff(&sa, "a2", &sb, "a5").unwrap();
    assert_eq!(d.ancestor.as_ref().map(|a| (a.id.as_str(), a.depth_a, a.depth_b)), Some(("a1", 1, 1)));
    assert_eq!(d.b.files_touched, ["CHANGELOG.md"]);
    assert_eq!(d.context_shared, 2);
    golden("diff-fork", &d, dir.path());

    // Two files that are not one family are refused.
    let other = write(dir.path(), "other.jsonl", &[user("u1", None, 1, "plan the release"), assistant("a1", "u1", 2, "here is a plan", None, (400, 40), 0.004)]);
    let so = Session::open(&other).unwrap();
    assert!(matches!(diff(&sa, "a2", &so, "a1"), Err(Error::NotRelated { .. })));
}

//! The damage folder shared by the core's test (`tests/damage.rs`) and the CLI's
//! (`pi-session-cli/tests/damage_cli.rs`): every committed example of `tests/damage/` copied
//! into a temporary sessions root, beside the examples that are big or depend on absolute
//! paths, which are generated here. docs/damage.md describes each kind.

#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

/// The committed examples (path under the folder) and the diagnostic kinds expected for each.
pub const COMMITTED: &[(&str, &[&str])] = &[
    ("good-linear.jsonl", &[]),
    ("--home-alice-proj--/good-branched.jsonl", &[]),
    ("good-compacted.jsonl", &[]),
    ("torn-tail.jsonl", &["torn-tail"]),
    ("malformed-line.jsonl", &["malformed-line"]),
    ("garbage-before-header.jsonl", &["malformed-line"]),
    ("blank-lines.jsonl", &["blank-line"]),
    ("bom.jsonl", &["bom", "refused-by-pi1"]),
    ("nbsp-before-header.jsonl", &["refused-by-pi1"]),
    ("crlf.jsonl", &["crlf"]),
    ("invalid-utf8.jsonl", &["invalid-utf8"]),
    ("lone-surrogate.jsonl", &["lone-surrogate"]),
    ("missing-header.jsonl", &["missing-header"]),
    ("second-header.jsonl", &["second-header"]),
    ("empty.jsonl", &["empty-file"]),
    ("header-only.jsonl", &["header-only"]),
    ("v1.jsonl", &["old-version"]),
    ("v2.jsonl", &["old-version"]),
    ("v4.jsonl", &["future-version"]),
    ("unknown-type.jsonl", &["unknown-type"]),
    ("not-an-object.jsonl", &["not-an-object"]),
    ("null-line.jsonl", &["not-an-object"]),
    ("deep-nesting.jsonl", &[]),
    ("missing-id.jsonl", &["missing-id"]),
    ("missing-parent.jsonl", &["missing-parent"]),
    ("self-parent.jsonl", &["self-parent"]),
    ("parent-cycle.jsonl", &["parent-cycle"]),
    ("duplicate-id.jsonl", &["duplicate-id"]),
    ("dangling-first-kept.jsonl", &["dangling-first-kept"]),
    ("dangling-label-target.jsonl", &["dangling-target"]),
    ("dangling-leaf-target.jsonl", &["dangling-target"]),
    ("dangling-from.jsonl", &["dangling-from"]),
    ("parent-session-missing.jsonl", &["parent-session-missing"]),
    ("parent-session-relative.jsonl", &["parent-session-relative"]),
    ("notes.jsonl", &["not-a-session"]),
    ("other-tool.jsonl", &["not-a-session"]),
];

/// The severity of each kind, as docs/damage.md lists it.
pub const SEVERITY: &[(&str, &str)] = &[
    ("torn-tail", "warning"),
    ("malformed-line", "error"),
    ("not-an-object", "error"),
    ("blank-line", "info"),
    ("bom", "info"),
    ("refused-by-pi1", "warning"),
    ("crlf", "info"),
    ("invalid-utf8", "warning"),
    ("lone-surrogate", "warning"),
    ("huge-line", "warning"),
    ("missing-header", "error"),
    ("second-header", "warning"),
    ("empty-file", "warning"),
    ("header-only", "info"),
    ("old-version", "warning"),
    ("future-version", "warning"),
    ("unknown-type", "info"),
    ("missing-id", "error"),
    ("missing-parent", "warning"),
    ("self-parent", "error"),
    ("parent-cycle", "error"),
    ("duplicate-id", "error"),
    ("dangling-first-kept", "warning"),
    ("dangling-target", "warning"),
    ("dangling-from", "warning"),
    ("parent-session-missing", "warning"),
    ("parent-session-relative", "info"),
    ("parent-session-cycle", "error"),
    ("parent-session-relinked", "info"),
    ("parent-session-mismatch", "warning"),
    ("parent-session-outside", "info"),
    ("not-a-file", "warning"),
    ("not-a-session", "warning"),
    ("symlink", "info"),
    ("symlink-outside-root", "warning"),
    ("unreadable", "error"),
];

pub fn severity_of(kind: &str) -> &'static str {
    SEVERITY.iter().find(|(k, _)| *k == kind).map(|(_, s)| *s).unwrap_or_else(|| panic!("kind {kind} is not in the table"))
}

/// A session that must be listed with exactly these values.
pub struct Good {
    pub rel: &'static str,
    pub id: &'static str,
    pub leaf: &'static str,
    pub entries: usize,
}

pub const GOOD: &[Good] = &[
    Good { rel: "good-linear.jsonl", id: "019caf2b-a8c0-7719-a0e6-000000000001", leaf: "a1000000", entries: 4 },
    Good { rel: "--home-alice-proj--/good-branched.jsonl", id: "019caf2b-a8c0-7719-a0e6-000000000002", leaf: "s1000000", entries: 8 },
    Good { rel: "good-compacted.jsonl", id: "019caf2b-a8c0-7719-a0e6-000000000003", leaf: "a2000000", entries: 8 },
    // Generated: a fork of good-linear (absolute parentSession), and the session with a huge line.
    Good { rel: "fork-ok.jsonl", id: "019caf2b-a8c0-7719-a0e6-000000000050", leaf: "f2000000", entries: 6 },
    Good { rel: "huge-line.jsonl", id: "019caf2b-a8c0-7719-a0e6-000000000060", leaf: "h2000000", entries: 2 },
];

/// Paths that must not be listed at all (not `*.jsonl`, hidden, too deep, inside a directory
/// named `*.jsonl`).
pub const IGNORED: &[&str] = &["README.txt", ".hidden.jsonl", "--home-alice-proj--/deeper/too-deep.jsonl", "folder.jsonl/inner.jsonl"];

/// The size of the line of `huge-line.jsonl`: above the 30 MB mark.
pub const HUGE_CONTENT: usize = 31 * 1024 * 1024 + 12345;

/// The folder and what each path in it should give.
pub struct Folder {
    pub root: PathBuf,
    pub cases: Vec<(String, Vec<&'static str>)>,
    pub largest_file: u64,
    /// Kinds of damage that could not be set up here (e.g. permissions as root).
    pub skipped: Vec<String>,
}

fn header(n: u32, parent: Option<&Path>) -> String {
    let mut h = format!(
        r#"{{"type":"session","version":3,"id":"019caf2b-a8c0-7719-a0e6-{n:012}","timestamp":"2026-03-02T15:30:00.000Z","cwd":"/home/alice/proj""#
    );
    if let Some(p) = parent {
        h.push_str(&format!(r#","parentSession":{}"#, json_str(&p.to_string_lossy())));
    }
    h.push('}');
    h
}

fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn user(id: &str, parent: Option<&str>, text: &str, s: u32) -> String {
    let parent = parent.map(|p| format!("\"{p}\"")).unwrap_or_else(|| "null".into());
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-03-02T15:40:{s:02}.000Z","message":{{"role":"user","content":{},"timestamp":{}}}}}"#,
        json_str(text),
        1_772_466_000_000u64 + s as u64 * 1000
    )
}

fn assistant(id: &str, parent: &str, text: &str, s: u32) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-03-02T15:40:{s:02}.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"stop","timestamp":{}}}}}"#,
        json_str(text),
        1_772_466_000_000u64 + s as u64 * 1000
    )
}

fn write_lines(path: &Path, lines: &[String]) {
    let mut s = String::new();
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    fs::write(path, s).unwrap();
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for ent in fs::read_dir(from).unwrap() {
        let ent = ent.unwrap();
        let name = ent.file_name();
        let ft = ent.file_type().unwrap();
        if ft.is_dir() {
            copy_tree(&ent.path(), &to.join(&name));
        } else if name.to_string_lossy().ends_with(".jsonl") {
            fs::copy(ent.path(), to.join(&name)).unwrap();
        }
    }
}

/// Builds the folder under `tmp`: the committed examples from `committed`, then the generated ones.
pub fn build(tmp: &Path, committed: &Path) -> Folder {
    let root = fs::canonicalize(tmp).unwrap().join("sessions");
    copy_tree(committed, &root);
    let mut cases: Vec<(String, Vec<&'static str>)> = COMMITTED.iter().map(|(p, k)| (p.to_string(), k.to_vec())).collect();
    let mut skipped = Vec::new();

    // A single line over 30 MB (in a session that is otherwise fine).
    let big = "x".repeat(HUGE_CONTENT);
    write_lines(
        &root.join("huge-line.jsonl"),
        &[header(60, None), user("h1000000", None, &big, 1), assistant("h2000000", "h1000000", "that was long", 2)],
    );
    drop(big);
    cases.push(("huge-line.jsonl".into(), vec!["huge-line"]));

    // parentSession: a good fork (absolute path), a two-file cycle, a file that is its own parent.
    let linear = fs::read_to_string(root.join("good-linear.jsonl")).unwrap();
    let mut fork: Vec<String> = vec![header(50, Some(&root.join("good-linear.jsonl")))];
    fork.extend(linear.lines().skip(1).map(str::to_string));
    fork.push(user("f1000000", Some("a1000000"), "forked question", 10));
    fork.push(assistant("f2000000", "f1000000", "forked answer", 11));
    write_lines(&root.join("fork-ok.jsonl"), &fork);
    cases.push(("fork-ok.jsonl".into(), vec![]));
    let (a, b, own) = (root.join("fork-cycle-a.jsonl"), root.join("fork-cycle-b.jsonl"), root.join("fork-self.jsonl"));
    write_lines(&a, &[header(51, Some(&b)), user("c1000000", None, "a", 1)]);
    write_lines(&b, &[header(52, Some(&a)), user("c1000000", None, "b", 1)]);
    write_lines(&own, &[header(53, Some(&own)), user("c1000000", None, "me", 1)]);
    for n in ["fork-cycle-a.jsonl", "fork-cycle-b.jsonl", "fork-self.jsonl"] {
        cases.push((n.into(), vec!["parent-session-cycle"]));
    }
    // parentSession recorded where the parent is not: a folder moved since (found again by the
    // session id of the recorded name), a renamed file that holds another session, a parent
    // outside the root that no session of the root has the id of.
    let fork_of = |n: u32, parent: &Path| -> Vec<String> {
        let mut lines = vec![header(n, Some(parent))];
        lines.extend(linear.lines().skip(1).map(str::to_string));
        lines.push(user("f1000000", Some("a1000000"), "forked question", 10));
        lines
    };
    let moved = Path::new("/moved-away/sessions/--home-alice-proj--/2026-03-02T15-30-00-000Z_019caf2b-a8c0-7719-a0e6-000000000001.jsonl");
    write_lines(&root.join("parent-session-relinked.jsonl"), &fork_of(54, moved));
    cases.push(("parent-session-relinked.jsonl".into(), vec!["parent-session-relinked"]));
    let renamed = root.join("renamed_019caf2b-a8c0-7719-a0e6-000000000091.jsonl");
    let mut other: Vec<String> = vec![header(92, None)];
    other.extend(linear.lines().skip(1).map(str::to_string));
    write_lines(&renamed, &other);
    cases.push(("renamed_019caf2b-a8c0-7719-a0e6-000000000091.jsonl".into(), vec![]));
    write_lines(&root.join("parent-session-mismatch.jsonl"), &fork_of(55, &renamed));
    cases.push(("parent-session-mismatch.jsonl".into(), vec!["parent-session-mismatch"]));
    let elsewhere = root.parent().unwrap().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let outside_parent = elsewhere.join("2026-03-02T15-30-00-000Z_019caf2b-a8c0-7719-a0e6-000000000080.jsonl");
    let mut op: Vec<String> = vec![header(80, None)];
    op.extend(linear.lines().skip(1).map(str::to_string));
    write_lines(&outside_parent, &op);
    write_lines(&root.join("parent-session-outside.jsonl"), &fork_of(56, &outside_parent));
    cases.push(("parent-session-outside.jsonl".into(), vec!["parent-session-outside"]));

    // A directory named *.jsonl, with a session inside that is not listed (see IGNORED).
    fs::create_dir_all(root.join("folder.jsonl")).unwrap();
    fs::copy(root.join("good-linear.jsonl"), root.join("folder.jsonl").join("inner.jsonl")).unwrap();
    cases.push(("folder.jsonl".into(), vec!["not-a-file"]));

    // Symlinks: to a good session, dangling, and a loop.
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(root.join("good-linear.jsonl"), root.join("link-to-good.jsonl")).unwrap();
        cases.push(("link-to-good.jsonl".into(), vec!["symlink"]));
        symlink(root.join("gone.jsonl"), root.join("dangling-link.jsonl")).unwrap();
        cases.push(("dangling-link.jsonl".into(), vec!["unreadable"]));
        symlink(root.join("link-loop.jsonl"), root.join("link-loop.jsonl")).unwrap();
        cases.push(("link-loop.jsonl".into(), vec!["unreadable"]));
        // Links that leave the root (to a session file, to a folder of sessions): nothing
        // reads them. A link to a session inside the root that the scan does not list itself
        // (one folder too deep) is read at the link's path.
        let outside = root.parent().unwrap().join("outside");
        fs::create_dir_all(outside.join("--home-eve--")).unwrap();
        fs::copy(root.join("good-linear.jsonl"), outside.join("secret.jsonl")).unwrap();
        fs::copy(root.join("good-linear.jsonl"), outside.join("--home-eve--/secret.jsonl")).unwrap();
        symlink(outside.join("secret.jsonl"), root.join("link-outside.jsonl")).unwrap();
        cases.push(("link-outside.jsonl".into(), vec!["symlink-outside-root"]));
        symlink(outside.join("--home-eve--"), root.join("--linked-outside--")).unwrap();
        cases.push(("--linked-outside--".into(), vec!["symlink-outside-root"]));
        symlink(root.join("--home-alice-proj--/deeper/too-deep.jsonl"), root.join("link-to-deep.jsonl")).unwrap();
        cases.push(("link-to-deep.jsonl".into(), vec!["symlink"]));

        // A named pipe: opening it would block forever; it must never be opened.
        let fifo = root.join("pipe.jsonl");
        match std::process::Command::new("mkfifo").arg(&fifo).status() {
            Ok(s) if s.success() => cases.push(("pipe.jsonl".into(), vec!["not-a-file"])),
            _ => skipped.push("pipe.jsonl (mkfifo unavailable)".into()),
        }

        // A file that cannot be read (not testable with root privileges).
        use std::os::unix::fs::PermissionsExt;
        let locked = root.join("unreadable.jsonl");
        fs::copy(root.join("good-linear.jsonl"), &locked).unwrap();
        fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
        if fs::File::open(&locked).is_ok() {
            fs::remove_file(&locked).unwrap();
            skipped.push("unreadable.jsonl (running with privileges that read any file)".into());
        } else {
            cases.push(("unreadable.jsonl".into(), vec!["unreadable"]));
        }
    }

    // Never listed: not *.jsonl, hidden, one folder too deep.
    fs::write(root.join("README.txt"), "not a session\n").unwrap();
    fs::copy(root.join("good-linear.jsonl"), root.join(".hidden.jsonl")).unwrap();
    fs::create_dir_all(root.join("--home-alice-proj--/deeper")).unwrap();
    fs::copy(root.join("good-linear.jsonl"), root.join("--home-alice-proj--/deeper/too-deep.jsonl")).unwrap();

    let largest_file = cases.iter().filter_map(|(p, _)| fs::metadata(root.join(p)).ok()).filter(|m| m.is_file()).map(|m| m.len()).max().unwrap_or(0);
    Folder { root, cases, largest_file, skipped }
}

/// The committed examples, seen from a crate's manifest folder (`sibling`: another crate's than
/// `pi-session`'s).
pub fn committed_dir(manifest_dir: &str, sibling: bool) -> PathBuf {
    let m = Path::new(manifest_dir);
    if sibling {
        m.join("../pi-session/tests/damage")
    } else {
        m.join("tests/damage")
    }
}

impl Folder {
    /// Where the diagnostic kinds `got` (path → kinds) differ from the catalogue: a wrong set,
    /// or a path `what` that no case expects. Empty when they agree.
    pub fn mismatches<S: AsRef<str> + Ord + std::fmt::Debug>(&self, got: &std::collections::BTreeMap<String, std::collections::BTreeSet<S>>, what: &str) -> Vec<String> {
        let mut wrong = Vec::new();
        for (path, expected) in &self.cases {
            let expected: std::collections::BTreeSet<&str> = expected.iter().copied().collect();
            match got.get(path) {
                Some(k) if k.iter().map(AsRef::as_ref).collect::<std::collections::BTreeSet<&str>>() == expected => {}
                other => wrong.push(format!("{path}: expected {expected:?}, got {other:?}")),
            }
        }
        for path in got.keys() {
            if !self.cases.iter().any(|(p, _)| p == path) {
                wrong.push(format!("{path}: {what} but not expected"));
            }
        }
        wrong
    }
}

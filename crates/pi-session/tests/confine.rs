//! The path check of every command that names a file (`write::confine`, `Roots::confine`):
//! outside the root as written is `outside-root` before anything is looked up, so an outside
//! path gets the same answer whether it exists or not; a link that leaves the root is
//! `outside-root` too; the root itself may be a link.

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use pi_session::roots::{RootSpec, Roots};
use pi_session::write::{confine, lexical};

const SESSION: &str = "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n";

fn code(r: Result<PathBuf, pi_session::Error>) -> String {
    match r {
        Ok(p) => format!("ok {}", p.display()),
        Err(e) => e.code().to_string(),
    }
}

struct Fx {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

fn fx() -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("data/sessions");
    fs::create_dir_all(root.join("--w--")).unwrap();
    fs::write(root.join("--w--/in.jsonl"), SESSION).unwrap();
    fs::create_dir_all(base.join("outside")).unwrap();
    fs::write(base.join("outside/secret.jsonl"), SESSION).unwrap();
    symlink(base.join("outside/secret.jsonl"), root.join("--w--/leak.jsonl")).unwrap();
    symlink(base.join("outside"), root.join("--gone--")).unwrap();
    Fx { _tmp: tmp, base, root }
}

#[test]
fn outside_the_root_is_one_answer_whether_the_file_exists_or_not() {
    let f = fx();
    let root = Some(f.root.as_path());
    let outside = [
        f.base.join("outside/secret.jsonl"),
        f.base.join("outside/missing.jsonl"),
        PathBuf::from("/etc/shadow"),
        PathBuf::from("/nonexistent/x.jsonl"),
        f.root.join("../../outside/secret.jsonl"),
        f.root.join("../../outside/missing.jsonl"),
        f.root.join("--w--/../../x.jsonl"),
        // A link in the root that leaves it, to a file or through a folder.
        f.root.join("--w--/leak.jsonl"),
        f.root.join("--gone--/secret.jsonl"),
        f.root.join("--gone--/missing.jsonl"),
    ];
    for p in &outside {
        assert_eq!(code(confine(p, root)), "outside-root", "{}", p.display());
    }
    // Inside the root: found, or not found.
    assert_eq!(code(confine(&f.root.join("--w--/in.jsonl"), root)), format!("ok {}", f.root.join("--w--/in.jsonl").display()));
    assert_eq!(code(confine(&f.root.join("--w--/./../--w--/in.jsonl"), root)), format!("ok {}", f.root.join("--w--/in.jsonl").display()));
    assert_eq!(code(confine(&f.root.join("--w--/missing.jsonl"), root)), "not-found");
    assert_eq!(code(confine(&f.root.join("--w--"), root)), "not-a-file");
}

#[test]
fn the_root_may_be_a_link() {
    let f = fx();
    // ~/.pi → /data/pi: the root as the user names it is a link.
    let home = f.base.join("home");
    fs::create_dir_all(&home).unwrap();
    symlink(f.base.join("data"), home.join(".pi")).unwrap();
    let named = home.join(".pi/sessions");
    let real = f.root.join("--w--/in.jsonl");
    for p in [named.join("--w--/in.jsonl"), real.clone()] {
        assert_eq!(code(confine(&p, Some(&named))), format!("ok {}", real.display()), "{}", p.display());
    }
    assert_eq!(code(confine(&named.join("--w--/leak.jsonl"), Some(&named))), "outside-root");
    assert_eq!(code(confine(&named.join("--w--/missing.jsonl"), Some(&named))), "not-found");
    assert_eq!(code(confine(&home.join("other.jsonl"), Some(&named))), "outside-root");
    // The scan reads it as any root: its own file, not the link leaving it.
    let found: Vec<PathBuf> = pi_session::scan::scan(&named).files.into_iter().map(|f| f.path).collect();
    assert_eq!(found, vec![named.join("--w--/in.jsonl")]);
}

#[test]
fn several_roots_each_judge_their_own_links() {
    let f = fx();
    let desk = f.base.join("desk");
    fs::create_dir_all(desk.join("--w--")).unwrap();
    fs::write(desk.join("--w--/d.jsonl"), SESSION.replace("\"id\":\"s\"", "\"id\":\"d\"")).unwrap();
    // A link in the first root to a file of the second.
    symlink(desk.join("--w--/d.jsonl"), f.root.join("--w--/to-desk.jsonl")).unwrap();
    let roots = Roots::new(vec![RootSpec { name: "laptop".into(), path: f.root.clone(), read_only: false }, RootSpec { name: "desk".into(), path: desk.clone(), read_only: true }]);
    let c = |p: &Path| roots.confine(p).map(|(real, r)| format!("{} {}", r.name, real.display())).unwrap_or_else(|e| e.code().to_string());
    assert_eq!(c(&desk.join("--w--/d.jsonl")), format!("desk {}", desk.join("--w--/d.jsonl").display()));
    assert_eq!(c(&f.root.join("--w--/in.jsonl")), format!("laptop {}", f.root.join("--w--/in.jsonl").display()));
    // Read at its own path, in its own root; not through the other root's link.
    assert_eq!(c(&f.root.join("--w--/to-desk.jsonl")), "outside-root");
    for p in [f.base.join("outside/secret.jsonl"), PathBuf::from("/nonexistent"), f.root.join("--w--/leak.jsonl")] {
        assert_eq!(c(&p), "outside-root", "{}", p.display());
    }
    assert_eq!(c(&desk.join("--w--/missing.jsonl")), "not-found");
    // The listing says where the linked file is read.
    let (m, _) = pi_session::roots::list_roots(&roots);
    let note = m.other.iter().find(|o| o.path.ends_with("to-desk.jsonl")).expect("the link is accounted for");
    assert_eq!(note.diagnostic.kind.as_str(), "symlink");
    assert!(note.diagnostic.message.contains("in the root desk"), "{}", note.diagnostic.message);
    let leak = m.other.iter().find(|o| o.path.ends_with("leak.jsonl")).unwrap();
    assert_eq!(leak.diagnostic.kind.as_str(), "symlink-outside-root");
    assert_eq!(m.sessions.len(), 2, "in.jsonl and d.jsonl, each once");
}

#[test]
fn lexical_folds_dots_without_looking() {
    assert_eq!(lexical(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
    assert_eq!(lexical(Path::new("/../../x")), PathBuf::from("/x"));
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(lexical(Path::new("x/../y")), cwd.join("y"));
}

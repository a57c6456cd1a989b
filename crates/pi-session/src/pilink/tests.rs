//! The explorer's side against a fake pi: a Unix listener in a private folder that answers as
//! the extension does (the real pi is tested in tests/pi-link/).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{json, Value};

use super::*;

const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn private_folder() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    d
}

/// What the fake pi does after the greeting, with the offer it received.
type Script = Box<dyn FnOnce(&Value, &mut UnixStream) + Send>;

struct FakePi {
    pid: u32,
    session: PathBuf,
    thread: JoinHandle<Option<Value>>,
}

/// A fake pi for `pid` on `session`: writes the discovery file, answers one greeting per
/// connection (`connections` of them), runs `script` on the first offer and returns it.
fn fake_pi(dir: &Path, pid: u32, session: &Path, connections: usize, script: Option<Script>) -> FakePi {
    let socket = dir.join(format!("{pid}.sock"));
    let listener = UnixListener::bind(&socket).unwrap();
    let discovery = json!({"v": 1, "pid": pid, "piVersion": "1.6.0", "sessionFile": session, "leafId": "aaaa0001", "cwd": "/proj", "socket": socket, "token": TOKEN});
    std::fs::write(dir.join(format!("{pid}.json")), discovery.to_string()).unwrap();
    let session = session.to_path_buf();
    let s2 = session.clone();
    let thread = std::thread::spawn(move || {
        let mut script = script;
        let mut seen = None;
        for _ in 0..connections {
            let (mut stream, _) = listener.accept().unwrap();
            let mut lines = BufReader::new(stream.try_clone().unwrap()).lines();
            let hello: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
            if hello["token"] != TOKEN {
                writeln!(stream, "{}", json!({"v": 1, "type": "error", "code": "unauthorized", "message": "bad token"})).unwrap();
                continue;
            }
            writeln!(stream, "{}", json!({"v": 1, "type": "state", "pid": pid, "piVersion": "1.6.0", "sessionFile": s2, "leafId": "aaaa0002", "cwd": "/proj", "idle": true, "movesAtOnce": true})).unwrap();
            let Some(Ok(line)) = lines.next() else { continue };
            let offer: Value = serde_json::from_str(&line).unwrap();
            if let Some(run) = script.take() {
                run(&offer, &mut stream);
            }
            seen = Some(offer);
        }
        seen
    });
    FakePi { pid, session, thread }
}

fn send(stream: &mut UnixStream, v: Value) {
    writeln!(stream, "{v}").unwrap();
}

fn session_file(dir: &Path) -> PathBuf {
    let f = dir.join("s.jsonl");
    std::fs::write(&f, "{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/proj\"}\n").unwrap();
    f
}

#[test]
fn discovers_live_pis_and_ignores_stale_and_foreign_files() {
    let link = private_folder();
    let files = tempfile::tempdir().unwrap();
    let session = session_file(files.path());
    let me = std::process::id();
    let pi = fake_pi(link.path(), me, &session, 3, None);
    // A pid that is gone (a child that exited).
    let gone = std::process::Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    let mut gone = gone;
    gone.wait().unwrap();
    std::fs::write(link.path().join(format!("{gone_pid}.json")), json!({"v": 1, "pid": gone_pid, "piVersion": "1.6.0", "sessionFile": session, "socket": link.path().join(format!("{gone_pid}.sock")), "token": TOKEN}).to_string()).unwrap();
    // A live pid (pid 1) whose socket is not there: refused.
    std::fs::write(link.path().join("1.json"), json!({"v": 1, "pid": 1, "piVersion": "1.6.0", "sessionFile": session, "socket": link.path().join("1.sock"), "token": TOKEN}).to_string()).unwrap();
    // A socket outside the folder, a name that is not the pid, another version, not JSON.
    std::fs::write(link.path().join("x.json"), json!({"v": 1, "pid": me, "socket": "/tmp/elsewhere.sock", "token": TOKEN}).to_string()).unwrap();
    std::fs::write(link.path().join("2.json"), json!({"v": 2, "pid": 2, "socket": link.path().join("2.sock"), "token": TOKEN}).to_string()).unwrap();
    std::fs::write(link.path().join("3.json"), "not json").unwrap();

    let found = discover_in(link.path());
    assert_eq!(found.len(), 1, "{found:?}");
    let f = &found[0];
    assert_eq!((f.pid, f.pi_version.as_str(), f.leaf_id.as_deref(), f.idle, f.moves_at_once), (me, "1.6.0", Some("aaaa0002"), true, true));
    assert_eq!(f.session_file, session);
    // The same file by another path (a symlink) is followed; another file is not.
    let link_to = files.path().join("alias.jsonl");
    std::os::unix::fs::symlink(&session, &link_to).unwrap();
    assert_eq!(followers_in(link.path(), &link_to).len(), 1);
    assert!(followers_in(link.path(), &files.path().join("other.jsonl")).is_empty());
    assert_eq!(pi.thread.join().unwrap(), None);
    let _ = (pi.pid, pi.session);
}

#[test]
fn a_folder_others_can_enter_is_not_read() {
    let link = tempfile::tempdir().unwrap();
    std::fs::set_permissions(link.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let files = tempfile::tempdir().unwrap();
    let session = session_file(files.path());
    let pi = fake_pi(link.path(), std::process::id(), &session, 0, None);
    assert!(discover_in(link.path()).is_empty());
    assert!(discover_in(&link.path().join("missing")).is_empty());
    pi.thread.join().unwrap();
}

fn one(link: &Path) -> Follower {
    let mut found = discover_in(link);
    assert_eq!(found.len(), 1);
    found.remove(0)
}

#[test]
fn offer_answers_accepted_declined_failed() {
    let link = private_folder();
    let files = tempfile::tempdir().unwrap();
    let session = session_file(files.path());
    let cases: Vec<(Script, OfferAnswer)> = vec![
        (
            Box::new(|o: &Value, s: &mut UnixStream| {
                send(s, json!({"v": 1, "type": "decided", "id": o["id"], "summarize": true}));
                send(s, json!({"v": 1, "type": "answer", "id": o["id"], "answer": "accepted", "summarize": true, "sessionFile": "/s/f.jsonl", "leafId": "bbbb0001"}));
            }),
            OfferAnswer::Accepted { summarize: true, moved: Some(Moved { session_file: "/s/f.jsonl".into(), leaf_id: Some("bbbb0001".into()) }) },
        ),
        (Box::new(|o: &Value, s: &mut UnixStream| send(s, json!({"v": 1, "type": "answer", "id": o["id"], "answer": "declined"}))), OfferAnswer::Declined),
        (Box::new(|o: &Value, s: &mut UnixStream| send(s, json!({"v": 1, "type": "answer", "id": o["id"], "answer": "superseded"}))), OfferAnswer::Superseded),
        (
            Box::new(|o: &Value, s: &mut UnixStream| send(s, json!({"v": 1, "type": "answer", "id": o["id"], "answer": "failed", "message": "no model"}))),
            OfferAnswer::Failed { message: "no model".into() },
        ),
    ];
    for (script, want) in cases {
        let pi = fake_pi(link.path(), std::process::id(), &session, 2, Some(script));
        let f = one(link.path());
        let got = offer(&f, &Offer::Navigate { id: "aaaa0001".into(), title: "fix the parser".into() }, Wait::default()).unwrap();
        assert_eq!(got, want);
        let sent = pi.thread.join().unwrap().unwrap();
        assert_eq!(sent["offer"], json!({"kind": "navigate", "sessionFile": session, "entryId": "aaaa0001", "title": "fix the parser"}));
        assert_eq!((sent["v"].clone(), sent["type"].clone(), sent["timeoutMs"].clone()), (json!(1), json!("offer"), json!(60000)));
        std::fs::remove_file(link.path().join(format!("{}.sock", std::process::id()))).unwrap();
    }
}

#[test]
fn offer_waits_a_bounded_time() {
    let link = private_folder();
    let files = tempfile::tempdir().unwrap();
    let session = session_file(files.path());
    let short = Wait { decide: Duration::from_millis(100), apply: Duration::from_millis(100) };
    // No decision: timed out; the fake pi sees the connection close.
    let pi = fake_pi(
        link.path(),
        std::process::id(),
        &session,
        2,
        Some(Box::new(|_o: &Value, s: &mut UnixStream| {
            let mut rest = String::new();
            let _ = BufReader::new(s.try_clone().unwrap()).read_line(&mut rest);
            assert_eq!(rest, "", "the explorer closes the connection when it stops waiting");
        })),
    );
    let f = one(link.path());
    assert_eq!(offer(&f, &Offer::Switch { path: "/s/fork.jsonl".into(), title: "t".into() }, short).unwrap(), OfferAnswer::TimedOut);
    let sent = pi.thread.join().unwrap().unwrap();
    assert_eq!(sent["offer"]["kind"], "switch");
    assert_eq!(sent["offer"]["target"], "/s/fork.jsonl");
    std::fs::remove_file(link.path().join(format!("{}.sock", std::process::id()))).unwrap();
    // Decided, then no answer within the apply wait: accepted, not moved yet.
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let pi = fake_pi(
        link.path(),
        std::process::id(),
        &session,
        2,
        Some(Box::new(move |o: &Value, s: &mut UnixStream| {
            send(s, json!({"v": 1, "type": "decided", "id": o["id"], "summarize": false}));
            let _ = rx.recv();
        })),
    );
    let f = one(link.path());
    assert_eq!(offer(&f, &Offer::Navigate { id: "x".into(), title: "t".into() }, short).unwrap(), OfferAnswer::Accepted { summarize: false, moved: None });
    tx.send(()).unwrap();
    pi.thread.join().unwrap();
}

#[test]
fn answers_outside_the_protocol_are_errors() {
    let link = private_folder();
    let files = tempfile::tempdir().unwrap();
    let session = session_file(files.path());
    let bad: Vec<(Script, &str)> = vec![
        (Box::new(|_o: &Value, s: &mut UnixStream| send(s, json!({"v": 2, "type": "answer", "answer": "declined"}))), "protocol 2"),
        (Box::new(|_o: &Value, s: &mut UnixStream| send(s, json!({"v": 1, "type": "answer", "answer": "maybe"}))), "unknown answer"),
        (Box::new(|_o: &Value, s: &mut UnixStream| send(s, json!({"v": 1, "type": "error", "code": "bad-request", "message": "no such entry"}))), "bad-request: no such entry"),
        (Box::new(|_o: &Value, s: &mut UnixStream| s.write_all(b"{not json\n").unwrap()), "not JSON"),
        (Box::new(|_o: &Value, _s: &mut UnixStream| {}), "closed the connection"),
    ];
    for (script, want) in bad {
        let pi = fake_pi(link.path(), std::process::id(), &session, 2, Some(script));
        let f = one(link.path());
        let e = offer(&f, &Offer::Navigate { id: "x".into(), title: "t".into() }, Wait::default()).unwrap_err();
        assert_eq!(e.code(), "pi-link");
        assert!(e.to_string().contains(want), "{e} does not say {want}");
        pi.thread.join().unwrap();
        std::fs::remove_file(link.path().join(format!("{}.sock", std::process::id()))).unwrap();
    }
    // A follower whose pi is gone: the socket error.
    let pi = fake_pi(link.path(), std::process::id(), &session, 1, None);
    let f = one(link.path());
    pi.thread.join().unwrap();
    std::fs::remove_file(link.path().join(format!("{}.sock", std::process::id()))).unwrap();
    let e = offer(&f, &Offer::Navigate { id: "x".into(), title: "t".into() }, Wait::default()).unwrap_err();
    assert_eq!(e.code(), "not-found");
}

#[test]
fn a_wrong_token_is_refused_by_the_pi() {
    let link = private_folder();
    let files = tempfile::tempdir().unwrap();
    let session = session_file(files.path());
    let pi = fake_pi(link.path(), std::process::id(), &session, 1, None);
    let d = std::fs::read_to_string(link.path().join(format!("{}.json", std::process::id()))).unwrap();
    std::fs::write(link.path().join(format!("{}.json", std::process::id())), d.replace(TOKEN, &"f".repeat(64))).unwrap();
    assert!(discover_in(link.path()).is_empty());
    pi.thread.join().unwrap();
}

#[test]
fn link_dir_order() {
    let env = |vars: &'static [(&'static str, &'static str)]| move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| PathBuf::from(v));
    assert_eq!(link_dir_with(env(&[("PI_SESSION_LINK_DIR", "/a"), ("XDG_RUNTIME_DIR", "/run/user/1")]), "/tmp".into()), PathBuf::from("/a"));
    assert_eq!(link_dir_with(env(&[("XDG_RUNTIME_DIR", "/run/user/1")]), "/tmp".into()), PathBuf::from("/run/user/1/pi-session-explorer"));
    assert_eq!(link_dir_with(env(&[]), "/tmp".into()), PathBuf::from(format!("/tmp/pi-session-explorer-{}", uid())));
}

#[test]
fn title_is_the_nearest_user_message() {
    let files = tempfile::tempdir().unwrap();
    let f = files.path().join("t.jsonl");
    std::fs::write(
        &f,
        concat!(
            "{\"type\":\"session\",\"version\":3,\"id\":\"x\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n",
            "{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"fix   the\\nparser\"}]}}\n",
            "{\"type\":\"message\",\"id\":\"a1\",\"parentId\":\"u1\",\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n",
            "{\"type\":\"model_change\",\"id\":\"m0\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"provider\":\"p\",\"modelId\":\"m\"}\n",
        ),
    )
    .unwrap();
    let s = crate::Session::open(&f).unwrap();
    assert_eq!(title_of(&s, "a1").unwrap(), "fix the parser");
    assert_eq!(title_of(&s, "u1").unwrap(), "fix the parser");
    assert_eq!(title_of(&s, "m0").unwrap(), "p/m");
    assert_eq!(title_of(&s, "nope").unwrap_err().code(), "unknown-id");
}

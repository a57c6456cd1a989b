//! The app's commands through Tauri's mock runtime: real IPC dispatch (argument names,
//! permissions, `{code, message}` errors) over real session files in a temporary root.

#[path = "../crates/pi-session/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pi_session_app::explorer::Explorer;
use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindowBuilder;

fn fixture_root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("--home-demo-project--");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("2025-01-01T00-00-00-000Z_s1.jsonl");
    let lines = [
        json!({"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/home/demo/project"}),
        json!({"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"first question","timestamp":1}}),
        json!({"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"first answer"}],"provider":"anthropic","model":"claude-test","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"total":0.01}},"stopReason":"stop","timestamp":2}}),
        json!({"type":"compaction","id":"c1","parentId":"a1","timestamp":"2025-01-01T00:00:03.000Z","summary":"Summary of the first exchange","firstKeptEntryId":"a1","tokensBefore":1234}),
        json!({"type":"message","id":"u2","parentId":"c1","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"user","content":"second question","timestamp":4}}),
        json!({"type":"message","id":"u3","parentId":"a1","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"a side branch","timestamp":5}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).unwrap();
    (dir, file)
}

struct App {
    _app: tauri::App<tauri::test::MockRuntime>,
    webview: tauri::WebviewWindow<tauri::test::MockRuntime>,
}

fn app(root: &Path) -> App {
    app_with(root, false)
}

/// The app's data folder (remembered roots, marks) of this test process: set once, before any
/// app is built, so no test reads or writes the user's data folder and no test switches the
/// folder under another running on a parallel thread.
fn private_data() -> PathBuf {
    static ONCE: std::sync::Once = std::sync::Once::new();
    let data = Path::new(env!("CARGO_TARGET_TMPDIR")).join("app-data");
    ONCE.call_once(|| {
        let _ = std::fs::remove_dir_all(&data);
        std::env::set_var("PI_EXPLORER_DATA_DIR", &data);
    });
    data
}

fn app_with(root: &Path, read_only: bool) -> App {
    // Keep the listing cache and the app's data away from the user's folders.
    common::private_cache();
    private_data();
    let explorer = Arc::new(Explorer::new(root.to_path_buf(), "flag", read_only));
    // The real context: the capabilities of src-tauri/capabilities decide what IPC may call.
    let app = pi_session_explorer::with_commands(mock_builder(), explorer).build(pi_session_explorer::context()).unwrap();
    let webview = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    App { _app: app, webview }
}

fn invoke(app: &App, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        &app.webview,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: app.webview.url().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|b| b.deserialize::<Value>().unwrap())
}

#[test]
fn list_tree_and_context_through_ipc() {
    let (dir, file) = fixture_root();
    let app = app(dir.path());
    let list = invoke(&app, "list_sessions", json!({})).unwrap();
    assert_eq!(list["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(list["sessions"][0]["title"], "first question");
    assert_eq!(list["sessions"][0]["leafId"], "u3");

    let path = file.to_string_lossy().to_string();
    let q = json!({"path": path, "filter": "default", "expanded": [], "collapsed": [], "unified": false});
    let page = invoke(&app, "tree_page", json!({"query": q, "start": 0, "count": 50})).unwrap();
    let ids: Vec<&str> = page["rows"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(page["meta"]["totalRows"], 5, "{page}");
    assert!(ids.contains(&"c1") && ids.contains(&"u3"));

    let ctx = invoke(&app, "context_view", json!({"path": path, "leafId": "u2"})).unwrap();
    assert_eq!(ctx["messages"][0]["role"], "compactionSummary");
    assert_eq!(ctx["messages"][0]["message"]["summary"], "Summary of the first exchange");
    assert_eq!(ctx["hiddenTotal"], 1);
    assert_eq!(ctx["hidden"][0]["id"], "u1");

    let detail = invoke(&app, "entry_detail", json!({"path": path, "id": "a1"})).unwrap();
    assert_eq!(detail["raw"]["message"]["content"][0]["text"], "first answer");
    assert_eq!(detail["childIds"], json!(["c1", "u3"]));
}

#[test]
fn writes_through_ipc_and_errors_as_code_and_message() {
    let (dir, file) = fixture_root();
    let app = app(dir.path());
    let path = file.to_string_lossy().to_string();
    let before = std::fs::read(&file).unwrap();

    let w = invoke(&app, "navigate", json!({"path": path, "id": "u2"})).unwrap();
    assert!(w["line"].as_str().unwrap().starts_with(r#"{"type":"leaf""#));
    let after = std::fs::read(&file).unwrap();
    assert!(after.starts_with(&before), "append-only");

    let l = invoke(&app, "set_label", json!({"path": path, "id": "a1", "label": "checkpoint"})).unwrap();
    assert!(l["line"].as_str().unwrap().contains(r#""label":"checkpoint""#));

    let f = invoke(&app, "fork_session", json!({"path": path, "id": "u2", "position": "at"})).unwrap();
    let forked = PathBuf::from(f["file"].as_str().unwrap());
    assert_eq!(forked.parent(), file.parent());
    assert!(forked.exists());

    let err = invoke(&app, "navigate", json!({"path": path, "id": "nope"})).unwrap_err();
    assert_eq!(err["code"], "unknown-id", "{err}");
    assert!(err["message"].as_str().unwrap().contains("nope"));

    let outside = tempfile::NamedTempFile::new().unwrap();
    let err = invoke(&app, "navigate", json!({"path": outside.path(), "id": "u1"})).unwrap_err();
    assert_eq!(err["code"], "outside-root", "{err}");

    invoke(&app, "set_read_only", json!({"on": true})).unwrap();
    let len = std::fs::metadata(&file).unwrap().len();
    let err = invoke(&app, "set_label", json!({"path": path, "id": "a1", "label": "x"})).unwrap_err();
    assert_eq!(err["code"], "read-only-mode");
    assert_eq!(std::fs::metadata(&file).unwrap().len(), len);
}

#[test]
fn unknown_commands_are_refused() {
    let (dir, _) = fixture_root();
    let app = app(dir.path());
    assert!(invoke(&app, "no_such_command", json!({})).is_err());
}

#[test]
fn read_only_from_the_command_line_cannot_be_switched_off() {
    let (dir, file) = fixture_root();
    let app = app_with(dir.path(), true);
    let before = std::fs::read(&file).unwrap();
    let info = invoke(&app, "set_read_only", json!({"on": false})).unwrap();
    assert_eq!(info["readOnly"], true);
    assert_eq!(info["readOnlyLocked"], true);
    let path = file.to_string_lossy().to_string();
    let err = invoke(&app, "navigate", json!({"path": path, "id": "u1"})).unwrap_err();
    assert_eq!(err["code"], "read-only-mode");
    let err = invoke(&app, "fork_session", json!({"path": path, "id": "u1", "position": "at"})).unwrap_err();
    assert_eq!(err["code"], "read-only-mode");
    let sw = invoke(&app, "switch_branch", json!({"path": path, "toId": "u3"})).unwrap();
    assert!(sw["leafId"].is_string() && sw.get("write").is_none(), "{sw}");
    assert_eq!(std::fs::read(&file).unwrap(), before, "nothing written");
}

#[test]
fn slim_fork_prune_and_compare_through_ipc() {
    let (dir, file) = fixture_root();
    let a = app(dir.path());
    let path = file.to_string_lossy().to_string();
    let preview = invoke(&a, "slim_preview", json!({"path": path, "id": "u2"})).unwrap();
    assert_eq!(preview, json!({"hasCompaction": true, "pathEntries": 4, "copied": 3}));
    let slim = invoke(&a, "fork_slim", json!({"path": path, "id": "u2"})).unwrap();
    assert_eq!(slim["leafId"], "u2");
    assert_eq!(slim["copied"], 3);
    assert!(std::path::Path::new(slim["file"].as_str().unwrap()).is_file());
    // No compaction on the path to u3: refused with its code.
    let err = invoke(&a, "fork_slim", json!({"path": path, "id": "u3"})).unwrap_err();
    assert_eq!(err["code"], "no-compaction");
    let pruned = invoke(&a, "prune_session", json!({"path": path, "keep": ["u3"]})).unwrap();
    assert_eq!(pruned["copied"], 3);
    let d = invoke(&a, "compare_branches", json!({"aPath": path, "aId": "u2", "bPath": path, "bId": "u3"})).unwrap();
    assert_eq!(d["ancestor"]["id"], "a1");
    assert_eq!(d["a"]["steps"][0]["id"], "c1");
    assert_eq!(d["b"]["steps"][0]["id"], "u3");
}

#[test]
fn roots_added_through_ipc_are_listed_remembered_and_can_be_read_only() {
    let (dir, file) = fixture_root();
    let data = private_data();
    let other = tempfile::tempdir().unwrap();
    let folder = other.path().join("--home-demo-project--");
    std::fs::create_dir_all(&folder).unwrap();
    let copy = folder.join("2025-01-01T00-00-00-000Z_s9.jsonl");
    let text = std::fs::read_to_string(&file).unwrap().replace("\"id\":\"s1\"", "\"id\":\"s9\"");
    std::fs::write(&copy, &text).unwrap();
    let app = app(dir.path());
    let info = invoke(&app, "add_root", json!({"path": other.path(), "name": "desk", "readOnly": true})).unwrap();
    let roots = info["roots"].as_array().unwrap();
    assert_eq!(roots.len(), 2);
    assert_eq!(roots[1]["name"], "desk");
    assert_eq!(roots[1]["readOnly"], true);
    let list = invoke(&app, "list_sessions", json!({})).unwrap();
    let names: Vec<&str> = list["sessions"].as_array().unwrap().iter().map(|s| s["root"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"desk"));
    // Remembered for the next start.
    let saved: Value = serde_json::from_slice(&std::fs::read(data.join("roots.json")).unwrap()).unwrap();
    assert_eq!(saved[0]["name"], "desk");
    // The read-only root refuses writes; its file stays byte-identical.
    let err = invoke(&app, "navigate", json!({"path": copy, "id": "u1"})).unwrap_err();
    assert_eq!(err["code"], "read-only-mode");
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), text);
    invoke(&app, "set_root_read_only", json!({"name": "desk", "on": false})).unwrap();
    invoke(&app, "navigate", json!({"path": copy, "id": "u1"})).unwrap();
    assert!(std::fs::read_to_string(&copy).unwrap().starts_with(&text));
    let info = invoke(&app, "remove_root", json!({"name": "desk"})).unwrap();
    assert!(info.get("roots").is_none());
    let saved: Value = serde_json::from_slice(&std::fs::read(data.join("roots.json")).unwrap()).unwrap();
    assert_eq!(saved, json!([]));
}

#[test]
fn the_command_line_names_the_session_and_entry_to_open_first() {
    use clap::Parser;
    let (dir, file) = fixture_root();
    common::private_cache();
    private_data();
    let root = dir.path().to_string_lossy().to_string();
    let path = file.to_string_lossy().to_string();
    let opts = pi_session_explorer::Options::try_parse_from(["pi-session-explorer", "--sessions-dir", &root, "--session", &path, "--select", "a1"]).unwrap();
    let explorer = Arc::new(pi_session_explorer::explorer_for(&opts));
    let app = pi_session_explorer::with_commands(mock_builder(), explorer).build(pi_session_explorer::context()).unwrap();
    let webview = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    let app = App { _app: app, webview };
    let info = invoke(&app, "app_info", json!({})).unwrap();
    assert_eq!((&info["initialSession"], &info["initialEntry"]), (&json!(file.canonicalize().unwrap()), &json!("a1")));
    // Without them the keys are absent (the window opens the most recent session).
    let plain = invoke(&self::app(dir.path()), "app_info", json!({})).unwrap();
    assert!(plain.get("initialSession").is_none() && plain.get("initialEntry").is_none(), "{plain}");
    // --select needs --session.
    assert!(pi_session_explorer::Options::try_parse_from(["pi-session-explorer", "--select", "a1"]).is_err());
}

/// `n` bytes of noise (xorshift from the clock).
fn noise(n: usize) -> Vec<u8> {
    let mut x = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn a_damaged_search_index_is_set_aside_rebuilt_and_shown_in_the_status() {
    common::private_cache();
    let (dir, _) = fixture_root();
    let db = pi_session_find::index::default_db_path(dir.path()).unwrap();
    {
        let ix = pi_session_find::SearchIndex::open(dir.path(), &db).unwrap();
        ix.update(|_| {}).unwrap();
    }
    // The 100-byte SQLite header randomised.
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[..100].copy_from_slice(&noise(100));
    std::fs::write(&db, &bytes).unwrap();
    let app = app(dir.path());
    let r = invoke(&app, "search_indexed", json!({"query": "question", "limit": 50})).unwrap();
    let mut ids: Vec<&str> = r["sessions"][0]["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, ["u1", "u2"], "{r}");
    let status = invoke(&app, "search_index_status", json!({})).unwrap();
    let d = &status["damaged"];
    assert_eq!(d["path"].as_str(), Some(&*db.to_string_lossy()), "{status}");
    assert!(!d["reason"].as_str().unwrap().is_empty());
    assert_eq!(std::fs::read(d["movedTo"].as_str().unwrap()).unwrap(), bytes, "the damaged file is kept byte for byte");
    assert_eq!(status["filesIndexed"], 1);
}

/// Paused from the window, the index takes in nothing; a search then reads the files it does
/// not hold (an appended line is found, and the answer says a file was read), and resumed, the
/// index catches up.
#[test]
fn a_paused_search_index_still_answers_by_reading_the_files_it_lacks() {
    common::private_cache();
    let (dir, file) = fixture_root();
    let app = app(dir.path());
    let r = invoke(&app, "search_indexed", json!({"query": "question", "limit": 50})).unwrap();
    assert_eq!(r["scannedFiles"], 0, "{r}");
    let status = invoke(&app, "set_search_index_paused", json!({"paused": true})).unwrap();
    assert_eq!(status["paused"], true, "{status}");
    let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
    use std::io::Write;
    writeln!(f, "{}", json!({"type":"message","id":"q9","parentId":"u2","timestamp":"2026-03-03T10:00:00.000Z","message":{"role":"user","content":"a question while paused"}})).unwrap();
    drop(f);
    let r = invoke(&app, "search_indexed", json!({"query": "question", "limit": 50})).unwrap();
    let ids: Vec<&str> = r["sessions"].as_array().unwrap().iter().flat_map(|s| s["hits"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap())).collect();
    assert!(ids.contains(&"q9") && ids.contains(&"u1"), "{r}");
    assert_eq!(r["scannedFiles"], 1, "the grown file is read: {r}");
    let status = invoke(&app, "set_search_index_paused", json!({"paused": false})).unwrap();
    assert_eq!(status["paused"], false);
    // Resuming starts the build in the background: wait for it to end.
    for _ in 0..500 {
        if invoke(&app, "search_index_status", json!({})).unwrap()["building"] == false {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let r = invoke(&app, "search_indexed", json!({"query": "question", "limit": 50})).unwrap();
    assert_eq!(r["scannedFiles"], 0, "{r}");
    assert_eq!(r["totalHits"], 3, "{r}");
}

#[test]
fn a_damaged_organiser_answers_its_code_until_set_aside_through_ipc() {
    let (dir, _) = fixture_root();
    let db = private_data().join("organise.sqlite");
    {
        let o = pi_session_find::organise::Organiser::open(&db).unwrap();
        o.add_tag("s1", "kept").unwrap();
        o.set_pinned("s1", true).unwrap();
    }
    let mut bad = std::fs::read(&db).unwrap();
    bad[..100].copy_from_slice(&noise(100));
    std::fs::write(&db, &bad).unwrap();
    let app = app(dir.path());
    for (cmd, args) in [
        ("session_marks", json!({})),
        ("session_tags", json!({})),
        ("add_session_tag", json!({"sessionId": "s1", "tag": "new"})),
        ("set_session_pinned", json!({"sessionId": "s1", "pinned": false})),
        ("select_sessions", json!({"filter": {}})),
    ] {
        let err = invoke(&app, cmd, args).unwrap_err();
        assert_eq!(err["code"], "organiser-damaged", "{cmd}: {err}");
        assert!(err["message"].as_str().unwrap().contains(&*db.to_string_lossy()), "{cmd}: the message names the file: {err}");
    }
    assert!(std::fs::read(&db).unwrap() == bad, "the damaged file is left as it was");
    let aside = invoke(&app, "set_aside_organiser", json!({})).unwrap();
    let moved = std::path::PathBuf::from(aside["movedTo"].as_str().unwrap());
    assert_eq!(moved.parent(), db.parent(), "beside it: {aside}");
    assert!(std::fs::read(&moved).unwrap() == bad, "renamed, every byte kept");
    // A new, empty database from here on.
    assert_eq!(invoke(&app, "session_marks", json!({})).unwrap(), json!({}));
    let m = invoke(&app, "add_session_tag", json!({"sessionId": "s1", "tag": "fresh"})).unwrap();
    assert_eq!(m["tags"], json!(["fresh"]));
    // Nothing to set aside any more: refused, and the new file stays.
    assert_eq!(invoke(&app, "set_aside_organiser", json!({})).unwrap_err()["code"], "invalid");
    assert_eq!(invoke(&app, "session_tags", json!({})).unwrap()[0]["tag"], "fresh");
}

/// A copy of `file`'s session with another id and the word `xylophone`, at `to`.
#[cfg(unix)]
fn outside_copy(file: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    let text = std::fs::read_to_string(file).unwrap().replace("\"id\":\"s1\"", "\"id\":\"s-out\"").replace("first question", "xylophone question");
    std::fs::write(to, text).unwrap();
}

#[cfg(unix)]
#[test]
fn a_link_leaving_the_root_is_read_by_no_command() {
    let (dir, file) = fixture_root();
    let outside = tempfile::tempdir().unwrap();
    outside_copy(&file, &outside.path().join("secret.jsonl"));
    outside_copy(&file, &outside.path().join("--far--/far.jsonl"));
    let folder = file.parent().unwrap();
    let leak = folder.join("leak.jsonl");
    std::os::unix::fs::symlink(outside.path().join("secret.jsonl"), &leak).unwrap();
    std::os::unix::fs::symlink(outside.path().join("--far--"), dir.path().join("--far--")).unwrap();
    let app = app(dir.path());

    let list = invoke(&app, "list_sessions", json!({})).unwrap();
    let paths: Vec<&str> = list["sessions"].as_array().unwrap().iter().map(|s| s["path"].as_str().unwrap()).collect();
    assert_eq!(paths, [file.to_str().unwrap()], "{list}");
    for p in [leak.clone(), dir.path().join("--far--")] {
        let note = list["other"].as_array().unwrap().iter().find(|o| o["path"] == json!(p)).unwrap_or_else(|| panic!("{}: {list}", p.display()));
        assert_eq!(note["diagnostic"]["kind"], "symlink-outside-root");
        assert!(note["diagnostic"]["message"].as_str().unwrap().contains("add its target as another root"));
    }
    let found = invoke(&app, "search_indexed", json!({"query": "xylophone", "limit": 50})).unwrap();
    assert_eq!(found["totalHits"], 0, "{found}");
    let dash = invoke(&app, "dashboard", json!({"query": {"bucket": "day", "top": 10}})).unwrap();
    assert_eq!(dash["totals"]["sessions"], 1, "{dash}");
    let graph = invoke(&app, "fork_graph", json!({})).unwrap();
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 1, "{graph}");

    // Opening it, or a file through the linked folder, or any path outside (existing or not):
    // one answer, outside-root.
    let q = |p: &Path| json!({"query": {"path": p, "filter": "default", "expanded": [], "collapsed": [], "unified": false}, "start": 0, "count": 10});
    for p in [leak.clone(), dir.path().join("--far--/far.jsonl"), dir.path().join("--far--/missing.jsonl"), outside.path().join("secret.jsonl"), PathBuf::from("/etc/shadow"), PathBuf::from("/nonexistent/x.jsonl")] {
        for (cmd, args) in [("tree_page", q(&p)), ("entry_detail", json!({"path": p, "id": "u1"})), ("navigate", json!({"path": p, "id": "u1"})), ("search_hits_in_session", json!({"path": p, "query": "question"}))] {
            let err = invoke(&app, cmd, args).unwrap_err();
            assert_eq!(err["code"], "outside-root", "{cmd} {}: {err}", p.display());
        }
    }
    // Inside the root, a missing file is just missing.
    assert_eq!(invoke(&app, "tree_page", q(&folder.join("gone.jsonl"))).unwrap_err()["code"], "not-found");
}

#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_opens_from_the_path_the_list_gives() {
    use std::os::unix::ffi::OsStringExt;
    let (dir, file) = fixture_root();
    // The fixture's session renamed to a Latin-1 name (é as one byte).
    let mut name = file.parent().unwrap().as_os_str().to_owned().into_vec();
    name.extend_from_slice(b"/caf\xe9_s1.jsonl");
    let latin1 = PathBuf::from(std::ffi::OsString::from_vec(name));
    std::fs::rename(&file, &latin1).unwrap();
    let app = app(dir.path());
    let list = invoke(&app, "list_sessions", json!({})).unwrap();
    let path = list["sessions"][0]["path"].as_str().unwrap().to_string();
    assert!(path.ends_with("caf\u{F7E9}_s1.jsonl"), "{path}");
    let q = json!({"path": path, "filter": "default", "expanded": [], "collapsed": [], "unified": false});
    let page = invoke(&app, "tree_page", json!({"query": q, "start": 0, "count": 50})).unwrap();
    assert_eq!(page["meta"]["path"], json!(path));
    assert_eq!(page["meta"]["totalRows"], 5);
    assert_eq!(invoke(&app, "entry_detail", json!({"path": path, "id": "a1"})).unwrap()["raw"]["message"]["content"][0]["text"], "first answer");
    // A write lands in that file.
    let before = std::fs::read(&latin1).unwrap();
    let w = invoke(&app, "navigate", json!({"path": path, "id": "u2"})).unwrap();
    assert_eq!(w["file"], json!(path));
    assert!(std::fs::read(&latin1).unwrap().starts_with(&before));
    assert!(std::fs::read(&latin1).unwrap().len() > before.len());
    // The indexed search names it the same way, and its bands are found from that path.
    let r = invoke(&app, "search_indexed", json!({"query": "question", "limit": 50})).unwrap();
    assert_eq!(r["sessions"][0]["path"], json!(path), "{r}");
    let bands = invoke(&app, "search_hits_in_session", json!({"path": path, "query": "question"})).unwrap();
    let mut ids: Vec<&str> = bands.as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, ["u1", "u2"], "{bands}");
    // The lossy form of the name is another path: not found, not this file.
    let lossy = path.replace('\u{F7E9}', "\u{FFFD}");
    assert_eq!(invoke(&app, "entry_detail", json!({"path": lossy, "id": "a1"})).unwrap_err()["code"], "not-found");
}

#[test]
fn export_goes_where_asked_replaces_only_when_told_and_opens_only_what_it_wrote() {
    let (dir, file) = fixture_root();
    let a = app(dir.path());
    let path = file.to_string_lossy().to_string();
    let before = std::fs::read(&file).unwrap();
    // The save dialog's proposal: the export folder and the name the core gives.
    let target = invoke(&a, "export_target", json!({"path": path, "tree": true, "format": "md"})).unwrap();
    assert!(target.as_str().unwrap().ends_with("/2025-01-01T00-00-00-000Z_s1-tree.md"), "{target}");
    assert_eq!(invoke(&a, "export_target", json!({"path": path, "tree": false, "format": "pdf"})).unwrap_err()["code"], "invalid");
    // Written where the user said (a folder made on the way), the path answered, no text sent back.
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("sub dir").join("mine.html");
    let args = |out: &Path, replace: bool| json!({"path": path, "leafId": "u2", "tree": false, "format": "html", "out": out, "replace": replace});
    let r = invoke(&a, "export_session", args(&out, false)).unwrap();
    assert_eq!(r["out"], json!(out.to_string_lossy()));
    assert!(r.get("text").is_none(), "{r}");
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("second question") && !html.contains("a side branch"), "the path to u2");
    // The same name again: refused, the file as it was; with replace, written.
    let err = invoke(&a, "export_session", args(&out, false)).unwrap_err();
    assert_eq!(err["code"], "invalid");
    assert!(err["message"].as_str().unwrap().contains("exists"), "{err}");
    std::fs::write(&out, "mine").unwrap();
    invoke(&a, "export_session", args(&out, true)).unwrap();
    assert_eq!(std::fs::read_to_string(&out).unwrap(), html);
    // Never over a session file, never a relative path.
    let err = invoke(&a, "export_session", args(&out_dir.path().join("x.jsonl"), true)).unwrap_err();
    assert_eq!(err["code"], "invalid", "{err}");
    assert_eq!(invoke(&a, "export_session", json!({"path": path, "leafId": null, "tree": false, "format": "html", "out": "relative.html"})).unwrap_err()["code"], "invalid");
    // Open and Reveal hand the file to the system's opener (here one that records), and only a file this window exported.
    #[cfg(unix)]
    opens_only_what_it_wrote(&a, &out, &path, out_dir.path());
    assert_eq!(std::fs::read(&file).unwrap(), before, "the session file is unchanged");
}

#[cfg(unix)]
fn opens_only_what_it_wrote(a: &App, out: &Path, path: &str, dir: &Path) {
    let log = dir.join("opened.log");
    let opener = dir.join("opener");
    std::fs::write(&opener, format!("#!/bin/sh\nprintf '%s %s\\n' \"$1\" \"$2\" >> '{}'\n", log.display())).unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::env::set_var("PI_EXPLORER_OPENER", &opener);
    invoke(a, "open_export", json!({"path": out, "reveal": true})).unwrap();
    let err = invoke(a, "open_export", json!({"path": path, "reveal": false})).unwrap_err();
    assert_eq!(err["code"], "invalid", "a session file was not exported: {err}");
    let want = format!("reveal {}\n", out.display());
    let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::fs::read_to_string(&log).unwrap_or_default() != want && std::time::Instant::now() < end {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(std::fs::read_to_string(&log).unwrap(), want);
}

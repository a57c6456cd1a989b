//! The server refuses what it must, against a real server on 127.0.0.1:0 over real session
//! files: no token, a wrong token, a write while read-only, a path outside the root, a
//! non-local `Host`. Every file is byte-identical afterwards.

mod common;

use common::*;
use pi_session_serve::{Config, Server};
use serde_json::json;

struct Fixture {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
    all: std::path::PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    // The list cache and search indexes go to the test process's folder, not the user's cache.
    private_cache();
    let root = tmp.path().join("sessions");
    copy_tree(&repo_root().join("demo/sessions"), &root);
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let first = session_files(&root).remove(0);
    std::fs::copy(&first, outside.join("secret.jsonl")).unwrap();
    // A symlink inside the root that points out of it.
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.join("secret.jsonl"), root.join("link.jsonl")).unwrap();
    let all = tmp.path().to_path_buf();
    Fixture { root, outside, all, _tmp: tmp }
}

fn start(root: &std::path::Path, allow_writes: bool, read_only: bool) -> Server {
    let mut cfg = Config::new(root.to_path_buf());
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    cfg.allow_writes = allow_writes;
    cfg.read_only = read_only;
    cfg.watch = false;
    Server::start(cfg).unwrap()
}

fn files_only(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    // The cache lives outside the fixture (`private_cache`): every file here is a session or
    // a file beside the root.
    snapshot(dir)
}

#[test]
fn no_token_or_a_wrong_token_gets_401() {
    let f = fixture();
    let before = files_only(&f.all);
    let s = start(&f.root, true, false);
    let a = s.addr();
    let wrong = "0".repeat(s.token().len());
    let wrong_bearer = format!("Bearer {wrong}");
    let wrong_cookie = format!("pi_session_token={wrong}");
    let short_bearer = format!("Bearer {}", &s.token()[..10]);
    let file = session_files(&f.root)[0].display().to_string();
    let id = last_id(&session_files(&f.root)[0]);
    let navigate = json!({"path": file, "id": id}).to_string();

    type Case<'a> = (&'a str, String, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        ("GET", "/".into(), vec![], ""),
        ("GET", "/index.html".into(), vec![], ""),
        ("GET", "/api/events".into(), vec![], ""),
        ("POST", "/api/list_sessions".into(), vec![], "{}"),
        ("POST", "/api/navigate".into(), vec![], &navigate),
        ("POST", "/api/list_sessions".into(), vec![("Authorization", &wrong_bearer)], "{}"),
        ("POST", "/api/list_sessions".into(), vec![("Authorization", &short_bearer)], "{}"),
        ("POST", "/api/list_sessions".into(), vec![("Authorization", s.token())], "{}"),
        ("POST", "/api/list_sessions".into(), vec![("Cookie", &wrong_cookie)], "{}"),
        ("POST", "/api/navigate".into(), vec![("Authorization", &wrong_bearer)], &navigate),
        ("GET", format!("/?token={wrong}"), vec![], ""),
        ("GET", "/?token=".into(), vec![], ""),
        // The query token only opens pages (then lives in the cookie), not the API.
        ("POST", format!("/api/list_sessions?token={}", s.token()), vec![], "{}"),
    ];
    for (method, target, headers, body) in &cases {
        let r = request(a, method, target, headers, body);
        assert_eq!(r.status, 401, "{method} {target} {headers:?}: {}", r.body);
        assert_eq!(r.code(), "unauthorized");
        assert!(!r.body.contains("cli-tool"), "a refused answer leaks nothing");
    }

    // The right token, each way, is let in (so the refusals above are the token's doing).
    let ok = api(a, s.token(), "list_sessions", json!({}));
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert!(ok.json()["sessions"].as_array().unwrap().len() >= 10);
    let cookie = format!("pi_session_token={}", s.token());
    assert_eq!(request(a, "POST", "/api/app_info", &[("Cookie", &cookie)], "{}").status, 200);
    let open = request(a, "GET", &format!("/?token={}", s.token()), &[], "");
    assert_eq!(open.status, 303);
    assert_eq!(open.header("location"), Some("/"));
    let set = open.header("set-cookie").unwrap();
    assert!(set.starts_with(&cookie) && set.contains("HttpOnly") && set.contains("SameSite=Strict"), "{set}");
    s.stop();
    assert_eq!(files_only(&f.all), before, "files changed");
}

#[test]
fn writes_are_refused_while_read_only() {
    let f = fixture();
    let before = files_only(&f.all);
    let file = session_files(&f.root)[0].clone();
    let path = file.display().to_string();
    let id = last_id(&file);
    // Read-only by default; `--read-only` wins over `--allow-writes`.
    for (allow, ro) in [(false, false), (true, true)] {
        let s = start(&f.root, allow, ro);
        let t = s.token().to_string();
        let a = s.addr();
        assert_eq!(api(a, &t, "app_info", json!({})).json()["readOnly"], true);
        // The UI cannot switch it off.
        assert_eq!(api(a, &t, "set_read_only", json!({"on": false})).json()["readOnly"], true);
        for (cmd, args) in [
            ("navigate", json!({"path": path, "id": id})),
            ("navigate", json!({"path": path, "id": null})),
            ("set_label", json!({"path": path, "id": id, "label": "x"})),
            ("fork_session", json!({"path": path, "id": id, "position": "at"})),
        ] {
            let r = api(a, &t, cmd, args);
            assert_eq!(r.status, 403, "{cmd}: {}", r.body);
            assert_eq!(r.code(), "read-only-mode", "{cmd}");
        }
        s.stop();
    }
    assert_eq!(files_only(&f.all), before, "files changed");

    // With writes allowed the same navigate appends (so the refusals above are the mode's).
    let s = start(&f.root, true, false);
    let r = api(s.addr(), s.token(), "navigate", json!({"path": path, "id": id}));
    assert_eq!(r.status, 200, "{}", r.body);
    s.stop();
    let after = std::fs::read(&file).unwrap();
    let old = &before[&file];
    assert!(after.len() > old.len() && after.starts_with(old), "one line appended, nothing else changed");
}

#[test]
fn paths_outside_the_root_are_refused() {
    let f = fixture();
    let before = files_only(&f.all);
    let s = start(&f.root, true, false);
    let (a, t) = (s.addr(), s.token().to_string());
    let secret = f.outside.join("secret.jsonl");
    let id = last_id(&secret);
    let dotdot = format!("{}/../outside/secret.jsonl", f.root.display());
    let link = f.root.join("link.jsonl").display().to_string();
    // Outside the root, the same answer whether the file exists or not (no existence oracle).
    let missing = [f.outside.join("missing.jsonl").display().to_string(), format!("{}/../outside/missing.jsonl", f.root.display()), "/nonexistent/x.jsonl".into(), "/etc/shadow".into()];
    for p in [secret.display().to_string(), dotdot, link, "/etc/passwd".into()].into_iter().chain(missing) {
        for (cmd, args) in [
            ("entry_detail", json!({"path": p, "id": id})),
            ("tree_page", json!({"query": {"path": p, "filter": "default", "expanded": [], "collapsed": [], "unified": false}, "start": 0, "count": 10})),
            ("context_view", json!({"path": p, "leafId": null})),
            ("transcript_markdown", json!({"path": p, "ids": null})),
            ("navigate", json!({"path": p, "id": id})),
            ("set_label", json!({"path": p, "id": id, "label": "x"})),
            ("fork_session", json!({"path": p, "id": id, "position": "at"})),
        ] {
            let r = api(a, &t, cmd, args);
            assert_eq!(r.status, 403, "{cmd} {p}: {}", r.body);
            assert_eq!(r.code(), "outside-root", "{cmd} {p}");
            assert!(!r.body.contains("\"entries\""), "{cmd}: no content");
        }
    }
    s.stop();
    assert_eq!(files_only(&f.all), before, "files changed");
}

#[test]
fn a_non_local_host_is_refused() {
    let f = fixture();
    let before = files_only(&f.all);
    let s = start(&f.root, true, false);
    let (a, t) = (s.addr(), s.token().to_string());
    let auth = format!("Bearer {t}");
    let path = session_files(&f.root)[0].display().to_string();
    let id = last_id(&session_files(&f.root)[0]);
    let nav = json!({"path": path, "id": id}).to_string();
    for host in ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil.example", "10.1.2.3:8765", ""] {
        for (m, target, body) in [("GET", format!("/?token={t}"), ""), ("POST", "/api/list_sessions".into(), "{}"), ("POST", "/api/navigate".into(), nav.as_str())] {
            let r = request(a, m, &target, &[("Host", host), ("Authorization", &auth)], body);
            assert_eq!(r.status, 403, "Host {host:?} {m} {target}: {}", r.body);
            assert_eq!(r.code(), "forbidden-host");
        }
    }
    // Local names pass (so the refusals are the Host's doing).
    let port = a.port();
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")] {
        let r = request(a, "POST", "/api/app_info", &[("Host", &host), ("Authorization", &auth)], "{}");
        assert_eq!(r.status, 200, "Host {host}: {}", r.body);
    }
    s.stop();
    assert_eq!(files_only(&f.all), before, "files changed");
}

#[test]
fn responses_carry_the_windows_csp() {
    let f = fixture();
    let s = start(&f.root, false, false);
    let cookie = format!("pi_session_token={}", s.token());
    for (m, target) in [("GET", "/"), ("POST", "/api/app_info"), ("GET", "/nope")] {
        let r = request(s.addr(), m, target, &[("Cookie", &cookie)], "{}");
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("default-src 'self'") && csp.contains("script-src 'self'") && csp.contains("object-src 'none'"), "{target}: {csp}");
        assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
    }
    // Unauthorised answers carry it too.
    assert!(request(s.addr(), "GET", "/", &[], "").header("content-security-policy").is_some());
    s.stop();
}

#[test]
fn several_roots_are_served_in_one_view_and_a_browser_cannot_add_roots() {
    let f = fixture();
    let second = f.all.join("desk");
    copy_tree(&repo_root().join("demo/sessions"), &second);
    // The copy's sessions get ids of their own, so both roots list all their sessions.
    for file in session_files(&second) {
        let text = std::fs::read_to_string(&file).unwrap();
        let header = text.lines().next().unwrap();
        let v: serde_json::Value = serde_json::from_str(header).unwrap();
        let id = v["id"].as_str().unwrap();
        std::fs::write(&file, text.replacen(id, &format!("{id}-desk"), 1)).unwrap();
    }
    let before = files_only(&f.all);
    let mut cfg = Config::new(f.root.clone());
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    cfg.allow_writes = true;
    cfg.watch = false;
    cfg.root_name = Some("laptop".into());
    cfg.more_roots = vec![pi_session::roots::RootSpec { name: "desk".into(), path: second.clone(), read_only: true }];
    let s = Server::start(cfg).unwrap();
    let (a, t) = (s.addr(), s.token().to_string());

    let info = api(a, &t, "app_info", json!({})).json();
    let names: Vec<&str> = info["roots"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["laptop", "desk"]);
    let list = api(a, &t, "list_sessions", json!({})).json();
    let rows = list["sessions"].as_array().unwrap();
    let n = session_files(&second).len();
    assert_eq!(rows.len(), 2 * n, "{list}");
    assert_eq!(rows.iter().filter(|r| r["root"] == "desk").count(), n);

    // The full-text search spans both roots: the desk's copies answer beside the laptop's files.
    let word = "session";
    let r = api(a, &t, "search_indexed", json!({"query": word, "limit": 10000})).json();
    let hit_paths: Vec<&str> = r["sessions"].as_array().unwrap().iter().map(|s| s["path"].as_str().unwrap()).collect();
    assert!(hit_paths.iter().any(|p| std::path::Path::new(p).starts_with(&second)), "hits in the desk root: {r}");
    assert!(hit_paths.iter().any(|p| !std::path::Path::new(p).starts_with(&second)), "hits in the laptop root: {r}");
    let status = api(a, &t, "search_index_status", json!({})).json();
    // Every file of both roots is indexed (not the root's symlink, which leaves it).
    let files = pi_session::scan::scan(&f.root).files.len() + pi_session::scan::scan(&second).files.len();
    assert_eq!(status["filesIndexed"].as_u64().unwrap() as usize, files, "{status}");
    let desk_hit = hit_paths.iter().find(|p| std::path::Path::new(p).starts_with(&second)).unwrap();
    let bands = api(a, &t, "search_hits_in_session", json!({"path": desk_hit, "query": word})).json();
    assert!(!bands.as_array().unwrap().is_empty(), "bands in a file of the second root: {bands}");

    // The read-only root refuses writes; the browser cannot add, remove or unlock roots.
    let file = session_files(&second)[0].display().to_string();
    let id = last_id(&session_files(&second)[0]);
    let r = api(a, &t, "navigate", json!({"path": file, "id": id}));
    assert_eq!(r.status, 403, "{}", r.body);
    for (cmd, args) in [
        ("add_root", json!({"path": "/", "name": "all", "readOnly": false})),
        ("remove_root", json!({"name": "desk"})),
        ("set_root_read_only", json!({"name": "desk", "on": false})),
    ] {
        let r = api(a, &t, cmd, args);
        assert_eq!((r.status, r.code()), (403, "window-only".to_string()), "{cmd}: {}", r.body);
    }
    s.stop();
    assert_eq!(files_only(&f.all), before, "files changed");
}

#[test]
fn a_link_leaving_the_root_is_not_listed_searched_counted_or_drawn() {
    let f = fixture();
    let before = files_only(&f.all);
    let s = start(&f.root, false, false);
    let (a, t) = (s.addr(), s.token().to_string());
    let link = f.root.join("link.jsonl");
    let secret_id = serde_json::from_str::<serde_json::Value>(std::fs::read_to_string(f.outside.join("secret.jsonl")).unwrap().lines().next().unwrap()).unwrap()["id"].as_str().unwrap().to_string();
    let list = api(a, &t, "list_sessions", json!({})).json();
    let rows = list["sessions"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["path"] != json!(link)), "not listed");
    // (The secret is a copy of a session of the root: its id is listed once, at the root's own file.)
    assert_eq!(rows.iter().filter(|r| r["id"] == json!(secret_id)).count(), 1);
    let note = list["other"].as_array().unwrap().iter().find(|o| o["path"] == json!(link)).unwrap_or_else(|| panic!("accounted for: {list}"));
    assert_eq!(note["diagnostic"]["kind"], "symlink-outside-root");
    let dash = api(a, &t, "dashboard", json!({"query": {"bucket": "day", "top": 1000}})).json();
    assert_eq!(dash["totals"]["sessions"].as_u64().unwrap() as usize, rows.len(), "the dashboard counts the listed sessions only");
    let graph = api(a, &t, "fork_graph", json!({})).json();
    assert!(graph["nodes"].as_array().unwrap().iter().all(|n| n["path"] != json!(link)));
    let found = api(a, &t, "search_indexed", json!({"query": "session", "limit": 10000})).json();
    assert!(found["sessions"].as_array().unwrap().iter().all(|h| h["path"] != json!(link)), "not searched");
    s.stop();
    assert_eq!(files_only(&f.all), before, "files changed");
}

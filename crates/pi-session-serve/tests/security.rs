//! The server refuses what it must, against a real server on 127.0.0.1:0 over real session
//! files: no token, a wrong token, the token as a cookie or in the URL, a page of another
//! origin, a body not declared JSON, a write while read-only, a path outside the root, a
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
fn the_api_takes_the_token_only_as_a_bearer_header() {
    let f = fixture();
    let before = files_only(&f.all);
    let s = start(&f.root, true, false);
    let a = s.addr();
    let t = s.token().to_string();
    let wrong = "0".repeat(t.len());
    let wrong_bearer = format!("Bearer {wrong}");
    let short_bearer = format!("Bearer {}", &t[..10]);
    let basic = format!("Basic {t}");
    // The cookie the server once set, and any other way a browser sends something by itself.
    let cookie = format!("pi_session_token={t}");
    let file = session_files(&f.root)[0].display().to_string();
    let id = last_id(&session_files(&f.root)[0]);
    let navigate = json!({"path": file, "id": id}).to_string();
    let label = json!({"path": file, "id": id, "label": "x"}).to_string();
    let search = json!({"query": "session", "limit": 10}).to_string();

    type Case<'a> = (&'a str, String, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        ("GET", "/api/events".into(), vec![], ""),
        ("POST", "/api/list_sessions".into(), vec![], "{}"),
        ("POST", "/api/navigate".into(), vec![], &navigate),
        ("POST", "/api/list_sessions".into(), vec![("Authorization", &wrong_bearer)], "{}"),
        ("POST", "/api/list_sessions".into(), vec![("Authorization", &short_bearer)], "{}"),
        ("POST", "/api/list_sessions".into(), vec![("Authorization", &t)], "{}"),
        ("POST", "/api/list_sessions".into(), vec![("Authorization", &basic)], "{}"),
        ("POST", "/api/navigate".into(), vec![("Authorization", &wrong_bearer)], &navigate),
        // The cookie alone grants nothing, nor the token in the URL.
        ("POST", "/api/search_indexed".into(), vec![("Cookie", &cookie)], &search),
        ("POST", "/api/set_label".into(), vec![("Cookie", &cookie)], &label),
        ("GET", "/api/events".into(), vec![("Cookie", &cookie)], ""),
        ("POST", format!("/api/list_sessions?token={t}"), vec![], "{}"),
        ("GET", format!("/api/events?token={t}"), vec![("Cookie", &cookie)], ""),
    ];
    for (method, target, headers, body) in &cases {
        let r = request(a, method, target, headers, body);
        assert_eq!(r.status, 401, "{method} {target} {headers:?}: {}", r.body);
        assert_eq!(r.code(), "unauthorized");
        assert!(!r.body.contains("cli-tool") && !r.body.contains(&t), "a refused answer leaks nothing");
    }

    // The right token as a Bearer header is let in (so the refusals above are the token's
    // doing), the scheme in any case.
    let ok = api(a, &t, "list_sessions", json!({}));
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert!(ok.json()["sessions"].as_array().unwrap().len() >= 10);
    for scheme in ["bearer", "BEARER", "Bearer"] {
        let auth = format!("{scheme} {t}");
        assert_eq!(request(a, "POST", "/api/app_info", &[("Authorization", &auth)], "{}").status, 200, "{scheme}");
    }
    // The token in the URL of a page neither sets a cookie nor redirects, wherever it points.
    for target in [format!("/?token={t}"), format!("//evil.com/x?token={t}"), format!("/\\evil.com/?token={t}")] {
        let r = request(a, "GET", &target, &[], "");
        assert!(!(300..400).contains(&r.status), "{target}: {}", r.status);
        assert_eq!(r.header("location"), None, "{target}");
        assert_eq!(r.header("set-cookie"), None, "{target}");
    }
    s.stop();
    assert_eq!(files_only(&f.all), before, "files changed");
}

#[test]
fn the_page_needs_no_token_and_holds_none() {
    let f = fixture();
    let s = start(&f.root, false, false);
    let t = s.token().to_string();
    for target in ["/", "/index.html", "/favicon.svg"] {
        let r = request(s.addr(), "GET", target, &[], "");
        if !pi_session_serve::assets::is_built() {
            assert_eq!(r.status, 503, "the page saying the UI was not built");
        } else {
            assert_eq!(r.status, 200, "{target}: {}", r.body);
        }
        assert!(!r.body.contains(&t), "{target} holds the token");
        assert_eq!(r.header("set-cookie"), None);
        assert!(r.header("content-security-policy").is_some_and(|c| c.contains("frame-ancestors 'none'")));
    }
    // Every embedded file, as served.
    for path in pi_session_serve::assets::paths() {
        let r = request(s.addr(), "GET", &format!("/{path}"), &[], "");
        assert_eq!(r.status, 200, "{path}");
        assert!(!r.body.contains(&t), "{path} holds the token");
    }
    // The printed URL carries the token in the fragment, which a browser never sends.
    assert_eq!(s.url(), format!("http://{}/#token={t}", s.addr()));
    s.stop();
}

#[test]
fn requests_from_another_origin_are_refused() {
    let f = fixture();
    let before = files_only(&f.all);
    let s = start(&f.root, true, false);
    let (a, t) = (s.addr(), s.token().to_string());
    let auth = format!("Bearer {t}");
    let file = session_files(&f.root)[0].display().to_string();
    let id = last_id(&session_files(&f.root)[0]);
    let label = json!({"path": file, "id": id, "label": "x"}).to_string();
    let search = json!({"query": "session", "limit": 10}).to_string();
    let foreign = format!("http://127.0.0.1:{}", a.port() + 1);
    let foreign_host = format!("http://localhost:{}", a.port());
    let headers: Vec<Vec<(&str, &str)>> = vec![
        // A page on another port of 127.0.0.1, even with the token.
        vec![("Authorization", &auth), ("Origin", &foreign)],
        vec![("Authorization", &auth), ("Origin", &foreign_host)],
        vec![("Authorization", &auth), ("Origin", "null")],
        vec![("Authorization", &auth), ("Origin", "http://evil.example")],
        vec![("Authorization", &auth), ("Sec-Fetch-Site", "cross-site")],
        vec![("Authorization", &auth), ("Sec-Fetch-Site", "same-site")],
        vec![("Authorization", &auth), ("Origin", &foreign), ("Sec-Fetch-Site", "same-site"), ("Content-Type", "text/plain")],
    ];
    for h in &headers {
        for (m, target, body) in [("POST", "/api/search_indexed", search.as_str()), ("POST", "/api/set_label", label.as_str()), ("GET", "/api/events", ""), ("OPTIONS", "/api/list_sessions", "")] {
            let r = request(a, m, target, h, body);
            assert_eq!(r.status, 403, "{m} {target} {h:?}: {}", r.body);
            assert_eq!(r.code(), "forbidden-origin");
            assert!(!r.body.contains("\"sessions\""), "no content");
        }
    }
    // The server's own origin (the page it served) is let in.
    let own = format!("http://{a}");
    for h in [vec![("Authorization", auth.as_str()), ("Origin", own.as_str()), ("Sec-Fetch-Site", "same-origin")], vec![("Authorization", auth.as_str()), ("Sec-Fetch-Site", "none")]] {
        let r = request(a, "POST", "/api/search_indexed", &h, &search);
        assert_eq!(r.status, 200, "{h:?}: {}", r.body);
    }
    s.stop();
    assert_eq!(files_only(&f.all), before, "files changed");
}

#[test]
fn a_command_body_must_be_declared_json() {
    let f = fixture();
    let before = files_only(&f.all);
    let s = start(&f.root, true, false);
    let (a, t) = (s.addr(), s.token().to_string());
    let auth = format!("Bearer {t}");
    let file = session_files(&f.root)[0].display().to_string();
    let id = last_id(&session_files(&f.root)[0]);
    let label = json!({"path": file, "id": id, "label": "x"}).to_string();
    // What a page can send without a preflight, and a missing type.
    for ct in ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""] {
        for (cmd, body) in [("set_label", label.as_str()), ("list_sessions", "{}")] {
            let r = if ct.is_empty() {
                // No Content-Type at all: written by hand.
                let mut sock = std::net::TcpStream::connect(a).unwrap();
                use std::io::Write;
                write!(sock, "POST /api/{cmd} HTTP/1.1\r\nHost: {a}\r\nAuthorization: {auth}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}", body.len()).unwrap();
                let mut raw = Vec::new();
                use std::io::Read;
                sock.read_to_end(&mut raw).unwrap();
                parse_response(&raw)
            } else {
                request(a, "POST", &format!("/api/{cmd}"), &[("Authorization", &auth), ("Content-Type", ct)], body)
            };
            assert_eq!(r.status, 415, "{cmd} {ct:?}: {}", r.body);
            assert_eq!(r.code(), "unsupported-media-type");
        }
    }
    assert_eq!(files_only(&f.all), before, "files changed");
    // JSON with parameters is JSON.
    let r = request(a, "POST", "/api/list_sessions", &[("Authorization", &auth), ("Content-Type", "Application/JSON; charset=utf-8")], "{}");
    assert_eq!(r.status, 200, "{}", r.body);
    s.stop();
}

#[test]
fn error_codes_map_to_statuses() {
    let f = fixture();
    let s = start(&f.root, true, false);
    let (a, t) = (s.addr(), s.token().to_string());
    // A slim fork where the path has no compaction: the request's, not the server's, fault.
    let plain = session_files(&f.root).into_iter().find(|p| !std::fs::read_to_string(p).unwrap().contains("\"type\":\"compaction\"")).unwrap();
    let id = last_id(&plain);
    let before = files_only(&f.all);
    let r = api(a, &t, "fork_slim", json!({"path": plain.display().to_string(), "id": id}));
    assert_eq!((r.status, r.code().as_str()), (409, "no-compaction"), "{}", r.body);
    assert_eq!(files_only(&f.all), before, "files changed");
    s.stop();
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
            ("export_session", json!({"path": p, "leafId": null, "tree": true, "format": "html"})),
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
    let port = a.port();
    let evil_port = "localhost:evil".to_string();
    let (plus, other_loopback) = (format!("127.0.0.1:+{port}"), format!("127.0.0.2:{port}"));
    for host in ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "localhost.evil.example", "10.1.2.3:8765", "", &evil_port, &plus, &other_loopback] {
        for (m, target, body) in [("GET", "/".to_string(), ""), ("POST", "/api/list_sessions".into(), "{}"), ("POST", "/api/navigate".into(), nav.as_str())] {
            let r = request(a, m, &target, &[("Host", host), ("Authorization", &auth)], body);
            assert_eq!(r.status, 403, "Host {host:?} {m} {target}: {}", r.body);
            assert_eq!(r.code(), "forbidden-host");
        }
    }
    // Local names pass (so the refusals are the Host's doing), on any port (the local end of
    // a tunnel) or none.
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}"), format!("localhost:{}", port + 1), "localhost".to_string()] {
        let r = request(a, "POST", "/api/app_info", &[("Host", &host), ("Authorization", &auth)], "{}");
        assert_eq!(r.status, 200, "Host {host}: {}", r.body);
    }
    s.stop();

    // Bound to another loopback address, the server answers to the URL it prints.
    let mut cfg = Config::new(f.root.clone());
    cfg.listen = "127.0.0.2:0".parse().unwrap();
    cfg.watch = false;
    let s = Server::start(cfg).unwrap();
    let b = s.addr();
    assert!(s.url().starts_with(&format!("http://127.0.0.2:{}/#token=", b.port())), "{}", s.url());
    let auth = format!("Bearer {}", s.token());
    let host = format!("127.0.0.2:{}", b.port());
    assert_eq!(request(b, "GET", "/", &[("Host", &host)], "").status / 100, if !pi_session_serve::assets::is_built() { 5 } else { 2 });
    let r = request(b, "POST", "/api/app_info", &[("Host", &host), ("Authorization", &auth), ("Origin", &format!("http://{host}"))], "{}");
    assert_eq!(r.status, 200, "{}", r.body);
    let r = request(b, "POST", "/api/app_info", &[("Host", &format!("127.0.0.3:{}", b.port())), ("Authorization", &auth)], "{}");
    assert_eq!(r.status, 403, "another loopback address than the bound one");
    s.stop();
    assert_eq!(files_only(&f.all), before, "files changed");
}

#[test]
fn responses_carry_the_windows_csp() {
    let f = fixture();
    let s = start(&f.root, false, false);
    let auth = format!("Bearer {}", s.token());
    for (m, target) in [("GET", "/"), ("POST", "/api/app_info"), ("GET", "/nope")] {
        let r = request(s.addr(), m, target, &[("Authorization", &auth)], "{}");
        let csp = r.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("default-src 'self'") && csp.contains("script-src 'self'") && csp.contains("object-src 'none'"), "{target}: {csp}");
        assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
    }
    // Refusals carry it too.
    for r in [request(s.addr(), "POST", "/api/app_info", &[], "{}"), request(s.addr(), "GET", "/", &[("Host", "evil.example")], "")] {
        assert!(r.status >= 400 && r.header("content-security-policy").is_some());
        assert_eq!(r.header("cross-origin-resource-policy"), Some("same-origin"));
    }
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

//! The lineage the UI gets over HTTP (the window's commands, the same JSON): a restored folder
//! whose recorded parent paths are gone (`relinked`, the recorded path kept), a spawned
//! session with the tool call that started it, a fork, own and family figures, the dashboard
//! by family, and a child outside the root: a node of the fork graph, opened read-only on
//! request, refused by every write.

mod common;

use std::path::Path;

use common::*;
use pi_session_serve::{Config, Server};
use serde_json::{json, Value};

const P: &str = "0199b000-0000-7000-8000-00000000000a";
const S: &str = "0199b000-0000-7000-8000-0000000000b1";
const F: &str = "0199b000-0000-7000-8000-0000000000f1";
const O: &str = "0199b000-0000-7000-8000-0000000000d1";
/// Where the files were first written (on another machine): nothing is there now.
const WRITTEN_AT: &str = "/home/someone/.pi/agent/sessions/--home-u-app--";

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn header(id: &str, t: u32, parent: Option<&str>) -> String {
    let mut h = json!({"type": "session", "version": 3, "id": id, "timestamp": format!("2026-05-01T10:00:{t:02}.000Z"), "cwd": "/home/u/app"});
    if let Some(p) = parent {
        h["parentSession"] = json!(p);
    }
    line(h)
}

fn message(id: &str, parent: Option<&str>, t: u32, m: Value) -> String {
    line(json!({"type": "message", "id": id, "parentId": parent, "timestamp": format!("2026-05-01T10:00:{t:02}.000Z"), "message": m}))
}

fn assistant(id: &str, parent: &str, t: u32, content: Value, cost: f64) -> String {
    let usage = json!({"input": 100, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 100, "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}});
    message(id, Some(parent), t, json!({"role": "assistant", "content": content, "provider": "p", "model": "m", "usage": usage, "stopReason": "stop", "timestamp": t}))
}

fn result(id: &str, parent: &str, t: u32, call: &str, text: &str) -> String {
    message(id, Some(parent), t, json!({"role": "toolResult", "toolCallId": call, "toolName": "subagent", "content": [{"type": "text", "text": text}], "isError": false, "timestamp": t}))
}

fn name(t: u32, id: &str) -> String {
    format!("2026-05-01T10-00-{t:02}-000Z_{id}.jsonl")
}

#[test]
fn the_ui_gets_relinked_links_spawns_families_and_the_child_outside() {
    private_cache();
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("restored");
    let dir = root.join("--home-u-app--");
    std::fs::create_dir_all(&dir).unwrap();
    let outside = base.join("runs").join(name(30, O));
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    let recorded_p = format!("{WRITTEN_AT}/{}", name(0, P));
    let p_lines = [
        header(P, 0, None),
        message("u1", None, 1, json!({"role": "user", "content": "fix it", "timestamp": 1})),
        assistant("a1", "u1", 2, json!([{"type": "toolCall", "id": "call_1", "name": "subagent", "arguments": {"sessionId": S}}]), 1.0),
        result("r1", "a1", 20, "call_1", "reviewed"),
        assistant("a2", "r1", 21, json!([{"type": "toolCall", "id": "call_2", "name": "subagent", "arguments": {"task": "profile"}}]), 0.5),
        result("r2", "a2", 40, "call_2", &format!("written to {}", outside.display())),
    ];
    std::fs::write(dir.join(name(0, P)), p_lines.concat()).unwrap();
    let run = |id: &str, t: u32, cost: f64| {
        [
            header(id, t, Some(&recorded_p)),
            message(&format!("{}u", &id[29..]), None, t + 1, json!({"role": "user", "content": "task", "timestamp": t + 1})),
            assistant(&format!("{}a", &id[29..]), &format!("{}u", &id[29..]), t + 2, json!([{"type": "text", "text": "done"}]), cost),
        ]
        .concat()
    };
    std::fs::write(dir.join(name(10, S)), run(S, 10, 0.25)).unwrap();
    std::fs::write(&outside, run(O, 30, 7.0)).unwrap();
    let mut fork = header(F, 50, Some(&recorded_p));
    fork.push_str(&p_lines[1..3].concat());
    fork.push_str(&assistant("fa", "a1", 51, json!([{"type": "text", "text": "another way"}]), 2.0));
    std::fs::write(dir.join(name(50, F)), fork).unwrap();
    let before = snapshot(&base);

    let mut cfg = Config::new(root.clone());
    cfg.listen = "127.0.0.1:0".parse().unwrap();
    cfg.allow_writes = true;
    cfg.watch = false;
    let s = Server::start(cfg).unwrap();
    let (a, t) = (s.addr(), s.token().to_string());
    let p_path = dir.join(name(0, P)).to_string_lossy().into_owned();

    let list = api(a, &t, "list_sessions", json!({})).json();
    let row = |id: &str| list["sessions"].as_array().unwrap().iter().find(|r| r["id"] == json!(id)).cloned().unwrap_or_else(|| panic!("no row {id}: {list}"));
    let (p, sr, fr) = (row(P), row(S), row(F));
    assert_eq!((&sr["forkStatus"], &sr["kind"], &sr["parentPath"], &sr["parentSession"]), (&json!("relinked"), &json!("spawn"), &json!(p_path), &json!(recorded_p)));
    assert_eq!((&sr["spawnedBy"], &sr["spawnedByToolCall"], &sr["spawnedByGuess"], &sr["forkPointId"]), (&json!("a1"), &json!("call_1"), &json!(false), &Value::Null));
    assert_eq!((&fr["forkStatus"], &fr["kind"], &fr["forkPointId"], &fr["spawnedBy"]), (&json!("relinked"), &json!("fork"), &json!("a1"), &Value::Null));
    assert_eq!((sr["warnings"].as_u64(), fr["warnings"].as_u64()), (Some(0), Some(0)), "a relinked parent is not missing");
    // Own and family: P 1.5 + its spawn 0.25 (the child outside is not read); the fork's own is
    // its new answer only (a1 is P's).
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap();
    assert_eq!((f(&p, "cost"), f(&p, "ownCost"), f(&p, "familyCost"), p["familySize"].as_u64()), (1.5, 1.5, 1.75, Some(2)));
    assert_eq!((f(&fr, "cost"), f(&fr, "ownCost"), f(&fr, "familyCost"), fr["familySize"].as_u64()), (3.0, 2.0, 2.0, Some(1)));
    assert_eq!((f(&sr, "ownCost"), f(&sr, "familyCost")), (0.25, 0.25));

    let graph = api(a, &t, "fork_graph", json!({})).json();
    let nodes = graph["nodes"].as_array().unwrap();
    let node = |id: &str| nodes.iter().find(|n| n["id"] == json!(id)).cloned().unwrap_or_else(|| panic!("no node {id}: {graph}"));
    let sn = node(S);
    assert_eq!((&sn["status"], &sn["kind"], &sn["spawnedBy"], &sn["spawnedByToolCall"], &sn["parentPath"]), (&json!("relinked"), &json!("spawn"), &json!("a1"), &json!("call_1"), &json!(p_path)));
    assert_eq!(f(&node(P), "familyCost"), 1.75);
    let on = node(O);
    let out_path = outside.to_string_lossy().into_owned();
    assert_eq!((&on["path"], &on["status"], &on["kind"], &on["parentPath"], &on["spawnedBy"], &on["spawnedByToolCall"]), (&json!(out_path), &json!("outside-roots"), &json!("spawn"), &json!(p_path), &json!("a2"), &json!("call_2")));

    let dash = api(a, &t, "dashboard", json!({"query": {"bucket": "day", "top": 50, "byFamily": true}})).json();
    let fams = dash["bySession"].as_array().unwrap();
    assert_eq!(fams.len(), 2, "P's family and the fork's: {dash}");
    let pf = fams.iter().find(|r| r["path"] == json!(p_path)).unwrap();
    assert_eq!((f(pf, "cost"), pf["sessions"].as_u64()), (1.75, Some(2)));

    // The child outside: read commands refuse it until it is opened; every write refuses it.
    assert_eq!(api(a, &t, "transcript_page", json!({"path": out_path, "start": 0, "count": 10})).status, 403);
    let opened = api(a, &t, "open_outside", json!({"path": out_path}));
    assert_eq!(opened.status, 200, "{}", opened.body);
    let o = opened.json();
    assert_eq!((&o["forkStatus"], &o["readOnly"], f(&o, "cost")), (&json!("outside-roots"), &json!("outside-roots"), 7.0));
    let page = api(a, &t, "transcript_page", json!({"path": out_path, "start": 0, "count": 10})).json();
    assert_eq!(page["total"], json!(2));
    for (c, args) in [
        ("navigate", json!({"path": out_path, "id": "00000d1u"})),
        ("set_label", json!({"path": out_path, "id": "00000d1u", "label": "x"})),
        ("fork_session", json!({"path": out_path, "id": "00000d1u", "position": "at"})),
        ("prune_session", json!({"path": out_path, "keep": ["00000d1u"]})),
    ] {
        let r = api(a, &t, c, args);
        assert_eq!((r.status, r.json()["code"].as_str().map(str::to_string)), (403, Some("outside-root".to_string())), "{c}: {}", r.body);
    }
    // A file outside that the lineage does not list never opens.
    let stranger = base.join("runs/other.jsonl");
    std::fs::copy(&outside, &stranger).unwrap();
    assert_eq!(api(a, &t, "open_outside", json!({"path": stranger.to_string_lossy()})).status, 403);
    std::fs::remove_file(&stranger).unwrap();
    s.stop();
    assert_eq!(snapshot(&base).into_iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "jsonl")).collect::<Vec<_>>(), before.into_iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "jsonl")).collect::<Vec<_>>(), "no session file changed");
    assert!(Path::new(&out_path).exists());
}

//! Records the real core's answers for the UI's unit tests, and fails when the committed
//! recordings are stale.
//!
//! `ui/src/lib/backend/recorded/requests.json` lists, per scenario, the calls the UI tests make
//! (command and arguments, as the UI sends them, with session paths under `/demo/sessions`).
//! Each scenario runs in order on a fresh copy of `demo/sessions` with writes allowed, through
//! the server's own dispatch (the app's `call`, as `pi-session serve` holds it); the answers go to
//! `recorded/<scenario>.json`, which the UI's `RecordedBackend` replays.
//!
//!   UPDATE_RECORDED=1 cargo test -p pi-session-serve --test record     # regenerate
//!
//! What a write makes up (the new line's id and timestamp) is replaced by fixed placeholders, so
//! a recording is the same on every run and every machine.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;
use pi_session_app::explorer::Explorer;
use serde_json::{json, Value};

const ROOT: &str = "/demo/sessions";
/// Commands after which the state differs (the replay counts them as steps).

fn recorded_dir() -> PathBuf {
    repo_root().join("ui/src/lib/backend/recorded")
}

/// Replaces strings and numbers throughout a JSON value.
struct Rewrite {
    /// Substrings (longest first).
    subs: Vec<(String, String)>,
    numbers: Vec<(f64, f64)>,
}

impl Rewrite {
    fn apply(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                for (from, to) in &self.subs {
                    if s.contains(from.as_str()) {
                        *s = s.replace(from.as_str(), to);
                    }
                }
            }
            Value::Number(n) => {
                if let Some(f) = n.as_f64() {
                    if let Some((_, to)) = self.numbers.iter().find(|(from, _)| *from == f) {
                        *v = json!(to);
                    }
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.apply(x)),
            Value::Object(o) => o.values_mut().for_each(|x| self.apply(x)),
            _ => {}
        }
    }
    fn reversed(&self) -> Rewrite {
        Rewrite { subs: self.subs.iter().map(|(a, b)| (b.clone(), a.clone())).collect(), numbers: self.numbers.iter().map(|(a, b)| (*b, *a)).collect() }
    }
}

fn sizes(dir: &Path) -> BTreeMap<PathBuf, usize> {
    snapshot(dir).into_iter().filter(|(p, _)| p.extension().is_some_and(|e| e == "jsonl")).map(|(p, b)| (p, b.len())).collect()
}

/// Runs one scenario; returns the recording.
fn record(name: &str, calls: &[Value], tmp: &Path) -> Value {
    let root = tmp.join(name).join("sessions");
    copy_tree(&repo_root().join("demo/sessions"), &root);
    let root = root.canonicalize().unwrap();
    let app = pi_session_app::service::App::serve(std::sync::Arc::new(Explorer::new(root.clone(), "flag", false)));
    let mut rw = Rewrite { subs: vec![(root.display().to_string(), ROOT.to_string())], numbers: vec![] };
    let mut made = 0u32;
    let mut step = 0u32;
    let mut out = Vec::new();
    for c in calls {
        let command = c["command"].as_str().unwrap_or_else(|| panic!("{name}: a call without command: {c}"));
        let mut args = c.get("args").cloned().unwrap_or(json!({}));
        rw.reversed().apply(&mut args);
        let before = sizes(&root);
        let answer = app.call(command, args).map(|json| serde_json::from_str::<Value>(&json).unwrap());
        let after = sizes(&root);
        assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>(), "{name}: {command} made or removed a file; recordings cover appends only");
        // The lines a write appended: their made-up id and timestamp get placeholders.
        for (path, len) in &after {
            if *len == before[path] {
                continue;
            }
            let bytes = std::fs::read(path).unwrap();
            for line in String::from_utf8_lossy(&bytes[before[path]..]).lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                made += 1;
                if let Some(id) = v["id"].as_str() {
                    rw.subs.push((id.to_string(), format!("ffff{made:04x}")));
                }
                if let Some(ts) = v["timestamp"].as_str() {
                    let fixed = format!("2099-01-01T00:00:{:02}.000Z", made.min(59));
                    let ms = |t: &str| chrono::DateTime::parse_from_rfc3339(t).unwrap().timestamp_millis() as f64;
                    rw.numbers.push((ms(ts), ms(&fixed)));
                    rw.subs.push((ts.to_string(), fixed));
                }
            }
        }
        let mut entry = json!({ "step": step, "command": command, "args": c.get("args").cloned().unwrap_or(json!({})) });
        match answer {
            Ok(mut v) => {
                rw.apply(&mut v);
                entry["result"] = v;
            }
            Err(e) => {
                let mut v = json!({ "code": e.code, "message": e.message });
                rw.apply(&mut v);
                entry["error"] = v;
            }
        }
        out.push(entry);
        if pi_session_app::commands::find(command).is_some_and(|c| c.changes_state) {
            step += 1;
        }
    }
    json!({ "scenario": name, "root": ROOT, "calls": out })
}

#[test]
fn recordings_are_up_to_date() {
    let tmp = tempfile::tempdir().unwrap();
    private_cache();
    let dir = recorded_dir();
    let requests: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("requests.json")).unwrap()).unwrap();
    let scenarios = requests["scenarios"].as_object().expect("requests.json: {\"scenarios\": {name: [calls]}}");
    assert!(!scenarios.is_empty());
    let update = std::env::var_os("UPDATE_RECORDED").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, calls) in scenarios {
        let rec = record(name, calls.as_array().unwrap(), tmp.path());
        let text = serde_json::to_string_pretty(&rec).unwrap() + "\n";
        // Twice: a recording that differs between runs would never be up to date.
        let again = serde_json::to_string_pretty(&record(name, calls.as_array().unwrap(), &tmp.path().join("again"))).unwrap() + "\n";
        assert_eq!(text, again, "{name}: the recording differs between two runs");
        let file = dir.join(format!("{name}.json"));
        if update {
            std::fs::write(&file, &text).unwrap();
            println!("wrote {} ({} calls)", file.display(), calls.as_array().unwrap().len());
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
            stale.push(file.display().to_string());
        }
    }
    // No recording without its scenario.
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.extension().is_some_and(|e| e == "json") && stem != "requests" && !scenarios.contains_key(&stem) {
            if update {
                std::fs::remove_file(&p).unwrap();
            } else {
                stale.push(format!("{} (no such scenario)", p.display()));
            }
        }
    }
    assert!(stale.is_empty(), "stale recordings: {stale:?}\nregenerate them: UPDATE_RECORDED=1 cargo test -p pi-session-serve --test record");
}

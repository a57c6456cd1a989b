//! `pi-session resume FILE` through the binary: the terminal from `$TERMINAL` gets
//! `-e pi --session FILE` and starts in the session's cwd; with no terminal anywhere the
//! command to run is printed, quoted for a shell, and the exit is 0.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");

/// A session whose header's cwd is `cwd`, in a folder whose name needs quoting.
fn session(dir: &Path, cwd: &Path) -> PathBuf {
    let folder = dir.join("it's here");
    std::fs::create_dir_all(&folder).unwrap();
    let p = folder.join("2026-03-01T10-00-00-000Z_s.jsonl");
    let header = serde_json::json!({"type": "session", "version": 3, "id": "s", "timestamp": "2026-03-01T10:00:00.000Z", "cwd": cwd});
    let user = r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-03-01T10:00:01.000Z","message":{"role":"user","content":"one","timestamp":1}}"#;
    std::fs::write(&p, format!("{header}\n{user}\n")).unwrap();
    p
}

#[test]
fn the_terminal_of_terminal_runs_pi_in_the_sessions_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let cwd = dir.join("my project");
    std::fs::create_dir(&cwd).unwrap();
    let file = session(&dir, &cwd);
    // The "terminal": records the folder it started in, then each argument on a line.
    let record = dir.join("record.txt");
    let term = dir.join("fake-terminal");
    std::fs::write(&term, format!("#!/bin/sh\n{{ pwd; for a in \"$@\"; do printf '%s\\n' \"$a\"; done; }} > '{}.tmp'\nmv '{0}.tmp' '{0}'\n", record.display())).unwrap();
    std::fs::set_permissions(&term, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = Command::new(BIN).args(["resume"]).arg(&file).env("TERMINAL", &term).env("PATH", "/usr/bin:/bin").current_dir(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("opened $TERMINAL"), "{stderr}");
    assert!(out.stdout.is_empty());

    let until = Instant::now() + Duration::from_secs(10);
    while !record.exists() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let got = std::fs::read_to_string(&record).expect("the terminal ran");
    let lines: Vec<&str> = got.lines().collect();
    assert_eq!(lines, [cwd.to_str().unwrap(), "-e", "pi", "--session", file.to_str().unwrap()]);
}

#[test]
fn without_a_terminal_the_command_is_printed() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let cwd = dir.join("my project");
    std::fs::create_dir(&cwd).unwrap();
    let file = session(&dir, &cwd);
    let empty = dir.join("empty-path");
    std::fs::create_dir(&empty).unwrap();

    let out = Command::new(BIN).args(["resume"]).arg(&file).env_remove("TERMINAL").env("PATH", &empty).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let q = |p: &Path| format!("'{}'", p.to_str().unwrap().replace('\'', r"'\''"));
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("cd {} && pi --session {}\n", q(&cwd), q(&file)));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no terminal found"));

    // A $TERMINAL that is not there is no terminal either.
    let out = Command::new(BIN).args(["resume"]).arg(&file).env("TERMINAL", "no-such-terminal").env("PATH", &empty).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("cd "));

    // A missing file: an error, exit 1.
    let out = Command::new(BIN).args(["resume"]).arg(dir.join("missing.jsonl")).env("PATH", &empty).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

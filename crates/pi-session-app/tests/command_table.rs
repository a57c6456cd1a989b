//! The command table as both shells see it: every command of the table is dispatched (none falls
//! through to "no command"), its arguments are checked by name (an unknown one is refused), the
//! window-only commands are refused over serve with `window-only` and reach their body in the
//! window, and a command that is not in the table answers `not-found`.

use std::sync::Arc;

use pi_session_app::api::ErrorCode;
use pi_session_app::commands::COMMANDS;
use pi_session_app::explorer::Explorer;
use pi_session_app::service::App;
use serde_json::json;

fn apps() -> (tempfile::TempDir, Arc<App>, Arc<App>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    std::fs::create_dir_all(&root).unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let window = App::window(Arc::new(Explorer::new(root.clone(), "flag", true)), data);
    let serve = App::serve(Arc::new(Explorer::new(root, "flag", true)));
    (dir, window, serve)
}

#[test]
fn every_command_of_the_table_is_dispatched_in_both_shells() {
    let (_dir, window, serve) = apps();
    let mut window_only = 0;
    for c in COMMANDS {
        // An argument the command does not take: refused before the body runs, by name.
        let bogus = window.call(c.name, json!({"notAnArgument": 1})).unwrap_err();
        assert_eq!(bogus.code, ErrorCode::Invalid, "{}: {}", c.name, bogus.message);
        assert!(bogus.message.contains(c.name), "{}: {}", c.name, bogus.message);

        let over_serve = serve.call(c.name, json!({"notAnArgument": 1}));
        if c.window_only {
            window_only += 1;
            let e = over_serve.unwrap_err();
            assert_eq!(e.code, ErrorCode::WindowOnly, "{}: {}", c.name, e.message);
        } else {
            let e = over_serve.unwrap_err();
            assert_eq!(e.code, ErrorCode::Invalid, "{} over serve: {}", c.name, e.message);
        }
    }
    assert!(window_only > 0 && window_only < COMMANDS.len());

    let e = window.call("no_such_command", json!({})).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
    let e = serve.call("no_such_command", json!({})).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[test]
fn commands_without_arguments_answer_in_both_shells() {
    let (_dir, window, serve) = apps();
    for c in COMMANDS.iter().filter(|c| c.params.is_empty() && !c.changes_state) {
        let w = window.call(c.name, serde_json::Value::Null);
        assert!(w.is_ok(), "{} in the window: {:?}", c.name, w.err());
        let s = serve.call(c.name, serde_json::Value::Null);
        if c.window_only {
            assert_eq!(s.unwrap_err().code, ErrorCode::WindowOnly, "{}", c.name);
        } else {
            assert!(s.is_ok(), "{} over serve: {:?}", c.name, s.err());
        }
        // Each answer is JSON.
        serde_json::from_str::<serde_json::Value>(&w.unwrap()).unwrap();
    }
}

#[test]
fn the_table_names_are_unique_snake_case() {
    let mut names: Vec<_> = COMMANDS.iter().map(|c| c.name).collect();
    names.sort();
    let n = names.len();
    names.dedup();
    assert_eq!(names.len(), n, "a command is defined twice");
    for c in COMMANDS {
        assert!(c.name.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_'), "{}", c.name);
        assert!(!c.doc.trim().is_empty(), "{} has no doc comment", c.name);
    }
}

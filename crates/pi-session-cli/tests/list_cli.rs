//! `pi-session list --json` through the real binary: the list cache it writes while it makes
//! its answer.

use std::fs;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");

#[test]
fn a_first_listing_writes_its_cache_whole_and_the_next_answers_the_same_from_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("sessions");
    let cache = tmp.path().join("cache");
    for (k, word) in ["moss", "fern", "lichen"].iter().enumerate() {
        let id = format!("s{k}");
        let lines = [
            format!(r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-03-02T10:00:0{k}.000Z","cwd":"/w"}}"#),
            format!(r#"{{"type":"message","id":"{id}-u","parentId":null,"timestamp":"2026-03-02T10:00:0{k}.500Z","message":{{"role":"user","content":"about {word}"}}}}"#),
        ];
        let dir = root.join("--w--");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(format!("{id}.jsonl")), lines.join("\n") + "\n").unwrap();
    }
    let list = || {
        let out = Command::new(BIN).args(["list", "--json", "--sessions-dir"]).arg(&root).env("PI_SESSION_CACHE_DIR", &cache).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let first = list();
    let answer: serde_json::Value = serde_json::from_slice(&first).unwrap();
    assert_eq!(answer["sessions"].as_array().unwrap().len(), 3, "{answer}");
    // One cache file, complete (it parses and holds the three files), no temporary left.
    let names: Vec<String> = fs::read_dir(&cache).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].starts_with("list-") && names[0].ends_with(".json"), "{names:?}");
    let saved: serde_json::Value = serde_json::from_slice(&fs::read(cache.join(&names[0])).unwrap()).unwrap();
    assert_eq!(saved["files"].as_object().unwrap().len(), 3, "{saved}");
    // From the cache, the same answer.
    assert_eq!(list(), first);
}

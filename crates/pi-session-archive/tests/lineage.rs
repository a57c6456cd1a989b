//! The archive's lineage columns, read back through the parquet crate: a restored folder
//! (the recorded parent paths gone) links its fork and its spawn to the parent by session id,
//! with the parent's id, the kind, the fork point or the tool call, and own figures that leave
//! a fork's copied entries to its parent.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use arrow_array::{Array, Float64Array, RecordBatch, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use pi_session_archive::{export, ExportOptions, Source};
use serde_json::{json, Value};

const P: &str = "0199c000-0000-7000-8000-00000000000a";
const S: &str = "0199c000-0000-7000-8000-0000000000b1";
const F: &str = "0199c000-0000-7000-8000-0000000000f1";

fn line(v: Value) -> String {
    format!("{v}\n")
}

fn header(id: &str, parent: Option<&str>) -> String {
    let mut h = json!({"type": "session", "version": 3, "id": id, "timestamp": "2026-05-01T10:00:00.000Z", "cwd": "/w"});
    if let Some(p) = parent {
        h["parentSession"] = json!(p);
    }
    line(h)
}

fn entry(id: &str, parent: Option<&str>, role: &str, content: Value, cost: Option<f64>) -> String {
    let mut m = json!({"role": role, "content": content, "timestamp": 1});
    if let Some(c) = cost {
        m["usage"] = json!({"input": 10, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 10, "cost": {"total": c}});
    }
    line(json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-05-01T10:00:01.000Z", "message": m}))
}

fn parts(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(parts(&p));
        } else if p.extension().is_some_and(|x| x == "parquet") {
            out.push(p);
        }
    }
    out
}

fn batches(dir: &Path) -> Vec<RecordBatch> {
    parts(dir).iter().flat_map(|p| ParquetRecordBatchReaderBuilder::try_new(fs::File::open(p).unwrap()).unwrap().build().unwrap().map(Result::unwrap)).collect()
}

fn text(b: &RecordBatch, col: &str, row: usize) -> Option<String> {
    let a = b.column_by_name(col).unwrap_or_else(|| panic!("no column {col}"));
    let a = a.as_any().downcast_ref::<StringArray>().unwrap();
    (!a.is_null(row)).then(|| a.value(row).to_string())
}

fn num(b: &RecordBatch, col: &str, row: usize) -> f64 {
    b.column_by_name(col).unwrap().as_any().downcast_ref::<Float64Array>().unwrap().value(row)
}

#[test]
fn a_restored_folder_keeps_its_lineage_in_the_archive() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("restored");
    let dir = root.join("--w--");
    fs::create_dir_all(&dir).unwrap();
    let gone = |id: &str| format!("/old/home/.pi/agent/sessions/--w--/2026-05-01T10-00-00-000Z_{id}.jsonl");
    let p_lines = [
        header(P, None),
        entry("u1", None, "user", json!("go"), None),
        entry("a1", Some("u1"), "assistant", json!([{"type": "toolCall", "id": "call_1", "name": "subagent", "arguments": {"sessionId": S}}]), Some(1.0)),
    ];
    fs::write(dir.join(format!("2026-05-01T10-00-00-000Z_{P}.jsonl")), p_lines.concat()).unwrap();
    fs::write(dir.join(format!("2026-05-01T10-00-00-000Z_{S}.jsonl")), [header(S, Some(&gone(P))), entry("s1", None, "user", json!("task"), None), entry("s2", Some("s1"), "assistant", json!([]), Some(0.25))].concat()).unwrap();
    fs::write(dir.join(format!("2026-05-01T10-00-00-000Z_{F}.jsonl")), [header(F, Some(&gone(P))), p_lines[1].clone(), p_lines[2].clone(), entry("f1", Some("a1"), "assistant", json!([]), Some(2.0))].concat()).unwrap();
    let out = tmp.path().join("archive");
    std::env::set_var("PI_SESSION_CACHE_DIR", tmp.path().join("cache"));
    export(&ExportOptions { out: out.clone(), sources: vec![Source { machine: "laptop".into(), root: root.clone() }], with_text: false }).unwrap();

    let mut by_id: HashMap<String, (RecordBatch, usize)> = HashMap::new();
    for b in batches(&out.join("sessions")) {
        for r in 0..b.num_rows() {
            by_id.insert(text(&b, "id", r).unwrap(), (b.clone(), r));
        }
    }
    let (b, r) = &by_id[S];
    assert_eq!(text(b, "parent_session", *r), Some(gone(P)), "the recorded path");
    assert_eq!(text(b, "parent_path", *r), Some(dir.join(format!("2026-05-01T10-00-00-000Z_{P}.jsonl")).to_string_lossy().into_owned()));
    assert_eq!((text(b, "parent_id", *r).as_deref(), text(b, "link_status", *r).as_deref(), text(b, "kind", *r).as_deref()), (Some(P), Some("relinked"), Some("spawn")));
    assert_eq!((text(b, "spawned_by", *r).as_deref(), text(b, "spawned_by_tool_call", *r).as_deref(), text(b, "fork_point_id", *r)), (Some("a1"), Some("call_1"), None));
    let (b, r) = &by_id[F];
    assert_eq!((text(b, "link_status", *r).as_deref(), text(b, "kind", *r).as_deref(), text(b, "fork_point_id", *r).as_deref()), (Some("relinked"), Some("fork"), Some("a1")));
    assert_eq!((num(b, "cost", *r), num(b, "own_cost", *r)), (3.0, 2.0), "the fork's copy of a1 is the parent's");
    let (b, r) = &by_id[P];
    assert_eq!((text(b, "link_status", *r), text(b, "kind", *r), num(b, "own_cost", *r)), (None, None, 1.0));
}

//! Compare-and-append against a live writer (docs/design.md, "Writing"): a Node process
//! (tests/writes/race-writer.mjs) appends a pi-shaped message line every 3 ms, each a child of
//! the line it wrote before, while this test runs 60 `pi-session label` commands, one after the
//! other, on the same file. Then the file is parsed:
//!
//! * a label line's `parentId` must be the entry just before it (pi takes the last line as the
//!   leaf: a label line naming an older entry drops the lines between out of pi's context);
//! * every line must parse (no line of ours spliced into one of the writer's);
//! * every label that exited 0 is a whole line at the offset it printed; a refused one exited
//!   75 with "try again" and wrote nothing.
//!
//! The writer opens the file for each line as pi does (`whole`: one write; `split`: two writes
//! 1 ms apart), or keeps one descriptor open for the whole run (`persistent`,
//! `persistent-split`), where no lease can be had and the check right before the write is all
//! there is. Node is required: without it the tests fail (they do not skip).

#[path = "../../pi-session/tests/common/mod.rs"]
mod common;

use std::collections::HashSet;
use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::repo_root;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_pi-session");
const LABELS: usize = 60;
const INTERVAL_MS: &str = "3";
const INITIAL: usize = 6;

/// One `pi-session label` run.
struct Run {
    code: Option<i32>,
    out: Option<Value>,
    err: String,
}

/// A finished race: the file's bytes, our runs, the writer's ids.
struct Race {
    bytes: Vec<u8>,
    runs: Vec<Run>,
    writer_ids: Vec<String>,
    took: Duration,
}

impl Race {
    fn ok(&self) -> impl Iterator<Item = &Value> {
        self.runs.iter().filter_map(|r| r.out.as_ref())
    }

    fn refused(&self) -> Vec<&Run> {
        self.runs.iter().filter(|r| r.out.is_none()).collect()
    }

    fn guards(&self, g: &str) -> usize {
        self.ok().filter(|v| v["guard"] == g).count()
    }

    /// Offsets of lines of ours that a later line of the same command superseded.
    fn superseded(&self) -> HashSet<u64> {
        self.ok().flat_map(|v| v["superseded"].as_array().cloned().unwrap_or_default()).map(|s| s["offset"].as_u64().unwrap()).collect()
    }

    /// The file's lines with their offsets (the file ends with a complete line).
    fn lines(&self) -> Vec<(u64, &[u8])> {
        assert_eq!(self.bytes.last(), Some(&b'\n'), "the file ends with a complete line");
        let mut at = 0u64;
        self.bytes[..self.bytes.len() - 1]
            .split(|&b| b == b'\n')
            .map(|l| {
                let r = (at, l);
                at += l.len() as u64 + 1;
                r
            })
            .collect()
    }

    /// Lines that do not parse as one JSON object (spliced, or the fragment left by a splice).
    fn damaged(&self) -> Vec<String> {
        self.lines().iter().filter(|(_, l)| !serde_json::from_slice::<Value>(l).is_ok_and(|v| v.is_object())).map(|(_, l)| String::from_utf8_lossy(l).into_owned()).collect()
    }

    /// Label lines whose `parentId` is not the id of the entry line just before them, skipping
    /// the lines in `skip` (lines of ours that were superseded). Returns (stale offsets, labels).
    fn stale_labels(&self, skip: &HashSet<u64>) -> (Vec<u64>, usize) {
        let mut prev: Option<String> = None;
        let (mut stale, mut labels) = (Vec::new(), 0);
        for (at, l) in self.lines() {
            let Ok(v) = serde_json::from_slice::<Value>(l) else { continue };
            if skip.contains(&at) || v["type"] == "session" {
                continue;
            }
            if v["type"] == "label" {
                labels += 1;
                if v["parentId"].as_str().map(str::to_string) != prev {
                    stale.push(at);
                }
            }
            prev = v["id"].as_str().map(str::to_string);
        }
        (stale, labels)
    }

    /// Writer lines that landed between our first and last label line: the race happened.
    fn interleaved(&self) -> usize {
        let ls = self.lines();
        let is = |l: &[u8], t: &str| serde_json::from_slice::<Value>(l).is_ok_and(|v| v["type"] == t);
        let first = ls.iter().position(|(_, l)| is(l, "label")).expect("a label line");
        let last = ls.iter().rposition(|(_, l)| is(l, "label")).unwrap();
        ls[first..last].iter().filter(|(_, l)| is(l, "message")).count()
    }

    /// Every label that exited 0: its line, whole, at the offset it printed; refusals exited
    /// 75 with the "try again" message.
    fn check_runs(&self) {
        for v in self.ok() {
            let (line, o) = (v["line"].as_str().unwrap().as_bytes(), v["offset"].as_u64().unwrap() as usize);
            assert_eq!(&self.bytes[o..o + line.len()], line, "our line at the offset printed");
            assert_eq!(self.bytes[o - 1], b'\n', "our line starts a line");
            assert_eq!(self.bytes[o + line.len()], b'\n', "our line ends a line");
        }
        for r in self.refused() {
            assert_eq!(r.code, Some(75), "a refusal: {}", r.err);
            assert!(r.err.contains("pi is writing this session") && r.err.contains("try again"), "{}", r.err);
        }
    }

    fn print(&self, mode: &str) {
        let skip = self.superseded();
        let (raw, labels) = self.stale_labels(&HashSet::new());
        let (last, _) = self.stale_labels(&skip);
        println!(
            "race ({mode} writer, a line every {INTERVAL_MS} ms): {} label commands: {} wrote, {} refused (busy); guard: {} lease, {} check; label lines in the file: {labels} ({} superseded by a later one of the same command); writer lines: {} ({} between our first and last label); stale parents: {} (of the lines that stand: {}); damaged lines: {}; took {:.1} s",
            self.runs.len(),
            self.ok().count(),
            self.refused().len(),
            self.guards("lease"),
            self.guards("check"),
            skip.len(),
            self.writer_ids.len(),
            self.interleaved(),
            raw.len(),
            last.len(),
            self.damaged().len(),
            self.took.as_secs_f64()
        );
    }
}

/// A session (header and a chain of entries) in a sessions root; the writer appends while
/// `pi-session label` runs LABELS times; then the writer stops.
fn race(mode: &str) -> Race {
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("sessions");
    let folder = root.join("--home-alice-projects-webapp--");
    fs::create_dir_all(&folder).unwrap();
    let file = folder.join("2026-03-02T10-00-00-000Z_019caf2b-a8c0-7719-a0e6-151785f31507.jsonl");
    let mut text = json!({"type":"session","version":3,"id":"019caf2b-a8c0-7719-a0e6-151785f31507","timestamp":"2026-03-02T10:00:00.000Z","cwd":"/home/alice/projects/webapp"}).to_string();
    text.push('\n');
    let mut ids = Vec::new();
    for i in 0..INITIAL {
        let id = format!("b00000{i:02x}");
        let line = json!({"type":"message","id":id,"parentId":ids.last(),"timestamp":format!("2026-03-02T10:00:{i:02}.000Z"),
            "message":{"role": if i % 2 == 0 { "user" } else { "assistant" },"content":format!("initial {i}"),"timestamp":1_772_445_600_000u64 + i as u64}});
        text.push_str(&line.to_string());
        text.push('\n');
        ids.push(id);
    }
    fs::write(&file, &text).unwrap();

    let stop = tmp.path().join("stop");
    let script = repo_root().join("tests/writes/race-writer.mjs");
    let writer = Command::new("node")
        .arg(&script)
        .arg(&file)
        .arg(ids.last().unwrap())
        .arg(mode)
        .arg(INTERVAL_MS)
        .arg(&stop)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node is required for this test (install Node.js 20+)");
    // The writer is running: its first lines are in.
    let initial_len = text.len() as u64;
    while fs::metadata(&file).unwrap().len() < initial_len + 300 {
        assert!(started.elapsed() < Duration::from_secs(20), "the writer did not start");
        std::thread::sleep(Duration::from_millis(5));
    }
    let runs: Vec<Run> = (0..LABELS)
        .map(|n| {
            let out = Command::new(BIN)
                .arg("label")
                .arg(&file)
                .arg(&ids[n % ids.len()])
                .arg(format!("race {n}"))
                .arg("--sessions-dir")
                .arg(&root)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            let v = out.status.success().then(|| serde_json::from_slice::<Value>(&out.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {err}")));
            Run { code: out.status.code(), out: v, err }
        })
        .collect();
    fs::write(&stop, b"").unwrap();
    let w = writer.wait_with_output().unwrap();
    assert!(w.status.success(), "writer failed: {}", String::from_utf8_lossy(&w.stderr));
    let summary: Value = serde_json::from_slice(&w.stdout).expect("the writer's summary");
    let writer_ids = summary["ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    let bytes = fs::read(&file).unwrap();
    assert!(bytes.starts_with(text.as_bytes()), "the initial bytes are untouched");
    Race { bytes, runs, writer_ids, took: started.elapsed() }
}

/// The writer's lines: each exactly once, in order, each a child of the one before.
fn check_writer_lines(r: &Race) {
    let theirs: Vec<Value> = r.lines().iter().filter_map(|(_, l)| serde_json::from_slice::<Value>(l).ok()).filter(|v| v["type"] == "message" && v["id"].as_str().is_some_and(|i| i.starts_with('c'))).collect();
    let got: Vec<&str> = theirs.iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(got, r.writer_ids.iter().map(String::as_str).collect::<Vec<_>>(), "the writer's lines, each once, in order");
    for w in theirs.windows(2) {
        assert_eq!(w[1]["parentId"], w[0]["id"]);
    }
}

/// pi's way (open, one write, close per line): no label line with a stale parent, no refusal.
#[test]
fn labels_race_a_whole_line_writer() {
    let r = race("whole");
    r.print("whole");
    assert!(r.damaged().is_empty(), "damaged lines: {:?}", r.damaged());
    r.check_runs();
    assert_eq!(r.refused().len(), 0, "a writer of whole lines never leaves a line half-written");
    check_writer_lines(&r);
    assert!(r.interleaved() > 0, "the writer's lines landed among ours: the race happened");
    let (stale, labels) = r.stale_labels(&HashSet::new());
    assert_eq!(labels, LABELS);
    assert_eq!(stale, Vec::<u64>::new(), "label lines whose parentId is not the entry just before them");
}

/// Each line in two writes 1 ms apart, the file opened per line: never spliced.
#[test]
fn labels_race_a_two_write_writer() {
    let r = race("split");
    r.print("split");
    assert_eq!(r.damaged(), Vec::<String>::new(), "spliced lines");
    r.check_runs();
    check_writer_lines(&r);
    assert!(r.interleaved() > 0, "the race happened");
    let (stale, labels) = r.stale_labels(&HashSet::new());
    assert_eq!(labels, r.ok().count(), "one label line per command that wrote");
    assert_eq!(stale, Vec::<u64>::new(), "label lines whose parentId is not the entry just before them");
}

/// A writer that keeps its descriptor open: no lease can be had, so every append goes by the
/// check right before the write. Whole-line writes do not interleave within a line (each is one
/// `write` on an `O_APPEND` descriptor), so nothing is spliced; a line of the writer that lands
/// between our check and our write is seen from our descriptor's position, and the label line
/// it made stale is appended again after it (reported as superseded).
#[test]
fn labels_race_a_writer_holding_its_descriptor() {
    let r = race("persistent");
    r.print("persistent");
    assert_eq!(r.guards("lease"), 0, "no lease while the writer holds the file open");
    assert!(r.damaged().is_empty(), "damaged lines: {:?}", r.damaged());
    r.check_runs();
    check_writer_lines(&r);
    check_stale_were_superseded(&r);
}

/// A writer that keeps its descriptor open and writes each line in two writes: the check sees
/// a half-written line and waits for it, but the writer can begin a line between our check and
/// our write (microseconds): then the two are joined. That window is what is left without a
/// lease; every such splice is seen from our descriptor's position, reported, and our line is
/// appended again.
#[test]
fn labels_race_a_two_write_writer_holding_its_descriptor() {
    let r = race("persistent-split");
    r.print("persistent-split");
    assert_eq!(r.guards("lease"), 0, "no lease while the writer holds the file open");
    r.check_runs();
    let joined: usize = r.ok().filter_map(|v| v["warning"].as_str()).map(|w| w.matches("landed inside it").count()).sum();
    // Each splice leaves two damaged lines: the writer's first half with our line, and its rest.
    assert_eq!(r.damaged().len(), 2 * joined, "every splice was seen and reported: {:?}", r.damaged());
    check_stale_were_superseded(&r);
}

/// Every label line with a stale parent was seen and superseded by a later line of the same
/// command, unless that command gave up after appending it several times, or the other
/// writer appended after it before the command looked again (then the writer's later line
/// decides pi's leaf and the stale label is a side branch that drops nothing from the
/// context; the command said what landed in front of its line).
fn check_stale_were_superseded(r: &Race) {
    let gave_up = r.ok().filter(|v| v["warning"].as_str().is_some_and(|w| w.contains("gave up"))).count();
    let (standing, _) = r.stale_labels(&r.superseded());
    let lines = r.lines();
    let writer_after = |at: u64| lines.iter().filter(|(o, _)| *o > at).any(|(_, l)| serde_json::from_slice::<Value>(l).is_ok_and(|v| v["type"] == "message"));
    let passed_by: Vec<u64> = standing.iter().copied().filter(|&at| writer_after(at)).collect();
    let reported = r.ok().filter(|v| v["warning"].as_str().is_some_and(|w| w.contains("between our check and our label line"))).count();
    assert!(passed_by.len() <= reported, "stale label lines passed by the writer: {passed_by:?}, but only {reported} commands reported lines landing in front of theirs");
    let harmful: Vec<u64> = standing.iter().copied().filter(|at| !passed_by.contains(at)).collect();
    assert!(harmful.len() <= gave_up, "stale label lines that stand as the file's leaf: {harmful:?} ({gave_up} commands gave up)");
}

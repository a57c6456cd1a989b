//! The in-process measures of the big session, each run in a child process of `pi-bench`:
//! the open, the context and refreshes after appends (`--append-bench`), and the open from the
//! skeleton snapshot in a fresh process (`--cached-open`).

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use pi_session::session::CacheUse;
use pi_session::Session;
use serde_json::{json, Value};

use super::child::run;
use super::{append_line, sibling};
use crate::lines;
use crate::rng::Rng;

/// `--append-bench FILE`: opens a copy of FILE, appends 1 KB pi-shaped lines one at a time
/// and times `Session::refresh()` after each. Prints one JSON line.
pub(super) fn incremental(file: &Path, appends: usize) -> Result<Value, String> {
    let tmp = std::env::temp_dir().join(format!("pi-bench-append-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    let copy = tmp.join(file.file_name().unwrap_or(OsStr::new("session.jsonl")));
    let res = (|| -> Result<Value, String> {
        std::fs::copy(file, &copy).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let mut s = Session::open(&copy).map_err(|e| e.to_string())?;
        let open_s = t.elapsed().as_secs_f64();
        let entries = s.index.entries.len();
        // What pi's side times (open + getTree + buildSessionContext), in process too: the
        // tree (children, roots, labels, active path) is built by `open`; the context at the
        // leaf reads its message bodies from the file.
        let t = Instant::now();
        let leaf = s.resolve_leaf(None).map_err(|e| e.to_string())?;
        let context_messages = std::hint::black_box(pi_session::view::ContextJson::of(&s, leaf).map_err(|e| e.to_string())?).messages.len();
        let context_s = t.elapsed().as_secs_f64();
        // The same through the skeleton cache: the first open reads the file and saves its
        // snapshot; then a fresh process opens it from the snapshot (as a second `pi-session`
        // command or a restarted app would) and builds the context.
        let cache = tmp.join("skeleton-cache");
        let t = Instant::now();
        let (_, first) = Session::open_with_cache(&copy, &cache, 0).map_err(|e| e.to_string())?;
        let miss_s = t.elapsed().as_secs_f64();
        if first != CacheUse::Miss {
            return Err(format!("skeleton cache: the first open was a {first:?}, not a miss"));
        }
        let snapshot_bytes: u64 = std::fs::read_dir(cache.join("skeletons")).map_err(|e| e.to_string())?.filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum();
        // A reopen comes later: the snapshot (and the copy) are on disk by then, not being
        // written back while the second open reads them.
        // SAFETY: no arguments, no memory.
        #[cfg(unix)]
        unsafe {
            libc::sync()
        };
        // Five fresh processes; the median (by total) is reported, with the range.
        let mut runs = Vec::new();
        for _ in 0..5 {
            let mut cmd = Command::new(std::env::current_exe().unwrap_or_else(|_| sibling("pi-bench")));
            cmd.arg("--cached-open").arg(&copy).arg(&cache);
            let j = match run(&mut cmd, true) {
                Ok(r) if r.ok() => serde_json::from_slice::<Value>(&r.stdout).map_err(|e| e.to_string())?,
                Ok(r) => return Err(r.describe_failure()),
                Err(e) => return Err(e.to_string()),
            };
            if j["contextMessages"].as_u64() != Some(context_messages as u64) || j["entries"].as_u64() != Some(entries as u64) {
                return Err(format!("the session opened from its snapshot differs from the one read in full: {j}"));
            }
            runs.push(j);
        }
        let total = |j: &Value| j["totalS"].as_f64().unwrap_or(f64::NAN);
        runs.sort_by(|a, b| total(a).total_cmp(&total(b)));
        let (cached, fastest, slowest) = (runs[2].clone(), total(&runs[0]), total(&runs[4]));
        let mut rng = Rng::new(99);
        let mut times = Vec::new();
        let mut f = std::fs::OpenOptions::new().append(true).open(&copy).map_err(|e| e.to_string())?;
        let mut line_len = 0;
        for k in 0..appends {
            let parent = s.leaf_id().unwrap_or("").to_string();
            let (id, id_str) = loop {
                let id = rng.next_u32();
                let mut v = Vec::new();
                lines::push_id(&mut v, id);
                let v = String::from_utf8(v).unwrap();
                if s.index.index_of(&v).is_none() {
                    break (id, v);
                }
            };
            let line = append_line(&mut rng, id, &parent, 1_800_000_000_000 + k as i64 * 1000, 1024);
            line_len = line.len();
            f.write_all(&line).map_err(|e| e.to_string())?;
            let t = Instant::now();
            let r = s.refresh().map_err(|e| e.to_string())?;
            times.push(t.elapsed().as_secs_f64() * 1e3);
            if s.leaf_id() != Some(id_str.as_str()) {
                return Err(format!("after append {k}: the leaf is {:?}, not the appended line ({r:?})", s.leaf_id()));
            }
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        Ok(json!({
            "openS": open_s, "contextS": context_s, "contextMessages": context_messages, "entries": entries, "appends": times.len(), "lineBytes": line_len,
            "snapshotMissS": miss_s, "snapshotBytes": snapshot_bytes, "cachedOpenS": cached["openS"], "cachedS": cached["totalS"], "cachedMinS": fastest, "cachedMaxS": slowest,
            "refreshMedianMs": times[times.len() / 2], "refreshMinMs": times[0], "refreshMaxMs": times[times.len() - 1],
        }))
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    res
}

/// `--cached-open FILE DIR`: in a fresh process, opens FILE through the skeleton cache in DIR
/// (which must hold its snapshot) and builds the context at the leaf. Prints one JSON line.
pub(super) fn cached_open(file: &Path, dir: &Path) -> Result<Value, String> {
    let t = Instant::now();
    let (s, used) = Session::open_with_cache(file, dir, 0).map_err(|e| e.to_string())?;
    let open_s = t.elapsed().as_secs_f64();
    if used != CacheUse::Hit {
        return Err(format!("skeleton cache: a {used:?}, not a hit"));
    }
    let leaf = s.resolve_leaf(None).map_err(|e| e.to_string())?;
    let messages = std::hint::black_box(pi_session::view::ContextJson::of(&s, leaf).map_err(|e| e.to_string())?).messages.len();
    let total_s = t.elapsed().as_secs_f64();
    let entries = s.index.entries.len();
    // Exits without freeing, as the CLI does.
    std::mem::forget(s);
    Ok(json!({"openS": open_s, "totalS": total_s, "contextMessages": messages, "entries": entries}))
}


/// `--list-in-process ROOT`: in a fresh process, the listing as `pi-session list` builds it
/// (the persistent cache in `$PI_SESSION_CACHE_DIR` loaded, new and changed files indexed,
/// the lineage), timed in process; then the cache is saved (not timed) and nothing printed but
/// one JSON line. With an empty cache folder it is the first listing; run again, the cache is
/// warm.
pub(super) fn list_in_process(root: &Path) -> Result<Value, String> {
    let t = Instant::now();
    let (l, mut cache) = pi_session::listing::list_with_cache(root);
    let lineage = std::hint::black_box(pi_session::listing::fork_graph_cached(root, &l.sessions, &mut cache));
    let s = t.elapsed().as_secs_f64();
    cache.save_if_changed();
    let sessions = l.sessions.len();
    std::mem::forget((l, lineage, cache));
    Ok(json!({"s": s, "sessions": sessions}))
}

/// `--open-in-process FILE`: in a fresh process, the first open of FILE without a snapshot
/// (read in full, tree included) and the context at its leaf, as `pi-session context` does
/// with the skeleton cache off, timed in process. One JSON line.
pub(super) fn open_in_process(file: &Path) -> Result<Value, String> {
    let t = Instant::now();
    let s = Session::open(file).map_err(|e| e.to_string())?;
    let leaf = s.resolve_leaf(None).map_err(|e| e.to_string())?;
    let messages = std::hint::black_box(pi_session::view::ContextJson::of(&s, leaf).map_err(|e| e.to_string())?).messages.len();
    let total_s = t.elapsed().as_secs_f64();
    let entries = s.index.entries.len();
    std::mem::forget(s);
    Ok(json!({"s": total_s, "contextMessages": messages, "entries": entries}))
}

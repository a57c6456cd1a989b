//! The team archive: session files exported to Apache Parquet, partitioned by machine and
//! month (`OUT/<table>/machine=NAME/month=YYYY-MM/part-SEQ.parquet`), for DuckDB or any
//! Parquet engine. Schema and example queries: `docs/archive.md`.
//!
//! Incremental: session files only grow, so `OUT/manifest.json` keeps, per file, the byte
//! offset up to which its entries are exported. A rerun reads each file, skips the entries
//! before that offset and writes only new rows; with nothing new it writes nothing. The
//! session files are only read.

mod rows;
mod table;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use rows::{ENTRIES, SESSIONS, USAGE};
pub use table::{Cell, Ty};

/// Errors of the exporter.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Session(#[from] pi_session::Error),
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    #[error("{0}")]
    Invalid(String),
}

impl ArchiveError {
    pub fn io(path: &Path, source: std::io::Error) -> ArchiveError {
        ArchiveError::Io { path: path.to_path_buf(), source }
    }

    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ArchiveError::Io { .. } => "io",
            ArchiveError::Session(e) => e.code(),
            ArchiveError::Parquet(_) => "parquet",
            ArchiveError::Arrow(_) => "arrow",
            ArchiveError::Invalid(_) => "invalid",
        }
    }
}

/// A sessions root and the machine its rows are filed under.
#[derive(Debug, Clone)]
pub struct Source {
    pub machine: String,
    pub root: PathBuf,
}

#[derive(Debug, Clone)]
pub struct ExportOptions {
    pub out: PathBuf,
    pub sources: Vec<Source>,
    /// Include message text in `entries.text`.
    pub with_text: bool,
}

/// What one export run did.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ExportReport {
    /// Session files read (changed or new since the last run).
    pub files_changed: usize,
    pub session_rows: usize,
    pub entry_rows: usize,
    pub usage_rows: usize,
    /// Parquet files written.
    pub files_written: Vec<PathBuf>,
    /// Bytes of the Parquet files written.
    pub bytes_written: u64,
    /// This run's sequence number (the `export_seq` column); unchanged when nothing was new.
    pub seq: u64,
    /// Files that could not be read, with why.
    pub skipped: Vec<(PathBuf, String)>,
}

const MANIFEST: &str = "manifest.json";
const FORMAT: u32 = 1;

/// Per-file export marks.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    /// The last run that wrote files.
    seq: u64,
    /// Key: machine, a tab, the file's path.
    files: BTreeMap<String, Mark>,
}

#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
struct Mark {
    /// Entries starting before this byte are exported.
    offset: u64,
    /// Size of the file when last read.
    size: u64,
}

impl Manifest {
    fn load(out: &Path) -> Result<Manifest, ArchiveError> {
        let file = out.join(MANIFEST);
        match std::fs::read(&file) {
            Ok(b) => {
                let m: Manifest = serde_json::from_slice(&b).map_err(|e| ArchiveError::Invalid(format!("{}: {e}", file.display())))?;
                if m.format != FORMAT {
                    return Err(ArchiveError::Invalid(format!("{}: format {} (this exporter writes {FORMAT})", file.display(), m.format)));
                }
                Ok(m)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Manifest { format: FORMAT, ..Default::default() }),
            Err(e) => Err(ArchiveError::io(&file, e)),
        }
    }

    /// Temporary file, fsync, rename: a crash keeps the old manifest or the new one.
    fn save(&self, out: &Path) -> Result<(), ArchiveError> {
        let file = out.join(MANIFEST);
        let bytes = serde_json::to_vec_pretty(self).map_err(|e| ArchiveError::Invalid(e.to_string()))?;
        pi_session::atomic::replace(&file, &bytes).map_err(|e| ArchiveError::io(&file, e))
    }
}

/// A partition folder name: letters, digits, `.`, `_`, `-` kept, the rest `_`.
pub fn partition_value(s: &str) -> String {
    let v: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' }).collect();
    if v.is_empty() {
        "unknown".into()
    } else {
        v
    }
}

/// Part files a crashed run left behind (numbered after the manifest's last run) are removed,
/// so a rerun does not count their rows twice.
fn remove_orphans(dir: &Path, seq: u64) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            remove_orphans(&p, seq);
        } else if let Some(n) = name.strip_prefix("part-").and_then(|n| n.strip_suffix(".parquet")).and_then(|n| n.parse::<u64>().ok()) {
            if n > seq {
                let _ = std::fs::remove_file(&p);
            }
        } else if name.starts_with('.') && name.contains(".tmp-") {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// The lineage of the sources' sessions (docs/format.md, "Forks and spawned sessions"): links
/// resolved across all of them (a restored or copied folder's parents found by session id),
/// by path; a prefix copy that the merged listing hides takes the lineage of the copy shown.
struct Lineage {
    links: std::collections::HashMap<PathBuf, pi_session::forks::ForkInfo>,
    alias: std::collections::HashMap<PathBuf, PathBuf>,
    ids: std::collections::HashMap<PathBuf, String>,
}

impl Lineage {
    fn of(sources: &[Source]) -> Lineage {
        use pi_session::roots::{RootSpec, Roots};
        let specs = sources.iter().enumerate().map(|(i, s)| RootSpec { name: format!("{i}"), path: s.root.clone(), read_only: true }).collect();
        let (m, lineage) = pi_session::roots::list_roots(&Roots::new(specs));
        let ids = m.sessions.iter().filter_map(|s| Some((s.summary.path.clone(), s.summary.id.clone()?))).collect();
        let links = lineage.links.into_iter().map(|f| (f.path.clone(), f)).collect();
        Lineage { links, alias: m.alias, ids }
    }

    fn link(&self, path: &Path) -> Option<&pi_session::forks::ForkInfo> {
        self.links.get(path).or_else(|| self.links.get(self.alias.get(path)?))
    }
}

/// Exports what is new in the sources' session files since the last run.
pub fn export(opts: &ExportOptions) -> Result<ExportReport, ArchiveError> {
    std::fs::create_dir_all(&opts.out).map_err(|e| ArchiveError::io(&opts.out, e))?;
    let mut manifest = Manifest::load(&opts.out)?;
    remove_orphans(&opts.out, manifest.seq);
    let seq = manifest.seq + 1;
    let exported_at = chrono::Utc::now().timestamp_millis();
    let mut report = ExportReport { seq: manifest.seq, ..Default::default() };
    // (table, machine, month) → rows
    let mut parts: BTreeMap<(&'static str, String, String), table::Rows> = BTreeMap::new();
    let mut marks: Vec<(String, Mark)> = Vec::new();
    let mut seen_keys = BTreeSet::new();
    // The files to read: new, or grown since the last run (files only grow).
    struct Todo<'a> {
        src: &'a Source,
        machine: String,
        key: String,
        path: PathBuf,
        old: Option<Mark>,
        from: u64,
    }
    let mut todo = Vec::new();
    let lineage = Lineage::of(&opts.sources);
    for src in &opts.sources {
        let machine = partition_value(&src.machine);
        let found = pi_session::scan::scan(&src.root);
        for f in found.files {
            let key = format!("{}\t{}", src.machine, f.path.display());
            if !seen_keys.insert(key.clone()) {
                continue;
            }
            let old = manifest.files.get(&key).copied();
            if old.is_some_and(|m| m.size == f.size) {
                continue;
            }
            // A file that shrank was replaced: export it again from the start.
            let from = old.filter(|m| m.size <= f.size).map_or(0, |m| m.offset);
            todo.push(Todo { src, machine: machine.clone(), key, path: f.path, old, from });
        }
    }
    // Files are independent: read them on all cores.
    let results: Vec<Result<rows::FileRows, ArchiveError>> = {
        use rayon::prelude::*;
        todo.par_iter()
            .map(|t| {
                let link = lineage.link(&t.path);
                let parent_id = link.and_then(|f| f.parent_path.as_deref()).and_then(|p| lineage.ids.get(p)).map(String::as_str);
                let ctx = rows::FileCtx { machine: &t.src.machine, root: &t.src.root, with_text: opts.with_text, seq, exported_at, link, parent_id };
                rows::file_rows(&t.path, t.from, &ctx)
            })
            .collect()
    };
    for (t, r) in todo.into_iter().zip(results) {
        let machine = t.machine;
        match r {
            Ok(r) => {
                report.files_changed += 1;
                if t.old.is_none() || !r.entries.is_empty() {
                    report.session_rows += 1;
                    parts.entry(("sessions", machine.clone(), r.session_month)).or_default().0.push(r.session);
                }
                for (month, row) in r.entries {
                    report.entry_rows += 1;
                    parts.entry(("entries", machine.clone(), month)).or_default().0.push(row);
                }
                for (month, row) in r.usage {
                    report.usage_rows += 1;
                    parts.entry(("usage", machine.clone(), month)).or_default().0.push(row);
                }
                marks.push((t.key, Mark { offset: r.end, size: r.size }));
            }
            Err(e) => report.skipped.push((t.path, e.to_string())),
        }
    }
    let changed_marks = marks.iter().any(|(k, m)| manifest.files.get(k) != Some(m));
    if parts.is_empty() && !changed_marks {
        return Ok(report);
    }
    for ((table, machine, month), rows) in &parts {
        let cols = match *table {
            "sessions" => SESSIONS,
            "entries" => ENTRIES,
            _ => USAGE,
        };
        let path = opts.out.join(table).join(format!("machine={machine}")).join(format!("month={month}")).join(format!("part-{seq:08}.parquet"));
        table::write_parquet(&path, cols, &rows.0)?;
        report.bytes_written += std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        report.files_written.push(path);
    }
    for (k, m) in marks {
        manifest.files.insert(k, m);
    }
    if !parts.is_empty() {
        manifest.seq = seq;
        report.seq = seq;
    }
    manifest.save(&opts.out)?;
    Ok(report)
}

//! `pi-session`: the command-line face of the core. `--json` output is a stable contract.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use pi_session::listing::fork_graph_cached;
use pi_session::scan::{resolve_root, root_of_file};
use pi_session::listing::list_with_cache;
use pi_session::roots::{list_roots, RootSpec, Roots};
use pi_session::summary::SessionSummary;
use pi_session::view::{ContextJson, TreeJson};
use pi_session::write::{self, Appended, WriteOptions};
use pi_session::{Error, Session};
use serde::Serialize;

mod args;
mod check;
mod link;
mod print;
mod serve;

use args::{FileArg, RootArg, WithinArg, WriteRootArg};
use check::check;
use print::{link_line, print_context, print_diags, size, summary_line, Listed};

#[derive(Parser)]
#[command(
    name = "pi-session",
    version,
    about = "List, inspect, check and steer pi coding-agent sessions",
    long_about = None,
    after_help = "Writes (navigate, label, fork) append to the FILE you name, wherever it is; with --sessions-dir DIR they\nare refused unless FILE lies inside DIR, as written and after symlinks. Nothing else of a file is ever changed."
)]
struct Cli {
    /// Refuse every write (navigate, label, fork)
    #[arg(long, global = true)]
    read_only: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// List the sessions under the root
    List {
        #[command(flatten)]
        root: RootArg,
        /// Print JSON
        #[arg(long)]
        json: bool,
    },
    /// Show a session's tree: roots, children in pi's order, labels, active path
    Tree {
        #[arg(value_parser = FileArg)]
        file: PathBuf,
        #[command(flatten)]
        within: WithinArg,
        #[arg(long)]
        json: bool,
        /// Draw the graph the app shows (lanes, folded runs, default filter)
        #[arg(long, conflicts_with = "json")]
        graph: bool,
    },
    /// Show the context the LLM sees at a node (pi's buildSessionContext)
    Context {
        #[arg(value_parser = FileArg)]
        file: PathBuf,
        #[command(flatten)]
        within: WithinArg,
        /// Entry id, or `null` for before the first entry (default: the session's leaf)
        #[arg(long, value_name = "ID|null")]
        leaf: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Show the fork graph across sessions (parentSession links and fork points)
    Forks {
        #[command(flatten)]
        root: RootArg,
        #[arg(long)]
        json: bool,
    },
    /// Move the persisted leaf to an entry (appends one `leaf` line); pi resumes there
    Navigate {
        #[arg(value_parser = FileArg)]
        file: PathBuf,
        /// Entry id to resume at
        #[arg(required_unless_present = "root", conflicts_with = "root")]
        id: Option<String>,
        /// Resume before the first entry
        #[arg(long)]
        root: bool,
        #[command(flatten)]
        sessions: WriteRootArg,
    },
    /// Set or clear the label of an entry (appends one `label` line, as pi does)
    Label {
        #[arg(value_parser = FileArg)]
        file: PathBuf,
        id: String,
        #[arg(required_unless_present = "clear", conflicts_with = "clear")]
        text: Option<String>,
        /// Remove the label
        #[arg(long)]
        clear: bool,
        #[command(flatten)]
        sessions: WriteRootArg,
    },
    /// Fork the path root→ID into a new session file beside the source; prints its path
    Fork {
        #[arg(value_parser = FileArg)]
        file: PathBuf,
        id: String,
        /// Fork before the entry (at its parent), as pi's /fork offers for user messages
        #[arg(long, conflicts_with = "slim")]
        before: bool,
        /// Slim fork: only what the context at ID needs (the latest compaction, its kept
        /// entries and what follows, model and thinking level, labels); exit 3 when the path
        /// has no compaction
        #[arg(long)]
        slim: bool,
        #[command(flatten)]
        sessions: WriteRootArg,
    },
    /// Serve the explorer's UI and API over HTTP (127.0.0.1; the printed URL carries a token;
    /// read-only unless --allow-writes). Remote box: `ssh -L 8765:127.0.0.1:8765 box 'pi-session serve'`
    Serve(serve::ServeArgs),
    /// Copy the session keeping only the root→leaf paths of the given entries (a new file
    /// beside it; the source is untouched)
    Prune {
        #[arg(value_parser = FileArg)]
        file: PathBuf,
        /// Entries whose root→entry paths are kept (one or more)
        #[arg(long, required = true, num_args = 1.., value_name = "ID")]
        keep: Vec<String>,
        #[command(flatten)]
        sessions: WriteRootArg,
    },
    /// Compare two nodes from their common ancestor: steps side by side, tool calls, files
    /// touched, tokens and cost, and the contexts at the two tips
    Diff {
        #[arg(value_parser = FileArg)]
        file: PathBuf,
        /// `ID` (an entry of FILE), `FILE2:ID`, or `FILE2:` (FILE2's leaf); FILE2 must be of
        /// FILE's fork family
        a: String,
        /// Same syntax as A
        b: String,
        #[arg(long)]
        json: bool,
        /// Width of the two-column text output
        #[arg(long, default_value_t = 160)]
        width: usize,
    },
    /// Tokens and cost over time, by project, by model and by session, and the share spent on
    /// abandoned branches (the figures of the app's dashboard), over every root
    Dashboard {
        #[command(flatten)]
        root: RootArg,
        /// Buckets of the time series: day or week
        #[arg(long, default_value = "day", value_parser = ["day", "week"])]
        bucket: String,
        /// Sessions in the per-session figures (the costliest); 0 = 50
        #[arg(long, default_value_t = 20)]
        top: usize,
        /// Per-session figures by family: a session with its spawned sessions (subagent runs),
        /// recursively, a fork's copied entries not counted again
        #[arg(long)]
        by_family: bool,
        #[arg(long)]
        json: bool,
    },
    /// Search every session through the full-text index (built or brought up to date first, in the cache folder)
    Search {
        /// Words, "phrases", role:R tool:T model:M cwd:P label:L name:N after:YYYY-MM-DD before:YYYY-MM-DD
        query: String,
        #[command(flatten)]
        root: RootArg,
        /// Most hits to return
        #[arg(long, default_value_t = 200)]
        limit: usize,
        /// Build and use no index: read every file (as `PI_SESSION_SEARCH_INDEX=off` does)
        #[arg(long)]
        no_index: bool,
        #[arg(long)]
        json: bool,
    },
    /// Export one session, a path (default: the session's leaf) or the whole tree, as
    /// self-contained HTML or Markdown (`export FILE --html|--md -o OUT`); or every session as a
    /// Parquet archive, partitioned by machine and month, where a rerun adds only what is new
    /// (`export --parquet OUT [--sessions-dir [NAME=]DIR …]`)
    Export {
        /// The session to export as HTML or Markdown
        #[arg(value_parser = FileArg, required_unless_present = "parquet", conflicts_with = "parquet")]
        file: Option<PathBuf>,
        /// Export the path root→ID instead of the path to the session's leaf
        #[arg(long, value_name = "ID", conflicts_with = "tree")]
        leaf: Option<String>,
        /// Export every branch of the tree
        #[arg(long)]
        tree: bool,
        #[arg(long, required_unless_present_any = ["md", "parquet"], conflicts_with = "md")]
        html: bool,
        #[arg(long)]
        md: bool,
        /// Output file of the HTML or Markdown (`-` for standard output)
        #[arg(short = 'o', long = "out", value_name = "OUT", required_unless_present = "parquet")]
        out: Option<PathBuf>,
        /// The Parquet archive folder (tables sessions, entries, usage)
        #[arg(long, value_name = "OUT")]
        parquet: Option<PathBuf>,
        #[command(flatten)]
        root: RootArg,
        /// Machine name for roots given without a name (default: this host's name)
        #[arg(long, value_name = "NAME")]
        machine: Option<String>,
        /// Include message text (entries.text) in the archive
        #[arg(long)]
        with_text: bool,
        #[arg(long)]
        json: bool,
    },
    /// Offer a running pi on FILE to move: to an entry (`--navigate ID`) or to a fork
    /// (`--switch NEWFILE`); its user answers in pi. Prints one JSON answer per pi; exit 3 when
    /// no running pi follows FILE (the link: docs/pi-link.md)
    Offer(link::OfferArgs),
    /// The running pis reachable through the link (on FILE, or all), as JSON
    Followers {
        file: Option<PathBuf>,
    },
    /// Open a terminal running `pi --session FILE` in the session's cwd ($TERMINAL,
    /// x-terminal-emulator, Terminal on macOS, wt.exe on Windows); without one, print the command
    Resume {
        file: PathBuf,
    },
    /// Report damage in a file or every file under a root; exit 1 when any finding is an error
    Check {
        /// A session file or a folder (default: the sessions root)
        #[arg(value_parser = FileArg)]
        path: Option<PathBuf>,
        #[command(flatten)]
        root: RootArg,
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    // Text output is printed line by line; a closed pipe (`| head`) ends the process quietly
    // instead of a panic on the next write.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    // Every command but `serve` reads, prints and exits (`search` has it undone when it has an
    // index to build).
    if !matches!(cli.cmd, Cmd::Serve(_)) {
        pi_session_format::pages::short_lived_heaps();
    }
    match run(cli.cmd, cli.read_only) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pi-session: {e}");
            // Another process is writing a line to the file: the same command may be run again
            // (EX_TEMPFAIL).
            ExitCode::from(if matches!(e, pi_session::Error::Busy { .. }) { 75 } else { 1 })
        }
    }
}

/// Brings each root's search index up to date, adding what it did to `st`; a first build of
/// a big root says what it will cost, then how far it is.
fn update_indexes(ixs: &[std::sync::Arc<pi_session_find::SearchIndex>], st: &mut pi_session_find::UpdateStats) -> Result<(), Error> {
    for ix in ixs {
        let first = ix.is_empty().map_err(find_err)?;
        let s = ix
            .update(|p| {
                if p.done == 0 && p.bytes_total > 16 << 20 {
                    // More than a few appended lines to index: perhaps minutes of work, whose
                    // freed memory would stay with the process (an index of a file with an 80 MB
                    // line peaked at 426-458 MB with the setting kept, 340 MB with it undone
                    // here). A query that reads a few new lines keeps it (its threads' heaps
                    // grow in one step).
                    pi_session_format::pages::long_lived_heaps();
                }
                if first && p.bytes_total > 256 << 20 && p.bytes_done == 0 {
                    eprintln!(
                        "indexing {}: {} files, {:.0} MB of sessions; the index will take about {:.0} MB (Ctrl-C stops; what is done is kept; --no-index searches without it)",
                        ix.root().display(),
                        p.total,
                        p.bytes_total as f64 / 1e6,
                        p.estimated_bytes as f64 / 1e6
                    );
                } else if p.bytes_total > 256 << 20 && (p.done % 640 == 0 || p.done == p.total) {
                    eprintln!(
                        "indexing {}: {}/{} files, {:.0}/{:.0} MB{}",
                        ix.root().display(),
                        p.done,
                        p.total,
                        p.bytes_done as f64 / 1e6,
                        p.bytes_total as f64 / 1e6,
                        p.seconds_left.map(|s| format!(", about {s:.0} s left")).unwrap_or_default()
                    );
                }
            })
            .map_err(find_err)?;
        st.added += s.added;
        st.appended += s.appended;
        st.reindexed += s.reindexed;
        st.removed += s.removed;
    }
    Ok(())
}

/// Errors of the search crate, as the core's (the CLI prints `pi-session: message`).
fn find_err(e: pi_session_find::Error) -> Error {
    match e {
        pi_session_find::Error::Core(e) => e,
        other => Error::Invalid(other.to_string()),
    }
}

fn print_json<T: Serialize>(v: &T) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let done = serde_json::to_writer(&mut out, v).map_err(std::io::Error::from).and_then(|_| writeln!(out)).and_then(|_| out.flush());
    stdout_done(done)
}

/// JSON made beforehand (`serde_json::to_vec`), printed as [`print_json`] prints.
fn print_json_bytes(json: serde_json::Result<Vec<u8>>) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let done = json.map_err(std::io::Error::from).and_then(|j| out.write_all(&j)).and_then(|_| writeln!(out)).and_then(|_| out.flush());
    stdout_done(done)
}

fn stdout_done(done: std::io::Result<()>) -> Result<(), Error> {
    match done {
        // The reader went away (`| head`): stop quietly, as other command-line tools do.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => r.map_err(|e| Error::Invalid(e.to_string())),
    }
}

/// Writes go to the file named: confined to the `--sessions-dir` root holding it when given
/// (refused in a `--read-only-root`), else to the file's own root.
fn write_opts(file: &Path, sessions: &WriteRootArg, read_only: bool) -> Result<WriteOptions, Error> {
    match sessions.given() {
        Some(roots) => roots.roots().write_opts(file, read_only),
        None => Ok(WriteOptions { root: Some(root_of_file(file)), read_only, ..Default::default() }),
    }
}

/// This host's name (the default machine of an export).
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "local".into())
}

#[derive(Serialize)]
struct Wrote {
    #[serde(with = "pi_session::pathstr::serde_path")]
    file: PathBuf,
    line: String,
    offset: u64,
    /// `lease` (other writers were held off from our check to our write) or `check`.
    guard: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
    /// Lines of ours written before `line`, each made stale or damaged by another writer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    superseded: Vec<Superseded>,
}

#[derive(Serialize)]
struct Superseded {
    offset: u64,
    line: String,
}

impl From<Appended> for Wrote {
    fn from(a: Appended) -> Self {
        if let Some(w) = &a.warning {
            eprintln!("pi-session: warning: {w}");
        }
        let superseded = a.superseded.into_iter().map(|(offset, line)| Superseded { offset, line }).collect();
        Wrote { file: a.file, line: a.line, offset: a.offset, guard: a.guard.as_str(), warning: a.warning, superseded }
    }
}

fn run(cmd: Cmd, read_only: bool) -> Result<ExitCode, Error> {
    match cmd {
        Cmd::Offer(a) => return link::offer(a),
        Cmd::Followers { file } => return link::followers(file.as_deref()),
        Cmd::Resume { file } => return link::resume(&file),
        Cmd::Navigate { file, id, root: _, sessions } => {
            let a = write::navigate(&file, id.as_deref(), &write_opts(&file, &sessions, read_only)?)?;
            print_json(&Wrote::from(a))?;
        }
        Cmd::Label { file, id, text, clear, sessions } => {
            let text = if clear { None } else { text };
            let a = write::set_label(&file, &id, text.as_deref(), &write_opts(&file, &sessions, read_only)?)?;
            print_json(&Wrote::from(a))?;
        }
        Cmd::Fork { file, id, slim: true, sessions, .. } => {
            let opts = write_opts(&file, &sessions, read_only)?;
            write::validate_id(&id)?;
            match pi_session::slim::fork_slim(&file, &id, &opts) {
                Ok(f) => {
                    eprintln!("pi-session: slim fork: {} → {} ({} of {} path entries)", size(f.bytes_before), size(f.bytes_after), f.copied, f.path_entries);
                    print_json(&f)?;
                }
                Err(e @ Error::NoCompaction { .. }) => {
                    eprintln!("pi-session: {e}");
                    return Ok(ExitCode::from(3));
                }
                Err(e) => return Err(e),
            }
        }
        Cmd::Prune { file, keep, sessions } => {
            let opts = write_opts(&file, &sessions, read_only)?;
            for id in &keep {
                write::validate_id(id)?;
            }
            let p = pi_session::slim::prune(&file, &keep, &opts)?;
            eprintln!("pi-session: pruned copy: {} → {} ({} entries kept, {} left out)", size(p.bytes_before), size(p.bytes_after), p.copied, p.dropped);
            print_json(&p)?;
        }
        Cmd::Fork { file, id, before, sessions, .. } => {
            let opts = write_opts(&file, &sessions, read_only)?;
            if read_only {
                return Err(Error::ReadOnlyMode);
            }
            write::validate_id(&id)?;
            let target = if before { write::fork_target(&Session::open(&file)?, &id, true)? } else { Some(id) };
            let f = write::fork(&file, target.as_deref(), &opts)?;
            #[derive(Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Out {
                #[serde(with = "pi_session::pathstr::serde_path")]
                file: PathBuf,
                leaf_id: Option<String>,
                copied: usize,
            }
            print_json(&Out { file: f.file, leaf_id: f.leaf_id, copied: f.copied })?;
        }
        Cmd::Diff { file, a, b, json, width } => {
            let open = |spec: &str| -> Result<(Session, String), Error> {
                let (f, id) = pi_session::diff::parse_node_spec(spec, &file);
                let (s, _) = Session::open_cached(&f)?;
                let id = match id {
                    Some(id) => id.to_string(),
                    None => s.leaf_id().map(str::to_string).ok_or_else(|| Error::Invalid(format!("{}: the leaf is before the first entry", f.display())))?,
                };
                write::validate_id(&id)?;
                Ok((s, id))
            };
            let (sa, ia) = open(&a)?;
            let (sb, ib) = open(&b)?;
            let d = pi_session::diff::diff(&sa, &ia, &sb, &ib)?;
            if json {
                print_json(&d)?;
            } else {
                print!("{}", pi_session::diff::ascii(&d, width));
            }
        }
        Cmd::List { root, json } if root.is_multi() => {
            let (m, lineage) = list_roots(&root.roots());
            if json {
                #[derive(Serialize)]
                struct Out<'a> {
                    roots: &'a [RootSpec],
                    sessions: Vec<Listed<'a, pi_session::roots::RootedSession>>,
                    other: &'a [pi_session::listing::PathFinding],
                }
                let sessions = m.sessions.iter().zip(&lineage.links).map(|(s, f)| Listed { session: s, lineage: f.list_fields() }).collect();
                print_json(&Out { roots: &m.roots, sessions, other: &m.other })?;
            } else {
                let names: Vec<String> = m.roots.iter().map(|r| format!("{}={}", r.name, r.path.display())).collect();
                println!("{} sessions under {}", m.sessions.len(), names.join(", "));
                for s in &m.sessions {
                    let flag = s.diverged.as_ref().map(|d| format!("  [diverged at byte {}]", d.offset)).unwrap_or_default();
                    println!("[{}] {}{}", s.root, summary_line(&s.summary), flag);
                }
                for o in &m.other {
                    println!("  ! {}: {}", o.path.display(), o.diagnostic.message);
                }
            }
        }
        Cmd::List { root, json } => {
            let root = root.first();
            let (l, mut cache) = list_with_cache(&root);
            let lineage = fork_graph_cached(&root, &l.sessions, &mut cache);
            if json {
                #[derive(Serialize)]
                struct Out<'a> {
                    #[serde(with = "pi_session::pathstr::serde_path")]
                    root: PathBuf,
                    sessions: Vec<Listed<'a, SessionSummary>>,
                    other: &'a [pi_session::listing::PathFinding],
                }
                let sessions = l.sessions.iter().zip(&lineage.links).map(|(s, f)| Listed { session: s, lineage: f.list_fields() }).collect();
                // The cache is written while the answer is made (each a JSON text of megabytes
                // for a big root), and printed once the cache is in place: a reader that goes
                // away (`| head`) ends the process, which must not be halfway through it.
                let (_, out) = rayon::join(|| cache.save_if_changed(), || serde_json::to_vec(&Out { root: l.root.clone(), sessions, other: &l.other }));
                print_json_bytes(out)?;
            } else {
                cache.save_if_changed();
                println!("{} sessions under {}", l.sessions.len(), root.display());
                for s in &l.sessions {
                    println!("{}", summary_line(s));
                }
                for o in &l.other {
                    println!("  ! {}: {}", o.path.display(), o.diagnostic.message);
                }
            }
            // No walk to free what the process is about to give back (10,000 summaries).
            std::mem::forget((l, lineage, cache));
        }
        Cmd::Tree { file, within, json, graph } => {
            within.check(&file)?;
            // The tree is printed while a missing snapshot is saved.
            Session::with_cached(&file, |s| -> Result<(), Error> {
                let parents_root = match within.sessions_dir.first() {
                    Some(a) => resolve_root(Some(&RootSpec::parse(a).path)).path,
                    None => root_of_file(&file),
                };
                let link = s.index.header.as_ref().and_then(|h| h.parent_session.as_ref()).and_then(|_| pi_session::forks::link_of_file(&file, &parents_root));
                if json {
                    #[derive(Serialize)]
                    struct Out<'a> {
                        #[serde(flatten)]
                        tree: TreeJson<'a>,
                        /// The parent link, when the header names a parent.
                        #[serde(skip_serializing_if = "Option::is_none")]
                        lineage: Option<pi_session::forks::TreeLink<'a>>,
                    }
                    print_json(&Out { tree: TreeJson::of(s), lineage: link.as_ref().map(|f| f.tree_link()) })?;
                } else if graph {
                    let layout = pi_session_app::layout::Layout::build(s, &pi_session_app::api::TreeQuery::default());
                    print!("{}", pi_session_app::layout::ascii(&layout, &[s]));
                    print_diags(&s.diagnostics());
                } else {
                    if let Some(f) = &link {
                        println!("{}", link_line(f));
                    }
                    print!("{}", pi_session::view::ascii_tree(s));
                    print_diags(&s.diagnostics());
                }
                Ok(())
            })??;
        }
        Cmd::Context { file, within, leaf, json } => {
            within.check(&file)?;
            // The answer is worked out and printed while a missing snapshot is saved.
            Session::with_cached(&file, |s| -> Result<(), Error> {
                let req = leaf.as_deref().map(|l| if l == "null" { None } else { Some(l) });
                let leaf = s.resolve_leaf(req)?;
                let c = ContextJson::of(s, leaf)?;
                if json {
                    print_json(&c)?;
                } else {
                    print_context(s, leaf, &c);
                }
                Ok(())
            })??;
        }
        Cmd::Forks { root, json } => {
            let forks = if root.is_multi() {
                list_roots(&root.roots()).1
            } else {
                let root = root.first();
                let (l, mut cache) = list_with_cache(&root);
                let forks = fork_graph_cached(&root, &l.sessions, &mut cache);
                cache.save_if_changed();
                forks
            };
            if json {
                #[derive(Serialize)]
                struct Out<'a> {
                    sessions: Vec<&'a pi_session::forks::ForkInfo>,
                }
                print_json(&Out { sessions: forks.all().collect() })?;
            } else {
                for f in forks.all().filter(|f| f.parent_session.is_some()) {
                    println!("{}", link_line(f));
                }
            }
        }
        Cmd::Serve(args) => return Ok(serve::run(args, read_only)),
        Cmd::Export { parquet: Some(parquet), root, machine, with_text, json, .. } => {
            let machine = machine.unwrap_or_else(host_name);
            // A root named on the command line (`NAME=DIR`) is filed under that name, the
            // others under `--machine`.
            let sources = if root.sessions_dir.is_empty() {
                vec![pi_session_archive::Source { machine: machine.clone(), root: root.first() }]
            } else {
                root.sessions_dir
                    .iter()
                    .map(|a| {
                        let spec = RootSpec::parse(a);
                        let named = spec.path.as_os_str() != a.as_str();
                        let dir = resolve_root(Some(&spec.path)).path;
                        pi_session_archive::Source { machine: if named { spec.name } else { machine.clone() }, root: dir }
                    })
                    .collect()
            };
            let opts = pi_session_archive::ExportOptions { out: parquet, sources, with_text };
            let report = pi_session_archive::export(&opts).map_err(|e| Error::Invalid(format!("export: {e}")))?;
            if json {
                print_json(&report)?;
            } else {
                println!(
                    "{} files changed: {} session rows, {} entry rows, {} usage rows; {} Parquet files, {} bytes",
                    report.files_changed,
                    report.session_rows,
                    report.entry_rows,
                    report.usage_rows,
                    report.files_written.len(),
                    report.bytes_written
                );
                for (p, why) in &report.skipped {
                    println!("  ! {}: {why}", p.display());
                }
            }
        }
        Cmd::Search { query, root, limit, no_index, json } => {
            // One index per root whatever the working folder: absolute paths in it.
            let roots: Vec<PathBuf> = root.roots().specs().iter().map(|s| std::fs::canonicalize(&s.path).unwrap_or_else(|_| s.path.clone())).collect();
            // Several roots: a synced copy that the list shows once is searched once.
            let hidden: std::collections::HashSet<PathBuf> = if roots.len() > 1 {
                let canon = Roots::new(root.roots().specs().iter().zip(&roots).map(|(s, p)| RootSpec { path: p.clone(), ..s.clone() }).collect());
                list_roots(&canon).0.alias.into_keys().collect()
            } else {
                Default::default()
            };
            let mut st = pi_session_find::UpdateStats::default();
            let mut indexes = None;
            let r = if no_index || !pi_session_find::settings::enabled_by_env() {
                pi_session_find::roots::scan_all(&roots, &hidden, &query, limit).map_err(find_err)?
            } else {
                let ixs = pi_session_find::RootIndexes::new().of(&roots).map_err(find_err)?;
                // The index's answer and the look at the files side by side (on 10,000 files
                // that look, a stat of each, is most of a search's cost): when the look finds
                // nothing to do, the answer stands; else the index takes the changes and is
                // asked again.
                let (quick, updated) = std::thread::scope(|s| {
                    let quick = s.spawn(|| pi_session_find::roots::search_all_as_indexed(&ixs, &hidden, &query, limit));
                    let updated = update_indexes(&ixs, &mut st);
                    (quick.join(), updated)
                });
                updated?;
                let unchanged = st.added + st.appended + st.reindexed + st.removed == 0 && ixs.iter().all(|ix| ix.damage().is_none());
                let r = match quick {
                    Ok(Ok(r)) if unchanged => r,
                    _ => pi_session_find::roots::search_all(&ixs, &hidden, &query, limit).map_err(find_err)?,
                };
                // An index found damaged was set aside and built again: the answer stands, but say so.
                for d in ixs.iter().filter_map(|ix| ix.damage()) {
                    eprintln!("pi-session: the search index {} was damaged ({}); it is kept as {} and the index was built again", d.path, d.reason, d.moved_to);
                }
                indexes = Some(ixs);
                r
            };
            if json {
                print_json(&r)?;
            } else {
                if st.added + st.appended + st.reindexed > 0 {
                    eprintln!("index: {} added, {} appended, {} re-indexed, {} removed", st.added, st.appended, st.reindexed, st.removed);
                }
                for s in &r.sessions {
                    println!("{}  {}", s.title, s.path);
                    for h in &s.hits {
                        println!("  {:>6}  {:<12} {}", h.line, h.role, h.snippet);
                    }
                }
                let scanned = if r.scanned_files > 0 { format!(", {} read without the index", r.scanned_files) } else { String::new() };
                println!("{} hits in {} sessions{} ({} files indexed{scanned})", r.total_hits, r.sessions.len(), if r.truncated { " (more not shown)" } else { "" }, r.files_indexed);
            }
            // Neither closed nor freed: the process is about to end. (Closing an index gave its
            // mapped pages back one range at a time, about 1 ms of a query on 10,000 files; an
            // update that wrote anything has folded its log back already.)
            std::mem::forget((indexes, r));
        }
        Cmd::Dashboard { root, bucket, top, by_family, json } => {
            use pi_session::dashboard::{BucketSize, DashboardQuery};
            let q = DashboardQuery { bucket: if bucket == "week" { BucketSize::Week } else { BucketSize::Day }, top, by_family: Some(by_family) };
            let ex = pi_session_app::explorer::Explorer::new_multi(root.roots(), "flag", true)?;
            let d = ex.dashboard(&q);
            if json {
                print_json(&d)?;
            } else {
                let t = &d.totals;
                println!("{} sessions: {:.0} tokens, ${:.4}", t.sessions, t.tokens, t.cost);
                println!("  on abandoned branches: {:.0} tokens, ${:.4}", t.abandoned_tokens, t.abandoned_cost);
                println!("  in {} forked or subagent sessions: {:.0} tokens, ${:.4}", t.child_sessions, t.child_tokens, t.child_cost);
                for (title, figs) in [("by model", &d.by_model), ("by project", &d.by_project)] {
                    println!("{title}:");
                    for f in figs.iter().take(top.max(1)) {
                        println!("  {:>12.0} tokens  ${:>10.4}  {}", f.tokens, f.cost, f.key);
                    }
                }
                println!("by {}:", if by_family { "family (a session and its spawns)" } else { "session" });
                for u in d.by_session.iter().take(top.max(1)) {
                    println!("  {:>12.0} tokens  ${:>10.4}  {:>3} sessions  {}", u.tokens, u.cost, u.sessions, u.title);
                }
                println!("by {}:", if bucket == "week" { "week" } else { "day" });
                for f in d.over_time.iter().filter(|f| f.tokens > 0.0) {
                    println!("  {}  {:>12.0} tokens  ${:>10.4}", f.key, f.tokens, f.cost);
                }
            }
        }
        Cmd::Export { file, leaf, tree, html, out, .. } => {
            let (Some(file), Some(out)) = (file, out) else { unreachable!("clap requires FILE and --out without --parquet") };
            use pi_session::export::{to_html, to_markdown, write_out, Scope};
            // Written while a missing snapshot is saved.
            Session::with_cached(&file, |s| -> Result<(), Error> {
                let scope = if tree { Scope::Tree } else { Scope::Path(s.resolve_leaf(leaf.as_deref().map(Some))?) };
                let text = if html { to_html(s, scope)? } else { to_markdown(s, scope)? };
                if out.as_os_str() == "-" {
                    print!("{text}");
                } else {
                    write_out(&out, &text)?;
                    eprintln!("wrote {} ({} bytes)", out.display(), text.len());
                }
                Ok(())
            })??;
        }
        Cmd::Check { path, root, json } => {
            let parents_root = match root.sessions_dir.first() {
                None if path.as_ref().is_some_and(|p| p.is_file()) => root_of_file(path.as_ref().unwrap()),
                _ => root.first(),
            };
            let target = path.unwrap_or_else(|| root.first());
            // A file alone: relative parentSession paths resolve against its own root unless
            // --sessions-dir names one.
            let report = check(&target, &parents_root)?;
            if json {
                print_json(&report)?;
            } else {
                for f in &report.files {
                    if f.diagnostics.is_empty() {
                        continue;
                    }
                    println!("{}", f.path.display());
                    print_diags(&f.diagnostics);
                }
                println!("{} files, {} errors, {} warnings", report.files.len(), report.errors, report.warnings);
            }
            if report.errors > 0 {
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

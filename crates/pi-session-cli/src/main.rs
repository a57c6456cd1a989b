//! `pi-session`: the command-line face of the core. `--json` output is a stable contract.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use pi_session::diag::Severity;
use pi_session::forks::{fork_graph_cached, ForkStatus};
use pi_session::scan::resolve_root;
use pi_session::listing::{list, list_with_cache};
use pi_session::summary::SessionSummary;
use pi_session::view::{ContextJson, TreeJson};
use pi_session::write::{self, Appended, WriteOptions};
use pi_session::{Error, Leaf, Session};
use serde::Serialize;

#[derive(Parser)]
#[command(name = "pi-session", version, about = "List, inspect, check and steer pi coding-agent sessions", long_about = None)]
struct Cli {
    /// Refuse every write (navigate, label, fork)
    #[arg(long, global = true)]
    read_only: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Args, Clone)]
struct RootArg {
    /// Sessions root (default: $PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions)
    #[arg(long, value_name = "DIR")]
    sessions_dir: Option<PathBuf>,
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
        file: PathBuf,
        #[arg(long)]
        json: bool,
        /// Draw the graph the app shows (lanes, folded runs, default filter)
        #[arg(long, conflicts_with = "json")]
        graph: bool,
    },
    /// Show the context the LLM sees at a node (pi's buildSessionContext)
    Context {
        file: PathBuf,
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
        file: PathBuf,
        /// Entry id to resume at
        #[arg(required_unless_present = "root", conflicts_with = "root")]
        id: Option<String>,
        /// Resume before the first entry
        #[arg(long)]
        root: bool,
        #[command(flatten)]
        sessions: RootArg,
    },
    /// Set or clear the label of an entry (appends one `label` line, as pi does)
    Label {
        file: PathBuf,
        id: String,
        #[arg(required_unless_present = "clear", conflicts_with = "clear")]
        text: Option<String>,
        /// Remove the label
        #[arg(long)]
        clear: bool,
        #[command(flatten)]
        sessions: RootArg,
    },
    /// Fork the path root→ID into a new session file beside the source; prints its path
    Fork {
        file: PathBuf,
        id: String,
        /// Fork before the entry (at its parent), as pi's /fork offers for user messages
        #[arg(long)]
        before: bool,
        #[command(flatten)]
        sessions: RootArg,
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
        #[arg(long)]
        json: bool,
    },
    /// Export a path (default: the session's leaf) or the whole tree as self-contained HTML or Markdown
    Export {
        file: PathBuf,
        /// Export the path root→ID instead of the path to the session's leaf
        #[arg(long, value_name = "ID", conflicts_with = "tree")]
        leaf: Option<String>,
        /// Export every branch of the tree
        #[arg(long)]
        tree: bool,
        #[arg(long, required_unless_present = "md", conflicts_with = "md")]
        html: bool,
        #[arg(long)]
        md: bool,
        /// Output file (`-` for standard output)
        #[arg(short = 'o', long = "out", value_name = "OUT")]
        out: PathBuf,
    },
    /// Report damage in a file or every file under a root; exit 1 when any finding is an error
    Check {
        /// A session file or a folder (default: the sessions root)
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
    match run(cli.cmd, cli.read_only) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pi-session: {e}");
            ExitCode::from(1)
        }
    }
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
    match done {
        // The reader went away (`| head`): stop quietly, as other command-line tools do.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        r => r.map_err(|e| Error::Invalid(e.to_string())),
    }
}

fn write_opts(sessions: &RootArg, read_only: bool) -> WriteOptions {
    WriteOptions { root: Some(resolve_root(sessions.sessions_dir.as_deref()).path), read_only, ..Default::default() }
}

#[derive(Serialize)]
struct Wrote {
    file: PathBuf,
    line: String,
    offset: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
}

impl From<Appended> for Wrote {
    fn from(a: Appended) -> Self {
        if let Some(w) = &a.warning {
            eprintln!("pi-session: warning: {w}");
        }
        Wrote { file: a.file, line: a.line, offset: a.offset, warning: a.warning }
    }
}

fn run(cmd: Cmd, read_only: bool) -> Result<ExitCode, Error> {
    match cmd {
        Cmd::Navigate { file, id, root: _, sessions } => {
            let a = write::navigate(&file, id.as_deref(), &write_opts(&sessions, read_only))?;
            print_json(&Wrote::from(a))?;
        }
        Cmd::Label { file, id, text, clear, sessions } => {
            let text = if clear { None } else { text };
            let a = write::set_label(&file, &id, text.as_deref(), &write_opts(&sessions, read_only))?;
            print_json(&Wrote::from(a))?;
        }
        Cmd::Fork { file, id, before, sessions } => {
            let opts = write_opts(&sessions, read_only);
            if read_only {
                return Err(Error::ReadOnlyMode);
            }
            write::validate_id(&id)?;
            let target = if before { write::fork_target(&Session::open(&file)?, &id, true)? } else { Some(id) };
            let f = write::fork(&file, target.as_deref(), &opts)?;
            #[derive(Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Out {
                file: PathBuf,
                leaf_id: Option<String>,
                copied: usize,
            }
            print_json(&Out { file: f.file, leaf_id: f.leaf_id, copied: f.copied })?;
        }
        Cmd::List { root, json } => {
            let root = resolve_root(root.sessions_dir.as_deref()).path;
            let (l, mut cache) = list_with_cache(&root);
            cache.save_if_changed();
            if json {
                print_json(&l)?;
            } else {
                println!("{} sessions under {}", l.sessions.len(), root.display());
                for s in &l.sessions {
                    println!("{}", summary_line(s));
                }
                for o in &l.other {
                    println!("  ! {}: {}", o.path.display(), o.diagnostic.message);
                }
            }
        }
        Cmd::Tree { file, json, graph } => {
            let s = Session::open(&file)?;
            if json {
                print_json(&TreeJson::of(&s))?;
            } else if graph {
                let layout = pi_session::layout::Layout::build(&s, &pi_session::api::TreeQuery::default());
                print!("{}", pi_session::layout::ascii(&layout, &[&s]));
                print_diags(&s.diagnostics());
            } else {
                print!("{}", pi_session::view::ascii_tree(&s));
                print_diags(&s.diagnostics());
            }
        }
        Cmd::Context { file, leaf, json } => {
            let s = Session::open(&file)?;
            let req = leaf.as_deref().map(|l| if l == "null" { None } else { Some(l) });
            let leaf = s.resolve_leaf(req)?;
            let c = ContextJson::of(&s, leaf)?;
            if json {
                print_json(&c)?;
            } else {
                print_context(&s, leaf, &c);
            }
        }
        Cmd::Forks { root, json } => {
            let root = resolve_root(root.sessions_dir.as_deref()).path;
            let (l, mut cache) = list_with_cache(&root);
            let forks = fork_graph_cached(&root, &l.sessions, &mut cache);
            cache.save_if_changed();
            if json {
                #[derive(Serialize)]
                struct Out<'a> {
                    sessions: &'a [pi_session::forks::ForkInfo],
                }
                print_json(&Out { sessions: &forks })?;
            } else {
                for f in forks.iter().filter(|f| f.parent_session.is_some()) {
                    let status = match f.status {
                        ForkStatus::Ok => "",
                        ForkStatus::ParentMissing => "  [parent missing]",
                        ForkStatus::Cycle => "  [cycle]",
                    };
                    println!(
                        "{} <- {} at {}{}",
                        f.parent_path.as_deref().map(|p| p.display().to_string()).unwrap_or_default(),
                        f.path.display(),
                        f.fork_point_id.as_deref().unwrap_or("?"),
                        status
                    );
                }
            }
        }
        Cmd::Search { query, root, limit, json } => {
            let root = resolve_root(root.sessions_dir.as_deref()).path;
            // One index per root whatever the working folder: absolute paths in it.
            let root = std::fs::canonicalize(&root).unwrap_or(root);
            let ix = pi_session_find::SearchIndex::open_default(&root).map_err(find_err)?;
            let st = ix
                .update(|p| {
                    if p.total > 200 && (p.done % 640 == 0 || p.done == p.total) {
                        eprintln!("indexing: {}/{} files", p.done, p.total);
                    }
                })
                .map_err(find_err)?;
            let r = ix.search(&query, limit).map_err(find_err)?;
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
                println!("{} hits in {} sessions{} ({} files indexed)", r.total_hits, r.sessions.len(), if r.truncated { " (more not shown)" } else { "" }, r.files_indexed);
            }
        }
        Cmd::Export { file, leaf, tree, html, md: _, out } => {
            use pi_session::export::{to_html, to_markdown, write_out, Scope};
            let s = Session::open(&file)?;
            let scope = if tree { Scope::Tree } else { Scope::Path(s.resolve_leaf(leaf.as_deref().map(Some))?) };
            let text = if html { to_html(&s, scope)? } else { to_markdown(&s, scope)? };
            if out.as_os_str() == "-" {
                print!("{text}");
            } else {
                write_out(&out, &text)?;
                eprintln!("wrote {} ({} bytes)", out.display(), text.len());
            }
        }
        Cmd::Check { path, root, json } => {
            let target = path.unwrap_or_else(|| resolve_root(root.sessions_dir.as_deref()).path);
            let report = check(&target, &resolve_root(root.sessions_dir.as_deref()).path)?;
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

#[derive(Serialize)]
struct FileReport {
    path: PathBuf,
    diagnostics: Vec<pi_session::Diagnostic>,
}

#[derive(Serialize)]
struct CheckReport {
    files: Vec<FileReport>,
    errors: usize,
    warnings: usize,
}

fn check(target: &Path, root: &Path) -> Result<CheckReport, Error> {
    let meta = std::fs::metadata(target).map_err(|e| Error::io(target, e))?;
    let mut files = Vec::new();
    if meta.is_dir() {
        let l = list(target);
        for s in l.sessions {
            files.push(FileReport { path: s.path, diagnostics: s.diagnostics });
        }
        let at: std::collections::HashMap<PathBuf, usize> = files.iter().enumerate().map(|(i, f)| (f.path.clone(), i)).collect();
        for o in l.other {
            // A symlink to a session is both a session and a finding about its path: one report.
            match at.get(&o.path) {
                Some(&i) => files[i].diagnostics.insert(0, o.diagnostic),
                None => files.push(FileReport { path: o.path, diagnostics: vec![o.diagnostic] }),
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
    } else {
        let s = Session::open(target)?;
        let mut diagnostics = s.diagnostics();
        // parentSession: missing or relative (a cycle needs the other files: check the folder).
        let summary = SessionSummary::of(&s, meta.len());
        diagnostics.extend(pi_session::forks::fork_diagnostics(root, std::slice::from_ref(&summary)).into_iter().flatten());
        files.push(FileReport { path: target.to_path_buf(), diagnostics });
    }
    let count = |sev| files.iter().flat_map(|f| &f.diagnostics).filter(|d| d.severity == sev).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    Ok(CheckReport { files, errors, warnings })
}

fn summary_line(s: &SessionSummary) -> String {
    let title = s.name.clone().or_else(|| s.first_user_message.clone()).unwrap_or_else(|| "(no messages)".into());
    let title = pi_session::view::fold(&title, 60);
    let flag = if s.has_errors() { " !" } else { "" };
    format!(
        "  {}  {:>6} entries  {}  {}{}\n      {}",
        s.timestamp.as_deref().unwrap_or("?"),
        s.entry_count,
        s.cwd.as_deref().unwrap_or("?"),
        title,
        flag,
        s.path.display()
    )
}

fn print_diags(d: &[pi_session::Diagnostic]) {
    for d in d {
        let line = d.line.map(|l| format!("line {l}: ")).unwrap_or_default();
        println!("  {:?} {}: {}{}", d.severity, d.kind, line, d.message);
    }
}

fn print_context(s: &Session, leaf: Leaf, c: &ContextJson) {
    let at = match leaf {
        Leaf::Null => "before the first entry".to_string(),
        Leaf::Entry(i) => format!("entry {}", s.id_of(i)),
    };
    let model = c.model.as_ref().map(|m| format!("{}/{}", m.provider.as_deref().unwrap_or("?"), m.model_id.as_deref().unwrap_or("?")));
    println!(
        "context at {at}: {} messages, model {}, thinking {}",
        c.messages.len(),
        model.as_deref().unwrap_or("none"),
        c.thinking_level.as_deref().unwrap_or("?")
    );
    for (m, id) in c.messages.iter().zip(&c.entry_ids) {
        let v: serde_json::Value = serde_json::from_str(m.get()).unwrap_or_default();
        let role = v.get("role").and_then(|r| r.as_str()).unwrap_or("?").to_string();
        let text = match role.as_str() {
            "compactionSummary" | "branchSummary" => v.get("summary").and_then(|s| s.as_str()).unwrap_or("").to_string(),
            _ => v.get("content").map(pi_session::view::content_text).unwrap_or_default(),
        };
        println!("  {id:>10}  {role:<18} {}", pi_session::view::fold(&text, 90));
    }
    if !c.hidden_entry_ids.is_empty() {
        println!("  hidden by compaction: {} entries", c.hidden_entry_ids.len());
    }
}

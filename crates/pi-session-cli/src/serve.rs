//! `pi-session serve`: glue between the command line and the `pi-session-serve` crate.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use pi_session::scan::{resolve_root, RootSource};
use pi_session_serve::{Config, Server, DEFAULT_PORT};

#[derive(Args)]
pub struct ServeArgs {
    /// Sessions root (default: $PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions)
    #[arg(long, value_name = "DIR")]
    sessions_dir: Option<PathBuf>,
    /// Address to listen on; port 0 picks a free port
    #[arg(long, value_name = "ADDR", default_value_t = SocketAddr::from(([127, 0, 0, 1], DEFAULT_PORT)))]
    listen: SocketAddr,
    /// Let the UI write (navigate, label, fork); without it the server is read-only
    #[arg(long)]
    allow_writes: bool,
    /// Do not watch the root for changes
    #[arg(long)]
    no_watch: bool,
}

fn source_name(s: RootSource) -> &'static str {
    match s {
        RootSource::Flag => "flag",
        RootSource::EnvSessionDir => "env-session-dir",
        RootSource::EnvAgentDir => "env-agent-dir",
        RootSource::Default => "default",
    }
}

pub fn run(args: ServeArgs, read_only: bool) -> ExitCode {
    let root = resolve_root(args.sessions_dir.as_deref());
    // Absolute, so the paths the UI gets and sends back do not depend on the working folder.
    let path = std::fs::canonicalize(&root.path).unwrap_or(root.path);
    let cfg = Config {
        root: path,
        root_source: source_name(root.source).into(),
        listen: args.listen,
        allow_writes: args.allow_writes,
        read_only,
        watch: !args.no_watch,
    };
    let writes = if read_only || !args.allow_writes { "read-only" } else { "writes allowed" };
    let root_shown = cfg.root.display().to_string();
    match Server::start(cfg) {
        Ok(server) => {
            if !server.addr().ip().is_loopback() {
                eprintln!("pi-session: warning: listening on {} — anyone who can reach it and has the token can read the sessions", server.addr());
            }
            eprintln!("pi-session: serving {root_shown} ({writes})");
            // The one line on stdout: scripts read the URL from it.
            println!("{}", server.url());
            server.wait();
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("pi-session: {e}");
            ExitCode::from(1)
        }
    }
}

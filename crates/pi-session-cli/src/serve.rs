//! `pi-session serve`: glue between the command line and the `pi-session-serve` crate.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use pi_session::roots::RootSpec;
use pi_session::scan::resolve_root;
use pi_session_serve::{Config, Server, DEFAULT_PORT};

#[derive(Args)]
pub struct ServeArgs {
    /// Sessions root, `DIR` or `NAME=DIR`; repeat it to serve several roots in one view
    /// (default: $PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions)
    #[arg(long, value_name = "[NAME=]DIR")]
    sessions_dir: Vec<String>,
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

pub fn run(args: ServeArgs, read_only: bool) -> ExitCode {
    // Absolute, so the paths the UI gets and sends back do not depend on the working folder.
    let absolute = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
    let mut specs: Vec<RootSpec> = args.sessions_dir.iter().map(|a| RootSpec::parse(a)).collect();
    let first = if specs.is_empty() { None } else { Some(specs.remove(0)) };
    let root = resolve_root(first.as_ref().map(|s| s.path.as_path()));
    for s in &mut specs {
        s.path = absolute(std::mem::take(&mut s.path));
    }
    let cfg = Config {
        root_name: first.map(|s| s.name),
        more_roots: specs,
        root_source: root.source.as_str().into(),
        listen: args.listen,
        allow_writes: args.allow_writes,
        read_only,
        watch: !args.no_watch,
        ..Config::new(absolute(root.path))
    };
    let writable = !read_only && args.allow_writes;
    let root_shown = cfg.root.display().to_string();
    match Server::start(cfg) {
        Ok(server) => {
            if let Some(w) = exposure_warning(server.addr(), writable) {
                eprintln!("pi-session: warning: {w}");
            }
            eprintln!("pi-session: serving {root_shown} ({})", if writable { "writes allowed" } else { "read-only" });
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

/// What a server reachable beyond this machine exposes, when it is.
pub fn exposure_warning(addr: SocketAddr, writable: bool) -> Option<String> {
    if addr.ip().is_loopback() {
        return None;
    }
    let what = if writable { "read the sessions and write to them (--allow-writes: navigate, label, fork)" } else { "read the sessions" };
    Some(format!("listening on {addr} — anyone who can reach it and has the token can {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reachable_server_warns_of_what_the_token_allows() {
        let any: SocketAddr = "0.0.0.0:8765".parse().unwrap();
        let read = exposure_warning(any, false).unwrap();
        assert!(read.contains("read the sessions") && !read.contains("write"), "{read}");
        let write = exposure_warning(any, true).unwrap();
        assert!(write.contains("read the sessions") && write.contains("write to them"), "{write}");
        assert_eq!(exposure_warning("127.0.0.1:8765".parse().unwrap(), true), None);
        assert_eq!(exposure_warning("[::1]:8765".parse().unwrap(), true), None);
    }
}

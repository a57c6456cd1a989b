//! `pi-session offer`, `followers` and `resume`: the running pis that follow a session (the
//! link of docs/pi-link.md) and a terminal running pi on a session.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use pi_session::pilink::{self, Follower, Offer, OfferAnswer, Wait};
use pi_session::terminal::{self, Resume};
use pi_session::Error;
use serde::Serialize;

use crate::print_json;

#[derive(Args)]
pub struct OfferArgs {
    /// The session a running pi is on
    file: PathBuf,
    /// Offer to move pi's leaf to this entry of FILE
    #[arg(long, value_name = "ID", required_unless_present = "switch", conflicts_with = "switch")]
    navigate: Option<String>,
    /// Offer to switch pi to this session file (a fork of FILE)
    #[arg(long, value_name = "NEWFILE")]
    switch: Option<PathBuf>,
    /// Only the pi with this process id
    #[arg(long)]
    pid: Option<u32>,
    /// Seconds the pi user has to answer (pi's dialog closes after them)
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Seconds to wait after a yes for pi to have moved (a summary calls the model)
    #[arg(long, default_value_t = 120)]
    apply_timeout: u64,
}

/// One pi's answer, as printed.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Answered {
    pid: u32,
    pi_version: String,
    #[serde(flatten)]
    answer: OfferAnswer,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Failed {
    pid: u32,
    pi_version: String,
    error: pi_session_app::api::ApiError,
}

/// Offers the move to every pi on FILE (or the one of `--pid`), all at once; prints a JSON
/// array with one answer per pi. Exit 3 when no running pi follows FILE, 1 when one could
/// not be asked.
pub fn offer(a: OfferArgs) -> Result<ExitCode, Error> {
    let what = match (&a.navigate, &a.switch) {
        (Some(id), _) => Offer::navigate(&a.file, id)?,
        (None, Some(new)) => Offer::switch(new)?,
        (None, None) => return Err(Error::Invalid("--navigate ID or --switch NEWFILE".into())),
    };
    let pis: Vec<Follower> = pilink::followers(&a.file).into_iter().filter(|f| a.pid.is_none_or(|p| p == f.pid)).collect();
    if pis.is_empty() {
        eprintln!("pi-session: no running pi follows {} (pi needs the pi-session-explorer-link extension: docs/pi-link.md)", a.file.display());
        return Ok(ExitCode::from(3));
    }
    let wait = Wait { decide: Duration::from_secs(a.timeout), apply: Duration::from_secs(a.apply_timeout) };
    let answers = pilink::offer_each(pis, &what, wait);
    let mut failed = false;
    let out: Vec<serde_json::Value> = answers
        .into_iter()
        .map(|(f, r)| match r {
            Ok(answer) => serde_json::to_value(Answered { pid: f.pid, pi_version: f.pi_version, answer }),
            Err(e) => {
                failed = true;
                eprintln!("pi-session: pi {}: {e}", f.pid);
                serde_json::to_value(Failed { pid: f.pid, pi_version: f.pi_version, error: e.into() })
            }
        })
        .collect::<Result<_, _>>()
        .map_err(|e| Error::Invalid(e.to_string()))?;
    print_json(&out)?;
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The running pis (on FILE, or all), as pi describes itself on its socket.
pub fn followers(file: Option<&Path>) -> Result<ExitCode, Error> {
    let pis = match file {
        Some(f) => {
            std::fs::metadata(f).map_err(|e| Error::io(f, e))?;
            pilink::followers(f)
        }
        None => pilink::discover(),
    };
    print_json(&pis)?;
    Ok(ExitCode::SUCCESS)
}

/// Opens a terminal running `pi --session FILE` in the session's cwd; without a terminal,
/// prints the command to run.
pub fn resume(file: &Path) -> Result<ExitCode, Error> {
    let r = Resume::of(file)?;
    if r.cwd.is_none() {
        eprintln!("pi-session: the session's cwd is not a folder here; pi starts in the current folder");
    }
    match terminal::plan(&r) {
        Some(launch) => {
            launch.spawn()?;
            eprintln!("pi-session: opened {} ({}) running: {}", launch.terminal, launch.program.display(), r.shell_line());
        }
        None => {
            eprintln!("pi-session: no terminal found ($TERMINAL is not set or not found{}); run:", no_terminal_hint());
            println!("{}", r.shell_line());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn no_terminal_hint() -> &'static str {
    match std::env::consts::OS {
        "macos" => ", no osascript",
        "windows" => ", no wt.exe",
        _ => ", no x-terminal-emulator on PATH",
    }
}

//! "Resume in pi": a terminal running `pi --session FILE` in the session's cwd.
//!
//! The terminal, first found wins: `$TERMINAL` (run as `$TERMINAL -e pi --session FILE`), then
//! `x-terminal-emulator` on Linux (Debian's alternative, which takes `-e` too), Terminal through
//! `osascript` on macOS, Windows Terminal (`wt.exe -d CWD pi --session FILE`) on Windows. When
//! none is found the caller shows [`Resume::shell_line`] for the user to run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::Error;

/// What resuming a session runs, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Resume {
    /// The session's cwd (its header's), or `None` when the header has none or that folder
    /// does not exist here: the command then runs where the caller is.
    pub cwd: Option<PathBuf>,
    /// `pi --session FILE` (FILE absolute).
    pub argv: Vec<String>,
}

impl Resume {
    /// The resume of a session file (its header read for the cwd).
    pub fn of(file: &Path) -> Result<Resume, Error> {
        let meta = std::fs::metadata(file).map_err(|e| Error::io(file, e))?;
        if !meta.is_file() {
            return Err(Error::NotAFile(file.to_path_buf()));
        }
        let abs = std::fs::canonicalize(file).map_err(|e| Error::io(file, e))?;
        let cwd = crate::summary::SessionSummary::quick(&abs, meta.len()).cwd.map(PathBuf::from).filter(|d| d.is_absolute() && d.is_dir());
        Ok(Resume { cwd, argv: vec!["pi".into(), "--session".into(), abs.to_string_lossy().into_owned()] })
    }

    /// The command for a shell: `cd CWD && pi --session FILE`, each word quoted as needed.
    pub fn shell_line(&self) -> String {
        let cmd = self.argv.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ");
        match &self.cwd {
            Some(d) => format!("cd {} && {cmd}", shell_quote(&d.to_string_lossy())),
            None => cmd,
        }
    }
}

/// A terminal to start: the program, its arguments, the folder it starts in.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// How it was found: `$TERMINAL`, `x-terminal-emulator`, `Terminal (osascript)`, `wt.exe`.
    pub terminal: String,
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: Option<PathBuf>,
}

impl Launch {
    /// Starts the terminal and returns at once (the terminal lives on its own).
    pub fn spawn(&self) -> Result<(), Error> {
        let mut cmd = std::process::Command::new(&self.program);
        cmd.args(&self.args).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        if let Some(d) = &self.cwd {
            cmd.current_dir(d);
        }
        cmd.spawn().map(drop).map_err(|e| Error::io(&self.program, e))
    }
}

/// The terminal for `resume` on this machine, `None` when there is none.
pub fn plan(resume: &Resume) -> Option<Launch> {
    plan_with(resume, &|k| std::env::var_os(k).filter(|v| !v.is_empty()), std::env::consts::OS)
}

/// [`plan`] with the environment and the OS given (`linux`, `macos`, `windows`, …).
pub fn plan_with(resume: &Resume, env: &dyn Fn(&str) -> Option<OsString>, os: &str) -> Option<Launch> {
    let path = env("PATH");
    let found = |name: &str| which(name, path.as_deref());
    let dash_e = |terminal: &str, program: PathBuf| Launch {
        terminal: terminal.into(),
        program,
        args: std::iter::once(OsString::from("-e")).chain(resume.argv.iter().map(OsString::from)).collect(),
        cwd: resume.cwd.clone(),
    };
    if let Some(t) = env("TERMINAL") {
        let t = PathBuf::from(t);
        let program = if t.components().count() > 1 { Some(t).filter(|p| is_executable(p)) } else { found(&t.to_string_lossy()) };
        if let Some(p) = program {
            return Some(dash_e("$TERMINAL", p));
        }
    }
    match os {
        "macos" => found("osascript").map(|p| {
            let script = format!("tell application \"Terminal\" to do script \"{}\"", applescript_escape(&resume.shell_line()));
            Launch {
                terminal: "Terminal (osascript)".into(),
                program: p,
                args: ["-e", &script, "-e", "tell application \"Terminal\" to activate"].map(OsString::from).to_vec(),
                cwd: resume.cwd.clone(),
            }
        }),
        "windows" => found("wt.exe").map(|p| {
            let mut args: Vec<OsString> = Vec::new();
            if let Some(d) = &resume.cwd {
                args.push("-d".into());
                args.push(d.clone().into_os_string());
            }
            args.extend(resume.argv.iter().map(OsString::from));
            Launch { terminal: "wt.exe".into(), program: p, args, cwd: resume.cwd.clone() }
        }),
        _ => found("x-terminal-emulator").map(|p| dash_e("x-terminal-emulator", p)),
    }
}

/// The first executable `name` in `path` (a `PATH` value).
pub fn which(name: &str, path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path?).map(|d| d.join(name)).find(|p| is_executable(p))
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// A word for a POSIX shell: as is when it holds only safe characters, else in single quotes.
pub fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_./:=@%+,-".contains(&b));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn applescript_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resume() -> Resume {
        Resume { cwd: Some("/work/my proj".into()), argv: vec!["pi".into(), "--session".into(), "/s/a b's.jsonl".into()] }
    }

    #[test]
    fn shell_line_quotes_what_needs_it() {
        assert_eq!(resume().shell_line(), r#"cd '/work/my proj' && pi --session '/s/a b'\''s.jsonl'"#);
        assert_eq!(shell_quote("/plain/path-1.jsonl"), "/plain/path-1.jsonl");
        assert_eq!(shell_quote(""), "''");
    }

    #[cfg(unix)]
    #[test]
    fn terminal_order_and_arguments() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let exe = |name: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            p
        };
        let xte = exe("x-terminal-emulator");
        let osa = exe("osascript");
        let wt = exe("wt.exe");
        let mine = exe("my-term");
        let path = dir.path().as_os_str().to_owned();
        let env = |term: Option<&str>| {
            let path = path.clone();
            let term = term.map(OsString::from);
            move |k: &str| match k {
                "PATH" => Some(path.clone()),
                "TERMINAL" => term.clone(),
                _ => None,
            }
        };
        let r = resume();
        let l = plan_with(&r, &env(Some("my-term")), "linux").unwrap();
        assert_eq!((l.terminal.as_str(), &l.program), ("$TERMINAL", &mine));
        assert_eq!(l.args, ["-e", "pi", "--session", "/s/a b's.jsonl"].map(OsString::from).to_vec());
        assert_eq!(l.cwd.as_deref(), Some(Path::new("/work/my proj")));
        // A $TERMINAL that is not there falls through to the platform's own.
        let l = plan_with(&r, &env(Some("no-such-term")), "linux").unwrap();
        assert_eq!(l.program, xte);
        let l = plan_with(&r, &env(None), "macos").unwrap();
        assert_eq!(l.program, osa);
        assert_eq!(l.args[1], OsString::from(r#"tell application "Terminal" to do script "cd '/work/my proj' && pi --session '/s/a b'\\''s.jsonl'""#));
        let l = plan_with(&r, &env(None), "windows").unwrap();
        assert_eq!(l.program, wt);
        assert_eq!(l.args, ["-d", "/work/my proj", "pi", "--session", "/s/a b's.jsonl"].map(OsString::from).to_vec());
        let nothing = |k: &str| (k == "PATH").then(|| OsString::from("/nonexistent"));
        assert_eq!(plan_with(&r, &nothing, "linux"), None);
    }
}

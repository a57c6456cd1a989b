//! Children of pi-bench, measured: wall time to the last byte of output, peak RSS from `wait4`.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Instant;

pub struct Run {
    /// From spawn to the last byte of stdout.
    pub secs: f64,
    /// exit code, or -signal
    pub status: i32,
    pub max_rss_kb: u64,
    /// User plus system CPU time, from `wait4` (the child and its threads).
    pub cpu_secs: f64,
    pub stdout: Vec<u8>,
    pub stdout_len: u64,
    pub stderr: Vec<u8>,
    /// Killed for running past its time limit ([`run_limited`]).
    pub timed_out: bool,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.status == 0
    }

    pub fn describe_failure(&self) -> String {
        let err = String::from_utf8_lossy(&self.stderr);
        // V8's out-of-memory report is followed by a stack dump: show its headline.
        let tail = match err.lines().find(|l| l.contains("FATAL ERROR") || l.contains("out of memory")) {
            Some(l) => l.trim().to_string(),
            None => err.lines().rev().take(4).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join(" | "),
        };
        if self.timed_out {
            format!("stopped after {:.0} s, its time limit: {tail}", self.secs)
        } else if self.status < 0 {
            format!("killed by signal {}{}: {tail}", -self.status, if -self.status == 9 || -self.status == 6 { " (out of memory?)" } else { "" })
        } else {
            format!("exit {}: {tail}", self.status)
        }
    }
}

/// Runs `cmd`, reading its stdout to the end (kept when `keep`), and reaps it with `wait4`
/// for its own peak RSS.
pub fn run(cmd: &mut Command, keep: bool) -> std::io::Result<Run> {
    run_limited(cmd, keep, false, None)
}

/// [`run`], and: `oom_first`, should memory run out, the kernel ends this child before anything
/// else; `limit`, the child is killed (`SIGKILL`) once it has run that long (a pi that loops on a
/// parent cycle must not hold the whole benchmark).
pub fn run_limited(cmd: &mut Command, keep: bool, oom_first: bool, limit: Option<std::time::Duration>) -> std::io::Result<Run> {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // A child's peak RSS counts this process's RSS at fork: give freed memory (an earlier
    // child's parsed output) back first.
    // SAFETY: no arguments; glibc only trims its own free lists.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
    let t = Instant::now();
    let mut child = cmd.spawn()?;
    let pid = child.id() as libc::pid_t;
    if oom_first {
        let _ = std::fs::write(format!("/proc/{pid}/oom_score_adj"), "1000");
    }
    // The watchdog: killed unless told (by the sender's drop) that the output ended first. The
    // child is not reaped before the watchdog is joined, so its pid cannot name another process.
    let (done, over) = std::sync::mpsc::channel::<()>();
    let watchdog = limit.map(|limit| {
        std::thread::spawn(move || {
            let fired = over.recv_timeout(limit) == Err(std::sync::mpsc::RecvTimeoutError::Timeout);
            if fired {
                // SAFETY: a signal to our own unreaped child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            fired
        })
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let errt = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let mut stdout = Vec::new();
    let mut n = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let k = out.read(&mut buf)?;
        if k == 0 {
            break;
        }
        n += k as u64;
        if keep {
            stdout.extend_from_slice(&buf[..k]);
        }
    }
    let secs = t.elapsed().as_secs_f64();
    drop(done);
    let timed_out = watchdog.is_some_and(|w| w.join().unwrap_or(false));
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    std::mem::forget(child); // reaped above
    let status = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        -libc::WTERMSIG(status)
    } else {
        -1
    };
    Ok(Run { secs, status, max_rss_kb: ru.ru_maxrss as u64, cpu_secs: cpu_secs(&ru), stdout, stdout_len: n, stderr: errt.join().unwrap_or_default(), timed_out })
}

/// User plus system CPU time of a `rusage`.
fn cpu_secs(ru: &libc::rusage) -> f64 {
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// User plus system CPU time of this process's reaped children so far (their children
/// included, once those were waited for).
pub(super) fn children_cpu_secs() -> f64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid rusage for getrusage to fill.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    cpu_secs(&ru)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_child_past_its_limit_is_killed_and_one_within_it_is_not() {
        let r = run_limited(Command::new("sleep").arg("30"), false, false, Some(Duration::from_millis(300))).unwrap();
        assert!(r.timed_out && r.status == -libc::SIGKILL && r.secs < 10.0, "status {} after {} s", r.status, r.secs);
        assert!(r.describe_failure().contains("time limit"), "{}", r.describe_failure());
        let r = run_limited(Command::new("sh").args(["-c", "echo ok"]), true, false, Some(Duration::from_secs(30))).unwrap();
        assert!(!r.timed_out && r.ok() && r.stdout == b"ok\n");
    }
}

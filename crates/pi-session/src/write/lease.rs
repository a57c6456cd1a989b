//! Holding other writers off for the instant of an append.
//!
//! On Linux a write lease (`fcntl(fd, F_SETLEASE, F_WRLCK)`) is granted only while no other
//! descriptor (of any process, ours included) has the file open, and while it is held every
//! other `open()` of the file blocks until we release it. pi opens the file for each line it
//! appends (`appendFileSync`: open, write, close), so while we hold the lease no line of pi's
//! can begin, and none is half-written: the check of the file's size and tail and our single
//! `write` happen with the file to ourselves. We hold it for that instant only (a `pread` of
//! what was appended since the last read, one `write`), then release it, then fsync; pi's
//! `open()` waits that long.
//!
//! The kernel tells a lease holder that someone wants the file by a signal (SIGIO unless
//! `F_SETSIG` names another), whose default action would end the process. We never change a
//! signal's disposition: the lease's signal is set to SIGURG, whose default action is to ignore
//! it, and no lease is taken when SIGURG has a handler of someone else's (a program embedding
//! this library that uses SIGURG keeps it to itself; the append then goes without a lease). We
//! need no notification: we release the lease right after our write anyway.
//!
//! No lease: another process holds the file open (a writer keeping its descriptor, a `tail -f`),
//! the filesystem has no leases (some network filesystems), we do not own the file, or the
//! system is not Linux. The append then relies on the check right before the write and on
//! verifying afterwards where the line landed ([`super::append`]).

use std::fs::File;
use std::time::Duration;

/// How the append was guarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// A write lease: no other process had the file open or could open it between our check
    /// and our write.
    Lease,
    /// The check of size and tail right before the write, and the line's position verified
    /// after it (no lease could be had).
    Check,
}

impl Guard {
    pub fn as_str(self) -> &'static str {
        match self {
            Guard::Lease => "lease",
            Guard::Check => "check",
        }
    }
}

/// A write lease held on a descriptor; released when dropped.
pub(crate) struct Lease<'a> {
    #[cfg(target_os = "linux")]
    f: &'a File,
    #[cfg(not(target_os = "linux"))]
    _f: std::marker::PhantomData<&'a File>,
}

impl<'a> Lease<'a> {
    /// Takes a write lease on `f` (open for reading and appending), trying again while another
    /// descriptor has the file open (a writer between its open and close), for up to
    /// `patience`. `None` when no lease could be had.
    pub fn take(f: &'a File, patience: Duration) -> Option<Lease<'a>> {
        #[cfg(target_os = "linux")]
        {
            linux::take(f, patience)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (f, patience);
            None
        }
    }

    /// Releases the lease (other processes' `open()` of the file goes on).
    pub fn release(self) {}
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        linux::release(self.f);
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::fs::File;
    use std::os::fd::AsRawFd;
    use std::time::{Duration, Instant};

    use super::Lease;

    /// The signal a lease break sends us: ignored by default.
    const BREAK_SIGNAL: libc::c_int = libc::SIGURG;
    /// `fcntl`'s F_SETSIG (asm-generic/fcntl.h; no Linux architecture Rust targets changes it),
    /// which the libc crate does not name for every target.
    const F_SETSIG: libc::c_int = 10;
    /// Between tries while another descriptor has the file open.
    const RETRY: Duration = Duration::from_micros(500);

    pub(super) fn take(f: &File, patience: Duration) -> Option<Lease<'_>> {
        if !break_signal_is_ignored() {
            return None;
        }
        let fd = f.as_raw_fd();
        // SAFETY: fcntl on a descriptor we hold open; integer arguments only.
        if unsafe { libc::fcntl(fd, F_SETSIG, BREAK_SIGNAL) } != 0 {
            return None;
        }
        let started = Instant::now();
        loop {
            // SAFETY: as above.
            if unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_WRLCK as libc::c_int) } == 0 {
                return Some(Lease { f });
            }
            // EAGAIN: another descriptor has the file open (for a writer that opens per line,
            // for a moment). Anything else (EINVAL: no leases here; EACCES: not our file): no lease.
            let busy = std::io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN);
            if !busy || started.elapsed() >= patience {
                return None;
            }
            std::thread::sleep(RETRY);
        }
    }

    pub(super) fn release(f: &File) {
        // SAFETY: fcntl on a descriptor we hold open; integer arguments only. A failure leaves
        // the lease to the close of the descriptor, moments later.
        unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK as libc::c_int) };
    }

    /// True when SIGURG is ignored (its default, or set so): a lease break then does nothing
    /// to this process. Only reads the disposition.
    fn break_signal_is_ignored() -> bool {
        // SAFETY: sigaction with a null new action only reads the current one into `old`.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(BREAK_SIGNAL, std::ptr::null(), &mut old) != 0 {
                return false;
            }
            old.sa_sigaction == libc::SIG_DFL || old.sa_sigaction == libc::SIG_IGN
        }
    }

    /// Whether a lease is held on `f` (tests).
    #[cfg(test)]
    pub(super) fn held(f: &File) -> bool {
        // SAFETY: F_GETLEASE on a descriptor we hold open.
        unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETLEASE) == libc::F_WRLCK as libc::c_int }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use std::io::Write;
    use std::time::Instant;

    fn open(p: &std::path::Path) -> File {
        OpenOptions::new().read(true).append(true).open(p).unwrap()
    }

    /// The lease is taken, blocks another process's open of the file until it is released,
    /// and is gone after release.
    #[test]
    fn lease_taken_blocks_other_opens_and_is_released() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, b"{}\n").unwrap();
        let f = open(&p);
        let lease = Lease::take(&f, Duration::from_millis(100)).expect("a lease on a file nobody else has open");
        assert!(linux::held(&f));
        // Another process appends a line the way pi does: its open waits for our release.
        let mut child = std::process::Command::new("sh").arg("-c").arg("printf 'x\\n' >> \"$0\"").arg(&p).spawn().unwrap();
        let held_for = Duration::from_millis(300);
        std::thread::sleep(held_for);
        assert!(child.try_wait().unwrap().is_none(), "the other writer's open waits while we hold the lease");
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 3, "nothing landed while we held the lease");
        let released = Instant::now();
        lease.release();
        assert!(!linux::held(&f));
        assert!(child.wait().unwrap().success());
        println!("lease: the other writer waited {held_for:?}, then appended {:?} after the release", released.elapsed());
        assert_eq!(std::fs::read(&p).unwrap(), b"{}\nx\n");
    }

    /// Another descriptor open on the file (here one of ours): no lease, after the patience.
    #[test]
    fn no_lease_while_another_descriptor_is_open() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.jsonl");
        std::fs::write(&p, b"{}\n").unwrap();
        let f = open(&p);
        let mut other = OpenOptions::new().append(true).open(&p).unwrap();
        assert!(Lease::take(&f, Duration::from_millis(20)).is_none());
        other.write_all(b"y\n").unwrap();
        drop(other);
        let lease = Lease::take(&f, Duration::from_millis(20)).expect("a lease once the other descriptor is closed");
        drop(lease);
        assert!(!linux::held(&f));
    }
}

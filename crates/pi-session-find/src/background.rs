//! Background work that must not slow the window: the first build of a search index reads
//! every session (gigabytes on a big root) while the user is starting the app, opening and
//! scrolling sessions. It runs on its own small thread pool at the lowest CPU priority, so on a
//! machine with few cores the window, the listing and the open session always go first, and
//! the index takes whatever is left.

use std::sync::OnceLock;

/// Runs `f` on the background pool (its parallel iterators run there too) and returns its
/// result. The calling thread waits.
pub fn at_low_priority<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match pool() {
        Some(p) => p.install(f),
        None => f(),
    }
}

fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("index-bg-{i}"))
            .start_handler(|_| lower_priority())
            .build()
            .map_err(|e| eprintln!("pi-session-find: no background pool ({e}); indexing at normal priority"))
            .ok()
    })
    .as_ref()
}

/// The calling thread's nice value to 19 (Linux: the nice value belongs to the thread).
#[cfg(target_os = "linux")]
fn lower_priority() {
    // SAFETY: setpriority with who = 0 changes only the calling thread's nice value.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
}

#[cfg(not(target_os = "linux"))]
fn lower_priority() {}

/// The calling thread's nice value (Linux), for tests.
#[cfg(target_os = "linux")]
pub fn current_nice() -> i32 {
    // SAFETY: getpriority only reads; errno is cleared first as its man page asks.
    unsafe {
        *libc::__errno_location() = 0;
        libc::getpriority(libc::PRIO_PROCESS, 0)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn background_work_and_its_parallel_parts_run_at_the_lowest_priority() {
        let here = current_nice();
        let (outer, inner) = at_low_priority(|| {
            let inner: Vec<i32> = (0..64).into_par_iter().map(|_| current_nice()).collect();
            (current_nice(), inner)
        });
        assert_eq!(outer, 19);
        assert!(inner.iter().all(|&n| n == 19), "{inner:?}");
        // The caller's own priority is untouched.
        assert_eq!(current_nice(), here);
    }
}

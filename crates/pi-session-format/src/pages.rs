//! Fresh memory backed by transparent huge pages, where Linux offers them on `madvise` and
//! where they are cheap. Opening a big session allocates tens of megabytes at once, and a new
//! 4 KB page costs a fault (about 1.4 µs here, 0.37 ms a megabyte); a 2 MB page costs one fault
//! and its zeroing (about 0.05 ms a megabyte), when the memory behind it is ready.
//!
//! It is not always ready. In a virtual machine whose host takes back the guest's free memory
//! (free page reporting, as on the project's 2-core machine: blocks of 2 MB are reported as
//! soon as they are free), a fresh 2 MB page whose memory was reported costs 512 trips to the
//! host: 2-4.5 ms, where its 512 small pages (taken from smaller free blocks, not reported)
//! cost 0.7 ms. Memory freed by a process that just ended is ready; after the machine has idled
//! for a few seconds, none is. So a hinted block's huge pages are faulted in at once (its first
//! 64 MB), each timed: once one was slow, the rest of the block, and every block after it in
//! this process, stays on small pages.

use std::alloc::{alloc, dealloc, Layout};
use std::ptr::NonNull;
#[cfg(target_os = "linux")]
use std::sync::atomic::{AtomicBool, Ordering};
#[cfg(target_os = "linux")]
use std::time::Duration;

use allocator_api2::alloc::{AllocError, Allocator};

const HUGE: usize = 2 << 20;

#[cfg(target_os = "linux")]
/// Slower than this, a huge page's fault costs more than its 512 small pages would (0.7 ms).
const SLOW_HUGE_PAGE: Duration = Duration::from_micros(400);

#[cfg(target_os = "linux")]
/// The most of a hinted block faulted in when it is hinted (the big session's 200,000 entries
/// take 32 MB).
const EAGER: usize = 64 << 20;

#[cfg(target_os = "linux")]
/// Set once a fresh huge page was found slow: this process then asks for no more. (A fact
/// about the machine measured once, like a CPU feature; nothing else is kept here.)
static HUGE_PAGES_SLOW: AtomicBool = AtomicBool::new(false);

#[cfg(target_os = "linux")]
/// Whether a huge page that took `elapsed` to fault in was slow (see [`SLOW_HUGE_PAGE`]).
fn slow(elapsed: Duration) -> bool {
    elapsed > SLOW_HUGE_PAGE
}

/// Hints `len` bytes at `at` (2 MB aligned, `len` a multiple of 2 MB, inside a block the
/// caller owns, not yet touched) for huge pages, unless they were found slow; then faults in
/// the first [`EAGER`] of them one by one, each timed, and leaves the rest of the block on small
/// pages once one was slow. (Past [`EAGER`] the hint stays, taken as pages are first used: a
/// reservation guessed from a file's size can be far more than its entries fill, and memory
/// faulted in for nothing would stay with the process.)
///
/// # Safety
/// `at..at + len` must be memory the caller owns and may write (its contents are not yet
/// initialized: one byte of each of its first 2 MB pages is written).
#[cfg(target_os = "linux")]
unsafe fn hint(at: *mut u8, len: usize) {
    // SAFETY: as the caller promised; the write is to memory it owns.
    unsafe {
        hint_timed(at, len, &HUGE_PAGES_SLOW, |p| {
            let t = std::time::Instant::now();
            std::ptr::write_volatile(p, 0);
            t.elapsed()
        })
    }
}

/// [`hint`], with the verdict kept in `slow_seen` and each page faulted in by `touch` (which
/// returns how long that took).
///
/// # Safety
/// As for [`hint`]; `touch` is given the start of each page faulted in.
#[cfg(target_os = "linux")]
unsafe fn hint_timed(at: *mut u8, len: usize, slow_seen: &AtomicBool, mut touch: impl FnMut(*mut u8) -> Duration) {
    if len == 0 || slow_seen.load(Ordering::Relaxed) {
        return;
    }
    // SAFETY (this block): the range is the caller's (see above); MADV_HUGEPAGE and
    // MADV_NOHUGEPAGE change how pages are backed, never their contents.
    unsafe {
        libc::madvise(at.cast(), len, libc::MADV_HUGEPAGE);
        for off in (0..len.min(EAGER)).step_by(HUGE) {
            if slow(touch(at.add(off))) {
                slow_seen.store(true, Ordering::Relaxed);
                if off + HUGE < len {
                    libc::madvise(at.add(off + HUGE).cast(), len - off - HUGE, libc::MADV_NOHUGEPAGE);
                }
                return;
            }
        }
    }
}

/// Asks the kernel to back a big buffer that is about to be filled with transparent huge pages
/// (Linux, where they are on `madvise`, and while they are cheap: see the module's notes). The
/// vector's elements are not touched; one byte of each 2 MB of its spare capacity may be.
pub fn huge_pages<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        let spare = v.spare_capacity_mut();
        let bytes = std::mem::size_of_val(spare);
        if bytes < 2 * HUGE {
            return;
        }
        let start = spare.as_mut_ptr().cast::<u8>();
        let first = (start as usize).next_multiple_of(HUGE) - start as usize;
        let end = (start as usize + bytes) & !(HUGE - 1);
        if end > start as usize + first {
            // SAFETY: the range lies inside the vector's spare capacity (allocated, owned by
            // the vector, holding no element).
            unsafe { hint(start.add(first), end - (start as usize + first)) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// An allocator whose allocations from 1 MB up are aligned to, and rounded up to, whole 2 MB
/// huge pages and hinted to be backed by them (while they are cheap: see the module's notes);
/// smaller ones are the global allocator's. For the id map's table and the decoded snapshot's
/// blocks of message metas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HugePages;

/// The layout `HugePages` really allocates for `layout` (the same for the same request, so a
/// block is freed with the layout it was allocated with).
fn huge_layout(layout: Layout) -> Layout {
    if layout.size() < HUGE / 2 {
        return layout;
    }
    match layout
        .size()
        .checked_next_multiple_of(HUGE)
        .map(|size| Layout::from_size_align(size, HUGE.max(layout.align())))
    {
        Some(Ok(l)) => l,
        _ => layout,
    }
}

// SAFETY: blocks come from the global allocator with `huge_layout(layout)`, which is at least
// as big and as aligned as `layout`, and go back to it with the same layout.
unsafe impl Allocator for HugePages {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let real = huge_layout(layout);
        let ptr = if real.size() == 0 {
            // A zero-sized block: any aligned, non-null address.
            NonNull::new(std::ptr::without_provenance_mut::<u8>(real.align())).ok_or(AllocError)?
        } else {
            // SAFETY: `real` has a non-zero size.
            NonNull::new(unsafe { alloc(real) }).ok_or(AllocError)?
        };
        #[cfg(target_os = "linux")]
        if real.align() >= HUGE {
            // SAFETY: the whole block, just allocated and huge-page aligned, is ours.
            unsafe { hint(ptr.as_ptr(), real.size()) };
        }
        Ok(NonNull::slice_from_raw_parts(ptr, layout.size()))
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        let real = huge_layout(layout);
        if real.size() != 0 {
            // SAFETY: allocated by `allocate` with this same `real` layout.
            unsafe { dealloc(ptr.as_ptr(), real) };
        }
    }
}

/// A vector in [`HugePages`].
pub type HugeVec<T> = allocator_api2::vec::Vec<T, HugePages>;

/// For a process that reads and exits (a command, not the window or `serve`), called before
/// its threads allocate: glibc makes each thread's heap writable whole (64 MB) when it creates
/// it, instead of a few pages at a time. The threads that parse a big file ahead allocate its
/// entries' strings and metas in their own heaps; opening the 165 MB session grew them by
/// about 7,200 `mprotect` calls (4% of its CPU), 12 with this. The price is memory: what is
/// freed at the top of a heap stays with the process (up to 64 MB a heap), which a short
/// process gives back when it exits, and a long-running one would keep.
pub fn short_lived_heaps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: sets one of glibc's allocator parameters (no memory is touched).
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, SHORT_LIVED_TOP_PAD);
    }
}

/// Undoes [`short_lived_heaps`] for what the process does next: a command that turns out to
/// have minutes of work (`search` building an index) no longer keeps what its heaps free.
pub fn long_lived_heaps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: as in `short_lived_heaps`; glibc's default is 128 kB.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 128 << 10);
    }
}

/// The size of a thread's heap in glibc on 64-bit systems (`HEAP_MAX_SIZE`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const SHORT_LIVED_TOP_PAD: libc::c_int = 64 << 20;

#[cfg(test)]
mod tests {
    use super::{huge_pages, HugePages, HugeVec};
    use std::rc::Rc;
    #[cfg(target_os = "linux")]
    use std::time::Duration;

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn a_short_lived_process_makes_a_new_threads_heap_writable_whole() {
        const CHILD: &str = "PI_SESSION_TEST_HEAPS";
        const NAME: &str = "pages::tests::a_short_lived_process_makes_a_new_threads_heap_writable_whole";
        let Some(with) = std::env::var_os(CHILD) else {
            // Each case in a process of its own: a thread's heap is made when the thread first
            // allocates, with the setting of that moment, and stays.
            let writable = |with: &str| -> usize {
                let exe = std::env::current_exe().unwrap();
                let out = std::process::Command::new(exe).args([NAME, "--exact", "--nocapture", "--test-threads=1"]).env(CHILD, with).output().unwrap();
                let text = String::from_utf8_lossy(&out.stdout);
                assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
                text.lines().find_map(|l| l.split_once("writable bytes: ")).and_then(|(_, n)| n.trim().parse().ok()).expect("the child's figure")
            };
            let (without, with) = (writable("0"), writable("1"));
            assert!(without < 8 << 20, "without the setting, a new heap grows as used: {without} bytes writable");
            assert!(with >= 60 << 20, "with it, the heap is writable whole: {with} bytes");
            return;
        };
        if with == "1" {
            super::short_lived_heaps();
        }
        // A new thread's first allocations come from a heap of its own; the mapping that holds
        // them is as big as the part made writable so far.
        let writable = std::thread::spawn(|| {
            let blocks: Vec<Box<[u8; 64]>> = (0..1000).map(|i| Box::new([i as u8; 64])).collect();
            let at = &*blocks[500] as *const [u8; 64] as usize;
            let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
            maps.lines()
                .find_map(|l| {
                    let (range, rest) = l.split_once(' ')?;
                    let (a, b) = range.split_once('-')?;
                    let (a, b) = (usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?);
                    (a <= at && at < b && rest.starts_with("rw")).then_some(b - a)
                })
                .unwrap()
        })
        .join()
        .unwrap();
        println!("writable bytes: {writable}");
    }

    #[test]
    fn a_hinted_vector_keeps_its_elements_and_takes_more() {
        // 3.2 MB of elements already in place (each with a non-zero first byte), then room for
        // 8 MB more: the hint, and the byte its probe may write, stay in the spare capacity.
        let val = |i: usize| (i as u64) << 8 | 0xa5;
        let mut v: Vec<u64> = (0..400_000).map(val).collect();
        v.reserve(1 << 20);
        huge_pages(&mut v);
        assert!(v.iter().enumerate().all(|(i, &x)| x == val(i)));
        v.extend((400_000..1_400_000).map(val));
        assert!(v.iter().enumerate().all(|(i, &x)| x == val(i)));
        // A vector too small to hint, and an empty one.
        let mut small: Vec<u8> = Vec::with_capacity(1000);
        huge_pages(&mut small);
        huge_pages(&mut Vec::<u8>::new());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_hint_faults_in_its_first_64_mb_and_stops_at_a_slow_page() {
        use super::{hint_timed, EAGER, HUGE};
        use std::sync::atomic::{AtomicBool, Ordering};
        // A reservation of 512 MB (a guess from a file's size can be that far off): only its
        // first 64 MB are faulted in, one touch per 2 MB page, in order.
        let mut v: Vec<u8> = Vec::with_capacity(512 << 20);
        let at = v.spare_capacity_mut().as_mut_ptr().cast::<u8>();
        let at = at.wrapping_add(at.align_offset(HUGE));
        let seen = AtomicBool::new(false);
        let mut touched = Vec::new();
        // SAFETY: 256 MB from a huge-page boundary inside the vector's spare capacity.
        unsafe { hint_timed(at, 256 << 20, &seen, |p| { touched.push(p as usize - at as usize); Duration::from_micros(90) }) };
        assert_eq!(touched, (0..EAGER).step_by(HUGE).collect::<Vec<_>>());
        assert!(!seen.load(Ordering::Relaxed));
        // The third page slow: no more touches, the verdict kept, and the next hint does nothing.
        touched.clear();
        // SAFETY: as above.
        unsafe { hint_timed(at, 256 << 20, &seen, |p| { touched.push(p as usize - at as usize); Duration::from_micros(if touched.len() == 3 { 2_000 } else { 90 }) }) };
        assert_eq!(touched, vec![0, HUGE, 2 * HUGE]);
        assert!(seen.load(Ordering::Relaxed));
        touched.clear();
        // SAFETY: as above.
        unsafe { hint_timed(at, 256 << 20, &seen, |p| { touched.push(p as usize); Duration::ZERO }) };
        assert!(touched.is_empty());
        v.extend(std::iter::repeat_n(7u8, 1000));
        assert!(v.iter().all(|&b| b == 7));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_huge_page_is_slow_past_what_its_small_pages_cost() {
        use super::slow;
        // 512 small pages cost about 0.7 ms here; a ready huge page 0.05-0.1 ms, one the host
        // must back again 2-4.5 ms.
        assert!(!slow(Duration::from_micros(90)));
        assert!(!slow(Duration::from_micros(400)));
        assert!(slow(Duration::from_micros(401)));
        assert!(slow(Duration::from_millis(3)));
    }

    #[test]
    fn blocks_of_every_size_hold_and_drop_their_elements() {
        let counted = Rc::new(());
        for n in [0, 1, 7, 40_000, 200_000] {
            let mut v = HugeVec::with_capacity_in(n, HugePages);
            for _ in 0..n {
                v.push(counted.clone());
            }
            // Growing past the capacity reallocates through the allocator too.
            v.push(counted.clone());
            assert_eq!(Rc::strong_count(&counted), n + 2);
            v.truncate(n / 2);
            assert_eq!(Rc::strong_count(&counted), n / 2 + 1);
            drop(v);
            assert_eq!(Rc::strong_count(&counted), 1);
        }
        let mut v: HugeVec<u64> = HugeVec::with_capacity_in(200_000, HugePages);
        v.extend([5, 7]);
        assert_eq!(&v[..], &[5, 7]);
        assert_eq!(
            v.as_ptr() as usize % (2 << 20),
            0,
            "a 1.6 MB block is huge-page aligned"
        );
        let small: HugeVec<u64> = HugeVec::with_capacity_in(100, HugePages);
        assert_eq!(small.as_ptr() as usize % 8, 0);
    }
}

//! Fresh memory backed by transparent huge pages, where Linux offers them on `madvise`: a
//! new 4 KB page costs a fault (and, in a virtual machine, often a trip to the host), which
//! can cost more than filling it. Opening a big session allocates tens of megabytes at once.

use std::alloc::{alloc, dealloc, Layout};
use std::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator};

const HUGE: usize = 2 << 20;

/// Asks the kernel to back a big buffer that is about to be filled with transparent huge pages
/// (Linux, where they are on `madvise`): fresh memory is otherwise faulted in 4 KB at a time,
/// which costs about as much as filling it. A hint only; the contents are not touched.
pub fn huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        let bytes = v.capacity() * std::mem::size_of::<T>();
        if bytes < 2 * HUGE {
            return;
        }
        let start = v.as_ptr() as usize;
        let (from, to) = ((start + HUGE - 1) & !(HUGE - 1), (start + bytes) & !(HUGE - 1));
        if to > from {
            // SAFETY: the range lies inside the vector's own allocation; MADV_HUGEPAGE changes
            // how pages are backed, never their contents.
            unsafe { libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// An allocator whose allocations from 1 MB up are aligned to, and rounded up to, whole 2 MB
/// huge pages and hinted to be backed by them; smaller ones are the global allocator's. For the
/// id map's table and the decoded snapshot's blocks of message metas.
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
            // SAFETY: the whole block, huge-page aligned; a hint about backing only.
            unsafe { libc::madvise(ptr.as_ptr().cast(), real.size(), libc::MADV_HUGEPAGE) };
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

#[cfg(test)]
mod tests {
    use super::{HugePages, HugeVec};
    use std::rc::Rc;

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

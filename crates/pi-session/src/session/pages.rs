//! Fresh memory backed by transparent huge pages, where Linux offers them on `madvise`: a
//! new 4 KB page costs a fault (and, in a virtual machine, often a trip to the host), which
//! can cost more than filling it. Opening a big session allocates tens of megabytes at once.

use std::alloc::{alloc, dealloc, GlobalAlloc, Layout, System};
use std::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator};

const HUGE: usize = 2 << 20;

/// Asks the kernel to back a big buffer that is about to be filled with transparent huge pages
/// (Linux, where they are on `madvise`): fresh memory is otherwise faulted in 4 KB at a time,
/// which costs about as much as filling it. A hint only; the contents are not touched.
pub(crate) fn huge_pages<T>(v: &Vec<T>) {
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

/// An allocator whose allocations from 1 MB up are mappings of their own, aligned to, and
/// rounded up to, whole 2 MB huge pages and hinted to be backed by them; smaller ones are the
/// global allocator's. For the id map's table and the decoded snapshot's blocks of message
/// metas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HugePages;

/// The length of the mapping that holds a block of `layout` when blocks from `from` bytes up
/// get one of their own (whole 2 MB huge pages); `None`: the block is the global (or system)
/// allocator's. Derived again from the layout the block is freed with.
fn mapped_len(layout: Layout, from: usize) -> Option<usize> {
    if !cfg!(target_os = "linux") || layout.size() < from || layout.align() > HUGE {
        return None;
    }
    layout.size().checked_next_multiple_of(HUGE)
}

/// A fresh private mapping of `len` bytes (a multiple of 2 MB), aligned to 2 MB and hinted to
/// be backed by huge pages; null when the system has no memory for it. Zeroed, as every fresh
/// mapping is.
#[cfg(target_os = "linux")]
fn map(len: usize) -> *mut u8 {
    let Some(total) = len.checked_add(HUGE) else { return std::ptr::null_mut() };
    // SAFETY: a new anonymous mapping, checked for failure; then its unaligned head and its
    // tail are unmapped, leaving `len` bytes from a 2 MB boundary, which we own.
    unsafe {
        let p = libc::mmap(std::ptr::null_mut(), total, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
        if p == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        let start = p as usize;
        let aligned = (start + HUGE - 1) & !(HUGE - 1);
        let head = aligned - start;
        if head > 0 {
            libc::munmap(p, head);
        }
        libc::munmap((aligned + len) as *mut libc::c_void, HUGE - head);
        libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        aligned as *mut u8
    }
}

#[cfg(not(target_os = "linux"))]
fn map(_len: usize) -> *mut u8 {
    unreachable!("blocks get their own mapping on Linux only (mapped_len)")
}

/// Gives back a mapping made by [`map`].
fn unmap(ptr: *mut u8, len: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: a whole mapping made by `map` with this length, unmapped once.
    unsafe {
        libc::munmap(ptr.cast(), len);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// Resizes a mapping made by [`map`] where it is (shrinking always can; growing can when the
/// addresses after it are free). False: nothing changed.
fn remap_in_place(ptr: *mut u8, from: usize, to: usize) -> bool {
    #[cfg(target_os = "linux")]
    // SAFETY: a whole mapping made by `map`; without MREMAP_MAYMOVE it stays at `ptr`, and the
    // grown part inherits its huge-page hint.
    unsafe {
        libc::mremap(ptr.cast(), from, to, 0) != libc::MAP_FAILED
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (ptr, from, to);
        false
    }
}

// SAFETY: a block from 1 MB up is a mapping of its own (`map`), unmapped with the length
// derived again from the layout it is freed with; smaller ones are the global allocator's,
// freed with the same layout.
unsafe impl Allocator for HugePages {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let ptr = match mapped_len(layout, HUGE / 2) {
            Some(len) => NonNull::new(map(len)).ok_or(AllocError)?,
            // A zero-sized block: any aligned, non-null address.
            None if layout.size() == 0 => NonNull::new(std::ptr::without_provenance_mut::<u8>(layout.align())).ok_or(AllocError)?,
            // SAFETY: `layout` has a non-zero size.
            None => NonNull::new(unsafe { alloc(layout) }).ok_or(AllocError)?,
        };
        Ok(NonNull::slice_from_raw_parts(ptr, layout.size()))
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        match mapped_len(layout, HUGE / 2) {
            Some(len) => unmap(ptr.as_ptr(), len),
            None if layout.size() == 0 => {}
            // SAFETY: allocated by `allocate` with this same layout.
            None => unsafe { dealloc(ptr.as_ptr(), layout) },
        }
    }
}

/// Blocks from this size up get a mapping of their own under [`BigPages`].
const BIG: usize = HUGE / 4;

/// Huge pages as the process's allocator (`#[global_allocator] static A: BigPages =
/// BigPages;`): the system allocator, except that every block from 512 KB up is a mapping of
/// its own, aligned and rounded to 2 MB and on huge pages, and given back to the system when
/// freed. The big vectors of an open session (the tree's arrays, the entries) then cost a
/// fault per 2 MB instead of one per 4 KB, without each naming an allocator.
///
/// The app and `pi-bench` install it: reopening the 200k-entry session from its snapshot took
/// 4,250 page faults without it and 1,410 with it. The CLI does not: a whole-root `check`
/// allocates and frees a read buffer per file, and a fresh huge page for each (zeroed whole
/// by the kernel) cost it system time.
#[derive(Debug, Clone, Copy, Default)]
pub struct BigPages;

// SAFETY: a block from 512 KB up is a mapping of its own (`map`), unmapped (or resized) with
// the length derived again from the layout the caller frees (or resizes) it with; smaller
// blocks are `System`'s, with the caller's own layouts.
unsafe impl GlobalAlloc for BigPages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match mapped_len(layout, BIG) {
            Some(len) => map(len),
            // SAFETY: the caller's non-zero-sized layout.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match mapped_len(layout, BIG) {
            // A fresh mapping is zeroed.
            Some(len) => map(len),
            // SAFETY: as in `alloc`.
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        match mapped_len(layout, BIG) {
            Some(len) => unmap(ptr, len),
            // SAFETY: allocated by `System` with this layout.
            None => unsafe { System.dealloc(ptr, layout) },
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller passes a valid new size for this alignment.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (mapped_len(layout, BIG), mapped_len(new_layout, BIG)) {
            // SAFETY: allocated by `System` with `layout`.
            (None, None) => return unsafe { System.realloc(ptr, layout, new_size) },
            (Some(a), Some(b)) if a == b || remap_in_place(ptr, a, b) => return ptr,
            _ => {}
        }
        // SAFETY: a fresh block; the smaller of the two sizes is copied, then the old freed.
        unsafe {
            let new = self.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}

/// A file's bytes, read-only: on Linux mapped from the page cache (populated in one call, no
/// copy and no fresh memory); elsewhere read into memory. For the skeleton snapshots, which
/// the cache only ever replaces by renaming a new file into place: a mapping keeps the file it
/// mapped. (Truncating a mapped file in place, which nothing of the project does, would fault
/// the reader; the mapping is dropped as soon as the snapshot is decoded.)
pub(crate) struct FileBytes {
    #[cfg(target_os = "linux")]
    map: Option<(NonNull<u8>, usize)>,
    #[cfg(not(target_os = "linux"))]
    bytes: Vec<u8>,
}

// SAFETY: the mapping is read-only and owned by this value.
unsafe impl Send for FileBytes {}
// SAFETY: shared access only reads.
unsafe impl Sync for FileBytes {}

impl FileBytes {
    pub(crate) fn read(path: &std::path::Path) -> std::io::Result<FileBytes> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let f = std::fs::File::open(path)?;
            let len = usize::try_from(f.metadata()?.len())
                .map_err(|_| std::io::ErrorKind::InvalidData)?;
            if len == 0 {
                return Ok(FileBytes { map: None });
            }
            // SAFETY: a new private read-only mapping of a file we opened; checked for failure.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_POPULATE,
                    f.as_raw_fd(),
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                return Err(std::io::Error::last_os_error());
            }
            Ok(FileBytes {
                map: NonNull::new(p.cast::<u8>()).map(|p| (p, len)),
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            Ok(FileBytes {
                bytes: std::fs::read(path)?,
            })
        }
    }
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        #[cfg(target_os = "linux")]
        match self.map {
            // SAFETY: `len` readable bytes, mapped for as long as `self` lives.
            Some((p, len)) => unsafe { std::slice::from_raw_parts(p.as_ptr(), len) },
            None => &[],
        }
        #[cfg(not(target_os = "linux"))]
        &self.bytes
    }
}

#[cfg(target_os = "linux")]
impl Drop for FileBytes {
    fn drop(&mut self) {
        if let Some((p, len)) = self.map {
            // SAFETY: the mapping made in `read`, unmapped once.
            unsafe { libc::munmap(p.as_ptr().cast(), len) };
        }
    }
}

/// A vector in [`HugePages`].
pub(crate) type HugeVec<T> = allocator_api2::vec::Vec<T, HugePages>;

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

    #[test]
    fn big_pages_allocates_reallocates_and_frees_across_the_threshold() {
        use std::alloc::{GlobalAlloc, Layout};
        let a = super::BigPages;
        let big = super::BIG;
        // Sizes below, at and above the threshold, grown and shrunk across it: the bytes
        // written survive every move, big blocks are huge-page aligned.
        for (from, to) in [(100, 200), (100, big + 5), (big + 5, 3 * big), (3 * big, big - 1), (big, big + 100), (5 << 20, 64), (big, 9 << 20), (9 << 20, big)] {
            let layout = Layout::from_size_align(from, 8).unwrap();
            // SAFETY: non-zero sizes; every block freed with the layout it has at that point.
            unsafe {
                let p = a.alloc(layout);
                assert!(!p.is_null());
                if from >= big {
                    assert_eq!(p as usize % (2 << 20), 0, "{from} bytes on a huge-page boundary");
                }
                for k in 0..from {
                    *p.add(k) = (k % 251) as u8;
                }
                let q = a.realloc(p, layout, to);
                assert!(!q.is_null());
                for k in 0..from.min(to) {
                    assert_eq!(*q.add(k), (k % 251) as u8, "byte {k} after {from} -> {to}");
                }
                a.dealloc(q, Layout::from_size_align(to, 8).unwrap());
                let z = a.alloc_zeroed(Layout::from_size_align(to, 16).unwrap());
                assert!((0..to).all(|k| *z.add(k) == 0));
                a.dealloc(z, Layout::from_size_align(to, 16).unwrap());
            }
        }
    }

    #[test]
    fn file_bytes_are_the_file_s_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let (full, empty) = (dir.path().join("full"), dir.path().join("empty"));
        let bytes: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        std::fs::write(&full, &bytes).unwrap();
        std::fs::write(&empty, b"").unwrap();
        assert_eq!(&*super::FileBytes::read(&full).unwrap(), &bytes[..]);
        assert!(super::FileBytes::read(&empty).unwrap().is_empty());
        assert!(super::FileBytes::read(&dir.path().join("missing")).is_err());
        assert!(
            super::FileBytes::read(dir.path()).is_err(),
            "a folder is no file"
        );
    }

    #[test]
    fn an_id_map_in_huge_pages_works_as_a_map() {
        let mut m: crate::session::IdMap = Default::default();
        m.reserve(100_000);
        for i in 0..100_000u32 {
            m.insert(format!("{i:08x}").into(), i);
        }
        assert_eq!(m.get("0000ffff"), Some(&0xffff));
        assert_eq!(m.len(), 100_000);
    }
}

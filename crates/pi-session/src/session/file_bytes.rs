//! A file's bytes mapped read-only (the skeleton snapshots are decoded from them). The memory
//! helpers for big tables (huge pages) are the format crate's ([`pi_session_format::pages`]).

use std::ptr::NonNull;

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
    #[cfg(test)]
    pub(crate) fn read(path: &std::path::Path) -> std::io::Result<FileBytes> {
        let f = std::fs::File::open(path)?;
        let len = usize::try_from(f.metadata()?.len()).map_err(|_| std::io::ErrorKind::InvalidData)?;
        FileBytes::map(&f, len)
    }

    /// The first `len` bytes of `f` (which must have as many).
    pub(crate) fn map(f: &std::fs::File, len: usize) -> std::io::Result<FileBytes> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            if len == 0 {
                return Ok(FileBytes { map: None });
            }
            // SAFETY: a new private read-only mapping of an open file; checked for failure.
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
            use std::io::{Read, Seek};
            let mut bytes = vec![0; len];
            let mut f = f;
            f.seek(std::io::SeekFrom::Start(0))?;
            f.read_exact(&mut bytes)?;
            Ok(FileBytes { bytes })
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

#[cfg(test)]
mod tests {
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
}

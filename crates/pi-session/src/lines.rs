//! Streaming line splitter: a push-style sink over a reader, one line at a time, never the
//! whole file in memory (a line is held whole, so memory is bounded by the longest line).

use std::io::{self, Read};
use std::ops::ControlFlow;

/// One raw line. `bytes` excludes the `\n`; `terminated` is false for a last line without one.
pub struct RawLine<'a> {
    /// 1-based line number.
    pub number: u32,
    pub offset: u64,
    pub bytes: &'a [u8],
    pub terminated: bool,
}

const CHUNK: usize = 256 * 1024;

/// Calls `sink` for every line read from `r`, which starts at byte `offset` of the file
/// and at line number `first_line`. Returns the number of bytes read.
pub fn for_each_line<R: Read>(
    mut r: R,
    offset: u64,
    first_line: u32,
    mut sink: impl FnMut(RawLine<'_>) -> ControlFlow<()>,
) -> io::Result<u64> {
    let mut buf: Vec<u8> = vec![0; CHUNK];
    let mut start = 0usize; // first unconsumed byte in buf
    let mut end = 0usize; // end of valid data in buf
    let mut base = offset; // file offset of buf[0]
    let mut line = first_line;
    let mut scan_from = 0usize; // where to resume the newline search
    loop {
        if let Some(p) = memchr::memchr(b'\n', &buf[start + scan_from..end]) {
            let nl = start + scan_from + p;
            let flow = sink(RawLine { number: line, offset: base + start as u64, bytes: &buf[start..nl], terminated: true });
            line = line.saturating_add(1);
            start = nl + 1;
            scan_from = 0;
            if flow.is_break() {
                return Ok(base + start as u64 - offset);
            }
            continue;
        }
        scan_from = end - start;
        // Need more data: move the partial line to the front, grow if it fills the buffer.
        if start > 0 {
            buf.copy_within(start..end, 0);
            base += start as u64;
            end -= start;
            start = 0;
        }
        if end == buf.len() {
            let grow = buf.len().max(CHUNK);
            buf.resize(buf.len() + grow, 0);
        }
        let n = match r.read(&mut buf[end..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            if end > start {
                let _ = sink(RawLine { number: line, offset: base + start as u64, bytes: &buf[start..end], terminated: false });
            }
            return Ok(base + end as u64 - offset);
        }
        end += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(data: &[u8]) -> Vec<(u32, u64, Vec<u8>, bool)> {
        let mut out = vec![];
        for_each_line(data, 0, 1, |l| {
            out.push((l.number, l.offset, l.bytes.to_vec(), l.terminated));
            ControlFlow::Continue(())
        })
        .unwrap();
        out
    }

    #[test]
    fn splits_with_offsets_and_torn_tail() {
        let v = collect(b"ab\n\ncd\nef");
        assert_eq!(
            v,
            vec![
                (1, 0, b"ab".to_vec(), true),
                (2, 3, b"".to_vec(), true),
                (3, 4, b"cd".to_vec(), true),
                (4, 7, b"ef".to_vec(), false)
            ]
        );
        assert!(collect(b"").is_empty());
    }

    #[test]
    fn lines_longer_than_a_chunk() {
        let mut data = vec![b'x'; CHUNK * 3 + 17];
        data.push(b'\n');
        data.extend_from_slice(b"y\n");
        let v = collect(&data);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].2.len(), CHUNK * 3 + 17);
        assert_eq!(v[1].1, (CHUNK * 3 + 18) as u64);
    }
}

/// Like [`for_each_line`], but hands over the complete lines of each buffer (about `target`
/// bytes) at once, so the caller can work on a batch in parallel; the last line, when it has
/// no newline, comes alone in a final batch.
/// `expected` (the bytes left to read, when known) keeps the buffer small for small files.
pub fn for_each_batch<R: Read>(
    mut r: R,
    offset: u64,
    first_line: u32,
    target: usize,
    expected: Option<u64>,
    mut sink: impl FnMut(&[RawLine<'_>]),
) -> io::Result<u64> {
    let size = match expected {
        Some(n) => (n as usize).saturating_add(1).clamp(4096, target.max(CHUNK)),
        None => target.max(CHUNK),
    };
    let mut buf: Vec<u8> = vec![0; size];
    let mut end = 0usize;
    let mut base = offset;
    let mut line = first_line;
    let mut eof = false;
    loop {
        // Fill the buffer (growing it while one line does not fit).
        while !eof && end < buf.len() {
            match r.read(&mut buf[end..]) {
                Ok(0) => eof = true,
                Ok(n) => end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let Some(last_nl) = memchr::memrchr(b'\n', &buf[..end]) else {
            if eof {
                if end > 0 {
                    sink(&[RawLine { number: line, offset: base, bytes: &buf[..end], terminated: false }]);
                }
                return Ok(base + end as u64 - offset);
            }
            let grow = buf.len();
            buf.resize(buf.len() + grow, 0);
            continue;
        };
        {
            let mut batch: Vec<RawLine<'_>> = Vec::with_capacity(4096);
            let mut start = 0usize;
            for nl in memchr::memchr_iter(b'\n', &buf[..=last_nl]) {
                batch.push(RawLine { number: line, offset: base + start as u64, bytes: &buf[start..nl], terminated: true });
                line = line.saturating_add(1);
                start = nl + 1;
            }
            sink(&batch);
        }
        buf.copy_within(last_nl + 1..end, 0);
        base += (last_nl + 1) as u64;
        end -= last_nl + 1;
    }
}

#[cfg(test)]
mod batch_tests {
    use super::*;

    #[test]
    fn batches_cover_every_line_once() {
        let mut data = Vec::new();
        for i in 0..5000 {
            data.extend_from_slice(format!("line {i} {}\n", "x".repeat(i % 300)).as_bytes());
        }
        data.extend_from_slice(b"tail");
        let mut seen = Vec::new();
        for_each_batch(&data[..], 0, 1, 4096, Some(100), |b| {
            for l in b {
                seen.push((l.number, l.offset, l.bytes.to_vec(), l.terminated));
            }
        })
        .unwrap();
        let mut want = Vec::new();
        for_each_line(&data[..], 0, 1, |l| {
            want.push((l.number, l.offset, l.bytes.to_vec(), l.terminated));
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(seen, want);
    }
}

/// One line of an [`OwnedBatch`]: `buf[start..end]`.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub number: u32,
    pub offset: u64,
    pub start: usize,
    pub end: usize,
    pub terminated: bool,
}

/// Complete lines read together, owning their bytes (so the next batch can be read and
/// parsed while this one is used).
pub struct OwnedBatch {
    pub buf: Vec<u8>,
    pub lines: Vec<Span>,
}

impl OwnedBatch {
    pub fn line(&self, s: &Span) -> RawLine<'_> {
        RawLine { number: s.number, offset: s.offset, bytes: &self.buf[s.start..s.end], terminated: s.terminated }
    }
    pub fn bytes(&self) -> usize {
        self.buf.len()
    }
}

/// Reads a stream as batches of about `target` bytes of complete lines; a last line without a
/// newline comes alone in the final batch.
pub struct BatchReader<R> {
    r: R,
    carry: Vec<u8>,
    base: u64,
    line: u32,
    eof: bool,
    target: usize,
    start: u64,
}

impl<R: Read> BatchReader<R> {
    pub fn new(r: R, offset: u64, first_line: u32, target: usize) -> Self {
        BatchReader { r, carry: Vec::new(), base: offset, line: first_line, eof: false, target: target.max(4096), start: offset }
    }

    /// Bytes consumed so far (complete lines and a final unterminated one).
    pub fn consumed(&self) -> u64 {
        self.base - self.start
    }

    pub fn next_batch(&mut self) -> io::Result<Option<OwnedBatch>> {
        let mut buf = std::mem::take(&mut self.carry);
        loop {
            let want = buf.len() + self.target;
            while !self.eof && buf.len() < want {
                let have = buf.len();
                buf.resize(want, 0);
                match self.r.read(&mut buf[have..]) {
                    Ok(0) => {
                        buf.truncate(have);
                        self.eof = true;
                    }
                    Ok(n) => buf.truncate(have + n),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(have),
                    Err(e) => return Err(e),
                }
            }
            match memchr::memrchr(b'\n', &buf) {
                Some(last) => {
                    self.carry = buf[last + 1..].to_vec();
                    buf.truncate(last + 1);
                    let mut lines = Vec::with_capacity(buf.len() / 512 + 1);
                    let mut start = 0usize;
                    for nl in memchr::memchr_iter(b'\n', &buf) {
                        lines.push(Span { number: self.line, offset: self.base + start as u64, start, end: nl, terminated: true });
                        self.line = self.line.saturating_add(1);
                        start = nl + 1;
                    }
                    self.base += buf.len() as u64;
                    return Ok(Some(OwnedBatch { buf, lines }));
                }
                None if self.eof => {
                    if buf.is_empty() {
                        return Ok(None);
                    }
                    let len = buf.len();
                    let lines = vec![Span { number: self.line, offset: self.base, start: 0, end: len, terminated: false }];
                    self.base += len as u64;
                    return Ok(Some(OwnedBatch { buf, lines }));
                }
                None => {} // one line longer than the batch: read on
            }
        }
    }
}

#[cfg(test)]
mod owned_batch_tests {
    use super::*;

    #[test]
    fn owned_batches_cover_every_line_once() {
        let mut data = Vec::new();
        for i in 0..3000 {
            data.extend_from_slice(format!("line {i} {}\n", "y".repeat(i % 500)).as_bytes());
        }
        data.extend_from_slice(b"tail");
        let mut r = BatchReader::new(&data[..], 10, 1, 4096);
        let mut seen = Vec::new();
        while let Some(b) = r.next_batch().unwrap() {
            for s in &b.lines {
                let l = b.line(s);
                seen.push((l.number, l.offset, l.bytes.to_vec(), l.terminated));
            }
        }
        assert_eq!(r.consumed(), data.len() as u64);
        let mut want = Vec::new();
        for_each_line(&data[..], 10, 1, |l| {
            want.push((l.number, l.offset, l.bytes.to_vec(), l.terminated));
            ControlFlow::Continue(())
        })
        .unwrap();
        assert_eq!(seen, want);
    }
}

//! Streaming line reader: the file is read in batches of complete lines (never whole), each
//! batch owning its bytes so the next one can be read and parsed while it is used. Memory is
//! bounded by the batch size, or by the longest line when one is longer.

use std::io::{self, Read};

/// One raw line. `bytes` excludes the `\n`; `terminated` is false for a last line without one.
pub struct RawLine<'a> {
    /// 1-based line number.
    pub number: u32,
    pub offset: u64,
    pub bytes: &'a [u8],
    pub terminated: bool,
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

/// At most this many used batches are kept for reading into again: one being applied, one
/// being parsed, one being read.
const SPARE: usize = 3;

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
    /// Batches handed back once used ([`BatchReader::recycle`]): their buffers are read into
    /// again, without the fresh pages (and their faults) of a new allocation per batch.
    spare: Vec<OwnedBatch>,
}

impl<R: Read> BatchReader<R> {
    pub fn new(r: R, offset: u64, first_line: u32, target: usize) -> Self {
        BatchReader { r, carry: Vec::new(), base: offset, line: first_line, eof: false, target: target.max(4096), start: offset, spare: Vec::new() }
    }

    /// Takes back a batch that is no longer used: the next batches are read into its buffers.
    pub fn recycle(&mut self, mut b: OwnedBatch) {
        if self.spare.len() < SPARE {
            b.buf.clear();
            b.lines.clear();
            self.spare.push(b);
        }
    }

    /// Bytes consumed so far (complete lines and a final unterminated one).
    pub fn consumed(&self) -> u64 {
        self.base - self.start
    }

    pub fn next_batch(&mut self) -> io::Result<Option<OwnedBatch>> {
        let OwnedBatch { mut buf, mut lines } = self.spare.pop().unwrap_or(OwnedBatch { buf: Vec::new(), lines: Vec::new() });
        buf.extend_from_slice(&self.carry);
        self.carry.clear();
        loop {
            let want = buf.len() + self.target;
            if !self.eof && buf.len() < want {
                // Read into the spare capacity (no zeroing of the buffer first: that was a
                // whole extra pass over every byte); `read_to_end` retries interruptions.
                buf.reserve_exact(want - buf.len());
                let limit = (want - buf.len()) as u64;
                let n = self.r.by_ref().take(limit).read_to_end(&mut buf)?;
                if (n as u64) < limit {
                    self.eof = true;
                }
            }
            match memchr::memrchr(b'\n', &buf) {
                Some(last) => {
                    self.carry.extend_from_slice(&buf[last + 1..]);
                    buf.truncate(last + 1);
                    lines.reserve(buf.len() / 512 + 1);
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
                    lines.push(Span { number: self.line, offset: self.base, start: 0, end: len, terminated: false });
                    self.base += len as u64;
                    return Ok(Some(OwnedBatch { buf, lines }));
                }
                None => {} // one line longer than the batch: read on
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(data: &[u8], target: usize) -> Vec<(u32, u64, Vec<u8>, bool)> {
        let mut r = BatchReader::new(data, 10, 1, target);
        let mut seen = Vec::new();
        let mut batches = 0;
        while let Some(b) = r.next_batch().unwrap() {
            batches += 1;
            for s in &b.lines {
                let l = b.line(s);
                seen.push((l.number, l.offset, l.bytes.to_vec(), l.terminated));
            }
            // Every other batch handed back: the next ones are read into used buffers.
            if batches % 2 == 0 {
                r.recycle(b);
            }
        }
        assert_eq!(r.consumed(), data.len() as u64);
        seen
    }

    #[test]
    fn splits_with_offsets_and_torn_tail() {
        let v = lines_of(b"ab\n\ncd\nef", 4096);
        let want = vec![
            (1, 10, b"ab".to_vec(), true),
            (2, 13, b"".to_vec(), true),
            (3, 14, b"cd".to_vec(), true),
            (4, 17, b"ef".to_vec(), false),
        ];
        assert_eq!(v, want);
        assert!(lines_of(b"", 4096).is_empty());
    }

    #[test]
    fn batches_cover_every_line_once_and_long_lines() {
        let mut data = Vec::new();
        for i in 0..3000 {
            data.extend_from_slice(format!("line {i} {}\n", "y".repeat(i % 500)).as_bytes());
        }
        data.extend_from_slice(&vec![b'z'; 20_000]);
        data.extend_from_slice(b"\ntail");
        let got = lines_of(&data, 4096);
        let mut want = Vec::new();
        let mut offset = 10u64;
        let parts: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        for (k, part) in parts.iter().enumerate() {
            want.push(((k + 1) as u32, offset, part.to_vec(), k + 1 < parts.len()));
            offset += part.len() as u64 + 1;
        }
        assert_eq!(got, want);
    }
}

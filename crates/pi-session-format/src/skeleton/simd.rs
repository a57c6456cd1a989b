//! The byte searches of the scanner: the end of a run of plain string text, and 64-byte blocks
//! of a long string as bit masks (quotes, backslashes, control characters, escape letters), so
//! a string with many escapes is walked without a branch per escape.

const HI: u64 = 0x8080_8080_8080_8080;
const LO: u64 = 0x0101_0101_0101_0101;

/// True when a byte below 0x20 is in `span` (a control character inside a string).
#[inline]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) fn has_control(span: &[u8]) -> bool {
    let mut chunks = span.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        // A byte b < 0x20 makes (b - 0x20) borrow into its high bit while b's own high bit is 0.
        if x.wrapping_sub(LO * 0x20) & !x & HI != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| b < 0x20)
}

/// The first `"`, `\\` or control character (below 0x20) in `b`: the bytes that end a run of
/// plain string content.
#[inline]
pub(super) fn special(b: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        // SSE2 is part of x86_64: 16 bytes per step, one pass.
        use std::arch::x86_64::*;
        let mut i = 0;
        // SAFETY: SSE2 is always available on x86_64; loads are unaligned and in bounds.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let slash = _mm_set1_epi8(b'\\' as i8);
            let ctl = _mm_set1_epi8(0x1f);
            while i + 16 <= b.len() {
                let x = _mm_loadu_si128(b.as_ptr().add(i) as *const __m128i);
                // x <= 0x1f (unsigned) exactly when max(x, 0x1f) == 0x1f.
                let low = _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl);
                let hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, slash)), low);
                let mask = _mm_movemask_epi8(hit);
                if mask != 0 {
                    return Some(i + mask.trailing_zeros() as usize);
                }
                i += 16;
            }
        }
        b[i..].iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20).map(|p| p + i)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let p = memchr::memchr2(b'"', b'\\', b)?;
        if has_control(&b[..p]) {
            return b[..p].iter().position(|&c| c < 0x20);
        }
        Some(p)
    }
}

/// Among 32 bytes (bit k: byte k), the quotes, and the quotes, backslashes and control
/// characters together: two 16-byte loads, no loop.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn special32(b: &[u8]) -> (u32, u32) {
    use std::arch::x86_64::*;
    assert!(b.len() >= 32);
    // SAFETY: SSE2 is part of x86_64; both unaligned loads are in bounds (above).
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let slash = _mm_set1_epi8(b'\\' as i8);
        let ctl = _mm_set1_epi8(0x1f);
        let half = |x: __m128i| {
            let q = _mm_cmpeq_epi8(x, quote);
            // x <= 0x1f (unsigned) exactly when max(x, 0x1f) == 0x1f.
            let other = _mm_or_si128(_mm_cmpeq_epi8(x, slash), _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl));
            (_mm_movemask_epi8(q) as u32, _mm_movemask_epi8(_mm_or_si128(q, other)) as u32)
        };
        let (q0, s0) = half(_mm_loadu_si128(b.as_ptr() as *const __m128i));
        let (q1, s1) = half(_mm_loadu_si128(b.as_ptr().add(16) as *const __m128i));
        (q0 | q1 << 16, s0 | s1 << 16)
    }
}

/// True when the CPU has AVX2 (looked up once per line scanned).
#[inline]
pub(super) fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// 64 bytes of a string as bits (bit k: byte `at + k`).
#[derive(Clone, Copy)]
pub(super) struct Block {
    pub quote: u64,
    pub backslash: u64,
    /// Bytes below 0x20.
    pub control: u64,
}

/// The bytes a backslash may escape, and the `u`s among them (bit k: byte `at + k`).
#[derive(Clone, Copy)]
pub(super) struct EscapeLetters {
    pub valid: u64,
    pub u: u64,
}

/// The 64-byte searches of one instruction set. Scanning code generic over it is compiled
/// once per set: inside an `avx2` function the AVX2 searches inline (a call per block costs
/// more than the search).
pub(super) trait Blocks {
    /// The [`Block`] at `b[at..at + 64]`.
    fn block(b: &[u8], at: usize) -> Block;
    /// The [`EscapeLetters`] at `b[at..at + 64]`.
    fn escape_letters(b: &[u8], at: usize) -> EscapeLetters;
}

/// SSE2, part of every x86_64 CPU.
#[cfg(target_arch = "x86_64")]
pub(super) struct Sse2;

/// AVX2: use only where the CPU has it ([`has_avx2`]).
#[cfg(target_arch = "x86_64")]
pub(super) struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Blocks for Sse2 {
    #[inline(always)]
    fn block(b: &[u8], at: usize) -> Block {
        assert!(at + 64 <= b.len());
        // SAFETY: the loads are in bounds (above); SSE2 is part of x86_64.
        unsafe { block_sse2(b.as_ptr().add(at)) }
    }
    #[inline(always)]
    fn escape_letters(b: &[u8], at: usize) -> EscapeLetters {
        assert!(at + 64 <= b.len());
        // SAFETY: as in `block`.
        unsafe { letters_sse2(b.as_ptr().add(at)) }
    }
}

#[cfg(target_arch = "x86_64")]
impl Blocks for Avx2 {
    #[inline(always)]
    fn block(b: &[u8], at: usize) -> Block {
        assert!(at + 64 <= b.len());
        // SAFETY: the loads are in bounds (above); this type is used only when the CPU has AVX2.
        unsafe { block_avx2(b.as_ptr().add(at)) }
    }
    #[inline(always)]
    fn escape_letters(b: &[u8], at: usize) -> EscapeLetters {
        assert!(at + 64 <= b.len());
        // SAFETY: as in `block`.
        unsafe { letters_avx2(b.as_ptr().add(at)) }
    }
}

/// The escape letters: `" \ / b f n r t u`.
const LETTERS: [u8; 9] = [b'"', b'\\', b'/', b'b', b'f', b'n', b'r', b't', b'u'];

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn block_avx2(p: *const u8) -> Block {
    use std::arch::x86_64::*;
    let quote = _mm256_set1_epi8(b'"' as i8);
    let slash = _mm256_set1_epi8(b'\\' as i8);
    let ctl = _mm256_set1_epi8(0x1f);
    let x = _mm256_loadu_si256(p as *const __m256i);
    let y = _mm256_loadu_si256(p.add(32) as *const __m256i);
    let bits = |lo: __m256i, hi: __m256i| _mm256_movemask_epi8(lo) as u32 as u64 | (_mm256_movemask_epi8(hi) as u32 as u64) << 32;
    Block {
        quote: bits(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(y, quote)),
        backslash: bits(_mm256_cmpeq_epi8(x, slash), _mm256_cmpeq_epi8(y, slash)),
        // x <= 0x1f (unsigned) exactly when max(x, 0x1f) == 0x1f.
        control: bits(_mm256_cmpeq_epi8(_mm256_max_epu8(x, ctl), ctl), _mm256_cmpeq_epi8(_mm256_max_epu8(y, ctl), ctl)),
    }
}

/// The escape letters by their nibbles (the character classes of simdjson): a byte is a letter
/// exactly when `HI_NIBBLE[byte >> 4] & LO_NIBBLE[byte & 15]` is not zero. Bit 0: `"` `/`
/// (0x2_), bit 1: `\` (0x5_), bit 2: `b f n` (0x6_), bit 3: `r t u` (0x7_).
const HI_NIBBLE: [u8; 16] = [0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0];
const LO_NIBBLE: [u8; 16] = [0, 0, 1 | 4 | 8, 0, 8, 8, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1];

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn letters_avx2(p: *const u8) -> EscapeLetters {
    use std::arch::x86_64::*;
    let hi_table = _mm256_broadcastsi128_si256(_mm_loadu_si128(HI_NIBBLE.as_ptr() as *const __m128i));
    let lo_table = _mm256_broadcastsi128_si256(_mm_loadu_si128(LO_NIBBLE.as_ptr() as *const __m128i));
    let nibble = _mm256_set1_epi8(0x0f);
    let mut out = EscapeLetters { valid: 0, u: 0 };
    for half in 0..2 {
        let x = _mm256_loadu_si256(p.add(32 * half) as *const __m256i);
        let hi = _mm256_shuffle_epi8(hi_table, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble));
        let lo = _mm256_shuffle_epi8(lo_table, _mm256_and_si256(x, nibble));
        let none = _mm256_cmpeq_epi8(_mm256_and_si256(hi, lo), _mm256_setzero_si256());
        let u = _mm256_cmpeq_epi8(x, _mm256_set1_epi8(b'u' as i8));
        out.valid |= (!(_mm256_movemask_epi8(none) as u32) as u64) << (32 * half);
        out.u |= (_mm256_movemask_epi8(u) as u32 as u64) << (32 * half);
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn block_sse2(p: *const u8) -> Block {
    use std::arch::x86_64::*;
    let quote = _mm_set1_epi8(b'"' as i8);
    let slash = _mm_set1_epi8(b'\\' as i8);
    let ctl = _mm_set1_epi8(0x1f);
    let mut out = Block { quote: 0, backslash: 0, control: 0 };
    for k in 0..4 {
        let x = _mm_loadu_si128(p.add(16 * k) as *const __m128i);
        let bits = |m: __m128i| (_mm_movemask_epi8(m) as u16 as u64) << (16 * k);
        out.quote |= bits(_mm_cmpeq_epi8(x, quote));
        out.backslash |= bits(_mm_cmpeq_epi8(x, slash));
        out.control |= bits(_mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl));
    }
    out
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn letters_sse2(p: *const u8) -> EscapeLetters {
    use std::arch::x86_64::*;
    let mut out = EscapeLetters { valid: 0, u: 0 };
    for k in 0..4 {
        let x = _mm_loadu_si128(p.add(16 * k) as *const __m128i);
        let mut any = _mm_setzero_si128();
        for c in LETTERS {
            any = _mm_or_si128(any, _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8)));
        }
        out.valid |= (_mm_movemask_epi8(any) as u16 as u64) << (16 * k);
        out.u |= (_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(b'u' as i8))) as u16 as u64) << (16 * k);
    }
    out
}

/// The bytes of a block that a backslash escapes, given its backslashes; `carry` is 1 when the
/// block's first byte is escaped by the previous block's last backslash, and is set for the next
/// block. A run of backslashes escapes every other byte from its start: the run's parity is
/// found with one addition (the method of simdjson's string scanner), with no branch per escape.
#[inline(always)]
pub(super) fn escaped(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*carry;
    let follows = backslash << 1 | *carry;
    let odd_starts = backslash & !EVEN & !follows;
    let (even_starts, overflow) = odd_starts.overflowing_add(backslash);
    *carry = overflow as u64;
    (EVEN ^ (even_starts << 1)) & follows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The escaped bytes by walking the bytes one at a time.
    fn escaped_slowly(text: &[u8]) -> Vec<bool> {
        let mut out = vec![false; text.len()];
        let mut i = 0;
        while i < text.len() {
            if text[i] == b'\\' && i + 1 < text.len() {
                out[i + 1] = true;
                i += 2;
            } else {
                i += 1;
            }
        }
        out
    }

    #[test]
    fn escaped_bytes_agree_with_a_walk_across_blocks() {
        // Runs of backslashes of every length at every offset, across the block boundary.
        for run in 1..70 {
            for start in 0..130 {
                let mut text = vec![b'x'; 192];
                for b in &mut text[start..(start + run).min(192)] {
                    *b = b'\\';
                }
                let want = escaped_slowly(&text);
                let mut carry = 0;
                for k in 0..3 {
                    let bs = text[64 * k..64 * (k + 1)].iter().enumerate().fold(0u64, |m, (i, &c)| m | ((c == b'\\') as u64) << i);
                    let got = escaped(bs, &mut carry);
                    for i in 0..64 {
                        assert_eq!(got >> i & 1 == 1, want[64 * k + i], "run {run} at {start}: byte {}", 64 * k + i);
                    }
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_and_sse2_blocks_agree() {
        let text: Vec<u8> = (0..=255u8).chain(b"\"\\/bfnrtu\x01\x1f x".iter().copied()).cycle().take(64 * 8).collect();
        for at in (0..text.len() - 64).step_by(7) {
            let (a, b) = (Sse2::block(&text, at), Sse2::escape_letters(&text, at));
            for (i, &c) in text[at..at + 64].iter().enumerate() {
                assert_eq!(a.quote >> i & 1 == 1, c == b'"');
                assert_eq!(a.backslash >> i & 1 == 1, c == b'\\');
                assert_eq!(a.control >> i & 1 == 1, c < 0x20);
                assert_eq!(b.valid >> i & 1 == 1, LETTERS.contains(&c));
                assert_eq!(b.u >> i & 1 == 1, c == b'u');
            }
            let (q, sp) = special32(&text[at..]);
            for (i, &c) in text[at..at + 32].iter().enumerate() {
                assert_eq!(q >> i & 1 == 1, c == b'"');
                assert_eq!(sp >> i & 1 == 1, c == b'"' || c == b'\\' || c < 0x20);
            }
            if has_avx2() {
                let (c, d) = (Avx2::block(&text, at), Avx2::escape_letters(&text, at));
                assert_eq!((a.quote, a.backslash, a.control, b.valid, b.u), (c.quote, c.backslash, c.control, d.valid, d.u));
            }
        }
    }
}

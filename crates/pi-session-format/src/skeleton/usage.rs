//! `usage` objects: pi's own shape read in one pass while a line is scanned, and the numbers of
//! any other shape read from its text.

use super::{has_avx2, Nest, Scan, R};

/// The numbers of a `usage` object in the shape pi writes (`input`, `output`, `cacheRead`,
/// `cacheWrite`, `totalTokens` as numbers, `cost` an object whose `total` is a number; other
/// keys skipped), read without allocating: `[input, output, cacheRead, cacheWrite,
/// totalTokens, cost.total]`, absent ones 0. `None` for anything else (a key twice, a value of
/// another type, `cost` not such an object): the caller's general path decides those. Numbers
/// are parsed correctly rounded, as `JSON.parse` does.
pub(crate) fn usage_numbers(raw: &str) -> Option<[f64; 6]> {
    if let Some(u) = pi_usage(raw) {
        return Some(u);
    }
    let mut sc = Scan { s: raw, b: raw.as_bytes(), i: 0, stack: Nest::default(), surrogate: false, avx2: has_avx2() };
    let mut out = [0.0f64; 6];
    let mut seen = 0u8;
    let number = |sc: &mut Scan<'_>| -> R<Option<f64>> {
        if !matches!(sc.peek(), Some(b'-' | b'0'..=b'9')) {
            return Ok(None);
        }
        let start = sc.i;
        sc.number()?;
        let text = &sc.s[start..sc.i];
        // Out of range (serde_json refuses those): left to the general path.
        Ok(exact_decimal(text).or_else(|| text.parse::<f64>().ok().filter(|n| n.is_finite())))
    };
    let mut ok = true;
    sc.ws();
    let r = sc.object(|k, sc| {
        let slot = match k {
            "input" => 0,
            "output" => 1,
            "cacheRead" => 2,
            "cacheWrite" => 3,
            "totalTokens" => 4,
            "cost" => 5,
            _ => return sc.value(),
        };
        if seen & (1 << slot) != 0 {
            ok = false;
            return sc.value();
        }
        seen |= 1 << slot;
        if slot < 5 {
            match number(sc)? {
                Some(n) => out[slot] = n,
                None => {
                    ok = false;
                    sc.value()?;
                }
            }
            return Ok(());
        }
        if sc.peek() != Some(b'{') {
            ok = false;
            return sc.value();
        }
        let mut total_seen = false;
        sc.object(|k, sc| {
            if k != "total" {
                return sc.value();
            }
            match (total_seen, number(sc)?) {
                (false, Some(n)) => out[5] = n,
                _ => {
                    ok = false;
                    sc.value()?;
                }
            }
            total_seen = true;
            Ok(())
        })
    });
    sc.ws();
    (r.is_ok() && ok && sc.i == sc.b.len()).then_some(out)
}

/// `usage` exactly as pi writes it (these keys in this order, no spaces, plain decimals),
/// matched byte by byte: most lines of a session carry one. `None` otherwise.
pub(super) fn pi_usage(raw: &str) -> Option<[f64; 6]> {
    let b = raw.as_bytes();
    let mut i = 0;
    // Each key is a constant of known length: compared inline, not by a call.
    macro_rules! key {
        ($k:literal) => {{
            const K: &[u8] = $k;
            if b.get(i..i + K.len()) != Some(K) {
                return None;
            }
            i += K.len();
        }};
    }
    macro_rules! kept {
        ($k:literal) => {{
            key!($k);
            let (v, n) = decimal_prefix(&b[i..])?;
            i += n;
            v
        }};
    }
    // `cost.input` … `cost.cacheWrite`: not kept, only stepped over (the line was validated;
    // anything but plain decimals fails the next key's match).
    macro_rules! skipped {
        ($k:literal) => {{
            key!($k);
            let start = i;
            while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'.') {
                i += 1;
            }
            if i == start {
                return None;
            }
        }};
    }
    let input = kept!(b"{\"input\":");
    let output = kept!(b",\"output\":");
    let cache_read = kept!(b",\"cacheRead\":");
    let cache_write = kept!(b",\"cacheWrite\":");
    let total_tokens = kept!(b",\"totalTokens\":");
    skipped!(b",\"cost\":{\"input\":");
    skipped!(b",\"output\":");
    skipped!(b",\"cacheRead\":");
    skipped!(b",\"cacheWrite\":");
    let cost = kept!(b",\"total\":");
    (&b[i..] == b"}}").then_some([input, output, cache_read, cache_write, total_tokens, cost])
}

/// `usage` exactly as pi writes it (the keys of [`pi_usage`] in its order, no spaces, numbers
/// without exponents) at the start of `b`, checked as JSON while it is read: its numbers
/// `[input, output, cacheRead, cacheWrite, totalTokens, cost.total]` and its length in bytes.
/// `None` for anything else, valid or not: the general scanner reads it then. Every number
/// is held to JSON's grammar here (no leading zero, digits on both sides of a point), so what
/// this accepts is JSON.
pub(super) fn pi_usage_at(b: &[u8]) -> Option<([f64; 6], usize)> {
    let mut i = 0;
    macro_rules! key {
        ($k:literal) => {{
            const K: &[u8] = $k;
            if b.get(i..i + K.len()) != Some(K) {
                return None;
            }
            i += K.len();
        }};
    }
    macro_rules! number {
        ($k:literal) => {{
            key!($k);
            let (v, n) = json_decimal::<true>(&b[i..])?;
            i += n;
            v
        }};
    }
    // `cost.input` … `cost.cacheWrite`: held to the grammar, their values not computed.
    macro_rules! checked {
        ($k:literal) => {{
            key!($k);
            i += json_decimal::<false>(&b[i..])?.1;
        }};
    }
    let input = number!(b"{\"input\":");
    let output = number!(b",\"output\":");
    let cache_read = number!(b",\"cacheRead\":");
    let cache_write = number!(b",\"cacheWrite\":");
    let total_tokens = number!(b",\"totalTokens\":");
    checked!(b",\"cost\":{\"input\":");
    checked!(b",\"output\":");
    checked!(b",\"cacheRead\":");
    checked!(b",\"cacheWrite\":");
    let cost = number!(b",\"total\":");
    key!(b"}}");
    Some(([input, output, cache_read, cache_write, total_tokens, cost], i))
}

/// A JSON number without an exponent (`-?(0|[1-9][0-9]*)(.[0-9]+)?`) at the start of `b`: its
/// value, rounded as `JSON.parse` rounds it (with `VALUE`; else 0), and its length. `None` for
/// anything else (an exponent, a leading zero, a point without digits after it).
#[inline]
fn json_decimal<const VALUE: bool>(b: &[u8]) -> Option<(f64, usize)> {
    const POW10: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    // Digits from `i` on, folded into `m` (wrapping past 19 digits: unused then) and counted.
    #[inline(always)]
    fn digits(b: &[u8], mut i: usize, m: &mut u64) -> usize {
        while let Some(&c) = b.get(i) {
            let d = c.wrapping_sub(b'0');
            if d >= 10 {
                break;
            }
            *m = m.wrapping_mul(10).wrapping_add(d as u64);
            i += 1;
        }
        i
    }
    let neg = b.first() == Some(&b'-');
    let start = neg as usize;
    let mut m: u64 = 0;
    let mut i = digits(b, start, &mut m);
    let whole = i - start;
    if whole == 0 || (whole > 1 && b[start] == b'0') {
        return None;
    }
    let mut scale = 0;
    if b.get(i) == Some(&b'.') {
        let f = i + 1;
        i = digits(b, f, &mut m);
        scale = i - f;
        if scale == 0 {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        return None;
    }
    if !VALUE {
        return Some((0.0, i));
    }
    if whole + scale > 15 {
        // Past f64's exact integers: the standard parse, correctly rounded (ASCII digits).
        return std::str::from_utf8(&b[..i]).ok()?.parse::<f64>().ok().map(|v| (v, i));
    }
    // Token counts are integers: no division.
    let v = if scale == 0 { m as f64 } else { m as f64 / POW10[scale] };
    Some((if neg { -v } else { v }, i))
}

/// The plain decimal (`-?digits(.digits)?`, at most 15 digits) at the start of `b`, read in
/// one pass, and its length; `None` for anything else, or when a digit, `.` or `-` follows it
/// (so that the caller's next match fails exactly where [`exact_decimal`] would refuse).
#[inline]
pub(super) fn decimal_prefix(b: &[u8]) -> Option<(f64, usize)> {
    const POW10: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    // Digits from `i` on, folded into `m` and counted in `n`; the index after them.
    #[inline(always)]
    fn digits(b: &[u8], mut i: usize, m: &mut u64, n: &mut usize) -> usize {
        while let Some(&c) = b.get(i) {
            let d = c.wrapping_sub(b'0');
            if d >= 10 {
                break;
            }
            *m = m.wrapping_mul(10).wrapping_add(d as u64);
            *n += 1;
            i += 1;
        }
        i
    }
    let neg = b.first() == Some(&b'-');
    let mut m: u64 = 0;
    let mut n = 0usize;
    let mut i = digits(b, neg as usize, &mut m, &mut n);
    let mut scale = 0;
    if b.get(i) == Some(&b'.') {
        let f = i + 1;
        i = digits(b, f, &mut m, &mut n);
        scale = i - f;
    }
    if n == 0 || n > 15 || matches!(b.get(i), Some(b'.' | b'-')) {
        return None;
    }
    let v = m as f64 / POW10[scale];
    Some((if neg { -v } else { v }, i))
}

/// A JSON number without an exponent and with at most 15 significant digits (token counts,
/// costs like `0.016999`): its digits and its power of ten are exact in an f64, so one
/// division rounds correctly (Clinger's fast path) — the same value as `str::parse`.
#[inline]
pub(super) fn exact_decimal(text: &str) -> Option<f64> {
    const POW10: [f64; 16] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
    let b = text.as_bytes();
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let mut m: u64 = 0;
    let mut n = 0usize;
    let mut frac: Option<usize> = None;
    for (k, &c) in digits.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                m = m * 10 + (c - b'0') as u64;
                n += 1;
            }
            b'.' if frac.is_none() => frac = Some(k + 1),
            _ => return None,
        }
        if n > 15 {
            return None;
        }
    }
    // No digit at all ("", "-", "."): not a number.
    if n == 0 {
        return None;
    }
    let scale = frac.map_or(0, |f| digits.len() - f);
    let v = m as f64 / POW10[scale];
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_decimal_reads_as_the_standard_parse() {
        for text in ["0", "7", "447", "41234", "12345678", "123456789", "1234567890123", "123456789012345", "1234567890123456", "12345678901234567890123", "0.000009", "0.016999", "41929.5", "-0", "-0.5", "-12345678.12345678", "9007199254740993", "0.1234567890123456789"] {
            for tail in ["", "}", ",\"output\":1}", "}}0123456789"] {
                let b = format!("{text}{tail}");
                let (v, n) = json_decimal::<true>(b.as_bytes()).unwrap_or_else(|| panic!("{b}"));
                assert_eq!(n, text.len(), "{b}");
                assert_eq!(v.to_bits(), text.parse::<f64>().unwrap().to_bits(), "{b}");
                assert_eq!(json_decimal::<false>(b.as_bytes()).map(|x| x.1), Some(text.len()), "{b}");
            }
        }
        for bad in ["", "-", "01", "1.", ".5", "1e5", "1.5E2", "--1", "00.1"] {
            assert_eq!(json_decimal::<true>(bad.as_bytes()), None, "{bad}");
        }
    }
}

//! `new Date(value).getTime()` as V8 computes it, for the values pi writes.

use crate::json::Loose;

/// `new Date(value).getTime()` for the values pi writes: ISO strings and millisecond numbers.
/// `NaN` when JavaScript would give an invalid date.
pub fn js_date_ms(v: &Loose<'_>) -> f64 {
    match v {
        Loose::Num(n) => {
            if n.is_finite() && n.abs() <= 8.64e15 {
                n.trunc()
            } else {
                f64::NAN
            }
        }
        Loose::Str(s) => parse_iso_ms(s).unwrap_or(f64::NAN),
        Loose::Null => 0.0,
        Loose::Bool(b) => {
            if *b {
                1.0
            } else {
                0.0
            }
        }
        Loose::Compound => f64::NAN,
    }
}

/// The ECMAScript date-time string format (`YYYY`, `YYYY-MM`, `YYYY-MM-DD`, optionally
/// `THH:mm`, `:ss`, `.sss`, and `Z` or `±HH:mm`). Date-only forms are UTC; a date-time
/// without an offset is local time in JavaScript, which we take as UTC.
pub fn parse_iso_ms(s: &str) -> Option<f64> {
    if s.len() == 24 {
        if let Some(t) = iso_canonical(s.as_bytes()) {
            return Some(t);
        }
    }
    let b = s.trim().as_bytes();
    let mut p = 0usize;
    let num = |p: &mut usize, n: usize| -> Option<i64> {
        if *p + n > b.len() {
            return None;
        }
        let mut v = 0i64;
        for i in 0..n {
            let d = b[*p + i];
            if !d.is_ascii_digit() {
                return None;
            }
            v = v * 10 + (d - b'0') as i64;
        }
        *p += n;
        Some(v)
    };
    let year = if b.first() == Some(&b'+') || b.first() == Some(&b'-') {
        let neg = b[0] == b'-';
        p = 1;
        let y = num(&mut p, 6)?;
        if neg {
            -y
        } else {
            y
        }
    } else {
        num(&mut p, 4)?
    };
    let (mut month, mut day) = (1i64, 1i64);
    if b.get(p) == Some(&b'-') {
        p += 1;
        month = num(&mut p, 2)?;
        if b.get(p) == Some(&b'-') {
            p += 1;
            day = num(&mut p, 2)?;
        }
    }
    let (mut h, mut mi, mut sec, mut ms) = (0i64, 0i64, 0i64, 0i64);
    let mut offset_min = 0i64;
    if p < b.len() && (b[p] == b'T' || b[p] == b't' || b[p] == b' ') {
        p += 1;
        h = num(&mut p, 2)?;
        if b.get(p) != Some(&b':') {
            return None;
        }
        p += 1;
        mi = num(&mut p, 2)?;
        if b.get(p) == Some(&b':') {
            p += 1;
            sec = num(&mut p, 2)?;
            if b.get(p) == Some(&b'.') || b.get(p) == Some(&b',') {
                p += 1;
                let start = p;
                while p < b.len() && b[p].is_ascii_digit() {
                    p += 1;
                }
                if p == start {
                    return None;
                }
                let digits = &b[start..p.min(start + 3)];
                let mut v = 0i64;
                for d in digits {
                    v = v * 10 + (d - b'0') as i64;
                }
                for _ in digits.len()..3 {
                    v *= 10;
                }
                ms = v;
            }
        }
        match b.get(p) {
            Some(b'Z') | Some(b'z') => p += 1,
            Some(&c) if c == b'+' || c == b'-' => {
                p += 1;
                let oh = num(&mut p, 2)?;
                if b.get(p) == Some(&b':') {
                    p += 1;
                }
                let om = num(&mut p, 2)?;
                offset_min = (oh * 60 + om) * if c == b'-' { -1 } else { 1 };
            }
            _ => {}
        }
    }
    if p != b.len() {
        return None;
    }
    civil_ms(year, month, day, h, mi, sec, ms, offset_min)
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ`, the form pi writes (`toISOString()`), read without the general
/// parser's steps; `None` for any other form.
#[inline]
fn iso_canonical(b: &[u8]) -> Option<f64> {
    if b.len() != 24 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'.' || b[23] != b'Z' {
        return None;
    }
    let d = |i: usize| -> Option<i64> {
        let c = b[i].wrapping_sub(b'0');
        (c < 10).then_some(c as i64)
    };
    let two = |i: usize| Some(d(i)? * 10 + d(i + 1)?);
    let year = two(0)? * 100 + two(2)?;
    let ms = d(20)? * 100 + two(21)?;
    civil_ms(year, two(5)?, two(8)?, two(11)?, two(14)?, two(17)?, ms, 0)
}

/// The time value of a validated date and time (`None` when a field is out of range).
#[allow(clippy::too_many_arguments)]
#[inline]
fn civil_ms(year: i64, month: i64, day: i64, h: i64, mi: i64, sec: i64, ms: i64, offset_min: i64) -> Option<f64> {
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) || h > 24 || mi > 59 || sec > 59 {
        return None;
    }
    if h == 24 && (mi != 0 || sec != 0 || ms != 0) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let t = ((days * 24 + h) * 60 + mi - offset_min) * 60_000 + sec * 1000 + ms;
    Some(t as f64)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 {
                29
            } else {
                28
            }
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates_like_javascript() {
        assert_eq!(parse_iso_ms("1970-01-01T00:00:00.000Z"), Some(0.0));
        // The canonical form's fast path checks what the general parser checks.
        assert_eq!(parse_iso_ms("2025-06-10T10:21:28.622Z"), Some(1749550888622.0));
        assert_eq!(parse_iso_ms("2024-02-29T23:59:59.999Z"), Some(1709251199999.0));
        assert_eq!(parse_iso_ms("2025-02-29T00:00:00.000Z"), None);
        assert_eq!(parse_iso_ms("2025-01-01T24:00:00.000Z"), Some(1735776000000.0));
        assert_eq!(parse_iso_ms("2025-01-01T24:00:00.001Z"), None);
        assert_eq!(parse_iso_ms("2025-01-01T00:60:00.000Z"), None);
        assert_eq!(parse_iso_ms("2025-01-01T00:00:00.00xZ"), None);
        assert_eq!(parse_iso_ms("2025-01-01t00:00:00.000Z"), Some(1735689600000.0));
        assert_eq!(parse_iso_ms("2025-01-01T00:00:01Z"), Some(1735689601000.0));
        assert_eq!(parse_iso_ms("2025-01-01T01:00:00+01:00"), Some(1735689600000.0));
        assert_eq!(parse_iso_ms("2025-01-01"), Some(1735689600000.0));
        assert_eq!(parse_iso_ms("2025-02-30T00:00:00Z"), None);
        assert_eq!(parse_iso_ms("yesterday"), None);
        assert!(js_date_ms(&Loose::Compound).is_nan());
    }

    #[test]
    fn the_canonical_form_reads_as_the_general_parser_does() {
        // The general parser, given the same time with a `+00:00` offset (not the canonical
        // form's length), is the reference for every digit place changed.
        for base in ["2024-02-29T23:59:59.999Z", "1970-01-01T00:00:00.000Z", "2025-12-31T24:00:00.000Z"] {
            for at in [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22] {
                for c in [b'0', b'1', b'3', b'9', b'x', b'/', b':', b' '] {
                    let mut b = base.as_bytes().to_vec();
                    b[at] = c;
                    let s = String::from_utf8(b).unwrap();
                    let general = parse_iso_ms(&format!("{}+00:00", &s[..23]));
                    assert_eq!(iso_canonical(s.as_bytes()), general, "{s}");
                }
            }
        }
    }
}

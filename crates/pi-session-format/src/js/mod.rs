//! What JavaScript does, where pi's behaviour depends on it: `String.prototype.trim`'s
//! whitespace, `String.length` (UTF-16 units), `new Date(value).getTime()` ([`date`]) and V8's
//! `Array.prototype.sort` on timestamps ([`sort`]).

mod date;
mod sort;

pub use date::{js_date_ms, parse_iso_ms};
pub use sort::sort_by_timestamp;

/// JavaScript's `String.prototype.trim` whitespace set.
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}'
            | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}' | '\u{feff}'
    )
}

pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// UTF-16 length, as JavaScript's `String.length` counts.
pub fn js_len(s: &str) -> usize {
    s.encode_utf16().count()
}

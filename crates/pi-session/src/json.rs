//! Lenient, allocation-light parsing of one session line.
//!
//! pi reads a line with `JSON.parse`, which accepts things serde's typed decoding refuses:
//! lone surrogate escapes, numbers beyond `f64`, duplicate keys (the last wins), any value
//! type in any field. So the line parser grabs each interesting field as a borrowed
//! [`RawValue`] (serde_json validates the JSON but does not decode it) and decodes the few
//! values it needs itself, leniently. Bodies (message content, summaries) are skipped and
//! parsed later, by byte offset, only when shown.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A JSON value seen through the lens of what JavaScript would do with it.
#[derive(Debug, Clone, PartialEq)]
pub enum Loose<'a> {
    Null,
    Bool(bool),
    Num(f64),
    Str(Cow<'a, str>),
    /// An object or an array.
    Compound,
}

impl<'a> Loose<'a> {
    /// `raw` is the JSON text of one value.
    pub fn from_raw(s: &'a str) -> Loose<'a> {
        match s.as_bytes().first() {
            Some(b'"') => Loose::Str(decode_str(s)),
            Some(b'n') => Loose::Null,
            Some(b't') => Loose::Bool(true),
            Some(b'f') => Loose::Bool(false),
            Some(b'{') | Some(b'[') => Loose::Compound,
            _ => Loose::Num(s.parse::<f64>().unwrap_or(f64::NAN)),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Loose::Str(s) => Some(s),
            _ => None,
        }
    }

    /// JavaScript truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Loose::Null => false,
            Loose::Bool(b) => *b,
            Loose::Num(n) => *n != 0.0 && !n.is_nan(),
            Loose::Str(s) => !s.is_empty(),
            Loose::Compound => true,
        }
    }
}

/// True when `b` holds a backslash, eight bytes per step (for short strings).
#[inline]
fn has_backslash(b: &[u8]) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        // A zero byte of `x` (a backslash of `c`) borrows into its high bit while its own high
        // bit is 0; a false hit needs a true zero byte below it, so "any" is exact.
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ (LO * b'\\' as u64);
        if x.wrapping_sub(LO) & !x & HI != 0 {
            return true;
        }
    }
    chunks.remainder().contains(&b'\\')
}

/// Decodes a JSON string literal (with its quotes). Lone surrogate escapes become U+FFFD,
/// which is what they turn into when the string is later written as UTF-8.
pub fn decode_str(lit: &str) -> Cow<'_, str> {
    let inner = &lit[1..lit.len().saturating_sub(1).max(1)];
    // Ids, types and names are short: eight bytes per step beats a search call on them.
    let b = inner.as_bytes();
    let escaped = if b.len() <= 32 { has_backslash(b) } else { memchr::memchr(b'\\', b).is_some() };
    if !escaped {
        return Cow::Borrowed(inner);
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hi = hex4(&mut chars);
                match hi {
                    Some(h @ 0xD800..=0xDBFF) => {
                        // A high surrogate: a pair only if `\uDC00-DFFF` follows right away.
                        let mut look = chars.clone();
                        if look.next() == Some('\\') && look.next() == Some('u') {
                            if let Some(lo @ 0xDC00..=0xDFFF) = hex4(&mut look) {
                                let cp = 0x10000 + ((h - 0xD800) << 10) + (lo - 0xDC00);
                                out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                                chars = look;
                                continue;
                            }
                        }
                        out.push('\u{FFFD}');
                    }
                    Some(cp) => out.push(char::from_u32(cp).unwrap_or('\u{FFFD}')),
                    None => out.push('\u{FFFD}'),
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    Cow::Owned(out)
}

fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u32> {
    let mut v = 0u32;
    for _ in 0..4 {
        v = v * 16 + chars.next()?.to_digit(16)?;
    }
    Some(v)
}

/// True when a JSON text contains a `\u` escape of a surrogate that is not part of a pair.
pub fn has_lone_surrogate(text: &str) -> bool {
    let b = text.as_bytes();
    // Surrogate escapes are `\uD800`–`\uDFFF`: no `\ud`/`\uD` at all is the common case.
    static LOWER: std::sync::LazyLock<memchr::memmem::Finder<'static>> = std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\ud"));
    static UPPER: std::sync::LazyLock<memchr::memmem::Finder<'static>> = std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\\uD"));
    if LOWER.find(b).is_none() && UPPER.find(b).is_none() {
        return false;
    }
    let mut i = 0;
    while let Some(p) = memchr::memchr(b'\\', &b[i..]) {
        let at = i + p;
        if b.get(at + 1) == Some(&b'u') {
            if let Some(cp) = parse_hex(&b[at + 2..]) {
                if (0xD800..=0xDBFF).contains(&cp) {
                    let pair = b.get(at + 6) == Some(&b'\\')
                        && b.get(at + 7) == Some(&b'u')
                        && matches!(parse_hex(&b[(at + 8).min(b.len())..]), Some(0xDC00..=0xDFFF));
                    if !pair {
                        return true;
                    }
                    i = at + 12;
                    continue;
                } else if (0xDC00..=0xDFFF).contains(&cp) {
                    return true;
                }
                i = at + 6;
            } else {
                // Not a `\uXXXX` escape (invalid JSON): the next escape may start within 6 bytes.
                i = at + 2;
            }
        } else {
            i = at + 2;
        }
        if i >= b.len() {
            break;
        }
    }
    false
}

fn parse_hex(b: &[u8]) -> Option<u32> {
    if b.len() < 4 {
        return None;
    }
    let s = std::str::from_utf8(&b[..4]).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// The fields of one line that indexing needs, as the raw JSON text of each value.
/// Everything else is skipped unparsed.
#[derive(Default, Debug)]
pub struct LineFields<'a> {
    pub is_object: bool,
    pub r#type: Option<&'a str>,
    pub id: Option<&'a str>,
    pub parent_id: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub message: Option<MessageFields<'a>>,
    pub has_message_key: bool,
    pub target_id: Option<&'a str>,
    pub label: Option<&'a str>,
    pub name: Option<&'a str>,
    pub first_kept_entry_id: Option<&'a str>,
    pub first_kept_entry_index: Option<&'a str>,
    pub from_id: Option<&'a str>,
    pub summary: Option<&'a str>,
    pub thinking_level: Option<&'a str>,
    pub provider: Option<&'a str>,
    pub model_id: Option<&'a str>,
    pub custom_type: Option<&'a str>,
    pub tokens_before: Option<&'a str>,
    pub retained_tail: Option<&'a str>,
    pub version: Option<&'a str>,
    pub cwd: Option<&'a str>,
    pub parent_session: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub display: Option<&'a str>,
    /// pi 1.x: `usage` of `usage` entries, compactions and branch summaries.
    pub usage: Option<&'a str>,
    /// pi 1.x: a `context_edit`'s `replacement` (`{content}` or `null`).
    pub replacement: Option<&'a str>,
    /// pi 1.x: a compaction's `systemMessage`.
    pub system_message: Option<&'a str>,
    /// The line holds a `\uD800`–`\uDFFF` escape (paired or lone); false means it holds no
    /// lone surrogate. (Set by the scanner; the serde reference leaves it false.)
    pub surrogate_escape: bool,
}

/// The fields of a `message` object that indexing needs (never its content).
#[derive(Default, Debug)]
pub struct MessageFields<'a> {
    pub role: Option<&'a str>,
    pub provider: Option<&'a str>,
    pub model: Option<&'a str>,
    pub stop_reason: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub usage: Option<&'a str>,
    pub tool_name: Option<&'a str>,
    pub is_error: Option<&'a str>,
    pub custom_type: Option<&'a str>,
    /// `usage`'s numbers (`input`, `output`, `cacheRead`, `cacheWrite`, `totalTokens`,
    /// `cost.total`) when the scanner read them while checking it, which it does for the exact
    /// shape pi writes; `None` otherwise (then they come from `usage`'s text).
    pub usage_numbers: Option<[f64; 6]>,
}

impl<'a> LineFields<'a> {
    /// Where the value of top-level key `key` goes (`None`: a key the index does not keep;
    /// `message` is read by its own parser).
    pub fn slot(&mut self, key: &str) -> Option<&mut Option<&'a str>> {
        Some(match key {
            "type" => &mut self.r#type,
            "id" => &mut self.id,
            "parentId" => &mut self.parent_id,
            "timestamp" => &mut self.timestamp,
            "targetId" => &mut self.target_id,
            "label" => &mut self.label,
            "name" => &mut self.name,
            "firstKeptEntryId" => &mut self.first_kept_entry_id,
            "firstKeptEntryIndex" => &mut self.first_kept_entry_index,
            "fromId" => &mut self.from_id,
            "summary" => &mut self.summary,
            "thinkingLevel" => &mut self.thinking_level,
            "provider" => &mut self.provider,
            "modelId" => &mut self.model_id,
            "customType" => &mut self.custom_type,
            "tokensBefore" => &mut self.tokens_before,
            "retainedTail" => &mut self.retained_tail,
            "version" => &mut self.version,
            "cwd" => &mut self.cwd,
            "parentSession" => &mut self.parent_session,
            "kind" => &mut self.kind,
            "display" => &mut self.display,
            "usage" => &mut self.usage,
            "replacement" => &mut self.replacement,
            "systemMessage" => &mut self.system_message,
            _ => return None,
        })
    }
}

impl<'a> MessageFields<'a> {
    /// Where the value of the `message` object's key `key` goes.
    pub fn slot(&mut self, key: &str) -> Option<&mut Option<&'a str>> {
        Some(match key {
            "role" => &mut self.role,
            "provider" => &mut self.provider,
            "model" => &mut self.model,
            "stopReason" => &mut self.stop_reason,
            "timestamp" => &mut self.timestamp,
            "usage" => &mut self.usage,
            "toolName" => &mut self.tool_name,
            "isError" => &mut self.is_error,
            "customType" => &mut self.custom_type,
            _ => return None,
        })
    }
}

/// Parses one line (already valid UTF-8) with the fast scanner ([`crate::skeleton`]).
pub fn parse_line(text: &str) -> Result<LineFields<'_>, crate::skeleton::ScanError> {
    crate::skeleton::scan_line(text)
}

/// The same extraction by serde_json: the reference the scanner is tested against.
pub fn parse_line_serde(text: &str) -> Result<LineFields<'_>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let fields = LineSeed.deserialize(&mut de)?;
    de.end()?;
    Ok(fields)
}

struct LineSeed;

impl<'de> DeserializeSeed<'de> for LineSeed {
    type Value = LineFields<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(LineVisitor)
    }
}

struct LineVisitor;

macro_rules! not_an_object {
    ($($name:ident: $t:ty),*) => {
        $(fn $name<E: de::Error>(self, _v: $t) -> Result<Self::Value, E> { Ok(Default::default()) })*
    };
}

impl<'de> Visitor<'de> for LineVisitor {
    type Value = LineFields<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    not_an_object!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Default::default())
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Default::default())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut f = LineFields { is_object: true, ..Default::default() };
        while let Some(key) = map.next_key::<Key<'de>>()? {
            if key.0 == "message" {
                f.has_message_key = true;
                f.message = map.next_value_seed(MessageSeed)?;
                continue;
            }
            let Some(slot) = f.slot(&key.0) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            *slot = Some(map.next_value::<&'de RawValue>()?.get());
        }
        Ok(f)
    }
}

struct MessageSeed;

impl<'de> DeserializeSeed<'de> for MessageSeed {
    type Value = Option<MessageFields<'de>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Option<MessageFields<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    not_an_object!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut m = MessageFields::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let Some(slot) = m.slot(&key.0) else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            *slot = Some(map.next_value::<&'de RawValue>()?.get());
        }
        Ok(Some(m))
    }
}

/// An object key; lone surrogates in keys are replaced rather than refused.
struct Key<'a>(Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// Rewrites lone surrogate escapes to `\ufffd` so that serde_json accepts a line that
/// JavaScript's `JSON.parse` accepts (only needed when a key holds one).
pub fn replace_lone_surrogates(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut last = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            if b[i + 1] == b'u' {
                if let Some(cp) = parse_hex(&b[i + 2..]) {
                    if (0xD800..=0xDBFF).contains(&cp) {
                        let pair = b.get(i + 6) == Some(&b'\\')
                            && b.get(i + 7) == Some(&b'u')
                            && matches!(parse_hex(&b[(i + 8).min(b.len())..]), Some(0xDC00..=0xDFFF));
                        if pair {
                            i += 12;
                            continue;
                        }
                    }
                    if (0xD800..=0xDFFF).contains(&cp) {
                        out.push_str(&text[last..i]);
                        out.push_str("\\ufffd");
                        i += 6;
                        last = i;
                        continue;
                    }
                }
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[last..]);
    out
}

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
    fn backslashes_are_found_at_every_place_in_short_strings() {
        for len in 0..=33 {
            let plain: Vec<u8> = (0..len).map(|i| [b'a', 0x5b, 0x5d, 0xdc, b'0', 0x00][i % 6]).collect();
            assert!(!has_backslash(&plain), "{len}");
            for at in 0..len {
                let mut b = plain.clone();
                b[at] = b'\\';
                assert!(has_backslash(&b), "{len} {at}");
            }
        }
    }

    #[test]
    fn lone_surrogates_decode_to_replacement() {
        assert_eq!(decode_str(r#""a\ud800b""#), "a\u{FFFD}b");
        assert_eq!(decode_str(r#""\ud83d\ude00""#), "😀");
        assert_eq!(decode_str(r#""\udc00""#), "\u{FFFD}");
        assert_eq!(decode_str(r#""plain""#), "plain");
        assert!(has_lone_surrogate(r#"{"a":"\ud800"}"#));
        assert!(!has_lone_surrogate(r#"{"a":"\ud83d\ude00 \\u0041"}"#));
        assert_eq!(replace_lone_surrogates(r#"{"\ud800":"\ud83d\ude00"}"#), r#"{"\ufffd":"\ud83d\ude00"}"#);
    }

    #[test]
    fn lone_surrogate_right_after_a_broken_escape_is_found() {
        // Found by fuzzing: the scan skipped 6 bytes after `\udf=` and missed `\udf7c`.
        let text = r#"{"a":"\udf=\udf7c"}"#;
        assert!(has_lone_surrogate(text));
        assert_ne!(replace_lone_surrogates(text), text);
        assert!(has_lone_surrogate(r#""\u12\ud800""#));
        assert!(!has_lone_surrogate(r#""\u12\u0041""#));
    }

    #[test]
    fn duplicate_keys_last_wins_and_non_objects() {
        let f = parse_line(r#"{"id":"a","id":"b","message":{"role":"user","content":[1,{"x":"\ud800"}]}}"#).unwrap();
        assert_eq!(Loose::from_raw(f.id.unwrap()).as_str(), Some("b"));
        assert_eq!(Loose::from_raw(f.message.unwrap().role.unwrap()).as_str(), Some("user"));
        assert!(!parse_line("[1,2]").unwrap().is_object);
        assert!(!parse_line("42").unwrap().is_object);
        assert!(parse_line("{\"a\":1}\r").is_ok());
        assert!(parse_line("{\"a\":1").is_err());
        assert!(parse_line("{\"a\":1e400}").is_ok());
    }

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

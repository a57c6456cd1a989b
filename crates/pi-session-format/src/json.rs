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
}

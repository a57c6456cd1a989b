//! The line scanner behind indexing: validates a whole line as JSON (what `JSON.parse` would
//! accept) and returns the raw text of the few fields the index keeps, in one pass.
//!
//! Session lines are mostly long strings (message text, tool output). A string is checked 32
//! bytes at a time for its end, then 64 bytes at a time from bit masks of its quotes,
//! backslashes and control characters, the escaped bytes found without a branch per escape
//! ([`simd`]), so bodies cost close to memory bandwidth. Nesting is tracked on an explicit
//! stack: no recursion, no depth limit.
//!
//! Accepts exactly what serde_json accepts when it skips values, without its depth limit:
//! RFC 8259 JSON, any escape `\uXXXX` (lone surrogates included, as in JavaScript), numbers of
//! any size, duplicate keys (the last wins).

use crate::json::{LineFields, MessageFields};

mod simd;
use simd::{has_avx2, special};
mod usage;
#[cfg(test)]
use usage::{decimal_prefix, exact_decimal, pi_usage};
pub(crate) use usage::usage_numbers;
use usage::pi_usage_at;

/// Why a line is not JSON; `at` is a byte offset. The format's one error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{what} at column {}", .at + 1)]
pub struct ScanError {
    pub at: usize,
    pub what: &'static str,
}

type R<T> = Result<T, ScanError>;

struct Scan<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    stack: Nest,
    /// A `\uD800`–`\uDFFF` escape was seen (a surrogate, paired or not).
    surrogate: bool,
    /// Long strings are searched 64 bytes per step with AVX2.
    avx2: bool,
}

/// The open containers (`{` or `[`): the first 32 levels inline (no allocation per line),
/// deeper ones on the heap.
#[derive(Default)]
struct Nest {
    small: [u8; 32],
    len: usize,
    deep: Vec<u8>,
}

impl Nest {
    #[inline]
    fn push(&mut self, c: u8) {
        if self.len < self.small.len() {
            self.small[self.len] = c;
        } else {
            self.deep.push(c);
        }
        self.len += 1;
    }
    #[inline]
    fn pop(&mut self) {
        self.len -= 1;
        if self.len >= self.small.len() {
            self.deep.pop();
        }
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
    /// The innermost open container (the stack is not empty).
    #[inline]
    fn last(&self) -> u8 {
        if self.len <= self.small.len() {
            self.small[self.len - 1]
        } else {
            *self.deep.last().expect("deeper levels are on the heap")
        }
    }
}

impl<'a> Scan<'a> {
    fn err<T>(&self, what: &'static str) -> R<T> {
        Err(ScanError { at: self.i, what })
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if c == b' ' || c == b'\n' || c == b'\r' || c == b'\t' {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn expect(&mut self, c: u8, what: &'static str) -> R<()> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            self.err(what)
        }
    }

    /// Skips a string whose opening quote is at `self.i`; returns whether it held an escape.
    /// Inline: a short string without an escape (most keys, ids, types, timestamps) is one
    /// look at the 32 bytes after the quote, with no call.
    #[inline(always)]
    fn string(&mut self) -> R<bool> {
        #[cfg(target_arch = "x86_64")]
        if self.i + 33 <= self.b.len() {
            let (quote, special) = simd::special32(&self.b[self.i + 1..self.i + 33]);
            // The first quote, backslash or control character is a quote: the end.
            if quote & special & special.wrapping_neg() != 0 {
                self.i += quote.trailing_zeros() as usize + 2;
                return Ok(false);
            }
        }
        self.any_string()
    }

    /// [`Scan::string`] past its inline case: a long string, one with escapes, or one near the
    /// end of the line.
    #[inline(never)]
    fn any_string(&mut self) -> R<bool> {
        self.i += 1;
        #[cfg(target_arch = "x86_64")]
        {
            // Most strings (keys, ids, names, timestamps, tool call ids) end within 32 bytes
            // without an escape.
            if let Some(p) = special(&self.b[self.i..(self.i + 32).min(self.b.len())]) {
                if self.b[self.i + p] == b'"' {
                    self.i += p + 1;
                    return Ok(false);
                }
            }
            if self.i + 64 <= self.b.len() {
                return self.long_string();
            }
        }
        self.string_rest(false)
    }

    /// The rest of a string from `self.i`, 64 bytes per step: the block's quotes, backslashes
    /// and control characters as bit masks, the escaped bytes found from the backslashes
    /// without a branch per escape ([`simd::escaped`]), the escape letters checked as one more
    /// mask. The last bytes of the line (under 64) go to [`Scan::string_rest`]. A block with
    /// something wrong before its closing quote is scanned again by `string_rest` from the
    /// string's start, so errors are reported at the same offsets.
    #[cfg(target_arch = "x86_64")]
    fn long_string(&mut self) -> R<bool> {
        if self.avx2 {
            // SAFETY: `avx2` is true only when the CPU has AVX2.
            unsafe { self.long_string_avx2() }
        } else {
            self.long_string_with::<simd::Sse2>()
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn long_string_avx2(&mut self) -> R<bool> {
        self.long_string_with::<simd::Avx2>()
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn long_string_with<S: simd::Blocks>(&mut self) -> R<bool> {
        let b = self.b;
        let start = self.i;
        let mut pos = self.i;
        let mut carry = 0u64;
        let mut escapes = false;
        while pos + 64 <= b.len() {
            let m = S::block(b, pos);
            let escaped = if m.backslash == 0 && carry == 0 { 0 } else { simd::escaped(m.backslash, &mut carry) };
            let quotes = m.quote & !escaped;
            // The bytes before the closing quote (all 64 when it is not in this block).
            let before = if quotes == 0 { !0 } else { (quotes & quotes.wrapping_neg()) - 1 };
            if m.control & before != 0 {
                return self.string_again(start);
            }
            let esc = escaped & before;
            if esc != 0 {
                escapes = true;
                let letters = S::escape_letters(b, pos);
                if esc & !letters.valid != 0 {
                    return self.string_again(start);
                }
                let mut us = esc & letters.u;
                while us != 0 {
                    let at = pos + us.trailing_zeros() as usize;
                    let Some(h) = b.get(at + 1..at + 5).filter(|h| h.iter().all(u8::is_ascii_hexdigit)) else {
                        return self.string_again(start);
                    };
                    self.surrogate |= matches!(h[0], b'd' | b'D') && matches!(h[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F');
                    us &= us - 1;
                }
            }
            if quotes != 0 {
                self.i = pos + quotes.trailing_zeros() as usize + 1;
                return Ok(escapes);
            }
            pos += 64;
        }
        // A backslash ending the last block escapes the next byte: `string_rest` takes the pair.
        self.i = pos - carry as usize;
        self.string_rest(escapes)
    }

    /// A string from `start` (after its opening quote) byte by byte: where a block was found
    /// wrong, for the error's exact offset.
    #[cfg(target_arch = "x86_64")]
    #[cold]
    fn string_again(&mut self, start: usize) -> R<bool> {
        self.i = start;
        self.string_rest(false)
    }

    /// A string from `self.i` (after its opening quote), `escaped` if an escape was seen.
    fn string_rest(&mut self, mut escaped: bool) -> R<bool> {
        loop {
            let rest = &self.b[self.i..];
            let Some(p) = special(rest) else {
                return self.err("unterminated string");
            };
            self.i += p;
            if self.b[self.i] < 0x20 {
                return self.err("control character in string");
            }
            if self.b[self.i] == b'"' {
                self.i += 1;
                return Ok(escaped);
            }
            escaped = true;
            match self.b.get(self.i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 2,
                Some(b'u') => {
                    let hex = self.b.get(self.i + 2..self.i + 6);
                    let Some(h) = hex.filter(|h| h.iter().all(u8::is_ascii_hexdigit)) else {
                        return self.err("invalid \\u escape");
                    };
                    self.surrogate |= matches!(h[0], b'd' | b'D') && matches!(h[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F');
                    self.i += 6;
                }
                _ => return self.err("invalid escape"),
            }
        }
    }

    fn number(&mut self) -> R<()> {
        let b = self.b;
        if b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                while b.get(self.i).is_some_and(u8::is_ascii_digit) {
                    self.i += 1;
                }
            }
            _ => return self.err("invalid number"),
        }
        if b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !b.get(self.i).is_some_and(u8::is_ascii_digit) {
                return self.err("invalid number");
            }
            while b.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
        }
        if matches!(b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !b.get(self.i).is_some_and(u8::is_ascii_digit) {
                return self.err("invalid number");
            }
            while b.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
        }
        Ok(())
    }

    fn literal(&mut self, word: &'static [u8]) -> R<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            self.err("invalid literal")
        }
    }

    /// Skips one value starting at `self.i` (after whitespace), nested ones included.
    fn value(&mut self) -> R<()> {
        let base = self.stack.len();
        loop {
            self.ws();
            // A value.
            match self.peek() {
                Some(b'"') => {
                    self.string()?;
                }
                Some(b'{') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                    } else {
                        self.stack.push(b'{');
                        self.key_colon()?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                    } else {
                        self.stack.push(b'[');
                        continue;
                    }
                }
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return self.err("expected a value"),
            }
            // After a value: close containers or move to the next element.
            loop {
                if self.stack.len() == base {
                    return Ok(());
                }
                self.ws();
                let top = self.stack.last();
                match self.peek() {
                    Some(b',') => {
                        self.i += 1;
                        if top == b'{' {
                            self.ws();
                            self.key_colon()?;
                        }
                        break;
                    }
                    Some(b'}') if top == b'{' => {
                        self.i += 1;
                        self.stack.pop();
                    }
                    Some(b']') if top == b'[' => {
                        self.i += 1;
                        self.stack.pop();
                    }
                    _ => return self.err("expected ',' or a closing bracket"),
                }
            }
        }
    }

    /// `"key"` `:` inside an object (whitespace before the key already skipped).
    fn key_colon(&mut self) -> R<()> {
        if self.peek() != Some(b'"') {
            return self.err("expected a key");
        }
        self.string()?;
        self.ws();
        self.expect(b':', "expected ':'")
    }

    /// Reads a key at `self.i`: its text when it has no escape, else the decoded text.
    #[inline(always)]
    fn key(&mut self) -> R<std::borrow::Cow<'a, str>> {
        if self.peek() != Some(b'"') {
            return self.err("expected a key");
        }
        let start = self.i;
        let escaped = self.string()?;
        Ok(if escaped { crate::json::decode_str(self.span(start, self.i)).into_owned().into() } else { self.span(start + 1, self.i - 1).into() })
    }

    /// The text from `from` to `to`, both next to an ASCII byte of a value just scanned (a
    /// quote, bracket, digit or letter): character boundaries, which need no check.
    #[inline]
    fn span(&self, from: usize, to: usize) -> &'a str {
        debug_assert!(self.s.is_char_boundary(from) && self.s.is_char_boundary(to));
        let bytes = &self.b[from..to];
        // SAFETY: `bytes` is a slice of the str `self.s` cut at character boundaries (above).
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// Skips a value and returns its raw text.
    fn raw(&mut self) -> R<&'a str> {
        self.ws();
        let start = self.i;
        // Most kept values are strings (ids, types, names): no trip through the nesting loop.
        if self.peek() == Some(b'"') {
            self.string()?;
        } else {
            self.value()?;
        }
        Ok(self.span(start, self.i))
    }

    /// An object at `self.i`, calling `field(key, scanner)` for each key; `field` must consume
    /// the value.
    fn object(&mut self, mut field: impl FnMut(&str, &mut Self) -> R<()>) -> R<()> {
        self.expect(b'{', "expected an object")?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.ws();
            let k = self.key()?;
            self.ws();
            self.expect(b':', "expected ':'")?;
            self.ws();
            field(&k, self)?;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return self.err("expected ',' or '}'"),
            }
        }
    }
}

/// Reads a `message` value into `slot`: its fields when it is an object, else `None` (a later
/// `message` key replaces an earlier one, as in `JSON.parse`). Filled in place: no copy.
fn message<'a>(sc: &mut Scan<'a>, slot: &mut Option<MessageFields<'a>>) -> R<()> {
    if sc.peek() != Some(b'{') {
        *slot = None;
        return sc.value();
    }
    let m = slot.insert(MessageFields::default());
    sc.object(|k, sc| {
        if k == "usage" {
            // Most messages carry a `usage` in pi's own shape: checked and read in one pass.
            if let Some((numbers, len)) = pi_usage_at(&sc.b[sc.i..]) {
                m.usage = Some(&sc.s[sc.i..sc.i + len]);
                m.usage_numbers = Some(numbers);
                sc.i += len;
                return Ok(());
            }
            m.usage_numbers = None;
        }
        let Some(slot) = m.slot(k) else { return sc.value() };
        *slot = Some(sc.raw()?);
        Ok(())
    })
}

/// Validates `text` as one JSON value and extracts the indexed fields of a top-level object.
pub fn scan_line(text: &str) -> Result<LineFields<'_>, ScanError> {
    let mut f = LineFields::default();
    scan_line_into(text, &mut f)?;
    Ok(f)
}

/// [`scan_line`] into `f`, which must be fresh (`LineFields::default()`): the fields are
/// written in place, never copied out (they are over 500 bytes; a line's own work is a few
/// hundred nanoseconds).
pub fn scan_line_into<'a>(text: &'a str, f: &mut LineFields<'a>) -> Result<(), ScanError> {
    let mut sc = Scan { s: text, b: text.as_bytes(), i: 0, stack: Nest::default(), surrogate: false, avx2: has_avx2() };
    sc.ws();
    if sc.peek() == Some(b'{') {
        f.is_object = true;
        sc.object(|k, sc| {
            if k == "message" {
                f.has_message_key = true;
                return message(sc, &mut f.message);
            }
            let Some(slot) = f.slot(k) else { return sc.value() };
            *slot = Some(sc.raw()?);
            Ok(())
        })?;
    } else {
        sc.value()?;
    }
    sc.ws();
    if sc.i != sc.b.len() {
        return sc.err("trailing characters");
    }
    f.surrogate_escape = sc.surrogate;
    Ok(())
}

/// True when `text` is one JSON value (the same test as [`scan_line`], without extraction).
pub fn is_json(text: &str) -> bool {
    let mut sc = Scan { s: text, b: text.as_bytes(), i: 0, stack: Nest::default(), surrogate: false, avx2: has_avx2() };
    sc.value().is_ok() && {
        sc.ws();
        sc.i == sc.b.len()
    }
}

#[cfg(test)]
mod tests;

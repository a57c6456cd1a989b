//! An entry's searchable text without building a JSON tree: the core's rule
//! ([`pi_session::text::searchable_text_of`]) read with a streaming parser that keeps only
//! the fields the rule takes (and borrows the strings that need no unescaping). Any line this
//! reader cannot take (a lone surrogate, a number out of range, a syntax error) goes to the
//! core's function itself, so the text is the core's in every case;
//! `tests::equals_the_core_rule_*` hold them together.
//!
//! The index reads every entry once when it builds, and again for each hit it shows.

use std::borrow::Cow;
use std::fmt;

use pi_session_format::entry::Kind;
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The searchable text of a line whose entry type is `kind` (the core's rule).
pub fn searchable(kind: &Kind, line: &str) -> String {
    match kind {
        Kind::Message | Kind::Compaction | Kind::BranchSummary | Kind::CustomMessage | Kind::SessionInfo | Kind::Label | Kind::ModelChange => {}
        _ => return String::new(),
    }
    read(kind, line).map(|(t, _)| t).unwrap_or_else(|| pi_session::text::searchable_text_of(kind, line))
}

/// The searchable text and the names of the tools a message calls (its `toolCall` blocks'
/// names), read in one pass; `None` when the line needs the core's reader (then the caller
/// asks [`searchable`] and reads the names itself).
pub fn read_entry(kind: &Kind, line: &str) -> Option<(String, Vec<String>)> {
    match kind {
        Kind::Message | Kind::Compaction | Kind::BranchSummary | Kind::CustomMessage | Kind::SessionInfo | Kind::Label | Kind::ModelChange => read(kind, line),
        _ => Some((String::new(), Vec::new())),
    }
}

/// `text` lowercased as `str::to_lowercase` does, runs of ASCII in bulk.
pub fn lowercase(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        if !text.bytes().any(|b| b.is_ascii_uppercase()) {
            return Cow::Borrowed(text);
        }
        return Cow::Owned(text.to_ascii_lowercase());
    }
    // Σ lowercases by its context (final sigma): the standard library's rule.
    if text.contains('Σ') {
        return Cow::Owned(text.to_lowercase());
    }
    let mut out: Vec<u8> = Vec::with_capacity(text.len() + 8);
    let mut utf8 = [0u8; 4];
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // The run of ASCII up to the next other character, in one copy.
        let run = b[i..].iter().position(|&x| x >= 0x80).unwrap_or(b.len() - i);
        out.extend(b[i..i + run].iter().map(u8::to_ascii_lowercase));
        i += run;
        if i < b.len() {
            // A character's first byte: the run stopped there.
            let c = text[i..].chars().next().unwrap_or('\u{fffd}');
            for l in c.to_lowercase() {
                out.extend_from_slice(l.encode_utf8(&mut utf8).as_bytes());
            }
            i += c.len_utf8();
        }
    }
    // Whole characters in, whole characters out.
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| text.to_lowercase()))
}

fn read(kind: &Kind, line: &str) -> Option<(String, Vec<String>)> {
    let mut de = serde_json::Deserializer::from_str(line);
    let top = Top { kind }.deserialize(&mut de).ok()?;
    de.end().ok()?;
    top
}

/// A value read and dropped. Read as the tree reads it (numbers parsed, strings unescaped), not
/// skipped, so a line the tree refuses (a number out of range) is refused here too.
struct Skip;

impl<'de> serde::Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(SkipVisitor)
    }
}

struct SkipVisitor;

macro_rules! skip_for {
    ($($f:ident: $t:ty),*) => {
        $(fn $f<E: serde::de::Error>(self, _: $t) -> Result<Skip, E> { Ok(Skip) })*
    };
}

impl<'de> Visitor<'de> for SkipVisitor {
    type Value = Skip;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    skip_for!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);
    fn visit_unit<E: serde::de::Error>(self) -> Result<Skip, E> {
        Ok(Skip)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Skip, A::Error> {
        while a.next_element::<Skip>()?.is_some() {}
        Ok(Skip)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Skip, A::Error> {
        while a.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Skip)
    }
}

/// A string field, or nothing for a value of another type (as `Value::as_str`).
#[derive(Default)]
struct Str<'a>(Option<Cow<'a, str>>);

impl<'de> serde::Deserialize<'de> for Str<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrVisitor)
    }
}

struct StrVisitor;

macro_rules! none_for {
    ($($f:ident: $t:ty),*) => {
        $(fn $f<E: serde::de::Error>(self, _: $t) -> Result<Self::Value, E> { Ok(Default::default()) })*
    };
}

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Str<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Str(Some(Cow::Borrowed(v))))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Str(Some(Cow::Owned(v.to_string()))))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Str(Some(Cow::Owned(v))))
    }
    none_for!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64);
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Str(None))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        while a.next_element::<Skip>()?.is_some() {}
        Ok(Str(None))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        while a.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Str(None))
    }
}

/// A value read by the map visitor `V` when it is an object, else dropped and taken as
/// `V::Value::default()` (as `Value::get` finds nothing in a non-object).
struct Obj<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Obj<V>
where
    V::Value: Default,
{
    type Value = V::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(ObjVisitor(self.0))
    }
}

struct ObjVisitor<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for ObjVisitor<V>
where
    V::Value: Default,
{
    type Value = V::Value;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(a)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        while a.next_element::<Skip>()?.is_some() {}
        Ok(Default::default())
    }
    none_for!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Default::default())
    }
}

/// The top-level object of a line: the fields the rule takes for `kind`.
struct Top<'k> {
    kind: &'k Kind,
}

impl<'de> DeserializeSeed<'de> for Top<'_> {
    type Value = Option<(String, Vec<String>)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        let fields = d.deserialize_any(ObjVisitor(TopVisitor { kind: self.kind }))?;
        Ok(fields.text(self.kind))
    }
}

#[derive(Default)]
struct TopFields<'a> {
    message: Message<'a>,
    summary: Str<'a>,
    content: Content<'a>,
    name: Str<'a>,
    label: Str<'a>,
    provider: Str<'a>,
    model_id: Str<'a>,
}

impl TopFields<'_> {
    fn text(mut self, kind: &Kind) -> Option<(String, Vec<String>)> {
        let s = |x: Str<'_>| x.0.map(Cow::into_owned).unwrap_or_default();
        let text = match kind {
            Kind::Message => return self.message.text(),
            Kind::Compaction | Kind::BranchSummary => s(self.summary),
            Kind::CustomMessage => self.content.take_text(0),
            Kind::SessionInfo => s(self.name),
            Kind::Label => s(self.label),
            Kind::ModelChange => format!("{} {}", s(self.provider), s(self.model_id)),
            _ => String::new(),
        };
        Some((text, Vec::new()))
    }
}

struct TopVisitor<'k> {
    kind: &'k Kind,
}

impl<'de> Visitor<'de> for TopVisitor<'_> {
    type Value = TopFields<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entry")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let mut t = TopFields::default();
        // A key repeated: the last one counts (as in the parsed tree).
        while let Some(k) = a.next_key::<Cow<'de, str>>()? {
            match (self.kind, &*k) {
                (Kind::Message, "message") => t.message = a.next_value_seed(Obj(MessageVisitor))?,
                (Kind::Compaction | Kind::BranchSummary, "summary") => t.summary = a.next_value()?,
                (Kind::CustomMessage, "content") => t.content = a.next_value_seed(ContentSeed)?,
                (Kind::SessionInfo, "name") => t.name = a.next_value()?,
                (Kind::Label, "label") => t.label = a.next_value()?,
                (Kind::ModelChange, "provider") => t.provider = a.next_value()?,
                (Kind::ModelChange, "modelId") => t.model_id = a.next_value()?,
                _ => {
                    a.next_value::<Skip>()?;
                }
            }
        }
        Ok(t)
    }
}

/// `content`: a string, an array of blocks, or anything else (no text).
#[derive(Default)]
enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

impl Content<'_> {
    /// The core's `content_text`: a string as is, else the text blocks' texts joined by a space;
    /// with room for `extra` bytes more. A string, or a lone text block, is taken rather than
    /// copied (a tool's output of 80 MB was held three times over).
    fn take_text(&mut self, extra: usize) -> String {
        match self {
            Content::None => String::new(),
            Content::Text(s) => with_room(std::mem::take(s), extra),
            Content::Blocks(blocks) => {
                let is_text = |b: &Block| b.kind.0.as_deref() == Some("text") && b.text.0.is_some();
                let (n, len) = blocks.iter().filter(|b| is_text(b)).fold((0, 0), |(n, len), b| (n + 1, len + b.text.0.as_ref().map_or(0, |t| t.len())));
                if n == 1 {
                    let b = blocks.iter_mut().find(|b| is_text(b)).expect("one text block");
                    return with_room(b.text.0.take().unwrap_or_default(), extra);
                }
                let mut out = String::with_capacity(len + n + extra);
                for b in blocks.iter().filter(|b| is_text(b)) {
                    if let Some(t) = &b.text.0 {
                        if !out.is_empty() {
                            out.push(' ');
                        }
                        out.push_str(t);
                    }
                }
                out
            }
        }
    }
}

/// `s` owned, with room for `extra` bytes more.
fn with_room(s: Cow<'_, str>, extra: usize) -> String {
    match s {
        Cow::Owned(mut o) => {
            o.reserve_exact(extra);
            o
        }
        Cow::Borrowed(b) => {
            let mut o = String::with_capacity(b.len() + extra);
            o.push_str(b);
            o
        }
    }
}

struct ContentSeed;

impl<'de> DeserializeSeed<'de> for ContentSeed {
    type Value = Content<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("content")
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::new();
        while let Some(b) = a.next_element_seed(Obj(BlockVisitor))? {
            blocks.push(b);
        }
        Ok(Content::Blocks(blocks))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        while a.next_entry::<Skip, Skip>()?.is_some() {}
        Ok(Content::None)
    }
    none_for!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64);
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(Content::None)
    }
}

/// A content block: what the rule takes of a text, tool call or thinking block.
#[derive(Default)]
struct Block<'a> {
    kind: Str<'a>,
    text: Str<'a>,
    name: Str<'a>,
    /// `arguments` as written (any JSON value), when present.
    arguments: Option<&'a RawValue>,
    thinking: Str<'a>,
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = Block<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let mut b = Block::default();
        while let Some(k) = a.next_key::<Cow<'de, str>>()? {
            match &*k {
                "type" => b.kind = a.next_value()?,
                "text" => b.text = a.next_value()?,
                "name" => b.name = a.next_value()?,
                "arguments" => b.arguments = Some(a.next_value()?),
                "thinking" => b.thinking = a.next_value()?,
                _ => {
                    a.next_value::<Skip>()?;
                }
            }
        }
        Ok(b)
    }
}

#[derive(Default)]
struct Message<'a> {
    content: Content<'a>,
    command: Str<'a>,
    output: Str<'a>,
    tool_name: Str<'a>,
    error_message: Str<'a>,
}

impl Message<'_> {
    /// None when an `arguments` value is one the tree refuses (then so is the whole line).
    fn text(mut self) -> Option<(String, Vec<String>)> {
        // What is written after the content's text (about: arguments may be written again).
        let len = |x: &Str| x.0.as_ref().map_or(0, |t| t.len() + 1);
        let mut extra = [&self.command, &self.output, &self.tool_name, &self.error_message].into_iter().map(len).sum::<usize>();
        if let Content::Blocks(blocks) = &self.content {
            for b in blocks {
                extra += match b.kind.0.as_deref() {
                    Some("toolCall") => 2 + len(&b.name) + b.arguments.map_or(0, |a| a.get().len()),
                    Some("thinking") => 1 + len(&b.thinking),
                    _ => 0,
                };
            }
        }
        let mut t = self.content.take_text(extra);
        let mut tools = Vec::new();
        if let Content::Blocks(blocks) = &self.content {
            for b in blocks {
                match b.kind.0.as_deref() {
                    Some("toolCall") => {
                        if let Some(n) = &b.name.0 {
                            tools.push(n.to_string());
                        }
                        t.push(' ');
                        t.push_str(b.name.0.as_deref().unwrap_or(""));
                        t.push(' ');
                        if let Some(raw) = b.arguments {
                            // As the tree prints it (keys in their order, its own number format):
                            // most arguments are already written that way (pi writes them with
                            // `JSON.stringify`), and are taken as they are.
                            if as_serde_writes(raw.get()) {
                                t.push_str(raw.get());
                            } else {
                                let v: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
                                t.push_str(&v.to_string());
                            }
                        }
                    }
                    Some("thinking") => {
                        t.push(' ');
                        t.push_str(b.thinking.0.as_deref().unwrap_or(""));
                    }
                    _ => {}
                }
            }
        }
        for x in [self.command, self.output, self.tool_name, self.error_message] {
            if let Some(x) = x.0 {
                t.push(' ');
                t.push_str(&x);
            }
        }
        Some((t, tools))
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = Message<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a message")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
        let mut m = Message::default();
        while let Some(k) = a.next_key::<Cow<'de, str>>()? {
            match &*k {
                "content" => m.content = a.next_value_seed(ContentSeed)?,
                "command" => m.command = a.next_value()?,
                "output" => m.output = a.next_value()?,
                "toolName" => m.tool_name = a.next_value()?,
                "errorMessage" => m.error_message = a.next_value()?,
                _ => {
                    a.next_value::<Skip>()?;
                }
            }
        }
        Ok(m)
    }
}

/// Whether `json` (one JSON value, as the line's parser took it) reads back into a
/// `serde_json::Value` and is written again byte for byte as it is: no whitespace between
/// tokens, only the escapes serde_json writes (`\"`, `\\`, `\b \f \n \r \t`, and `\u00xx` in lower
/// case for the other control characters), integers of at most 18 digits other than `-0`, no
/// key twice in one object, at most 100 levels deep. Anything else (a fraction or an exponent,
/// which serde_json formats its own way, among them) answers false: the value is then read and
/// written again.
fn as_serde_writes(json: &str) -> bool {
    let b = json.as_bytes();
    // The raw keys of each open object (the escapes being serde_json's, equal text is an
    // equal key); `None` for an open array.
    let mut open: Vec<Option<Vec<&[u8]>>> = Vec::new();
    let mut i = 0;
    // The next string is an object's key (after `{` or an object's `,`).
    let mut key_next = false;
    while i < b.len() {
        match b[i] {
            b'{' => {
                open.push(Some(Vec::new()));
                if open.len() > 100 {
                    return false;
                }
                i += 1;
                if b.get(i) == Some(&b'"') {
                    key_next = true;
                }
            }
            b'[' => {
                open.push(None);
                if open.len() > 100 {
                    return false;
                }
                i += 1;
            }
            b'}' | b']' => {
                open.pop();
                i += 1;
            }
            b',' => {
                i += 1;
                key_next = matches!(open.last(), Some(Some(_)));
            }
            b':' => i += 1,
            b'"' => {
                let start = i;
                i += 1;
                loop {
                    match b.get(i) {
                        None => return false,
                        Some(b'"') => break,
                        Some(b'\\') => {
                            match b.get(i + 1) {
                                Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                                Some(b'u') => {
                                    // serde_json writes `\u00xx` (lower case) for the control
                                    // characters without a short escape, and no other.
                                    let hex = b.get(i + 2..i + 6);
                                    let code = hex.and_then(|h| std::str::from_utf8(h).ok()).filter(|h| h.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))).and_then(|h| u32::from_str_radix(h, 16).ok());
                                    match code {
                                        Some(c) if c < 0x20 && !matches!(c, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d) => i += 6,
                                        _ => return false,
                                    }
                                }
                                _ => return false,
                            }
                        }
                        Some(_) => i += 1,
                    }
                }
                i += 1;
                if key_next {
                    key_next = false;
                    let key = &b[start..i];
                    match open.last_mut() {
                        Some(Some(keys)) if !keys.contains(&key) => keys.push(key),
                        _ => return false,
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                // A fraction or an exponent follows as `.`, `e` or `E`, which start no token:
                // the loop answers false there.
                let digits = &b[start..i];
                if digits == b"-0" || digits.len() > 18 {
                    return false;
                }
            }
            b't' if b[i..].starts_with(b"true") => i += 4,
            b'f' if b[i..].starts_with(b"false") => i += 5,
            b'n' if b[i..].starts_with(b"null") => i += 4,
            _ => return false,
        }
    }
    open.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_session::text::searchable_text_of;

    fn same(kind: &str, line: &str) {
        let k = Kind::parse(kind);
        assert_eq!(searchable(&k, line), searchable_text_of(&k, line), "{kind}: {line}");
    }

    #[test]
    fn equals_the_core_rule_on_odd_lines() {
        let lines = [
            r#"{"type":"message","message":{"role":"user","content":"Hello \"World\"\n\u00e9 \ud83d\ude00"}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"toolCall","name":"bash","arguments":{"command":"ls -la\n","n":1e3,"x":[1, 2.50, true, null],"k":{"z":1,"a":2}}},{"type":"thinking","thinking":"hmm"},{"type":"text","text":"b"}]}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":5},{"type":"toolCall","arguments":null},"str",7,{"type":"text","text":5},{"type":"text"}]}}"#,
            r#"{"type":"message","message":{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false,"errorMessage":"boom"}}"#,
            r#"{"type":"message","message":{"role":"bashExecution","command":"cargo test","output":"ok","exitCode":0}}"#,
            r#"{"type":"message","message":{"content":"first"},"message":{"content":"second"}}"#,
            r#"{"type":"message","message":{"content":"a","content":[{"type":"text","text":"b"}]}}"#,
            r#"{"type":"message","message":"not an object"}"#,
            r#"{"type":"message","message":{"content":{"type":"text"}}}"#,
            r#"{"type":"message"}"#,
            r#"{"type":"message","message":{"content":"lone \ud800 surrogate"}}"#,
            r#"{"type":"message","message":{"content":"lone in another field"},"id":"\udc00"}"#,
            r#"{"type":"message","message":{"content":"big number"},"usage":{"x":1e400}}"#,
            r#"{"type":"message","message":{"content":[{"type":"toolCall","name":"n","arguments":{"x":1e400}}]}}"#,
            r#"{"type":"compaction","summary":"Σίσυφος ΣΑΣ"}"#,
            r#"{"type":"compaction","summary":7}"#,
            r#"{"type":"branch_summary","summary":"s"}"#,
            r#"{"type":"custom_message","content":[{"type":"text","text":"c1"},{"type":"text","text":"c2"}]}"#,
            r#"{"type":"custom_message","content":[{"type":"image"},{"type":"text","text":"one \"block\"\n"}]}"#,
            r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"b"},{"type":"thinking","thinking":"t"},{"type":"text","text":"c\n"}]}}"#,
            r#"{"type":"session_info","name":"My name"}"#,
            r#"{"type":"label","label":null}"#,
            r#"{"type":"model_change","provider":"anthropic","modelId":"claude"}"#,
            r#"{"type":"model_change"}"#,
            r#"{"type":"custom","data":{"x":1}}"#,
            r#"[1,2]"#,
            r#"{"type":"message","message":{"content":"cut"#,
            r#"{"type":"message","message":{"content":"x"}} trailing"#,
        ];
        for l in lines {
            let kind = serde_json::from_str::<serde_json::Value>(l).ok().and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_string)).unwrap_or("message".into());
            same(&kind, l);
            same("message", l);
        }
    }

    #[test]
    fn equals_the_core_rule_on_a_generated_corpus() {
        let dir = tempfile::tempdir().unwrap();
        pi_session_bench::corpus::generate(&pi_session_bench::corpus::Options { out: dir.path().to_path_buf(), seed: 3, files: 12, total_bytes: 1_500_000, big_entries: None, threads: 2, short: false }).unwrap();
        let mut n = 0;
        for f in pi_session::scan::scan(&dir.path().join("sessions")).files {
            let bytes = std::fs::read(&f.path).unwrap();
            let ix = pi_session::SessionIndex::from_bytes(&f.path, &bytes);
            for e in &ix.entries {
                let line = String::from_utf8_lossy(&bytes[e.offset as usize..(e.offset + e.len as u64) as usize]);
                assert_eq!(searchable(&e.kind, &line), pi_session::text::searchable_text(e, &line), "{line}");
                n += 1;
            }
        }
        assert!(n > 400, "{n}");
    }

    #[test]
    fn arguments_taken_as_written_are_what_serde_json_writes_back() {
        let written_back = |s: &str| serde_json::from_str::<serde_json::Value>(s).ok().map(|v| v.to_string());
        // Written as serde_json writes them: taken as they are.
        let canonical = [
            r#"{"command":"ls -la\n","n":1,"x":[1,-2,true,null,false],"k":{"z":1,"a":2},"e":{},"l":[]}"#,
            r#"{"path":"src/main.rs","text":"tab\there \"quoted\" back\\slash \u001b[0m \u0000 é 日本 🎉 /"}"#,
            r#""a string""#,
            "123456789012345678",
            "-7",
            "0",
            "[[[]],{}]",
            r#"{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}"#,
        ];
        for s in canonical {
            assert!(as_serde_writes(s), "{s}");
            assert_eq!(written_back(s).as_deref(), Some(s), "{s}");
        }
        // Written otherwise (each would come back changed, or not at all): read and written again.
        let other = [
            r#"{"a":1, "b":2}"#,
            r#"{"a" :1}"#,
            "[1,\n2]",
            r#"{"a":1,"a":2}"#,
            r#"{"k":{"a":1,"b":{"x":0},"a":3}}"#,
            r#"{"x":1e3}"#,
            r#"{"x":2.50}"#,
            r#"{"x":-0}"#,
            r#"{"x":1234567890123456789012}"#,
            r#"{"s":"\/"}"#,
            r#"{"s":"\u00e9"}"#,
            r#"{"s":"\u000A"}"#,
            r#"{"s":"\u001B"}"#,
            r#"{"x":1E3}"#,
            r#"{"s":"\u000a"}"#,
            r#"{"s":"\ud83d\ude00"}"#,
            r#"{"s":"\ud800"}"#,
            r#"{"x":1e400}"#,
        ];
        for s in other {
            assert!(!as_serde_writes(s), "{s}");
            assert_ne!(written_back(s).as_deref(), Some(s), "{s}");
        }
        // A fraction is always read and written again, though this one would come back the same.
        assert!(!as_serde_writes(r#"{"x":1.5}"#));
        let deep = format!("{}1{}", "[".repeat(101), "]".repeat(101));
        assert!(!as_serde_writes(&deep));
        let shallow = format!("{}1{}", "[".repeat(100), "]".repeat(100));
        assert!(as_serde_writes(&shallow));
        assert_eq!(written_back(&shallow).as_deref(), Some(shallow.as_str()));
    }

    #[test]
    fn lowercase_is_the_standard_one() {
        for s in ["abc", "ABC déjà VU", "İstanbul K", "ΣΑΣ Σ", "日本語 ÉCOLE", "", "É", "Run — The Tests… Again 🎉", "ẞ TRAILING ASCII AFTER ÅÄÖ"] {
            assert_eq!(lowercase(s), s.to_lowercase(), "{s}");
        }
    }
}

//! Checking a candidate entry against the query's terms.
//!
//! The exact check reads the entry's searchable text from its line ([`crate::text`]) and looks
//! for each lowercased term in it. Before that, [`may_hold`] looks for the term in the raw line
//! (ASCII-lowercased) with `memmem`, some gigabytes a second: when it says no, the text cannot
//! hold the term, and the line is not parsed. It says so only where the raw line must show
//! the term: the searchable text is made of the line's JSON strings (joined by spaces) and of
//! tool arguments printed again, so a term is looked up only when
//!
//! * it is ASCII, without `"`, `\`, control characters (escaped in JSON), digits (a number is
//!   printed again in its own format: `1e3` → `1000.0`) or `,:[]{}` (arguments are printed
//!   again without the spaces a writer may have put around them);
//! * the line has no `\u` escape (any character may hide behind one), no `\/` when the term has
//!   a `/`, no tool arguments other than an object, and none of the two characters whose
//!   lowercase is ASCII (`K` U+212A, `İ` U+0130);
//!
//! and a term crossing a space may cross the join of two strings: `the parser` is also
//! looked for as `the"` … `"parser`.

use memchr::memmem;

/// What [`may_hold`] needs to know of a line once.
pub(super) struct Line<'a> {
    /// The raw line, ASCII-lowercased.
    lower: &'a [u8],
    /// The line cannot be prefiltered (see the module's list).
    opaque: bool,
    escaped_slash: bool,
}

/// A searcher made once per process.
macro_rules! finder {
    ($needle:expr) => {{
        static F: std::sync::LazyLock<memmem::Finder<'static>> = std::sync::LazyLock::new(|| memmem::Finder::new($needle));
        &*F
    }};
}

impl<'a> Line<'a> {
    /// `lower`: the raw line with ASCII letters lowercased.
    pub(super) fn new(lower: &'a [u8]) -> Line<'a> {
        let opaque = finder!(b"\\u").find(lower).is_some() || finder!("\u{212a}".as_bytes()).find(lower).is_some() || finder!("\u{130}".as_bytes()).find(lower).is_some() || !arguments_are_objects(lower);
        Line { lower, opaque, escaped_slash: finder!(b"\\/").find(lower).is_some() }
    }
}

/// Every `"arguments":` of the line is followed by an object.
fn arguments_are_objects(line: &[u8]) -> bool {
    for at in finder!(b"\"arguments\"").find_iter(line) {
        let rest = &line[at + 11..];
        let mut i = 0;
        while i < rest.len() && rest[i].is_ascii_whitespace() {
            i += 1;
        }
        if rest.get(i) != Some(&b':') {
            continue;
        }
        i += 1;
        while i < rest.len() && rest[i].is_ascii_whitespace() {
            i += 1;
        }
        if rest.get(i) != Some(&b'{') {
            return false;
        }
    }
    true
}

/// A term the raw line can answer for (see the module's list).
pub(super) fn checkable(term: &str) -> bool {
    !term.is_empty() && term.bytes().all(|b| b.is_ascii() && !b.is_ascii_control() && !b.is_ascii_digit() && !b"\"\\,:[]{}".contains(&b))
}

/// False only when the entry's searchable text cannot hold every term of `terms` (lowercased,
/// [`checkable`], each with its searcher). A line that shows every term as it is passes
/// without its signs being read ([`Line::new`]): they matter only when a term is missing.
pub(super) fn may_hold_all(terms: &[(&str, memmem::Finder<'_>)], lower: &[u8]) -> bool {
    if terms.iter().all(|(_, f)| f.find(lower).is_some()) {
        return true;
    }
    let line = Line::new(lower);
    terms.iter().all(|(t, _)| may_hold(t, &line))
}

/// False only when the entry's searchable text cannot hold `term` (lowercased, [`checkable`]).
pub(super) fn may_hold(term: &str, line: &Line<'_>) -> bool {
    if line.opaque || (line.escaped_slash && term.contains('/')) {
        return true;
    }
    let t = term.as_bytes();
    if memmem::find(line.lower, t).is_some() {
        return true;
    }
    // Across the join of two strings at one of its spaces: `…a"` then `"b…`.
    let mut pat = Vec::with_capacity(t.len() + 1);
    for (k, _) in t.iter().enumerate().filter(|(_, &b)| b == b' ') {
        pat.clear();
        pat.extend_from_slice(&t[..k]);
        pat.push(b'"');
        if memmem::find(line.lower, &pat).is_none() {
            continue;
        }
        let next = t[k + 1..].iter().position(|&b| b == b' ').map(|p| k + 1 + p).unwrap_or(t.len());
        pat.clear();
        pat.push(b'"');
        pat.extend_from_slice(&t[k + 1..next]);
        if memmem::find(line.lower, &pat).is_some() {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{lowercase, searchable};
    use pi_session_format::entry::Kind;

    /// Every substring of an entry's text that the prefilter may judge, taken from the text
    /// itself: the prefilter must never say no to it.
    fn never_denies_what_the_text_holds(kind: &Kind, line: &str, rng: &mut u64) -> usize {
        let text = lowercase(&searchable(kind, line)).into_owned();
        let lower = line.as_bytes().to_ascii_lowercase();
        let l = Line::new(&lower);
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut checked = 0;
        for _ in 0..40 {
            if chars.is_empty() {
                break;
            }
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            let a = (*rng % chars.len() as u64) as usize;
            let n = 1 + ((*rng >> 32) % 24) as usize;
            let b = (a + n).min(chars.len());
            let end = chars.get(b).map(|c| c.0).unwrap_or(text.len());
            let term = &text[chars[a].0..end];
            if checkable(term) {
                checked += 1;
                assert!(may_hold(term, &l), "{term:?} is in the text of {line}");
                assert!(may_hold_all(&[(term, memmem::Finder::new(term)), ("", memmem::Finder::new(""))], &lower), "{term:?} is in the text of {line}");
            }
        }
        checked
    }

    #[test]
    fn the_prefilter_never_denies_a_term_the_text_holds() {
        let lines = [
            r#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"look at the"},{"type":"text","text":"parser now"},{"type":"toolCall","name":"bash","arguments":{"command": "ls  -la" , "flag": true}},{"type":"thinking","thinking":"maybe the parser"}]}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"edit","arguments":true},{"type":"thinking","thinking":"after true"}]}}"#,
            r#"{"type":"message","message":{"role":"user","content":"path a\/b and \u0041BC"}}"#,
            r#"{"type":"message","message":{"role":"user","content":"Kelvin \u212a and İstanbul"}}"#,
            "{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"Kelvin \u{212a}ilo and \u{130}stanbul\"}}",
            r#"{"type":"message","message":{"role":"bashExecution","command":"cargo test","output":"ok done"}}"#,
            r#"{"type":"model_change","provider":"anthropic","modelId":"claude sonnet"}"#,
            r#"{"type":"message","message":{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"text","text":"b c"}],"errorMessage":"no such file"}}"#,
        ];
        let mut rng = 0x9e3779b97f4a7c15u64;
        for l in lines {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let kind = Kind::parse(v["type"].as_str().unwrap());
            for _ in 0..50 {
                never_denies_what_the_text_holds(&kind, l, &mut rng);
            }
        }
        // Spans of joins, by hand.
        let l = lines[0].to_ascii_lowercase();
        let line = Line::new(l.as_bytes());
        for t in ["at the parser", "the parser now", "parser now bash", "bash {", "now bash"] {
            assert!(!checkable(t) || may_hold(t, &line), "{t}");
        }
        assert!(!may_hold("the parsers", &line));
        assert!(!may_hold("xylophone", &line));
        let l = lines[1].to_ascii_lowercase();
        assert!(may_hold("edit true after", &Line::new(l.as_bytes())), "arguments that are not an object: no prefilter");
        // Each sign that makes a line opaque, alone in a line; and `\/` for a term with a `/`.
        let only = |content: &str| format!(r#"{{"type":"message","message":{{"role":"user","content":"{content} and more"}}}}"#).to_ascii_lowercase();
        for (content, term) in [(r"\u0041BC", "abc"), ("\u{212a}ilo", "kilo"), ("and \u{130}stanbul", "and i"), (r"a\/b", "a/b")] {
            let l = only(content);
            assert!(may_hold(term, &Line::new(l.as_bytes())), "{term} in {content}");
        }
        let l = only(r"a\/b");
        assert!(!may_hold("xylophone", &Line::new(l.as_bytes())), "an escaped slash opens the prefilter to terms with a / alone");
        let l = only(r"a\nb \\u");
        assert!(may_hold("zz", &Line::new(l.as_bytes())), "a backslash escaped, then u: opaque, as a search for the two bytes says");
        let l = only("\u{2014} \u{100}");
        assert!(!may_hold("zz", &Line::new(l.as_bytes())), "other characters of the same first bytes: not opaque");
        // Only the two characters whose lowercase is ASCII.
        let odd: Vec<char> = (0x80..=0x10ffffu32).filter_map(char::from_u32).filter(|c| c.to_lowercase().any(|l| l.is_ascii())).collect();
        assert_eq!(odd, vec!['\u{130}', '\u{212a}']);
    }

    #[test]
    fn the_prefilter_never_denies_a_term_on_a_generated_corpus() {
        let dir = tempfile::tempdir().unwrap();
        pi_session_bench::corpus::generate(&pi_session_bench::corpus::Options { out: dir.path().to_path_buf(), seed: 5, files: 10, total_bytes: 1_200_000, big_entries: None, threads: 2, short: false }).unwrap();
        let mut rng = 0x2545f4914f6cdd1du64;
        let mut checked = 0;
        for f in pi_session::scan::scan(&dir.path().join("sessions")).files {
            let bytes = std::fs::read(&f.path).unwrap();
            let ix = pi_session::SessionIndex::from_bytes(&f.path, &bytes);
            for e in &ix.entries {
                let line = String::from_utf8_lossy(&bytes[e.offset as usize..(e.offset + e.len as u64) as usize]);
                checked += never_denies_what_the_text_holds(&e.kind, &line, &mut rng);
            }
        }
        assert!(checked > 5_000, "{checked}");
    }
}

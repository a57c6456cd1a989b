//! File paths as strings that lead back to the same file.
//!
//! The UI, the HTTP API, the CLI's JSON and the caches carry paths as strings, and a string is
//! UTF-8; a file name on Linux is any bytes. A lossy conversion (`U+FFFD` for a byte that is not
//! UTF-8) lists such a file under a name that opens nothing, and two such names can become one.
//! So every path that leaves the core as a string is [`encode`]d and every path string that
//! comes back is [`decode`]d, one rule both ways:
//!
//! * a path that is valid UTF-8 is itself (the usual case: nothing changes);
//! * each byte `b` that is not part of valid UTF-8 (always `0x80`–`0xFF`) becomes the character
//!   `U+F700 + b` (`U+F780`–`U+F7FF`, in the Private Use Area), so `café` written in Latin-1 is
//!   listed as `caf\u{F7E9}`;
//! * a name that really holds one of those characters has its three UTF-8 bytes escaped the
//!   same way, so decoding never confuses the two.
//!
//! `decode(encode(p)) == p` for every path; `encode` is the identity on paths without those
//! characters. Elsewhere than on Unix (where a path is not bytes) the string is the path's own
//! (`to_string_lossy`).

use std::path::{Path, PathBuf};

/// The first of the 128 characters standing for bytes `0x80`–`0xFF`, less `0x80`.
const BASE: u32 = 0xF700;

fn is_escape(c: char) -> bool {
    (BASE + 0x80..=BASE + 0xFF).contains(&(c as u32))
}

fn escape(b: u8, out: &mut String) {
    out.push(char::from_u32(BASE + b as u32).expect("a Private Use Area character"));
}

/// The string form of `path` (module docs).
pub fn encode(path: &Path) -> String {
    encoded(path).into_owned()
}

/// [`encode`], borrowing the path's own bytes when they are the string (the usual case: no
/// copy, for a lookup by path).
#[cfg(unix)]
pub fn encoded(path: &Path) -> std::borrow::Cow<'_, str> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    if let Ok(s) = std::str::from_utf8(bytes) {
        // The escape characters are three bytes from 0xEF: most paths have no such byte.
        if memchr::memchr(0xEF, bytes).is_none() || !s.chars().any(is_escape) {
            return std::borrow::Cow::Borrowed(s);
        }
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if is_escape(c) {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    escape(b, &mut out);
                }
            } else {
                out.push(c);
            }
        }
        for &b in chunk.invalid() {
            escape(b, &mut out);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(not(unix))]
pub fn encoded(path: &Path) -> std::borrow::Cow<'_, str> {
    path.to_string_lossy()
}

/// The path a string from [`encode`] stands for.
#[cfg(unix)]
pub fn decode(s: &str) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    if !s.chars().any(is_escape) {
        return PathBuf::from(s);
    }
    let mut bytes = Vec::with_capacity(s.len());
    for c in s.chars() {
        if is_escape(c) {
            bytes.push((c as u32 - BASE) as u8);
        } else {
            let mut buf = [0u8; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
    }
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
pub fn decode(s: &str) -> PathBuf {
    PathBuf::from(s)
}

/// `#[serde(with = "crate::pathstr::serde_path")]` on a `PathBuf`: written [`encode`]d, read
/// [`decode`]d (serde's own form fails on a path that is not UTF-8).
pub mod serde_path {
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer, P: AsRef<Path> + ?Sized>(p: &P, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::encode(p.as_ref()))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
        Ok(super::decode(&String::deserialize(d)?))
    }
}

/// [`serde_path`] for an `Option<PathBuf>`.
pub mod serde_opt_path {
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(p: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
        match p {
            Some(p) => s.serialize_some(&super::encode(p)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        Ok(Option::<String>::deserialize(d)?.map(|s| super::decode(&s)))
    }
}

/// [`serde_path`] for a list of paths.
pub mod serde_paths {
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|p| super::encode(p)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
        Ok(Vec::<String>::deserialize(d)?.iter().map(|s| super::decode(s)).collect())
    }
}

/// [`serde_path`] for the keys of a map by path.
pub mod serde_path_keys {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer, V: Serialize>(m: &HashMap<PathBuf, V>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(m.iter().map(|(k, v)| (super::encode(k), v)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>, V: Deserialize<'de>>(d: D) -> Result<HashMap<PathBuf, V>, D::Error> {
        Ok(HashMap::<String, V>::deserialize(d)?.into_iter().map(|(k, v)| (super::decode(&k), v)).collect())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    fn p(bytes: &[u8]) -> PathBuf {
        PathBuf::from(OsString::from_vec(bytes.to_vec()))
    }

    #[test]
    fn utf8_paths_are_themselves() {
        for s in ["/home/me/.pi/agent/sessions/--w--/a.jsonl", "/tmp/café/日本語 🙂.jsonl", ""] {
            assert_eq!(encode(Path::new(s)), s);
            assert_eq!(decode(s), PathBuf::from(s));
        }
    }

    #[test]
    fn every_path_round_trips_and_distinct_paths_stay_distinct() {
        let cases: Vec<Vec<u8>> = vec![
            b"/tmp/caf\xe9.jsonl".to_vec(),
            b"/tmp/caf\xef\xbf\xbd.jsonl".to_vec(), // the lossy form of the one above, as a real name
            "/tmp/\u{F7E9}.jsonl".as_bytes().to_vec(), // a real name holding an escape character
            b"/tmp/\xff\xfe\x80/\xc3".to_vec(),
            b"/tmp/\xe2\x82".to_vec(), // a cut-off character
        ];
        let mut seen = std::collections::HashSet::new();
        for c in &cases {
            let e = encode(&p(c));
            assert!(!e.contains('\u{FFFD}') || c.windows(3).any(|w| w == b"\xef\xbf\xbd"), "{e:?}");
            assert_eq!(decode(&e), p(c), "{e:?}");
            assert!(seen.insert(e), "two paths, one string");
        }
        assert_eq!(encode(&p(b"/tmp/caf\xe9.jsonl")), "/tmp/caf\u{F7E9}.jsonl");
        // Every byte value, alone and after valid text.
        for b in 0u8..=255 {
            if b == 0 || b == b'/' {
                continue;
            }
            for v in [vec![b], [b"x\xc3\xa9".as_slice(), &[b]].concat()] {
                assert_eq!(decode(&encode(&p(&v))), p(&v), "{v:?}");
            }
        }
    }

    #[test]
    fn serde_forms_round_trip() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct T {
            #[serde(with = "serde_path")]
            a: PathBuf,
            #[serde(with = "serde_opt_path")]
            b: Option<PathBuf>,
            #[serde(with = "serde_path_keys")]
            m: std::collections::HashMap<PathBuf, u32>,
        }
        let t = T { a: p(b"/x/\xe9"), b: Some(p(b"/y/\xff")), m: [(p(b"/z/\x80"), 1)].into() };
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), t);
        assert!(json.contains("\u{F7E9}"), "{json}");
    }
}

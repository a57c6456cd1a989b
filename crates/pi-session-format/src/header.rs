//! A session file's header line, why a file is read-only, and the stamp that tells an append
//! from a replaced file.

use serde::{Deserialize, Serialize};

use crate::json::{self, LineFields, Loose};

/// The first line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub line: u32,
    /// `version` as written (`None` when absent: a v1 file).
    pub version: Option<f64>,
    pub id: Option<String>,
    pub timestamp: Option<String>,
    pub cwd: Option<String>,
    pub parent_session: Option<String>,
    /// True for a v4 (`kind:"header"`) header of the newer harness.
    pub v4: bool,
    /// The header object as written.
    #[serde(skip)]
    pub raw: String,
}

fn loose_string(raw: Option<&str>) -> Option<String> {
    raw.map(Loose::from_raw).and_then(|l| match l {
        Loose::Str(s) => Some(s.into_owned()),
        _ => None,
    })
}

impl Header {
    pub fn from_fields(f: &LineFields<'_>, line: u32) -> Header {
        Header {
            line,
            version: f.version.map(Loose::from_raw).and_then(|l| match l {
                Loose::Num(n) => Some(n),
                Loose::Str(s) => s.trim().parse().ok(),
                _ => None,
            }),
            id: loose_string(f.id),
            timestamp: loose_string(f.timestamp),
            cwd: loose_string(f.cwd),
            parent_session: loose_string(f.parent_session),
            v4: false,
            raw: String::new(),
        }
    }

    pub fn from_v4_fields(f: &LineFields<'_>, line: u32) -> Header {
        let mut h = Header::from_fields(f, line);
        h.v4 = true;
        h
    }

    /// `header.version ?? 1`, as pi's migration reads it.
    pub fn effective_version(&self) -> f64 {
        self.version.unwrap_or(1.0)
    }

    /// The header object as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.raw)
            .or_else(|_| serde_json::from_str(&json::replace_lone_surrogates(&self.raw)))
            .unwrap_or(serde_json::Value::Null)
    }
}

/// Why a session cannot be written to (it is still shown).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadOnlyReason {
    NoHeader,
    OldVersion,
    FutureVersion,
}

/// File identity used to notice that a file was replaced rather than appended to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct FileStamp {
    pub len: u64,
    pub mtime_ns: i64,
    pub ino: u64,
}

impl FileStamp {
    pub fn of(meta: &std::fs::Metadata) -> FileStamp {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        #[cfg(unix)]
        let ino = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let ino = 0;
        FileStamp { len: meta.len(), mtime_ns, ino }
    }
}

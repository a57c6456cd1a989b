//! The file format of pi's sessions: JSONL, one header line, then entries linked by
//! `id`/`parentId` (docs/format.md). What one line is, read as pi reads it; nothing here opens
//! a session or knows about a tree.
//!
//! * [`skeleton`] — the line scanner: validates a line as `JSON.parse` would and picks out the
//!   fields the index keeps ([`json::LineFields`]), in one pass.
//! * [`json`] — lenient reading of those fields ([`json::Loose`]) and the serde reference.
//! * [`entry`] — the skeleton of an entry line ([`Entry`], [`Kind`], [`Detail`]) built from
//!   them; [`meta`] — a message's model, usage and tool fields, held out of line.
//! * [`header`] — the header line, why a file is read-only, the file stamp.
//! * [`diag`] — the findings about a file ([`Diagnostic`]).
//! * [`lines`] — the streaming line reader.
//! * [`js`] — what JavaScript does where pi's behaviour depends on it (trim, length, dates,
//!   V8's sort).
//! * [`pages`] — big blocks on transparent huge pages.

pub mod diag;
pub mod entry;
pub mod header;
pub mod js;
pub mod json;
pub mod lines;
pub mod meta;
pub mod pages;
pub mod skeleton;

pub use diag::{DiagKind, Diagnostic, Severity};
pub use entry::{Detail, Entry, Id, Kind, Parent, Role};
pub use header::{FileStamp, Header, ReadOnlyReason};
pub use skeleton::ScanError;

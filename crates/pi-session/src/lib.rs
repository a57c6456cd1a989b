//! The session layer of Pi Session Explorer: reading, indexing and appending to the session
//! files of the pi coding agent, on top of their file format ([`pi_session_format`]). No UI, no
//! Tauri; the app's service (the explorer and its IPC shapes) is the `pi-session-app` crate.
//!
//! * [`SessionIndex`] — one file: header, a skeleton per entry line, diagnostics.
//! * [`Tree`] — roots, children in pi's order, labels, name, leaf, active path.
//! * [`ContextPlan`] — what the LLM sees at a node (pi's `buildSessionContext`).
//! * [`scan`] — the sessions root, listing, summaries; [`forks`] — the fork graph.
//! * [`pilink`] — the running pis that follow a session, and offers to them; [`terminal`] —
//!   a terminal running `pi --session FILE`.
//! * [`text`] — an entry's text views: previews, token estimates, search text, a session's
//!   title, Markdown.

pub mod atomic;
pub mod cache;
pub mod context;
pub mod dashboard;
pub mod diff;
pub mod edits;
pub mod entry_type;
pub mod export;
pub mod forks;
pub mod listing;
pub mod pathstr;
pub mod pilink;
pub mod roots;
pub mod scan;
pub mod session;
pub mod slim;
pub mod summary;
pub mod terminal;
pub mod text;
pub mod tree;
pub mod view;
pub mod write;

use std::path::{Path, PathBuf};

pub use entry_type::{EntryType, MessageRole};
pub use context::{ContextPlan, Item, ItemKind, ModelRef};
pub use pi_session_format::{Detail, DiagKind, Diagnostic, Entry, FileStamp, Header, Id, Kind, Parent, ReadOnlyReason, Role, Severity};
pub use session::{Refresh, SessionIndex};
pub use tree::{Leaf, Tree};

/// Errors of the core. Each has a stable `code` that the UI and the CLI branch on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: not a regular file", .0.display())]
    NotAFile(PathBuf),
    #[error("{}:{line}: {message}", path.display())]
    Corrupt { path: PathBuf, line: u32, message: String },
    #[error("entry {id} is not in {}", path.display())]
    UnknownId { path: PathBuf, id: String },
    #[error("{}: {message}", path.display())]
    ReadOnly { path: PathBuf, message: String },
    #[error("{}: entry {id} is inside a parent cycle", path.display())]
    InCycle { path: PathBuf, id: String },
    /// Another process is in the middle of writing a line to the file (its last line is
    /// incomplete and kept changing while we waited): nothing was written.
    #[error("{}: pi is writing this session (its last line is still being written); try again", path.display())]
    Busy { path: PathBuf },
    #[error("{}: outside the sessions root {}", path.display(), root.display())]
    OutsideRoot { path: PathBuf, root: PathBuf },
    #[error("invalid id {0:?}: an id is 1 to 128 characters, without control characters, quotes or backslashes")]
    InvalidId(String),
    #[error("read-only mode: nothing is written")]
    ReadOnlyMode,
    #[error("{}: the path to {id} has no compaction, so a slim fork would copy all of it; an ordinary fork (`pi-session fork FILE {id}`) is what fits", path.display())]
    NoCompaction { path: PathBuf, id: String },
    #[error("{} and {}: not one fork family (no parentSession link between them, no common entry)", a.display(), b.display())]
    NotRelated { a: PathBuf, b: PathBuf },
    #[error("pi at {}: {message}", socket.display())]
    PiLink { socket: PathBuf, message: String },
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        if source.kind() == std::io::ErrorKind::NotFound {
            return Error::Io { path: path.to_path_buf(), source };
        }
        Error::Io { path: path.to_path_buf(), source }
    }

    /// The stable machine-readable code (the app's `ErrorCode` carries the same strings).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => "not-found",
            Error::Io { .. } => "io",
            Error::NotAFile(_) => "not-a-file",
            Error::Corrupt { .. } => "corrupt",
            Error::UnknownId { .. } => "unknown-id",
            Error::ReadOnly { .. } => "read-only",
            Error::InCycle { .. } => "in-cycle",
            Error::Busy { .. } => "busy",
            Error::OutsideRoot { .. } => "outside-root",
            Error::InvalidId(_) => "invalid-id",
            Error::ReadOnlyMode => "read-only-mode",
            Error::NoCompaction { .. } => "no-compaction",
            Error::NotRelated { .. } => "not-related",
            Error::PiLink { .. } => "pi-link",
            Error::Invalid(_) => "invalid",
        }
    }
}

/// A file, indexed and with its tree: what most callers want.
#[derive(Debug, Clone)]
pub struct Session {
    pub index: SessionIndex,
    pub tree: Tree,
}

impl Session {
    pub fn open(path: impl AsRef<Path>) -> Result<Session, Error> {
        Session::open_on(path, session::Cores::All)
    }

    /// [`Session::open`], its read parsed on the given cores ([`session::Cores`]).
    pub fn open_on(path: impl AsRef<Path>, cores: session::Cores) -> Result<Session, Error> {
        let index = SessionIndex::load_on(path, cores)?;
        let tree = Tree::build(&index);
        Ok(Session { index, tree })
    }

    pub fn from_bytes(path: impl Into<PathBuf>, bytes: &[u8]) -> Session {
        let index = SessionIndex::from_bytes(path, bytes);
        let tree = Tree::build(&index);
        Session { index, tree }
    }

    /// Reads what was appended since the last read and updates the tree: new lines are
    /// linked in place (cost proportional to the append), anything else rebuilds it.
    pub fn refresh(&mut self) -> Result<Refresh, Error> {
        self.refreshed(|ix| ix.refresh())
    }

    /// [`Session::refresh`] through a descriptor open on the file ([`SessionIndex::refresh_open`]).
    pub fn refresh_open(&mut self, f: &std::fs::File) -> Result<Refresh, Error> {
        self.refreshed(|ix| ix.refresh_open(f))
    }

    /// Takes in lines we appended, from memory ([`SessionIndex::take_own`]); `None` when they
    /// do not follow what was read.
    pub fn take_own(&mut self, at: u64, bytes: &[u8], stamp: FileStamp) -> Option<Refresh> {
        let mut taken = None;
        self.refreshed(|ix| {
            taken = ix.take_own(at, bytes, stamp);
            Ok(taken.unwrap_or(Refresh::Unchanged))
        })
        .ok()?;
        taken
    }

    /// Runs a step that reads more of the file into the index, then brings the tree up to
    /// date: new lines are linked in place, anything else rebuilds it.
    fn refreshed(&mut self, step: impl FnOnce(&mut SessionIndex) -> Result<Refresh, Error>) -> Result<Refresh, Error> {
        let before = self.index.entries.len();
        let dups = self.index.count(DiagKind::DuplicateId);
        let r = step(&mut self.index)?;
        match r {
            Refresh::Unchanged => {}
            Refresh::Appended { first_new_entry }
                if first_new_entry == before && self.index.count(DiagKind::DuplicateId) == dups && self.tree.apply_appended(&self.index, first_new_entry) => {}
            _ => self.tree = Tree::build(&self.index),
        }
        Ok(r)
    }

    /// All findings: reading and structure, sorted by line.
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut d: Vec<Diagnostic> = self.index.diagnostics.iter().chain(self.tree.diagnostics.iter()).cloned().collect();
        d.sort_by_key(|d| (d.line.unwrap_or(0), d.kind.as_str()));
        d
    }

    /// Resolves a leaf request: `None` = the file's leaf, `Some(None)` = null, `Some(Some(id))`.
    pub fn resolve_leaf(&self, req: Option<Option<&str>>) -> Result<Leaf, Error> {
        match req {
            None => Ok(self.tree.leaf),
            Some(None) => Ok(Leaf::Null),
            Some(Some(id)) => self.node(id).map(Leaf::Entry),
        }
    }

    /// The tree node of an id.
    pub fn node(&self, id: &str) -> Result<u32, Error> {
        match self.index.index_of(id) {
            Some(i) if self.tree.in_tree[i as usize] => Ok(i),
            _ => Err(Error::UnknownId { path: self.index.path.clone(), id: id.to_string() }),
        }
    }

    pub fn context(&self, leaf: Leaf) -> ContextPlan {
        ContextPlan::build(&self.index, &self.tree, leaf)
    }

    pub fn id_of(&self, i: u32) -> &str {
        self.index.entries[i as usize].id_str()
    }

    pub fn leaf_id(&self) -> Option<&str> {
        self.tree.leaf_index().map(|i| self.id_of(i))
    }

    /// Branch points as the default view draws them: entries (not bookkeeping lines) with two or
    /// more children once bookkeeping lines are transparent (the children of a label or leaf line
    /// stand in its place, as the tree draws them). The one count of the sidebar, the status bar
    /// and the tree.
    pub fn branch_points(&self) -> usize {
        let (tree, entries) = (&self.tree, &self.index.entries);
        let mut stack: Vec<u32> = Vec::new();
        let mut n = 0;
        for (i, kids) in tree.children.iter().enumerate() {
            if kids.is_empty() || !tree.in_tree[i] || entries[i].kind.is_bookkeeping() {
                continue;
            }
            stack.clear();
            stack.extend(kids.iter().copied());
            let mut shown = 0;
            while let Some(c) = stack.pop() {
                if entries[c as usize].kind.is_bookkeeping() {
                    stack.extend(tree.children[c as usize].iter().copied());
                } else {
                    shown += 1;
                    if shown > 1 {
                        n += 1;
                        break;
                    }
                }
            }
        }
        n
    }

    /// The effective leaf: the nearest entry at or above the leaf that is not a bookkeeping line
    /// (a label or leaf line appended after it does not move it). This is where the "leaf" chip
    /// sits and what "Already the leaf" means.
    pub fn effective_leaf(&self) -> Option<u32> {
        let mut cur = self.tree.leaf_index()?;
        while self.index.entries[cur as usize].kind.is_bookkeeping() {
            cur = self.tree.parent[cur as usize];
            if cur == crate::tree::NONE {
                return None;
            }
        }
        Some(cur)
    }
}

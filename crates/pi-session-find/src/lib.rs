//! Finding and organising a whole history of pi sessions, on top of the core:
//!
//! * [`index`]: an indexed full-text search (SQLite FTS5, trigram tokenizer) kept in the cache
//!   folder, built in the background and updated incrementally (an append indexes only the new
//!   lines; a removed file leaves the index).
//! * [`query`]: the query language (words, "phrases", `role:` `tool:` `cwd:` `model:` `label:`
//!   `name:` `after:` `before:`).
//! * [`snippet`]: the window of text shown for a hit, its matches marked.
//! * [`roots`]: several roots searched as one (an index per root, answers merged, synced
//!   prefix copies left out).
//! * [`moves`]: archived sessions' files moved out of the root and back (undoable, bytes
//!   never changed).
//! * [`damage`]: a database file SQLite finds damaged is renamed aside, never deleted.
//! * [`background`]: the index build at the lowest CPU priority, so the window goes first.
//! * [`organise`]: tags, pins and archive, in SQLite in the app's data folder, keyed by session
//!   id; never in session files.
//!
//! The choice of SQLite FTS5 over tantivy is written down in docs/design.md ("Indexed search").

pub mod background;
pub mod damage;
pub mod index;
pub mod moves;
pub mod organise;
pub mod query;
pub mod roots;
pub mod snippet;

pub use index::{IndexHit, SearchIndex, SearchIndexProgress, SearchIndexStatus, SearchResults, SessionHits, UpdateStats};
pub use query::Query;
pub use roots::RootIndexes;

/// Errors of this crate; `code()` is what the UI and the CLI branch on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("search index {}: {source}", path.display())]
    Db { path: std::path::PathBuf, source: rusqlite::Error },
    #[error("{}: {source}", path.display())]
    Io { path: std::path::PathBuf, source: std::io::Error },
    #[error(transparent)]
    Core(#[from] pi_session::Error),
    #[error("{0}")]
    Invalid(String),
    #[error("no cache or data folder could be found (set PI_SESSION_CACHE_DIR / PI_EXPLORER_DATA_DIR)")]
    NoFolder,
    /// The organiser's database (tags, pins, archive) is damaged. It is left as it is until the
    /// user sets it aside ([`organise::set_aside`]).
    #[error("the database of tags, pins and archive marks {} is damaged ({reason}); it was left untouched. Set it aside (it is kept, renamed) to start a new, empty one", path.display())]
    OrganiserDamaged { path: std::path::PathBuf, reason: String },
}

impl Error {
    /// The stable machine-readable code (the app's `ErrorCode` carries the same strings).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Db { .. } => "index",
            Error::Io { .. } => "io",
            Error::Core(e) => e.code(),
            Error::Invalid(_) => "invalid",
            Error::NoFolder => "no-folder",
            Error::OrganiserDamaged { .. } => "organiser-damaged",
        }
    }
}

pub(crate) trait DbResult<T> {
    fn at(self, path: &std::path::Path) -> Result<T, Error>;
    /// [`DbResult::at`] for the organiser's database: damage is [`Error::OrganiserDamaged`].
    fn org(self, path: &std::path::Path) -> Result<T, Error>;
}

impl<T> DbResult<T> for Result<T, rusqlite::Error> {
    fn at(self, path: &std::path::Path) -> Result<T, Error> {
        self.map_err(|source| Error::Db { path: path.to_path_buf(), source })
    }

    fn org(self, path: &std::path::Path) -> Result<T, Error> {
        self.map_err(|source| match damage::is_damage(&source) {
            true => Error::OrganiserDamaged { path: path.to_path_buf(), reason: source.to_string() },
            false => Error::Db { path: path.to_path_buf(), source },
        })
    }
}

//! An entry's text views, in one place: its line as JSON and the text of a message
//! ([`plain`]), the one-line preview of tree rows and lists ([`preview`]), how long a message is
//! in tokens ([`tokens`]), what search matches ([`search`]), the title of a session
//! ([`title`]), and Markdown ([`markdown`]: the one writer, for "Copy as Markdown" and the
//! export). The window, the command line and the search index take them from here.
//!
//! Session text is untrusted: these are plain strings (or Markdown that carries no live HTML),
//! never HTML.

pub mod markdown;
pub mod plain;
pub mod preview;
pub mod search;
pub mod title;
pub mod tokens;

pub use plain::{content_text, first_text_of_line, fold, line_str, line_text, line_value, user_text_of_line};
pub use preview::{message_preview, preview, Preview};
pub use search::{searchable_text, searchable_text_of};
pub use title::title_of;
pub use tokens::{estimate_context_tokens, estimate_tokens};

//! The app's service, shared by the window (Tauri) and `pi-session serve` (HTTP), over the
//! session layer ([`pi_session`]) and the search index ([`pi_session_find`]). No Tauri, no
//! HTTP: the shells only carry calls to it.
//!
//! * [`explorer`] — one per view of sessions roots, thread-safe: each app command is a thin
//!   adapter over one of its methods.
//! * [`api`] — the shapes the UI exchanges with it (their TypeScript types are generated from
//!   these), [`api::ApiError`] and the codes of every lower crate's error ([`api::ErrorCode`]).
//! * [`find`] — the search indexes of the roots and the organiser, as the window and serve
//!   hold them.
//! * [`layout`] — the tree's rows and lanes, page by page.
//! * [`watch`] — a root watched for changes; [`recent`] — the roots opened recently.
//! * [`service`] — the [`service::App`] a shell holds (the explorer, its watchers, the
//!   indexes, the window's data folder, where events go), and [`commands`] — every command
//!   of the UI, defined once, which both shells dispatch by name.

pub mod api;
pub mod commands;
pub mod explorer;
mod exports;
pub mod find;
pub mod layout;
mod marks;
mod pilink;
pub mod recent;
pub mod service;
pub mod watch;

/// The session layer's error, which the explorer's methods return ([`api::ApiError`] is what
/// reaches the UI).
pub use pi_session::Error;

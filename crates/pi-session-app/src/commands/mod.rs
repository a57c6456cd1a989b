//! The app's commands, each defined once ([`table`]): a name, its arguments, what it answers,
//! whether it changes the app's state, whether it is the window's only, and its body. From that
//! one table come:
//!
//! * [`dispatch`], which both shells call with a command's name and its JSON arguments — the
//!   window's one invoke handler (src-tauri) and serve's `POST /api/<command>`;
//! * [`COMMANDS`], the table as data, from which `scripts/bindings` generates the window's
//!   permission list (src-tauri/commands.gen.rs, src-tauri/capabilities/default.json), the UI's
//!   typed client (ui/src/lib/backend/commands.gen.ts) and the command list of docs/ipc.md
//!   ([`generate`], with the `ts` feature); `scripts/bindings --check` fails when they are stale.
//!
//! Adding a command is one entry in [`table`] and its call in the UI.

#[cfg(feature = "ts")]
pub mod generate;
mod table;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use std::sync::Arc;

use crate::api::{ApiError, ErrorCode};
use crate::service::{App, Host};

pub use table::handlers;

/// A command of the table.
#[derive(Debug, Clone, Copy)]
pub struct Command {
    /// The name on the wire (`snake_case`; the UI's function is its `camelCase`).
    pub name: &'static str,
    /// Its doc comment.
    pub doc: &'static str,
    /// After it, the app's state differs (a write to a session file or the app's own data, the
    /// read-only switch, the roots): what the UI's recorded answers count as steps.
    pub changes_state: bool,
    /// The window's only: `pi-session serve` refuses it (`window-only`).
    pub window_only: bool,
    /// Its arguments, in order.
    pub params: &'static [Param],
    /// The TypeScript type of its answer.
    #[cfg(feature = "ts")]
    pub returns: fn() -> generate::TsType,
}

/// An argument of a command.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// The Rust name (`snake_case`); on the wire and in the UI its `camelCase`.
    pub name: &'static str,
    /// Its TypeScript type (an `Option` may be left out of a call: none).
    #[cfg(feature = "ts")]
    pub ts: fn() -> generate::TsType,
}

/// The flags a command may carry in the table.
#[doc(hidden)]
pub const fn has_flag(flags: &[&str], flag: &str) -> bool {
    let mut i = 0;
    while i < flags.len() {
        if str_eq(flags[i], flag) {
            return true;
        }
        i += 1;
    }
    false
}

/// True when every flag is one the table knows.
#[doc(hidden)]
pub const fn known_flags(flags: &[&str]) -> bool {
    let mut i = 0;
    while i < flags.len() {
        if !str_eq(flags[i], "changes") && !str_eq(flags[i], "window") {
            return false;
        }
        i += 1;
    }
    true
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The command of that name.
pub fn find(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// The arguments of `command` from the JSON the UI sent (`null`: none).
#[doc(hidden)]
pub fn parse_args<T: DeserializeOwned>(command: &str, args: Value) -> Result<T, ApiError> {
    let args = if args.is_null() { Value::Object(Default::default()) } else { args };
    serde_json::from_value(args).map_err(|e| ApiError { code: ErrorCode::Invalid, message: format!("invalid arguments for {command}: {e}") })
}

/// A command's answer as JSON text.
#[doc(hidden)]
pub fn answer<T: Serialize>(value: T) -> Result<String, ApiError> {
    serde_json::to_string(&value).map_err(|e| ApiError { code: ErrorCode::Internal, message: e.to_string() })
}

/// Defines the commands: for each, `[flags] fn name(app, arg: Type, …) -> Answer { body }`,
/// its doc comment first. Flags: `changes` (the app's state differs after it), `window` (the
/// window's only). An argument may give its TypeScript type (`arg: i64 as "number"`). The body
/// returns `Result<Answer, ApiError>` (`?` takes the lower crates' errors).
macro_rules! commands {
    (@ts $ty:ty) => { $crate::commands::generate::ts_type::<$ty> };
    (@ts $ty:ty, $ts:literal) => { || $crate::commands::generate::TsType::literal($ts) };
    ($(
        $(#[doc = $doc:literal])*
        [$($flag:ident),*] fn $name:ident($app:ident $(, $arg:ident : $ty:ty $(as $ts:literal)?)* $(,)?) -> $ret:ty $body:block
    )*) => {
        /// Each command's body, callable from Rust.
        pub mod handlers {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[doc = $doc])*
                pub fn $name($app: &std::sync::Arc<$crate::service::App> $(, $arg: $ty)*) -> Result<$ret, $crate::api::ApiError> $body
            )*
        }

        $( const _: () = assert!($crate::commands::known_flags(&[$(stringify!($flag)),*]), concat!("unknown flag on ", stringify!($name))); )*

        /// The commands, in the table's order.
        pub static COMMANDS: &[$crate::commands::Command] = &[$(
            $crate::commands::Command {
                name: stringify!($name),
                doc: concat!($($doc, "\n"),*),
                changes_state: $crate::commands::has_flag(&[$(stringify!($flag)),*], "changes"),
                window_only: $crate::commands::has_flag(&[$(stringify!($flag)),*], "window"),
                params: &[$(
                    $crate::commands::Param {
                        name: stringify!($arg),
                        #[cfg(feature = "ts")]
                        ts: commands!(@ts $ty $(, $ts)?),
                    }
                ),*],
                #[cfg(feature = "ts")]
                returns: $crate::commands::generate::ts_type::<$ret>,
            }
        ),*];

        /// Runs the command `name` with the JSON arguments the UI sent.
        pub fn dispatch(app: &std::sync::Arc<$crate::service::App>, name: &str, args: serde_json::Value) -> Result<String, $crate::api::ApiError> {
            match name {
                $(stringify!($name) => {
                    #[derive(serde::Deserialize)]
                    #[serde(rename_all = "camelCase", deny_unknown_fields)]
                    struct Args { $($arg: $ty,)* }
                    let Args { $($arg,)* } = $crate::commands::parse_args(stringify!($name), args)?;
                    $crate::commands::answer(handlers::$name(app $(, $arg)*)?)
                })*
                _ => Err($crate::api::ApiError { code: $crate::api::ErrorCode::NotFound, message: format!("no command {name:?}") }),
            }
        }
    };
}
pub(crate) use commands;

pub use table::{dispatch, COMMANDS};

impl App {
    /// Runs one command by name with its arguments as the UI sends them (a JSON object, or
    /// null for none), answering its JSON ([`crate::commands`]).
    pub fn call(self: &Arc<Self>, name: &str, args: serde_json::Value) -> Result<String, ApiError> {
        let command = find(name).ok_or_else(|| ApiError { code: ErrorCode::NotFound, message: format!("no command {name:?}") })?;
        if command.window_only && self.host() == Host::Serve {
            return Err(ApiError {
                code: ErrorCode::WindowOnly,
                message: format!("{name}: not over HTTP: the served roots are set by the server's command line; tags, folders, files written where the user chose and terminals are the window's"),
            });
        }
        dispatch(self, name, args)
    }
}


//! Arguments shared by several commands: the sessions roots (to list, to confine writes to,
//! to read a file within) and a FILE argument that takes a path as the JSON output writes it.

use std::path::{Path, PathBuf};

use clap::Args;
use pi_session::roots::{RootSpec, Roots};
use pi_session::scan::resolve_root;
use pi_session::Error;

/// The root a write is confined to.
#[derive(Args, Clone)]
pub(crate) struct WriteRootArg {
    /// Refuse to write unless FILE lies inside DIR, as written and after symlinks (default: FILE's own root:
    /// the parent of its per-cwd folder `--…--`, else its folder); repeatable, `[NAME=]DIR`
    #[arg(long, value_name = "[NAME=]DIR")]
    pub(crate) sessions_dir: Vec<String>,
    /// Refuse writes to the root with this name (repeatable)
    #[arg(long, value_name = "NAME")]
    pub(crate) read_only_root: Vec<String>,
}

impl WriteRootArg {
    /// The roots named, or none.
    pub(crate) fn given(&self) -> Option<RootArg> {
        (!self.sessions_dir.is_empty()).then(|| RootArg { sessions_dir: self.sessions_dir.clone(), read_only_root: self.read_only_root.clone() })
    }
}

/// A FILE argument: the path as given; when nothing is there but the text is a path as the
/// JSON output writes it (a name that is not UTF-8, [`pi_session::pathstr`]), that path.
#[derive(Clone)]
pub(crate) struct FileArg;

impl clap::builder::TypedValueParser for FileArg {
    type Value = PathBuf;

    fn parse_ref(&self, _: &clap::Command, _: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<PathBuf, clap::Error> {
        let given = PathBuf::from(value);
        let decoded = value.to_str().map(pi_session::pathstr::decode).filter(|d| *d != given && d.symlink_metadata().is_ok() && given.symlink_metadata().is_err());
        Ok(decoded.unwrap_or(given))
    }
}

/// The roots a file that is read must lie in, when given.
#[derive(Args, Clone)]
pub(crate) struct WithinArg {
    /// Refuse FILE unless it lies inside DIR both as written and after symlinks, as the app
    /// does (a symlink that leaves the root is not read); repeatable, `[NAME=]DIR`
    #[arg(long, value_name = "[NAME=]DIR")]
    pub(crate) sessions_dir: Vec<String>,
}

impl WithinArg {
    /// `file`, checked against the roots when some are given.
    pub(crate) fn check(&self, file: &Path) -> Result<(), Error> {
        if !self.sessions_dir.is_empty() {
            RootArg { sessions_dir: self.sessions_dir.clone(), read_only_root: Vec::new() }.roots().confine(file)?;
        }
        Ok(())
    }
}

#[derive(Args, Clone)]
pub(crate) struct RootArg {
    /// Sessions root (default: $PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions);
    /// repeat for several roots in one view, each `DIR` or `NAME=DIR` (default name: the folder's)
    #[arg(long, value_name = "[NAME=]DIR")]
    pub(crate) sessions_dir: Vec<String>,
    /// Refuse writes to the root with this name (repeatable)
    #[arg(long, value_name = "NAME")]
    pub(crate) read_only_root: Vec<String>,
}

impl RootArg {
    /// The one root of the classic commands: the first `--sessions-dir`, else the default.
    pub(crate) fn first(&self) -> PathBuf {
        match self.sessions_dir.first() {
            Some(a) => resolve_root(Some(&RootSpec::parse(a).path)).path,
            None => resolve_root(None).path,
        }
    }

    pub(crate) fn is_multi(&self) -> bool {
        self.sessions_dir.len() > 1
    }

    /// All roots, named, with their read-only flags.
    pub(crate) fn roots(&self) -> Roots {
        let specs = if self.sessions_dir.is_empty() {
            Roots::single(resolve_root(None).path).specs().to_vec()
        } else {
            self.sessions_dir
                .iter()
                .map(|a| {
                    let mut s = RootSpec::parse(a);
                    s.path = resolve_root(Some(&s.path)).path;
                    s
                })
                .collect()
        };
        let mut roots = Roots::new(specs).specs().to_vec();
        for r in &mut roots {
            r.read_only = self.read_only_root.contains(&r.name);
        }
        Roots::new(roots)
    }
}

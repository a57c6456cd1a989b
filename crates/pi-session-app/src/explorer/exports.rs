//! Export of a session (a path or the whole tree) as HTML or Markdown text, named after the
//! session file; the window writes it where the user says, `pi-session serve` hands it to the
//! browser as a download.

use std::path::Path;

use pi_session::export::{to_html, to_markdown, ExportFormat, Scope};
use pi_session::Error;

use super::Explorer;

/// An export's text and the file name it suggests (`<session file stem>[-tree].<html|md>`).
#[derive(Debug, Clone, PartialEq)]
pub struct ExportText {
    pub text: String,
    pub name: String,
}

impl Explorer {
    /// The session at `path` as `format`: the path to `leaf` (the session's leaf when `None`),
    /// or every branch with `tree`.
    pub fn export_text(&self, path: &str, leaf: Option<&str>, tree: bool, format: ExportFormat) -> Result<ExportText, Error> {
        let arc = self.session(path)?;
        let s = arc.read().unwrap();
        let name = export_name(&s.index.path, tree, format);
        let scope = if tree { Scope::Tree } else { Scope::Path(s.resolve_leaf(leaf.map(Some))?) };
        let text = match format {
            ExportFormat::Html => to_html(&s, scope)?,
            ExportFormat::Md => to_markdown(&s, scope)?,
        };
        Ok(ExportText { text, name })
    }
}

/// The file name an export of the session file `file` suggests: `<stem>[-tree].<html|md>`.
pub fn export_name(file: &Path, tree: bool, format: ExportFormat) -> String {
    let stem = file.file_stem().map(|x| x.to_string_lossy().into_owned()).unwrap_or_else(|| "session".into());
    format!("{stem}{}.{}", if tree { "-tree" } else { "" }, format.extension())
}

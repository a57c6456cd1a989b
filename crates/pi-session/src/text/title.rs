//! The title of a session, as the list shows it.

use super::plain::fold;
use crate::summary::SessionSummary;

/// The session's name, else its first user message (one line, at most 200 characters), else
/// its file name.
pub fn title_of(s: &SessionSummary) -> String {
    s.name
        .clone()
        .filter(|n| !n.is_empty())
        .or_else(|| s.first_user_message.as_deref().filter(|m| !m.is_empty()).map(|m| fold(m, 200)))
        .unwrap_or_else(|| s.path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default())
}

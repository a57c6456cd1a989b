//! The bundled demo sessions (demo/sessions, written by the real pi), copied into the app's
//! data folder on first start. Their `parentSession` paths are stored relative to the
//! sessions root and made absolute in the copy.

use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};

static DEMO: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/demo/sessions");

/// Copies the demo into `data/demo-sessions` (once; existing files are kept) and returns it.
pub fn install(data: &Path) -> std::io::Result<PathBuf> {
    let root = data.join("demo-sessions");
    std::fs::create_dir_all(&root)?;
    copy_dir(&DEMO, &root, &root)?;
    Ok(root)
}

fn copy_dir(dir: &Dir<'_>, dest_root: &Path, root: &Path) -> std::io::Result<()> {
    for f in dir.files() {
        let dest = dest_root.join(f.path());
        if dest.exists() {
            continue;
        }
        if let Some(p) = dest.parent() {
            std::fs::create_dir_all(p)?;
        }
        let bytes = absolutize_parent(f.contents(), root);
        pi_session::write::write_new_file(dest.parent().unwrap_or(root), &dest.file_name().unwrap_or_default().to_string_lossy(), &bytes)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
    }
    for d in dir.dirs() {
        copy_dir(d, dest_root, root)?;
    }
    Ok(())
}

/// Rewrites a relative `parentSession` in the header line to an absolute path under `root`.
fn absolutize_parent(bytes: &[u8], root: &Path) -> Vec<u8> {
    let nl = bytes.iter().position(|&b| b == b'\n').unwrap_or(bytes.len());
    let Ok(mut header) = serde_json::from_slice::<serde_json::Value>(&bytes[..nl]) else { return bytes.to_vec() };
    let Some(ps) = header.get("parentSession").and_then(|v| v.as_str()).map(str::to_string) else { return bytes.to_vec() };
    if Path::new(&ps).is_absolute() {
        return bytes.to_vec();
    }
    header["parentSession"] = root.join(ps).to_string_lossy().into_owned().into();
    let mut out = serde_json::to_vec(&header).unwrap_or_default();
    out.extend_from_slice(&bytes[nl..]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn parent_paths_become_absolute() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let root = super::install(&dir).unwrap();
        let mut forks = 0;
        for f in pi_session::scan::scan(&root).files {
            let s = pi_session::Session::open(&f.path).unwrap();
            if let Some(ps) = s.index.header.as_ref().and_then(|h| h.parent_session.clone()) {
                assert!(std::path::Path::new(&ps).is_absolute(), "{ps}");
                assert!(std::path::Path::new(&ps).exists(), "{ps}");
                forks += 1;
            }
        }
        assert!(forks > 0);
    }
}

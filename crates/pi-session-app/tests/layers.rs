//! The layers of the workspace hold, read from the sources themselves:
//!
//! * crates depend downward only: the file format (`pi-session-format`) ← the session layer
//!   (`pi-session`) ← the search index (`pi-session-find`) ← the app's service
//!   (`pi-session-app`) ← the shells (the window, `pi-session-serve`, `pi-session-cli`,
//!   `pi-session-archive`, `pi-session-bench`, the fuzz targets), from every `Cargo.toml`'s
//!   dependencies; a library crate's tests may also use the corpus generator of
//!   `pi-session-bench`;
//! * no circle of files inside a crate: every `use crate::…`, `use super::…` and path in code
//!   (`crate::a::b`, `super::x`) is resolved to the file of the module it names, and the graph
//!   of those imports has no cycle. A module and the modules inside it are one unit (a parent
//!   declares and re-exports its parts, the parts use what it holds), so imports between a file
//!   and the files of its own submodules are not edges.
//!
//! It prints the imports between files per crate. `LAYERS_ROOT=DIR` reads another checkout (the
//! figures of an older tree; the test then fails on what that tree breaks).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The library layers, lowest first; every other crate of the workspace is a shell.
const LAYERS: &[&str] = &["pi-session-format", "pi-session", "pi-session-find", "pi-session-app"];
/// What a library crate's tests may use from above its layer: the generator of session corpora.
const TEST_TOOLS: &[&str] = &["pi-session-bench"];

fn root() -> PathBuf {
    if let Some(r) = std::env::var_os("LAYERS_ROOT").filter(|v| !v.is_empty()) {
        return PathBuf::from(r);
    }
    let mut d = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    while !d.join("Cargo.lock").is_file() {
        assert!(d.pop(), "no Cargo.lock above {}", env!("CARGO_MANIFEST_DIR"));
    }
    d
}

/// A crate of the workspace: its name, its manifest's dependencies on other crates of ours,
/// and where its library or binary root is.
struct Crate {
    name: String,
    deps: BTreeSet<String>,
    dev_deps: BTreeSet<String>,
    src_root: Option<PathBuf>,
}

/// The `pi-session*` dependencies of each section of a manifest, by kind.
fn read_manifest(path: &Path) -> Crate {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut name, mut section) = (String::new(), String::new());
    let (mut deps, mut dev_deps) = (BTreeSet::new(), BTreeSet::new());
    let mut lib_path = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.trim_matches(|c| c == '[' || c == ']').to_string();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let (key, value) = (key.trim(), value.trim());
        if section == "package" && key == "name" {
            name = value.trim_matches('"').to_string();
        }
        if section == "lib" && key == "path" {
            lib_path = Some(value.trim_matches('"').to_string());
        }
        if !key.starts_with("pi-session") {
            continue;
        }
        if section == "dependencies" || section == "build-dependencies" || (section.starts_with("target.") && section.ends_with(".dependencies")) {
            deps.insert(key.to_string());
        } else if section == "dev-dependencies" || (section.starts_with("target.") && section.ends_with(".dev-dependencies")) {
            dev_deps.insert(key.to_string());
        }
    }
    let dir = path.parent().unwrap();
    let src_root = match lib_path {
        Some(p) => Some(dir.join(p)),
        None => ["src/lib.rs", "src/main.rs"].iter().map(|p| dir.join(p)).find(|p| p.is_file()),
    };
    Crate { name, deps, dev_deps, src_root }
}

fn crates(root: &Path) -> Vec<Crate> {
    let mut manifests = vec![root.join("Cargo.toml"), root.join("fuzz/Cargo.toml")];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates")).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    manifests.extend(dirs.into_iter().map(|d| d.join("Cargo.toml")).filter(|m| m.is_file()));
    manifests.iter().filter(|m| m.is_file()).map(|m| read_manifest(m)).collect()
}

fn layer(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == name)
}

/// What breaks the direction of the crate graph.
fn crate_violations(crates: &[Crate]) -> Vec<String> {
    let mut out = Vec::new();
    for c in crates {
        let Some(mine) = layer(&c.name) else { continue };
        for d in &c.deps {
            match layer(d) {
                Some(l) if l < mine => {}
                _ => out.push(format!("{} depends on {d}", c.name)),
            }
        }
        for d in &c.dev_deps {
            match layer(d) {
                Some(l) if l < mine => {}
                _ if TEST_TOOLS.contains(&d.as_str()) => {}
                _ => out.push(format!("{}'s tests depend on {d}", c.name)),
            }
        }
    }
    out
}

// ------------------------------------------------------------------ the files of a crate

/// The code of a file with comments removed and the contents of string and character literals
/// blanked (their quotes kept), so that braces and paths are those of the code. A string that is
/// a whole path (`#[serde(with = "crate::pathstr::serde_path")]`) is kept: it names code too.
fn code_of(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let is_path = |s: &str| {
        let mut parts = s.split("::");
        matches!(parts.next(), Some("crate" | "super" | "self")) && s.contains("::") && s.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':')
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == 'r' && matches!(next, Some('"' | '#')) && !(i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')) {
            // A raw string: r"…", r#"…"#, …
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            let close = format!("\"{}", "#".repeat(hashes));
            let rest: String = b[j..].iter().collect();
            let end = rest.find(&close).map(|k| j + rest[..k].chars().count()).unwrap_or(b.len());
            out.push_str("\"\"");
            out.extend(b[j..end.min(b.len())].iter().filter(|&&c| c == '\n'));
            i = end + 1 + hashes;
        } else if c == '"' {
            let mut j = i + 1;
            let mut lit = String::new();
            while j < b.len() && b[j] != '"' {
                if b[j] == '\\' {
                    j += 1;
                }
                if let Some(&ch) = b.get(j) {
                    lit.push(ch);
                }
                j += 1;
            }
            out.push('"');
            if is_path(&lit) {
                out.push_str(&lit);
            } else {
                out.extend(lit.chars().filter(|&c| c == '\n'));
            }
            out.push('"');
            i = j + 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'), or a lifetime ('a) left as it is.
            let lit_end = if next == Some('\\') { b[i + 2..].iter().position(|&c| c == '\'').map(|k| i + 2 + k) } else if b.get(i + 2) == Some(&'\'') { Some(i + 2) } else { None };
            match lit_end {
                Some(e) => {
                    out.push_str("' '");
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// A module path, as segments from the crate root.
type ModPath = Vec<String>;

/// The module files of a crate: the root file and every file it declares, by module path.
fn module_files(src_root: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut out = BTreeMap::new();
    let mut todo = vec![(Vec::new(), src_root.to_path_buf())];
    while let Some((m, file)) = todo.pop() {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        // A file's children live in the folder of its name (`a.rs` → `a/`), or beside it for a
        // root or a `mod.rs`.
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let dir = if m.is_empty() || stem == "mod" { file.parent().unwrap().to_path_buf() } else { file.parent().unwrap().join(&stem) };
        let code = code_of(&text);
        let mut depth = 0usize;
        let mut inline_at: Vec<usize> = Vec::new();
        for (k, line) in code.lines().enumerate() {
            let t = line.trim_start();
            let decl = t.strip_prefix("pub(crate) ").or_else(|| t.strip_prefix("pub(super) ")).or_else(|| t.strip_prefix("pub ")).unwrap_or(t);
            if let Some(rest) = decl.strip_prefix("mod ") {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if inline_at.is_empty() && rest[name.len()..].trim_start().starts_with(';') {
                    let path_attr = code.lines().nth(k.wrapping_sub(1)).and_then(|p| p.trim().strip_prefix("#[path = ")).map(|p| p.trim_end_matches(']').trim_matches('"').to_string());
                    let child = match path_attr {
                        Some(p) => Some(file.parent().unwrap().join(p)),
                        None => [dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs")].into_iter().find(|p| p.is_file()),
                    };
                    if let Some(child) = child {
                        let mut cm = m.clone();
                        cm.push(name);
                        todo.push((cm, child));
                    }
                } else if rest[name.len()..].trim_start().starts_with('{') {
                    inline_at.push(depth);
                }
            }
            for ch in line.chars() {
                match ch {
                    '{' => depth += 1,
                    '}' => {
                        depth = depth.saturating_sub(1);
                        if inline_at.last() == Some(&depth) {
                            inline_at.pop();
                        }
                    }
                    _ => {}
                }
            }
        }
        out.insert(m, file);
    }
    out
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else { return vec![tree.split(" as ").next().unwrap().trim().to_string()] };
    let prefix = tree[..open].trim_end_matches("::").trim();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(expand)
        .map(|p| if p == "self" { prefix.to_string() } else if prefix.is_empty() { p } else { format!("{prefix}::{p}") })
        .collect()
}

/// The module paths a file names: its `use` declarations and the `crate::`, `super::` and
/// `self::` paths of its code, resolved against its module (and the inline module each is in).
fn named_modules(code: &str, module: &ModPath, files: &BTreeMap<ModPath, PathBuf>) -> Vec<ModPath> {
    let mut out = Vec::new();
    // Where each inline module (`mod tests { … }`) starts and ends, by byte offset.
    let mut inline: Vec<(usize, usize, String)> = Vec::new();
    {
        let mut stack: Vec<(usize, String, usize)> = Vec::new();
        let (mut depth, mut pending): (usize, Option<String>) = (0, None);
        let bytes = code.as_bytes();
        let mut k = 0;
        while k < bytes.len() {
            if code[k..].starts_with("mod ") && (k == 0 || !(bytes[k - 1].is_ascii_alphanumeric() || bytes[k - 1] == b'_')) {
                let name: String = code[k + 4..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                let after = code[k + 4 + name.len()..].trim_start();
                if after.starts_with('{') {
                    pending = Some(name);
                }
            }
            match bytes[k] {
                b'{' => {
                    if let Some(n) = pending.take() {
                        stack.push((k, n, depth));
                    }
                    depth += 1;
                }
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if stack.last().is_some_and(|s| s.2 == depth) {
                        let (start, n, _) = stack.pop().unwrap();
                        inline.push((start, k, n));
                    }
                }
                _ => {}
            }
            k += 1;
        }
    }
    let module_at = |at: usize| -> ModPath {
        let mut m = module.clone();
        let mut around: Vec<&(usize, usize, String)> = inline.iter().filter(|(s, e, _)| *s < at && at < *e).collect();
        around.sort_by_key(|(s, _, _)| *s);
        m.extend(around.into_iter().map(|(_, _, n)| n.clone()));
        m
    };
    let resolve = |path: &str, at: usize, in_use: bool| -> Option<ModPath> {
        let segs: Vec<&str> = path.split("::").map(str::trim).filter(|s| !s.is_empty()).collect();
        let here = module_at(at);
        let mut m: ModPath;
        let mut rest = &segs[..];
        match segs.first().copied() {
            Some("crate") => {
                m = Vec::new();
                rest = &segs[1..];
            }
            Some("super") | Some("self") => {
                m = here;
                while let Some(s) = rest.first() {
                    match *s {
                        "super" => {
                            m.pop()?;
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
            }
            // `use child::X`: a name in scope, when it is a module of this one.
            Some(first) if in_use => {
                let mut child = here.clone();
                child.push(first.to_string());
                if !files.contains_key(&child) {
                    return None;
                }
                m = here;
            }
            _ => return None,
        }
        m.extend(rest.iter().map(|s| s.to_string()));
        // The file of the longest prefix that is a module file.
        while !m.is_empty() && !files.contains_key(&m) {
            m.pop();
        }
        Some(m)
    };
    // `use` declarations (one may span lines).
    let mut k = 0;
    while let Some(found) = code[k..].find("use ") {
        let at = k + found;
        k = at + 4;
        let before = code[..at].trim_end_matches([' ', '\t']);
        let starts_item = before.is_empty() || before.ends_with(['\n', ';', '{', '}']) || before.ends_with("pub") || before.ends_with(')') || before.ends_with(']');
        if !starts_item || code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = code[at..].find(';') else { break };
        for p in expand(&code[at + 4..at + end]) {
            out.extend(resolve(&p, at, true));
        }
        k = at + end;
    }
    // Paths in code.
    for key in ["crate::", "super::", "self::"] {
        let mut k = 0;
        while let Some(found) = code[k..].find(key) {
            let at = k + found;
            k = at + key.len();
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = code[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
            out.extend(resolve(path.trim_end_matches(':'), at, false));
        }
    }
    out
}

/// The imports between the files of a crate (from, to), a file's imports of the files of its own
/// submodules and of its ancestors left out.
fn file_imports(src_root: &Path) -> (BTreeMap<ModPath, PathBuf>, BTreeSet<(ModPath, ModPath)>) {
    let files = module_files(src_root);
    let mut edges = BTreeSet::new();
    for (m, f) in &files {
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        for to in named_modules(&code, m, &files) {
            if !to.starts_with(m) && !m.starts_with(&to) {
                edges.insert((m.clone(), to));
            }
        }
    }
    (files, edges)
}

/// The circles of the graph: its strongly connected components of more than one file.
fn circles(edges: &BTreeSet<(ModPath, ModPath)>) -> Vec<Vec<ModPath>> {
    let nodes: BTreeSet<&ModPath> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let reach = |from: &ModPath| -> BTreeSet<ModPath> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for (a, b) in edges {
                if *a == n && seen.insert(b.clone()) {
                    todo.push(b.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&ModPath, BTreeSet<ModPath>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for n in &nodes {
        if done.contains(*n) || !reaches[n].contains(*n) {
            continue;
        }
        let scc: Vec<ModPath> = nodes.iter().filter(|m| reaches[n].contains(**m) && reaches[**m].contains(*n)).map(|m| (*m).clone()).collect();
        done.extend(scc.iter().cloned());
        out.push(scc);
    }
    out
}

fn shown(root: &Path, files: &BTreeMap<ModPath, PathBuf>, m: &ModPath) -> String {
    let f = &files[m];
    f.strip_prefix(root).unwrap_or(f).display().to_string()
}

#[test]
fn crates_depend_downward_and_no_files_import_each_other_in_a_circle() {
    let root = root();
    let crates = crates(&root);
    assert!(crates.len() >= 8, "the workspace's crates: {}", crates.len());
    let mut broken = crate_violations(&crates);
    broken.extend(LAYERS.iter().filter(|l| !crates.iter().any(|c| c.name == **l)).map(|l| format!("no crate {l}")));
    println!("crate dependencies (layers: {}, then the shells):", LAYERS.join(" ← "));
    for c in &crates {
        println!("  {:<22} {:?}{}", c.name, c.deps, if c.dev_deps.is_empty() { String::new() } else { format!(", tests: {:?}", c.dev_deps) });
    }
    println!("imports between the files of each crate:");
    for c in &crates {
        let Some(src) = &c.src_root else { continue };
        let (files, edges) = file_imports(src);
        let found = circles(&edges);
        println!("  {:<22} {:>3} files, {:>3} imports between files, {} circles", c.name, files.len(), edges.len(), found.len());
        for scc in found {
            let names: Vec<String> = scc.iter().map(|m| shown(&root, &files, m)).collect();
            let inside: Vec<String> = edges.iter().filter(|(a, b)| scc.contains(a) && scc.contains(b)).map(|(a, b)| format!("{} → {}", shown(&root, &files, a), shown(&root, &files, b))).collect();
            broken.push(format!("{}: files in a circle: {} ({})", c.name, names.join(", "), inside.join("; ")));
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}

/// The reader of imports finds what it must: a circle, a child's import of its parent left out,
/// `use` trees, and paths in code but not in comments or strings.
#[test]
fn the_import_reader_sees_uses_and_paths_but_not_comments_or_strings() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod a;\npub mod b;\nmod c;\n").unwrap();
    std::fs::write(src.join("a.rs"), "mod inner;\npub use inner::X;\nuse crate::{b::{self, Y}, c as _};\n").unwrap();
    std::fs::write(src.join("a/inner.rs"), "use super::super::c::Z;\npub struct X;\nfn f() { let _ = super::g(); }\n").unwrap();
    std::fs::write(src.join("b.rs"), "// crate::c::Z in a comment\nconst S: &str = \"crate::a::X is text\";\npub struct Y;\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n").unwrap();
    std::fs::write(src.join("c.rs"), "pub struct Z;\nfn f() -> crate::a::X { crate::a::X }\n").unwrap();
    let (files, edges) = file_imports(&src.join("lib.rs"));
    assert_eq!(files.len(), 5);
    let m = |s: &str| -> ModPath { s.split('/').filter(|x| !x.is_empty()).map(str::to_string).collect() };
    let want: BTreeSet<(ModPath, ModPath)> = [("a", "b"), ("a", "c"), ("a/inner", "c"), ("c", "a")].iter().map(|(x, y)| (m(x), m(y))).collect();
    assert_eq!(edges, want);
    assert_eq!(circles(&edges), vec![vec![m("a"), m("c")]]);
    assert_eq!(expand("x::{a, b::{c, self}, d as e}"), ["x::a", "x::b::c", "x::b", "x::d"]);
    let code = code_of("let s = r#\"crate::x \"quoted\"\"#; let c = '{'; // }\nlet t = \"{\";");
    assert_eq!(code.matches('{').count(), 0, "{code}");
}

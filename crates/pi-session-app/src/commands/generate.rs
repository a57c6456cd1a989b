//! The files made from the command table ([`super::COMMANDS`]), committed and checked:
//!
//! * `src-tauri/commands.gen.rs` — the command names, from which the window's build script
//!   makes a permission per command (`allow-<name>`);
//! * `src-tauri/capabilities/default.json` — the main window's permissions: each command's and
//!   listening to events, nothing else;
//! * `ui/src/lib/backend/commands.gen.ts` — the UI's typed client: a method per command (its
//!   `camelCase` name, its arguments in order, its answer's type) over one `call`, and the sets
//!   of state-changing and window-only commands;
//! * the command list of `docs/ipc.md`, between its markers.
//!
//! `scripts/bindings` writes them (`PI_GENERATE=write`); `scripts/bindings --check` fails when
//! one differs from what the table makes (`PI_GENERATE=check`).

use std::collections::BTreeSet;
use std::path::Path;

use ts_rs::{TypeVisitor, TS};

use super::{Command, COMMANDS};

/// A TypeScript type: its text, the generated types it names, and whether it is optional.
#[derive(Debug, Clone, PartialEq)]
pub struct TsType {
    pub text: String,
    pub imports: BTreeSet<String>,
    pub optional: bool,
}

impl TsType {
    pub fn literal(text: &str) -> TsType {
        TsType { text: text.to_string(), imports: BTreeSet::new(), optional: false }
    }
}

/// Collects the generated types a type names.
struct Imports(BTreeSet<String>);

impl TypeVisitor for Imports {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if T::output_path().is_some() {
            self.0.insert(T::ident());
        }
        T::visit_generics(self);
    }
}

/// The TypeScript type of `T`.
pub fn ts_type<T: TS + 'static>() -> TsType {
    let mut v = Imports(BTreeSet::new());
    // The type itself and the types it is made of (`Vec<T>`, `Option<T>`, maps): those its
    // name holds; not what those types' own fields name.
    v.visit::<T>();
    TsType { text: T::name(), imports: v.0, optional: T::IS_OPTION }
}

fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn kebab(snake: &str) -> String {
    snake.replace('_', "-")
}

/// A doc comment as JSDoc, indented.
fn jsdoc(doc: &str, indent: &str) -> String {
    let lines: Vec<&str> = doc.lines().map(|l| l.strip_prefix(' ').unwrap_or(l)).collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => format!("{indent}/** {one} */\n"),
        many => {
            let mut s = format!("{indent}/**\n");
            for l in many {
                s.push_str(&format!("{indent} * {l}\n").replace(" * \n", " *\n"));
            }
            s.push_str(&format!("{indent} */\n"));
            s
        }
    }
}

const HEADER_TS: &str = "// Generated from the command table (crates/pi-session-app/src/commands/table.rs) by\n// `scripts/bindings`: do not edit. `scripts/bindings --check` fails when it is stale.\n";

/// `ui/src/lib/backend/commands.gen.ts`.
pub fn typescript(commands: &[Command]) -> String {
    let mut imports = BTreeSet::new();
    let mut api = String::new();
    let mut class = String::new();
    for c in commands {
        let params: Vec<(String, TsType)> = c.params.iter().map(|p| (camel(p.name), (p.ts)())).collect();
        let ret = (c.returns)();
        imports.extend(ret.imports.iter().cloned());
        // Optional arguments at the end may be left out.
        let trailing = params.iter().rev().take_while(|(_, t)| t.optional).count();
        let sig: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(i, (n, t))| {
                imports.extend(t.imports.iter().cloned());
                if i >= params.len() - trailing {
                    format!("{n}?: {}", t.text)
                } else {
                    format!("{n}: {}", t.text)
                }
            })
            .collect();
        let args = if params.is_empty() { "{}".to_string() } else { format!("{{ {} }}", params.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")) };
        let name = camel(c.name);
        let doc = jsdoc(c.doc, "  ");
        api.push_str(&format!("{doc}  {name}({}): Promise<{}>;\n", sig.join(", "), ret.text));
        class.push_str(&format!("{doc}  {name}({}): Promise<{}> {{\n    return this.call(\"{}\", {args});\n  }}\n", sig.join(", "), ret.text, c.name));
    }
    let list = |f: fn(&Command) -> bool| commands.iter().filter(|c| f(c)).map(|c| format!("\"{}\"", c.name)).collect::<Vec<_>>().join(", ");
    let mut out = String::from(HEADER_TS);
    out.push('\n');
    for t in &imports {
        out.push_str(&format!("import type {{ {t} }} from \"../bindings/{t}\";\n"));
    }
    out.push_str("\n/** Arguments as the UI sends them: a JSON object, camelCase names. */\nexport type Args = Record<string, unknown>;\n\n");
    out.push_str(&format!("/** Commands after which the backend's state differs (writes, the read-only switch, roots, marks). */\nexport const STATE_CHANGING: ReadonlySet<string> = new Set([{}]);\n\n", list(|c| c.changes_state)));
    out.push_str(&format!("/** Commands of the window only: `pi-session serve` refuses them (`window-only`). */\nexport const WINDOW_ONLY: ReadonlySet<string> = new Set([{}]);\n\n", list(|c| c.window_only)));
    out.push_str("/** Every command of the backend, typed. */\nexport interface CommandApi {\n");
    out.push_str(&api);
    out.push_str("}\n\n/** The commands over one `call`: a transport says only how a command travels. */\nexport abstract class Commands implements CommandApi {\n  /** Sends one command; rejects with an `ApiError`. */\n  protected abstract call<T>(command: string, args: Args): Promise<T>;\n\n");
    out.push_str(&class);
    out.push_str("}\n");
    out
}

/// `src-tauri/commands.gen.rs`.
pub fn tauri_list(commands: &[Command]) -> String {
    let mut out = String::from("// Generated from the command table (crates/pi-session-app/src/commands/table.rs) by\n// `scripts/bindings`: do not edit. The window's build script makes a permission of each.\nconst COMMANDS: &[&str] = &[\n");
    for c in commands {
        out.push_str(&format!("    \"{}\",\n", c.name));
    }
    out.push_str("];\n");
    out
}

/// `src-tauri/capabilities/default.json`.
pub fn capabilities(commands: &[Command]) -> String {
    let mut perms = vec!["core:event:allow-listen".to_string(), "core:event:allow-unlisten".to_string()];
    perms.extend(commands.iter().map(|c| format!("allow-{}", kebab(c.name))));
    let v = serde_json::json!({
        "$schema": "../../gen/schemas/desktop-schema.json",
        "identifier": "default",
        "description": "The main window: the app's own commands and event listening, nothing else. Generated from the command table by scripts/bindings.",
        "windows": ["main"],
        "permissions": perms,
    });
    serde_json::to_string_pretty(&v).expect("JSON") + "\n"
}

const BEGIN: &str = "<!-- commands: generated from crates/pi-session-app/src/commands/table.rs by scripts/bindings -->";
const END: &str = "<!-- end of commands -->";

/// `docs/ipc.md` with its command list made from the table (the rest as written).
pub fn ipc_doc(current: &str, commands: &[Command]) -> Result<String, String> {
    let (Some(b), Some(e)) = (current.find(BEGIN), current.find(END)) else {
        return Err(format!("docs/ipc.md: the markers {BEGIN} and {END} are missing"));
    };
    let mut table = String::from("\n| command | arguments | returns | |\n|---|---|---|---|\n");
    for c in commands {
        let args: Vec<String> = c.params.iter().map(|p| {
            let t = (p.ts)();
            format!("`{}{}: {}`", camel(p.name), if t.optional { "?" } else { "" }, t.text.replace('|', "\\|"))
        }).collect();
        let mut flags = Vec::new();
        if c.changes_state {
            flags.push("changes state");
        }
        if c.window_only {
            flags.push("window only");
        }
        let doc = c.doc.lines().map(str::trim).collect::<Vec<_>>().join(" ");
        let what = if flags.is_empty() { doc } else { format!("{} ({})", doc, flags.join(", ")).trim().to_string() };
        table.push_str(&format!("| `{}` | {} | `{}` | {} |\n", c.name, if args.is_empty() { "—".into() } else { args.join(", ") }, (c.returns)().text.replace('|', "\\|"), what.replace('|', "\\|")));
    }
    Ok(format!("{}{}\n{}{}", &current[..b + BEGIN.len()], table, END, &current[e + END.len()..]))
}

/// Every generated file as (path from the repository's root, contents).
pub fn files(repo: &Path) -> Result<Vec<(String, String)>, String> {
    let doc = std::fs::read_to_string(repo.join("docs/ipc.md")).map_err(|e| format!("docs/ipc.md: {e}"))?;
    Ok(vec![
        ("src-tauri/commands.gen.rs".into(), tauri_list(COMMANDS)),
        ("src-tauri/capabilities/default.json".into(), capabilities(COMMANDS)),
        ("ui/src/lib/backend/commands.gen.ts".into(), typescript(COMMANDS)),
        ("docs/ipc.md".into(), ipc_doc(&doc, COMMANDS)?),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `PI_GENERATE=write` writes the generated files, `PI_GENERATE=check` fails when one is
    /// stale (scripts/bindings); without it, only checks that they can be made.
    #[test]
    fn export_commands() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let files = files(&repo).unwrap();
        match std::env::var("PI_GENERATE").as_deref() {
            Ok("write") => {
                for (p, text) in &files {
                    std::fs::write(repo.join(p), text).unwrap();
                }
            }
            Ok("check") => {
                let stale: Vec<&str> = files.iter().filter(|(p, text)| std::fs::read_to_string(repo.join(p)).ok().as_deref() != Some(text.as_str())).map(|(p, _)| p.as_str()).collect();
                assert!(stale.is_empty(), "stale generated files (run scripts/bindings and commit): {stale:?}");
            }
            _ => {}
        }
    }

    #[test]
    fn names_and_types() {
        assert_eq!(camel("leaf_id"), "leafId");
        assert_eq!(kebab("set_label"), "set-label");
        let t = ts_type::<Option<Vec<crate::api::ContextMessage>>>();
        assert!(t.optional);
        assert_eq!(t.imports.iter().map(String::as_str).collect::<Vec<_>>(), ["ContextMessage"]);
        let ts = typescript(COMMANDS);
        assert!(ts.contains("  treePage(query: TreeQuery, start: number, count: number): Promise<TreePage> {\n    return this.call(\"tree_page\", { query, start, count });"), "{ts}");
        assert!(ts.contains("listSessions(limit?: number | null): Promise<SessionList>"), "{ts}");
        assert!(ts.contains("import type { TreeQuery } from \"../bindings/TreeQuery\";"));
    }

    /// Every command's name is unique and `snake_case`; its state flag agrees with the recorded
    /// answers' notion of a step.
    #[test]
    fn the_table_is_well_formed() {
        let mut seen = BTreeSet::new();
        for c in COMMANDS {
            assert!(seen.insert(c.name), "{} twice", c.name);
            assert!(c.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{}", c.name);
            assert!(!c.window_only || c.changes_state, "{}: window-only commands change state", c.name);
        }
    }
}

//! Pools of realistic text, already escaped for a JSON string, from which the generator
//! cuts slices. Slices start and end at spaces only: no escape sequence (`\n`, `\"`, `\\`,
//! `\t`) and no multi-byte UTF-8 character contains a space, so every slice is valid JSON
//! string content.

use crate::rng::Rng;

pub struct Pools {
    pub prose: Vec<u8>,
    pub code: Vec<u8>,
    pub log: Vec<u8>,
    pub base64: Vec<u8>,
}

#[rustfmt::skip]
const WORDS: &[&str] = &[
    "the", "a", "to", "of", "and", "in", "is", "that", "it", "for", "we", "this", "with", "on", "not", "be",
    "as", "function", "test", "file", "change", "error", "value", "config", "parser", "cache", "request",
    "response", "handler", "module", "build", "because", "should", "instead", "which", "when", "then", "after",
    "before", "returns", "called", "missing", "null", "undefined", "path", "string", "number", "array", "object",
    "type", "interface", "import", "export", "default", "async", "await", "promise", "callback", "retry",
    "timeout", "schema", "validation", "migration", "database", "index", "query", "column", "row", "user",
    "session", "token", "header", "body", "status", "code", "line", "output", "input", "loop", "branch", "merge",
    "commit", "refactor", "rename", "move", "split", "fix", "bug", "issue", "edge", "case", "empty", "large",
    "small", "fast", "slow", "memory", "leak", "allocation", "buffer", "stream", "chunk", "encoding", "UTF-8",
    "JSON", "CLI", "API", "HTTP", "CI", "Windows", "Linux", "macOS", "npm", "cargo", "pnpm", "vite", "tsconfig",
    "looks", "like", "seems", "probably", "actually", "first", "next", "finally", "also", "still", "only",
    "every", "each", "some", "all", "none", "both", "either", "let's", "I'll", "I've", "we're", "doesn't",
    "can't", "naïve", "café", "résumé", "→", "✓", "≥", "—", "“quoted”", "日本語", "🙂",
];

#[rustfmt::skip]
const IDENTS: &[&str] = &[
    
    "user", "session", "config", "parser", "cache", "entry", "tree", "node", "leaf", "path", "result", "value", "index", "count", "items", "options",
    "handler", "client", "server", "token", "buffer", "line", "offset", "parent", "child", "label", "model", "provider", "usage", "summary", "context",
    "message", "request",
];

#[rustfmt::skip]
const FILES: &[&str] = &[
    "src/index.ts", "src/cli.ts", "src/config.ts", "src/parser.ts", "src/cache.ts", "src/server/routes.ts",
    "src/db/migrate.ts", "src/lib/session.rs", "src/main.rs", "crates/core/src/tree.rs", "tests/parser.test.ts",
    "package.json", "Cargo.toml", "README.md", "docs/design.md", "scripts/release.sh", "web/src/App.svelte",
    "web/src/lib/api.ts", "internal/store/store.go", "cmd/server/main.go", "app/models/user.py",
];

fn push_words(out: &mut Vec<u8>, rng: &mut Rng, n: usize) {
    for i in 0..n {
        let w = rng.pick(WORDS);
        if i == 0 || rng.chance(0.04) {
            let mut c = w.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase().to_string().bytes());
                out.extend(c.as_str().bytes());
            }
        } else {
            out.extend(w.bytes());
        }
        if rng.chance(0.03) {
            out.extend(format!(" `{}`", rng.pick(FILES)).bytes());
        }
        out.push(if rng.chance(0.06) { b',' } else { b' ' });
        if out.last() == Some(&b',') {
            out.push(b' ');
        }
    }
}

fn prose(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 4096);
    while out.len() < size {
        let n = rng.range(6, 28) as usize;
        push_words(&mut out, rng, n);
        out.pop();
        out.extend(b". ");
        let r = rng.f64();
        if r < 0.12 {
            out.extend(b"\\n\\n");
            out.push(b' ');
        } else if r < 0.16 {
            out.extend(b"\\n- ");
        } else if r < 0.18 {
            out.extend(b"\\n## ");
        }
    }
    out.push(b' ');
    out
}

fn ident(rng: &mut Rng) -> String {
    let a = rng.pick(IDENTS);
    let b = rng.pick(IDENTS);
    let mut s = String::from(*a);
    let mut c = b.chars();
    if let Some(f) = c.next() {
        s.extend(f.to_uppercase());
        s.push_str(c.as_str());
    }
    s
}

fn code(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 4096);
    let mut line_no = 1u32;
    while out.len() < size {
        let indent = ["", "  ", "    ", "      ", "\\t"][rng.index(5)];
        let line = match rng.below(10) {
            0 => format!("import {{ {} }} from \\\"./{}\\\";", ident(rng), rng.pick(IDENTS)),
            1 => format!(
                "export function {}({}: string, {}?: number): {} {{",
                ident(rng),
                rng.pick(IDENTS),
                rng.pick(IDENTS),
                ["void", "string", "Promise<void>", "boolean"][rng.index(4)]
            ),
            2 => format!("const {} = await {}.{}({}, {});", ident(rng), rng.pick(IDENTS), ident(rng), rng.pick(IDENTS), rng.below(1000)),
            3 => format!("if ({}.length > {} && !{}) {{", rng.pick(IDENTS), rng.below(64), ident(rng)),
            4 => format!("throw new Error(`{} failed: ${{{}}}`);", rng.pick(IDENTS), rng.pick(IDENTS)),
            5 => "}".to_string(),
            6 => format!("// {}", {
                let mut v = Vec::new();
                push_words(&mut v, rng, 8);
                String::from_utf8(v).unwrap()
            }),
            7 => format!("return {{ {}: {}, {}: \\\"{}\\\" }};", rng.pick(IDENTS), rng.below(100), rng.pick(IDENTS), rng.pick(WORDS)),
            8 => format!("let {} = {}.map((x) => x.{} * {});", ident(rng), rng.pick(IDENTS), rng.pick(IDENTS), rng.below(9) + 1),
            _ => format!("{}.set(\\\"{}\\\", {});", rng.pick(IDENTS), ident(rng), rng.below(100_000)),
        };
        if rng.chance(0.3) {
            out.extend(format!("{line_no:>5}\\t").bytes());
        }
        out.extend(indent.bytes());
        out.extend(line.bytes());
        out.extend(b"\\n ");
        line_no += 1;
    }
    out
}

fn log(rng: &mut Rng, size: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 4096);
    let mut t = 0u64;
    while out.len() < size {
        t += rng.below(900);
        let lvl = ["INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"][rng.index(6)];
        let line = match rng.below(6) {
            0 => format!(
                "[{:02}:{:02}:{:02}.{:03}] {lvl} {} {} in {}ms",
                t / 3_600_000 % 24,
                t / 60_000 % 60,
                t / 1000 % 60,
                t % 1000,
                rng.pick(IDENTS),
                ["started", "finished", "retrying", "skipped"][rng.index(4)],
                rng.below(5000)
            ),
            1 => format!("  ✓ {} {} ({} ms)", rng.pick(IDENTS), rng.pick(WORDS), rng.below(300)),
            2 => format!("{}:{}:{}: warning: unused variable `{}`", rng.pick(FILES), rng.below(900) + 1, rng.below(80) + 1, ident(rng)),
            3 => format!("    at {} ({}:{}:{})", ident(rng), rng.pick(FILES), rng.below(900) + 1, rng.below(80) + 1),
            4 => format!(
                "drwxr-xr-x  {} user staff  {:>6} Mar  {} 12:{:02} {}",
                rng.below(9) + 1,
                rng.below(100_000),
                rng.below(28) + 1,
                rng.below(60),
                rng.pick(FILES)
            ),
            _ => format!("{}:{}:  const {} = {};", rng.pick(FILES), rng.below(900) + 1, ident(rng), rng.below(1000)),
        };
        out.extend(line.bytes());
        out.extend(b"\\n ");
    }
    out
}

fn base64(rng: &mut Rng, size: usize) -> Vec<u8> {
    const B: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..size).map(|_| B[(rng.next_u32() >> 26) as usize]).collect()
}

impl Pools {
    pub fn new(seed: u64) -> Pools {
        let mut rng = Rng::derive(seed, 0x7e47, 0);
        Pools { prose: prose(&mut rng, 1 << 20), code: code(&mut rng, 1 << 20), log: log(&mut rng, 1 << 20), base64: base64(&mut rng, 1 << 19) }
    }
}

/// About `len` bytes of `pool`, cut at spaces (see the module note). Never empty.
pub fn cut<'a>(pool: &'a [u8], rng: &mut Rng, len: usize) -> &'a [u8] {
    let len = len.clamp(1, pool.len() / 2);
    let mut start = rng.index(pool.len() - len - 256);
    while pool[start] != b' ' {
        start += 1;
    }
    start += 1;
    let mut end = (start + len).min(pool.len() - 1);
    while end < pool.len() - 1 && pool[end] != b' ' {
        end += 1;
    }
    if end <= start {
        end = start + 1;
        while pool[end] != b' ' {
            end += 1;
        }
    }
    // Never end on a dangling escape or the space itself.
    &pool[start..end]
}

/// `len` base64 characters (a multiple of 4).
pub fn cut_base64<'a>(pool: &'a [u8], rng: &mut Rng, len: usize) -> &'a [u8] {
    let len = (len.min(pool.len() - 4) / 4 * 4).max(4);
    let start = rng.index(pool.len() - len);
    &pool[start..start + len]
}

pub fn pick_file(rng: &mut Rng) -> &'static str {
    FILES[rng.index(FILES.len())]
}

pub fn pick_ident(rng: &mut Rng) -> String {
    ident(rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_valid_json_strings() {
        let p = Pools::new(3);
        let mut rng = Rng::new(9);
        for pool in [&p.prose, &p.code, &p.log] {
            for len in [1usize, 10, 100, 1000, 50_000, 300_000] {
                for _ in 0..20 {
                    let s = cut(pool, &mut rng, len);
                    let mut j = Vec::from(&b"\""[..]);
                    j.extend_from_slice(s);
                    j.push(b'"');
                    let v: serde_json::Value = serde_json::from_slice(&j).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(s)));
                    assert!(v.as_str().is_some());
                    assert!(!s.is_empty());
                }
            }
        }
    }
}

//! The corpus generator: realistic pi v3 sessions directories, deterministic per seed.
//!
//! Layout written: `OUT/sessions/--<encoded cwd>--/<ts>_<uuid v7>.jsonl` (pi's own layout, so
//! `PI_CODING_AGENT_DIR=OUT` points pi at it) and `OUT/corpus.json` (what was written).
//!
//! Files come in *families*: a session and the forks made from it (5 deep at most). A fork
//! is a separate file whose header's `parentSession` is the parent's absolute path and whose
//! first lines are the parent's root→X path copied byte for byte. Inside a file, sessions
//! branch (a user re-asking from an earlier node, sometimes with a `branch_summary`), get
//! compacted when their context grows, change model and thinking level, get labels and names.

use crate::lines::{self, Assistant, Block, Usage};
use crate::rng::Rng;
use crate::text::{self, Pools};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Kind {
    User,
    AssistantTool,
    AssistantStop,
    ToolResult,
    Bash,
    ModelChange,
    ThinkingLevel,
    Compaction,
    BranchSummary,
    Label,
    SessionInfo,
    Custom,
    CustomMessage,
}

pub const KINDS: [(&str, Kind); 13] = [
    ("message/user", Kind::User),
    ("message/assistant (toolUse)", Kind::AssistantTool),
    ("message/assistant (stop)", Kind::AssistantStop),
    ("message/toolResult", Kind::ToolResult),
    ("message/bashExecution", Kind::Bash),
    ("model_change", Kind::ModelChange),
    ("thinking_level_change", Kind::ThinkingLevel),
    ("compaction", Kind::Compaction),
    ("branch_summary", Kind::BranchSummary),
    ("label", Kind::Label),
    ("session_info", Kind::SessionInfo),
    ("custom", Kind::Custom),
    ("custom_message", Kind::CustomMessage),
];

#[derive(Clone, Copy)]
struct Node {
    off: usize,
    len: u32,
    parent: u32,
    id: u32,
    kind: Kind,
    depth: u32,
    /// Bytes of context at this node (since the last compaction on its path).
    ctx: u64,
}

struct Model {
    provider: &'static str,
    api: &'static str,
    id: &'static str,
    price: [f64; 4],
}

const MODELS: &[Model] = &[
    Model { provider: "anthropic", api: "anthropic-messages", id: "claude-sonnet-4-5", price: [3.0, 15.0, 0.3, 3.75] },
    Model { provider: "anthropic", api: "anthropic-messages", id: "claude-opus-4-5", price: [5.0, 25.0, 0.5, 6.25] },
    Model { provider: "openai", api: "openai-responses", id: "gpt-5.1-codex", price: [1.25, 10.0, 0.125, 0.0] },
    Model { provider: "google", api: "google-generative-ai", id: "gemini-2.5-pro", price: [1.25, 10.0, 0.31, 0.0] },
    Model { provider: "anthropic", api: "anthropic-messages", id: "claude-haiku-4-5", price: [1.0, 5.0, 0.1, 1.25] },
];
const THINKING: &[&str] = &["off", "minimal", "low", "medium", "high"];
const LABELS: &[&str] = &["checkpoint", "good", "before-refactor", "bug", "wip", "v1", "todo", "keep", "works ✓", "try again"];
const NAMES: &[&str] = &[
    "Fix login bug",
    "Refactor config loader",
    "CI hangs on Windows",
    "Add JSON output",
    "Migrate to zod",
    "Investigate memory leak",
    "Release 2.0 prep",
    "Session tree perf",
    "Write docs for the API",
    "Flaky test hunt",
];

/// One session file being built.
struct Doc {
    buf: Vec<u8>,
    nodes: Vec<Node>,
    ids: HashSet<u32>,
    tip: u32,
    now: i64,
    model: usize,
    thinking: usize,
    path: PathBuf,
    fork_depth: u32,
    /// Node count at the end of the copied prefix (forks).
    copied: usize,
    turns: u32,
}

impl Doc {
    fn new(rng: &mut Rng, dir: &Path, cwd: &str, ts: i64, parent_session: Option<&Path>) -> Doc {
        let sid = lines::uuid_v7(ts, rng.next_u64(), rng.next_u64());
        let path = dir.join(lines::file_name(ts, &sid));
        let mut buf = Vec::with_capacity(64 * 1024);
        lines::header(&mut buf, &sid, ts, cwd, parent_session.map(|p| p.to_str().expect("utf-8 path")));
        Doc { buf, nodes: Vec::new(), ids: HashSet::new(), tip: NONE, now: ts, model: 0, thinking: 0, path, fork_depth: 0, copied: 0, turns: 0 }
    }

    fn new_id(&mut self, rng: &mut Rng) -> u32 {
        loop {
            let id = rng.next_u32();
            if self.ids.insert(id) {
                return id;
            }
        }
    }

    fn parent_of(&self, i: u32) -> u32 {
        self.nodes[i as usize].parent
    }

    /// Appends one line written by `f(buf, id, parentId)` as a child of the tip.
    fn push(&mut self, rng: &mut Rng, kind: Kind, f: impl FnOnce(&mut Vec<u8>, u32, Option<u32>)) -> u32 {
        self.push_under(rng, kind, self.tip, f)
    }

    fn push_under(&mut self, rng: &mut Rng, kind: Kind, parent: u32, f: impl FnOnce(&mut Vec<u8>, u32, Option<u32>)) -> u32 {
        let id = self.new_id(rng);
        let off = self.buf.len();
        let pid = (parent != NONE).then(|| self.nodes[parent as usize].id);
        f(&mut self.buf, id, pid);
        let len = (self.buf.len() - off) as u32;
        let (depth, pctx) = if parent == NONE { (0, 0) } else { (self.nodes[parent as usize].depth + 1, self.nodes[parent as usize].ctx) };
        let ix = self.nodes.len() as u32;
        self.nodes.push(Node { off, len, parent, id, kind, depth, ctx: pctx + len as u64 });
        self.tip = ix;
        ix
    }

    fn tick(&mut self, rng: &mut Rng, lo: i64, hi: i64) -> i64 {
        self.now += rng.range(lo as u64, hi as u64) as i64;
        self.now
    }

    /// The path root→`x` as node indices.
    fn path_to(&self, x: u32) -> Vec<u32> {
        let mut p = Vec::new();
        let mut i = x;
        while i != NONE {
            p.push(i);
            i = self.nodes[i as usize].parent;
        }
        p.reverse();
        p
    }

    /// A fork of this file at `x`: header + the root→x lines byte for byte.
    fn fork(&self, rng: &mut Rng, dir: &Path, cwd: &str, ts: i64, x: u32) -> Doc {
        let mut d = Doc::new(rng, dir, cwd, ts, Some(&self.path));
        for (k, &i) in self.path_to(x).iter().enumerate() {
            let n = self.nodes[i as usize];
            let off = d.buf.len();
            d.buf.extend_from_slice(&self.buf[n.off..n.off + n.len as usize]);
            d.ids.insert(n.id);
            d.nodes.push(Node { off, parent: if k == 0 { NONE } else { k as u32 - 1 }, ..n });
        }
        d.tip = d.nodes.len() as u32 - 1;
        d.copied = d.nodes.len();
        d.model = self.model;
        d.thinking = self.thinking;
        d.fork_depth = self.fork_depth + 1;
        d
    }
}

/// Size classes of the generated lines: normal sessions, the big file's leaner mix, or short
/// tool-heavy sessions (normal lines, but short tool results: about 1.5 KB per entry).
#[derive(Clone, Copy, PartialEq)]
enum Mix {
    Normal,
    Big,
    Short,
}

struct Gen<'a> {
    rng: Rng,
    pools: &'a Pools,
    mix: Mix,
    /// Re-asks inside `turn` (the big file branches through excursions instead).
    reask: bool,
}

impl<'a> Gen<'a> {
    fn tool_call_id(&mut self, provider: &str) -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let (prefix, n) = if provider == "anthropic" { ("toolu_01", 22) } else { ("call_", 24) };
        let mut s = String::from(prefix);
        for _ in 0..n {
            s.push(A[self.rng.index(A.len())] as char);
        }
        s
    }

    fn prose(&mut self, len: usize) -> &'a [u8] {
        text::cut(&self.pools.prose, &mut self.rng, len)
    }

    fn code(&mut self, len: usize) -> &'a [u8] {
        text::cut(&self.pools.code, &mut self.rng, len)
    }

    fn log(&mut self, len: usize) -> &'a [u8] {
        text::cut(&self.pools.log, &mut self.rng, len)
    }

    fn usage(&mut self, d: &Doc, output_chars: usize) -> Usage {
        let m = &MODELS[d.model];
        let ctx_tokens = d.nodes.get(d.tip as usize).map(|n| n.ctx / 4).unwrap_or(0) + 4_000 + self.rng.below(2_000);
        let output = output_chars as u64 / 4 + self.rng.range(10, 400);
        let (input, cache_read, cache_write) = if m.provider == "anthropic" {
            let fresh = self.rng.range(3, 3_000).min(ctx_tokens);
            (self.rng.range(1, 12), ctx_tokens - fresh, fresh)
        } else {
            let cached = ctx_tokens * self.rng.range(0, 90) / 100;
            (ctx_tokens - cached, cached, 0)
        };
        Usage { input, output, cache_read, cache_write, price: m.price }
    }

    fn tool_result_len(&mut self) -> usize {
        let r = self.rng.f64();
        (match self.mix {
            Mix::Normal => {
                if r < 0.30 {
                    self.rng.range(150, 1_000)
                } else if r < 0.72 {
                    self.rng.range(1_000, 4_000)
                } else if r < 0.92 {
                    self.rng.log_uniform(4_000, 20_000)
                } else {
                    self.rng.log_uniform(20_000, 200_000)
                }
            }
            Mix::Short => {
                if r < 0.38 {
                    self.rng.range(100, 900)
                } else if r < 0.90 {
                    self.rng.range(900, 3_000)
                } else {
                    self.rng.log_uniform(3_000, 11_000)
                }
            }
            Mix::Big => {
                if r < 0.62 {
                    self.rng.range(60, 500)
                } else if r < 0.97 {
                    self.rng.range(500, 1_600)
                } else {
                    self.rng.log_uniform(2_000, 12_000)
                }
            }
        }) as usize
    }

    /// One tool call's name, arguments, and the result it produced.
    fn tool(&mut self) -> (&'static str, Vec<u8>, Vec<u8>, Option<Vec<u8>>) {
        let file = text::pick_file(&mut self.rng);
        let mut args = Vec::new();
        let mut details = None;
        let r = self.rng.below(100);
        let (name, result): (&'static str, Vec<u8>) = if r < 34 {
            args.extend(b"{\"path\":");
            lines::push_json_str(&mut args, file);
            if self.rng.chance(0.3) {
                args.extend(format!(",\"offset\":{},\"limit\":{}", self.rng.range(1, 400), self.rng.range(20, 300)).bytes());
            }
            args.push(b'}');
            let n = self.tool_result_len();
            ("read", self.code(n).to_vec())
        } else if r < 64 {
            let cmd = [
                "npm test",
                "npm run build 2>&1 | tail -50",
                "cargo test --workspace",
                "git status && git diff --stat",
                "ls -la src",
                "rg -n \\\"TODO\\\" src",
                "pnpm lint",
                "go test ./...",
                "python -m pytest -x",
                "cat package.json",
            ][self.rng.index(10)];
            args.extend(b"{\"command\":\"");
            args.extend(cmd.bytes());
            args.push(b'"');
            if self.rng.chance(0.2) {
                args.extend(b",\"timeout\":120");
            }
            args.push(b'}');
            let n = self.tool_result_len();
            let out = self.log(n).to_vec();
            if out.len() > 50_000 {
                let tmp = format!("/tmp/pi-bash-{:08x}.log", self.rng.next_u32());
                details = Some(
                    format!(
                        "{{\"truncation\":{{\"content\":\"\",\"truncated\":true,\"truncatedBy\":\"bytes\",\"totalLines\":{},\"totalBytes\":{},\"outputLines\":2000,\"outputBytes\":51200}},\"fullOutputPath\":\"{tmp}\"}}",
                        out.len() / 60,
                        out.len()
                    )
                    .into_bytes(),
                );
            }
            ("bash", out)
        } else if r < 84 {
            let (n_old, n_new) = (self.rng.range(40, 500) as usize, self.rng.range(40, 600) as usize);
            let old = self.code(n_old).to_vec();
            let new = self.code(n_new).to_vec();
            args.extend(b"{\"path\":");
            lines::push_json_str(&mut args, file);
            args.extend(b",\"oldText\":\"");
            args.extend(&old);
            args.extend(b"\",\"newText\":\"");
            args.extend(&new);
            args.extend(b"\"}");
            let diff_len = match self.mix {
                Mix::Normal | Mix::Short => self.rng.range(200, 2_500),
                Mix::Big => self.rng.range(60, 500),
            } as usize;
            let mut d = Vec::from(&b"{\"diff\":\""[..]);
            d.extend(self.code(diff_len));
            d.extend(format!("\",\"firstChangedLine\":{}}}", self.rng.range(1, 900)).bytes());
            details = Some(d);
            ("edit", format!("Successfully replaced text in {file}.").into_bytes())
        } else if r < 91 {
            let n = match self.mix {
                Mix::Normal | Mix::Short => self.rng.log_uniform(300, 8_000),
                Mix::Big => self.rng.range(100, 900),
            } as usize;
            let content = self.code(n).to_vec();
            args.extend(b"{\"path\":");
            lines::push_json_str(&mut args, file);
            args.extend(b",\"content\":\"");
            args.extend(&content);
            args.extend(b"\"}");
            ("write", format!("Successfully wrote {} bytes to {file}", content.len()).into_bytes())
        } else {
            let ident = text::pick_ident(&mut self.rng);
            args.extend(format!("{{\"pattern\":\"{ident}\",\"path\":\"src\"}}").bytes());
            let n = self.tool_result_len() / 2 + 20;
            ("grep", self.log(n).to_vec())
        };
        (name, args, result, details)
    }

    fn thinking_block(&mut self, d: &Doc) -> Option<(&'a [u8], Option<&'a [u8]>)> {
        let p = if self.mix == Mix::Big { 0.25 } else { 0.4 };
        if d.thinking == 0 || !self.rng.chance(p) {
            return None;
        }
        let n = match self.mix {
            Mix::Normal | Mix::Short => self.rng.log_uniform(80, 2_500),
            Mix::Big => self.rng.range(40, 300),
        } as usize;
        let t = self.prose(n);
        let sig = (MODELS[d.model].provider == "anthropic").then(|| {
            let n = self.rng.range(200, 600) as usize;
            text::cut_base64(&self.pools.base64, &mut self.rng, n)
        });
        Some((t, sig))
    }

    fn assistant(&mut self, d: &mut Doc, calls: &[(String, &'static str, Vec<u8>)], text_len: usize) -> u32 {
        let ts = d.tick(&mut self.rng, 1_500, 40_000);
        let think = self.thinking_block(d);
        let text = (text_len > 0).then(|| self.prose(text_len));
        let mut blocks = Vec::with_capacity(calls.len() + 2);
        if let Some((t, s)) = think {
            blocks.push(Block::Thinking { text: t, signature: s });
        }
        if let Some(t) = text {
            blocks.push(Block::Text(t));
        }
        for (id, name, args) in calls {
            blocks.push(Block::ToolCall { id, name, arguments: args });
        }
        let out_chars = text.map_or(0, |t| t.len()) + calls.iter().map(|c| c.2.len()).sum::<usize>();
        let usage = self.usage(d, out_chars);
        let m = &MODELS[d.model];
        let kind = if calls.is_empty() { Kind::AssistantStop } else { Kind::AssistantTool };
        let a = Assistant {
            blocks: &blocks,
            api: m.api,
            provider: m.provider,
            model: m.id,
            usage,
            stop_reason: if calls.is_empty() { "stop" } else { "toolUse" },
            ts,
        };
        d.push(&mut self.rng, kind, |b, id, p| lines::message_assistant(b, id, p, &a))
    }

    fn user(&mut self, d: &mut Doc) -> u32 {
        let ts = d.tick(&mut self.rng, 5_000, 400_000);
        let r = self.rng.f64();
        let (text, image) = match self.mix {
            Mix::Normal | Mix::Short if r < 0.08 => {
                let n = self.rng.log_uniform(1_000, 8_000) as usize;
                (self.log(n), None)
            }
            Mix::Normal | Mix::Short if r < 0.084 => {
                let n = self.rng.log_uniform(30_000, 300_000) as usize;
                let n2 = self.rng.range(20, 200) as usize;
                (self.prose(n2), Some(("image/png", text::cut_base64(&self.pools.base64, &mut self.rng, n))))
            }
            Mix::Normal | Mix::Short => {
                let n = self.rng.log_uniform(30, 700) as usize;
                (self.prose(n), None)
            }
            Mix::Big => {
                let n = self.rng.log_uniform(30, 400) as usize;
                (self.prose(n), None)
            }
        };
        let blocks = self.rng.chance(0.8);
        d.push(&mut self.rng, Kind::User, |b, id, p| lines::message_user(b, id, p, ts, text, blocks, image))
    }

    /// The first entries pi writes: the model, and the thinking level when not off.
    fn start(&mut self, d: &mut Doc) {
        d.model = [0, 0, 0, 1, 2, 3, 4][self.rng.index(7)];
        d.thinking = [0, 2, 3, 3, 4][self.rng.index(5)];
        let ts = d.tick(&mut self.rng, 1, 50);
        let m = &MODELS[d.model];
        d.push(&mut self.rng, Kind::ModelChange, |b, id, p| lines::model_change(b, id, p, ts, m.provider, m.id));
        if d.thinking != 0 {
            let ts = d.tick(&mut self.rng, 1, 5);
            let t = THINKING[d.thinking];
            d.push(&mut self.rng, Kind::ThinkingLevel, |b, id, p| lines::thinking_level_change(b, id, p, ts, t));
        }
    }

    /// User nodes on the path from the tip back, newest first, stopping at a compaction.
    fn recent_users(&self, d: &Doc, want: usize, max_walk: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut i = d.tip;
        let mut walked = 0;
        while i != NONE && out.len() < want && walked < max_walk {
            let n = &d.nodes[i as usize];
            match n.kind {
                Kind::User => out.push(i),
                Kind::Compaction => break,
                _ => {}
            }
            i = n.parent;
            walked += 1;
        }
        out
    }

    fn maybe_compact(&mut self, d: &mut Doc, threshold: u64) {
        let ctx = d.nodes[d.tip as usize].ctx;
        if ctx < threshold {
            return;
        }
        let users = self.recent_users(d, 4, 5_000);
        if users.len() < 2 {
            return;
        }
        let keep_turns = self.rng.range(1, users.len() as u64 - 1) as usize;
        let first = users[keep_turns];
        let kept = ctx - d.nodes[first as usize].ctx + d.nodes[first as usize].len as u64;
        let n = match self.mix {
            Mix::Normal | Mix::Short => self.rng.range(1_500, 6_000),
            Mix::Big => self.rng.range(600, 2_000),
        } as usize;
        let mut summary = Vec::from(&b"## Goal\\n"[..]);
        summary.extend(self.prose(n / 5));
        summary.extend(b"\\n\\n## Progress\\n### Done\\n- ");
        summary.extend(self.prose(n / 2));
        summary.extend(b"\\n\\n## Next Steps\\n1. ");
        summary.extend(self.prose(n / 4));
        let read: Vec<&str> = (0..self.rng.range(0, 6)).map(|_| text::pick_file(&mut self.rng)).collect();
        let modified: Vec<&str> = (0..self.rng.range(0, 4)).map(|_| text::pick_file(&mut self.rng)).collect();
        let first_id = d.nodes[first as usize].id;
        let ts = d.tick(&mut self.rng, 5_000, 60_000);
        let tokens_before = ctx / 4 + 4_000 + self.rng.below(2_000);
        let slen = summary.len() as u64;
        let c = d.push(&mut self.rng, Kind::Compaction, |b, id, p| lines::compaction(b, id, p, ts, &summary, first_id, tokens_before, &read, &modified));
        d.nodes[c as usize].ctx = slen + kept;
    }

    /// A user re-asking from an earlier node: the tip moves to the parent of an earlier user
    /// message, sometimes with a `branch_summary` of the abandoned branch.
    fn reask(&mut self, d: &mut Doc) {
        let users = self.recent_users(d, 12, 600);
        if users.len() < 2 {
            return;
        }
        let u = users[self.rng.range(1, users.len() as u64 - 1) as usize];
        let at = d.parent_of(u);
        if self.rng.chance(0.3) {
            let n = self.rng.log_uniform(150, 1_500) as usize;
            let s = self.prose(n);
            let ts = d.tick(&mut self.rng, 2_000, 30_000);
            let det: Option<(Vec<&str>, Vec<&str>)> =
                self.rng.chance(0.5).then(|| (vec![text::pick_file(&mut self.rng)], vec![text::pick_file(&mut self.rng)]));
            d.push_under(&mut self.rng, Kind::BranchSummary, at, |b, id, p| {
                lines::branch_summary(b, id, p, ts, s, det.as_ref().map(|(r, m)| (&r[..], &m[..])))
            });
        } else {
            d.tip = at;
        }
    }

    /// One turn: extras, a user message, tool rounds, a final answer.
    /// Near `target` bytes the turn gets fewer tool rounds, so that small sessions stay small.
    fn turn(&mut self, d: &mut Doc, compact_at: u64, target: usize) {
        if self.reask && d.nodes.len() > d.copied + 8 && self.rng.chance(0.05) {
            self.reask(d);
        }
        if self.rng.chance(0.03) {
            // Resumed another day.
            d.tick(&mut self.rng, 3_600_000, 3 * 86_400_000);
        }
        if self.rng.chance(0.015) {
            d.model = self.rng.index(MODELS.len());
            let m = &MODELS[d.model];
            let ts = d.tick(&mut self.rng, 500, 20_000);
            d.push(&mut self.rng, Kind::ModelChange, |b, id, p| lines::model_change(b, id, p, ts, m.provider, m.id));
        }
        if self.rng.chance(0.015) {
            d.thinking = self.rng.index(THINKING.len());
            let t = THINKING[d.thinking];
            let ts = d.tick(&mut self.rng, 500, 20_000);
            d.push(&mut self.rng, Kind::ThinkingLevel, |b, id, p| lines::thinking_level_change(b, id, p, ts, t));
        }
        if self.rng.chance(0.02) {
            let n = match self.mix {
                Mix::Normal | Mix::Short => self.rng.log_uniform(50, 5_000),
                Mix::Big => self.rng.range(30, 600),
            } as usize;
            let out = self.log(n);
            let ts = d.tick(&mut self.rng, 2_000, 60_000);
            let cmd: &[u8] = [&b"git log --oneline -5"[..], b"npm test", b"ls", b"cargo check"][self.rng.index(4)];
            let exclude = self.rng.chance(0.2);
            let code = if self.rng.chance(0.8) { 0 } else { 1 };
            d.push(&mut self.rng, Kind::Bash, |b, id, p| lines::message_bash(b, id, p, ts, cmd, out, code, exclude));
        }
        self.user(d);
        let rounds = if self.rng.chance(0.2) { 0 } else { (1 + (-(self.rng.f64().max(1e-9)).ln() * 2.5) as usize).min(25) };
        let rounds = rounds.min(target.saturating_sub(d.buf.len()) / 6_000 + usize::from(self.rng.chance(0.3)));
        for _ in 0..rounds {
            if d.buf.len() >= target {
                break;
            }
            let n_calls = if self.rng.chance(0.15) { self.rng.range(2, 3) as usize } else { 1 };
            let provider = MODELS[d.model].provider;
            let mut calls = Vec::with_capacity(n_calls);
            let mut results = Vec::with_capacity(n_calls);
            for _ in 0..n_calls {
                let (name, args, result, details) = self.tool();
                let cid = self.tool_call_id(provider);
                results.push((cid.clone(), name, result, details));
                calls.push((cid, name, args));
            }
            let text_len = if self.rng.chance(0.5) {
                match self.mix {
                    Mix::Normal | Mix::Short => self.rng.log_uniform(40, 500),
                    Mix::Big => self.rng.range(30, 250),
                }
            } else {
                0
            } as usize;
            self.assistant(d, &calls, text_len);
            for (cid, name, result, details) in &results {
                let ts = d.tick(&mut self.rng, 30, 20_000);
                let err = self.rng.chance(0.05);
                d.push(&mut self.rng, Kind::ToolResult, |b, id, p| lines::message_tool_result(b, id, p, ts, cid, name, result, details.as_deref(), err));
            }
        }
        let text_len = match self.mix {
            Mix::Normal | Mix::Short if self.rng.chance(0.05) => self.rng.log_uniform(1_500, 4_000),
            Mix::Normal | Mix::Short => self.rng.log_uniform(250, 900),
            Mix::Big => self.rng.log_uniform(200, 700),
        } as usize;
        self.assistant(d, &[], text_len);
        // Bookkeeping entries after the answer.
        d.turns += 1;
        if d.turns == 1 && self.rng.chance(0.25) || self.rng.chance(0.003) {
            let name = *self.rng.pick(NAMES);
            let ts = d.tick(&mut self.rng, 100, 5_000);
            d.push(&mut self.rng, Kind::SessionInfo, |b, id, p| lines::session_info(b, id, p, ts, name));
        }
        if self.rng.chance(0.02) {
            // An entry on the current path (so that forks, which copy the path, keep it).
            let mut t = d.tip;
            for _ in 0..self.rng.below(40) {
                let p = d.parent_of(t);
                if p == NONE {
                    break;
                }
                t = p;
            }
            let target = d.nodes[t as usize].id;
            let l = (!self.rng.chance(0.1)).then(|| *self.rng.pick(LABELS));
            let ts = d.tick(&mut self.rng, 1_000, 30_000);
            d.push(&mut self.rng, Kind::Label, |b, id, p| lines::label(b, id, p, ts, target, l));
        }
        if self.rng.chance(0.02) {
            let data = format!(
                "{{\"items\":[{{\"text\":\"{}\",\"done\":{}}},{{\"text\":\"run the tests\",\"done\":false}}]}}",
                text::pick_ident(&mut self.rng),
                self.rng.chance(0.5)
            );
            let ts = d.tick(&mut self.rng, 1, 100);
            d.push(&mut self.rng, Kind::Custom, |b, id, p| lines::custom(b, id, p, ts, "todo-extension", data.as_bytes()));
        }
        if self.rng.chance(0.01) {
            let n = self.rng.log_uniform(40, 400) as usize;
            let c = self.prose(n);
            let display = self.rng.chance(0.7);
            let ts = d.tick(&mut self.rng, 100, 10_000);
            d.push(&mut self.rng, Kind::CustomMessage, |b, id, p| {
                lines::custom_message(b, id, p, ts, "reminder", c, display, Some(b"{\"source\":\"reminder-ext\"}"))
            });
        }
        self.maybe_compact(d, compact_at);
    }

    fn compact_threshold(&mut self) -> u64 {
        self.rng.range(400_000, 800_000)
    }

    /// Fills `d` with turns until it holds at least `target` bytes.
    fn fill(&mut self, d: &mut Doc, target: usize) {
        let compact_at = self.compact_threshold();
        if d.nodes.is_empty() {
            self.start(d);
        }
        loop {
            self.turn(d, compact_at, target);
            if d.buf.len() >= target {
                break;
            }
        }
    }
}

// ---------------------------------------------------------------- plan

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Small,
    Medium,
    Large,
    /// Short, tool-heavy sessions: about 1.5 KB per entry.
    Short,
}

impl Profile {
    pub fn parse(s: &str) -> Option<Profile> {
        match s {
            "small" => Some(Profile::Small),
            "medium" => Some(Profile::Medium),
            "large" => Some(Profile::Large),
            "short" => Some(Profile::Short),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Small => "small",
            Profile::Medium => "medium",
            Profile::Large => "large",
            Profile::Short => "short",
        }
    }

    /// (files, total bytes)
    pub fn size(self) -> (usize, u64) {
        match self {
            Profile::Small => (50, 25_000_000),
            Profile::Medium => (500, 250_000_000),
            Profile::Large | Profile::Short => (10_000, 5_000_000_000),
        }
    }
}

pub struct Options {
    /// The agent dir: sessions go to `out/sessions`.
    pub out: PathBuf,
    pub seed: u64,
    pub files: usize,
    pub total_bytes: u64,
    /// Entries of the big file (200,000 for the real thing); `None` = no big file.
    pub big_entries: Option<usize>,
    pub threads: usize,
    /// Short tool-heavy entries (the `short` profile) instead of the normal mix.
    pub short: bool,
}

struct PlannedFile {
    /// Index in the family of the file this one forks, if a fork.
    parent: Option<usize>,
    target: usize,
    cwd: usize,
}

struct Family {
    start: i64,
    files: Vec<PlannedFile>,
}

fn make_cwds(rng: &mut Rng, n: usize) -> Vec<String> {
    #[rustfmt::skip]
    const PROJ: &[&str] = &[
        "webapp", "api", "cli-tool", "infra", "docs", "mobile", "ml-pipeline", "game",
        "dotfiles", "blog", "compiler", "scraper", "dashboard", "sdk", "monorepo",
    ];
    (0..n)
        .map(|i| {
            let p = format!("{}{}", PROJ[i % PROJ.len()], if i < PROJ.len() { String::new() } else { format!("-{}", i / PROJ.len()) });
            match rng.below(100) {
                0..=54 => format!("/home/user/src/{p}"),
                55..=79 => format!("/home/user/work/{}/{p}", ["acme", "globex", "initech"][rng.index(3)]),
                80..=93 => format!("/Users/dev/Projects/{p}"),
                94..=95 => format!("C:\\Users\\dev\\src\\{p}"),
                96..=97 => format!("/home/user/My Projects/{p}"),
                _ => format!("/home/user/src/{p}-ü/data:pipeline"),
            }
        })
        .collect()
}

fn plan(seed: u64, files: usize, total: u64, n_cwds: usize) -> Vec<Family> {
    let mut rng = Rng::derive(seed, 0x91a4, 0);
    const T0: i64 = 1_740_787_200_000; // 2025-03-01
    const YEAR: u64 = 365 * 86_400_000;
    let mut fams = Vec::new();
    let mut left = files;
    let zipf = |rng: &mut Rng| ((n_cwds as f64) * rng.f64().powf(2.5)) as usize % n_cwds;
    while left > 0 {
        let cwd = zipf(&mut rng);
        let mut fam = Family { start: T0 + rng.below(YEAR) as i64, files: vec![PlannedFile { parent: None, target: 0, cwd }] };
        left -= 1;
        if fams.is_empty() && left >= 5 {
            // One fork chain 5 deep in every corpus.
            for k in 0..5 {
                fam.files.push(PlannedFile { parent: Some(k), target: 0, cwd });
            }
            left -= 5;
        } else if rng.chance(0.04) {
            let mut queue = vec![(0usize, 0u32)];
            while let Some((f, depth)) = queue.pop() {
                if depth >= 5 || left == 0 {
                    continue;
                }
                let kids = if depth == 0 { rng.range(1, 3) } else { [0, 0, 0, 1, 1, 2][rng.index(6)] };
                for _ in 0..kids {
                    if left == 0 {
                        break;
                    }
                    let c = if rng.chance(0.9) { fam.files[f].cwd } else { zipf(&mut rng) };
                    fam.files.push(PlannedFile { parent: Some(f), target: 0, cwd: c });
                    left -= 1;
                    queue.push((fam.files.len() - 1, depth + 1));
                }
            }
        }
        fams.push(fam);
    }
    // File sizes: log-normal weights, scaled so that the expected total is `total`. A fork's
    // own part is half its weight (`gen_family`) and it also copies a path of its parent,
    // on average a good part of the parent's size: size(f) = own(f) + 0.45 size(parent).
    let weights: Vec<f64> = (0..files).map(|_| rng.log_normal(1.0, 1.4)).collect();
    let mut expected = 0.0;
    let mut k = 0;
    for f in &fams {
        let mut size = Vec::with_capacity(f.files.len());
        for p in &f.files {
            let s = match p.parent {
                None => weights[k],
                Some(i) => weights[k] / 2.0 + 0.45 * size[i],
            };
            size.push(s);
            expected += s;
            k += 1;
        }
    }
    // Every file overshoots its target by part of a turn (turns have a long tail).
    let budget = (total as f64 - files as f64 * 30_000.0).max(total as f64 * 0.5);
    let scale = budget / expected;
    let mut k = 0;
    for f in &mut fams {
        for p in &mut f.files {
            p.target = (weights[k] * scale).clamp(2_000.0, 80e6) as usize;
            k += 1;
        }
    }
    fams
}

// ---------------------------------------------------------------- stats

/// Line-size histogram: 8 buckets per power of two.
const HBUCKETS: usize = 8 * 40;

fn hbucket(len: u64) -> usize {
    if len < 8 {
        return len as usize;
    }
    let lg = 63 - len.leading_zeros() as usize; // ≥ 3
    let frac = ((len >> (lg - 3)) & 7) as usize;
    ((lg - 3) * 8 + frac + 8).min(HBUCKETS - 1)
}

fn hbucket_upper(b: usize) -> u64 {
    if b < 8 {
        return b as u64;
    }
    let lg = (b - 8) / 8 + 3;
    let frac = ((b - 8) % 8) as u64;
    ((8 + frac + 1) << (lg - 3)) - 1
}

#[derive(Clone)]
pub struct Stats {
    pub files: u64,
    pub bytes: u64,
    pub entries: u64,
    pub forks: u64,
    /// Bytes of fork files that are copies of their parent's path.
    pub fork_copied_bytes: u64,
    pub max_fork_depth: u32,
    pub branch_points: u64,
    pub kind_count: [u64; 13],
    pub kind_bytes: [u64; 13],
    pub hist: Vec<u64>,
    pub max_line: u64,
    pub biggest: (u64, u64, PathBuf),
    pub big_file: Option<BigInfo>,
    pub folders: u64,
}

#[derive(Clone, Debug)]
pub struct BigInfo {
    pub path: PathBuf,
    pub bytes: u64,
    pub entries: u64,
    pub depth: u64,
    pub branch_points: u64,
    pub compactions: u64,
}

impl Stats {
    fn new() -> Stats {
        Stats {
            files: 0,
            bytes: 0,
            entries: 0,
            forks: 0,
            fork_copied_bytes: 0,
            max_fork_depth: 0,
            branch_points: 0,
            kind_count: [0; 13],
            kind_bytes: [0; 13],
            hist: vec![0; HBUCKETS],
            max_line: 0,
            biggest: (0, 0, PathBuf::new()),
            big_file: None,
            folders: 0,
        }
    }

    fn add_doc(&mut self, d: &Doc) -> u64 {
        self.files += 1;
        self.bytes += d.buf.len() as u64;
        self.entries += d.nodes.len() as u64;
        if d.fork_depth > 0 {
            self.forks += 1;
            self.fork_copied_bytes += d.nodes.get(d.copied.wrapping_sub(1)).map_or(0, |n| (n.off + n.len as usize) as u64);
        }
        self.max_fork_depth = self.max_fork_depth.max(d.fork_depth);
        let mut kids = vec![0u8; d.nodes.len()];
        for n in &d.nodes {
            self.kind_count[n.kind as usize] += 1;
            self.kind_bytes[n.kind as usize] += n.len as u64;
            self.hist[hbucket(n.len as u64)] += 1;
            self.max_line = self.max_line.max(n.len as u64);
            if n.parent != NONE {
                kids[n.parent as usize] = kids[n.parent as usize].saturating_add(1);
            }
        }
        let bp = kids.iter().filter(|&&k| k > 1).count() as u64;
        self.branch_points += bp;
        let key = (d.buf.len() as u64, d.nodes.len() as u64, d.path.clone());
        if key.0 > self.biggest.0 || (key.0 == self.biggest.0 && key.2 < self.biggest.2) {
            self.biggest = key;
        }
        bp
    }

    fn merge(&mut self, o: &Stats) {
        self.files += o.files;
        self.bytes += o.bytes;
        self.entries += o.entries;
        self.forks += o.forks;
        self.fork_copied_bytes += o.fork_copied_bytes;
        self.max_fork_depth = self.max_fork_depth.max(o.max_fork_depth);
        self.branch_points += o.branch_points;
        for k in 0..13 {
            self.kind_count[k] += o.kind_count[k];
            self.kind_bytes[k] += o.kind_bytes[k];
        }
        for (a, b) in self.hist.iter_mut().zip(&o.hist) {
            *a += b;
        }
        self.max_line = self.max_line.max(o.max_line);
        if o.biggest.0 > self.biggest.0 || (o.biggest.0 == self.biggest.0 && o.biggest.2 < self.biggest.2) {
            self.biggest = o.biggest.clone();
        }
        if o.big_file.is_some() {
            self.big_file = o.big_file.clone();
        }
    }

    /// Approximate percentile of line sizes (upper bound of the bucket).
    pub fn line_percentile(&self, p: f64) -> u64 {
        let total: u64 = self.hist.iter().sum();
        let want = (total as f64 * p).ceil() as u64;
        let mut acc = 0;
        for (b, &c) in self.hist.iter().enumerate() {
            acc += c;
            if acc >= want && c > 0 {
                return hbucket_upper(b).min(self.max_line);
            }
        }
        self.max_line
    }

    /// Counts of lines in readable size ranges.
    pub fn line_ranges(&self) -> Vec<(String, u64)> {
        const EDGES: &[(u64, &str)] = &[
            (512, "< 512 B"),
            (700, "512–700 B"),
            (1_300, "0.7–1.3 KB"),
            (4_096, "1.3–4 KB"),
            (20_480, "4–20 KB"),
            (204_800, "20–200 KB"),
            (u64::MAX, "≥ 200 KB"),
        ];
        // Re-bucket exactly: bucket b holds sizes in (upper(b-1), upper(b)].
        let mut out: Vec<(String, u64)> = EDGES.iter().map(|(_, n)| (n.to_string(), 0)).collect();
        for (b, &c) in self.hist.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let lo = if b == 0 { 0 } else { hbucket_upper(b - 1) + 1 };
            let k = EDGES.iter().position(|&(e, _)| lo < e).unwrap();
            out[k].1 += c;
        }
        out
    }

    pub fn to_json(&self) -> serde_json::Value {
        let kinds: serde_json::Map<String, serde_json::Value> = KINDS
            .iter()
            .map(|(n, k)| (n.to_string(), serde_json::json!({"lines": self.kind_count[*k as usize], "bytes": self.kind_bytes[*k as usize]})))
            .collect();
        let ranges: serde_json::Map<String, serde_json::Value> = self.line_ranges().into_iter().map(|(n, c)| (n, c.into())).collect();
        serde_json::json!({
            "files": self.files,
            "bytes": self.bytes,
            "entries": self.entries,
            "folders": self.folders,
            "forks": self.forks,
            "forkCopiedBytes": self.fork_copied_bytes,
            "maxForkDepth": self.max_fork_depth,
            "branchPoints": self.branch_points,
            "kinds": kinds,
            "lineSizes": {
                "p50": self.line_percentile(0.5),
                "p90": self.line_percentile(0.9),
                "p99": self.line_percentile(0.99),
                "max": self.max_line,
                "ranges": ranges,
            },
            "biggest": {"path": self.biggest.2, "bytes": self.biggest.0, "entries": self.biggest.1},
            "bigFile": self.big_file.as_ref().map(|b| serde_json::json!({
                "path": b.path, "bytes": b.bytes, "entries": b.entries, "depth": b.depth,
                "branchPoints": b.branch_points, "compactions": b.compactions,
            })),
        })
    }
}

// ---------------------------------------------------------------- generation

fn write_doc(d: &Doc) -> std::io::Result<()> {
    std::fs::write(&d.path, &d.buf)?;
    let mtime = std::time::UNIX_EPOCH + std::time::Duration::from_millis(d.now.max(0) as u64);
    let f = std::fs::OpenOptions::new().write(true).open(&d.path)?;
    f.set_modified(mtime)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn gen_family(seed: u64, k: usize, fam: &Family, cwds: &[String], sessions: &Path, pools: &Pools, short: bool, stats: &mut Stats) -> std::io::Result<()> {
    let mix = if short { Mix::Short } else { Mix::Normal };
    let mut g = Gen { rng: Rng::derive(seed, 0xfa, k as u64), pools, mix, reask: true };
    let mut docs: Vec<Doc> = Vec::with_capacity(fam.files.len());
    for p in &fam.files {
        let cwd = &cwds[p.cwd];
        let dir = sessions.join(lines::encode_cwd(cwd));
        let mut d = match p.parent {
            None => Doc::new(&mut g.rng, &dir, cwd, fam.start, None),
            Some(pi) => {
                let parent = &docs[pi];
                // Fork at a node on the parent's active path (pi's /fork lists those).
                let path = parent.path_to(parent.tip);
                let lo = (parent.copied + 1).min(path.len() - 1);
                let x = path[g.rng.range(lo as u64, path.len() as u64 - 1) as usize];
                let ts = parent.now + g.rng.range(60_000, 3 * 86_400_000) as i64;
                let mut d = parent.fork(&mut g.rng, &dir, cwd, ts, x);
                d.now = ts;
                d
            }
        };
        // A fork's own part is its planned size; the copied path comes on top.
        let target = if p.parent.is_some() { d.buf.len() + p.target / 2 } else { p.target };
        g.fill(&mut d, target);
        write_doc(&d)?;
        stats.add_doc(&d);
        // Keep the bytes only while a later file of the family may fork this one.
        docs.push(d);
    }
    Ok(())
}

/// The big file: `n` entries, a main chain `n/2` deep ending at the leaf (the last line),
/// and excursions — branches re-asking from earlier main-chain nodes — holding the rest.
fn gen_big(seed: u64, n: usize, sessions: &Path, pools: &Pools, stats: &mut Stats) -> std::io::Result<()> {
    let mut g = Gen { rng: Rng::derive(seed, 0xb16, 0), pools, mix: Mix::Big, reask: false };
    let cwd = "/home/user/src/monorepo";
    let dir = sessions.join(lines::encode_cwd(cwd));
    let mut d = Doc::new(&mut g.rng, &dir, cwd, 1_748_736_000_000, None); // 2025-06-01
    d.buf.reserve(n * 900);
    d.nodes.reserve(n + 64);
    let main_len = (n / 2) as u32;
    let side_total = n.saturating_sub(n / 2);
    let compact_at = g.compact_threshold();
    g.start(&mut d);
    let mut main: Vec<u32> = (0..d.nodes.len() as u32).collect();
    let mut side = 0usize;
    loop {
        let before = d.nodes.len();
        d.tip = *main.last().unwrap();
        g.turn(&mut d, compact_at, usize::MAX);
        main.extend(before as u32..d.nodes.len() as u32);
        let depth = d.nodes[d.tip as usize].depth + 1;
        if depth >= main_len {
            break;
        }
        let want = (depth as f64 / main_len as f64 * side_total as f64) as usize;
        while side < want {
            let main_tip = *main.last().unwrap();
            // A branch point: the parent of a user message on the main chain, mostly recent.
            let span = main.len().min(3_000);
            let mut b = if g.rng.chance(0.85) { main.len() - 1 - g.rng.index(span) } else { g.rng.index(main.len()) };
            while b + 1 < main.len() && d.nodes[main[b + 1] as usize].kind != Kind::User {
                b += 1;
            }
            if b + 1 >= main.len() {
                b = main.len() - 1;
            }
            let before = d.nodes.len();
            d.tip = main[b];
            for _ in 0..g.rng.range(1, 2) {
                g.turn(&mut d, compact_at, usize::MAX);
            }
            if g.rng.chance(0.25) {
                // A branch inside the excursion.
                let users = g.recent_users(&d, 3, 200);
                if let Some(&u) = users.last() {
                    d.tip = d.parent_of(u);
                    g.turn(&mut d, compact_at, usize::MAX);
                }
            }
            side += d.nodes.len() - before;
            d.tip = main_tip;
            if g.rng.chance(0.3) {
                let n = g.rng.log_uniform(150, 1_200) as usize;
                let s = g.prose(n);
                let ts = d.tick(&mut g.rng, 2_000, 30_000);
                let bs = d.push(&mut g.rng, Kind::BranchSummary, |b, id, p| lines::branch_summary(b, id, p, ts, s, None));
                main.push(bs);
            }
        }
    }
    write_doc(&d)?;
    let bp = stats.add_doc(&d);
    let compactions = d.nodes.iter().filter(|n| n.kind == Kind::Compaction).count() as u64;
    stats.big_file = Some(BigInfo {
        path: d.path.clone(),
        bytes: d.buf.len() as u64,
        entries: d.nodes.len() as u64,
        depth: d.nodes[d.tip as usize].depth as u64 + 1,
        branch_points: bp,
        compactions,
    });
    Ok(())
}

/// Writes the corpus; returns what was written.
pub fn generate(o: &Options) -> std::io::Result<Stats> {
    std::fs::create_dir_all(&o.out)?;
    let out = std::fs::canonicalize(&o.out)?;
    let sessions = out.join("sessions");
    let pools = Pools::new(o.seed);
    let n_cwds = (o.files / 40).max(3);
    let cwds = make_cwds(&mut Rng::derive(o.seed, 0xc4d, 0), n_cwds);
    // The big file is one of the profile's files and part of its bytes (when it fits in half).
    let (files, total) = match o.big_entries {
        Some(n) if o.files > 1 => {
            let big = n as u64 * 825;
            (o.files - 1, if big < o.total_bytes / 2 { o.total_bytes - big } else { o.total_bytes })
        }
        _ => (o.files, o.total_bytes),
    };
    let fams = if files > 0 { plan(o.seed, files, total, n_cwds) } else { Vec::new() };
    let mut folders: HashSet<String> = HashSet::new();
    for f in &fams {
        for p in &f.files {
            folders.insert(lines::encode_cwd(&cwds[p.cwd]));
        }
    }
    if o.big_entries.is_some() {
        folders.insert(lines::encode_cwd("/home/user/src/monorepo"));
    }
    for f in &folders {
        std::fs::create_dir_all(sessions.join(f))?;
    }
    // Jobs: the big file first (the longest), then the families.
    let jobs = fams.len() + o.big_entries.is_some() as usize;
    let next = AtomicUsize::new(0);
    let total = Mutex::new(Stats::new());
    let err: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..o.threads.max(1) {
            s.spawn(|| {
                let mut st = Stats::new();
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    if j >= jobs {
                        break;
                    }
                    let r = match (o.big_entries, j) {
                        (Some(n), 0) => gen_big(o.seed, n, &sessions, &pools, &mut st),
                        (Some(_), j) => gen_family(o.seed, j - 1, &fams[j - 1], &cwds, &sessions, &pools, o.short, &mut st),
                        (None, j) => gen_family(o.seed, j, &fams[j], &cwds, &sessions, &pools, o.short, &mut st),
                    };
                    if let Err(e) = r {
                        *err.lock().unwrap() = Some(e);
                        break;
                    }
                }
                total.lock().unwrap().merge(&st);
            });
        }
    });
    if let Some(e) = err.into_inner().unwrap() {
        return Err(e);
    }
    let mut st = total.into_inner().unwrap();
    st.folders = folders.len() as u64;
    Ok(st)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_monotone() {
        let mut prev = 0;
        for len in [0u64, 1, 7, 8, 9, 15, 16, 100, 1000, 1024, 5000, 1 << 20] {
            let b = hbucket(len);
            assert!(b >= prev);
            assert!(hbucket_upper(b) >= len, "{len}: {b} {}", hbucket_upper(b));
            if b > 0 {
                assert!(hbucket_upper(b - 1) < len, "{len}");
            }
            prev = b;
        }
    }
}
#[cfg(test)]
mod plan_tests {
    #[test]
    fn families_fork_up_to_five_deep() {
        for seed in 1..6 {
            let fams = super::plan(seed, 2_000, 1_000_000_000, 50);
            let files: usize = fams.iter().map(|f| f.files.len()).sum();
            assert_eq!(files, 2_000);
            let forks = fams.iter().flat_map(|f| &f.files).filter(|p| p.parent.is_some()).count();
            assert!((100..500).contains(&forks), "seed {seed}: {forks} forks");
            for f in &fams {
                for (i, p) in f.files.iter().enumerate() {
                    let mut depth = 0;
                    let mut q = p.parent;
                    while let Some(j) = q {
                        assert!(j < i);
                        depth += 1;
                        q = f.files[j].parent;
                    }
                    assert!(depth <= 5);
                }
            }
            assert_eq!(fams[0].files.len(), 6, "the first family is a chain of 5 forks");
        }
    }
}

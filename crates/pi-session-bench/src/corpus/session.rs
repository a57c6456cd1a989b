//! The per-session generator: one session file (`Doc`) built node by node, and `Gen`, which
//! fills it with turns (user messages, tool rounds, answers, branches, compactions, extras).

use super::{Kind, NONE};
use crate::lines::{self, Assistant, Block, Usage};
use crate::rng::Rng;
use crate::text::{self, Pools};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy)]
pub(super) struct Node {
    pub(super) off: usize,
    pub(super) len: u32,
    pub(super) parent: u32,
    id: u32,
    pub(super) kind: Kind,
    pub(super) depth: u32,
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
pub(super) struct Doc {
    pub(super) buf: Vec<u8>,
    pub(super) nodes: Vec<Node>,
    ids: HashSet<u32>,
    pub(super) tip: u32,
    pub(super) now: i64,
    model: usize,
    thinking: usize,
    pub(super) path: PathBuf,
    pub(super) fork_depth: u32,
    /// Node count at the end of the copied prefix (forks).
    pub(super) copied: usize,
    turns: u32,
}

impl Doc {
    pub(super) fn new(rng: &mut Rng, dir: &Path, cwd: &str, ts: i64, parent_session: Option<&Path>) -> Doc {
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

    pub(super) fn parent_of(&self, i: u32) -> u32 {
        self.nodes[i as usize].parent
    }

    /// Appends one line written by `f(buf, id, parentId)` as a child of the tip.
    pub(super) fn push(&mut self, rng: &mut Rng, kind: Kind, f: impl FnOnce(&mut Vec<u8>, u32, Option<u32>)) -> u32 {
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

    pub(super) fn tick(&mut self, rng: &mut Rng, lo: i64, hi: i64) -> i64 {
        self.now += rng.range(lo as u64, hi as u64) as i64;
        self.now
    }

    /// The path root→`x` as node indices.
    pub(super) fn path_to(&self, x: u32) -> Vec<u32> {
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
    pub(super) fn fork(&self, rng: &mut Rng, dir: &Path, cwd: &str, ts: i64, x: u32) -> Doc {
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
pub(super) enum Mix {
    Normal,
    Big,
    Short,
}

pub(super) struct Gen<'a> {
    pub(super) rng: Rng,
    pub(super) pools: &'a Pools,
    pub(super) mix: Mix,
    /// Re-asks inside `turn` (the big file branches through excursions instead).
    pub(super) reask: bool,
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

    pub(super) fn prose(&mut self, len: usize) -> &'a [u8] {
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
    pub(super) fn start(&mut self, d: &mut Doc) {
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
    pub(super) fn recent_users(&self, d: &Doc, want: usize, max_walk: usize) -> Vec<u32> {
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
    pub(super) fn turn(&mut self, d: &mut Doc, compact_at: u64, target: usize) {
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

    pub(super) fn compact_threshold(&mut self) -> u64 {
        self.rng.range(400_000, 800_000)
    }

    /// Fills `d` with turns until it holds at least `target` bytes.
    pub(super) fn fill(&mut self, d: &mut Doc, target: usize) {
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

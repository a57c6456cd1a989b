//! Builders for pi v3 session lines, byte for byte in the shapes pi 0.73.1 writes
//! (key order included): the header, `message` entries of every role, and the other
//! entry types. Text arguments are already JSON-escaped string content.

/// 8 lowercase hex digits.
pub fn push_id(out: &mut Vec<u8>, id: u32) {
    const H: &[u8; 16] = b"0123456789abcdef";
    for s in (0..8).rev() {
        out.push(H[((id >> (s * 4)) & 15) as usize]);
    }
}

/// ISO-8601 UTC with milliseconds, as JavaScript's `Date.toISOString()`.
pub fn push_iso(out: &mut Vec<u8>, ms: i64) {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    push_num_pad(out, y as u64, 4);
    out.push(b'-');
    push_num_pad(out, m as u64, 2);
    out.push(b'-');
    push_num_pad(out, d as u64, 2);
    out.push(b'T');
    push_num_pad(out, h as u64, 2);
    out.push(b':');
    push_num_pad(out, mi as u64, 2);
    out.push(b':');
    push_num_pad(out, s as u64, 2);
    out.push(b'.');
    push_num_pad(out, milli as u64, 3);
    out.push(b'Z');
}

pub fn iso(ms: i64) -> String {
    let mut v = Vec::with_capacity(24);
    push_iso(&mut v, ms);
    String::from_utf8(v).unwrap()
}

/// Howard Hinnant's days → (year, month, day).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn push_num_pad(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let mut tmp = [b'0'; 20];
    let mut i = 20;
    while n > 0 || i == 20 {
        i -= 1;
        tmp[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    for _ in (20 - i)..width {
        out.push(b'0');
    }
    out.extend_from_slice(&tmp[i..]);
}

pub fn push_u64(out: &mut Vec<u8>, n: u64) {
    push_num_pad(out, n, 1);
}

/// A JSON string with escaping (for paths and other arbitrary text).
pub fn push_json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend(b"\\\""),
            '\\' => out.extend(b"\\\\"),
            '\n' => out.extend(b"\\n"),
            '\r' => out.extend(b"\\r"),
            '\t' => out.extend(b"\\t"),
            c if (c as u32) < 0x20 => out.extend(format!("\\u{:04x}", c as u32).bytes()),
            c => {
                let mut b = [0u8; 4];
                out.extend(c.encode_utf8(&mut b).bytes());
            }
        }
    }
    out.push(b'"');
}

/// A dollar figure as JavaScript prints a double (shortest round trip, no exponent for
/// the magnitudes used here).
pub fn push_cost(out: &mut Vec<u8>, micro_dollars: u64) {
    if micro_dollars == 0 {
        out.push(b'0');
        return;
    }
    let s = format!("{}", micro_dollars as f64 / 1e6);
    out.extend(s.bytes());
}

/// A uuid v7 (48-bit big-endian milliseconds, version 7, variant 10, random rest).
pub fn uuid_v7(ms: i64, r1: u64, r2: u64) -> String {
    let mut b = [0u8; 16];
    b[..6].copy_from_slice(&(ms as u64).to_be_bytes()[2..]);
    b[6..14].copy_from_slice(&r1.to_be_bytes());
    b[14..].copy_from_slice(&r2.to_be_bytes()[..2]);
    b[6] = (b[6] & 0x0f) | 0x70;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
}

/// pi's file name for a session: header timestamp with `:` and `.` → `-`, `_`, id.
pub fn file_name(ts_ms: i64, session_id: &str) -> String {
    format!("{}_{}.jsonl", iso(ts_ms).replace([':', '.'], "-"), session_id)
}

/// pi's folder name for a cwd.
pub fn encode_cwd(cwd: &str) -> String {
    let s = cwd.strip_prefix(['/', '\\']).unwrap_or(cwd);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
}

pub fn header(out: &mut Vec<u8>, id: &str, ts: i64, cwd: &str, parent_session: Option<&str>) {
    out.extend(b"{\"type\":\"session\",\"version\":3,\"id\":");
    push_json_str(out, id);
    out.extend(b",\"timestamp\":\"");
    push_iso(out, ts);
    out.extend(b"\",\"cwd\":");
    push_json_str(out, cwd);
    if let Some(p) = parent_session {
        out.extend(b",\"parentSession\":");
        push_json_str(out, p);
    }
    out.extend(b"}\n");
}

/// `"type":T,"id":…,"parentId":…,"timestamp":…` — the common start of an entry.
pub fn entry_start(out: &mut Vec<u8>, ty: &str, id: u32, parent: Option<u32>, ts: i64) {
    out.extend(b"{\"type\":\"");
    out.extend(ty.bytes());
    out.extend(b"\",");
    id_parent_ts(out, id, parent, ts);
}

/// As [`entry_start`], for ids given as strings (read from a file).
pub fn entry_start_str(out: &mut Vec<u8>, ty: &str, id: &str, parent: Option<&str>, ts: i64) {
    out.extend(b"{\"type\":\"");
    out.extend(ty.bytes());
    out.extend(b"\",\"id\":");
    push_json_str(out, id);
    out.extend(b",\"parentId\":");
    match parent {
        Some(p) => push_json_str(out, p),
        None => out.extend(b"null"),
    }
    out.extend(b",\"timestamp\":\"");
    push_iso(out, ts);
    out.push(b'"');
}

fn id_parent_ts(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64) {
    out.extend(b"\"id\":\"");
    push_id(out, id);
    out.extend(b"\",\"parentId\":");
    match parent {
        Some(p) => {
            out.push(b'"');
            push_id(out, p);
            out.push(b'"');
        }
        None => out.extend(b"null"),
    }
    out.extend(b",\"timestamp\":\"");
    push_iso(out, ts);
    out.push(b'"');
}

pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    /// Prices in dollars per million tokens (input, output, cache read, cache write).
    pub price: [f64; 4],
}

pub fn push_usage(out: &mut Vec<u8>, u: &Usage) {
    out.extend(b"\"usage\":{\"input\":");
    push_u64(out, u.input);
    out.extend(b",\"output\":");
    push_u64(out, u.output);
    out.extend(b",\"cacheRead\":");
    push_u64(out, u.cache_read);
    out.extend(b",\"cacheWrite\":");
    push_u64(out, u.cache_write);
    out.extend(b",\"totalTokens\":");
    push_u64(out, u.input + u.output + u.cache_read + u.cache_write);
    let c = [u.input, u.output, u.cache_read, u.cache_write];
    let micro: Vec<u64> = c.iter().zip(u.price).map(|(&n, p)| (n as f64 * p).round() as u64).collect();
    out.extend(b",\"cost\":{\"input\":");
    push_cost(out, micro[0]);
    out.extend(b",\"output\":");
    push_cost(out, micro[1]);
    out.extend(b",\"cacheRead\":");
    push_cost(out, micro[2]);
    out.extend(b",\"cacheWrite\":");
    push_cost(out, micro[3]);
    out.extend(b",\"total\":");
    push_cost(out, micro.iter().sum());
    out.extend(b"}}");
}

/// One block of an assistant message's content.
pub enum Block<'a> {
    Text(&'a [u8]),
    Thinking {
        text: &'a [u8],
        signature: Option<&'a [u8]>,
    },
    /// `arguments` is a complete JSON object.
    ToolCall {
        id: &'a str,
        name: &'a str,
        arguments: &'a [u8],
    },
}

pub struct Assistant<'a> {
    pub blocks: &'a [Block<'a>],
    pub api: &'a str,
    pub provider: &'a str,
    pub model: &'a str,
    pub usage: Usage,
    pub stop_reason: &'a str,
    pub ts: i64,
}

pub fn message_assistant(out: &mut Vec<u8>, id: u32, parent: Option<u32>, a: &Assistant) {
    entry_start(out, "message", id, parent, a.ts);
    out.extend(b",\"message\":{\"role\":\"assistant\",\"content\":[");
    for (i, b) in a.blocks.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match b {
            Block::Text(t) => {
                out.extend(b"{\"type\":\"text\",\"text\":\"");
                out.extend_from_slice(t);
                out.extend(b"\"}");
            }
            Block::Thinking { text, signature } => {
                out.extend(b"{\"type\":\"thinking\",\"thinking\":\"");
                out.extend_from_slice(text);
                out.push(b'"');
                if let Some(s) = signature {
                    out.extend(b",\"thinkingSignature\":\"");
                    out.extend_from_slice(s);
                    out.push(b'"');
                }
                out.push(b'}');
            }
            Block::ToolCall { id, name, arguments } => {
                out.extend(b"{\"type\":\"toolCall\",\"id\":\"");
                out.extend(id.bytes());
                out.extend(b"\",\"name\":\"");
                out.extend(name.bytes());
                out.extend(b"\",\"arguments\":");
                out.extend_from_slice(arguments);
                out.push(b'}');
            }
        }
    }
    out.extend(b"],\"api\":\"");
    out.extend(a.api.bytes());
    out.extend(b"\",\"provider\":\"");
    out.extend(a.provider.bytes());
    out.extend(b"\",\"model\":\"");
    out.extend(a.model.bytes());
    out.extend(b"\",");
    push_usage(out, &a.usage);
    out.extend(b",\"stopReason\":\"");
    out.extend(a.stop_reason.bytes());
    out.extend(b"\",\"timestamp\":");
    push_u64(out, a.ts as u64);
    out.extend(b"}}\n");
}

/// A user message; `blocks` = false writes pi's plain-string content form.
pub fn message_user(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, text: &[u8], blocks: bool, image: Option<(&str, &[u8])>) {
    entry_start(out, "message", id, parent, ts);
    out.extend(b",\"message\":{\"role\":\"user\",\"content\":");
    if blocks || image.is_some() {
        out.extend(b"[{\"type\":\"text\",\"text\":\"");
        out.extend_from_slice(text);
        out.extend(b"\"}");
        if let Some((mime, data)) = image {
            out.extend(b",{\"type\":\"image\",\"data\":\"");
            out.extend_from_slice(data);
            out.extend(b"\",\"mimeType\":\"");
            out.extend(mime.bytes());
            out.extend(b"\"}");
        }
        out.push(b']');
    } else {
        out.push(b'"');
        out.extend_from_slice(text);
        out.push(b'"');
    }
    out.extend(b",\"timestamp\":");
    push_u64(out, ts as u64);
    out.extend(b"}}\n");
}

/// A tool result; `details` is a complete JSON value when present.
#[allow(clippy::too_many_arguments)]
pub fn message_tool_result(
    out: &mut Vec<u8>,
    id: u32,
    parent: Option<u32>,
    ts: i64,
    call_id: &str,
    tool: &str,
    text: &[u8],
    details: Option<&[u8]>,
    is_error: bool,
) {
    entry_start(out, "message", id, parent, ts);
    out.extend(b",\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"");
    out.extend(call_id.bytes());
    out.extend(b"\",\"toolName\":\"");
    out.extend(tool.bytes());
    out.extend(b"\",\"content\":[{\"type\":\"text\",\"text\":\"");
    out.extend_from_slice(text);
    out.extend(b"\"}]");
    if let Some(d) = details {
        out.extend(b",\"details\":");
        out.extend_from_slice(d);
    }
    out.extend(if is_error { &b",\"isError\":true,\"timestamp\":"[..] } else { &b",\"isError\":false,\"timestamp\":"[..] });
    push_u64(out, ts as u64);
    out.extend(b"}}\n");
}

#[allow(clippy::too_many_arguments)]
pub fn message_bash(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, command: &[u8], output: &[u8], exit_code: i32, exclude: bool) {
    entry_start(out, "message", id, parent, ts);
    out.extend(b",\"message\":{\"role\":\"bashExecution\",\"command\":\"");
    out.extend_from_slice(command);
    out.extend(b"\",\"output\":\"");
    out.extend_from_slice(output);
    out.extend(b"\",\"exitCode\":");
    out.extend(exit_code.to_string().bytes());
    out.extend(b",\"cancelled\":false,\"truncated\":false");
    if exclude {
        out.extend(b",\"excludeFromContext\":true");
    }
    out.extend(b",\"timestamp\":");
    push_u64(out, ts as u64);
    out.extend(b"}}\n");
}

pub fn model_change(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, provider: &str, model: &str) {
    entry_start(out, "model_change", id, parent, ts);
    out.extend(b",\"provider\":\"");
    out.extend(provider.bytes());
    out.extend(b"\",\"modelId\":\"");
    out.extend(model.bytes());
    out.extend(b"\"}\n");
}

pub fn thinking_level_change(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, level: &str) {
    entry_start(out, "thinking_level_change", id, parent, ts);
    out.extend(b",\"thinkingLevel\":\"");
    out.extend(level.bytes());
    out.extend(b"\"}\n");
}

pub fn label(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, target: u32, label: Option<&str>) {
    entry_start(out, "label", id, parent, ts);
    out.extend(b",\"targetId\":\"");
    push_id(out, target);
    out.push(b'"');
    if let Some(l) = label {
        out.extend(b",\"label\":");
        push_json_str(out, l);
    }
    out.extend(b"}\n");
}

pub fn session_info(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, name: &str) {
    entry_start(out, "session_info", id, parent, ts);
    out.extend(b",\"name\":");
    push_json_str(out, name);
    out.extend(b"}\n");
}

/// `details` = `{"readFiles":[…],"modifiedFiles":[…]}` built from the two lists.
fn push_file_details(out: &mut Vec<u8>, read: &[&str], modified: &[&str]) {
    out.extend(b"{\"readFiles\":[");
    for (i, f) in read.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_json_str(out, f);
    }
    out.extend(b"],\"modifiedFiles\":[");
    for (i, f) in modified.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_json_str(out, f);
    }
    out.extend(b"]}");
}

#[allow(clippy::too_many_arguments)]
pub fn compaction(
    out: &mut Vec<u8>,
    id: u32,
    parent: Option<u32>,
    ts: i64,
    summary: &[u8],
    first_kept: u32,
    tokens_before: u64,
    read: &[&str],
    modified: &[&str],
) {
    entry_start(out, "compaction", id, parent, ts);
    out.extend(b",\"summary\":\"");
    out.extend_from_slice(summary);
    out.extend(b"\",\"firstKeptEntryId\":\"");
    push_id(out, first_kept);
    out.extend(b"\",\"tokensBefore\":");
    push_u64(out, tokens_before);
    out.extend(b",\"details\":");
    push_file_details(out, read, modified);
    out.extend(b"}\n");
}

/// `from` = None writes `"fromId":"root"` (a summary at the root).
pub fn branch_summary(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, summary: &[u8], details: Option<(&[&str], &[&str])>) {
    entry_start(out, "branch_summary", id, parent, ts);
    out.extend(b",\"fromId\":");
    match parent {
        Some(p) => {
            out.push(b'"');
            push_id(out, p);
            out.push(b'"');
        }
        None => out.extend(b"\"root\""),
    }
    out.extend(b",\"summary\":\"");
    out.extend_from_slice(summary);
    out.push(b'"');
    if let Some((r, m)) = details {
        out.extend(b",\"details\":");
        push_file_details(out, r, m);
    }
    out.extend(b"}\n");
}

/// pi writes extension entries with their own fields before the id.
pub fn custom(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, custom_type: &str, data: &[u8]) {
    out.extend(b"{\"type\":\"custom\",\"customType\":\"");
    out.extend(custom_type.bytes());
    out.extend(b"\",\"data\":");
    out.extend_from_slice(data);
    out.push(b',');
    id_parent_ts(out, id, parent, ts);
    out.extend(b"}\n");
}

#[allow(clippy::too_many_arguments)]
pub fn custom_message(out: &mut Vec<u8>, id: u32, parent: Option<u32>, ts: i64, custom_type: &str, content: &[u8], display: bool, details: Option<&[u8]>) {
    out.extend(b"{\"type\":\"custom_message\",\"customType\":\"");
    out.extend(custom_type.bytes());
    out.extend(b"\",\"content\":\"");
    out.extend_from_slice(content);
    out.extend(if display { &b"\",\"display\":true"[..] } else { &b"\",\"display\":false"[..] });
    if let Some(d) = details {
        out.extend(b",\"details\":");
        out.extend_from_slice(d);
    }
    out.push(b',');
    id_parent_ts(out, id, parent, ts);
    out.extend(b"}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: &[u8]) -> serde_json::Value {
        assert_eq!(v.last(), Some(&b'\n'));
        serde_json::from_slice(v).unwrap()
    }

    #[test]
    fn iso_matches_javascript() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso(1_772_465_507_568), "2026-03-02T15:31:47.568Z");
        assert_eq!(iso(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn names() {
        assert_eq!(encode_cwd("/home/alice/work/data:pipeline"), "--home-alice-work-data-pipeline--");
        assert_eq!(encode_cwd("C:\\Users\\bob\\src\\app"), "--C--Users-bob-src-app--");
        let id = uuid_v7(1_772_465_400_000, 1, 2);
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "7");
        assert_eq!(file_name(1_772_465_400_000, &id), format!("2026-03-02T15-30-00-000Z_{id}.jsonl"));
    }

    #[test]
    fn lines_are_json_in_pi_key_order() {
        let mut v = Vec::new();
        header(&mut v, "s", 0, "/a \"b\"", Some("/x/y.jsonl"));
        let h = parse(&v);
        let keys: Vec<_> = h.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["type", "version", "id", "timestamp", "cwd", "parentSession"]);
        v.clear();
        let blocks = [
            Block::Thinking { text: b"hm", signature: Some(b"c2ln") },
            Block::Text(b"hi \\\"x\\\""),
            Block::ToolCall { id: "toolu_1", name: "bash", arguments: b"{\"command\":\"ls\"}" },
        ];
        let a = Assistant {
            blocks: &blocks,
            api: "anthropic-messages",
            provider: "anthropic",
            model: "m",
            usage: Usage { input: 10, output: 2, cache_read: 3, cache_write: 0, price: [3.0, 15.0, 0.3, 3.75] },
            stop_reason: "toolUse",
            ts: 5,
        };
        message_assistant(&mut v, 0xdeadbeef, None, &a);
        let j = parse(&v);
        assert_eq!(j["id"], "deadbeef");
        assert_eq!(j["parentId"], serde_json::Value::Null);
        assert_eq!(j["message"]["content"][1]["text"], "hi \"x\"");
        assert_eq!(j["message"]["usage"]["totalTokens"], 15);
        assert_eq!(j["message"]["usage"]["cost"]["output"], 0.00003);
        v.clear();
        compaction(&mut v, 1, Some(2), 3, b"sum", 4, 5, &["a"], &[]);
        let c = parse(&v);
        assert_eq!(c["firstKeptEntryId"], "00000004");
        v.clear();
        custom_message(&mut v, 1, Some(2), 3, "note", b"x", true, None);
        let keys: Vec<_> = parse(&v).as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["type", "customType", "content", "display", "id", "parentId", "timestamp"]);
        v.clear();
        branch_summary(&mut v, 1, None, 3, b"s", None);
        assert_eq!(parse(&v)["fromId"], "root");
        v.clear();
        message_user(&mut v, 1, Some(2), 3, b"q", false, None);
        assert_eq!(parse(&v)["message"]["content"], "q");
        v.clear();
        message_tool_result(&mut v, 1, Some(2), 3, "c", "read", b"out", Some(b"{\"a\":1}"), false);
        assert_eq!(parse(&v)["message"]["details"]["a"], 1);
        v.clear();
        message_bash(&mut v, 1, Some(2), 3, b"ls", b"a", 0, true);
        assert_eq!(parse(&v)["message"]["excludeFromContext"], true);
    }
}

//! pi-search-probe: measures the candidate designs of the search index on one corpus, before
//! one is chosen (the figures of bench/README.md, "The indexed search: candidates"). Prints
//! figures; asserts nothing.
//!
//! ```text
//! pi-search-probe --corpus OUT [--blocks 0,4096,16384,65536,262144] [--fts5] [--scan]
//! ```
//!
//! * text extraction: every entry's searchable text (the core's rule), lowercased: the work any
//!   index must do once per byte, and what verifying a candidate costs per byte;
//! * n-gram postings (1-, 2- and 3-byte grams of the lowercased text) per block of entries of
//!   `B` text bytes (0: one entry per block): postings bytes (delta + varint), and for the 50
//!   queries of pi-search-bench the candidate blocks and the session bytes to read back;
//! * FTS5 without stored text (`content=''`, trigram tokenizer): build time and size;
//! * a scan of every file (read, ASCII-lowercased, `memmem`) per query.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Parser;
use pi_session::Kind;
use pi_session::text::searchable_text;
use pi_session::SessionIndex;
use pi_session_find::Query;
use rayon::prelude::*;

#[derive(Parser)]
struct Cli {
    #[arg(long)]
    corpus: PathBuf,
    /// Block sizes (text bytes) to measure; 0 = one entry per block
    #[arg(long, value_delimiter = ',', default_value = "0,4096,16384,65536,262144")]
    blocks: Vec<usize>,
    /// The index's streaming text reader instead of the core's JSON tree
    #[arg(long)]
    fast: bool,
    /// Word-pair keys too
    #[arg(long)]
    pairs: bool,
    /// Also build an FTS5 contentless trigram table
    #[arg(long)]
    fts5: bool,
    /// Also time a scan of every file per query
    #[arg(long)]
    scan: bool,
    /// Where the FTS5 probe writes its database (deleted after)
    #[arg(long, default_value = "/tmp")]
    tmp: PathBuf,
}

const QUERIES: &[&str] = &[
    "parser", "cache", "timeout", "migration", "handler", "database", "schema", "retry", "validation", "allocation",
    "src/parser.ts", "Cargo.toml", "UTF-8", "tsconfig", "internal/store/store.go", "café", "日本語", "naïve", "résumé", "🙂",
    "\"should be\"", "\"edge case\"", "\"memory leak\"", "\"the parser\"", "\"null value\"",
    "parser cache", "timeout retry", "database migration", "handler request", "buffer stream",
    "role:user parser", "role:assistant cache", "role:toolResult error", "role:user \"edge case\"", "role:compaction schema",
    "tool:bash", "tool:read src", "tool:edit config", "tool:bash cargo", "tool:read parser",
    "cwd:webapp schema", "cwd:api handler", "model:claude parser", "model:gpt cache", "name:refactor",
    "after:2025-01-01 migration", "before:2030-01-01 timeout", "label:checkpoint", "xylophone-none", "zz",
];

/// One entry: its lowercased searchable text and the length of its line in the file.
struct Doc {
    text: Vec<u8>,
    raw: u32,
}

fn lower(s: &str) -> Vec<u8> {
    if s.is_ascii() {
        s.as_bytes().to_ascii_lowercase()
    } else {
        s.to_lowercase().into_bytes()
    }
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

/// The grams of a byte string: 1-, 2- and 3-byte windows as keys `n << 24 | bytes`.
fn grams_of(t: &[u8], mut f: impl FnMut(u32)) {
    for (i, &b) in t.iter().enumerate() {
        f(1 << 24 | b as u32);
        if i + 1 < t.len() {
            f(2 << 24 | (b as u32) << 8 | t[i + 1] as u32);
        }
        if i + 2 < t.len() {
            f(3 << 24 | (b as u32) << 16 | (t[i + 1] as u32) << 8 | t[i + 2] as u32);
        }
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn pair_key(a: &[u8], b: &[u8]) -> u32 {
    let mut h: u32 = 0x811c9dc5;
    for &x in a[a.len() - 3..].iter().chain(&b[..3]) {
        h ^= x as u32;
        h = h.wrapping_mul(0x01000193);
    }
    5 << 24 | (h & 0xff_ffff)
}

/// Word-pair keys: for each two words of 3+ bytes parted by non-word bytes, the last 3 bytes of
/// the first and the first 3 of the second.
fn pairs_of(t: &[u8], mut f: impl FnMut(u32)) {
    let mut prev: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < t.len() {
        if !is_word(t[i]) {
            i += 1;
            continue;
        }
        let s = i;
        while i < t.len() && is_word(t[i]) {
            i += 1;
        }
        if let Some((ps, pe)) = prev {
            if pe - ps >= 3 && i - s >= 3 {
                f(pair_key(&t[ps..pe], &t[s..i]));
            }
        }
        prev = Some((s, i));
    }
}

/// The pair keys a term needs: inner words are whole, the first may be a suffix and the last a prefix of a word.
fn term_pairs(t: &[u8]) -> Vec<u32> {
    let mut words = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if !is_word(t[i]) {
            i += 1;
            continue;
        }
        let s = i;
        while i < t.len() && is_word(t[i]) {
            i += 1;
        }
        words.push(&t[s..i]);
    }
    let mut v = Vec::new();
    for w in words.windows(2) {
        if w[0].len() >= 3 && w[1].len() >= 3 {
            v.push(pair_key(w[0], w[1]));
        }
    }
    v
}

/// The grams a term needs: its trigrams, or its one bigram or unigram.
fn term_grams(t: &[u8]) -> Vec<u32> {
    let mut v = term_pairs(t);
    match t.len() {
        0 => {}
        1 => v.push(1 << 24 | t[0] as u32),
        2 => v.push(2 << 24 | (t[0] as u32) << 8 | t[1] as u32),
        _ => {
            for w in t.windows(3) {
                v.push(3 << 24 | (w[0] as u32) << 16 | (w[1] as u32) << 8 | w[2] as u32);
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

const KEYS: usize = 6 << 24;

fn varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn decode(b: &[u8]) -> Vec<u32> {
    let mut out = Vec::new();
    let (mut cur, mut v, mut shift) = (0u32, 0u32, 0);
    for &x in b {
        v |= ((x & 0x7f) as u32) << shift;
        if x & 0x80 == 0 {
            cur += v;
            out.push(cur);
            v = 0;
            shift = 0;
        } else {
            shift += 7;
        }
    }
    out
}

/// Postings of one block size: per gram, the block ids (delta + varint).
struct Postings {
    lists: Vec<Vec<u8>>,
    slot: Vec<u32>,
    last: Vec<u32>,
    /// Per block: first doc, docs, raw bytes.
    blocks: Vec<(u32, u32, u64)>,
}

fn build(docs: &[Doc], block: usize, pairs: bool) -> Postings {
    let mut p = Postings { lists: Vec::new(), slot: vec![u32::MAX; KEYS], last: vec![0; KEYS], blocks: Vec::new() };
    let mut seen = vec![0u64; KEYS / 64];
    let mut touched: Vec<u32> = Vec::new();
    let mut i = 0;
    while i < docs.len() {
        let start = i;
        let mut text = 0;
        let mut raw = 0u64;
        // A block: entries until `block` text bytes (the docs of one file are contiguous; the
        // probe ignores file bounds, which the index keeps).
        loop {
            text += docs[i].text.len();
            raw += docs[i].raw as u64;
            let mut add = |k: u32| {
                let (w, b) = ((k >> 6) as usize, 1u64 << (k & 63));
                if seen[w] & b == 0 {
                    seen[w] |= b;
                    touched.push(k);
                }
            };
            grams_of(&docs[i].text, &mut add);
            if pairs {
                pairs_of(&docs[i].text, &mut add);
            }
            i += 1;
            if i == docs.len() || text >= block {
                break;
            }
        }
        let id = p.blocks.len() as u32;
        p.blocks.push((start as u32, (i - start) as u32, raw));
        for &k in &touched {
            seen[(k >> 6) as usize] = 0;
            let s = &mut p.slot[k as usize];
            if *s == u32::MAX {
                *s = p.lists.len() as u32;
                p.lists.push(Vec::new());
                varint(&mut p.lists[*s as usize], id);
            } else {
                let d = id - p.last[k as usize];
                varint(&mut p.lists[*s as usize], d);
            }
            p.last[k as usize] = id;
        }
        touched.clear();
    }
    p
}

fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

fn files_of(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = pi_session::scan::scan(root).files.into_iter().map(|f| f.path).collect();
    v.sort();
    v
}

fn main() {
    let cli = Cli::parse();
    let root = std::fs::canonicalize(cli.corpus.join("sessions")).expect("corpus/sessions");
    let files = files_of(&root);
    let bytes: u64 = files.iter().map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)).sum();
    println!("corpus: {} files, {:.1} MB", files.len(), bytes as f64 / 1e6);

    // Warm the page cache, then the skeleton alone, then the text extraction.
    let t = Instant::now();
    let n: usize = files.par_iter().map(|p| std::fs::read(p).map(|b| b.len()).unwrap_or(0)).sum();
    println!("read all: {:.2} s ({n} bytes)", secs(t));
    let t = Instant::now();
    let entries: usize = files.par_iter().map(|p| SessionIndex::from_bytes(p, &std::fs::read(p).unwrap()).entries.len()).sum();
    let skel = secs(t);
    println!("skeleton (SessionIndex::from_bytes): {skel:.2} s, {entries} entries");
    let fast = cli.fast;
    let t = Instant::now();
    let per_file: Vec<Vec<Doc>> = files
        .par_iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap();
            let ix = SessionIndex::from_bytes(p, &bytes);
            ix.entries
                .iter()
                .filter(|e| e.id.is_some() && e.kind != Kind::Leaf)
                .map(|e| {
                    let line = &bytes[e.offset as usize..(e.offset + e.len as u64) as usize];
                    let text = if fast { pi_session_find::text::lowercase(&pi_session_find::text::searchable(&e.kind, &String::from_utf8_lossy(line))).into_owned().into_bytes() } else { lower(&searchable_text(e, &String::from_utf8_lossy(line))) };
                    Doc { text, raw: e.len }
                })
                .collect()
        })
        .collect();
    let extract = secs(t);
    let docs: Vec<Doc> = per_file.into_iter().flatten().collect();
    let text_bytes: u64 = docs.iter().map(|d| d.text.len() as u64).sum();
    let raw_bytes: u64 = docs.iter().map(|d| d.raw as u64).sum();
    println!(
        "text extraction (skeleton + JSON + searchable_text + lowercase, 2 threads): {extract:.2} s = {:.0} MB/s of lines; {} docs, text {:.1} MB ({:.0}% of the lines)",
        raw_bytes as f64 / 1e6 / extract,
        docs.len(),
        text_bytes as f64 / 1e6,
        text_bytes as f64 * 100.0 / raw_bytes as f64
    );

    let parsed: Vec<(Vec<String>, Query)> = QUERIES.iter().map(|q| (Query::parse(q).unwrap().terms, Query::parse(q).unwrap())).collect();
    for &block in &cli.blocks {
        let t = Instant::now();
        let p = build(&docs, block, cli.pairs);
        let bt = secs(t);
        let size: u64 = p.lists.iter().map(|l| l.len() as u64).sum();
        let pair_size: u64 = (0..KEYS).filter(|&k| k >> 24 == 5 && p.slot[k] != u32::MAX).map(|k| p.lists[p.slot[k] as usize].len() as u64).sum();
        println!("pair keys: {:.1} MB of postings", pair_size as f64 / 1e6);
        let grams = p.lists.len();
        let pairs: u64 = p.lists.iter().map(|l| decode(l).len() as u64).sum();
        println!(
            "\nblocks of {block} text bytes: {} blocks, {grams} grams, {pairs} postings, {:.1} MB of postings ({:.1}% of the corpus), {:.2} s one thread",
            p.blocks.len(),
            size as f64 / 1e6,
            size as f64 * 100.0 / bytes as f64,
            bt
        );
        let mut cand_bytes = Vec::new();
        for (q, (terms, _)) in QUERIES.iter().zip(&parsed) {
            if terms.is_empty() {
                continue;
            }
            let t = Instant::now();
            let mut cand: Option<Vec<u32>> = None;
            for term in terms {
                for g in term_grams(term.as_bytes()) {
                    let l = match p.slot[g as usize] {
                        u32::MAX => Vec::new(),
                        s => decode(&p.lists[s as usize]),
                    };
                    cand = Some(match cand {
                        None => l,
                        Some(c) => intersect(&c, &l),
                    });
                }
            }
            let us = t.elapsed().as_secs_f64() * 1e6;
            let cand = cand.unwrap_or_default();
            let raw: u64 = cand.iter().map(|&b| p.blocks[b as usize].2).sum();
            let mut hits = 0;
            let mut hit_blocks = 0;
            for &b in &cand {
                let (s, n, _) = p.blocks[b as usize];
                let h = docs[s as usize..(s + n) as usize].iter().filter(|d| terms.iter().all(|t| memchr::memmem::find(&d.text, t.as_bytes()).is_some())).count();
                hits += h;
                hit_blocks += (h > 0) as usize;
            }
            cand_bytes.push(raw);
            println!("  {q:<28} {:>7} candidate blocks ({:>7} with a hit), {:>9.1} kB to read back, {:>7} hits, postings {:.0} µs", cand.len(), hit_blocks, raw as f64 / 1e3, hits, us);
        }
        cand_bytes.sort();
        println!("  read back per query: median {:.1} kB, max {:.1} kB", cand_bytes[cand_bytes.len() / 2] as f64 / 1e3, *cand_bytes.last().unwrap() as f64 / 1e3);
    }

    if cli.scan {
        let mut ms = Vec::new();
        for (q, (terms, _)) in QUERIES.iter().zip(&parsed) {
            let Some(term) = terms.first() else { continue };
            let t = Instant::now();
            let n: usize = files
                .par_iter()
                .map(|p| {
                    let b = std::fs::read(p).unwrap().to_ascii_lowercase();
                    memchr::memmem::find_iter(&b, term.as_bytes()).count()
                })
                .sum();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            println!("scan {q:<28} {:.0} ms ({n} occurrences)", ms.last().unwrap());
        }
        ms.sort_by(|a, b| a.total_cmp(b));
        println!("scan: median {:.0} ms, p95 {:.0} ms", ms[ms.len() / 2], ms[(ms.len() as f64 * 0.95) as usize]);
    }

    if cli.fts5 {
        let db = cli.tmp.join(format!("probe-fts5-{}.sqlite", std::process::id()));
        let t = Instant::now();
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE VIRTUAL TABLE fts USING fts5(text, content='', tokenize='trigram');").unwrap();
        for chunk in docs.chunks(20_000).enumerate() {
            let (k, chunk) = chunk;
            c.execute_batch("BEGIN").unwrap();
            let mut st = c.prepare_cached("INSERT INTO fts(rowid, text) VALUES(?1, ?2)").unwrap();
            for (i, d) in chunk.iter().enumerate() {
                st.execute(rusqlite::params![(k * 20_000 + i + 1) as i64, String::from_utf8_lossy(&d.text)]).unwrap();
            }
            drop(st);
            c.execute_batch("COMMIT").unwrap();
        }
        c.execute("INSERT INTO fts(fts) VALUES('optimize')", []).unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        let bt = secs(t);
        let size = std::fs::metadata(&db).unwrap().len();
        println!("\nFTS5 contentless trigram: {bt:.1} s (one thread), {:.1} MB ({:.1}% of the corpus)", size as f64 / 1e6, size as f64 * 100.0 / bytes as f64);
        let mut ms = Vec::new();
        for (q, (terms, _)) in QUERIES.iter().zip(&parsed) {
            let long: Vec<String> = terms.iter().filter(|t| t.chars().count() >= 3).map(|t| format!("\"{}\"", t.replace('"', "\"\""))).collect();
            if long.is_empty() {
                continue;
            }
            let t = Instant::now();
            let n: i64 = c.query_row("SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ?1 ORDER BY rowid DESC LIMIT 201)", [long.join(" AND ")], |r| r.get(0)).unwrap();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            println!("  fts5 {q:<28} {:.1} ms ({n} candidates of the first 201)", ms.last().unwrap());
        }
        drop(c);
        for s in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{s}", db.display()));
        }
    }
}

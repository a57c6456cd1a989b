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

mod session;
mod stats;

use crate::lines;
use crate::rng::Rng;
use crate::text::Pools;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use session::{Doc, Gen, Mix};
pub use stats::{BigInfo, Stats};

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

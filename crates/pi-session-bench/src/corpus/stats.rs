//! Corpus statistics: what was written (files, bytes, entry kinds, forks, branch points) and
//! a line-size histogram.

use super::session::Doc;
use super::{KINDS, NONE};
use std::path::PathBuf;

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
    pub(super) fn new() -> Stats {
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

    pub(super) fn add_doc(&mut self, d: &Doc) -> u64 {
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

    pub(super) fn merge(&mut self, o: &Stats) {
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

//! Posting lists being built: the (key, block) pairs of each batch of blocks appended to
//! per-key lists held in memory, then written as a segment (see [`super::segment`]).

use std::path::Path;

use rusqlite::{params, Connection};

use super::build::file_name;
use super::segment;
use crate::grams;

/// Shards of the lists being built, which take their part of each batch on the pool's threads
/// (the writer's work used to be one thread's while the other read the next batch, and its map
/// missed the cache on most keys).
const SHARDS: usize = 8;

/// A key's shard: the low 3 bits of its three bytes, mixed (the low 3 bits alone put 22% of the
/// postings in one shard). Given the bits above its low 3, a shard's key has those 3 fixed, so
/// the keys of a shard are ordered by `k >> 3`: 24 bits to sort, not 27.
fn shard_of(k: u32) -> usize {
    ((k ^ k >> 8 ^ k >> 16) & 7) as usize
}

/// One shard: its keys in ascending order, and per key its last block id and its list so far.
/// Each batch's (key, block) pairs are sorted by key first (a radix sort: memory read in
/// order), then walked beside the keys, so a batch reads the shard's table in order too. (A
/// hash map of the keys missed the cache on most lookups: most keys of a shard are in every
/// batch, each at a random place of the map.)
#[derive(Default)]
struct Shard {
    keys: Vec<u32>,
    lists: Vec<(u32, Vec<u8>)>,
    pairs: Vec<u64>,
    scratch: Vec<u64>,
    /// The batch's keys not in the table yet.
    new: Vec<u32>,
    bytes: usize,
}

/// How many keys ahead of the one being appended to the walk asks for a list's tail.
const AHEAD: usize = 8;

#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it reads nothing and faults on no address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

impl Shard {
    /// Appends the pairs gathered in `self.pairs` (block ids after every one added before).
    fn take_pairs(&mut self) {
        radix_sort_hi(&mut self.pairs, &mut self.scratch);
        let p = &self.pairs;
        // The keys not in the table: merged into it (from the back, in place) first.
        self.new.clear();
        let mut j = 0;
        let mut i = 0;
        while i < p.len() {
            let k = (p[i] >> 32) as u32;
            while j < self.keys.len() && self.keys[j] < k {
                j += 1;
            }
            if j == self.keys.len() || self.keys[j] != k {
                self.new.push(k);
            }
            while i < p.len() && (p[i] >> 32) as u32 == k {
                i += 1;
            }
        }
        if !self.new.is_empty() {
            let (old, add) = (self.keys.len(), self.new.len());
            self.keys.resize(old + add, 0);
            self.lists.resize_with(old + add, Default::default);
            let (mut a, mut b, mut to) = (old, add, old + add);
            while b > 0 {
                to -= 1;
                if a > 0 && self.keys[a - 1] > self.new[b - 1] {
                    a -= 1;
                    self.keys[to] = self.keys[a];
                    self.lists.swap(to, a);
                } else {
                    b -= 1;
                    self.keys[to] = self.new[b];
                }
            }
        }
        let mut j = 0;
        let mut i = 0;
        while i < p.len() {
            let k = (p[i] >> 32) as u32;
            while self.keys[j] < k {
                j += 1;
            }
            if let Some((_, l)) = self.lists.get(j + AHEAD) {
                prefetch(l.as_ptr().wrapping_add(l.len()));
            }
            let (last, list) = &mut self.lists[j];
            let before = list.len();
            while i < p.len() && (p[i] >> 32) as u32 == k {
                let id = p[i] as u32;
                grams::put_varint(list, id - *last);
                *last = id;
                i += 1;
            }
            self.bytes += list.len() - before;
        }
        self.pairs.clear();
    }
}

/// Posting lists being built, in [`SHARDS`] shards.
pub(super) struct Postings {
    shards: Vec<Shard>,
    pub bytes: usize,
    pub first_block: Option<u32>,
    pub last_block: u32,
}

/// Sorts `v` stably by the key in its upper 32 bits, the keys of one shard ([`shard_of`]):
/// every kind of key is below `7 << 24`, so two passes of 12 bits over the bits above the low
/// 3 sort it (three of 9 over all 27 took a third more time), the counts of both taken in one
/// read.
fn radix_sort_hi(v: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    debug_assert!(v.iter().all(|x| x >> 32 < 1 << 27 && shard_of((x >> 32) as u32) == shard_of((v[0] >> 32) as u32)));
    scratch.clear();
    scratch.resize(v.len(), 0);
    let mut count = [[0u32; 4096]; 2];
    for &x in v.iter() {
        let k = (x >> 35) as usize;
        count[0][k & 4095] += 1;
        count[1][k >> 12 & 4095] += 1;
    }
    for (pass, c) in count.iter_mut().enumerate() {
        if c.iter().any(|&n| n as usize == v.len()) {
            continue;
        }
        let mut sum = 0;
        for n in c.iter_mut() {
            (*n, sum) = (sum, sum + *n);
        }
        let shift = 35 + 12 * pass;
        for &x in v.iter() {
            let d = (x >> shift) as usize & 4095;
            scratch[c[d] as usize] = x;
            c[d] += 1;
        }
        std::mem::swap(v, scratch);
    }
}

impl Postings {
    pub fn new() -> Postings {
        Postings { shards: (0..SHARDS).map(|_| Shard::default()).collect(), bytes: 0, first_block: None, last_block: 0 }
    }

    /// Appends `blocks` (ascending ids, after every id added before).
    pub fn add(&mut self, blocks: &[(u32, Vec<u32>)]) {
        use rayon::prelude::*;
        let Some(&(first, _)) = blocks.first() else { return };
        self.first_block.get_or_insert(first);
        self.last_block = blocks.last().map(|b| b.0).unwrap_or(first);
        for (id, keys) in blocks {
            for &k in keys {
                self.shards[shard_of(k)].pairs.push((k as u64) << 32 | *id as u64);
            }
        }
        self.shards.par_iter_mut().for_each(Shard::take_pairs);
        self.bytes = self.shards.iter().map(|s| s.bytes).sum();
    }

    /// Every key's last id and list, by key; the shards are empty after.
    fn take_lists(&mut self) -> Vec<(u32, u32, Vec<u8>)> {
        let mut all: Vec<(u32, u32, Vec<u8>)> = self.shards.iter_mut().flat_map(|s| {
            s.bytes = 0;
            std::mem::take(&mut s.keys).into_iter().zip(std::mem::take(&mut s.lists)).map(|(k, (last, l))| (k, last, l))
        }).collect();
        all.sort_unstable_by_key(|e| e.0);
        all
    }

    /// Writes the lists as a new segment (its file, then its row) and empties them; returns
    /// the bytes written.
    pub fn flush(&mut self, c: &Connection, dir: &Path) -> rusqlite::Result<u64> {
        let Some(first) = self.first_block else { return Ok(0) };
        let seg: i64 = c.query_row("SELECT coalesce(max(id), 0) + 1 FROM segments", [], |r| r.get(0))?;
        let all = self.take_lists();
        let name = file_name(c, seg)?;
        let bytes = segment::write(dir, &name, &all).map_err(|e| segment::damaged(&dir.join(&name), &e.to_string()))?;
        c.execute("INSERT INTO segments(id, first_block, last_block, bytes, file) VALUES(?1, ?2, ?3, ?4, ?5)", params![seg, first as i64, self.last_block as i64, bytes as i64, name])?;
        self.bytes = 0;
        self.first_block = None;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_radix_sort_orders_every_kind_of_key_and_keeps_block_order() {
        // The kinds of key: bytes, trigrams, tools, word pairs, roles; all below 1 << 27. Keys
        // that differ only in the bits of either pass, or in both.
        let kinds = [1 << 24 | 0x61, 3 << 24 | 0xff_ffff, grams::tool_key("bash"), 5 << 24 | 0xab_cd00, grams::role_key("toolResult")];
        assert!(kinds.iter().all(|&k| k < 1 << 27));
        let mut seed = 1u64;
        let mut v: Vec<u64> = (0..5000u64)
            .map(|i| {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let kind = kinds[(seed >> 60) as usize % kinds.len()] & 0x0f00_0000;
                let k = kind | (seed >> 33) as u32 & if seed & 1 == 0 { 0xff_ffff } else { 0x38 };
                // One shard's keys: the low 3 bits that put the key in shard 5.
                let k = k & !7 | (5 ^ (k >> 8 ^ k >> 16) & 7);
                assert_eq!(shard_of(k), 5);
                (k as u64) << 32 | i / 3
            })
            .collect();
        let mut want = v.clone();
        want.sort_by_key(|x| x >> 32);
        radix_sort_hi(&mut v, &mut Vec::new());
        assert_eq!(v, want);
        // One key only: every pass is skipped, nothing moves.
        let mut one: Vec<u64> = (0..10).map(|i| (5u64 << 24 | 7) << 32 | i).collect();
        let same = one.clone();
        radix_sort_hi(&mut one, &mut Vec::new());
        assert_eq!(one, same);
    }

    #[test]
    fn the_lists_hold_each_keys_blocks_across_batches_with_keys_new_in_each() {
        // Batches whose keys are partly new (below, between and above those already held),
        // partly held, some keys in one batch only; every list must equal its blocks encoded.
        let mut seed = 3u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        let mut p = Postings::new();
        let mut id = 0u32;
        // Two segments' worth: the second's lists start after the first's are taken (their
        // first ids absolute again).
        for window in 0..2u32 {
            let mut want: std::collections::BTreeMap<u32, Vec<u32>> = Default::default();
            for batch in 0..12u32 {
                let mut blocks = Vec::new();
                for _ in 0..40 {
                    id += 1 + next() % 3;
                    let spread = 50 + batch * 40 + window * 300;
                    // Some keys differ in their low 3 bits only (one shard's keys are sorted above them).
                    let mut keys: Vec<u32> = (0..next() % 60).map(|_| 3 << 24 | ((next() % spread * 97) ^ (next() % 8))).collect();
                    keys.sort_unstable();
                    keys.dedup();
                    for &k in &keys {
                        want.entry(k).or_default().push(id);
                    }
                    blocks.push((id, keys));
                }
                p.add(&blocks);
            }
            let got = p.take_lists();
            assert_eq!(got.len(), want.len());
            for ((k, last, list), (wk, ids)) in got.iter().zip(&want) {
                assert_eq!((k, *last, list), (wk, *ids.last().unwrap(), &grams::encode(ids)));
            }
            assert_eq!(p.shards.iter().map(|s| s.bytes).sum::<usize>(), 0);
        }
        assert!(p.take_lists().is_empty());
    }
}

//! The id map: id → index of the last entry line with that id.
//!
//! pi's ids are 8 characters. Those are packed into a `u64` and kept in a table of 16-byte
//! slots (an id as a string key took 32), hashed with one multiplication; any other id (older
//! files, other writers) goes to a map of its own. A 200,000-entry session's table is 4 MB
//! instead of 8, so it is faster to fill, whether a file is read or a snapshot decoded, and
//! every parent lookup compares one integer.
//!
//! The table is two halves, an id's half chosen by one bit of its hash, so that a fresh read's
//! ids are mapped on two cores at its end ([`IdMap::insert_later`]).

use std::hash::{BuildHasherDefault, Hasher};

use pi_session_format::pages::HugePages;
use pi_session_format::entry::Id;

/// id → entry index (see the module's documentation).
#[derive(Debug, Clone, Default)]
pub struct IdMap {
    short: [Short; 2],
    other: hashbrown::HashMap<Id, u32, BuildHasherDefault<rustc_hash::FxHasher>>,
}

/// One half of the table of ids of pi's length.
type Short = hashbrown::HashMap<u64, u32, BuildHasherDefault<PackedHasher>, HugePages>;

/// The half of the table a packed id is in: a bit of its hash that neither the table's bucket
/// (its low bits) nor its tag (the top 7) uses.
#[inline]
fn half(k: u64) -> usize {
    use std::hash::BuildHasher;
    (BuildHasherDefault::<PackedHasher>::default().hash_one(k) >> 40) as usize & 1
}

/// An 8-byte id as an integer (its bytes, little-endian); `None` for any other length.
#[inline]
fn pack(id: &str) -> Option<u64> {
    let b: [u8; 8] = id.as_bytes().try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// The id a packed key came from.
fn unpack(k: u64) -> Id {
    let b = k.to_le_bytes();
    // The bytes are those of a `str` of exactly 8 bytes: always UTF-8.
    Id::from(std::str::from_utf8(&b).expect("a packed id is the bytes of a str"))
}

/// The hash of a packed id: a multiplication and a fold, so that the low bits (the table's
/// bucket) and the high ones (its tag) both depend on every byte.
#[derive(Default)]
pub(crate) struct PackedHasher(u64);

impl Hasher for PackedHasher {
    #[inline]
    fn write_u64(&mut self, x: u64) {
        let h = (x ^ (x >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 29);
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `u64` keys are hashed; any other input still hashes consistently.
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.write_u64(self.0 ^ u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A fresh read's ids, mapped at the end of the read ([`IdMap::insert_later`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct LaterIds {
    /// True while a read from the file's start defers its ids.
    pub(crate) on: bool,
    /// (packed id, entry index) of the ids of pi's length, in file order.
    pub(crate) pairs: Vec<(u64, u32)>,
    /// (entry index, index it replaced) for the ids of other lengths, mapped already.
    pub(crate) had: Vec<(u32, u32)>,
}

impl IdMap {
    /// The index of the last entry with `id`.
    #[inline]
    pub fn get(&self, id: &str) -> Option<&u32> {
        match pack(id) {
            Some(k) => self.short[half(k)].get(&k),
            None => self.other.get(id),
        }
    }

    #[inline]
    pub fn contains_key(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// Maps `id` to `i`; returns the index it had.
    #[inline]
    pub fn insert(&mut self, id: &str, i: u32) -> Option<u32> {
        match pack(id) {
            Some(k) => self.short[half(k)].insert(k, i),
            None => self.other.insert(Id::from(id), i),
        }
    }

    pub fn remove(&mut self, id: &str) -> Option<u32> {
        match pack(id) {
            Some(k) => self.short[half(k)].remove(&k),
            None => self.other.remove(id),
        }
    }

    pub fn len(&self) -> usize {
        self.short[0].len() + self.short[1].len() + self.other.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Room for `n` more ids of pi's length.
    pub fn reserve(&mut self, n: usize) {
        let each = half_of(n);
        self.short.iter_mut().for_each(|t| t.reserve(each));
    }

    /// Maps `id` to `i` now, or, for an id of pi's length, leaves it in `later` (packed, in
    /// file order) for [`IdMap::insert_later`]; returns the index an id mapped now had.
    #[inline]
    pub(crate) fn insert_or_defer(&mut self, id: &str, i: u32, later: &mut Vec<(u64, u32)>) -> Option<u32> {
        match pack(id) {
            Some(k) => {
                later.push((k, i));
                None
            }
            None => self.other.insert(Id::from(id), i),
        }
    }

    /// Maps the ids left in `later` (in file order), each half of the table on a core of its
    /// own. Returns (entry index, index it had) for each id that was mapped already, in file
    /// order; the later line wins, as when mapped one by one.
    pub(crate) fn insert_later(&mut self, later: Vec<(u64, u32)>) -> Vec<(u32, u32)> {
        let [a, b] = &mut self.short;
        let part = |h: usize| -> Vec<(u64, u32)> { later.iter().filter(|&&(k, _)| half(k) == h).copied().collect() };
        // A few thousand ids are mapped sooner than a second core is woken.
        let (mut had, more) = if later.len() < 1 << 14 {
            (insert_grouped(a, part(0)), insert_grouped(b, part(1)))
        } else {
            rayon::join(|| insert_grouped(a, part(0)), || insert_grouped(b, part(1)))
        };
        had.extend(more);
        had.sort_unstable();
        had
    }

    /// Every (id, index), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Id, u32)> + '_ {
        self.short.iter().flatten().map(|(&k, &i)| (unpack(k), i)).chain(self.other.iter().map(|(k, &i)| (k.clone(), i)))
    }

    /// Every id, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = Id> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// The half and the bucket where the table of a map reserved for `n` ids looks for `id`
    /// first, as one number. The snapshot writes its ids in this order, so that decoding fills
    /// each half front to back. `None` for an id of another length.
    pub(crate) fn slot_of(id: &str, n: usize) -> Option<u64> {
        use std::hash::BuildHasher;
        let k = pack(id)?;
        let bucket = BuildHasherDefault::<PackedHasher>::default().hash_one(k) & (buckets_for(half_of(n)) - 1);
        Some((half(k) as u64) << 48 | bucket)
    }
}

/// Room in each half for a map of `n` ids: half of them, and a margin of three standard
/// deviations of how they fall (about 1,350 ids for 200,000).
fn half_of(n: usize) -> usize {
    n / 2 + 3 * (n as f64).sqrt() as usize / 2 + 8
}

/// Maps `later` (packed ids of one half, in file order) into `table`, grouped by the part of
/// the table they hash to, so the table fills a few kilobytes at a time. One by one in file
/// order, each insert touched two random places of a table bigger than the cache (a
/// 200,000-entry session's, 4 MB): 100–200 ns an id. Returns (entry index, index it had) for
/// each id that was mapped already, in no particular order.
fn insert_grouped(table: &mut Short, later: Vec<(u64, u32)>) -> Vec<(u32, u32)> {
    use std::hash::BuildHasher;
    let mut had = Vec::new();
    table.reserve(later.len());
    let buckets = buckets_for(table.capacity());
    // Groups of 64 buckets (1 kB of slots); a table of 1,024 buckets or fewer is in the cache.
    let parts = (buckets / 64) as usize;
    if parts <= 16 {
        for (k, i) in later {
            if let Some(p) = table.insert(k, i) {
                had.push((i, p));
            }
        }
        return had;
    }
    let hasher = BuildHasherDefault::<PackedHasher>::default();
    let part_of: Vec<u32> = later.iter().map(|&(k, _)| ((hasher.hash_one(k) & (buckets - 1)) >> 6) as u32).collect();
    // A counting sort by group, stable: an id's lines stay in file order.
    let mut start = vec![0u32; parts + 1];
    for &p in &part_of {
        start[p as usize + 1] += 1;
    }
    for g in 0..parts {
        start[g + 1] += start[g];
    }
    let mut order = vec![(0u64, 0u32); later.len()];
    for (&p, &pair) in part_of.iter().zip(&later) {
        let at = &mut start[p as usize];
        order[*at as usize] = pair;
        *at += 1;
    }
    for (k, i) in order {
        if let Some(p) = table.insert(k, i) {
            had.push((i, p));
        }
    }
    had
}

/// Buckets of a table reserved for `n` ids (the table holds 7/8 of its buckets).
fn buckets_for(n: usize) -> u64 {
    if n < 8 {
        return 8;
    }
    ((n as u64 * 8).div_ceil(7)).next_power_of_two()
}

impl std::ops::Index<&str> for IdMap {
    type Output = u32;
    fn index(&self, id: &str) -> &u32 {
        self.get(id).expect("an id of the map")
    }
}

impl<'a> FromIterator<(&'a str, u32)> for IdMap {
    fn from_iter<I: IntoIterator<Item = (&'a str, u32)>>(it: I) -> IdMap {
        let mut m = IdMap::default();
        for (id, i) in it {
            m.insert(id, i);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_every_length_map_and_unmap() {
        let ids = ["3a986034", "", "a", "abcdefg", "abcdefgh9", "a\u{0}", "a\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}", "é1234567", "日本語", "019aff6f-57e5-7835-a7e1-1fa2660f3f1f"];
        let mut m = IdMap::default();
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(m.insert(id, i as u32), None, "{id:?}");
        }
        assert_eq!(m.len(), ids.len());
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(m.get(id), Some(&(i as u32)), "{id:?}");
            assert_eq!(m[*id], i as u32);
        }
        // "a" and "a" padded with NULs to 8 bytes are different ids.
        assert_ne!(m.get("a"), m.get("a\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}"));
        let mut back: Vec<(String, u32)> = m.iter().map(|(k, i)| (k.to_string(), i)).collect();
        back.sort_by_key(|x| x.1);
        assert_eq!(back, ids.iter().enumerate().map(|(i, id)| (id.to_string(), i as u32)).collect::<Vec<_>>());
        assert_eq!(m.insert("3a986034", 99), Some(0), "a later line wins");
        assert_eq!(m.remove("abcdefgh9"), Some(4));
        assert_eq!(m.remove("abcdefgh"), None);
        assert!(!m.contains_key("abcdefgh9"));
        assert_eq!(m.len(), ids.len() - 1);
    }

    #[test]
    fn a_big_map_of_pi_ids() {
        let mut m = IdMap::default();
        m.reserve(200_000);
        for i in 0..200_000u32 {
            m.insert(&format!("{:08x}", i.wrapping_mul(2_654_435_761)), i);
        }
        assert_eq!(m.len(), 200_000);
        for i in (0..200_000u32).step_by(997) {
            assert_eq!(m.get(&format!("{:08x}", i.wrapping_mul(2_654_435_761))), Some(&i));
        }
        assert_eq!(m.get("zzzzzzzz"), None);
    }

    #[test]
    fn ids_mapped_later_map_as_one_by_one() {
        // Big enough to be grouped (more than 16 groups of 64 buckets), with repeats: the
        // later line wins, and each repeat is reported with the index it replaced.
        for n in [10usize, 5_000, 60_000] {
            let mut ids: Vec<String> = (0..n as u32).map(|i| if i % 997 == 5 { format!("{:08x}", (i / 3).wrapping_mul(2_654_435_761)) } else { format!("{:08x}", i.wrapping_mul(2_654_435_761)) }).collect();
            ids.push("not-a-pi-id".into());
            ids.push("abc".into());
            ids.push(ids[7].clone());
            let mut one = IdMap::default();
            let mut had_one = Vec::new();
            for (i, id) in ids.iter().enumerate() {
                if let Some(p) = one.insert(id, i as u32) {
                    had_one.push((i as u32, p));
                }
            }
            let mut later = Vec::new();
            let mut bulk = IdMap::default();
            let mut had_now = Vec::new();
            for (i, id) in ids.iter().enumerate() {
                if let Some(p) = bulk.insert_or_defer(id, i as u32, &mut later) {
                    had_now.push((i as u32, p));
                }
            }
            let mut had = bulk.insert_later(later);
            had.extend(had_now);
            had.sort_unstable();
            assert_eq!(had, had_one, "n = {n}");
            assert!(n < 5_000 || !had.is_empty());
            assert_eq!(bulk.len(), one.len());
            // Both halves of the table hold ids (past 16,384 ids they are filled at once).
            assert!(bulk.short.iter().all(|t| t.len() > n / 3), "{} + {}", bulk.short[0].len(), bulk.short[1].len());
            for id in &ids {
                assert_eq!(bulk.get(id), one.get(id), "{id}");
            }
        }
    }

    #[test]
    fn an_id_map_in_huge_pages_works_as_a_map() {
        let mut m: IdMap = Default::default();
        m.reserve(100_000);
        for i in 0..100_000u32 {
            m.insert(&format!("{i:08x}"), i);
        }
        assert_eq!(m.get("0000ffff"), Some(&0xffff));
        assert_eq!(m.len(), 100_000);
    }
}


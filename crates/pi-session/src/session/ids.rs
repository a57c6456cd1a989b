//! The id map: id → index of the last entry line with that id.
//!
//! pi's ids are 8 characters. Those are packed into a `u64` and kept in a table of 16-byte
//! slots (an id as a string key took 32), hashed with one multiplication; any other id (older
//! files, other writers) goes to a map of its own. A 200,000-entry session's table is 4 MB
//! instead of 8, so it is faster to fill, whether a file is read or a snapshot decoded, and
//! every parent lookup compares one integer.

use std::hash::{BuildHasherDefault, Hasher};

use pi_session_format::pages::HugePages;
use pi_session_format::entry::Id;

/// id → entry index (see the module's documentation).
#[derive(Debug, Clone, Default)]
pub struct IdMap {
    short: hashbrown::HashMap<u64, u32, BuildHasherDefault<PackedHasher>, HugePages>,
    other: hashbrown::HashMap<Id, u32, BuildHasherDefault<rustc_hash::FxHasher>>,
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

impl IdMap {
    /// The index of the last entry with `id`.
    #[inline]
    pub fn get(&self, id: &str) -> Option<&u32> {
        match pack(id) {
            Some(k) => self.short.get(&k),
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
            Some(k) => self.short.insert(k, i),
            None => self.other.insert(Id::from(id), i),
        }
    }

    pub fn remove(&mut self, id: &str) -> Option<u32> {
        match pack(id) {
            Some(k) => self.short.remove(&k),
            None => self.other.remove(id),
        }
    }

    pub fn len(&self) -> usize {
        self.short.len() + self.other.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Room for `n` more ids of pi's length.
    pub fn reserve(&mut self, n: usize) {
        self.short.reserve(n);
    }

    /// Every (id, index), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Id, u32)> + '_ {
        self.short.iter().map(|(&k, &i)| (unpack(k), i)).chain(self.other.iter().map(|(k, &i)| (k.clone(), i)))
    }

    /// Every id, in no particular order.
    pub fn keys(&self) -> impl Iterator<Item = Id> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// The bucket where the short table of a map reserved for `n` ids looks for `id` first.
    /// The snapshot writes its ids in this order, so that decoding fills the table front to
    /// back. `None` for an id of another length.
    pub(crate) fn slot_of(id: &str, n: usize) -> Option<u64> {
        use std::hash::BuildHasher;
        let k = pack(id)?;
        Some(BuildHasherDefault::<PackedHasher>::default().hash_one(k) & (buckets_for(n) - 1))
    }
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

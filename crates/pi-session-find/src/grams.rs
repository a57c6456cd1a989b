//! The n-grams of the index and their posting lists.
//!
//! A *gram* is a window of 1 or 3 bytes of an entry's lowercased searchable text (UTF-8), as a
//! key `n << 24 | bytes`; each text is taken with a 0 byte after it, so its last two bytes
//! start a trigram too. A term of 3+ bytes needs all of its trigrams, a term of 2 bytes one of
//! the 256 trigrams it starts, one byte its unigram: a block of entries holding the term holds
//! those grams, so the blocks holding a query's grams are a superset of the blocks holding its
//! terms (each candidate is then checked against the entry's text itself).
//!
//! Two words in a row are a key too (`5 << 24 | hash << 8 | byte`): a 16-bit hash of the last 3
//! bytes of the first word (all of it when shorter) and the first 2 of the second, then the
//! second word's third byte (0 when it has two bytes or fewer), whatever parts them. A phrase of
//! common words ("the parser") has only common trigrams, but its word pairs are rare: they keep
//! the candidates of a phrase near its hits. A phrase ending in a word of 2 bytes ("should be")
//! needs one of the 256 keys of a range (the word alone, or any third byte after it). A word is
//! a run of ASCII letters, digits, `_` and non-ASCII bytes.
//!
//! Tool names are keys too (`4 << 24 | hash`): a `tool:` filter narrows the blocks like a term.
//! So are the roles of a block's entries (`6 << 24 | hash`, the role as the `role:` filter
//! compares it): `role:compaction schema` reads the few blocks holding a compaction, not every
//! block holding `schema`.
//!
//! A posting list is the ascending block ids holding a gram, each written as its difference
//! from the previous one (the first from 0) in LEB128 varints.

/// The key of the gram `w` (1 to 3 bytes).
#[inline]
fn key(w: &[u8]) -> u32 {
    match *w {
        [a] => 1 << 24 | a as u32,
        [a, b] => 2 << 24 | (a as u32) << 8 | b as u32,
        [a, b, c] => 3 << 24 | (a as u32) << 16 | (b as u32) << 8 | c as u32,
        _ => unreachable!("grams are 1 to 3 bytes"),
    }
}

fn fnv24(parts: &[&[u8]]) -> u32 {
    let mut h: u32 = 0x811c9dc5;
    for p in parts {
        for &b in *p {
            h ^= b as u32;
            h = h.wrapping_mul(0x01000193);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x01000193);
    }
    h & 0x00ff_ffff
}

/// The key standing for "calls or reports tool `name`".
pub fn tool_key(name: &str) -> u32 {
    4 << 24 | fnv24(&[name.as_bytes()])
}

/// The key standing for "holds an entry of role `role`" (the entries table's `role`).
pub fn role_key(role: &str) -> u32 {
    6 << 24 | fnv24(&[role.as_bytes()])
}

/// The last 3 bytes of a word (all of a shorter one), with their count.
#[inline]
fn word_end(w: &[u8]) -> u32 {
    let n = w.len().min(3);
    (n as u32) << 24 | w[w.len() - n..].iter().fold(0, |k, &b| k << 8 | b as u32)
}

/// The first 2 bytes of a word (all of a shorter one) with their count, and its third byte (0
/// when it has none).
#[inline]
fn word_start(w: &[u8]) -> (u32, u8) {
    let n = w.len().min(2);
    ((n as u32) << 24 | w[..n].iter().fold(0, |k, &b| k << 8 | b as u32), w.get(2).copied().unwrap_or(0))
}

/// The key of two words in a row: `a` the end of the first ([`word_end`]), `b` and `third` the
/// start of the second ([`word_start`]). 24 bits: the hash in the upper 16, the third byte in
/// the lower 8, so the keys of one start are one range.
#[inline]
fn pair_key_of(a: u32, b: u32, third: u8) -> u32 {
    let x = ((a as u64) << 32 | b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    5 << 24 | ((x >> 48) as u32) << 8 | third as u32
}

fn pair_key(a: &[u8], b: &[u8]) -> u32 {
    let (start, third) = word_start(b);
    pair_key_of(word_end(a), start, third)
}

/// The 256 keys of the words starting with `b` (2 bytes) after `a`: the range of every third
/// byte.
fn pair_range(a: &[u8], b: &[u8]) -> (u32, u32) {
    let (start, _) = word_start(b);
    let lo = pair_key_of(word_end(a), start, 0);
    (lo, lo | 0xff)
}

/// Word bytes: ASCII letters and digits, `_`, and every byte of a non-ASCII character.
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
        i += 1;
    }
    t
};

#[inline]
fn is_word(b: u8) -> bool {
    WORD[b as usize]
}

/// The words of `t`: (start, end) of each run of word bytes.
fn words(t: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
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
        out.push((s, i));
    }
    out
}

/// The word-pair keys a lowercased term needs, and the ranges it needs one key of. Its first
/// word may end a longer word of the text and its last word may start one, so they give a key
/// only when long enough (3 bytes; the last word 2, whose range stands for every word it
/// starts) or bounded by a separator inside the term.
fn term_pairs(t: &[u8]) -> (Vec<u32>, Vec<(u32, u32)>) {
    let w = words(t);
    let (mut keys, mut ranges) = (Vec::new(), Vec::new());
    for k in 1..w.len() {
        let ((s1, e1), (s2, e2)) = (w[k - 1], w[k]);
        let a_known = e1 - s1 >= 3 || s1 > 0;
        let end = &t[e1.saturating_sub(3).max(s1)..e1];
        if !a_known {
            continue;
        }
        if e2 - s2 >= 3 || e2 < t.len() {
            keys.push(pair_key(end, &t[s2..e2]));
        } else if e2 - s2 == 2 {
            ranges.push(pair_range(end, &t[s2..e2]));
        }
    }
    (keys, ranges)
}

/// What a block must hold for a lowercased term: every key of `all`, and a key of each range
/// of `any` (a term of two bytes: the trigrams it starts; a phrase ending in a word of two
/// bytes: the pairs of the words it starts).
pub struct Needs {
    pub all: Vec<u32>,
    pub any: Vec<(u32, u32)>,
}

/// The grams a lowercased term needs: its trigrams and word pairs, or one of the trigrams a
/// 2-byte term starts, or its unigram. Nothing for an empty term.
pub fn term_needs(term: &[u8]) -> Needs {
    match term.len() {
        2 => Needs { all: Vec::new(), any: vec![(key(&[term[0], term[1], 0]), key(&[term[0], term[1], 255]))] },
        _ => {
            let (pairs, ranges) = term_pairs(term);
            let mut all: Vec<u32> = if term.len() == 1 { vec![key(term)] } else { term.windows(3).map(key).collect() };
            all.extend(pairs);
            all.sort_unstable();
            all.dedup();
            Needs { all, any: ranges }
        }
    }
}

/// The distinct grams of a block of texts, gathered with bitmaps that are cleared after each
/// block (so one set serves a whole file or batch).
pub struct GramSet {
    /// Trigrams of ASCII bytes only (most of them): 7 bits a byte, 256 kB, which stays in
    /// the core's cache.
    ascii: Box<[u64; 1 << 15]>,
    /// The others (a byte of a non-ASCII character in them).
    tri: Box<[u64; 1 << 18]>,
    uni: [u64; 4],
    /// Word pairs: 24-bit keys, 2 MB.
    pairs: Box<[u64; 1 << 18]>,
    found: Vec<u32>,
    bytes: Vec<u32>,
    tools: Vec<u32>,
}

impl Default for GramSet {
    fn default() -> Self {
        GramSet { ascii: vec![0u64; 1 << 15].into_boxed_slice().try_into().unwrap(), tri: vec![0u64; 1 << 18].into_boxed_slice().try_into().unwrap(), uni: [0; 4], pairs: vec![0u64; 1 << 18].into_boxed_slice().try_into().unwrap(), found: Vec::new(), bytes: Vec::new(), tools: Vec::new() }
    }
}

impl GramSet {
    /// Adds the grams of one lowercased text (and of the 0 byte taken after it). Its bytes
    /// are found again from its trigrams when the block is taken (each byte starts one or is
    /// the middle of the last), so only the trigrams are looked at here.
    pub fn add_text(&mut self, t: &[u8]) {
        let n = t.len();
        if n < 2 {
            for &a in t {
                self.add_byte(a);
            }
        } else {
            let mut k = (t[0] as u32) << 8 | t[1] as u32;
            for &a in &t[2..] {
                k = (k << 8 | a as u32) & 0x00ff_ffff;
                self.mark(k);
            }
            self.mark((k << 8) & 0x00ff_ffff);
        }
        // Word pairs, in one pass: the current word's first 3 and last 3 bytes kept as it goes.
        let (mut len, mut head, mut tail) = (0u32, 0u32, 0u32);
        let mut prev: u32 = 0;
        for &b in t.iter().chain(std::iter::once(&b' ')) {
            if is_word(b) {
                if len < 3 {
                    head = head << 8 | b as u32;
                }
                tail = (tail << 8 | b as u32) & 0x00ff_ffff;
                len += 1;
            } else if len > 0 {
                if prev != 0 {
                    let (start, third) = if len >= 3 { (2 << 24 | head >> 8, head as u8) } else { (len << 24 | head, 0) };
                    self.mark_pair(pair_key_of(prev, start, third));
                }
                prev = len.min(3) << 24 | tail;
                (len, head, tail) = (0, 0, 0);
            }
        }
    }

    #[inline(always)]
    fn mark_pair(&mut self, k: u32) {
        let v = k & 0x00ff_ffff;
        let (x, bit) = ((v >> 6) as usize, 1u64 << (v & 63));
        if self.pairs[x] & bit == 0 {
            self.pairs[x] |= bit;
            self.found.push(k);
        }
    }

    /// Where trigram `k` is: in the ASCII bitmap or the other, its word and bit.
    #[inline(always)]
    fn slot(k: u32) -> (bool, usize, u64) {
        if k & 0x0080_8080 == 0 {
            let v = (k >> 2 & 0x1f_c000) | (k >> 1 & 0x3f80) | (k & 0x7f);
            (true, v as usize >> 6, 1u64 << (v & 63))
        } else {
            (false, (k >> 6) as usize & 0x3ffff, 1u64 << (k & 63))
        }
    }

    #[inline(always)]
    fn mark(&mut self, k: u32) {
        let (ascii, w, bit) = Self::slot(k);
        let map = if ascii { &mut self.ascii[..] } else { &mut self.tri[..] };
        let x = map[w];
        if x & bit == 0 {
            map[w] = x | bit;
            self.found.push(3 << 24 | k);
        }
    }

    /// Adds a key of another kind (a tool's, a role's).
    pub fn add_key(&mut self, k: u32) {
        if !self.tools.contains(&k) {
            self.tools.push(k);
        }
    }

    fn add_byte(&mut self, a: u8) {
        let (w, bit) = (a as usize >> 6, 1u64 << (a & 63));
        if self.uni[w] & bit == 0 {
            self.uni[w] |= bit;
            self.bytes.push(1 << 24 | a as u32);
        }
    }

    /// The block's distinct keys (in no order); the set is empty again after.
    pub fn take(&mut self) -> Vec<u32> {
        // The bytes of the texts: the first two of each trigram (the pad 0 is not a byte).
        for i in 0..self.found.len() {
            let k = self.found[i];
            if k >> 24 == 3 {
                self.add_byte((k >> 16) as u8);
                // The last trigram of a text ends with the pad: its middle is the last byte.
                if k & 0xff == 0 {
                    self.add_byte((k >> 8) as u8);
                }
            }
        }
        self.found.append(&mut self.bytes);
        self.found.append(&mut self.tools);
        let out = std::mem::take(&mut self.found);
        for &k in &out {
            let v = k & 0x00ff_ffff;
            match k >> 24 {
                1 => self.uni[(v >> 6) as usize] = 0,
                3 => match Self::slot(v) {
                    (true, w, _) => self.ascii[w] = 0,
                    (false, w, _) => self.tri[w] = 0,
                },
                5 => self.pairs[(v >> 6) as usize] = 0,
                _ => {}
            }
        }
        out
    }
}

pub fn put_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends the values of list `b` (ascending, its first value absolute) to `out`, whose last
/// value is `last` (None: `out` is empty). Fails on a malformed list.
pub fn decode_into(b: &[u8], out: &mut Vec<u32>) -> Result<(), &'static str> {
    let mut cur: u32 = 0;
    let mut v: u32 = 0;
    let mut shift = 0u32;
    for &x in b {
        if shift > 28 {
            return Err("a varint longer than 5 bytes");
        }
        v |= ((x & 0x7f) as u32) << shift;
        if x & 0x80 == 0 {
            cur = cur.checked_add(v).ok_or("a block id past 2^32")?;
            out.push(cur);
            v = 0;
            shift = 0;
        } else {
            shift += 7;
        }
    }
    if shift != 0 {
        return Err("a list cut inside a varint");
    }
    Ok(())
}

/// A posting list of ascending ids.
pub fn encode(ids: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ids.len() + 4);
    let mut last = 0;
    for &id in ids {
        put_varint(&mut out, id - last);
        last = id;
    }
    out
}

/// The ids in both ascending lists.
pub fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (small, big) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(small.len());
    if small.len() * 16 < big.len() {
        // Galloping: a short list against a long one.
        let mut from = 0;
        for &x in small {
            match big[from..].binary_search(&x) {
                Ok(k) => {
                    out.push(x);
                    from += k + 1;
                }
                Err(k) => from += k,
            }
            if from >= big.len() {
                break;
            }
        }
        return out;
    }
    let (mut i, mut j) = (0, 0);
    while i < small.len() && j < big.len() {
        match small[i].cmp(&big[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(small[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a block of `keys` (sorted) holds every key `t` needs.
    fn holds(keys: &[u32], t: &[u8]) -> bool {
        let n = term_needs(t);
        n.all.iter().all(|k| keys.binary_search(k).is_ok()) && n.any.iter().all(|&(lo, hi)| keys.iter().any(|k| (lo..=hi).contains(k)))
    }

    fn keys_of(text: &[u8]) -> Vec<u32> {
        let mut s = GramSet::default();
        s.add_text(text);
        let mut keys = s.take();
        keys.sort_unstable();
        keys
    }

    #[test]
    fn a_block_holding_a_term_holds_every_key_of_it() {
        let keys = keys_of("src/parser.ts café 日本語 ok".as_bytes());
        for t in ["src/parser.ts", "parser", "café", "日本語", "ok", "k", "é", "日", "c/pars", "rc/parser.t", "parser.ts café", "s café 日本語 o", "ts café", "sr", "ts", " o", "ts ca", "s café 日本語 ok"] {
            assert!(holds(&keys, t.as_bytes()), "{t}");
        }
        assert!(!holds(&keys, b"zz"));
        // The set is empty again.
        let mut s = GramSet::default();
        s.add_text(b"x");
        s.take();
        assert!(s.take().is_empty());
        assert_eq!(keys_of(b"ab"), vec![1 << 24 | b'a' as u32, 1 << 24 | b'b' as u32, 3 << 24 | (b'a' as u32) << 16 | (b'b' as u32) << 8]);
        // A phrase's word pairs: present only where the words meet.
        let keys = keys_of(b"the sparse; ape parser");
        assert!(holds(&keys, b"the spa"));
        assert!(holds(&keys, b"e pars"));
        // Every trigram of "the parser" is there, its pair (the, par) is not.
        let missing: Vec<u32> = term_needs(b"the parser").all.into_iter().filter(|k| keys.binary_search(k).is_err()).collect();
        assert_eq!(missing, term_pairs(b"the parser").0);
        assert_eq!(term_pairs(b"he parser"), (vec![], vec![]), "a first word of 2 bytes may end a longer word");
        assert_eq!(term_pairs(b"x he parser").0.len(), 1, "(he, par): \"he\" is a whole word");
        assert_eq!(term_pairs(b"the p"), (vec![], vec![]), "a last word of 1 byte may start a longer word");
        assert_eq!(term_pairs(b"the pa").1.len(), 1, "a last word of 2 bytes has the range of the words it starts");
        let keys = keys_of(b"it should because");
        assert!(holds(&keys, b"should be"), "\"should be\" is in \"should because\"");
        assert!(holds(&keys, b"should bec"));
        assert!(!holds(&keys, b"should bet"));
        assert!(!holds(&keys, b"should ba"), "no word after \"should\" starts with ba");
        assert!(holds(&keys_of(b"it should be"), b"should be"), "the word alone");
        assert!(!holds(&keys_of(b"it should be"), b"should bec"));
        assert_eq!(term_pairs(b"the p ").0.len(), 1);
        // Three bytes of the second word: "edge cache" does not stand for "edge case".
        let keys = keys_of(b"an edge cache");
        assert!(holds(&keys, b"edge cac"));
        assert!(!holds(&keys, b"edge case"));
        // A bounded short word is that word only: "to a" is not in "to ab".
        assert!(!holds(&keys_of(b"go to ab now"), b"go to a now"));
        assert!(holds(&keys_of(b"go to a now"), b"go to a now"));
    }

    #[test]
    fn lists_round_trip_and_intersect() {
        let a = vec![0, 1, 5, 300, 70_000, 4_000_000_000];
        let mut back = Vec::new();
        decode_into(&encode(&a), &mut back).unwrap();
        assert_eq!(back, a);
        assert!(decode_into(&[0x80], &mut Vec::new()).is_err());
        assert!(decode_into(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01], &mut Vec::new()).is_err());
        let b: Vec<u32> = (0..100_000).step_by(5).collect();
        assert_eq!(intersect(&a, &b), vec![0, 5, 300, 70_000]);
        assert_eq!(intersect(&b, &a), vec![0, 5, 300, 70_000]);
        assert_eq!(intersect(&[1, 2, 3], &[2, 3, 4]), vec![2, 3]);
    }
}


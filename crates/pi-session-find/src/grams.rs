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

/// Bytes of a text taken at a time (a multiple of 64).
const PIECE: usize = 1 << 16;

/// Word pairs held before they are made distinct (4 MB).
const PAIRS_HELD: usize = 1 << 20;

/// The distinct grams of a block of texts, gathered with bitmaps that are cleared after each
/// block (so one set serves a whole file or batch).
pub struct GramSet {
    /// Trigrams: see [`tri_slot`].
    tri: Box<[u64]>,
    uni: [u64; 4],
    /// The word pairs' keys of the block, each as often as it occurs: they are made distinct
    /// by a sort when the block is taken. (A bitmap of the 2^24 keys, 2 MB, missed the cache on
    /// almost every pair: its bit test was 40% of the key making.)
    pairs: Vec<u32>,
    /// The sort's other half.
    sorted: Vec<u32>,
    found: Vec<u32>,
    /// Where a text's keys are written before the new ones are kept (it only grows).
    scratch: Vec<u32>,
    bytes: Vec<u32>,
    tools: Vec<u32>,
}

impl Default for GramSet {
    fn default() -> Self {
        GramSet { tri: vec![0u64; (1 << 15) + (1 << 18)].into_boxed_slice(), uni: [0; 4], pairs: Vec::new(), sorted: Vec::new(), found: Vec::new(), scratch: Vec::new(), bytes: Vec::new(), tools: Vec::new() }
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
            self.add_trigrams(t);
        }
        self.add_pairs(t);
    }

    /// The trigrams of a text (its last two bytes with the pad too): each is set in its
    /// bitmap and written to the scratch list, which counts it only when it was new (no
    /// branch on a trigram being new, which no predictor guesses). A long text is taken
    /// [`PIECE`] bytes at a time: the scratch list holds one piece (a text of 80 MB held
    /// 320 MB of it).
    fn add_trigrams(&mut self, t: &[u8]) {
        if self.scratch.len() < PIECE + 1 {
            self.scratch.resize(PIECE + 1, 0);
        }
        let map = &mut self.tri[..];
        let mut k = (t[0] as u32) << 8 | t[1] as u32;
        let rest = &t[2..];
        let mut from = 0;
        loop {
            let to = (from + PIECE).min(rest.len());
            let last = to == rest.len();
            let out = &mut self.scratch[..];
            let mut m = 0;
            for &c in rest[from..to].iter().chain(last.then_some(&0u8)) {
                k = (k << 8 | c as u32) & 0x00ff_ffff;
                let (w, bit) = tri_slot(k);
                let x = map[w];
                map[w] = x | bit;
                out[m] = 3 << 24 | k;
                m += (x & bit == 0) as usize;
            }
            self.found.extend_from_slice(&out[..m]);
            if last {
                return;
            }
            from = to;
        }
    }

    /// The word pairs of `t` (taken with a separator after it): each word's first and last 3
    /// bytes read where the word starts and ends, the words found 64 bytes at a time from a
    /// mask of word bytes. A long text is taken [`PIECE`] bytes at a time, and the pairs held
    /// are made distinct whenever they pass [`PAIRS_HELD`] (as [`GramSet::take`] does).
    fn add_pairs(&mut self, t: &[u8]) {
        let mut start = 0usize;
        let mut in_word = false;
        let mut prev = 0;
        let mut at = 0;
        let mut pad = [0u8; 64];
        while at < t.len() {
            // A piece is a whole number of 64-byte chunks, so the chunks are the same.
            let to = (at + PIECE).min(t.len());
            // At most one pair per two bytes, and the last word's.
            let at0 = self.pairs.len();
            self.pairs.resize(at0 + (to - at) / 2 + 1, 0);
            let mut pairs = Pairs { out: &mut self.pairs[at0..], m: 0, prev };
            while at < to {
                let m = if at + 64 <= t.len() {
                    word_mask(t[at..at + 64].try_into().unwrap())
                } else {
                    pad[..t.len() - at].copy_from_slice(&t[at..]);
                    pad[t.len() - at..].fill(0);
                    word_mask(&pad)
                };
                let mut edges = m ^ (m << 1 | in_word as u64);
                while edges != 0 {
                    let pos = at + edges.trailing_zeros() as usize;
                    edges &= edges - 1;
                    if in_word {
                        pairs.word(&t[start..pos]);
                    } else {
                        start = pos;
                    }
                    in_word = !in_word;
                }
                at += 64;
            }
            if at >= t.len() && in_word {
                pairs.word(&t[start..]);
                in_word = false;
            }
            let m = pairs.m;
            prev = pairs.prev;
            self.pairs.truncate(at0 + m);
            if self.pairs.len() > PAIRS_HELD {
                sort_low24(&mut self.pairs, &mut self.sorted);
                self.pairs.dedup();
            }
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
        for &k in &self.found {
            let v = k & 0x00ff_ffff;
            match k >> 24 {
                1 => self.uni[(v >> 6) as usize] = 0,
                3 => self.tri[tri_slot(v).0] = 0,
                _ => {}
            }
        }
        sort_low24(&mut self.pairs, &mut self.sorted);
        let distinct = self.pairs.iter().zip(self.pairs.iter().skip(1)).filter(|(a, b)| a != b).count() + !self.pairs.is_empty() as usize;
        // The block's list allocated once, at its size (`found` is kept, and grows no more
        // after the first blocks).
        let mut out = Vec::with_capacity(self.found.len() + distinct);
        out.extend_from_slice(&self.found);
        self.found.clear();
        let mut last = None;
        for &k in &self.pairs {
            if last != Some(k) {
                out.push(k);
                last = Some(k);
            }
        }
        self.pairs.clear();
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

    /// The keys of a text as the module's doc defines them, computed the plain way.
    fn keys_by_definition(t: &[u8]) -> Vec<u32> {
        let mut keys: Vec<u32> = t.iter().map(|&b| key(&[b])).collect();
        let padded: Vec<u8> = t.iter().copied().chain([0]).collect();
        keys.extend(padded.windows(3).map(key));
        let w = words(t);
        keys.extend(w.windows(2).map(|p| pair_key(&t[p[0].0..p[0].1], &t[p[1].0..p[1].1])));
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    #[test]
    fn the_gram_set_gives_the_keys_of_the_definition() {
        for b in 0..=255u8 {
            let mut chunk = [b' '; 64];
            chunk[b as usize % 64] = b;
            assert_eq!(word_mask(&chunk), (is_word(b) as u64) << (b as usize % 64), "byte {b}");
            assert_eq!(word_mask_by_table(&chunk), word_mask(&chunk), "byte {b}");
            let all = [b; 64];
            assert_eq!(word_mask_by_table(&all), word_mask(&all), "byte {b}");
        }
        let mut texts: Vec<Vec<u8>> = ["", "a", "ab", "the parser", "é", "日本語 ok", "a\0b c", "x_1 y2 __ zz"].iter().map(|t| t.as_bytes().to_vec()).collect();
        // Words across the 64-byte chunks, texts ending in a word or not, bytes of every kind.
        let mut seed = 7u64;
        let alphabet: Vec<u8> = "ab_9 .-/éZ日\n\u{0}".bytes().collect();
        for n in [63, 64, 65, 127, 128, 129, 200, 1000] {
            for _ in 0..20 {
                texts.push((0..n).map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    alphabet[(seed >> 33) as usize % alphabet.len()]
                }).collect());
            }
        }
        let mut set = GramSet::default();
        for t in &texts {
            set.add_text(t);
            let mut got = set.take();
            got.sort_unstable();
            assert_eq!(got, keys_by_definition(t), "{:?}", String::from_utf8_lossy(t));
        }
        // Several texts in one block: the union, each key once.
        for t in &texts[8..20] {
            set.add_text(t);
        }
        let mut got = set.take();
        got.sort_unstable();
        let mut want: Vec<u32> = texts[8..20].iter().flat_map(|t| keys_by_definition(t)).collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(got, want);
        // Every text in one block: thousands of word pairs, sorted by the radix passes.
        for t in &texts {
            set.add_text(t);
        }
        let mut got = set.take();
        got.sort_unstable();
        let mut want: Vec<u32> = texts.iter().flat_map(|t| keys_by_definition(t)).collect();
        want.sort_unstable();
        want.dedup();
        assert!(want.iter().filter(|k| *k >> 24 == 5).count() > 1000);
        assert_eq!(got, want);
    }

    /// A text longer than a piece, with more word pairs than are held before they are made
    /// distinct: the keys of the definition, and the lists it holds meanwhile bounded.
    #[test]
    fn a_long_text_is_taken_in_pieces() {
        let mut seed = 11u64;
        let mut t = Vec::new();
        // Words of 1 to 3 letters and a few long ones: about 1.8 M words in 8 MB.
        while t.len() < 8_000_000 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let n = [1, 2, 3, 2, 9][(seed >> 40) as usize % 5];
            t.extend((0..n).map(|i| b"abcdefghijklmnopqrstuvwxyz"[((seed >> (8 + 3 * i)) % 26) as usize]));
            t.push([b' ', b'.', b'\n', b' '][(seed >> 20) as usize % 4]);
        }
        assert!(t.len() > 4 * PIECE && t.len() / 5 > PAIRS_HELD + PIECE);
        let mut set = GramSet::default();
        set.add_text(&t);
        assert!(set.scratch.len() <= PIECE + 1, "the scratch list holds one piece");
        assert!(set.pairs.len() <= PAIRS_HELD + PIECE / 2 + 1, "{} pairs held", set.pairs.len());
        let mut got = set.take();
        got.sort_unstable();
        assert_eq!(got, keys_by_definition(&t));
        // The set is empty again, and a text ending in a word at a piece's end is whole.
        let mut t = vec![b'x'; PIECE - 3];
        t.extend(b" abc");
        t.extend(b" defg hi");
        let mut got = keys_of(&t);
        got.sort_unstable();
        assert_eq!(got, keys_by_definition(&t));
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


/// The word pairs of one text being gathered: `prev` the end of the word before ([`word_end`],
/// 0 before the first), each pair's key written to `out[m]`.
struct Pairs<'a> {
    out: &'a mut [u32],
    m: usize,
    prev: u32,
}

impl Pairs<'_> {
    #[inline(always)]
    fn word(&mut self, w: &[u8]) {
        if self.prev != 0 {
            let (start, third) = if w.len() >= 3 { (2 << 24 | (w[0] as u32) << 8 | w[1] as u32, w[2]) } else { word_start(w) };
            self.out[self.m] = pair_key_of(self.prev, start, third);
            self.m += 1;
        }
        self.prev = word_end(w);
    }
}

/// Sorts keys of one kind (the same upper 8 bits) by their lower 24: two passes of 12 bits,
/// least significant first, for a long list; the standard sort for a short one.
fn sort_low24(v: &mut Vec<u32>, scratch: &mut Vec<u32>) {
    if v.len() < 256 {
        v.sort_unstable();
        return;
    }
    scratch.clear();
    scratch.resize(v.len(), 0);
    let mut count = [[0u32; 4096]; 2];
    for &x in v.iter() {
        count[0][(x & 0xfff) as usize] += 1;
        count[1][(x >> 12 & 0xfff) as usize] += 1;
    }
    for (pass, c) in count.iter_mut().enumerate() {
        let mut sum = 0;
        for n in c.iter_mut() {
            (*n, sum) = (sum, sum + *n);
        }
        let shift = 12 * pass;
        for &x in v.iter() {
            let d = (x >> shift & 0xfff) as usize;
            scratch[c[d] as usize] = x;
            c[d] += 1;
        }
        std::mem::swap(v, scratch);
    }
}

/// Bit `i` set when byte `i` of `chunk` is a word byte.
#[cfg(target_arch = "x86_64")]
#[inline]
fn word_mask(chunk: &[u8; 64]) -> u64 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; each load reads 16 of the array's 64 bytes.
    unsafe {
        let mut m = 0u64;
        for j in 0..4 {
            let v = _mm_loadu_si128(chunk.as_ptr().add(16 * j) as *const __m128i);
            let digit = _mm_sub_epi8(v, _mm_set1_epi8(b'0' as i8));
            let d = _mm_cmpeq_epi8(_mm_min_epu8(digit, _mm_set1_epi8(9)), digit);
            let letter = _mm_sub_epi8(_mm_or_si128(v, _mm_set1_epi8(0x20)), _mm_set1_epi8(b'a' as i8));
            let l = _mm_cmpeq_epi8(_mm_min_epu8(letter, _mm_set1_epi8(25)), letter);
            let u = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'_' as i8));
            // A byte's top bit: set for a byte of a non-ASCII character.
            let w = _mm_or_si128(_mm_or_si128(d, l), _mm_or_si128(u, v));
            m |= (_mm_movemask_epi8(w) as u32 as u64) << (16 * j);
        }
        m
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn word_mask(chunk: &[u8; 64]) -> u64 {
    word_mask_by_table(chunk)
}

/// [`word_mask`] a byte at a time, from the table of word bytes (the other machines' mask; the
/// test holds the SSE2 one to it).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn word_mask_by_table(chunk: &[u8; 64]) -> u64 {
    chunk.iter().enumerate().fold(0, |m, (i, &b)| m | (is_word(b) as u64) << i)
}

/// The word of trigram `k` in the one bitmap of trigrams and its bit: trigrams of ASCII bytes
/// (most of them) first, 7 bits a byte (256 kB, which stays in the core's cache), then the
/// others.
#[inline(always)]
fn tri_slot(k: u32) -> (usize, u64) {
    let compact = (k >> 2 & 0x1f_c000) | (k >> 1 & 0x3f80) | (k & 0x7f);
    let v = if k & 0x0080_8080 == 0 { compact } else { (1 << 21) + k };
    ((v >> 6) as usize, 1u64 << (v & 63))
}

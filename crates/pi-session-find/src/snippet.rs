//! Hit snippets: a window of an entry's text around the first match, with every match in it
//! marked in UTF-16 code units (what the UI's strings count).

/// A window of `text` around the first match of any term, whitespace folded, with the ranges
/// of every match inside it, in UTF-16 code units.
pub fn snippet(text: &str, terms: &[String]) -> (String, Vec<[u32; 2]>) {
    snippet_lowered(text, None, terms)
}

/// [`snippet`], given `text` lowercased already (`lower`, when the caller has it: a long
/// text is not lowercased twice).
pub fn snippet_lowered(text: &str, lower: Option<&str>, terms: &[String]) -> (String, Vec<[u32; 2]>) {
    // Long texts (tool output): cut a window around the first match before the per-character
    // work, when lowercasing keeps byte offsets (it nearly always does).
    if text.len() > 2048 {
        let owned;
        let lower = match lower {
            Some(l) => l,
            None => {
                owned = text.to_lowercase();
                &owned
            }
        };
        if lower.len() == text.len() {
            let first = terms.iter().filter(|t| !t.is_empty()).filter_map(|t| memchr::memmem::find(lower.as_bytes(), t.as_bytes())).min().unwrap_or(0);
            let mut from = first.saturating_sub(400);
            while !text.is_char_boundary(from) {
                from -= 1;
            }
            let mut to = (first + 800).min(text.len());
            while !text.is_char_boundary(to) {
                to += 1;
            }
            let (mut snip, mut hl) = snippet_chars(&text[from..to], terms);
            if from > 0 && !snip.starts_with('…') {
                snip.insert(0, '…');
                for h in &mut hl {
                    h[0] += 1;
                }
            }
            if to < text.len() && !snip.ends_with('…') {
                snip.push('…');
            }
            return (snip, hl);
        }
    }
    snippet_chars(text, terms)
}

fn snippet_chars(text: &str, terms: &[String]) -> (String, Vec<[u32; 2]>) {
    let chars: Vec<char> = text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
    let lower: Vec<char> = chars.iter().map(|c| c.to_lowercase().next().unwrap_or(*c)).collect();
    let needles: Vec<Vec<char>> = terms.iter().map(|t| t.chars().collect()).filter(|n: &Vec<char>| !n.is_empty()).collect();
    let find_at = |k: usize| needles.iter().filter(|n| k + n.len() <= lower.len() && lower[k..k + n.len()] == n[..]).map(|n| n.len()).max();
    let first = (0..lower.len()).find(|&k| find_at(k).is_some());
    let pos = first.unwrap_or(0);
    let from = pos.saturating_sub(60);
    let to = (pos + 160).min(chars.len());
    let mut out = String::new();
    let mut units = 0u32;
    if from > 0 {
        out.push('…');
        units += 1;
    }
    let mut hl = Vec::new();
    let mut k = from;
    while k < to {
        if let Some(n) = find_at(k) {
            let n = n.min(to - k);
            let len: u32 = chars[k..k + n].iter().map(|c| c.len_utf16() as u32).sum();
            hl.push([units, len]);
            for c in &chars[k..k + n] {
                out.push(*c);
            }
            units += len;
            k += n;
        } else {
            out.push(chars[k]);
            units += chars[k].len_utf16() as u32;
            k += 1;
        }
    }
    if to < chars.len() {
        out.push('…');
    }
    (out, hl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_marks_every_match_in_utf16_units() {
        let (s, hl) = snippet("héllo 😀 World, world!", &["world".into()]);
        assert_eq!(s, "héllo 😀 World, world!");
        let units: Vec<u16> = s.encode_utf16().collect();
        for [a, n] in &hl {
            assert_eq!(String::from_utf16(&units[*a as usize..(*a + *n) as usize]).unwrap().to_lowercase(), "world");
        }
        assert_eq!(hl.len(), 2);
    }

    #[test]
    fn long_texts_get_a_window_around_the_first_match() {
        let text = format!("{}needle here{}", "é".repeat(3000), " x".repeat(3000));
        let (s, hl) = snippet(&text, &["needle".into()]);
        assert!(s.starts_with('…') && s.ends_with('…') && s.chars().count() < 400, "{}", s.len());
        let units: Vec<u16> = s.encode_utf16().collect();
        assert_eq!(hl.len(), 1);
        let [a, n] = hl[0];
        assert_eq!(String::from_utf16(&units[a as usize..(a + n) as usize]).unwrap(), "needle");
    }
}

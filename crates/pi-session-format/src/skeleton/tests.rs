//! The scanner against serde_json and against its own byte walk.

use super::*;

fn serde_accepts(s: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()
}

#[test]
fn accepts_what_serde_accepts() {
    let cases = [
        r#"{"a":1}"#,
        r#" {"a" : [1, 2.5e-3, -0, true, false, null, {"b":"c\n\u00e9\ud800"}] } "#,
        r#"{"a":"\/\b\f\n\r\t\"\\"}"#,
        "{\"a\":1}\r",
        r#"[]"#,
        r#"{}"#,
        r#""s""#,
        r#"12"#,
        r#"{"a":1e400}"#,
        r#"{"a":01}"#,
        r#"{"a":1.}"#,
        r#"{"a":.5}"#,
        r#"{"a":-}"#,
        r#"{"a":1,}"#,
        r#"{"a":[1,]}"#,
        r#"{"a" 1}"#,
        r#"{a:1}"#,
        r#"{"a":"x"#,
        "{\"a\":\"tab\there\"}",
        r#"{"a":"\x"}"#,
        r#"{"a":"\u12"}"#,
        r#"{"a":tru}"#,
        r#"{"a":1} x"#,
        r#"{"a":[}"#,
        r#"{"a":{]}"#,
        r#"{"a":1}}"#,
        r#""#,
        r#"  "#,
        r#"{"a":"x","a":"y"}"#,
        r#"{"a":1E+2,"b":1e-2}"#,
    ];
    for c in cases {
        assert_eq!(scan_line(c).is_ok(), serde_accepts(c), "{c:?}");
        assert_eq!(is_json(c), serde_accepts(c), "{c:?}");
    }
}

#[test]
fn extracts_fields_last_key_wins() {
    let f = scan_line(r#"{"type":"message","id":"a","id":"b","message":{"role":"user","content":[{"x":"\"}"}],"model":"m"},"parentId":null}"#).unwrap();
    assert!(f.is_object);
    assert_eq!(f.id, Some(r#""b""#));
    assert_eq!(f.parent_id, Some("null"));
    let m = f.message.unwrap();
    assert_eq!(m.role, Some(r#""user""#));
    assert_eq!(m.model, Some(r#""m""#));
    let e = scan_line(r#"{"t\u0079pe":"label"}"#).unwrap();
    assert_eq!(e.r#type, Some(r#""label""#));
}

#[test]
fn usage_numbers_match_the_general_parse() {
    let u = usage_numbers(r#"{"input":3,"output":180,"cacheRead":41234,"cacheWrite":512,"totalTokens":41929,"cost":{"input":0.000009,"output":0.0027,"total":0.016999}}"#).unwrap();
    assert_eq!(u, [3.0, 180.0, 41234.0, 512.0, 41929.0, 0.016999]);
    // pi's exact shape, matched byte by byte, agrees with the general scan.
    let pi = r#"{"input":6,"output":396,"cacheRead":4151,"cacheWrite":1475,"totalTokens":6028,"cost":{"input":0.000018,"output":0.00594,"cacheRead":0.001245,"cacheWrite":0.005531,"total":0.012734}}"#;
    assert_eq!(pi_usage(pi), Some([6.0, 396.0, 4151.0, 1475.0, 6028.0, 0.012734]));
    assert_eq!(pi_usage(&pi.replace("0.012734", "1.2e-2")), None);
    assert_eq!(pi_usage(&pi.replace("6028", "\"6028\"")), None);
    assert_eq!(pi_usage(&pi.replace("}}", "} }")), None);
    assert_eq!(usage_numbers(&pi.replace("0.012734", "1.2e-2")).unwrap()[5], 0.012);
    // Shapes left to the general path.
    assert_eq!(usage_numbers(r#"{"input":1,"input":2}"#), None);
    assert_eq!(usage_numbers(r#"{"input":"1"}"#), None);
    assert_eq!(usage_numbers(r#"{"cost":0.5}"#), None);
    assert_eq!(usage_numbers(r#"{"cost":{"total":null}}"#), None);
    assert_eq!(usage_numbers(r#"{"input":1e400}"#), None);
    assert_eq!(usage_numbers(r#"{"input":1,"#), None);
    assert_eq!(usage_numbers(r#"{"other":[1,{"x":2}],"output":-0}"#).unwrap()[1].to_bits(), (-0.0f64).to_bits());
}

/// The `usage` a message line's scan read in one pass (pi's shape), or that it left to
/// `usage_numbers`: the numbers either way, as the index builds them.
fn scanned_usage(line: &str) -> Result<Option<[f64; 6]>, ScanError> {
    let f = scan_line(line)?;
    let m = f.message.expect("a message object");
    Ok(m.usage_numbers.or_else(|| m.usage.and_then(usage_numbers)))
}

#[test]
fn usage_read_while_scanning_is_json_and_the_general_numbers() {
    let pi = r#"{"input":6,"output":396,"cacheRead":4151,"cacheWrite":1475,"totalTokens":6028,"cost":{"input":0.000018,"output":0.00594,"cacheRead":0.001245,"cacheWrite":0.005531,"total":0.012734}}"#;
    let line = |u: &str| format!(r#"{{"type":"message","message":{{"role":"assistant","usage":{u},"stopReason":"stop"}}}}"#);
    let plain = line(pi);
    let f = scan_line(&plain).unwrap();
    let m = f.message.unwrap();
    assert_eq!(m.usage, Some(pi), "the raw text is kept");
    assert_eq!(m.usage_numbers, Some([6.0, 396.0, 4151.0, 1475.0, 6028.0, 0.012734]), "read in the scan");
    // A later `usage` in another shape replaces the first, numbers included.
    let twice = line(&format!(r#"{pi},"usage":{{"input":2}}"#));
    let f = scan_line(&twice).unwrap();
    assert_eq!(f.message.as_ref().unwrap().usage_numbers, None);
    assert_eq!(f.message.unwrap().usage, Some(r#"{"input":2}"#));
    // Every one-byte change of pi's shape: accepted exactly when serde accepts the line, and
    // then the same numbers as the general parse of its `usage` text.
    let alphabet = b"0123456789.-eE+\"}{,: xa";
    let bytes = pi.as_bytes();
    let mut fast = 0;
    for at in 0..=bytes.len() {
        let mut variants: Vec<Vec<u8>> = Vec::new();
        if at < bytes.len() {
            variants.push([&bytes[..at], &bytes[at + 1..]].concat());
        }
        for &c in alphabet {
            variants.push([&bytes[..at], &[c], &bytes[at..]].concat());
            if at < bytes.len() {
                variants.push([&bytes[..at], &[c], &bytes[at + 1..]].concat());
            }
        }
        for v in variants {
            let u = String::from_utf8(v).unwrap();
            let l = line(&u);
            let got = scanned_usage(&l);
            assert_eq!(got.is_ok(), serde_accepts(&l), "acceptance differs for usage {u:?}");
            let Ok(got) = got else { continue };
            let f = scan_line(&l).unwrap();
            fast += f.message.as_ref().unwrap().usage_numbers.is_some() as usize;
            let general = f.message.unwrap().usage.and_then(usage_numbers);
            assert_eq!(got.map(|n| n.map(f64::to_bits)), general.map(|n| n.map(f64::to_bits)), "numbers differ for usage {u:?}");
        }
    }
    assert!(fast > 100, "pi's shape with other digits still takes the one-pass read ({fast})");
    // Numbers past 15 digits (a cost with float noise), a negative zero: rounded as parse does.
    let noisy = pi.replace("0.012734", "0.015225000000000001").replace("\"input\":6,", "\"input\":-0,");
    let n = scan_line(&line(&noisy)).unwrap().message.unwrap().usage_numbers.unwrap();
    assert_eq!(n[5].to_bits(), "0.015225000000000001".parse::<f64>().unwrap().to_bits());
    assert_eq!(n[0].to_bits(), (-0.0f64).to_bits());
    // Not JSON numbers: left to the general scanner, which refuses the line.
    for bad in ["01", "1.", ".5", "-", "--1", "1.2.3"] {
        assert!(scan_line(&line(&pi.replace("396", bad))).is_err(), "{bad}");
    }
}

#[test]
fn decimal_prefixes_agree_with_exact_decimals() {
    let cases = ["0", "-0", "7", "41929", "0.016999", "0.000009", "123456789012345", "1234567.89012345", "-2.5", "1234567890123456", "99999999999999999999999", "1.5.2", "1-2", "x"];
    for c in cases {
        // (Both see only numbers the scanner validated; "-" and "" differ and never occur.)
        let mine = decimal_prefix(c.as_bytes()).filter(|&(_, n)| n == c.len()).map(|(v, _)| v.to_bits());
        assert_eq!(mine, exact_decimal(c).map(f64::to_bits), "{c:?}");
    }
    assert_eq!(decimal_prefix(b"12,\"x\""), Some((12.0, 2)));
    assert_eq!(decimal_prefix(b"12e5"), Some((12.0, 2)));
}

#[test]
fn exact_decimals_round_as_parse_does() {
    let cases = ["0", "-0", "7", "41929", "0.016999", "0.000009", "123456789012345", "1234567.89012345", "0.1", "0.3", "-2.5", "9007199254740991"];
    for c in cases {
        let want: f64 = c.parse().unwrap();
        match exact_decimal(c) {
            Some(v) => assert_eq!(v.to_bits(), want.to_bits(), "{c}"),
            None => assert!(c.trim_start_matches('-').replace('.', "").len() > 15, "{c}"),
        }
    }
    // Exponents and long mantissas take the general parse.
    assert_eq!(exact_decimal("1e5"), None);
    assert_eq!(exact_decimal("1234567890123456"), None);
    for not_a_number in ["", "-", ".", "-."] {
        assert_eq!(exact_decimal(not_a_number), None, "{not_a_number:?}");
    }
}

#[test]
fn surrogate_escapes_are_noted() {
    assert!(!scan_line(r#"{"a":"\u00e9 \\ud800"}"#).unwrap().surrogate_escape);
    assert!(scan_line(r#"{"a":"\ud83d\ude00"}"#).unwrap().surrogate_escape);
    assert!(scan_line(r#"{"a":"\uDC00"}"#).unwrap().surrogate_escape);
    assert!(!scan_line(r#"{"a":"\uD7FF\uE000"}"#).unwrap().surrogate_escape);
}

#[test]
fn long_strings_agree_with_the_byte_walk() {
    // Random long strings heavy in quotes, backslashes, escape letters, hex digits and
    // control characters: the 64-byte block path and the byte walk give the same result,
    // end, escape flag and surrogate flag.
    let alphabet: [&[u8]; 14] = [b"x", b"x", b"x", b"\\", b"\\", b"\"", b"u", b"0", b"D", b"8", b"n", b"q", b"\x01", "\u{e9}".as_bytes()];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..30_000 {
        let len = 60 + next(260);
        let mut text = b"\"".to_vec();
        while text.len() < len {
            let piece = alphabet[next(alphabet.len())];
            // Mostly plain text, so strings run over several blocks.
            let piece: &[u8] = if next(3) > 0 { b"xyz" } else { piece };
            text.extend_from_slice(piece);
        }
        text.extend_from_slice(b"\",\"z\":1}");
        let Ok(t) = std::str::from_utf8(&text) else { continue };
        let scan = |walk: bool| {
            let mut sc = Scan { s: t, b: t.as_bytes(), i: 0, stack: Nest::default(), surrogate: false, avx2: has_avx2() };
            sc.i = if walk { 1 } else { 0 };
            let r = if walk { sc.string_rest(false) } else { sc.string() };
            (r, sc.i, sc.surrogate)
        };
        // `string` is called at the opening quote; the walk starts after it.
        let (walked, fast) = (scan(true), scan(false));
        assert_eq!(walked.0, fast.0, "{t:?}");
        if walked.0.is_ok() {
            assert_eq!((walked.1, walked.2), (fast.1, fast.2), "{t:?}");
        }
    }
}

#[test]
fn deep_nesting_has_no_limit() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(is_json(&deep));
    assert!(!is_json(&format!("{}{}", "[".repeat(1000), "]".repeat(999))));
}

#[test]
fn control_characters_anywhere_in_a_long_string() {
    for pos in 0..40 {
        let mut s = "x".repeat(40);
        s.replace_range(pos..pos + 1, "\u{1}");
        assert!(!is_json(&format!("\"{s}\"")), "{pos}");
    }
    assert!(is_json(&format!("\"{}\"", "é\u{7f}".repeat(20))));
    // Long strings (the 64-byte steps) and every position of a quote, a backslash or a
    // control character in them, followed by more of the line.
    for len in [15, 16, 17, 79, 80, 81, 96, 143, 144, 200, 300] {
        for pos in 0..len {
            let mut s = "y".repeat(len);
            for (with, ok) in [("\u{1f}", false), ("\\n", true), ("\\", false)] {
                s.replace_range(pos..pos + 1, with);
                let line = format!("{{\"a\":\"{s}\",\"b\":\"{}\"}}", "z".repeat(100));
                assert_eq!(scan_line(&line).is_ok(), ok, "{len} {pos} {with:?}");
                assert_eq!(serde_accepts(&line), ok, "{len} {pos} {with:?}");
                s = "y".repeat(len);
            }
        }
        let line = format!("{{\"a\":\"{}\",\"id\":\"x\"}}", "q".repeat(len));
        assert_eq!(scan_line(&line).unwrap().id, Some("\"x\""));
    }
}

#[test]
fn duplicate_keys_last_wins_and_non_objects() {
    let f = scan_line(r#"{"id":"a","id":"b","message":{"role":"user","content":[1,{"x":"\ud800"}]}}"#).unwrap();
    assert_eq!(crate::json::Loose::from_raw(f.id.unwrap()).as_str(), Some("b"));
    assert_eq!(crate::json::Loose::from_raw(f.message.unwrap().role.unwrap()).as_str(), Some("user"));
    assert!(!scan_line("[1,2]").unwrap().is_object);
    assert!(!scan_line("42").unwrap().is_object);
    assert!(scan_line("{\"a\":1}\r").is_ok());
    assert!(scan_line("{\"a\":1").is_err());
    assert!(scan_line("{\"a\":1e400}").is_ok());
}

//! The fast line scanner against serde_json: the same lines accepted, the same fields found.

use pi_session_format::json::{parse_line_serde, LineFields, MessageFields};
use pi_session_format::skeleton::scan_line;
use proptest::prelude::*;

/// Pieces that make JSON (and near-JSON) text when strung together.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just(" ".to_string()),
        Just("\t".to_string()),
        Just("\r".to_string()),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("fals".to_string()),
        Just("\"type\"".to_string()),
        Just("\"id\"".to_string()),
        Just("\"message\"".to_string()),
        Just("\"role\"".to_string()),
        Just("\"parentId\"".to_string()),
        Just("\"usage\"".to_string()),
        Just(r#""t\u0079pe""#.to_string()),
        Just(r#""\ud800""#.to_string()),
        Just(r#""\u12""#.to_string()),
        Just(r#""a\"b\\c\/\n""#.to_string()),
        Just("\"\u{1}\"".to_string()),
        Just("\"é ü 😀\"".to_string()),
        Just("\"unterminated".to_string()),
        Just(r#""\q""#.to_string()),
        "-?(0|[1-9][0-9]{0,3})(\\.[0-9]{1,3})?([eE][+-]?[0-9]{1,3})?".prop_map(|s| s),
        "[0-9.eE+-]{1,4}".prop_map(|s| s),
        "\"[a-z ]{0,12}\"".prop_map(|s| s),
    ]
}

/// A well-formed line (so most cases are accepted) with random damage applied.
fn line() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        Just("null".to_string()),
        Just("\"user\"".to_string()),
        Just("12.5".to_string()),
        Just("[1,{\"a\":[]}]".to_string()),
        Just("{\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}]}".to_string()),
    ];
    let key = prop_oneof![Just("type"), Just("id"), Just("parentId"), Just("message"), Just("label"), Just("other")];
    let pairs = prop::collection::vec((key, value), 0..6);
    (pairs, prop::collection::vec(token(), 0..4), 0usize..200, any::<bool>()).prop_map(|(pairs, junk, at, damage)| {
        let body: Vec<String> = pairs.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        let mut s = format!("{{{}}}", body.join(","));
        if damage {
            let at = at % (s.len() + 1);
            let at = (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
            s.insert_str(at, &junk.concat());
        }
        s
    })
}

fn same_message(a: &Option<MessageFields<'_>>, b: &Option<MessageFields<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a.role, a.provider, a.model, a.stop_reason, a.timestamp, a.usage, a.tool_name, a.is_error, a.custom_type)
            == (b.role, b.provider, b.model, b.stop_reason, b.timestamp, b.usage, b.tool_name, b.is_error, b.custom_type),
        _ => false,
    }
}

fn same(a: &LineFields<'_>, b: &LineFields<'_>) -> bool {
    a.is_object == b.is_object
        && (a.r#type, a.id, a.parent_id, a.timestamp, a.target_id, a.label, a.name) == (b.r#type, b.id, b.parent_id, b.timestamp, b.target_id, b.label, b.name)
        && (a.first_kept_entry_id, a.from_id, a.summary, a.version, a.cwd, a.parent_session, a.kind) == (b.first_kept_entry_id, b.from_id, b.summary, b.version, b.cwd, b.parent_session, b.kind)
        && a.has_message_key == b.has_message_key
        && same_message(&a.message, &b.message)
}

fn check(s: &str) {
    let fast = scan_line(s);
    let reference = parse_line_serde(s);
    // serde refuses lone surrogate escapes where it decodes strings; JSON.parse (and the
    // scanner) accept them. Compare acceptance against serde on the repaired text then.
    // A value that is not an object is decoded by the reference (a number beyond f64, a lone
    // surrogate are refused there); JSON.parse accepts them, as serde does when it skips.
    // The same holds for such a number as the value of a key the reference decodes (a
    // `message` that is a number, say).
    let out_of_range = reference.as_ref().is_err_and(|e| e.to_string().starts_with("number out of range"));
    if reference.is_err() && (!s.trim_start().starts_with('{') || out_of_range) {
        assert_eq!(fast.is_ok(), serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok(), "acceptance differs for {s:?}");
        return;
    }
    if reference.is_err() && pi_session_format::json::has_lone_surrogate(s) {
        let repaired = pi_session_format::json::replace_lone_surrogates(s);
        assert_eq!(fast.is_ok(), parse_line_serde(&repaired).is_ok(), "acceptance differs for {s:?}");
        return;
    }
    match (&fast, &reference) {
        (Ok(a), Ok(b)) => assert!(same(a, b), "fields differ for {s:?}:\n{a:?}\n{b:?}"),
        (Err(_), Err(_)) => {}
        _ => panic!("acceptance differs for {s:?}: scanner {:?}, serde {:?}", fast.is_ok(), reference.map(|_| ()).map_err(|e| e.to_string())),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn token_soup(tokens in prop::collection::vec(token(), 0..24)) {
        check(&tokens.concat());
    }

    #[test]
    fn damaged_lines(s in line()) {
        check(&s);
    }
}

#[test]
fn real_shapes() {
    for s in [
        r#"{"type":"session","version":3,"id":"019c","timestamp":"2026-03-02T15:30:00.000Z","cwd":"/home/a"}"#,
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{"path":"x"}}],"usage":{"input":1,"cost":{"total":0.5}},"stopReason":"toolUse","provider":"p","model":"m","timestamp":5}}"#,
        r#"{"type":"label","id":"l","parentId":"a","timestamp":"t","targetId":"a","label":"x"}"#,
        r#"{"message":"not an object","id":"x"}"#,
        r#"{"message":{"role":"user","role":"assistant"}}"#,
        // Found by `damaged_lines`: a number beyond f64 where the reference decodes the value.
        r#"{"message":"user","message":12.0e785,"parentId":"user"}"#,
    ] {
        check(s);
    }
}

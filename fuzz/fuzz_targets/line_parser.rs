//! One line of a session file, as arbitrary bytes: the lenient line parser, the lone-surrogate
//! helpers, `classify` (which decodes every field it uses), and the body helpers that display
//! a line (first text, preview, Markdown). None may panic; the surrogate repair must leave a
//! line that parses whenever the original parses.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pi_session_format::entry::{classify, Parsed};
use pi_session_format::json;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let text: &str = &text;
    let lone = json::has_lone_surrogate(text);
    let fixed = json::replace_lone_surrogates(text);
    assert!(!json::has_lone_surrogate(&fixed), "replace_lone_surrogates left a lone surrogate");
    if !lone {
        assert_eq!(fixed, text, "replace_lone_surrogates changed a line without lone surrogates");
    }
    let _ = pi_session_format::js::js_trim(text);
    let _ = pi_session_format::js::parse_iso_ms(text);
    let parsed = pi_session_format::skeleton::scan_line(text);
    if parsed.is_ok() {
        assert!(pi_session_format::skeleton::scan_line(&fixed).is_ok(), "the repaired line no longer parses");
    }
    for t in [text, fixed.as_str()] {
        let Ok(f) = pi_session_format::skeleton::scan_line(t) else { continue };
        // classify decodes every field it uses (loosely, as JavaScript would).
        match classify(&f, 1, 0, t.len() as u32) {
            Parsed::Entry(e) => {
                let _ = pi_session::text::preview(&e, Some(t));
                let v = pi_session::text::line_value(t);
                let mut md = String::new();
                pi_session::text::markdown::entry_markdown(&e, &v, &mut md);
                if let Some(m) = v.get("message") {
                    let _ = pi_session::text::message_preview(m);
                    let _ = pi_session::text::estimate_tokens(m);
                }
            }
            Parsed::Header(h) | Parsed::HeaderV4(h) => {
                let _ = h.effective_version();
            }
        }
        let _ = pi_session::text::first_text_of_line(t, 500);
    }
});

//! Taking in one line of a file, in file order: pi's trim of the whole content, blank lines,
//! the header, an entry and its findings, a line that is not JSON.

use super::*;

impl SessionIndex {
    fn push_diag(&mut self, out: &mut Vec<Diagnostic>, d: Diagnostic) {
        let c = self.scan.diag_counts.entry(d.kind).or_insert(0);
        *c += 1;
        if *c <= DIAG_CAP {
            out.push(d);
        }
    }

    /// Indexes one line; `pre` is what parsing it ahead gave, if it was.
    pub(super) fn take_line(&mut self, line: RawLine<'_>, pre: &mut Option<Pre>, out: &mut Vec<Diagnostic>) {
        let n = line.number;
        let mut bytes = line.bytes;
        // pi 1.x parses each line as it is: a BOM or a Unicode space before the header makes
        // the header line invalid JSON, and the file not a pi session (checked below).
        let mut lead_rejected = false;
        if line.offset == 0 && bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes = &bytes[3..];
            lead_rejected = true;
            self.push_diag(out, Diagnostic::new(Some(n), DiagKind::Bom, "the file starts with a UTF-8 byte order mark"));
        }
        let ends_cr = match pre {
            Some(p) => p.ends_cr,
            None => bytes.last() == Some(&b'\r'),
        };
        if ends_cr && !self.scan.crlf_seen {
            self.scan.crlf_seen = true;
            self.push_diag(out, Diagnostic::new(Some(n), DiagKind::Crlf, "lines end with CR LF"));
        }
        if bytes.len() > HUGE_LINE {
            self.push_diag(
                out,
                Diagnostic::new(Some(n), DiagKind::HugeLine, format!("line is {:.1} MB", bytes.len() as f64 / 1e6)),
            );
        }
        // A line parsed ahead (valid UTF-8, starts with `{`, complete): nothing to trim or decode.
        if pre.as_ref().is_some_and(|p| matches!(p.parsed, Ok(None) | Ok(Some(Parsed::Entry(_))))) {
            self.scan.seen_content = true;
            if let Some(c) = self.scan.tail_candidate.take() {
                self.push_diag(out, Diagnostic::new(Some(c.number), DiagKind::MalformedLine, format!("not valid JSON ({}); skipped", c.error)));
            }
            let _ = self.take_text(n, line.offset, line.bytes.len() as u32, "", line.bytes, pre, out);
            return;
        }
        // The SIMD check first (the common case); std's on failure, for where it fails.
        let text: std::borrow::Cow<'_, str> = match simdutf8::basic::from_utf8(bytes).or_else(|_| std::str::from_utf8(bytes)) {
            Ok(s) => s.into(),
            Err(e) => {
                self.push_diag(
                    out,
                    Diagnostic::new(Some(n), DiagKind::InvalidUtf8, format!("bytes that are not UTF-8 at column {}", e.valid_up_to() + 1)),
                );
                String::from_utf8_lossy(bytes)
            }
        };
        // pi trims the whole content (`content.trim()`: JavaScript's whitespace, Unicode spaces
        // included), so the start of the first line with content and the end of the last one
        // lose their spaces; then it skips lines that are blank after trimming.
        let mut text: &str = &text;
        if !self.scan.seen_content {
            let trimmed = text.trim_start_matches(is_js_space);
            lead_rejected |= text[..text.len() - trimmed.len()].chars().any(|c| !matches!(c, ' ' | '\t' | '\r' | '\n'));
            text = trimmed;
        }
        if !line.terminated {
            text = text.trim_end_matches(is_js_space);
        }
        // Almost every line starts with `{`: only other lines need the blank test.
        if !text.starts_with('{') && text.chars().all(is_js_space) {
            self.scan.blank_lines += 1;
            self.push_diag(out, Diagnostic::new(Some(n), DiagKind::BlankLine, "blank line"));
            return;
        }
        self.scan.seen_content = true;
        // Content follows the line held back as a possible last line: it was not the last.
        if let Some(c) = self.scan.tail_candidate.take() {
            self.push_diag(out, Diagnostic::new(Some(c.number), DiagKind::MalformedLine, format!("not valid JSON ({}); skipped", c.error)));
        }
        let header_before = self.header.as_ref().map(|h| h.line);
        let taken = self.take_text(n, line.offset, line.bytes.len() as u32, text, line.bytes, pre, out);
        if lead_rejected && taken.is_ok() && header_before.is_none() && self.header.as_ref().is_some_and(|h| h.line == n) {
            self.push_diag(
                out,
                Diagnostic::new(
                    Some(n),
                    DiagKind::RefusedByPi1,
                    "text before the header that JSON.parse rejects (a byte order mark or a Unicode space): pi 1.x refuses this file (not a valid pi session; /resume hides it); pi 0.73.1 reads it",
                ),
            );
        }
        if let Err(e) = taken {
            let trimmed = text.trim_end_matches(is_js_space);
            if line.terminated && trimmed.len() < text.len() && parse_lenient(trimmed).is_ok() {
                self.scan.tail_candidate = Some(TailCandidate {
                    number: n,
                    offset: line.offset,
                    len: line.bytes.len() as u32,
                    text: trimmed.to_owned(),
                    error: e.to_string(),
                });
            } else {
                self.bad_line(out, &line, e);
            }
        }
    }

    /// Parses one line's text (already trimmed as pi would; `raw`: the line's bytes) and
    /// indexes it. `Err` when the text is not JSON: nothing was recorded then.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn take_text(
        &mut self,
        n: u32,
        offset: u64,
        len: u32,
        text: &str,
        raw: &[u8],
        pre: &mut Option<Pre>,
        out: &mut Vec<Diagnostic>,
    ) -> Result<(), ScanError> {
        // (Taken only when there is one: moving an empty one still copies its bytes.)
        let (parsed, lone, in_block) = match pre {
            Some(_) => {
                let p = pre.take().expect("checked above");
                (p.parsed, p.lone_surrogate, false)
            }
            None => {
                // Parsed here, in file order: a message's meta is built straight into the block.
                let (metas, entries) = (&mut self.metas, &mut self.entries);
                let slot = metas.room(entries);
                let mut built = false;
                let (parsed, lone) = parse_text(
                    n,
                    offset,
                    len,
                    text,
                    Some(|m| {
                        slot.push(m);
                        built = true;
                    }),
                );
                (parsed, lone, built)
            }
        };
        // (Only a message entry has a meta, and every entry is kept below.)
        let parsed = parsed?;
        if lone {
            self.push_diag(out, Diagnostic::new(Some(n), DiagKind::LoneSurrogate, "a string holds a lone surrogate escape"));
        }
        let ordinal = self.scan.parsed_values;
        self.scan.parsed_values += 1;
        let Some(parsed) = parsed else {
            self.push_diag(out, Diagnostic::new(Some(n), DiagKind::NotAnObject, "valid JSON but not an object; skipped"));
            if ordinal == 0 {
                self.push_diag(
                    out,
                    Diagnostic::new(Some(n), DiagKind::MissingHeader, "the first JSON line is not a session header"),
                );
            }
            return Ok(());
        };
        match parsed {
            Parsed::Header(mut h) | Parsed::HeaderV4(mut h) => {
                h.raw = text.to_owned();
                if ordinal == 0 {
                    self.header_ok = h.id.is_some() && !h.v4;
                    if h.v4 {
                        self.push_diag(
                            out,
                            Diagnostic::new(
                                Some(n),
                                DiagKind::FutureVersion,
                                "a version 4 file of the newer pi harness: only its header is read",
                            ),
                        );
                    } else if h.id.is_none() {
                        self.push_diag(
                            out,
                            Diagnostic::new(
                                Some(n),
                                DiagKind::MissingHeader,
                                "the session header has no string id; pi would replace this file on open",
                            ),
                        );
                    }
                    self.header = Some(*h);
                } else if self.header.is_some() {
                    self.push_diag(out, Diagnostic::new(Some(n), DiagKind::SecondHeader, "a second session header; ignored"));
                } else {
                    // The first parsed line was not a header: pi rejects the file. Keep this one
                    // for its id and cwd.
                    self.header = Some(*h);
                }
            }
            Parsed::Entry(e) => {
                if ordinal == 0 {
                    self.push_diag(
                        out,
                        Diagnostic::new(
                            Some(n),
                            DiagKind::MissingHeader,
                            "the first JSON line is not a session header; pi would replace this file with an empty session on open",
                        ),
                    );
                }
                self.entry_diagnostics(&e, out);
                let idx = self.entries.len() as u32;
                if let Some(id) = &e.id {
                    if self.later_ids.on {
                        // Its finding, if any, is noted with those of the ids mapped later.
                        if let Some(prev) = self.by_id.insert_or_defer(id, idx, &mut self.later_ids.pairs) {
                            self.later_ids.had.push((idx, prev));
                        }
                    } else if let Some(prev) = self.by_id.insert(id, idx) {
                        let d = self.duplicate_id(id, n, prev);
                        self.push_diag(out, d);
                    }
                }
                self.pi1_only += e.is_pi1_only() as u32;
                let user = e.is_user();
                self.entries.push(e);
                if user {
                    self.note_user(idx, raw);
                }
                self.ordinals.push(ordinal);
                if in_block {
                    self.metas.owned_by(idx);
                }
            }
        }
        Ok(())
    }

    /// The finding of an id on line `n` that entry `prev` has too.
    fn duplicate_id(&self, id: &str, n: u32, prev: u32) -> Diagnostic {
        let prev_line = self.entries[prev as usize].line;
        Diagnostic::new(Some(n), DiagKind::DuplicateId, format!("id {id} is also on line {prev_line}; this later line wins"))
    }

    /// Maps the ids the read left for later, and notes each repeated one in file order (so
    /// the cap of one kind's findings keeps the first ones, as one by one), after the read's
    /// other findings ([`crate::Session::diagnostics`] sorts them by line).
    pub(super) fn map_later_ids(&mut self) {
        let pairs = std::mem::take(&mut self.later_ids.pairs);
        let mut had = std::mem::take(&mut self.later_ids.had);
        if pairs.is_empty() && had.is_empty() {
            return;
        }
        had.extend(self.by_id.insert_later(pairs));
        had.sort_unstable();
        let mut out = Vec::new();
        for (i, prev) in had {
            let e = &self.entries[i as usize];
            let d = self.duplicate_id(e.id_str(), e.line, prev);
            self.push_diag(&mut out, d);
        }
        self.diagnostics.append(&mut out);
    }

    fn entry_diagnostics(&mut self, e: &Entry, out: &mut Vec<Diagnostic>) {
        if self.header.as_ref().is_some_and(|h| h.v4 && h.line < e.line) {
            // The lines of a version 4 file are not entries of this format (reported once, on the header).
            return;
        }
        let v3 = self.header.as_ref().map(|h| h.effective_version() >= 2.0).unwrap_or(true);
        if e.id.is_none() && v3 {
            self.push_diag(out, Diagnostic::new(Some(e.line), DiagKind::MissingId, "entry has no string id; left out of the tree"));
        }
        if let Kind::Other(t) = &e.kind {
            let msg = if t.is_empty() { "entry has no type".to_string() } else { format!("unknown entry type {t:?}") };
            self.push_diag(out, Diagnostic::new(Some(e.line), DiagKind::UnknownType, msg));
        }
    }

    fn bad_line(&mut self, out: &mut Vec<Diagnostic>, line: &RawLine<'_>, e: ScanError) {
        let n = line.number;
        let msg = e.to_string();
        if !line.terminated {
            self.push_diag(
                out,
                Diagnostic::new(Some(n), DiagKind::TornTail, format!("the last line is cut off ({} bytes, no newline); skipped", line.bytes.len())),
            );
        } else {
            self.push_diag(out, Diagnostic::new(Some(n), DiagKind::MalformedLine, format!("not valid JSON ({msg}); skipped")));
        }
    }
}

/// `scan_line`, also accepting lone surrogate escapes (as `JSON.parse` does).
fn parse_lenient(text: &str) -> Result<(), ScanError> {
    match scan_line(text) {
        Ok(_) => Ok(()),
        Err(e) if json::has_lone_surrogate(text) => scan_line(&json::replace_lone_surrogates(text)).map(|_| ()).map_err(|_| e),
        Err(e) => Err(e),
    }
}

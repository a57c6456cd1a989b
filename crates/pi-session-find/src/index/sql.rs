//! The SQL of a query over the index: terms of 3+ characters go to FTS5 (the trigram
//! tokenizer: a case-insensitive substring match, served by the index), shorter ones through
//! the trigrams they start, filters on the entries, files and labels tables.

use rusqlite::{params, Connection};

use crate::query::Query;

/// A term of one or two characters matches no trigram query. Every occurrence of it starts a
/// trigram of the (padded) text, so the rows holding it are those holding one of the indexed
/// trigrams that start with it. `None` when there are too many such trigrams for one query
/// (the term is common: a newest-first scan meets its hits at once).
fn short_term_trigrams(c: &Connection, term: &str) -> rusqlite::Result<Option<Vec<String>>> {
    const MAX: usize = 1000;
    let upper = format!("{term}\u{10FFFF}");
    let mut st = c.prepare_cached("SELECT term FROM fts_vocab WHERE term >= ?1 AND term < ?2 LIMIT ?3")?;
    let terms: Vec<String> = st.query_map(params![term, upper, (MAX + 1) as i64], |r| r.get(0))?.collect::<Result<_, _>>()?;
    Ok((terms.len() <= MAX).then_some(terms))
}

fn like_escape(s: &str) -> String {
    let mut o = String::from("%");
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            o.push('\\');
        }
        o.push(c);
    }
    o.push('%');
    o
}

/// For each term of one or two characters, the trigrams that start with it (or `None`: too many).
pub(super) fn short_terms(c: &Connection, q: &Query) -> rusqlite::Result<Vec<Option<Vec<String>>>> {
    q.terms.iter().filter(|t| t.chars().count() < 3).map(|t| short_term_trigrams(c, t)).collect()
}

fn fts_phrase(t: &str) -> String {
    format!("\"{}\"", t.replace('"', "\"\""))
}

/// The SQL of a query. Terms of 3+ characters go to FTS5 (trigram: a case-insensitive
/// substring match, served by the index); shorter ones are a `LIKE` on the matched rows.
/// `short`: for each term of one or two characters (in order), the trigrams it starts, or `None`.
pub(super) fn build_sql_in(q: &Query, limit: usize, only_path: Option<&str>, short: &[Option<Vec<String>>]) -> (String, Vec<rusqlite::types::Value>) {
    use rusqlite::types::Value as V;
    let mut wh: Vec<String> = Vec::new();
    let mut args: Vec<V> = Vec::new();
    // Terms of 3+ characters are trigram phrases; a short term with few trigrams is the OR of
    // them (a superset of its rows; the LIKE below keeps the exact ones); a short term with
    // no trigram at all is in no row.
    let mut parts: Vec<String> = q.terms.iter().filter(|t| t.chars().count() >= 3).map(|t| fts_phrase(t)).collect();
    let mut none = false;
    for tri in short.iter().flatten() {
        if tri.is_empty() {
            none = true;
        } else {
            parts.push(format!("({})", tri.iter().map(|t| fts_phrase(t)).collect::<Vec<_>>().join(" OR ")));
        }
    }
    let indexed = !parts.is_empty();
    if indexed {
        args.push(V::Text(parts.join(" AND ")));
        wh.push(format!("fts MATCH ?{}", args.len()));
    }
    if none {
        wh.push("0".into());
    }
    for t in q.terms.iter().filter(|t| t.chars().count() < 3) {
        args.push(V::Text(like_escape(t)));
        let text = if indexed { "fts.text" } else { "(SELECT text FROM fts WHERE fts.rowid = e.id)" };
        wh.push(format!("{text} LIKE ?{} ESCAPE '\\'", args.len()));
    }
    let mut push = |cond: &str, v: V, wh: &mut Vec<String>| {
        args.push(v);
        wh.push(cond.replace("?N", &format!("?{}", args.len())));
    };
    if let Some(r) = &q.role {
        push("e.role = ?N", V::Text(r.clone()), &mut wh);
    }
    if let Some(t) = &q.tool {
        push("instr(e.tools, ?N) > 0", V::Text(format!(" {t} ")), &mut wh);
    }
    if let Some(m) = &q.model {
        push("lower(e.model) LIKE ?N ESCAPE '\\'", V::Text(like_escape(m)), &mut wh);
    }
    if let Some(c) = &q.cwd {
        push("lower(f.cwd) LIKE ?N ESCAPE '\\'", V::Text(like_escape(c)), &mut wh);
    }
    if let Some(n) = &q.name {
        push("lower(f.name) LIKE ?N ESCAPE '\\'", V::Text(like_escape(n)), &mut wh);
    }
    // Without an indexed term, a label filter drives the query from the (small) labels table.
    let by_label = !indexed && q.label.is_some();
    if let Some(l) = &q.label {
        let cond = if by_label {
            "lower(l.text) LIKE ?N ESCAPE '\\'"
        } else {
            "e.id IN (SELECT le.id FROM labels l JOIN entries le ON le.file_id = l.file_id AND le.entry_id = l.entry_id WHERE lower(l.text) LIKE ?N ESCAPE '\\')"
        };
        push(cond, V::Text(like_escape(l)), &mut wh);
    }
    if let Some(a) = q.after {
        push("e.ts >= ?N", V::Real(a), &mut wh);
    }
    if let Some(b) = q.before {
        push("e.ts < ?N", V::Real(b), &mut wh);
    }
    if let Some(p) = only_path {
        push("f.path = ?N", V::Text(p.to_string()), &mut wh);
    }
    let cond = if wh.is_empty() { "1".to_string() } else { wh.join(" AND ") };
    // With a term of 3+ characters FTS5 drives (its rowids in order); with filters only, the
    // small entries table does, newest rows first, and the text is fetched for the hits only.
    let sql = if by_label {
        // CROSS JOIN keeps this order: the labels, then their entries (by index), then sort.
        format!(
            "SELECT f.id, f.path, f.session_id, f.title, f.cwd, e.entry_id, e.line, e.role, e.ts, (SELECT text FROM fts WHERE fts.rowid = e.id)
             FROM labels l CROSS JOIN entries e ON e.file_id = l.file_id AND e.entry_id = l.entry_id JOIN files f ON f.id = e.file_id
             WHERE {cond} ORDER BY e.id DESC LIMIT {limit}"
        )
    } else if !indexed {
        format!(
            "SELECT f.id, f.path, f.session_id, f.title, f.cwd, e.entry_id, e.line, e.role, e.ts, (SELECT text FROM fts WHERE fts.rowid = e.id)
             FROM entries e JOIN files f ON f.id = e.file_id
             WHERE {cond} ORDER BY e.id DESC LIMIT {limit}"
        )
    } else {
        format!(
            "SELECT f.id, f.path, f.session_id, f.title, f.cwd, e.entry_id, e.line, e.role, e.ts, fts.text
             FROM fts JOIN entries e ON e.id = fts.rowid JOIN files f ON f.id = e.file_id
             WHERE {cond} ORDER BY fts.rowid DESC LIMIT {limit}"
        )
    };
    (sql, args)
}

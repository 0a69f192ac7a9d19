//! Keyword search over the FTS5 index: a free-text question becomes an OR-query of its quoted content words
//! (punctuation cannot break the syntax), ranked by FTS5's BM25.
//!
//! Words in half the chunks or more are left out of the first query: FTS5's BM25 gives them an inverse document
//! frequency of 1e-6 (`idf = ln((N − n + 0.5) / (n + 0.5))`, floored there when ≤ 0), so they cannot change the
//! order of chunks the other words match, yet each one makes the index score every chunk it is in (a library-wide
//! boilerplate word on 163,000 chunks costs a full scan). When the other words match fewer than `k` chunks, the
//! full query runs, as chunks with only the common words then fill the tail.

use crate::sql::Sql;
use crate::Result;
use rusqlite::{params, Connection, OptionalExtension};

/// English function words left out of keyword queries: they weigh next to nothing in BM25, yet each one makes
/// the index score nearly every chunk of a large library (measured: 228 ms per query at 163,000 chunks).
const FUNCTION_WORDS: &[&str] = &[
    "a", "about", "after", "all", "an", "and", "any", "are", "as", "at", "be", "been", "before", "but", "by", "can",
    "could", "did", "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it",
    "its", "many", "much", "my", "no", "not", "of", "on", "or", "our", "should", "so", "some", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "to", "was", "we", "were", "what", "when",
    "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your",
];

/// The words of a free-text question (runs of letters and digits, lower case) without function words (all of
/// them when nothing else is left).
fn query_words(query: &str) -> Vec<String> {
    let words: Vec<String> = (query.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let content: Vec<String> = words
        .iter()
        .filter(|w| !FUNCTION_WORDS.contains(&w.as_str()))
        .cloned()
        .collect();
    if content.is_empty() {
        words
    } else {
        content
    }
}

/// `words`, each between `quote`s, joined by `or`; `None` when there are none.
fn quoted(words: &[String], quote: char, or: &str) -> Option<String> {
    let terms: Vec<String> = words.iter().map(|w| format!("{quote}{w}{quote}")).collect();
    (!terms.is_empty()).then(|| terms.join(or))
}

/// The keyword query of either store for a free-text question: its content words, quoted, joined by `or` (the
/// whole query, as asked before words in half the chunks were left out: `ragsift-bench library`'s baseline).
pub fn or_query(query: &str, quote: char, or: &str) -> Option<String> {
    quoted(&query_words(query), quote, or)
}

/// BM25 search: (key, −bm25) best first (see the module's notes).
pub(super) fn search(conn: &Connection, query: &str, k: usize) -> Result<Vec<(u64, f32)>> {
    let words = query_words(query);
    if words.is_empty() || k == 0 {
        return Ok(Vec::new());
    }
    if words.len() > 1 {
        let total = chunk_count(conn)?;
        let mut informative = Vec::new();
        for w in &words {
            if 2 * term_frequency(conn, w)? < total {
                informative.push(w.clone());
            }
        }
        if !informative.is_empty() && informative.len() < words.len() {
            let hits = run(conn, &informative, k)?;
            if hits.len() >= k {
                return Ok(hits);
            }
        }
    }
    run(conn, &words, k)
}

/// How many chunks contain `word` (as the keyword index tokenises it: lower case, no stemming).
pub(super) fn term_frequency(conn: &Connection, word: &str) -> Result<u64> {
    let n: Option<i64> = (conn
        .prepare_cached("SELECT doc FROM chunks_vocab WHERE term = ?1")
        .sql()?)
    .query_row([word], |r| r.get(0))
    .optional()
    .sql()?;
    Ok(n.unwrap_or(0).max(0) as u64)
}

/// The documents with a chunk that contains `word`.
pub(super) fn documents_with_word(conn: &Connection, word: &str) -> Result<std::collections::BTreeSet<String>> {
    let Some(q) = quoted(&[word.to_lowercase()], '"', "") else {
        return Ok(Default::default());
    };
    let mut stmt = conn
        .prepare_cached(
            "SELECT DISTINCT c.document_id FROM chunks_fts f JOIN chunks c ON c.key = f.rowid \
             WHERE chunks_fts MATCH ?1",
        )
        .sql()?;
    let ids = stmt.query_map([q], |r| r.get::<_, String>(0)).sql()?;
    ids.collect::<rusqlite::Result<_>>().sql()
}

/// Number of chunks in the library.
pub(super) fn chunk_count(conn: &Connection) -> Result<u64> {
    let n: i64 = conn.query_row("SELECT count(*) FROM chunks", [], |r| r.get(0)).sql()?;
    Ok(n.max(0) as u64)
}

/// The FTS5 query of `words`, best `k` first.
fn run(conn: &Connection, words: &[String], k: usize) -> Result<Vec<(u64, f32)>> {
    let Some(q) = quoted(words, '"', " OR ") else {
        return Ok(Vec::new());
    };
    let mut stmt = conn
        .prepare_cached(
            "SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY s LIMIT ?2",
        )
        .sql()?;
    let rows = stmt
        .query_map(params![q, k as i64], |r| {
            Ok((r.get::<_, i64>(0)? as u64, -(r.get::<_, f64>(1)? as f32)))
        })
        .sql()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    Ok(rows)
}

#[cfg(test)]
mod tests;

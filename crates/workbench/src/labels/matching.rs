//! Matching a run's candidates against span labels: extents, overlap, the relevant / not-relevant rules, the
//! document versions candidates belong to, and finding a quoted phrase on a page.

use super::*;

pub(super) fn span(l: &SpanLabel) -> Span {
    Span {
        page: l.page,
        start: l.char_start,
        end: l.char_end,
    }
}

/// The chunk's length in characters of its pages (its text's length when it crosses pages).
pub(super) fn chunk_chars(c: &Candidate) -> u64 {
    if c.page_start == c.page_end {
        u64::from(c.char_end.saturating_sub(c.char_start))
    } else {
        c.text.chars().count() as u64
    }
}

/// The characters of `l` the chunk covers.
pub(super) fn overlap(c: &Candidate, l: &SpanLabel) -> u64 {
    u64::from(c.place().covered_span(&span(l)))
}

/// Whether the chunk holds relevant span `l`: they share at least half of the shorter of the two.
pub(super) fn holds(c: &Candidate, l: &SpanLabel) -> bool {
    let shared = overlap(c, l);
    let shorter = u64::from(l.char_end.saturating_sub(l.char_start))
        .min(chunk_chars(c))
        .max(1);
    shared > 0 && 2 * shared >= shorter
}

/// Whether the chunk lies (at least 60 %) within span `l`.
pub(super) fn within(c: &Candidate, l: &SpanLabel) -> bool {
    let shared = overlap(c, l);
    shared > 0 && 10 * shared >= 6 * chunk_chars(c).max(1)
}

/// Matches `spans` (of one question) against `candidates`, whose document versions are `versions` (chunk id →
/// checksum).
pub(super) fn match_spans(
    run_id: &str,
    question: &str,
    candidates: &[Candidate],
    versions: &HashMap<String, String>,
    spans: &[SpanLabel],
) -> SpanRunLabels {
    let on = |c: &Candidate, l: &SpanLabel| versions.get(&c.chunk_id) == Some(&l.checksum);
    let mut out = SpanRunLabels {
        run_id: run_id.to_string(),
        question: question.to_string(),
        spans: spans.len() as u32,
        ..SpanRunLabels::default()
    };
    let mut held = HashSet::new();
    for c in candidates {
        let relevant: Vec<&SpanLabel> = (spans.iter())
            .filter(|l| l.relevant && on(c, l) && holds(c, l))
            .collect();
        if !relevant.is_empty() {
            held.extend(relevant.iter().map(|l| l.id.as_str()));
            out.relevant_ids.push(c.chunk_id.clone());
        } else if spans.iter().any(|l| !l.relevant && on(c, l) && within(c, l)) {
            out.not_relevant_ids.push(c.chunk_id.clone());
        }
    }
    out.missed = (spans.iter())
        .filter(|l| l.relevant && !held.contains(l.id.as_str()))
        .map(|l| l.id.clone())
        .collect();
    out
}

/// The document version (checksum) of each candidate that comes from its document's current content: one of the
/// document's chunks now, or, when another chunking made it (other chunk settings give other chunk ids), a chunk
/// whose text starts where it says on its page of the current content.
pub(super) fn candidate_versions(
    store: &dyn LibraryStore,
    candidates: &[Candidate],
) -> Result<HashMap<String, String>> {
    struct Version {
        checksum: String,
        ids: HashSet<String>,
    }
    let mut docs: HashMap<String, Option<Version>> = HashMap::new();
    let mut pages: HashMap<(String, u32), Option<String>> = HashMap::new();
    let mut out = HashMap::new();
    for c in candidates {
        if !docs.contains_key(&c.document_id) {
            let version = match store.document(&c.document_id)? {
                Some(d) => Some(Version {
                    ids: store.chunks_of(&d.id)?.into_iter().map(|r| r.id).collect(),
                    checksum: d.checksum,
                }),
                None => None,
            };
            docs.insert(c.document_id.clone(), version);
        }
        let Some(Some(v)) = docs.get(&c.document_id) else {
            continue;
        };
        let current = v.ids.contains(&c.chunk_id) || {
            let key = (c.document_id.clone(), c.page_start);
            if !pages.contains_key(&key) {
                pages.insert(key.clone(), store.page(&c.document_id, c.page_start)?);
            }
            pages[&key].as_deref().is_some_and(|page| starts_at(page, c))
        };
        if current {
            out.insert(c.chunk_id.clone(), v.checksum.clone());
        }
    }
    Ok(out)
}

/// Whether the chunk's text starts at its `char_start` on `page` (its first page): its first characters, up to
/// 64, are the page's there (chunks are slices of their pages' text; 16 or more must agree, or the whole chunk).
fn starts_at(page: &str, c: &Candidate) -> bool {
    let on_page: Vec<char> = page.chars().skip(c.char_start as usize).take(64).collect();
    let text: Vec<char> = c.text.chars().take(64).collect();
    let n = on_page.len().min(text.len());
    n >= text.len().min(16) && n > 0 && on_page[..n] == text[..n]
}

/// Every place `phrase` occurs in `text` (folded as [`locate`] folds), as character ranges.
pub(super) fn occurrences(text: &str, phrase: &str) -> Vec<(u32, u32)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut from = 0usize;
    while from < chars.len() {
        let rest: String = chars[from..].iter().collect();
        let Some((s, e)) = locate(&rest, phrase) else {
            break;
        };
        out.push((from as u32 + s, from as u32 + e));
        from += (e as usize).max(1);
    }
    out
}

pub(super) fn slice(text: &str, start: u32, end: u32) -> String {
    text.chars()
        .skip(start as usize)
        .take(end.saturating_sub(start) as usize)
        .collect()
}

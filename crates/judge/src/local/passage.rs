//! The passage side of the local judge's signals: what it measures of a passage whatever the question — its
//! sentences and their embeddings, the passage's own embedding when a signal reads it, and the content-word stems.
//! [`measure`] takes them from a [`PassageCache`] when it can and embeds the rest, with the question, until a
//! deadline: one group per passage then, so the passages measured before it still count.

pub use super::cache::PassageSignals;
use super::cache::{PassageCache, PassageKey};
use super::text::{content_stems, sentences, Sentence};
use crate::Result;
use ragsift_interfaces::embed::Embedder;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

/// Bumped whenever what [`measure`] computes of a passage changes, so a cache never serves an older measurement.
pub const PASSAGE_SIGNALS_VERSION: u32 = 1;

/// The passage's sentences as the signals read them: the whole passage when it has none.
pub fn split(text: &str) -> Vec<Sentence> {
    let s = sentences(text);
    if s.is_empty() {
        vec![Sentence {
            text: text.to_string(),
            start: 0,
            end: text.len(),
        }]
    } else {
        s
    }
}

/// Which optional parts to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// The whole passage's embedding (`cos_chunk`, `cos_chunk_gap`).
    pub passage_vector: bool,
}

/// What [`measure`] got before its deadline: the question's vector and each passage's signals (`None`: not reached).
pub struct Measured {
    pub query: Option<Vec<f32>>,
    pub passages: Vec<Option<Arc<PassageSignals>>>,
}

/// Where measured passages are kept between calls, and under which tag (the embedding model, the fit).
pub struct Keep<'a> {
    pub cache: &'a PassageCache,
    pub tag: &'a str,
}

/// A passage to embed: its text and sentences.
struct Unit<'t> {
    text: &'t str,
    sentences: Vec<Sentence>,
}

/// The texts of `units` in one call's order: the passages (when their vectors are needed), then every sentence.
fn layout<'t>(units: &'t [Unit<'t>], needs: Needs) -> Vec<&'t str> {
    let mut texts: Vec<&str> = Vec::new();
    if needs.passage_vector {
        texts.extend(units.iter().map(|u| u.text));
    }
    for u in units {
        texts.extend(u.sentences.iter().map(|s| s.text.as_str()));
    }
    texts
}

/// The signals of `units` from their vectors, in [`layout`]'s order.
fn assemble(units: &[Unit<'_>], vectors: &[Vec<f32>], needs: Needs) -> Vec<PassageSignals> {
    let mut at = if needs.passage_vector { units.len() } else { 0 };
    (units.iter().enumerate())
        .map(|(i, u)| {
            let sentence_vectors = vectors[at..at + u.sentences.len()].to_vec();
            at += u.sentences.len();
            PassageSignals {
                sentence_stems: u.sentences.iter().map(|s| content_stems(&s.text)).collect(),
                sentences: u.sentences.clone(),
                sentence_vectors,
                vector: needs.passage_vector.then(|| vectors[i].clone()),
                stems: content_stems(u.text),
            }
        })
        .collect()
}

/// Measures `passages` and embeds `query`: the passages `keep` holds are not embedded again, and the others are
/// kept there once measured. Without a deadline it is one embedding call (the question, the passages when needed,
/// every sentence); with one, the question goes with the first passage and every other passage is a group of its
/// own, so the passages measured before the deadline are returned and the others are `None`.
pub fn measure(
    query: &str,
    passages: &[String],
    embedder: &dyn Embedder,
    keep: Option<&Keep<'_>>,
    needs: Needs,
    deadline: Option<Instant>,
) -> Result<Measured> {
    let keys: Vec<Option<PassageKey>> = (passages.iter())
        .map(|p| keep.map(|k| PassageKey::new(k.tag, p)))
        .collect();
    let mut found: Vec<Option<Arc<PassageSignals>>> = (keys.iter())
        .map(|key| {
            let hit = keep.zip(key.as_ref()).and_then(|(k, key)| k.cache.get(key));
            hit.filter(|h| h.vector.is_some() || !needs.passage_vector)
        })
        .collect();
    // Each text still to measure once, however often it is passed.
    let mut units: Vec<Unit> = Vec::new();
    let mut unit_of: HashMap<&str, usize> = HashMap::new();
    let mut wanted: Vec<Option<usize>> = vec![None; passages.len()];
    for (i, p) in passages.iter().enumerate() {
        if found[i].is_none() {
            let next = units.len();
            let u = *unit_of.entry(p.as_str()).or_insert(next);
            if u == next {
                units.push(Unit {
                    text: p,
                    sentences: split(p),
                });
            }
            wanted[i] = Some(u);
        }
    }
    let chunks: Vec<&[Unit]> = match deadline {
        None => vec![&units[..]],
        Some(_) if units.is_empty() => vec![&[]],
        Some(_) => units.chunks(1).collect(),
    };
    let groups: Vec<Vec<&str>> = (chunks.iter().enumerate())
        .map(|(g, c)| {
            let mut texts = if g == 0 { vec![query] } else { Vec::new() };
            texts.extend(layout(c, needs));
            texts
        })
        .collect();
    let done = embedder.embed_until(&groups, deadline)?;
    let mut measured: Vec<Option<Arc<PassageSignals>>> = vec![None; units.len()];
    let mut query_vector = None;
    let mut first = 0;
    for (g, vectors) in done.iter().enumerate() {
        let chunk = chunks[g];
        let vectors = if g == 0 {
            query_vector = vectors.first().cloned();
            &vectors[1.min(vectors.len())..]
        } else {
            &vectors[..]
        };
        for (k, signals) in assemble(chunk, vectors, needs).into_iter().enumerate() {
            measured[first + k] = Some(Arc::new(signals));
        }
        first += chunk.len();
    }
    for (i, u) in wanted.iter().enumerate() {
        if let Some(m) = u.and_then(|u| measured[u].clone()) {
            if let Some((k, key)) = keep.zip(keys[i].clone()) {
                k.cache.insert(key, m.clone());
            }
            found[i] = Some(m);
        }
    }
    Ok(Measured {
        query: query_vector,
        passages: found,
    })
}

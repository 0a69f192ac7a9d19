//! The local judge's signals: for one question and its candidate passages, numbers that each say something about
//! whether a passage holds the answer — embedding similarity of the passage and of its best sentence, lexical
//! coverage and BM25, the expected answer's shape, the retrieval rank, the same relative to the best candidate,
//! and, when a language model can score text, the question's likelihood given the passage's best sentences and a
//! few-shot yes/no readout. [`FEATURES`] names them; a fitted model combines them (see `model`).

use super::passage::{measure, Needs, PassageSignals};
use super::text::{answer_kind, content_stems, fits_kind, words, Sentence};
use crate::Result;
use ragsift_interfaces::embed::Embedder;
use ragsift_interfaces::llm::{LanguageModel, ScoreItem};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// How many chunks hold a stem, as a float (the corpus statistics behind the idf weights).
type DocFrequency<'a> = Box<dyn Fn(&str) -> f32 + 'a>;

pub use ragsift_interfaces::store::TermStats;

/// Every signal, in the order of [`Signals::values`]. Names starting with `lm_` need a language model that can
/// score text; the others need only the embedder.
pub const FEATURES: &[&str] = &[
    "cos_chunk",
    "cos_sent",
    "cos_sent2",
    "cos_chunk_gap",
    "cos_sent_gap",
    "coverage",
    "coverage_window",
    "coverage_gap",
    "bm25",
    "bm25_gap",
    "kind_fit",
    "rank_recip",
    "lm_ql",
    "lm_ql_gain",
    "lm_ql_gap",
    "lm_yes",
    "lm_yes_gap",
    "inj_proto",
];

/// Signals that need a language model.
pub fn needs_model(feature: &str) -> bool {
    feature.starts_with("lm_")
}

/// The signals of one passage.
#[derive(Debug, Clone, PartialEq)]
pub struct Signals {
    /// One value per [`FEATURES`] entry; NaN where a signal could not be computed (no language model).
    pub values: Vec<f32>,
    /// The passage's sentences, best match to the question first (index into `sentences`).
    pub sentences: Vec<Sentence>,
    pub ranked_sentences: Vec<usize>,
    /// Per sentence: cosine to the question.
    pub sentence_cosines: Vec<f32>,
    /// Language-model tokens evaluated for this passage.
    pub lm_tokens: u32,
}

impl Signals {
    pub fn get(&self, name: &str) -> f32 {
        FEATURES
            .iter()
            .position(|f| *f == name)
            .map(|i| self.values[i])
            .unwrap_or(f32::NAN)
    }
}

/// What the signals are computed with.
pub struct SignalSources<'a> {
    pub embedder: &'a dyn Embedder,
    /// For the `lm_` signals; `None` leaves them NaN.
    pub model: Option<&'a dyn LanguageModel>,
    /// Library-wide document frequencies; without them the candidates themselves are the collection.
    pub stats: Option<&'a dyn TermStats>,
}

/// The few-shot frame the language model reads before each passage: it shows that a question follows a
/// passage, and that the line after says whether the passage answers it. Generic on purpose (no domain).
pub const LM_FRAME: &str = "Each passage is followed by a question a reader asked about it, and whether the passage \
answers that question.\n\n\
Passage: The museum opens at 9 a.m. and closes at 5 p.m. on weekdays; admission is free on Sundays.\n\
Question: When does the museum close on weekdays?\n\
Answered by the passage: yes\n\n\
Passage: Copper conducts electricity well, which is why most household wiring is made of it.\n\
Question: What is the melting point of copper?\n\
Answered by the passage: no\n\n\
Passage: The survey reached 1,200 households in three districts between March and May.\n\
Question: How many households did the survey reach?\n\
Answered by the passage: yes\n\n";
const LM_PROBE: &str = "\nAnswered by the passage:";
/// Sentences of a passage the language model reads (the best matches to the question, in passage order).
const LM_SENTENCES: usize = 2;
/// Longest sentence text given to the language model, in characters.
const LM_SENTENCE_CHARS: usize = 400;

/// Computes every signal of `passages` for `query`. The `_gap` signals compare a passage with the best of the
/// candidates, so the result depends on the whole candidate set (the judge is contextual).
pub fn compute(query: &str, passages: &[String], sources: &SignalSources<'_>) -> Result<Vec<Signals>> {
    if passages.is_empty() {
        return Ok(Vec::new());
    }
    let needs = Needs { passage_vector: true };
    let measured = measure(query, passages, sources.embedder, None, needs, None)?;
    let (Some(q), Some(parts)) = (
        measured.query,
        measured.passages.into_iter().collect::<Option<Vec<_>>>(),
    ) else {
        return Err(crate::Error::Model(
            "the embedder returned fewer vectors than texts".into(),
        ));
    };
    let parts: Vec<&PassageSignals> = parts.iter().map(|p| p.as_ref()).collect();
    let ranks: Vec<usize> = (0..passages.len()).collect();
    combine(query, &q, &parts, &ranks, sources)
}

/// The signals of measured passages for `query` (embedded as `q`): what depends on the question, and the `_gap`
/// signals against the best of these passages. `ranks` are the passages' places in the retrieved order (0 first).
pub fn combine(
    query: &str,
    q: &[f32],
    passages: &[&PassageSignals],
    ranks: &[usize],
    sources: &SignalSources<'_>,
) -> Result<Vec<Signals>> {
    let n = passages.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let cos = |v: &[f32]| q.iter().zip(v).map(|(a, b)| a * b).sum::<f32>();
    let cos_chunk: Vec<f32> = (passages.iter())
        .map(|p| p.vector.as_deref().map_or(f32::NAN, cos))
        .collect();
    let sentence_cosines: Vec<Vec<f32>> = (passages.iter())
        .map(|p| p.sentence_vectors.iter().map(|v| cos(v)).collect())
        .collect();
    let ranked: Vec<Vec<usize>> = sentence_cosines.iter().map(|c| rank_desc(c)).collect();
    let protos = super::injection::prototypes(sources.embedder)?;
    let inj_proto: Vec<f32> = (passages.iter())
        .map(|p| {
            let v: Vec<&Vec<f32>> = p.sentence_vectors.iter().collect();
            super::injection::prototype_similarity(&v, &protos)
        })
        .collect();
    let cos_sent: Vec<f32> = sentence_cosines.iter().zip(&ranked).map(|(c, r)| c[r[0]]).collect();
    let cos_sent2: Vec<f32> = sentence_cosines
        .iter()
        .zip(&ranked)
        .map(|(c, r)| (c[r[0]] + c[*r.get(1).unwrap_or(&r[0])]) / 2.0)
        .collect();

    // Lexical: IDF-weighted coverage of the question's content words, in the passage and in its best window.
    let stems: Vec<&[String]> = passages.iter().map(|p| p.stems.as_slice()).collect();
    let lexicon = Lexicon::from_stems(query, &stems, sources.stats);
    let coverage: Vec<f32> = passages.iter().map(|p| lexicon.coverage(&p.stems)).collect();
    let coverage_window: Vec<f32> = passages
        .iter()
        .map(|p| {
            let s = &p.sentence_stems;
            (0..s.len())
                .map(|k| {
                    let lo = k.saturating_sub(1);
                    let hi = (k + 2).min(s.len());
                    let window: Vec<String> = s[lo..hi].iter().flatten().cloned().collect();
                    lexicon.coverage(&window)
                })
                .fold(0.0, f32::max)
        })
        .collect();
    let bm25: Vec<f32> = passages.iter().map(|p| lexicon.bm25(&p.stems)).collect();
    let kind = answer_kind(query);
    let kind_fit: Vec<f32> = passages
        .iter()
        .zip(&ranked)
        .map(|(p, r)| {
            let best = r.iter().take(2).any(|&k| fits_kind(&p.sentences[k].text, kind));
            f32::from(u8::from(best))
        })
        .collect();

    // Language model: the question's likelihood after the best sentences, and the yes/no readout.
    let (mut lm_ql, mut lm_gain, mut lm_yes, mut lm_tokens) =
        (vec![f32::NAN; n], vec![f32::NAN; n], vec![f32::NAN; n], vec![0u32; n]);
    if let Some(model) = sources.model {
        let target = format!(" {}", query.trim());
        let mut items: Vec<ScoreItem> = passages
            .iter()
            .zip(&ranked)
            .map(|(p, r)| ScoreItem {
                context: format!("Passage: {}\nQuestion:", lm_window(&p.sentences, r)),
                target: target.clone(),
                probe: LM_PROBE.into(),
            })
            .collect();
        // The same question after an empty passage: its likelihood without evidence.
        items.push(ScoreItem {
            context: "Passage: (none)\nQuestion:".into(),
            target: target.clone(),
            probe: LM_PROBE.into(),
        });
        let scores = model.score_text(LM_FRAME, &items)?;
        let null = scores[n].mean_logprob();
        for i in 0..n {
            lm_ql[i] = scores[i].mean_logprob();
            lm_gain[i] = lm_ql[i] - null;
            lm_yes[i] = logit(scores[i].p_yes);
            lm_tokens[i] = scores[i].tokens;
        }
        lm_tokens[0] += scores[n].tokens;
    }

    let gap = |v: &[f32]| -> Vec<f32> {
        let best = v
            .iter()
            .copied()
            .filter(|x| x.is_finite())
            .fold(f32::NEG_INFINITY, f32::max);
        v.iter().map(|x| x - best).collect()
    };
    let (g_cos, g_sent, g_cov, g_bm, g_ql, g_yes) = (
        gap(&cos_chunk),
        gap(&cos_sent),
        gap(&coverage),
        gap(&bm25),
        gap(&lm_gain),
        gap(&lm_yes),
    );
    Ok((0..n)
        .map(|i| Signals {
            values: vec![
                cos_chunk[i],
                cos_sent[i],
                cos_sent2[i],
                g_cos[i],
                g_sent[i],
                coverage[i],
                coverage_window[i],
                g_cov[i],
                bm25[i],
                g_bm[i],
                kind_fit[i],
                1.0 / (1.0 + ranks[i] as f32),
                lm_ql[i],
                lm_gain[i],
                g_ql[i],
                lm_yes[i],
                g_yes[i],
                inj_proto[i],
            ],
            sentences: passages[i].sentences.clone(),
            ranked_sentences: ranked[i].clone(),
            sentence_cosines: sentence_cosines[i].clone(),
            lm_tokens: lm_tokens[i],
        })
        .collect())
}

/// The passage's best sentences for the language model, in passage order, each cut to a bounded length.
fn lm_window(s: &[Sentence], ranked: &[usize]) -> String {
    let mut pick: Vec<usize> = ranked.iter().take(LM_SENTENCES).copied().collect();
    pick.sort_unstable();
    pick.iter()
        .map(|&k| {
            let t = s[k].text.split_whitespace().collect::<Vec<_>>().join(" ");
            match t.char_indices().nth(LM_SENTENCE_CHARS) {
                Some((cut, _)) => t[..cut].to_string(),
                None => t,
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn logit(p: f32) -> f32 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    (p / (1.0 - p)).ln()
}

/// Indices of `v` from the largest value to the smallest (ties in index order).
pub fn rank_desc(v: &[f32]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[b].partial_cmp(&v[a]).unwrap_or(std::cmp::Ordering::Equal));
    idx
}

/// The question's content words with their IDF weights.
pub struct Lexicon {
    /// Stem → IDF.
    terms: BTreeMap<String, f32>,
    total: f32,
    /// Average passage length in content words (for BM25).
    avg_len: f32,
}

const BM25_K1: f32 = 1.2;
const BM25_B: f32 = 0.75;

impl Lexicon {
    /// IDF from `stats` when given, else from `passages` as the collection.
    pub fn new(query: &str, passages: &[String], stats: Option<&dyn TermStats>) -> Self {
        let stems: Vec<Vec<String>> = passages.iter().map(|p| content_stems(p)).collect();
        let stems: Vec<&[String]> = stems.iter().map(Vec::as_slice).collect();
        Self::from_stems(query, &stems, stats)
    }

    /// [`Lexicon::new`] from the passages' content-word stems.
    pub fn from_stems(query: &str, passages: &[&[String]], stats: Option<&dyn TermStats>) -> Self {
        let stems: Vec<String> = content_stems(query);
        // Stem → the question's own spellings of it (IDF is looked up by word, the match is by stem).
        let mut spellings: HashMap<String, BTreeSet<String>> = HashMap::new();
        for w in words(query) {
            let s = content_stems(&w);
            if let Some(stem) = s.first() {
                spellings.entry(stem.clone()).or_default().insert(w);
            }
        }
        let passage_stems: Vec<BTreeSet<&str>> = (passages.iter())
            .map(|p| p.iter().map(String::as_str).collect())
            .collect();
        let (n, df): (f32, DocFrequency) = match stats {
            Some(st) if st.chunks() > 0 => (
                st.chunks() as f32,
                Box::new(move |stem: &str| {
                    spellings
                        .get(stem)
                        .map(|ws| ws.iter().map(|w| st.frequency(w)).max().unwrap_or(0))
                        .unwrap_or(0) as f32
                }),
            ),
            _ => (
                passages.len() as f32,
                Box::new(move |stem: &str| passage_stems.iter().filter(|p| p.contains(stem)).count() as f32),
            ),
        };
        let mut terms = BTreeMap::new();
        for s in stems {
            let f = df(&s).min(n);
            let idf = (1.0 + (n - f + 0.5) / (f + 0.5)).ln();
            terms.insert(s, idf);
        }
        let total = terms.values().sum();
        let lens: Vec<usize> = passages.iter().map(|p| p.len()).collect();
        let avg_len = (lens.iter().sum::<usize>() as f32 / lens.len().max(1) as f32).max(1.0);
        Lexicon { terms, total, avg_len }
    }

    /// IDF-weighted share of the question's content words present in `stems` (0 to 1).
    pub fn coverage(&self, stems: &[String]) -> f32 {
        if self.total <= 0.0 {
            return 0.0;
        }
        let have: BTreeSet<&str> = stems.iter().map(String::as_str).collect();
        self.terms
            .iter()
            .filter(|(t, _)| have.contains(t.as_str()))
            .map(|(_, w)| w)
            .sum::<f32>()
            / self.total
    }

    /// BM25 of the passage for the question's content words, divided by the sum of their IDFs (0 to k1 + 1).
    pub fn bm25(&self, stems: &[String]) -> f32 {
        if self.total <= 0.0 {
            return 0.0;
        }
        let mut tf: HashMap<&str, f32> = HashMap::new();
        for s in stems {
            *tf.entry(s.as_str()).or_default() += 1.0;
        }
        let len = stems.len() as f32;
        let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * len / self.avg_len);
        self.terms
            .iter()
            .map(|(t, idf)| {
                let f = tf.get(t.as_str()).copied().unwrap_or(0.0);
                idf * f * (BM25_K1 + 1.0) / (f + norm)
            })
            .sum::<f32>()
            / self.total
    }
}

#[cfg(test)]
mod tests {
    use super::super::text::sentences;
    use super::*;

    #[test]
    fn coverage_and_bm25_prefer_the_passage_with_the_rare_words() {
        let passages = vec![
            "TLSH slides a window of five bytes over the input and counts buckets.".to_string(),
            "The input is read once. The input is large.".to_string(),
        ];
        let lex = Lexicon::new("How wide is the TLSH sliding window?", &passages, None);
        let a = lex.coverage(&content_stems(&passages[0]));
        let b = lex.coverage(&content_stems(&passages[1]));
        assert!(a > 0.5 && b == 0.0, "{a} {b}");
        assert!(lex.bm25(&content_stems(&passages[0])) > lex.bm25(&content_stems(&passages[1])));
    }

    #[test]
    fn lm_window_keeps_passage_order() {
        let s = sentences("First sentence is here now. Second one is here too. Third one closes it all.");
        assert_eq!(
            lm_window(&s, &[2, 0, 1]),
            "First sentence is here now. Third one closes it all."
        );
    }
}

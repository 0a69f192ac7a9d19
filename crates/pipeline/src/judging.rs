//! The judge stage with its cache: cached answers are reused (keyed by judge, model, prompt version, question and
//! the hashes of query and passage — for a contextual judge, of the query and the whole candidate set), only
//! missing ones are asked. A judge failure fails open per passage, as Spring's filter does: a passage the judge
//! could not answer stays unscreened (no scores; the policy keeps it as `unscored`) while cached and answered
//! passages still apply — status `partial`, "could not screen N of M"; when no passage has scores, `bypassed`.
//! With `strict`, any failure is an error instead; a refused key always is.
//!
//! Cached answers are checked against the model that answers today: a judge asked through a moving alias
//! (`jev-latest`) gives its answers a time to live ([`Judge::cache_ttl`]), and when a fresh answer comes from another
//! model than a cached one, the cached passages are asked again, so one run never mixes two models' answers.

use super::join::Candidate;
use crate::Result;
use ragsift_core::ids::sha256_hex;
use ragsift_interfaces::store::CachedJudgment;
use ragsift_interfaces::store::LibraryStore;
use ragsift_judge::{Judge, JudgeQuestion};
use ragsift_policy::JudgeDefaults;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum JudgeStatus {
    /// At least one passage was judged now.
    Judged,
    /// Every answer came from the cache: no judge call.
    Cached,
    /// Some passages could not be judged: they stay unscreened, the others' answers apply.
    Partial,
    /// The judge failed on every passage; the original context was used.
    Bypassed,
    /// No judge configured.
    None,
}

/// One candidate's scores: question key → probability of yes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CandidateJudgment {
    pub chunk_id: String,
    /// Stored and sent to the UI as `answers`, the name of Jev's wire and of every saved run.
    #[serde(rename = "answers")]
    pub scores: BTreeMap<String, f64>,
    pub model: String,
    pub cached: bool,
    pub input_tokens: u32,
    pub output_tokens: u32,
    pub latency_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeOutcome {
    pub judge: String,
    pub model: String,
    pub prompt_version: String,
    pub calibrated: bool,
    pub status: JudgeStatus,
    pub error_code: Option<String>,
    pub error: Option<String>,
    pub judgments: Vec<CandidateJudgment>,
    pub fresh_passages: usize,
    pub cached_passages: usize,
    /// Passages the judge could not answer (kept unscreened); the error is the first failure's.
    #[serde(default)]
    pub unscreened_passages: usize,
    pub input_tokens: u32,
    pub output_tokens: u32,
    pub latency_ms: f64,
    /// Questions the judge does not assess: absent from every judgment, their policy rules skipped.
    #[serde(default)]
    pub not_assessed: Vec<String>,
    /// The thresholds this judge's probabilities are read with by default.
    #[serde(default)]
    pub defaults: JudgeDefaults,
}

/// The cache key of one answer.
pub fn cache_key(judge: &dyn Judge, question: &str, query_hash: &str, passage_hash: &str) -> String {
    let id = JudgeKey {
        name: judge.name(),
        model: &judge.model(),
        prompt_version: &judge.prompt_version(),
    };
    id.cache_key(question, query_hash, passage_hash)
}

/// Who answers, as the judgment cache keys it: a judge's name, its configured model and its prompt version.
#[derive(Debug, Clone, Copy)]
pub struct JudgeKey<'a> {
    pub name: &'a str,
    pub model: &'a str,
    pub prompt_version: &'a str,
}

impl JudgeKey<'_> {
    /// The cache key of this judge's answer to `question` about a passage (by the hashes of query and passage).
    pub fn cache_key(&self, question: &str, query_hash: &str, passage_hash: &str) -> String {
        let parts = [
            self.name,
            self.model,
            self.prompt_version,
            question,
            query_hash,
            passage_hash,
        ];
        sha256_hex(parts.join("\u{1f}").as_bytes())
    }
}

impl JudgeOutcome {
    /// "could not screen N of M passages" when the judge failed on some, else `None`.
    pub fn unscreened_note(&self) -> Option<String> {
        (self.unscreened_passages > 0).then(|| {
            format!(
                "could not screen {} of {} passages ({}); they were kept unscreened",
                self.unscreened_passages,
                self.judgments.len(),
                self.error_code.as_deref().unwrap_or("judge error")
            )
        })
    }
}

/// Judges `candidates` against the ORIGINAL query, through the cache.
pub fn judge_candidates(
    store: &dyn LibraryStore,
    judge: &dyn Judge,
    query: &str,
    candidates: &[Candidate],
    questions: &[JudgeQuestion],
    strict: bool,
) -> Result<JudgeOutcome> {
    let start = Instant::now();
    // A contextual judge's answer about a passage depends on the other candidates: key it by all of them.
    // What else the judge sends (rag-jev's guidance) keys the cache with the query.
    let scope = judge.input_scope();
    let keyed = if scope.is_empty() {
        query.to_string()
    } else {
        format!("{query}\u{1d}{scope}")
    };
    let qh = if judge.contextual() {
        let mut s = keyed.clone();
        for c in candidates {
            s.push('\u{1e}');
            s.push_str(&sha256_hex(c.text.as_bytes()));
        }
        sha256_hex(s.as_bytes())
    } else {
        sha256_hex(keyed.as_bytes())
    };
    let not_assessed = judge.not_assessed();
    let questions: Vec<JudgeQuestion> = questions
        .iter()
        .filter(|q| !not_assessed.contains(&q.key))
        .cloned()
        .collect();
    let questions = questions.as_slice();
    let mut outcome = JudgeOutcome {
        judge: judge.name().into(),
        model: judge.model(),
        prompt_version: judge.prompt_version(),
        calibrated: judge.calibrated(),
        status: JudgeStatus::Cached,
        error_code: None,
        error: None,
        judgments: Vec::with_capacity(candidates.len()),
        fresh_passages: 0,
        cached_passages: 0,
        unscreened_passages: 0,
        input_tokens: 0,
        output_tokens: 0,
        latency_ms: 0.0,
        not_assessed,
        defaults: judge.defaults(),
    };
    let now = unix_now();
    let fresh_enough = |hit: &CachedJudgment| {
        judge
            .cache_ttl()
            .is_none_or(|ttl| now.saturating_sub(hit.created_at) <= i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX))
    };
    let mut missing = Vec::new();
    for (i, c) in candidates.iter().enumerate() {
        let ph = sha256_hex(c.text.as_bytes());
        let mut j = CandidateJudgment {
            chunk_id: c.chunk_id.clone(),
            scores: BTreeMap::new(),
            model: String::new(),
            cached: true,
            input_tokens: 0,
            output_tokens: 0,
            latency_ms: 0.0,
        };
        for q in questions {
            match store.judgment(&cache_key(judge, &q.key, &qh, &ph))? {
                Some(hit) if fresh_enough(&hit) => {
                    j.scores.insert(q.key.clone(), hit.probability);
                    j.model = hit.answered_by;
                }
                Some(_) | None => {
                    missing.push(i);
                    break;
                }
            }
        }
        outcome.judgments.push(j);
    }
    if judge.contextual() && !missing.is_empty() {
        missing = (0..candidates.len()).collect();
    }
    if !missing.is_empty() {
        let ask = Ask {
            store,
            judge,
            query,
            candidates,
            questions,
            query_hash: &qh,
            strict,
            now,
        };
        let answered_by = ask.run(&missing, &mut outcome)?;
        // The model behind an alias moved: cached answers by another model are not today's answers; ask again.
        let stale: Vec<usize> = (0..candidates.len())
            .filter(|i| {
                !missing.contains(i) && !answered_by.is_empty() && !answered_by.contains(&outcome.judgments[*i].model)
            })
            .collect();
        if !stale.is_empty() {
            ask.run(&stale, &mut outcome)?;
            missing.extend(stale);
        }
        outcome.status = if outcome.unscreened_passages == 0 {
            JudgeStatus::Judged
        } else if outcome.unscreened_passages == candidates.len() {
            JudgeStatus::Bypassed
        } else {
            JudgeStatus::Partial
        };
    }
    outcome.cached_passages = candidates.len() - missing.len();
    outcome.latency_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(outcome)
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// One round of asking the judge about some candidates, writing their answers to the cache and the outcome.
struct Ask<'a> {
    store: &'a dyn LibraryStore,
    judge: &'a dyn Judge,
    query: &'a str,
    candidates: &'a [Candidate],
    questions: &'a [JudgeQuestion],
    query_hash: &'a str,
    strict: bool,
    now: i64,
}

impl Ask<'_> {
    /// Asks about `which` candidates; returns the models that answered.
    fn run(&self, which: &[usize], outcome: &mut JudgeOutcome) -> Result<BTreeSet<String>> {
        let (judge, questions) = (self.judge, self.questions);
        let texts: Vec<String> = which.iter().map(|&i| self.candidates[i].text.clone()).collect();
        let results = judge.judge_each(self.query, &texts, questions);
        // A refused key fails the command, strict or not: failing open on it would pass every passage through
        // unscreened, run after run, while looking like a judged run.
        let refused = |r: &Result<_>| matches!(r, Err(e) if refused_key(e));
        if self.strict || results.iter().any(refused) {
            let first = if self.strict {
                results.iter().position(Result::is_err)
            } else {
                results.iter().position(refused)
            };
            if let Some(e) = first {
                return Err(results
                    .into_iter()
                    .nth(e)
                    .and_then(Result::err)
                    .unwrap_or(crate::Error::Cancelled));
            }
        }
        let mut rows = Vec::new();
        let mut answered_by = BTreeSet::new();
        for (&i, result) in which.iter().zip(results) {
            let pj = match result {
                Ok(pj) => pj,
                Err(e) => {
                    // Unscreened: no scores at all (not a partial set from the cache), so the policy keeps it as
                    // `unscored` and nothing is decided on half an answer.
                    outcome.judgments[i].scores.clear();
                    outcome.judgments[i].cached = false;
                    outcome.unscreened_passages += 1;
                    if outcome.error.is_none() {
                        outcome.error_code = Some(match &e {
                            crate::Error::Judge { code, .. } => code.as_str().to_string(),
                            other => other.code().to_string(),
                        });
                        outcome.error = Some(e.to_string());
                    }
                    continue;
                }
            };
            let ph = sha256_hex(self.candidates[i].text.as_bytes());
            for q in questions {
                if let Some(&p) = pj.scores.get(&q.key) {
                    rows.push(CachedJudgment {
                        key: cache_key(judge, &q.key, self.query_hash, &ph),
                        judge: judge.name().into(),
                        model: judge.model(),
                        answered_by: pj.model.clone(),
                        prompt_version: judge.prompt_version(),
                        question: q.key.clone(),
                        query_hash: self.query_hash.to_string(),
                        passage_hash: ph.clone(),
                        probability: p,
                        input_tokens: pj.input_tokens,
                        output_tokens: pj.output_tokens,
                        latency_ms: pj.latency_ms,
                        created_at: self.now,
                    });
                }
            }
            answered_by.insert(pj.model.clone());
            outcome.input_tokens += pj.input_tokens;
            outcome.output_tokens += pj.output_tokens;
            outcome.fresh_passages += 1;
            outcome.judgments[i] = CandidateJudgment {
                chunk_id: self.candidates[i].chunk_id.clone(),
                scores: pj.scores,
                model: pj.model,
                cached: false,
                input_tokens: pj.input_tokens,
                output_tokens: pj.output_tokens,
                latency_ms: pj.latency_ms,
            };
        }
        self.store.put_judgments(&rows)?;
        Ok(answered_by)
    }
}

/// Whether the judge's server refused the key (401/403): a failure of the command, never failed open.
pub fn refused_key(e: &crate::Error) -> bool {
    matches!(
        e,
        crate::Error::Auth(_)
            | crate::Error::Judge {
                code: ragsift_core::JudgeCode::ProviderAuth,
                ..
            }
    )
}

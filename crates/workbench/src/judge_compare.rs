//! Compare judges: a stored run judged again by another model (a new run; the original stays as it was), and two
//! runs' judgments side by side per question: Cohen's κ of their yes/no readings, the passages where they
//! disagree, and each judge's accuracy against the run's labels where there are any.

use crate::settings::JudgeKind;
use crate::{Error, Result, Workbench};
use ragsift_judge::default_questions;
use ragsift_pipeline::judging::judge_candidates;
use ragsift_pipeline::Trace;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A probability at or above this reads as "yes" for agreement (the middle of the scale: each judge's own
/// thresholds differ, and agreement must not depend on one of them).
pub const YES_AT: f64 = 0.5;
/// Characters of a passage shown beside a disagreement.
const SNIPPET_CHARS: usize = 160;

/// One side of a comparison: the run and who judged it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeSide {
    pub run_id: String,
    /// `ollama`, `jev`, …
    pub judge: String,
    pub model: String,
    pub prompt_version: String,
}

/// A passage the two judges read differently.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Disagreement {
    pub chunk_id: String,
    pub snippet: String,
    pub a: f64,
    pub b: f64,
}

/// How two judges agree on one question.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct QuestionAgreement {
    pub question: String,
    /// Passages both judges answered.
    pub passages: u32,
    /// The share read the same way.
    pub agreement: f64,
    /// Cohen's κ; `None` (not assessed) when chance agreement is 1 (both judges said the same thing of every
    /// passage), where κ is undefined.
    pub kappa: Option<f64>,
    pub disagreements: Vec<Disagreement>,
    /// Accuracy against the run's relevance labels (relevance and usefulness questions only), `None` without labels.
    pub a_accuracy: Option<f64>,
    pub b_accuracy: Option<f64>,
}

/// Two runs of the same passages, judged by two models.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeComparison {
    pub a: JudgeSide,
    pub b: JudgeSide,
    pub questions: Vec<QuestionAgreement>,
    /// Passages of one run the other does not hold.
    pub unmatched: u32,
}

/// Cohen's κ of paired yes/no readings: (p_o − p_e) / (1 − p_e); `None` when `pairs` is empty or p_e is 1.
pub fn cohens_kappa(pairs: &[(bool, bool)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let agree = pairs.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let a_yes = pairs.iter().filter(|(a, _)| *a).count() as f64 / n;
    let b_yes = pairs.iter().filter(|(_, b)| *b).count() as f64 / n;
    let chance = a_yes * b_yes + (1.0 - a_yes) * (1.0 - b_yes);
    (chance < 1.0).then(|| (agree - chance) / (1.0 - chance))
}

fn side(trace: &Trace) -> JudgeSide {
    JudgeSide {
        run_id: trace.run_id.clone(),
        judge: trace.judge.judge.clone(),
        model: trace.judge.model.clone(),
        prompt_version: trace.judge.prompt_version.clone(),
    }
}

/// Each candidate's text by chunk id, and its answers by text (passages are matched by text, so two runs of the
/// same passages line up whatever their ids).
fn answers_by_text(trace: &Trace) -> HashMap<String, (String, BTreeMap<String, f64>)> {
    let text: HashMap<&str, &str> = (trace.candidates.iter())
        .map(|c| (c.chunk_id.as_str(), c.text.as_str()))
        .collect();
    (trace.judge.judgments.iter())
        .filter_map(|j| {
            let t = text.get(j.chunk_id.as_str())?;
            Some((t.to_string(), (j.chunk_id.clone(), j.scores.clone())))
        })
        .collect()
}

/// The comparison of two runs' judgments (pure: what the view and `runs compare-judges` show).
pub fn compare(a: &Trace, b: &Trace) -> JudgeComparison {
    let (by_a, by_b) = (answers_by_text(a), answers_by_text(b));
    let relevant: Option<HashSet<&str>> =
        (a.labels.relevant_ids.as_ref()).map(|ids| ids.iter().map(String::as_str).collect());
    let mut texts: Vec<&String> = by_a.keys().filter(|t| by_b.contains_key(*t)).collect();
    texts.sort_by_key(|t| by_a[*t].0.clone());
    let questions: std::collections::BTreeSet<&String> = (by_a.values().flat_map(|(_, s)| s.keys()))
        .filter(|q| by_b.values().any(|(_, s)| s.contains_key(*q)))
        .collect();
    let labelled = |q: &str| q == ragsift_policy::IS_RELEVANT || q == ragsift_policy::USEFUL;
    let questions = questions
        .into_iter()
        .map(|q| {
            let mut pairs = Vec::new();
            let mut disagreements = Vec::new();
            let (mut right_a, mut right_b) = (0usize, 0usize);
            for t in &texts {
                let ((id, sa), (_, sb)) = (&by_a[*t], &by_b[*t]);
                let (Some(pa), Some(pb)) = (sa.get(q), sb.get(q)) else {
                    continue;
                };
                let (ya, yb) = (*pa >= YES_AT, *pb >= YES_AT);
                pairs.push((ya, yb));
                if ya != yb {
                    disagreements.push(Disagreement {
                        chunk_id: id.clone(),
                        snippet: t.chars().take(SNIPPET_CHARS).collect(),
                        a: *pa,
                        b: *pb,
                    });
                }
                if let Some(rel) = &relevant {
                    let truth = rel.contains(id.as_str());
                    right_a += usize::from(ya == truth);
                    right_b += usize::from(yb == truth);
                }
            }
            let n = pairs.len();
            let accuracy = |right: usize| (relevant.is_some() && labelled(q) && n > 0).then(|| right as f64 / n as f64);
            QuestionAgreement {
                question: q.clone(),
                passages: n as u32,
                agreement: if n == 0 {
                    0.0
                } else {
                    pairs.iter().filter(|(x, y)| x == y).count() as f64 / n as f64
                },
                kappa: cohens_kappa(&pairs),
                disagreements,
                a_accuracy: accuracy(right_a),
                b_accuracy: accuracy(right_b),
            }
        })
        .collect();
    let unmatched = (by_a.len() - texts.len()) + (by_b.len() - texts.len());
    JudgeComparison {
        a: side(a),
        b: side(b),
        questions,
        unmatched: unmatched as u32,
    }
}

impl Workbench {
    /// Judges a stored run's candidates again with the judge of `kind` (through the judgment cache) and stores the
    /// result as a new run with the same query, candidates, policy and labels; the original stays as it was.
    pub fn rejudge_run(&self, run_id: &str, kind: JudgeKind) -> Result<Trace> {
        let original = self.run(run_id)?;
        let variant = (original.variants.first().cloned())
            .ok_or_else(|| Error::Invalid(format!("run {run_id} has no retrieval to judge again")))?;
        let lib = self.library();
        let request = self.settings().judge.request;
        let (embedder, model);
        let judge: Box<dyn ragsift_judge::Judge + '_> = match self.resolve_judge(kind)? {
            JudgeKind::Local => {
                (embedder, model) = (self.embedder()?, self.model(None)?);
                self.build_judge(
                    JudgeKind::Local,
                    request,
                    embedder.as_ref(),
                    model.as_ref(),
                    lib.store(),
                )?
                .ok_or_else(|| Error::Invalid("no local judge".into()))?
            }
            JudgeKind::Auto | JudgeKind::None => {
                return Err(Error::Invalid(
                    "judging a run again needs a judge: jev, systemone, ollama, openai or local".into(),
                ))
            }
            decision => Box::new(self.decision_judge(decision, request)?),
        };
        let outcome = judge_candidates(
            lib.store(),
            judge.as_ref(),
            &original.query,
            &original.candidates,
            &default_questions(),
            false,
        )?;
        self.store_rejudged(&original, variant, outcome)
    }

    fn store_rejudged(
        &self,
        original: &Trace,
        variant: ragsift_pipeline::trace::VariantHits,
        outcome: ragsift_pipeline::judging::JudgeOutcome,
    ) -> Result<Trace> {
        let lib = self.library();
        let mut trace = Trace::imported(
            &original.query,
            variant,
            original.candidates.clone(),
            outcome,
            &original.policy,
            original.labels.clone(),
        )?;
        trace.made_by = lib.user();
        trace.cost = trace.estimate_cost(&self.settings().rates);
        trace.save(lib.store())?;
        Ok(trace)
    }

    /// Two stored runs' judgments compared per question ([`compare`]).
    pub fn compare_judges(&self, a: &str, b: &str) -> Result<JudgeComparison> {
        Ok(compare(self.run(a)?.as_ref(), self.run(b)?.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_of_a_textbook_table() {
        // 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4.
        let mut pairs = vec![(true, true); 20];
        pairs.extend(vec![(true, false); 5]);
        pairs.extend(vec![(false, true); 10]);
        pairs.extend(vec![(false, false); 15]);
        assert!((cohens_kappa(&pairs).unwrap() - 0.4).abs() < 1e-12);
        // Perfect agreement on a mix is 1; systematic disagreement is −1; all the same is undefined.
        assert_eq!(cohens_kappa(&[(true, true), (false, false)]), Some(1.0));
        assert_eq!(cohens_kappa(&[(true, false), (false, true)]), Some(-1.0));
        assert_eq!(cohens_kappa(&[(true, true), (true, true)]), None);
        assert_eq!(cohens_kappa(&[]), None);
    }
}

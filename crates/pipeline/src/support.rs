//! How well an answer is supported: a probability that the quoted or cited passage holds the answer, and the
//! plain words the app shows for it in three bands ("well supported", "partly supported — check the source",
//! "weakly supported — check the source"), or "no passage supports an answer" when the documents do not say.
//!
//! - An extractive answer with the local judge: a logistic over the quoted passage's evidence probability and the
//!   quoted sentence's score, fitted by `ragsift-bench answers --refit-support` on the labelled set (label: the
//!   quoted passage holds a labelled answer span) and shipped in `support_fit.json` with its two band edges, both
//!   chosen on held-out folds and strictly inside (0, 1). A fit whose edges cannot be reached gives no band:
//!   the answer is "support not assessed" (its number is still shown), never an invented band.
//! - Any other judged answer (Jev, or a model's answer citing `[n]`): the cited passage's evidence probability
//!   as the judge gave it, well supported from 0.85 and weakly below the judge's answer threshold.
//! - No judge, or nothing to cite: not assessed; never an invented number.

use ragsift_judge::local::model::Logistic;
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// The support model and its operating points, as fitted on the labelled set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SupportFit {
    /// Over [`SUPPORT_FEATURES`].
    pub model: Logistic,
    /// At or above: well supported (chosen out of fold so that at least 85% of such answers were right).
    pub well: f64,
    /// At or above (and below `well`): partly supported; below: weakly supported (chosen out of fold so that at
    /// most half of the answers below it were right).
    #[serde(alias = "none")]
    pub partly: f64,
    /// What it was fitted on, for the record.
    pub fitted_on: String,
}

/// The support model's signals: the quoted passage's evidence probability and the quoted sentence's score (as
/// log-odds), the sentence's lead over the runner-up, whether it has the expected answer's shape (a number for
/// "how many"), the share of the question's words it covers, and the best evidence probability of any kept
/// passage (as a log-odds).
pub const SUPPORT_FEATURES: &[&str] = &[
    "evidence_logit",
    "sentence_logit",
    "sentence_margin",
    "sentence_kind",
    "sentence_coverage",
    "best_evidence_logit",
];

impl SupportFit {
    /// Whether both band edges can be reached: `0 < partly < well < 1`. A fit whose "well" edge is 1.0 (no
    /// threshold was right often enough) or whose lower edge is 0.0 would put every answer in one band.
    pub fn reachable(&self) -> bool {
        0.0 < self.partly && self.partly < self.well && self.well < 1.0
    }
}

/// The shipped support fit (`None` before one is fitted).
pub fn shipped() -> Option<&'static SupportFit> {
    static FIT: OnceLock<Option<SupportFit>> = OnceLock::new();
    FIT.get_or_init(|| {
        serde_json::from_str::<Option<SupportFit>>(include_str!("support_fit.json"))
            .expect("the shipped support fit parses")
    })
    .as_ref()
}

/// How well supported an answer is, in words.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum SupportLevel {
    Well,
    /// Between the fit's two edges: the passage may hold the answer.
    Partly,
    Weak,
    /// No passage supports an answer (also when the documents do not say).
    None,
    /// No judge gave probabilities, or the answer cites nothing: no number is shown.
    #[default]
    NotAssessed,
}

impl SupportLevel {
    /// The words Chat shows.
    pub fn words(self) -> &'static str {
        match self {
            SupportLevel::Well => "well supported",
            SupportLevel::Partly => "partly supported — check the source",
            SupportLevel::Weak => "weakly supported — check the source",
            SupportLevel::None => "no passage supports an answer",
            SupportLevel::NotAssessed => "support not assessed",
        }
    }
}

/// Where the probability comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum SupportBasis {
    /// The fitted support model (extractive answer, local judge).
    Fitted,
    /// The judge's evidence probability for the cited passage (Jev, or a model's answer).
    JudgeEvidence,
    /// Nothing to base it on.
    #[default]
    None,
}

/// An answer's support, as stored in its trace and shown in Chat and the Inspector.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Support {
    /// The probability that the quoted or cited passage holds the answer (`None`: not assessed).
    pub probability: Option<f64>,
    pub level: SupportLevel,
    /// The level in Chat's words.
    pub words: String,
    pub basis: SupportBasis,
    /// The source number (`[n]`) the support is about.
    pub source: Option<usize>,
    /// That source's evidence probability from the judge.
    pub evidence: Option<f64>,
    /// The quoted sentence's score (extractive answers).
    pub sentence: Option<f64>,
    /// The support model's inputs, in [`SUPPORT_FEATURES`] order (extractive answers; empty otherwise).
    #[serde(default)]
    pub signals: Vec<f64>,
}

/// What the support is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SupportInput {
    /// The answer says the documents do not say.
    NoEvidence,
    /// Nothing judged or nothing cited.
    Unassessed,
    /// An extractive answer quoting source `source` (1-based) with this sentence score; `fitted` when the local
    /// judge and the shipped sentence model made it, so the fitted support model applies.
    Quoted {
        source: usize,
        evidence: f64,
        sentence: f64,
        /// The sentence's lead over the runner-up, its answer-shape fit and question coverage, and the best kept
        /// passage's evidence probability.
        rest: [f64; 4],
        fitted: bool,
    },
    /// A model's answer citing source `source` (1-based) first.
    Cited { source: usize, evidence: f64 },
}

fn logit(p: f64) -> f64 {
    let p = p.clamp(1e-4, 1.0 - 1e-4);
    (p / (1.0 - p)).ln()
}

/// The support model's signals for one quoted answer.
pub fn features(evidence: f64, sentence: f64, [margin, kind, coverage, best]: [f64; 4]) -> Vec<f64> {
    vec![logit(evidence), logit(sentence), margin, kind, coverage, logit(best)]
}

impl Support {
    /// The support for `input` under `fit` (the shipped one in the pipeline); a judge's own probability is read
    /// directly, weakly supported below `answer_threshold` (the judge's evidence needed to answer).
    pub fn assess(input: SupportInput, fit: Option<&SupportFit>, answer_threshold: f64) -> Support {
        let mut signals = Vec::new();
        let (probability, basis, source, evidence, sentence) = match input {
            SupportInput::NoEvidence => {
                return Support::at(SupportLevel::None, None, SupportBasis::None);
            }
            SupportInput::Unassessed => return Support::default().with_words(),
            SupportInput::Quoted {
                source,
                evidence,
                sentence,
                rest,
                fitted,
            } => match fit.filter(|_| fitted) {
                Some(f) => (
                    {
                        signals = features(evidence, sentence, rest);
                        f.model.predict(&signals)
                    },
                    SupportBasis::Fitted,
                    source,
                    evidence,
                    Some(sentence),
                ),
                None => {
                    signals = features(evidence, sentence, rest);
                    (evidence, SupportBasis::JudgeEvidence, source, evidence, Some(sentence))
                }
            },
            SupportInput::Cited { source, evidence } => (evidence, SupportBasis::JudgeEvidence, source, evidence, None),
        };
        let level = match (basis, fit) {
            (SupportBasis::Fitted, Some(f)) if f.reachable() => level(probability, f.well, f.partly),
            (SupportBasis::Fitted, _) => SupportLevel::NotAssessed,
            _ => level(probability, DIRECT_WELL, answer_threshold),
        };
        Support {
            probability: Some(probability),
            level,
            words: level.words().to_string(),
            basis,
            source: Some(source),
            evidence: Some(evidence),
            sentence,
            signals,
        }
    }

    fn at(level: SupportLevel, probability: Option<f64>, basis: SupportBasis) -> Support {
        Support {
            probability,
            level,
            words: level.words().to_string(),
            basis,
            ..Support::default()
        }
    }

    fn with_words(mut self) -> Support {
        self.words = self.level.words().to_string();
        self
    }
}

/// A judge's evidence probability read directly (Jev's, or the local judge's without the support fit): well
/// supported when the cited passage holds the answer with at least this probability.
pub const DIRECT_WELL: f64 = 0.85;

/// The band of `p` at edges `well` and `partly` (both inclusive from below).
pub fn level(p: f64, well: f64, partly: f64) -> SupportLevel {
    if p >= well {
        SupportLevel::Well
    } else if p >= partly {
        SupportLevel::Partly
    } else {
        SupportLevel::Weak
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fit() -> SupportFit {
        SupportFit {
            model: Logistic {
                features: SUPPORT_FEATURES.iter().map(|s| s.to_string()).collect(),
                mean: vec![0.0; 6],
                scale: vec![1.0; 6],
                weights: vec![1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
                bias: 0.0,
            },
            well: 0.8,
            partly: 0.2,
            fitted_on: "test".into(),
        }
    }

    #[test]
    fn levels_at_their_boundaries() {
        assert_eq!(level(0.8, 0.8, 0.2), SupportLevel::Well);
        assert_eq!(level(0.799_999, 0.8, 0.2), SupportLevel::Partly);
        assert_eq!(level(0.2, 0.8, 0.2), SupportLevel::Partly);
        assert_eq!(level(0.199_999, 0.8, 0.2), SupportLevel::Weak);
    }

    #[test]
    fn the_shipped_fit_has_reachable_edges() {
        // Edges at 1.0 or 0.0 put every answer in one band ("weakly supported" whatever the number).
        let f = shipped().expect("a support fit ships");
        assert!(
            f.reachable(),
            "unreachable band edges: well {}, partly {}",
            f.well,
            f.partly
        );
        for (well, partly) in [(1.0, 0.3), (0.9, 0.0), (0.5, 0.5), (0.4, 0.6)] {
            let g = SupportFit { well, partly, ..fit() };
            assert!(!g.reachable(), "{well}/{partly}");
        }
    }

    #[test]
    fn an_unreachable_fit_gives_no_band() {
        let f = SupportFit {
            well: 1.0,
            partly: 0.0,
            ..fit()
        };
        let s = Support::assess(
            SupportInput::Quoted {
                source: 1,
                evidence: 0.99,
                sentence: 0.99,
                rest: [0.2, 1.0, 0.5, 0.9],
                fitted: true,
            },
            Some(&f),
            0.3,
        );
        assert_eq!(s.level, SupportLevel::NotAssessed);
        assert!(s.probability.is_some(), "the number is still shown");
    }

    #[test]
    fn a_quote_is_scored_by_the_fit_and_a_citation_by_the_judge() {
        let f = fit();
        let quoted = Support::assess(
            SupportInput::Quoted {
                source: 2,
                evidence: 0.9,
                sentence: 0.9,
                rest: [0.2, 1.0, 0.5, 0.9],
                fitted: true,
            },
            Some(&f),
            0.3,
        );
        // σ(logit 0.9 + logit 0.9) = 0.81/(0.81+0.01)
        assert!((quoted.probability.unwrap() - 0.81 / 0.82).abs() < 1e-9);
        assert_eq!(
            (quoted.level, quoted.basis, quoted.source),
            (SupportLevel::Well, SupportBasis::Fitted, Some(2))
        );
        let unfitted = Support::assess(
            SupportInput::Quoted {
                source: 1,
                evidence: 0.5,
                sentence: 0.9,
                rest: [0.2, 1.0, 0.5, 0.9],
                fitted: false,
            },
            Some(&f),
            0.3,
        );
        assert_eq!(
            (unfitted.probability, unfitted.basis),
            (Some(0.5), SupportBasis::JudgeEvidence)
        );
        assert_eq!(unfitted.words, "partly supported — check the source");
        let cited = Support::assess(
            SupportInput::Cited {
                source: 1,
                evidence: 0.1,
            },
            Some(&f),
            0.3,
        );
        assert_eq!(cited.level, SupportLevel::Weak);
        let none = Support::assess(SupportInput::NoEvidence, Some(&f), 0.3);
        assert_eq!((none.level, none.probability), (SupportLevel::None, None));
        assert_eq!(none.words, "no passage supports an answer");
        let not = Support::assess(SupportInput::Unassessed, Some(&f), 0.3);
        assert_eq!(
            (not.level, not.probability, not.words.as_str()),
            (SupportLevel::NotAssessed, None, "support not assessed")
        );
    }
}

//! Cost estimates of a run from configured per-million-token rates, as rag-jev's workbench reports them: judging
//! (the judge's fresh requests; cached answers cost nothing) and generation (the model's prompt and completion
//! tokens). A part whose rate is not configured is `None` ("unknown"), never a guess; a part that used no tokens
//! costs 0.

use serde::{Deserialize, Serialize};

/// Prices per million tokens, in the user's currency; `None` = not configured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct CostRates {
    pub judge_input_per_million: Option<f64>,
    pub judge_output_per_million: Option<f64>,
    pub generation_input_per_million: Option<f64>,
    pub generation_output_per_million: Option<f64>,
}

/// A run's estimated cost; each part `None` when a rate it needs is not configured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CostEstimate {
    pub judging: Option<f64>,
    pub generation: Option<f64>,
    /// The sum, when both parts are known.
    pub total: Option<f64>,
}

/// `tokens` at `rate` per million; 0 without tokens, `None` with tokens but no rate.
fn part(tokens: u64, rate: Option<f64>) -> Option<f64> {
    match (tokens, rate) {
        (0, _) => Some(0.0),
        (_, Some(r)) if r.is_finite() && r >= 0.0 => Some(tokens as f64 * r / 1e6),
        _ => None,
    }
}

impl CostRates {
    /// Checks that every configured rate is a finite, non-negative number; the error names the field.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let all = [
            ("judge_input_per_million", self.judge_input_per_million),
            ("judge_output_per_million", self.judge_output_per_million),
            ("generation_input_per_million", self.generation_input_per_million),
            ("generation_output_per_million", self.generation_output_per_million),
        ];
        match all.iter().find(|(_, r)| r.is_some_and(|r| !r.is_finite() || r < 0.0)) {
            Some((name, r)) => Err((
                name,
                format!("must be a non-negative number, got {}", r.unwrap_or_default()),
            )),
            None => Ok(()),
        }
    }

    /// The estimate for these token counts.
    pub fn estimate(&self, judge_in: u64, judge_out: u64, gen_in: u64, gen_out: u64) -> CostEstimate {
        let sum = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a + b);
        let judging = sum(
            part(judge_in, self.judge_input_per_million),
            part(judge_out, self.judge_output_per_million),
        );
        let generation = sum(
            part(gen_in, self.generation_input_per_million),
            part(gen_out, self.generation_output_per_million),
        );
        CostEstimate {
            judging,
            generation,
            total: sum(judging, generation),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_rates_are_none_and_unused_parts_cost_nothing() {
        let none = CostRates::default();
        assert_eq!(none.estimate(0, 0, 0, 0).total, Some(0.0));
        let e = none.estimate(1_000, 10, 0, 0);
        assert_eq!((e.judging, e.generation, e.total), (None, Some(0.0), None));
        let rates = CostRates {
            judge_input_per_million: Some(0.5),
            judge_output_per_million: Some(2.0),
            generation_input_per_million: Some(1.0),
            generation_output_per_million: None,
        };
        let e = rates.estimate(2_000_000, 500_000, 1_000_000, 0);
        assert_eq!((e.judging, e.generation, e.total), (Some(2.0), Some(1.0), Some(3.0)));
        // Output tokens without an output rate: generation is unknown, and so is the total.
        let e = rates.estimate(0, 0, 1_000, 10);
        assert_eq!((e.judging, e.generation, e.total), (Some(0.0), None, None));
        assert!(CostRates {
            judge_input_per_million: Some(-1.0),
            ..CostRates::default()
        }
        .validate()
        .is_err());
        assert!(rates.validate().is_ok());
    }
}

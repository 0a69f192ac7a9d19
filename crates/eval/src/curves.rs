//! Operating curves: one policy parameter swept from cached judgments, everything else fixed, with evidence
//! recall, precision, context tokens and passages per point (query-level means, as [`crate::evaluate`]'s summary).
//!
//! Over rag-jev cases and traces ([`curves`]): `filter` and `filter_and_rerank` over the `min_relevance` grid
//! ([`crate::threshold_grid`] at [`crate::SWEEP_STEP`]); every rag-jev mode over top-N ([`top_n_grid`]: 1 to the
//! most candidates a case has, every count up to 32, then spaced geometrically) and over a token budget
//! ([`budget_grid`], in the same estimated tokens as `context_tokens`). The fixed settings are the [`EvalOptions`]' (`min_relevance` for the filter modes, `top_n`). A point is exactly
//! what [`crate::evaluate`] reports for its policy at the same settings. Each point carries the
//! [`PolicyOptions`] that produce it, and a curve marks the point of the settings in force ([`Curve::current`]):
//! the current value is added to the grid when it is not on it. The workbench builds the same curves over stored
//! runs with [`build_curve`].

use serde::{Deserialize, Serialize};

use crate::metrics::{estimate_tokens, measure, summarize, Metrics};
use crate::{pair, threshold_grid, EvalCase, EvalError, EvalOptions, RagJevTrace, SWEEP_STEP};
use ragsift_policy::{Mode, PolicyOptions, DEFAULT_THRESHOLDS};

/// The parameter name of the filter modes' minimum usefulness.
pub const MIN_RELEVANCE: &str = "min_relevance";
/// The parameter name of the passage cap.
pub const TOP_N: &str = "top_n";
/// The parameter name of the token budget.
pub const MAX_CONTEXT_TOKENS: &str = "max_context_tokens";
/// Points of a budget curve.
pub const BUDGET_STEPS: usize = 20;

/// One setting of the swept parameter and what the selection it makes does against the labels.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CurvePoint {
    /// The parameter's value (a probability, a passage count or a token budget).
    pub value: f64,
    /// Mean evidence recall over the queries with labelled evidence; `None` when none has any.
    pub evidence_recall: Option<f64>,
    /// Mean precision (0 for an empty selection); `None` when no query has relevance labels.
    pub precision: Option<f64>,
    /// Mean context tokens selected per query.
    pub context_tokens: f64,
    /// Mean passages selected per query.
    pub documents: f64,
    /// The selection options that make this point (set them in Replay to get it).
    pub options: PolicyOptions,
}

/// One policy mode with one parameter swept.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Curve {
    pub mode: Mode,
    /// [`MIN_RELEVANCE`], [`TOP_N`], [`MAX_CONTEXT_TOKENS`] or a classify threshold's key (`is_relevant`, …).
    pub parameter: String,
    /// In increasing `value`.
    pub points: Vec<CurvePoint>,
    /// Index into `points` of the settings in force; `None` when they are another mode or leave the parameter
    /// unset (no top-N, no budget).
    pub current: Option<usize>,
}

/// What one query's selection does against its labels (one case, or one stored run).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Observation {
    pub evidence_recall: Option<f64>,
    pub precision: Option<f64>,
    pub context_tokens: f64,
    pub documents: f64,
}

/// Query-level means: each skips the queries where its value is `None`.
pub fn mean_point(value: f64, options: PolicyOptions, observations: &[Observation]) -> CurvePoint {
    let mean = |f: &dyn Fn(&Observation) -> Option<f64>| {
        let v: Vec<f64> = observations.iter().filter_map(f).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    CurvePoint {
        value,
        evidence_recall: mean(&|o| o.evidence_recall),
        precision: mean(&|o| o.precision),
        context_tokens: mean(&|o| Some(o.context_tokens)).unwrap_or(0.0),
        documents: mean(&|o| Some(o.documents)).unwrap_or(0.0),
        options,
    }
}

/// `base` with `parameter` set to `value` (a threshold key sets that classify threshold).
pub fn with_value(base: &PolicyOptions, parameter: &str, value: f64) -> PolicyOptions {
    let mut o = base.clone();
    match parameter {
        MIN_RELEVANCE => o.min_relevance = Some(value),
        TOP_N => o.top_n = Some(value.round().max(1.0) as usize),
        MAX_CONTEXT_TOKENS => o.max_context_tokens = Some(value.round().clamp(0.0, f64::from(u32::MAX)) as u32),
        key => {
            o.thresholds.insert(key.to_string(), value);
        }
    }
    o
}

/// The value `options` give `parameter`; `None` when unset (no top-N, no budget, a threshold left to defaults).
pub fn current_value(options: &PolicyOptions, parameter: &str) -> Option<f64> {
    match parameter {
        MIN_RELEVANCE => options.min_relevance,
        TOP_N => options.top_n.map(|n| n as f64),
        MAX_CONTEXT_TOKENS => options.max_context_tokens.map(f64::from),
        key => options.thresholds.get(key).copied(),
    }
}

/// The curve of `parameter` over `grid` from `base` (whose mode it is): `measure` gives each point. With `mark`,
/// `base`'s own value is added to the grid if missing and marked as [`Curve::current`].
pub fn build_curve<E>(
    base: &PolicyOptions,
    parameter: &str,
    grid: &[f64],
    mark: bool,
    mut measure: impl FnMut(f64, PolicyOptions) -> Result<CurvePoint, E>,
) -> Result<Curve, E> {
    let mut values = grid.to_vec();
    let current = current_value(base, parameter).filter(|_| mark);
    if let Some(c) = current {
        if !values.iter().any(|v| (v - c).abs() < 1e-12) {
            values.push(c);
        }
    }
    values.sort_by(f64::total_cmp);
    let points = values
        .iter()
        .map(|&v| measure(v, with_value(base, parameter, v)))
        .collect::<Result<Vec<_>, E>>()?;
    Ok(Curve {
        mode: base.mode,
        parameter: parameter.to_string(),
        current: current.and_then(|c| points.iter().position(|p| (p.value - c).abs() < 1e-12)),
        points,
    })
}

/// Token budgets from `max_tokens / steps` up to `max_tokens` (rounded up, without repeats); empty for 0.
pub fn budget_grid(max_tokens: u64, steps: usize) -> Vec<f64> {
    let steps = steps.max(1) as u64;
    let mut grid: Vec<f64> = (1..=steps)
        .map(|i| (max_tokens * i).div_ceil(steps) as f64)
        .filter(|&v| v > 0.0)
        .collect();
    grid.dedup();
    grid
}

/// Top-N values counted one by one up to this, then spaced geometrically.
pub const TOP_N_DENSE: usize = 32;
/// Geometric top-N values past [`TOP_N_DENSE`], at most.
pub const TOP_N_SPARSE_STEPS: usize = 32;

/// Top-N values from 1 to `max_candidates`: every count up to [`TOP_N_DENSE`], then at most
/// [`TOP_N_SPARSE_STEPS`] counts spaced geometrically (rounded, without repeats), ending at `max_candidates`. A
/// run of 2,000 candidates sweeps 64 points, not 2,000 (each point replays every candidate).
pub fn top_n_grid(max_candidates: usize) -> Vec<f64> {
    let mut grid: Vec<usize> = (1..=max_candidates.min(TOP_N_DENSE)).collect();
    if max_candidates > TOP_N_DENSE {
        let ratio = (max_candidates as f64 / TOP_N_DENSE as f64).powf(1.0 / TOP_N_SPARSE_STEPS as f64);
        for i in 1..=TOP_N_SPARSE_STEPS {
            let n = ((TOP_N_DENSE as f64 * ratio.powi(i as i32)).round() as usize).min(max_candidates);
            if grid.last().is_some_and(|&last| n > last) {
                grid.push(n);
            }
        }
        if grid.last() != Some(&max_candidates) {
            grid.push(max_candidates);
        }
    }
    grid.into_iter().map(|n| n as f64).collect()
}

/// The classify threshold keys, in rule order.
pub fn threshold_keys() -> impl Iterator<Item = &'static str> {
    DEFAULT_THRESHOLDS.iter().map(|&(k, _)| k)
}

/// The rag-jev modes' curves over `cases` and their saved `traces` (same checks as [`crate::evaluate`]).
pub fn curves(cases: &[EvalCase], traces: &[RagJevTrace], options: &EvalOptions) -> Result<Vec<Curve>, EvalError> {
    options.validate()?;
    let pairs = pair(cases, traces)?;
    let max_candidates = cases.iter().map(|c| c.documents.len()).max().unwrap_or(0);
    let max_tokens = (cases.iter())
        .map(|c| c.documents.iter().map(|d| estimate_tokens(&d.text) as u64).sum::<u64>())
        .max()
        .unwrap_or(0);
    let point = |value: f64, o: PolicyOptions| -> Result<CurvePoint, EvalError> {
        let rows: Vec<Metrics> = (pairs.iter())
            .map(|&(case, trace)| measure(case, &crate::handed_on(case, trace, &o), o.top_n))
            .collect();
        let s = summarize(rows.iter());
        Ok(CurvePoint {
            value,
            evidence_recall: s.evidence_recall,
            precision: s.precision,
            context_tokens: s.context_tokens.unwrap_or(0.0),
            documents: s.documents.unwrap_or(0.0),
            options: o,
        })
    };
    let mut out = Vec::new();
    for mode in [Mode::Filter, Mode::FilterAndRerank, Mode::Rerank, Mode::Fusion] {
        let filters = matches!(mode, Mode::Filter | Mode::FilterAndRerank);
        let base = PolicyOptions {
            mode,
            min_relevance: filters.then_some(options.min_relevance),
            top_n: options.top_n,
            ..PolicyOptions::default()
        };
        if filters {
            out.push(build_curve(
                &base,
                MIN_RELEVANCE,
                &threshold_grid(SWEEP_STEP),
                true,
                point,
            )?);
        }
        out.push(build_curve(&base, TOP_N, &top_n_grid(max_candidates), true, point)?);
        out.push(build_curve(
            &base,
            MAX_CONTEXT_TOKENS,
            &budget_grid(max_tokens, BUDGET_STEPS),
            true,
            point,
        )?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{evaluate, load_cases, load_traces, EvalPolicy, Summary};
    use std::path::Path;

    fn load() -> (Vec<EvalCase>, Vec<RagJevTrace>) {
        // Cargo's value at run time first: a test binary built in another checkout of the same tree is reused.
        let here = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into());
        let dir = Path::new(&here).join("../../fixtures/eval");
        (
            load_cases(dir.join("cases.json")).unwrap(),
            load_traces(dir.join("traces.json")).unwrap(),
        )
    }

    fn find<'a>(curves: &'a [Curve], mode: Mode, parameter: &str) -> &'a Curve {
        (curves.iter().find(|c| c.mode == mode && c.parameter == parameter))
            .unwrap_or_else(|| panic!("no {mode:?} × {parameter} curve"))
    }

    fn at(curve: &Curve, value: f64) -> &CurvePoint {
        (curve.points.iter().find(|p| (p.value - value).abs() < 1e-9))
            .unwrap_or_else(|| panic!("no point at {value} on {}", curve.parameter))
    }

    fn agrees(point: &CurvePoint, summary: &Summary, what: &str) {
        assert_eq!(point.precision, summary.precision, "{what}: precision");
        assert_eq!(point.evidence_recall, summary.evidence_recall, "{what}: recall");
        assert_eq!(Some(point.context_tokens), summary.context_tokens, "{what}: tokens");
        assert_eq!(Some(point.documents), summary.documents, "{what}: documents");
    }

    #[test]
    fn curves_agree_with_eval_at_the_same_settings() {
        let (cases, traces) = load();
        let options = EvalOptions {
            min_relevance: 0.5,
            top_n: None,
        };
        let all = curves(&cases, &traces, &options).unwrap();
        assert_eq!(
            all.len(),
            2 * 3 + 2 * 2,
            "filter modes: 3 curves each, rerank and fusion: 2"
        );
        for (mode, policy) in [
            (Mode::Filter, EvalPolicy::Filter),
            (Mode::FilterAndRerank, EvalPolicy::FilterAndRerank),
        ] {
            for threshold in [0.0, 0.2, 0.5, 0.75, 1.0] {
                let report = evaluate(
                    &cases,
                    &traces,
                    &EvalOptions {
                        min_relevance: threshold,
                        top_n: None,
                    },
                )
                .unwrap();
                let point = at(find(&all, mode, MIN_RELEVANCE), threshold);
                agrees(point, report.summary.get(policy), &format!("{mode:?} at {threshold}"));
                assert_eq!(point.options.min_relevance, Some(threshold));
            }
        }
        for (mode, policy) in [
            (Mode::Rerank, EvalPolicy::Rerank),
            (Mode::Fusion, EvalPolicy::Fusion),
            (Mode::Filter, EvalPolicy::Filter),
        ] {
            for n in 1..=4 {
                let report = evaluate(
                    &cases,
                    &traces,
                    &EvalOptions {
                        min_relevance: 0.5,
                        top_n: Some(n),
                    },
                )
                .unwrap();
                let point = at(find(&all, mode, TOP_N), n as f64);
                agrees(point, report.summary.get(policy), &format!("{mode:?} top-{n}"));
                assert_eq!(point.options.top_n, Some(n));
            }
        }
        // The settings in force are marked: min_relevance 0.5 on the filter curves, no top-N or budget marked.
        let filter = find(&all, Mode::Filter, MIN_RELEVANCE);
        assert_eq!(filter.points[filter.current.unwrap()].value, 0.5);
        assert_eq!(find(&all, Mode::Rerank, TOP_N).current, None);
        // A budget as large as the longest case keeps what no budget keeps.
        let budget = find(&all, Mode::Rerank, MAX_CONTEXT_TOKENS);
        let none = evaluate(&cases, &traces, &options).unwrap();
        agrees(
            budget.points.last().unwrap(),
            &none.summary.rerank,
            "rerank, full budget",
        );
        let tokens: Vec<f64> = budget.points.iter().map(|p| p.context_tokens).collect();
        assert!(
            tokens.windows(2).all(|w| w[0] <= w[1]),
            "tokens grow with the budget: {tokens:?}"
        );
        assert!(budget.points.iter().all(|p| p.context_tokens <= p.value));
    }

    #[test]
    fn an_off_grid_setting_is_added_and_marked() {
        let (cases, traces) = load();
        let options = EvalOptions {
            min_relevance: 0.33,
            top_n: Some(2),
        };
        let all = curves(&cases, &traces, &options).unwrap();
        let filter = find(&all, Mode::Filter, MIN_RELEVANCE);
        assert_eq!(filter.points.len(), threshold_grid(SWEEP_STEP).len() + 1);
        let marked = &filter.points[filter.current.unwrap()];
        assert_eq!((marked.value, marked.options.top_n), (0.33, Some(2)));
        let report = evaluate(&cases, &traces, &options).unwrap();
        agrees(marked, &report.summary.filter, "filter at 0.33, top-2");
        let top = find(&all, Mode::Fusion, TOP_N);
        assert_eq!(top.points[top.current.unwrap()].value, 2.0);
        assert!(
            curves(&cases, &traces[..1], &options).is_err(),
            "traces must pair with the cases"
        );
    }

    #[test]
    fn grids() {
        assert_eq!(budget_grid(0, 20), Vec::<f64>::new());
        assert_eq!(budget_grid(10, 4), [3.0, 5.0, 8.0, 10.0]);
        assert_eq!(budget_grid(2, 4), [1.0, 2.0]);
        assert_eq!(top_n_grid(3), [1.0, 2.0, 3.0]);
        assert_eq!(top_n_grid(TOP_N_DENSE).len(), TOP_N_DENSE);
        assert_eq!(top_n_grid(TOP_N_DENSE + 1).last(), Some(&(TOP_N_DENSE as f64 + 1.0)));
        for max in [33, 40, 64, 100, 2000, 100_000] {
            let g = top_n_grid(max);
            assert!(g.windows(2).all(|w| w[0] < w[1]), "{max}: not increasing: {g:?}");
            assert_eq!(g[..TOP_N_DENSE], top_n_grid(TOP_N_DENSE)[..], "{max}: the dense part");
            assert_eq!(g.last(), Some(&(max as f64)), "{max}: ends at the most candidates");
            assert!(
                g.len() <= TOP_N_DENSE + TOP_N_SPARSE_STEPS + 1,
                "{max}: {} points",
                g.len()
            );
        }
        assert_eq!(top_n_grid(2000).len(), TOP_N_DENSE + TOP_N_SPARSE_STEPS);
        let mut o = with_value(&PolicyOptions::default(), "is_relevant", 0.3);
        o = with_value(&o, MAX_CONTEXT_TOKENS, 99.6);
        assert_eq!((o.thresholds["is_relevant"], o.max_context_tokens), (0.3, Some(100)));
        assert_eq!(current_value(&o, TOP_N), None);
    }
}

//! rag-jev's candidate policies, their assessment on a split (`assess`) and the development choice (`choose`),
//! from `src/rag_jev/calibration.py` @fa73e740.

use std::collections::{BTreeMap, HashMap};

use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

use ragsift_judge::jev::ragjev::cl100k_tokens;
use ragsift_policy::{select, ChunkJudgment, Mode, PolicyOptions, USEFUL};

use crate::{measure, pair, summarize, Document, EvalCase, EvalError, Metrics, RagJevTrace, ScoringStrategy};

/// rag-jev's `Policy` as `model_dump()` writes it (every field, nulls included). It is also a
/// [`PolicyOptions`] document: `serde_json::from_value::<PolicyOptions>` reads `mode`, `min_relevance`, `top_n`,
/// `max_context_tokens` and `shadow` from it and defaults the rest (`relevance_guidance` is ignored there).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    pub mode: Mode,
    pub min_relevance: Option<f64>,
    pub top_n: Option<usize>,
    /// Token budget of the selected passages, counted with cl100k_base as rag-jev counts them.
    pub max_context_tokens: Option<u32>,
    #[serde(default)]
    pub shadow: bool,
    #[serde(default)]
    pub relevance_guidance: Option<String>,
}

impl Policy {
    /// The ragsift selection options this policy means (groups kept together, as rag-jev does).
    pub fn options(&self) -> PolicyOptions {
        PolicyOptions {
            mode: self.mode,
            min_relevance: self.min_relevance,
            top_n: self.top_n,
            max_context_tokens: self.max_context_tokens,
            shadow: self.shadow,
            keep_groups_together: true,
            ..PolicyOptions::default()
        }
    }

    /// rag-jev's `Policy.version` (16 hex digits), the key of every per-policy table.
    pub fn version(&self) -> String {
        self.options()
            .policy_version_with_guidance(self.relevance_guidance.as_deref())
    }

    /// A short human label: `filter ≥ 0.35`, `rerank top 5`, with `, ≤ N tokens` for a budget.
    pub fn label(&self) -> String {
        let mut label = match (self.min_relevance, self.top_n) {
            (Some(m), _) => format!("{} ≥ {m}", self.mode.name()),
            (None, Some(n)) => format!("{} top {n}", self.mode.name()),
            (None, None) => self.mode.name().to_string(),
        };
        if let Some(b) = self.max_context_tokens {
            label += &format!(", ≤ {b} tokens");
        }
        label
    }
}

/// rag-jev's `candidate_policies`: `filter` then `filter_and_rerank` at each distinct cutoff (ascending), then
/// `rerank` at each distinct top-N (ascending), all with the shared token budget. Refuses cutoffs outside
/// [0, 1], top-Ns outside 1–256, a budget outside 1–1,000,000 (rag-jev's `Policy` bounds) and an empty grid.
pub fn grid(cutoffs: &[f64], top_ns: &[usize], max_context_tokens: Option<u32>) -> Result<Vec<Policy>, EvalError> {
    let invalid = |m: String| Err(EvalError::Invalid(m));
    if let Some(c) = cutoffs.iter().find(|c| !(0.0..=1.0).contains(*c)) {
        return invalid(format!("cutoff {c} is not a probability between 0 and 1"));
    }
    if let Some(n) = top_ns.iter().find(|n| !(1..=256).contains(*n)) {
        return invalid(format!("top-N {n} must be between 1 and 256"));
    }
    if let Some(b) = max_context_tokens.filter(|b| !(1..=1_000_000).contains(b)) {
        return invalid(format!("max_context_tokens {b} must be between 1 and 1,000,000"));
    }
    let mut cutoffs = cutoffs.to_vec();
    cutoffs.sort_by(f64::total_cmp);
    cutoffs.dedup();
    let mut top_ns = top_ns.to_vec();
    top_ns.sort_unstable();
    top_ns.dedup();
    let policy = |mode, min_relevance, top_n| Policy {
        mode,
        min_relevance,
        top_n,
        max_context_tokens,
        shadow: false,
        relevance_guidance: None,
    };
    let mut policies: Vec<Policy> = [Mode::Filter, Mode::FilterAndRerank]
        .iter()
        .flat_map(|&mode| cutoffs.iter().map(move |&c| policy(mode, Some(c), None)))
        .collect();
    policies.extend(top_ns.iter().map(|&n| policy(Mode::Rerank, None, Some(n))));
    if policies.is_empty() {
        return invalid("at least one candidate policy is required".into());
    }
    Ok(policies)
}

/// One case under one policy: rag-jev's metrics, then which passages were handed on and whether the pinned
/// passages alone broke the budget (`None` for the baseline).
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Row {
    #[serde(flatten)]
    pub metrics: Metrics,
    pub case_id: String,
    pub selected_ids: Vec<String>,
    pub budget_exceeded: Option<bool>,
}

/// Query-level means of the metrics rag-jev's calibration reports (each over the cases where it is defined).
#[derive(Serialize, Clone, Debug, PartialEq, Default)]
pub struct CalibrationSummary {
    pub evidence_recall: Option<f64>,
    pub precision: Option<f64>,
    pub ndcg: Option<f64>,
    pub context_tokens: Option<f64>,
    pub documents: Option<f64>,
    pub correctly_empty: Option<f64>,
    pub all_evidence_lost: Option<f64>,
}

/// A split under one policy (or the baseline): `{"summary", "rows"}`.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Assessment {
    pub summary: CalibrationSummary,
    pub rows: Vec<Row>,
}

/// One grid policy with its assessment: `{"policy", "summary", "rows"}`.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct GridResult {
    pub policy: Policy,
    #[serde(skip)]
    pub version: String,
    #[serde(flatten)]
    pub assessment: Assessment,
}

/// Entries serialised as one JSON object in this order (rag-jev's dicts keep insertion order).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Keyed<T>(pub Vec<(String, T)>);

impl<T: Serialize> Serialize for Keyed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Cases paired with their traces after rag-jev's calibration checks, with each passage's cl100k_base tokens.
pub(crate) struct Prepared<'a> {
    pub case: &'a EvalCase,
    trace: &'a RagJevTrace,
    tokens: Vec<usize>,
}

/// rag-jev's checks in `assess`: traces pair one-to-one with the split's cases on the case's fingerprint (see
/// [`crate::evaluate`]), were scored with `strategy`, without relevance guidance, and with the prompt version of
/// that strategy. A trace set from another judge (not rag-jev's versions, e.g. the local judge) is accepted
/// when it uses one version throughout, as `ragsift eval` accepts it; rag-jev has no such judge.
pub(crate) fn prepare<'a>(
    cases: &'a [EvalCase],
    traces: &'a [RagJevTrace],
    strategy: ScoringStrategy,
) -> Result<Vec<Prepared<'a>>, EvalError> {
    let pairs = pair(cases, traces)?;
    let mut token_cache: HashMap<&str, usize> = HashMap::new();
    let mut prepared = Vec::with_capacity(pairs.len());
    for (case, trace) in pairs {
        if trace.scoring_strategy != strategy {
            return Err(EvalError::Invalid(format!(
                "trace for case `{}` was scored {}, not {}: pass the matching --scoring-strategy",
                case.id,
                strategy_name(trace.scoring_strategy),
                strategy_name(strategy)
            )));
        }
        if trace.relevance_guidance.is_some() {
            return Err(EvalError::Invalid(format!(
                "trace for case `{}` was scored with relevance guidance; calibration uses none",
                case.id
            )));
        }
        let tokens = (case.documents.iter())
            .map(|d| {
                *token_cache
                    .entry(d.text.as_str())
                    .or_insert_with(|| cl100k_tokens(&d.text))
            })
            .collect();
        prepared.push(Prepared { case, trace, tokens });
    }
    Ok(prepared)
}

pub(crate) fn strategy_name(s: ScoringStrategy) -> &'static str {
    match s {
        ScoringStrategy::Independent => "independent",
        ScoringStrategy::Contextual => "contextual",
    }
}

/// What `policy` hands on for a prepared case (the baseline when `None`: the case's `baseline_ids`, else every
/// candidate, as rag-jev's calibration), and whether the budget was exceeded (pinned passages alone can).
fn handed_on<'a>(p: &Prepared<'a>, policy: Option<&Policy>) -> (Vec<&'a Document>, Option<bool>) {
    let case = p.case;
    let Some(policy) = policy else {
        let selected = match &case.baseline_ids {
            Some(ids) => ids
                .iter()
                .filter_map(|id| case.documents.iter().find(|d| &d.id == id))
                .collect(),
            None => case.documents.iter().collect(),
        };
        return (selected, None);
    };
    let judgments: Vec<ChunkJudgment> = (case.documents.iter().zip(&p.trace.judgments).enumerate())
        .map(|(i, (d, j))| ChunkJudgment {
            chunk_id: d.id.clone(),
            input_index: i,
            tokens: u32::try_from(p.tokens[i]).unwrap_or(u32::MAX),
            characters: u32::try_from(d.text.chars().count()).unwrap_or(u32::MAX),
            pinned: d.pinned,
            group: d.group_id.clone(),
            scores: BTreeMap::from([(USEFUL.to_string(), j.relevance)]),
            not_assessed: Vec::new(),
        })
        .collect();
    let mut options = policy.options();
    options.shadow = false;
    let selection = select(&judgments, &options);
    let index: HashMap<&str, usize> = case
        .documents
        .iter()
        .enumerate()
        .map(|(i, d)| (d.id.as_str(), i))
        .collect();
    let chosen: Vec<usize> = selection
        .selected()
        .iter()
        .filter_map(|id| index.get(id.as_str()).copied())
        .collect();
    let tokens: usize = chosen.iter().map(|&i| p.tokens[i]).sum();
    let exceeded = policy.max_context_tokens.is_some_and(|b| tokens > b as usize);
    (chosen.iter().map(|&i| &case.documents[i]).collect(), Some(exceeded))
}

/// Assesses prepared cases under `policy` (`None`: the baseline).
pub(crate) fn assess_prepared(prepared: &[Prepared<'_>], policy: Option<&Policy>) -> Assessment {
    let rows: Vec<Row> = prepared
        .iter()
        .map(|p| {
            let (selected, budget_exceeded) = handed_on(p, policy);
            let mut metrics = measure(p.case, &selected, None);
            // rag-jev counts context tokens with cl100k_base.
            let index: HashMap<&str, usize> = p
                .case
                .documents
                .iter()
                .enumerate()
                .map(|(i, d)| (d.id.as_str(), i))
                .collect();
            metrics.context_tokens = selected.iter().map(|d| p.tokens[index[d.id.as_str()]]).sum();
            Row {
                metrics,
                case_id: p.case.id.clone(),
                selected_ids: selected.iter().map(|d| d.id.clone()).collect(),
                budget_exceeded,
            }
        })
        .collect();
    let s = summarize(rows.iter().map(|r| &r.metrics));
    Assessment {
        summary: CalibrationSummary {
            evidence_recall: s.evidence_recall,
            precision: s.precision,
            ndcg: s.ndcg,
            context_tokens: s.context_tokens,
            documents: s.documents,
            correctly_empty: s.correctly_empty,
            all_evidence_lost: s.all_evidence_lost,
        },
        rows,
    }
}

/// rag-jev's `assess`: one split's cases and traces (checked as `prepare` says) under `policy`, or the
/// baseline when `None`. Metrics are rag-jev's (`measure` with the candidate count as nDCG cutoff), with context
/// tokens counted with cl100k_base.
pub fn assess(
    cases: &[EvalCase],
    traces: &[RagJevTrace],
    policy: Option<&Policy>,
    strategy: ScoringStrategy,
) -> Result<Assessment, EvalError> {
    Ok(assess_prepared(&prepare(cases, traces, strategy)?, policy))
}

/// Every grid policy assessed on one split, in grid order.
pub fn assess_grid(
    cases: &[EvalCase],
    traces: &[RagJevTrace],
    policies: &[Policy],
    strategy: ScoringStrategy,
) -> Result<Vec<GridResult>, EvalError> {
    let prepared = prepare(cases, traces, strategy)?;
    Ok(grid_on(&prepared, policies))
}

pub(crate) fn grid_on(prepared: &[Prepared<'_>], policies: &[Policy]) -> Vec<GridResult> {
    policies
        .iter()
        .map(|p| GridResult {
            policy: p.clone(),
            version: p.version(),
            assessment: assess_prepared(prepared, Some(p)),
        })
        .collect()
}

/// The development choice: the policy, its version, or why there is none.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Choice {
    pub eligible: bool,
    pub policy: Option<Policy>,
    #[serde(skip)]
    pub version: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// rag-jev's reason when no policy qualifies.
pub const NO_ELIGIBLE_POLICY: &str = "No development policy meets the requested observed evidence recall";

/// rag-jev's choice rule: among the policies whose mean development evidence recall is at least `min_recall`
/// (a policy without a recall is never eligible), the one with the fewest mean development context tokens; ties
/// go to the higher mean nDCG (a missing nDCG counts as 0), then to the smaller policy version (hex string).
/// When none qualifies there is no policy (`eligible: false`, rag-jev's reason) and nothing is assessed as
/// chosen later. `min_recall` must be finite and in [0, 1].
pub fn choose(results: &[GridResult], min_recall: f64) -> Result<Choice, EvalError> {
    if !(min_recall.is_finite() && (0.0..=1.0).contains(&min_recall)) {
        return Err(EvalError::Invalid(format!(
            "min_recall must be finite and between zero and one, got {min_recall}"
        )));
    }
    let key = |r: &GridResult| {
        let s = &r.assessment.summary;
        (s.context_tokens.unwrap_or(f64::INFINITY), -s.ndcg.unwrap_or(0.0))
    };
    let best = results
        .iter()
        .filter(|r| {
            r.assessment
                .summary
                .evidence_recall
                .is_some_and(|recall| recall >= min_recall)
        })
        .min_by(|a, b| {
            let ((ta, na), (tb, nb)) = (key(a), key(b));
            ta.total_cmp(&tb)
                .then(na.total_cmp(&nb))
                .then_with(|| a.version.cmp(&b.version))
        });
    Ok(match best {
        Some(r) => Choice {
            eligible: true,
            policy: Some(r.policy.clone()),
            version: Some(r.version.clone()),
            reason: None,
        },
        None => Choice {
            eligible: false,
            policy: None,
            version: None,
            reason: Some(NO_ELIGIBLE_POLICY.to_string()),
        },
    })
}

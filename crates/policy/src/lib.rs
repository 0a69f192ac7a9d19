//! Context selection policy: turns per-chunk judge scores into exactly one explained keep/drop decision per chunk.
//!
//! [`Mode::Classify`] (the default) is Spring AI's `JevDocumentFilter`: four yes/no probabilities, ordered rules,
//! first match wins, strict comparisons. Injection above its threshold drops; contradiction above keeps the chunk
//! but flags it conflicting; relevance below drops; evidence above keeps; anything else drops. Kept chunks stay in
//! input order. `filter`, `rerank` and `filter_and_rerank` are rag-jev's: one usefulness score per ranking —
//! [`USEFUL`] when any chunk has it, else [`IS_RELEVANT`], never a mix (a chunk without the chosen key is
//! unscored); filter keeps `score >= min_relevance` in input order, rerank sorts by score descending with ties
//! in input order.
//!
//! Spring's post-processors, community and 2.1 side by side (module `decision`): `jev_rerank` and
//! `decision_rerank` (the `JevDocumentReranker` and `DecisionDocumentReranker`) order by the same usefulness score,
//! ties in input order, unscored chunks after the scored ones and counted toward `rerank_top_k`, `minimum_score`
//! inclusive. `decision_filter` is 2.1's `DecisionDocumentFilter`: classify's rules and thresholds (the community
//! values: 2.1 publishes none), a failed classification kept, or dropped with `fail_closed`. `jev_chain` and
//! `decision_chain` rerank what their filter keeps; these never bypass.
//!
//! Then in every mode: pinned chunks are always selected and count first towards `top_n` and the token budget.
//! `top_n` admits chunks while fewer than `top_n` are selected. As in rag-jev's `apply_policy`, a unit that does
//! not fit the token budget is `beyond_token_budget` and skipped, and scanning goes on: a later, smaller chunk may
//! still fit.
//! With `keep_groups_together`, a group is one unit: kept whole if any member is kept (the others get
//! `group_retained`), admitted or cut whole by `top_n` (so it may overshoot it) and the budget, dropped whole if
//! any member is flagged as injection. Pinning a member pins its group; a pinned chunk beats every rule, even
//! injection. In rerank modes a group ranks by its best member and its members stay together in input order.
//!
//! Fail-open (Spring, rag-jev): a chunk lacking the scores its mode needs (all four questions for classify) is
//! `unscored`, kept after the scored chunks and still subject to `top_n` and the budget, so a judge failure never
//! evicts a judged chunk. If no chunk has them, nothing is filtered: status `bypassed`, the original context.
//! [`select`] is pure and deterministic, so the workbench can replay any setting without judging again.

#![deny(missing_docs)]

mod decision;
mod integrity;
mod options;
mod outcome;
mod pyjson;
mod texts;

use std::collections::{BTreeMap, HashMap};

pub use integrity::{IntegrityWarning, NoteKind, SelectionNote, WarningKind};
pub use options::{GroupBy, JudgeDefaults, Mode, PolicyOptions};
pub use outcome::{diff, same_ids_in_order, Change, Decision, Reason, Selection, Status};
pub use pyjson::{python_float_repr, python_json_dumps, python_json_string};
use serde::{Deserialize, Serialize};
pub use texts::{
    group_by_texts, mode_texts, question_texts, reason_texts, GroupByText, ModeText, QuestionText, ReasonText,
};

/// Question key: probability that the chunk is relevant to the query.
pub const IS_RELEVANT: &str = "is_relevant";
/// Question key: probability that the chunk contains evidence for the answer.
pub const CONTAINS_ANSWER_EVIDENCE: &str = "contains_answer_evidence";
/// Question key: probability that the chunk contradicts a premise of the query.
pub const CONTRADICTS_QUERY_PREMISE: &str = "contradicts_query_premise";
/// Question key: probability that the chunk contains a prompt-injection attempt.
pub const CONTAINS_PROMPT_INJECTION: &str = "contains_prompt_injection";
/// rag-jev's single usefulness probability, read by the filter/rerank modes.
pub const USEFUL: &str = "useful";
/// The classification questions with their default thresholds (Spring's `Policy.defaults()`), in rule order.
pub const DEFAULT_THRESHOLDS: [(&str, f64); 4] = [
    (CONTAINS_PROMPT_INJECTION, 0.70),
    (CONTRADICTS_QUERY_PREMISE, 0.70),
    (IS_RELEVANT, 0.45),
    (CONTAINS_ANSWER_EVIDENCE, 0.55),
];
/// Hashed into every classify policy version, so a change to these rules changes the versions.
pub const POLICY_ALGORITHM: &str = "ragsift-policy-1";
/// rag-jev's `PROMPT_VERSION`: its per-passage usefulness request, and the prompt every policy version hashes.
pub const RAG_JEV_PROMPT_VERSION: &str = "useful-evidence-v1";
/// rag-jev's `CONTEXTUAL_PROMPT_VERSION`: one request judging all passages together.
pub const RAG_JEV_CONTEXTUAL_PROMPT_VERSION: &str = "contextual-evidence-v1";
/// rag-jev's reciprocal-rank-fusion constant.
pub const RRF_K: f64 = 60.0;

/// The judge's output for one retrieved chunk, plus what the policy needs to know about the chunk itself.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChunkJudgment {
    /// The chunk's id, echoed in its decision; assumed unique within a selection.
    pub chunk_id: String,
    /// Position in the retrieved list; decisions come back sorted by it.
    pub input_index: usize,
    /// Length of the chunk in tokens, counted against [`PolicyOptions::max_context_tokens`].
    pub tokens: u32,
    /// Length of the chunk in characters, summed into [`Selection::selected_characters`].
    pub characters: u32,
    /// Always selected, whatever its scores and the limits (and pins its group when groups are kept together).
    /// Defaults to `false`.
    #[serde(default)]
    pub pinned: bool,
    /// Group id; with [`PolicyOptions::keep_groups_together`], chunks sharing it are kept or cut as one. Default none.
    #[serde(default)]
    pub group: Option<String>,
    /// Named yes/no probabilities; empty when the judge was bypassed or failed for this chunk.
    #[serde(default)]
    pub scores: BTreeMap<String, f64>,
    /// Questions the judge does not assess (it has no meaningful score for them): their rules are skipped,
    /// and the decision says so. A question missing from `scores` but not listed here makes the chunk unscored.
    #[serde(default)]
    pub not_assessed: Vec<String>,
}

/// What the mode's score rules alone say about a chunk: a reason (kept ones are Retained, Conflicting or
/// Unscored) and the score behind it.
fn verdict(chunk: &ChunkJudgment, options: &PolicyOptions, t: &[f64; 4], score_key: &str) -> (Reason, Option<f64>) {
    let get = |key: &str| chunk.scores.get(key).copied().filter(|s| s.is_finite());
    if options.mode.classifies() {
        // Per rule: Some(Some(p)) scored, Some(None) not assessed (rule skipped), None missing (unscored).
        let rule = |key: &str| match get(key) {
            Some(p) => Some(Some(p)),
            None if chunk.not_assessed.iter().any(|k| k == key) => Some(None),
            None => None,
        };
        let (Some(inj), Some(con), Some(rel), Some(evi)) = (
            rule(CONTAINS_PROMPT_INJECTION),
            rule(CONTRADICTS_QUERY_PREMISE),
            rule(IS_RELEVANT),
            rule(CONTAINS_ANSWER_EVIDENCE),
        ) else {
            return (decision::failed_classification(options), None);
        };
        let (reason, score) = if let Some(p) = inj.filter(|&p| p > t[0]) {
            (Reason::Injection, Some(p))
        } else if let Some(p) = con.filter(|&p| p > t[1]) {
            (Reason::Conflicting, Some(p))
        } else if let Some(p) = rel.filter(|&p| p < t[2]) {
            (Reason::NotRelevant, Some(p))
        } else {
            match evi {
                Some(p) if p > t[3] => (Reason::Retained, Some(p)),
                Some(p) => (Reason::NoEvidence, Some(p)),
                // Without an evidence score, relevance decides: it passed its rule.
                None => (Reason::Retained, rel),
            }
        };
        return (reason, score);
    }
    match get(score_key) {
        None => (Reason::Unscored, None),
        Some(s) if options.mode.filters() && s < options.min_relevance() => (Reason::BelowThreshold, Some(s)),
        Some(s) => (Reason::Retained, Some(s)),
    }
}

/// A group (or a lone chunk): the thing `top_n`, the budget and the ordering act on.
#[derive(Clone, Copy, Default)]
struct Unit {
    pinned: bool,
    poisoned: bool,
    eligible: bool,
    /// Has a scored member that is kept or pinned; unranked units go after all ranked ones.
    ranked: bool,
    score: f64,
    tokens: u64,
}

/// Applies `options` to the judgments: one decision per chunk, in input order. Pure and deterministic.
pub fn select(judgments: &[ChunkJudgment], options: &PolicyOptions) -> Selection {
    let mut selection = select_only(judgments, options);
    selection.warnings = integrity::warnings(judgments, options, &selection);
    selection.notes = integrity::notes(&selection);
    selection
}

/// [`select`] without the integrity warnings and notes.
fn select_only(judgments: &[ChunkJudgment], options: &PolicyOptions) -> Selection {
    // The user's pins (`options.pinned`) mark their chunks pinned, as a pin in the input would.
    let with_pins: Vec<ChunkJudgment>;
    let judgments = if options.pinned.is_empty() {
        judgments
    } else {
        with_pins = judgments
            .iter()
            .map(|j| ChunkJudgment {
                pinned: j.pinned || options.pinned.contains(&j.chunk_id),
                ..j.clone()
            })
            .collect();
        &with_pins
    };
    let mut rows: Vec<&ChunkJudgment> = judgments.iter().collect();
    rows.sort_by_key(|j| j.input_index); // stable: equal indices keep slice order
    let n = rows.len();
    let t = options.question_thresholds();
    // One score key for the whole ranking, as rag-jev: usefulness when any chunk has it, else relevance.
    let has = |key: &str| rows.iter().any(|j| j.scores.get(key).is_some_and(|s| s.is_finite()));
    let score_key = if has(USEFUL) { USEFUL } else { IS_RELEVANT };
    let mut verdicts: Vec<(Reason, Option<f64>)> = rows.iter().map(|j| verdict(j, options, &t, score_key)).collect();
    // Flagged by the filter, whatever the reranker or the limits do with it afterwards.
    let conflicting: Vec<bool> = verdicts.iter().map(|v| v.0 == Reason::Conflicting).collect();
    if options.mode.spring_reranker() {
        decision::rerank(&rows, &mut verdicts, options, score_key);
    }
    let version = options.policy_version();
    // rag-jev never applies a partial ranking: one unscored chunk bypasses its modes. Spring screens per
    // passage: classify bypasses only when no chunk is scored; the other Spring modes never bypass, each
    // unscored chunk is kept (or dropped by failClosed) on its own.
    let unscored = verdicts.iter().filter(|v| v.0 == Reason::Unscored).count();
    let bypass = match options.mode {
        m if m.is_rag_jev() => unscored > 0,
        Mode::Classify => unscored == n,
        _ => false,
    };
    if n > 0 && bypass {
        return bypassed(&rows, &verdicts, &conflicting, version);
    }
    // rag-jev's ranking signals: the judge's rank (ties in input order) and the fused score.
    let mut jev_rank = vec![None; n];
    let mut fused = vec![None; n];
    if options.mode.is_rag_jev() {
        let mut by_score: Vec<usize> = (0..n).collect();
        by_score.sort_by(|&a, &b| verdicts[b].1.unwrap_or(0.0).total_cmp(&verdicts[a].1.unwrap_or(0.0)));
        for (rank, &i) in by_score.iter().enumerate() {
            jev_rank[i] = Some(rank + 1);
            fused[i] = Some(1.0 / (RRF_K + i as f64 + 1.0) + 1.0 / (RRF_K + (rank + 1) as f64));
        }
    }
    let ranking_score = |i: usize| {
        if options.mode == Mode::Fusion {
            fused[i]
        } else {
            verdicts[i].1
        }
    };

    // Units, numbered in order of first appearance; `members[start[u]..start[u + 1]]` in input order.
    let mut groups: HashMap<&str, usize> = HashMap::new();
    let mut unit_of = Vec::with_capacity(n);
    let mut units_n = 0;
    for j in &rows {
        let id = match j.group.as_deref().filter(|_| options.keep_groups_together) {
            Some(g) => *groups.entry(g).or_insert(units_n),
            None => units_n,
        };
        units_n = units_n.max(id + 1);
        unit_of.push(id);
    }
    let mut units = vec![Unit::default(); units_n];
    let mut start = vec![0usize; units_n + 1];
    for (i, j) in rows.iter().enumerate() {
        let (reason, score) = verdicts[i];
        let unit = &mut units[unit_of[i]];
        unit.pinned |= j.pinned;
        unit.poisoned |= reason == Reason::Injection;
        unit.eligible |= reason.is_kept();
        unit.tokens += u64::from(j.tokens);
        if let Some(s) = ranking_score(i).filter(|_| score.is_some() && (reason.is_kept() || j.pinned)) {
            unit.ranked = true;
            unit.score = unit.score.max(s);
        }
        start[unit_of[i] + 1] += 1;
    }
    for u in 0..units_n {
        start[u + 1] += start[u];
    }
    let mut members: Vec<usize> = (0..n).collect();
    members.sort_by_key(|&i| unit_of[i]);
    let members_of = |u: usize| &members[start[u]..start[u + 1]];
    let mut order: Vec<usize> = (0..units_n).collect();
    order.sort_by(|&a, &b| {
        let (ua, ub) = (&units[a], &units[b]);
        let by_score = if options.mode.reranks() {
            ub.score.total_cmp(&ua.score)
        } else {
            std::cmp::Ordering::Equal
        };
        ub.ranked.cmp(&ua.ranked).then(by_score)
    });

    // Pinned units first, then the others in order, each admitted or cut whole.
    let mut chosen = vec![false; n];
    let mut cut: Vec<Option<Reason>> = vec![None; n];
    let (mut count, mut used) = (0usize, 0u64);
    for u in (0..units_n).filter(|&u| units[u].pinned) {
        for &i in members_of(u).iter().filter(|&&i| rows[i].pinned || !units[u].poisoned) {
            chosen[i] = true;
            count += 1;
            used += u64::from(rows[i].tokens);
        }
    }
    for &u in &order {
        let unit = units[u];
        if unit.pinned || unit.poisoned || !unit.eligible {
            continue;
        }
        let verdict = if options.top_n.is_some_and(|k| count >= k) {
            Some(Reason::BeyondTopN)
        } else if options
            .max_context_tokens
            .is_some_and(|b| used + unit.tokens > u64::from(b))
        {
            Some(Reason::BeyondTokenBudget)
        } else {
            None
        };
        for &i in members_of(u) {
            cut[i] = verdict;
            chosen[i] = verdict.is_none();
        }
        if verdict.is_none() {
            count += members_of(u).len();
            used += unit.tokens;
        }
    }

    // Filter and classify keep the input order, unscored (fail-open) chunks in their place, as Spring does.
    let selected: Vec<usize> = if options.mode.reranks() {
        order
            .iter()
            .flat_map(|&u| members_of(u))
            .copied()
            .filter(|&i| chosen[i])
            .collect()
    } else {
        (0..n).filter(|&i| chosen[i]).collect()
    };
    let reasons: Vec<Reason> = (0..n)
        .map(|i| {
            let own = verdicts[i].0;
            match (chosen[i], cut[i]) {
                (true, _) if rows[i].pinned => Reason::Pinned,
                (true, _) if own.is_kept() => own,
                (true, _) => Reason::GroupRetained,
                (false, Some(r)) => r,
                (false, None) if units[unit_of[i]].poisoned => Reason::Injection,
                (false, None) => own,
            }
        })
        .collect();
    let status = if options.shadow {
        Status::Shadow
    } else {
        Status::Applied
    };
    let signals = Signals {
        jev_rank: &jev_rank,
        fusion: if options.mode == Mode::Fusion { &fused } else { &[] },
        conflicting: &conflicting,
    };
    let mode_classifies = options.mode.classifies();
    assemble(
        &rows,
        &verdicts,
        &selected,
        &reasons,
        status,
        version,
        mode_classifies,
        signals,
    )
}

/// rag-jev's bypass: the original context in its order, every decision `bypassed` with `selected` null, and
/// no selected ids, characters or tokens (null, not "everything").
fn bypassed(
    rows: &[&ChunkJudgment],
    verdicts: &[(Reason, Option<f64>)],
    conflicting: &[bool],
    policy_version: String,
) -> Selection {
    let reasons = vec![Reason::Bypassed; rows.len()];
    let none = Signals {
        jev_rank: &[],
        fusion: &[],
        conflicting,
    };
    let mut selection = assemble(
        rows,
        verdicts,
        &[],
        &reasons,
        Status::Bypassed,
        policy_version,
        false,
        none,
    );
    for d in &mut selection.decisions {
        d.selected = None;
    }
    selection.selected_ids = None;
    selection.selected_characters = None;
    selection.selected_tokens = None;
    selection
}

/// Per-chunk ranking signals that go into the decisions (empty when the mode has none).
#[derive(Clone, Copy)]
struct Signals<'a> {
    jev_rank: &'a [Option<usize>],
    fusion: &'a [Option<f64>],
    /// Flagged conflicting by the filter (kept apart from the reason, which a reranker or a limit may change).
    conflicting: &'a [bool],
}

#[allow(clippy::too_many_arguments)]
fn assemble(
    rows: &[&ChunkJudgment],
    verdicts: &[(Reason, Option<f64>)],
    selected: &[usize],
    reasons: &[Reason],
    status: Status,
    policy_version: String,
    mode_classifies: bool,
    signals: Signals<'_>,
) -> Selection {
    let skipped = |j: &ChunkJudgment| -> Vec<String> {
        DEFAULT_THRESHOLDS
            .iter()
            .map(|&(k, _)| k)
            .filter(|k| !j.scores.contains_key(*k) && j.not_assessed.iter().any(|n| n == k))
            .map(String::from)
            .collect()
    };
    let mut rank = vec![None; rows.len()];
    for (position, &i) in selected.iter().enumerate() {
        rank[i] = Some(position + 1);
    }
    let return_all = status != Status::Applied;
    let mut counts = BTreeMap::new();
    let decisions = rows
        .iter()
        .enumerate()
        .map(|(i, j)| {
            *counts.entry(reasons[i]).or_insert(0) += 1;
            Decision {
                chunk_id: j.chunk_id.clone(),
                input_index: j.input_index,
                selected: Some(rank[i].is_some()),
                returned: return_all || rank[i].is_some(),
                rank: rank[i],
                score: verdicts[i].1,
                jev_rank: signals.jev_rank.get(i).copied().flatten(),
                fusion_score: signals.fusion.get(i).copied().flatten(),
                reason: reasons[i],
                conflicting: signals.conflicting.get(i).copied().unwrap_or(false),
                skipped_rules: if mode_classifies { skipped(j) } else { Vec::new() },
            }
        })
        .collect();
    let selected_ids: Vec<String> = selected.iter().map(|&i| rows[i].chunk_id.clone()).collect();
    let returned_ids = if return_all {
        rows.iter().map(|j| j.chunk_id.clone()).collect()
    } else {
        selected_ids.clone()
    };
    Selection {
        decisions,
        selected_ids: Some(selected_ids),
        returned_ids,
        status,
        selected_tokens: Some(selected.iter().fold(0u32, |sum, &i| sum.saturating_add(rows[i].tokens))),
        selected_characters: Some(
            selected
                .iter()
                .fold(0u32, |sum, &i| sum.saturating_add(rows[i].characters)),
        ),
        counts,
        policy_version,
        warnings: Vec::new(),
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests;

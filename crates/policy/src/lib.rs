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

mod integrity;
mod texts;

use std::collections::{BTreeMap, HashMap, HashSet};

pub use integrity::{IntegrityWarning, WarningKind};
use serde::{Deserialize, Serialize};
pub use texts::{question_texts, reason_texts, QuestionText, ReasonText};

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
/// Hashed into every policy version, so a change to these rules changes the versions.
pub const POLICY_ALGORITHM: &str = "ragsift-policy-1";

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

/// Which rules turn scores into decisions, and whether the selection is reordered.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Spring's four-question rules, first match wins, input order kept; the default.
    #[default]
    Classify,
    /// Keeps chunks whose usefulness is at least `min_relevance`, in input order.
    Filter,
    /// Keeps every chunk, ordered by usefulness descending (ties in input order, unscored last).
    Rerank,
    /// Keeps chunks whose usefulness is at least `min_relevance`, ordered by usefulness descending.
    FilterAndRerank,
}

impl Mode {
    fn filters(self) -> bool {
        matches!(self, Mode::Filter | Mode::FilterAndRerank)
    }
    fn reranks(self) -> bool {
        matches!(self, Mode::Rerank | Mode::FilterAndRerank)
    }
}

/// Selection settings; every field has a default, so `{}` deserialises to [`PolicyOptions::default`].
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(default)]
pub struct PolicyOptions {
    /// Which selection rules apply; defaults to [`Mode::Classify`].
    pub mode: Mode,
    /// Classification thresholds by question key. A missing key takes the judge's default
    /// ([`PolicyOptions::resolved`]), and without one Spring's ([`DEFAULT_THRESHOLDS`]).
    pub thresholds: BTreeMap<String, f64>,
    /// Lowest usefulness kept by the filter modes (inclusive); `None` takes the judge's default (else 0).
    pub min_relevance: Option<f64>,
    /// Admit chunks only while fewer than this many are selected (pinned count first; a group may overshoot).
    /// `None` (the default) means no limit; must be at least 1 when set.
    pub top_n: Option<usize>,
    /// Token budget for the selected context (pinned chunks count first); a unit that does not fit is skipped.
    /// `None` (the default) means no budget.
    pub max_context_tokens: Option<u32>,
    /// Report the proposed selection but return the original context.
    pub shadow: bool,
    /// Treat chunks sharing a [`ChunkJudgment::group`] as one unit; defaults to `true`.
    pub keep_groups_together: bool,
    /// Chunk ids the user pinned: always selected, counted first towards `top_n` and the budget (on top of any
    /// chunk already marked [`ChunkJudgment::pinned`]).
    pub pinned: Vec<String>,
    /// How the pipeline groups chunks into [`ChunkJudgment::group`]s; none by default.
    pub group_by: GroupBy,
}

/// Which chunks form one group (kept or dropped together when `keep_groups_together`).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// Every chunk on its own.
    #[default]
    None,
    /// Chunks of the same document.
    Document,
    /// Chunks starting on the same page of the same document (the closest to a section extraction knows).
    Page,
}

impl Default for PolicyOptions {
    fn default() -> Self {
        PolicyOptions {
            mode: Mode::Classify,
            thresholds: BTreeMap::new(),
            min_relevance: None,
            top_n: None,
            max_context_tokens: None,
            shadow: false,
            keep_groups_together: true,
            pinned: Vec::new(),
            group_by: GroupBy::None,
        }
    }
}

impl PolicyOptions {
    /// Checks ranges and keys; [`select`] never panics on invalid options but its result is then meaningless.
    pub fn validate(&self) -> Result<(), String> {
        for (key, &value) in &self.thresholds {
            if !DEFAULT_THRESHOLDS.iter().any(|&(known, _)| known == key) {
                let known: Vec<&str> = DEFAULT_THRESHOLDS.iter().map(|&(k, _)| k).collect();
                return Err(format!(
                    "unknown threshold `{key}`; expected one of {}",
                    known.join(", ")
                ));
            }
            if !(0.0..=1.0).contains(&value) {
                return Err(format!("threshold `{key}` must be between 0 and 1, got {value}"));
            }
        }
        if let Some(m) = self.min_relevance.filter(|m| !(0.0..=1.0).contains(m)) {
            return Err(format!("min_relevance must be between 0 and 1, got {m}"));
        }
        if self.top_n == Some(0) {
            return Err("top_n must be at least 1 when set".to_string());
        }
        Ok(())
    }

    /// First 16 hex digits (all 64 bits) of FNV-1a-64 over compact JSON of the effective options, keys sorted,
    /// defaults filled in, `shadow` left out (it changes what is returned, not what is selected), plus
    /// [`POLICY_ALGORITHM`].
    pub fn policy_version(&self) -> String {
        #[derive(Serialize)]
        struct Canonical<'a> {
            algorithm: &'a str,
            group_by: GroupBy,
            keep_groups_together: bool,
            max_context_tokens: Option<u32>,
            min_relevance: f64,
            mode: Mode,
            pinned: Vec<&'a str>,
            thresholds: BTreeMap<&'a str, f64>,
            top_n: Option<usize>,
        }
        let mut pinned: Vec<&str> = self.pinned.iter().map(String::as_str).collect();
        pinned.sort_unstable();
        pinned.dedup();
        let mut thresholds: BTreeMap<&str, f64> = DEFAULT_THRESHOLDS.into_iter().collect();
        thresholds.extend(self.thresholds.iter().map(|(k, &v)| (k.as_str(), v)));
        let canonical = Canonical {
            algorithm: POLICY_ALGORITHM,
            group_by: self.group_by,
            keep_groups_together: self.keep_groups_together,
            max_context_tokens: self.max_context_tokens,
            min_relevance: self.min_relevance(),
            mode: self.mode,
            pinned,
            thresholds,
            top_n: self.top_n,
        };
        let json = serde_json::to_string(&canonical).unwrap_or_default();
        format!("{:016x}", fnv1a64(json.as_bytes()))
    }

    fn question_thresholds(&self) -> [f64; 4] {
        DEFAULT_THRESHOLDS.map(|(key, default)| self.thresholds.get(key).copied().unwrap_or(default))
    }

    /// The filter modes' minimum usefulness in force (0 when none is set).
    pub fn min_relevance(&self) -> f64 {
        self.min_relevance.unwrap_or(0.0)
    }

    /// These options with every threshold and the minimum relevance they leave open taken from `defaults`.
    pub fn resolved(&self, defaults: &JudgeDefaults) -> PolicyOptions {
        let mut out = self.clone();
        for (key, &value) in &defaults.thresholds {
            out.thresholds.entry(key.clone()).or_insert(value);
        }
        for (key, value) in DEFAULT_THRESHOLDS {
            out.thresholds.entry(key.to_string()).or_insert(value);
        }
        if out.min_relevance.is_none() {
            out.min_relevance = defaults.min_relevance;
        }
        out
    }
}

/// The thresholds a judge's probabilities are meant to be read with: Spring's for Jev (its cookbook's), fitted
/// operating points for the local judge. `source` names them for the UI ("spring", or the local fit's version).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeDefaults {
    /// Names these defaults for the UI: "spring", or the local fit's version.
    pub source: String,
    /// Classification thresholds by question key (probabilities in 0..=1); missing keys fall back to
    /// [`DEFAULT_THRESHOLDS`].
    pub thresholds: BTreeMap<String, f64>,
    /// Minimum usefulness for the filter modes when the options set none; `None` means 0.
    pub min_relevance: Option<f64>,
    /// The evidence probability a kept passage needs for the answer to use it; below it, on every kept
    /// passage, the answer says the documents do not say.
    pub answer_threshold: f64,
}

impl Default for JudgeDefaults {
    /// Spring AI's `JevDocumentFilter.Policy.defaults()`; no minimum relevance.
    fn default() -> Self {
        JudgeDefaults {
            source: "spring".into(),
            thresholds: DEFAULT_THRESHOLDS.iter().map(|&(k, v)| (k.to_string(), v)).collect(),
            min_relevance: None,
            answer_threshold: DEFAULT_THRESHOLDS[3].1,
        }
    }
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Why a chunk was kept or dropped; exactly one per chunk. A policy explanation, not a model rationale.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// Kept: its scores passed the mode's rules.
    Retained,
    /// Dropped (filter modes): its usefulness score is below `min_relevance`.
    BelowThreshold,
    /// Dropped: it (or its group) passed the rules, but `top_n` chunks were already selected.
    BeyondTopN,
    /// Dropped: it (or its group) passed the rules, but did not fit the remaining token budget.
    BeyondTokenBudget,
    /// Kept: pinned, so selected whatever its scores and the limits.
    Pinned,
    /// Kept: its own scores would drop it, but another member of its group was kept.
    GroupRetained,
    /// Kept: no chunk had the scores its mode needs, so the original context was used.
    Bypassed,
    /// Dropped: it, or a member of its group, scored above the prompt-injection threshold.
    Injection,
    /// Kept and flagged: it scored above the contradicts-premise threshold.
    Conflicting,
    /// Dropped: its relevance score is below the relevance threshold.
    NotRelevant,
    /// Dropped: relevant, but its answer-evidence score is not above the evidence threshold.
    NoEvidence,
    /// Kept (fail-open): it lacks the scores its mode needs, so it follows the scored chunks.
    Unscored,
}

impl Reason {
    /// Every reason, in declaration order.
    pub const ALL: [Reason; 12] = [
        Reason::Retained,
        Reason::BelowThreshold,
        Reason::BeyondTopN,
        Reason::BeyondTokenBudget,
        Reason::Pinned,
        Reason::GroupRetained,
        Reason::Bypassed,
        Reason::Injection,
        Reason::Conflicting,
        Reason::NotRelevant,
        Reason::NoEvidence,
        Reason::Unscored,
    ];

    /// Whether a chunk with this reason is in the selected context.
    pub fn is_kept(&self) -> bool {
        use Reason::*;
        matches!(
            self,
            Retained | Pinned | GroupRetained | Bypassed | Conflicting | Unscored
        )
    }

    /// One short sentence for the UI.
    pub fn explain(&self) -> &'static str {
        match self {
            Reason::Retained => "Kept: its scores passed the selection rules.",
            Reason::BelowThreshold => "Dropped: its usefulness score is below the minimum relevance.",
            Reason::BeyondTopN => "Dropped: it passed the rules but ranked below the top-N cut.",
            Reason::BeyondTokenBudget => "Dropped: it passed the rules but the context token budget was used up.",
            Reason::Pinned => "Kept: pinned, so it is selected whatever its scores and the limits.",
            Reason::GroupRetained => "Kept: another chunk of its group was kept, and groups stay together.",
            Reason::Bypassed => "Kept: no judge scores were available, so the original context was used.",
            Reason::Injection => "Dropped: it, or a chunk of its group, looks like a prompt-injection attempt.",
            Reason::Conflicting => "Kept and flagged: it appears to contradict a premise of the question.",
            Reason::NotRelevant => "Dropped: judged not relevant to the question.",
            Reason::NoEvidence => "Dropped: relevant, but judged not to contain evidence for the answer.",
            Reason::Unscored => "Kept unscreened: the judge gave it no score, so it follows the scored chunks.",
        }
    }
}

/// What a selection's result was used for.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The selection is returned as the context.
    Applied,
    /// Shadow mode: the selection is only reported; the original context is returned.
    Shadow,
    /// No chunk had the scores its mode needs: nothing was filtered, the original context is returned.
    Bypassed,
}

/// The policy's decision for one chunk.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Decision {
    /// The chunk's id, from [`ChunkJudgment::chunk_id`].
    pub chunk_id: String,
    /// The chunk's position in the retrieved list.
    pub input_index: usize,
    /// In the proposed selection (also in shadow mode).
    pub selected: bool,
    /// In what is actually handed to the answer model: everything in shadow and bypass.
    pub returned: bool,
    /// 1-based position in the selected context.
    pub rank: Option<usize>,
    /// Rerank/filter: the usefulness score that ordered it; classify: the probability of the deciding question.
    pub score: Option<f64>,
    /// Why it was kept or dropped.
    pub reason: Reason,
    /// Classified as contradicting the query premise, whatever happened to it afterwards.
    pub conflicting: bool,
    /// Classification rules skipped because the judge does not assess their question (e.g. the contradicted
    /// premise, offline): the reason was reached without them.
    #[serde(default)]
    pub skipped_rules: Vec<String>,
}

/// The result of [`select`]: one decision per chunk and the context it yields.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Selection {
    /// One per chunk, in input order.
    pub decisions: Vec<Decision>,
    /// The proposed context, in final order.
    pub selected_ids: Vec<String>,
    /// What is returned: `selected_ids`, or every chunk in input order in shadow and bypass.
    pub returned_ids: Vec<String>,
    /// Whether the selection was applied, only reported (shadow), or bypassed.
    pub status: Status,
    /// Total tokens of the selected chunks (saturating at `u32::MAX`).
    pub selected_tokens: u32,
    /// Total characters of the selected chunks (saturating at `u32::MAX`).
    pub selected_characters: u32,
    /// Number of chunks per reason; reasons that no chunk got are absent.
    pub counts: BTreeMap<Reason, usize>,
    /// [`PolicyOptions::policy_version`] of the options the selection was made with.
    pub policy_version: String,
    /// Threshold-integrity warnings: thresholds that decide nothing, flat or inverted scores, filters not applied.
    #[serde(default)]
    pub warnings: Vec<IntegrityWarning>,
}

/// A chunk whose selection or reason differs between two selections (absent on one side → `None`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Change {
    /// The chunk's id.
    pub chunk_id: String,
    /// Its reason in the `before` selection; `None` if it was absent there.
    pub before_reason: Option<Reason>,
    /// Its reason in the `after` selection; `None` if it was absent there.
    pub after_reason: Option<Reason>,
    /// Whether it is selected in the `after` selection (`false` if absent there).
    pub now_selected: bool,
}

/// What the mode's score rules alone say about a chunk: a reason (kept ones are Retained, Conflicting or
/// Unscored) and the score behind it.
fn verdict(chunk: &ChunkJudgment, options: &PolicyOptions, t: &[f64; 4], score_key: &str) -> (Reason, Option<f64>) {
    let get = |key: &str| chunk.scores.get(key).copied().filter(|s| s.is_finite());
    if options.mode == Mode::Classify {
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
            return (Reason::Unscored, None);
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
    selection
}

/// [`select`] without the integrity warnings.
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
    let verdicts: Vec<(Reason, Option<f64>)> = rows.iter().map(|j| verdict(j, options, &t, score_key)).collect();
    let version = options.policy_version();
    if n > 0 && verdicts.iter().all(|v| v.0 == Reason::Unscored) {
        let (all, reasons) = ((0..n).collect::<Vec<_>>(), vec![Reason::Bypassed; n]);
        return assemble(&rows, &verdicts, &all, &reasons, Status::Bypassed, version, false);
    }

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
        if let Some(s) = score.filter(|_| reason.is_kept() || j.pinned) {
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

    let selected: Vec<usize> = if options.mode.reranks() {
        order
            .iter()
            .flat_map(|&u| members_of(u))
            .copied()
            .filter(|&i| chosen[i])
            .collect()
    } else {
        let mut selected: Vec<usize> = (0..n).filter(|&i| chosen[i]).collect();
        selected.sort_by_key(|&i| !units[unit_of[i]].ranked); // stable: input order within each tier
        selected
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
    assemble(
        &rows,
        &verdicts,
        &selected,
        &reasons,
        status,
        version,
        options.mode == Mode::Classify,
    )
}

fn assemble(
    rows: &[&ChunkJudgment],
    verdicts: &[(Reason, Option<f64>)],
    selected: &[usize],
    reasons: &[Reason],
    status: Status,
    policy_version: String,
    mode_classifies: bool,
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
                selected: rank[i].is_some(),
                returned: return_all || rank[i].is_some(),
                rank: rank[i],
                score: verdicts[i].1,
                reason: reasons[i],
                conflicting: verdicts[i].0 == Reason::Conflicting,
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
        selected_ids,
        returned_ids,
        status,
        selected_tokens: selected.iter().fold(0u32, |sum, &i| sum.saturating_add(rows[i].tokens)),
        selected_characters: selected
            .iter()
            .fold(0u32, |sum, &i| sum.saturating_add(rows[i].characters)),
        counts,
        policy_version,
        warnings: Vec::new(),
    }
}

/// Chunks whose selected flag or reason changed from `before` to `after`, in `after`'s order, then the chunks
/// only `before` had. Chunk ids are assumed unique within a selection.
pub fn diff(before: &Selection, after: &Selection) -> Vec<Change> {
    let old: HashMap<&str, &Decision> = before.decisions.iter().map(|d| (d.chunk_id.as_str(), d)).collect();
    let new: HashSet<&str> = after.decisions.iter().map(|d| d.chunk_id.as_str()).collect();
    let changed = after
        .decisions
        .iter()
        .filter_map(|d| match old.get(d.chunk_id.as_str()) {
            Some(b) if b.selected == d.selected && b.reason == d.reason => None,
            b => Some(Change {
                chunk_id: d.chunk_id.clone(),
                before_reason: b.map(|b| b.reason),
                after_reason: Some(d.reason),
                now_selected: d.selected,
            }),
        });
    let gone = before
        .decisions
        .iter()
        .filter(|d| !new.contains(d.chunk_id.as_str()))
        .map(|d| Change {
            chunk_id: d.chunk_id.clone(),
            before_reason: Some(d.reason),
            after_reason: None,
            now_selected: false,
        });
    changed.chain(gone).collect()
}

#[cfg(test)]
mod tests;

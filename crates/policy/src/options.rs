//! The selection options: the mode, thresholds, limits, pins and grouping a selection is made with, their
//! validation and version, and the defaults a judge brings for its own probabilities.

use crate::{DEFAULT_THRESHOLDS, POLICY_ALGORITHM, RAG_JEV_PROMPT_VERSION};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which rules turn scores into decisions, and whether the selection is reordered.
///
/// Three families, named side by side: the community spring-ai-typesafe post-processors (`classify` is its
/// `JevDocumentFilter`, `jev_rerank` its `JevDocumentReranker`, `jev_chain` the two chained), Spring AI 2.1's
/// (`decision_filter`, `decision_rerank`, `decision_chain`) and rag-jev's (`filter`, `rerank`,
/// `filter_and_rerank`, `fusion`). Spring AI 2.1 publishes no threshold values, comparison strictness or question
/// wording, so its filter reads the community filter's thresholds ([`crate::DEFAULT_THRESHOLDS`], each one a
/// setting in [`PolicyOptions::thresholds`]).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The community `JevDocumentFilter`: four questions, first match wins, input order kept, fail-open on every
    /// failure; the default.
    #[default]
    Classify,
    /// Keeps chunks whose usefulness is at least `min_relevance`, in input order.
    Filter,
    /// Keeps every chunk, ordered by usefulness descending (ties in input order, unscored last).
    Rerank,
    /// Keeps chunks whose usefulness is at least `min_relevance`, ordered by usefulness descending.
    FilterAndRerank,
    /// Keeps every chunk, ordered by reciprocal rank fusion (k = 60) of the retrieval rank and the judge's rank.
    Fusion,
    /// The community `JevDocumentReranker`: ordered by the usefulness score descending, ties in input order,
    /// unscored chunks after every scored one in arrival order and counted toward `rerank_top_k`; `minimum_score`
    /// (inclusive; its default 0.0 drops nothing) and `rerank_top_k` (default all).
    JevRerank,
    /// The community `JevDocumentFilter` then `JevDocumentReranker`: the reranker orders what the filter keeps
    /// (a passage the filter could not classify is kept, fail-open, and reranked with the others).
    JevChain,
    /// Spring AI 2.1's `DecisionDocumentFilter`: the same four questions and rules as `classify`, with the
    /// community thresholds (2.1 publishes none); a passage whose classification failed is kept, or dropped with
    /// [`PolicyOptions::fail_closed`]. Input order kept.
    DecisionFilter,
    /// Spring AI 2.1's `DecisionDocumentReranker`: score descending, ties in input order, `minimum_score`
    /// inclusive, unscored chunks after all scored ones and counted toward `rerank_top_k`, which cuts after sorting.
    DecisionRerank,
    /// Spring AI 2.1's published chain: `DecisionDocumentFilter` (with its `fail_closed`) then
    /// `DecisionDocumentReranker` (with its `rerank_top_k` and `minimum_score`) over what the filter keeps; the published
    /// example is [`PolicyOptions::spring_decision_chain_example`].
    DecisionChain,
}

impl Mode {
    /// Every mode, in the order a picker lists them: the community's, Spring AI 2.1's, then rag-jev's.
    pub const ALL: [Mode; 10] = [
        Mode::Classify,
        Mode::JevRerank,
        Mode::JevChain,
        Mode::DecisionFilter,
        Mode::DecisionRerank,
        Mode::DecisionChain,
        Mode::Filter,
        Mode::Rerank,
        Mode::FilterAndRerank,
        Mode::Fusion,
    ];

    /// The mode's wire name (`filter_and_rerank`).
    pub fn name(self) -> &'static str {
        match self {
            Mode::Classify => "classify",
            Mode::Filter => "filter",
            Mode::Rerank => "rerank",
            Mode::FilterAndRerank => "filter_and_rerank",
            Mode::Fusion => "fusion",
            Mode::JevRerank => "jev_rerank",
            Mode::JevChain => "jev_chain",
            Mode::DecisionFilter => "decision_filter",
            Mode::DecisionRerank => "decision_rerank",
            Mode::DecisionChain => "decision_chain",
        }
    }
    /// rag-jev's filter modes: they read `min_relevance`.
    pub(crate) fn filters(self) -> bool {
        matches!(self, Mode::Filter | Mode::FilterAndRerank)
    }
    /// The modes whose selection is reordered by a score.
    pub(crate) fn reranks(self) -> bool {
        matches!(self, Mode::Rerank | Mode::FilterAndRerank | Mode::Fusion) || self.spring_reranker()
    }
    /// rag-jev's modes: one usefulness score per chunk, and a single missing score bypasses the selection.
    pub fn is_rag_jev(self) -> bool {
        matches!(self, Mode::Filter | Mode::Rerank | Mode::FilterAndRerank | Mode::Fusion)
    }
    /// The modes that ask the four classification questions and read their thresholds.
    pub fn classifies(self) -> bool {
        matches!(
            self,
            Mode::Classify | Mode::JevChain | Mode::DecisionFilter | Mode::DecisionChain
        )
    }
    /// The modes with a Spring reranker (community or 2.1): they read `rerank_top_k` and `minimum_score`.
    pub fn spring_reranker(self) -> bool {
        matches!(
            self,
            Mode::JevRerank | Mode::JevChain | Mode::DecisionRerank | Mode::DecisionChain
        )
    }
    /// The modes with Spring AI 2.1's `DecisionDocumentFilter`: they read `fail_closed`.
    pub fn reads_fail_closed(self) -> bool {
        matches!(self, Mode::DecisionFilter | Mode::DecisionChain)
    }
    /// Spring AI 2.1's `Decision*` post-processors (the others are the community's or rag-jev's).
    pub fn is_spring_ai_2_1(self) -> bool {
        matches!(self, Mode::DecisionFilter | Mode::DecisionRerank | Mode::DecisionChain)
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
    /// Treat chunks sharing a [`crate::ChunkJudgment::group`] as one unit; defaults to `true`.
    pub keep_groups_together: bool,
    /// Chunk ids the user pinned: always selected, counted first towards `top_n` and the budget (on top of any
    /// chunk already marked [`crate::ChunkJudgment::pinned`]).
    pub pinned: Vec<String>,
    /// How the pipeline groups chunks into [`crate::ChunkJudgment::group`]s; none by default.
    pub group_by: GroupBy,
    /// Spring AI 2.1's `DecisionDocumentFilter.failClosed` (`decision_filter`, `decision_chain` only): drop a
    /// chunk whose classification failed (no judgment, or no score for a question it needs) instead of keeping
    /// it. Defaults to `false`, fail-open, as 2.1's default and the community filter (which has no such switch).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub fail_closed: bool,
    /// The Spring reranker's `topK` (`jev_rerank`, `jev_chain`, `decision_rerank`, `decision_chain` only): how
    /// many chunks it keeps, cut after sorting, unscored chunks counted. `None` (the default, the community
    /// reranker's; 2.1 publishes none) keeps all; at least 1 when set. Independent of the workbench's `top_n`,
    /// which still applies afterwards (pins first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rerank_top_k: Option<usize>,
    /// The Spring reranker's `minimumScore` (reranker modes only): a scored chunk is kept if its score is at
    /// least this (inclusive); an unscored chunk is never dropped by it. `None` (the default) is the community
    /// reranker's 0.0, which drops nothing; 2.1 publishes no default. Between 0 and 1 when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum_score: Option<f64>,
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
    /// Chunks starting on the same page of the same document.
    Page,
    /// Chunks under the same section heading of the same document (a chunk before any heading groups by its page).
    Section,
}

impl GroupBy {
    /// Every grouping, in the order a list of them shows.
    pub const ALL: [GroupBy; 4] = [GroupBy::None, GroupBy::Document, GroupBy::Page, GroupBy::Section];

    /// Its name in options, policy versions and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::None => "none",
            GroupBy::Document => "document",
            GroupBy::Page => "page",
            GroupBy::Section => "section",
        }
    }
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
            fail_closed: false,
            rerank_top_k: None,
            minimum_score: None,
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
        // As rag-jev's select request: a budget of no tokens is a mistake, not a policy.
        if self.max_context_tokens == Some(0) {
            return Err("max_context_tokens must be at least 1 when set".to_string());
        }
        if let Some(m) = self.minimum_score.filter(|m| !(0.0..=1.0).contains(m)) {
            return Err(format!("minimum_score must be between 0 and 1, got {m}"));
        }
        if self.rerank_top_k == Some(0) {
            return Err("rerank_top_k must be at least 1 when set".to_string());
        }
        if self.fail_closed && !self.mode.reads_fail_closed() {
            return Err(format!(
                "fail_closed is Spring AI 2.1's DecisionDocumentFilter option (decision_filter, decision_chain); \
                 {} does not read it",
                self.mode.name()
            ));
        }
        if !self.mode.spring_reranker() {
            for (set, name) in [
                (self.rerank_top_k.is_some(), "rerank_top_k"),
                (self.minimum_score.is_some(), "minimum_score"),
            ] {
                if set {
                    return Err(format!(
                        "{name} is the Spring reranker's option (jev_rerank, jev_chain, decision_rerank, \
                         decision_chain); {} does not read it",
                        self.mode.name()
                    ));
                }
            }
        }
        // rag-jev's `Policy.validate_threshold`, for the modes that take no threshold.
        if self.min_relevance.is_some() {
            match self.mode {
                Mode::Rerank => return Err("use filter_and_rerank when combining a threshold with reranking".into()),
                Mode::Fusion => return Err("fusion combines ranks without a relevance threshold".into()),
                _ => {}
            }
        }
        Ok(())
    }

    /// [`PolicyOptions::validate`], then rag-jev's refusal of a filter mode without a threshold; for options
    /// [`PolicyOptions::resolved`] with the judge's defaults (which may supply the threshold).
    pub fn validate_resolved(&self) -> Result<(), String> {
        self.validate()?;
        if self.mode.filters() && self.min_relevance.is_none() {
            return Err("min_relevance is required for filtering; calibrate on your data".into());
        }
        Ok(())
    }

    /// rag-jev's `Policy.version`: the first 16 hex digits of the SHA-256 of Python's
    /// `json.dumps({"prompt": "useful-evidence-v1", **options}, sort_keys=True)`, where the options are `mode`,
    /// `min_relevance`, `top_n`, `relevance_guidance` (null here) and `max_context_tokens` when set;
    /// `shadow` is left out (it changes what is returned, not what is selected). So a rag-jev-mode policy
    /// without pins or groups has exactly rag-jev's version. What rag-jev does not have enters only when it
    /// differs from the default, as rag-jev itself added `max_context_tokens`: the user's pins (sorted),
    /// `group_by`, `keep_groups_together: false`, for the classifying modes the four thresholds in force plus
    /// [`POLICY_ALGORITHM`], and for the Spring modes the options they read (`fail_closed`; `rerank_top_k` and
    /// `minimum_score`, null when unset).
    pub fn policy_version(&self) -> String {
        self.policy_version_with_guidance(None)
    }

    /// [`PolicyOptions::policy_version`] with rag-jev's `relevance_guidance` (the extra criteria its judge is sent),
    /// which rag-jev hashes into the policy version; `None` hashes as null.
    pub fn policy_version_with_guidance(&self, guidance: Option<&str>) -> String {
        use serde_json::{Map, Value};
        let mut fields = Map::new();
        fields.insert("prompt".into(), RAG_JEV_PROMPT_VERSION.into());
        fields.insert("mode".into(), self.mode.name().into());
        fields.insert(
            "min_relevance".into(),
            self.min_relevance.map_or(Value::Null, Value::from),
        );
        fields.insert(
            "top_n".into(),
            self.top_n.map_or(Value::Null, |n| Value::from(n as u64)),
        );
        fields.insert("relevance_guidance".into(), guidance.map_or(Value::Null, Value::from));
        if let Some(budget) = self.max_context_tokens {
            fields.insert("max_context_tokens".into(), budget.into());
        }
        let mut pinned: Vec<&str> = self.pinned.iter().map(String::as_str).collect();
        pinned.sort_unstable();
        pinned.dedup();
        if !pinned.is_empty() {
            fields.insert("pinned".into(), pinned.into());
        }
        if self.group_by != GroupBy::None {
            fields.insert("group_by".into(), self.group_by.name().into());
        }
        if !self.keep_groups_together {
            fields.insert("keep_groups_together".into(), false.into());
        }
        if self.mode.classifies() {
            let thresholds: Map<String, Value> = DEFAULT_THRESHOLDS
                .iter()
                .zip(self.question_thresholds())
                .map(|(&(k, _), v)| (k.to_string(), Value::from(v)))
                .collect();
            fields.insert("thresholds".into(), thresholds.into());
            fields.insert("algorithm".into(), POLICY_ALGORITHM.into());
        }
        // Only the modes that read them, so every earlier mode's version stays as it was.
        if self.mode.reads_fail_closed() {
            fields.insert("fail_closed".into(), self.fail_closed.into());
        }
        if self.mode.spring_reranker() {
            fields.insert(
                "rerank_top_k".into(),
                self.rerank_top_k.map_or(Value::Null, |k| Value::from(k as u64)),
            );
            fields.insert(
                "minimum_score".into(),
                self.minimum_score.map_or(Value::Null, Value::from),
            );
        }
        crate::pyjson::sha256_prefix(&Value::Object(fields))
    }

    /// Spring AI 2.1's published example: a retriever at topK 12 (the retrieval, outside the policy), then
    /// `DecisionDocumentFilter` with `failClosed(true)`, then `DecisionDocumentReranker` at `topK(5)`.
    pub fn spring_decision_chain_example() -> PolicyOptions {
        PolicyOptions {
            mode: Mode::DecisionChain,
            fail_closed: true,
            rerank_top_k: Some(5),
            ..PolicyOptions::default()
        }
    }

    /// The options' classify thresholds in rule order (the options' own, else Spring's).
    pub(crate) fn question_thresholds(&self) -> [f64; 4] {
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
        if out.min_relevance.is_none() && self.mode.filters() {
            out.min_relevance = defaults.min_relevance;
        }
        out
    }

    /// These options as a form shows them: every threshold resolved ([`PolicyOptions::resolved`]), and a minimum
    /// relevance in every mode (the options' own, else the judge's, else 0), so a switch to a filter mode starts
    /// from the value the judge would use.
    pub fn for_form(&self, defaults: &JudgeDefaults) -> PolicyOptions {
        let mut out = self.resolved(defaults);
        out.min_relevance = Some(self.min_relevance.or(defaults.min_relevance).unwrap_or(0.0));
        out
    }

    /// The judge's own defaults, as a form shows them: these options with their thresholds and minimum relevance
    /// cleared, then filled from `defaults` ([`PolicyOptions::for_form`]); mode, limits, pins and groups stay.
    pub fn judge_form(&self, defaults: &JudgeDefaults) -> PolicyOptions {
        PolicyOptions {
            thresholds: BTreeMap::new(),
            min_relevance: None,
            ..self.clone()
        }
        .for_form(defaults)
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

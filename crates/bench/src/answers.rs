//! `ragsift-bench answers`: the whole pipeline on the labelled set, per answer mode — whether the selected context
//! keeps the evidence, how much of the retrieved text it cuts, whether the answer contains the labelled answer
//! phrase, abstains on unanswerable questions, and never echoes its prompt — against today's default (the
//! yes/no readout judge with Spring's thresholds and Spring's chat prompt) and no judge at all.

use crate::qaset::{self, QaSet};
use ragsift_engine::eval::qa::QuestionKind;
use ragsift_engine::eval::spans::contains;
use ragsift_engine::judge::{Judge, LocalJudge, ReadoutJudge};
use ragsift_engine::pipeline::answer::{echoes_prompt, AnswerMode, AnsweredBy};
use ragsift_engine::pipeline::{Pipeline, Stage, Trace};
use ragsift_engine::{CancelToken, LanguageModel, LibraryRetriever, Result};

/// The configurations compared by default: the shipped default first, today's default and no judge last.
pub const DEFAULT_CONFIGS: &[&str] = &[
    "local-extractive",
    "local-completion",
    "local-chat",
    "readout-chat",
    "none-chat",
];

pub struct Options {
    pub top_k: usize,
    /// How the pipeline retrieves (the labelled candidates are retrieved the same way).
    pub mode: ragsift_engine::retrieve::SearchMode,
    /// Only N questions, evenly spaced over the set (0 = all).
    pub limit: usize,
    pub configs: Vec<String>,
    /// Fit the support model on the first extractive configuration and write it.
    pub refit_support: bool,
    /// The instruction model that writes grounded answers beside the installed base model.
    pub answer_model: Option<std::path::PathBuf>,
    /// Threads for the answer model (0: llama.cpp's default).
    pub threads: usize,
}

/// Figures of one configuration over the set.
#[derive(Default, Debug, Clone)]
pub struct Figures {
    pub answerable: usize,
    pub evidence_retrieved: usize,
    pub evidence_kept: usize,
    pub chars_retrieved: usize,
    pub chars_kept: usize,
    pub phrase_hits: usize,
    pub phrase_hits_300: usize,
    pub unanswerable: usize,
    pub abstained_unanswerable: usize,
    pub abstained_answerable: usize,
    pub echoes: usize,
    /// Answerable questions answered by the model's checked claims (grounded), and by the fallback quotes.
    pub grounded: usize,
    /// Seconds per question: the whole ask, and until the first token of the answer.
    pub ask_seconds: Vec<f64>,
    pub first_token_seconds: Vec<f64>,
    /// Prompt and generated tokens, and the seconds of the generation stage (model answers).
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub prompt_seconds: f64,
    pub decode_seconds: f64,
    pub seconds: f64,
    pub questions: usize,
    /// The same figures per kind of document and for the table-cell questions (empty inside a group).
    pub groups: Vec<(String, Figures)>,
    /// Each answered question's support signals and whether the answer was right (extractive answers).
    pub support: Vec<crate::support::Row>,
}

pub fn run(o: &Options) -> Result<()> {
    let embedder = crate::embedder(0)?;
    let set = qaset::load_with(&embedder, o.top_k, o.mode)?;
    let model = crate::judge::load_model()?;
    let answer_model = match &o.answer_model {
        Some(path) => {
            let options = ragsift_engine::llm::embedded::EmbeddedOptions {
                threads: o.threads,
                ..Default::default()
            };
            Some(ragsift_engine::llm::embedded::EmbeddedModel::load(
                path, &options, None,
            )?)
        }
        None => None,
    };
    let answerer = answer_model.as_ref().map(|m| m as &dyn LanguageModel);
    if let Some(path) = &o.answer_model {
        println!(
            "Answer model: {} (the judge's model: the installed one)",
            path.display()
        );
    }
    println!(
        "\n## Answers on the labelled set (top-k {}, {:?} search, {} questions)\n",
        o.top_k,
        o.mode,
        limit(&set, o.limit)
    );
    println!("| configuration | evidence kept | retrieved chars cut | answer phrase | in first 300 chars | abstains when unanswerable | abstains when answerable | echoes prompt | s/question | p50 ask s | p50 first token s | model's checked claims | prompt tok/s | gen tok/s |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut support = None;
    for config in &o.configs {
        let f = measure(&set, &embedder, &model, answerer, config, o.limit, (o.top_k, o.mode))?;
        print_row(config, &f);
        for (group, g) in &f.groups {
            print_row(&format!("… {group}"), g);
        }
        if support.is_none() && config.ends_with("-extractive") {
            support = Some((f.support.clone(), f.abstained_unanswerable));
        }
    }
    if let Some((rows, abstained)) = support {
        crate::support::report(&rows, abstained, o.refit_support)?;
    }
    Ok(())
}

fn limit(set: &QaSet, n: usize) -> usize {
    if n == 0 {
        set.cases.len()
    } else {
        n.min(set.cases.len())
    }
}

fn pct(a: usize, b: usize) -> String {
    if b == 0 {
        "—".into()
    } else {
        format!("{:.0}% ({a}/{b})", 100.0 * a as f64 / b as f64)
    }
}

fn p50(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub fn print_row(name: &str, f: &Figures) {
    // Prompt tokens/s: until the first token of the generation stage; generation tokens/s: the rest of it.
    let (ptps, gtps) = if f.completion_tokens > 0 && f.prompt_seconds > 0.0 && f.decode_seconds > 0.0 {
        (
            format!("{:.0}", f.prompt_tokens as f64 / f.prompt_seconds),
            format!("{:.1}", f.completion_tokens as f64 / f.decode_seconds),
        )
    } else {
        ("—".into(), "—".into())
    };
    println!(
        "| {name} | {} | {:.0}% | {} | {} | {} | {} | {} | {:.1} | {:.2} | {:.2} | {} | {ptps} | {gtps} |",
        pct(f.evidence_kept, f.evidence_retrieved),
        100.0 * (1.0 - f.chars_kept as f64 / f.chars_retrieved.max(1) as f64),
        pct(f.phrase_hits, f.answerable),
        pct(f.phrase_hits_300, f.answerable),
        pct(f.abstained_unanswerable, f.unanswerable),
        pct(f.abstained_answerable, f.answerable),
        f.echoes,
        f.seconds / f.questions.max(1) as f64,
        p50(&f.ask_seconds),
        p50(&f.first_token_seconds),
        pct(f.grounded, f.answerable),
    );
}

/// Runs configuration `config` — `local-extractive`, `local-grounded`, `local-completion`, `local-chat`,
/// `readout-chat` (today's default) or `none-chat` — over the set; `model` is the judge's and
/// the answering model, `answerer` the instruction model that writes grounded answers for it.
#[allow(clippy::too_many_arguments)]
pub fn measure(
    set: &QaSet,
    embedder: &ragsift_engine::FastEmbedder,
    model: &dyn LanguageModel,
    answerer: Option<&dyn LanguageModel>,
    config: &str,
    limit_n: usize,
    (top_k, search): (usize, ragsift_engine::retrieve::SearchMode),
) -> Result<Figures> {
    let (judge_kind, mode) = config.split_once('-').unwrap_or((config, "extractive"));
    let retriever = LibraryRetriever {
        library: &set.library,
        embedder,
    };
    let local = LocalJudge::new(embedder, Some(model), Some(set.library.store()));
    let readout = ReadoutJudge { model };
    let mut pipeline = Pipeline::new(set.library.store(), set.library.user(), &retriever, model);
    pipeline.answerer = answerer;
    pipeline.embedder = Some(embedder);
    pipeline.judge = match judge_kind {
        "local" => Some(&local as &dyn Judge),
        "readout" => Some(&readout as &dyn Judge),
        _ => None,
    };
    pipeline.options.top_k = top_k;
    pipeline.options.search_mode = search;
    pipeline.options.answer_mode = match mode {
        "extractive" => AnswerMode::Extractive,
        "grounded" => AnswerMode::Grounded,
        "completion" => AnswerMode::Generative,
        _ => AnswerMode::Auto,
    };
    if mode == "chat" {
        pipeline.options.answer_mode = AnswerMode::Generative;
    }
    let chat_forced = mode == "chat";
    let mut f = Figures::default();
    let start = std::time::Instant::now();
    let n = limit(set, limit_n);
    let step = (set.cases.len() / n.max(1)).max(1);
    for case in set.cases.iter().step_by(step).take(n) {
        let asked = std::time::Instant::now();
        let mut first = None;
        let mut on_token = |_: &str| {
            first.get_or_insert_with(|| asked.elapsed().as_secs_f64());
        };
        let trace = if chat_forced {
            ask_chat(&pipeline, &case.question.query, &mut on_token)?
        } else {
            pipeline.ask(&case.question.query, &[], &mut on_token, &CancelToken::new())?
        };
        let took = asked.elapsed().as_secs_f64();
        let timing = Timing {
            ask: took,
            first: first.unwrap_or(took),
            generation: trace.timing(Stage::Generating).unwrap_or(0.0) / 1e3,
        };
        score(&mut f, case, &trace, timing);
        if let (Some(evidence), Some(source)) = (trace.support.evidence, trace.support.source) {
            if !trace.support.signals.is_empty() {
                let head: String = trace.answer.chars().take(300).collect();
                let unanswerable = case.question.kind == QuestionKind::Unanswerable;
                let quoted = trace.sources.get(source - 1).map(|s| s.chunk_id.as_str());
                f.support.push(crate::support::Row {
                    fold: case.fold,
                    signals: trace.support.signals.clone(),
                    evidence,
                    holds: case
                        .candidates
                        .iter()
                        .any(|c| c.evidence && Some(c.hit.chunk.id.as_str()) == quoted),
                    right: !unanswerable && case.question.answer_phrases().iter().any(|p| contains(&head, p)),
                    right_any: !unanswerable
                        && case
                            .question
                            .answer_phrases()
                            .iter()
                            .any(|p| contains(&trace.answer, p)),
                    unanswerable,
                });
            }
        }
        let q = &case.question;
        let groups = q
            .doc_kind
            .map(|k| k.label().to_string())
            .into_iter()
            .chain(q.table.then(|| "table-cell questions".to_string()));
        for group in groups {
            let at = match f.groups.iter().position(|(g, _)| *g == group) {
                Some(i) => i,
                None => {
                    f.groups.push((group, Figures::default()));
                    f.groups.len() - 1
                }
            };
            score(&mut f.groups[at].1, case, &trace, timing);
        }
    }
    f.seconds = start.elapsed().as_secs_f64();
    for (_, g) in &mut f.groups {
        g.seconds = f.seconds * g.questions as f64 / f.questions.max(1) as f64;
    }
    f.groups.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(f)
}

/// Spring's chat prompt even for a base model (today's behaviour).
fn ask_chat(pipeline: &Pipeline<'_>, query: &str, on_token: &mut dyn FnMut(&str)) -> Result<Trace> {
    let chat = ChatOnly(pipeline.model);
    let mut p = Pipeline::new(pipeline.store, pipeline.made_by.clone(), pipeline.retriever, &chat);
    p.judge = pipeline.judge;
    p.embedder = pipeline.embedder;
    p.options = pipeline.options.clone();
    p.ask(query, &[], on_token, &CancelToken::new())
}

/// A model presented as instruction-following, so the pipeline sends it Spring's chat prompt.
struct ChatOnly<'m>(&'m dyn LanguageModel);

impl LanguageModel for ChatOnly<'_> {
    fn id(&self) -> &str {
        self.0.id()
    }
    fn chat(
        &self,
        messages: &[ragsift_engine::ChatMessage],
        options: &ragsift_engine::GenerateOptions,
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<ragsift_engine::llm::Completion> {
        self.0.chat(messages, options, on_token, cancel)
    }
    fn yes_no(&self, prompts: &[Vec<ragsift_engine::ChatMessage>]) -> Result<Vec<ragsift_engine::llm::YesNo>> {
        self.0.yes_no(prompts)
    }
    fn score_text(
        &self,
        shared: &str,
        items: &[ragsift_engine::llm::ScoreItem],
    ) -> Result<Vec<ragsift_engine::llm::TextScore>> {
        self.0.score_text(shared, items)
    }
    fn follows_instructions(&self) -> bool {
        true
    }
}

/// One question's times, in seconds.
#[derive(Clone, Copy)]
struct Timing {
    ask: f64,
    first: f64,
    generation: f64,
}

fn score(f: &mut Figures, case: &qaset::Case, trace: &Trace, timing: Timing) {
    f.questions += 1;
    f.ask_seconds.push(timing.ask);
    f.first_token_seconds.push(timing.first);
    if trace.usage.completion_tokens > 0 {
        f.prompt_tokens += u64::from(trace.usage.prompt_tokens);
        f.completion_tokens += u64::from(trace.usage.completion_tokens);
        let prompt = (timing.first - (timing.ask - timing.generation)).max(0.0);
        f.prompt_seconds += prompt;
        f.decode_seconds += (timing.generation - prompt).max(0.0);
    }
    let kept: std::collections::BTreeSet<&str> = trace.selection.returned_ids.iter().map(String::as_str).collect();
    let retrieved_chars: usize = trace.candidates.iter().map(|c| c.text.chars().count()).sum();
    let kept_chars: usize = trace
        .candidates
        .iter()
        .filter(|c| kept.contains(c.chunk_id.as_str()))
        .map(|c| c.text.chars().count())
        .sum();
    f.chars_retrieved += retrieved_chars;
    f.chars_kept += kept_chars;
    let abstained = trace.answered_by == AnsweredBy::NoEvidence;
    f.echoes += usize::from(echoes_prompt(&trace.answer));
    if case.question.kind == QuestionKind::Unanswerable {
        f.unanswerable += 1;
        f.abstained_unanswerable += usize::from(abstained);
        return;
    }
    f.answerable += 1;
    f.abstained_answerable += usize::from(abstained);
    f.grounded += usize::from(trace.answered_by == AnsweredBy::Grounded);
    let evidence_ids: Vec<&str> = case
        .candidates
        .iter()
        .filter(|c| c.evidence)
        .map(|c| c.hit.chunk.id.as_str())
        .collect();
    if !evidence_ids.is_empty() {
        f.evidence_retrieved += 1;
        f.evidence_kept += usize::from(evidence_ids.iter().any(|id| kept.contains(id)));
    }
    let phrases = case.question.answer_phrases();
    let head: String = trace.answer.chars().take(300).collect();
    let right = phrases.iter().any(|p| contains(&trace.answer, p));
    f.phrase_hits += usize::from(right);
    f.phrase_hits_300 += usize::from(phrases.iter().any(|p| contains(&head, p)));
    // RAGSIFT_BENCH_DUMP=FILE: one line per answerable question (id, phrase found, the answer's start), to see
    // which questions two versions answer differently.
    if let Some(path) = std::env::var_os("RAGSIFT_BENCH_DUMP") {
        use std::io::Write;
        let reply = trace
            .prompt
            .split_once(ragsift_engine::pipeline::answer::grounded::REPLY_HEADING)
            .map_or("", |(_, r)| r.trim());
        let line = format!(
            "{}\t{right}\t{}\t{}\n",
            case.question.id,
            head.replace(['\n', '\t'], " "),
            reply.replace(['\n', '\t'], " ")
        );
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path);
        if let Err(e) = file.and_then(|mut f| f.write_all(line.as_bytes())) {
            eprintln!("dump: {e}");
        }
    }
}

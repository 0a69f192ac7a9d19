//! Embedded language model: any GGUF file run in-process by llama.cpp (`llama-cpp-2`, vendored sources).
//! Chat template from the file, or a built-in one chosen by architecture; decode loop with UTF-8-safe
//! streaming and cancellation; yes/no readout that evaluates a shared prompt prefix once and copies its KV cache
//! for each question.
//!
//! Long because it is the one binding to llama.cpp: loading, templates, decoding and the readout share its context.

use super::{ratio, CancelToken, ChatMessage, Completion, FinishReason, GenerateOptions, LanguageModel, Usage, YesNo};
use super::{ScoreItem, TextScore};
use crate::{Error, Result};
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use ragsift_core::compute;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const BATCH: usize = 512;
const MAIN_SEQ: i32 = 0;
const QUESTION_SEQ: i32 = 1;
/// Items scored together in one decode call by `score_text` (each in its own sequence).
const SCORE_PARALLEL: usize = 4;

/// Settings of an embedded model.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// Context window in tokens (capped by what the model was trained with).
    pub context_length: u32,
    /// CPU threads; 0 = all cores (model calls are serialised, so they never compete).
    pub threads: usize,
    /// A llama.cpp built-in template name to use instead of the file's own (e.g. "gemma", "chatml").
    pub template: Option<String>,
}

impl Default for EmbeddedOptions {
    fn default() -> Self {
        EmbeddedOptions {
            context_length: 4096,
            threads: 0,
            template: None,
        }
    }
}

/// Reports model-loading progress, 0.0 to 1.0.
pub type LoadProgress = Box<dyn FnMut(f32) + Send>;

/// A GGUF model loaded in memory.
pub struct EmbeddedModel {
    id: String,
    model: LlamaModel,
    template: LlamaChatTemplate,
    yes: Vec<LlamaToken>,
    no: Vec<LlamaToken>,
    n_ctx: u32,
    threads: i32,
    /// The file carries its own chat template (an instruction-tuned model); base models do not.
    own_template: bool,
}

fn backend() -> Result<&'static LlamaBackend> {
    static BACKEND: OnceLock<std::result::Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default().with_logs_enabled(false));
            LlamaBackend::init().map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Error::Model(format!("llama.cpp backend: {e}")))
}

/// The llama.cpp built-in template for an architecture whose file carries no template.
fn builtin_template(architecture: &str) -> &'static str {
    match architecture {
        a if a.starts_with("gemma") => "gemma",
        a if a.starts_with("llama") => "llama3",
        a if a.starts_with("phi3") => "phi3",
        a if a.starts_with("mistral") => "mistral-v7",
        a if a.starts_with("deepseek") => "deepseek3",
        _ => "chatml",
    }
}

impl EmbeddedModel {
    /// Loads a GGUF file. The error names the file when it is missing, not GGUF, or fails to load.
    pub fn load(path: &Path, options: &EmbeddedOptions, mut progress: Option<LoadProgress>) -> Result<Self> {
        check_gguf(path)?;
        let backend = backend()?;
        let mut params = LlamaModelParams::default();
        if let Some(mut cb) = progress.take() {
            params = params.with_progress_callback(move |p| {
                cb(p);
                true
            });
        }
        let model = LlamaModel::load_from_file(backend, path, &params).map_err(|e| {
            Error::Model(format!(
                "{}: llama.cpp could not load this GGUF file ({e}); is it complete?",
                path.display()
            ))
        })?;
        let own_template = model.chat_template(None).is_ok();
        let template = match &options.template {
            Some(name) => LlamaChatTemplate::new(name),
            None => match model.chat_template(None) {
                Ok(t) => Ok(t),
                Err(_) => {
                    let arch = model.meta_val_str("general.architecture").unwrap_or_default();
                    LlamaChatTemplate::new(builtin_template(&arch))
                }
            },
        }
        .map_err(|e| Error::Model(format!("chat template: {e}")))?;
        let single = |variants: &[&str]| -> Vec<LlamaToken> {
            let mut out: Vec<LlamaToken> = variants
                .iter()
                .filter_map(
                    |v| match model.vocab().tokenize(v.as_bytes(), false, false).as_slice() {
                        [t] => Some(*t),
                        _ => None,
                    },
                )
                .collect();
            out.sort_by_key(|t| t.0);
            out.dedup();
            out
        };
        let yes = single(&["yes", " yes", "Yes", " Yes", "YES", " YES"]);
        let no = single(&["no", " no", "No", " No", "NO", " NO"]);
        if yes.is_empty() || no.is_empty() {
            return Err(Error::Model(format!(
                "{}: no single-token yes/no in this vocabulary",
                path.display()
            )));
        }
        let id = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "gguf".into());
        let n_ctx = options.context_length.min(model.n_ctx_train()).max(256);
        let threads = if options.threads == 0 {
            compute::threads()
        } else {
            options.threads
        } as i32;
        Ok(EmbeddedModel {
            id,
            model,
            template,
            yes,
            no,
            n_ctx,
            threads,
            own_template,
        })
    }

    /// The context window in tokens.
    pub fn context_length(&self) -> u32 {
        self.n_ctx
    }

    /// The conversation as the model's chat template lays it out, ending with the assistant's turn.
    pub fn format(&self, messages: &[ChatMessage]) -> Result<String> {
        let chat = messages
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.as_str().into(), m.content.clone()))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::Invalid(format!("message: {e}")))?;
        self.model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| Error::Model(format!("chat template: {e}")))
    }

    pub fn tokenize(&self, text: &str) -> Vec<LlamaToken> {
        self.model.vocab().tokenize(text.as_bytes(), true, true)
    }

    fn context(&self, sequences: u32) -> Result<LlamaContext<'_>> {
        self.context_with_batch(sequences, BATCH)
    }

    fn context_with_batch(&self, sequences: u32, batch: usize) -> Result<LlamaContext<'_>> {
        let params = LlamaContextParams::default()
            .with_n_ctx(NonZeroU32::new(self.n_ctx))
            .with_n_batch(batch as u32)
            .with_n_ubatch(BATCH as u32)
            .with_n_seq_max(sequences)
            .with_kv_unified(true)
            .with_n_threads(self.threads)
            .with_n_threads_batch(self.threads);
        self.model
            .new_context(backend()?, params)
            .map_err(|e| Error::Model(format!("llama.cpp context: {e}")))
    }

    fn check_fits(&self, prompt: usize, reserve: usize) -> Result<()> {
        if prompt + reserve > self.n_ctx as usize {
            return Err(Error::ContextOverflow {
                prompt,
                reserve,
                context: self.n_ctx as usize,
            });
        }
        Ok(())
    }

    /// P(yes) for each prompt evaluated in full, one after another, without sharing anything: the reference
    /// the prefix-sharing readout is tested and measured against. Each prompt is decoded in the same two batches
    /// as with sharing (common prefix, then the rest), so the two give the same numbers; decoding a prompt in
    /// one batch instead can move P(yes) by a few hundredths (llama.cpp's quantised kernels round differently
    /// for different batch shapes).
    pub fn yes_no_unshared(&self, prompts: &[Vec<ChatMessage>]) -> Result<Vec<YesNo>> {
        let toks = self.tokenize_all(prompts)?;
        let shared = shared_prefix(&toks);
        let _cores = compute::exclusive();
        let mut ctx = self.context(1)?;
        let mut out = Vec::with_capacity(prompts.len());
        for t in &toks {
            ctx.clear_kv_cache();
            eval(&mut ctx, &t[..shared], 0, MAIN_SEQ, false)?;
            let idx = eval(&mut ctx, &t[shared..], shared, MAIN_SEQ, true)?;
            out.push(self.readout(&ctx, idx, t.len()));
        }
        Ok(out)
    }

    /// The formatted and tokenized prompts, each checked against the context window.
    fn tokenize_all(&self, prompts: &[Vec<ChatMessage>]) -> Result<Vec<Vec<LlamaToken>>> {
        let toks: Vec<Vec<LlamaToken>> = prompts
            .iter()
            .map(|p| Ok(self.tokenize(&self.format(p)?)))
            .collect::<Result<_>>()?;
        for t in &toks {
            self.check_fits(t.len(), 1)?;
        }
        Ok(toks)
    }

    /// P(yes) / (P(yes) + P(no)) from the logits at batch index `idx`.
    fn p_yes(&self, ctx: &LlamaContext<'_>, idx: i32) -> f32 {
        let logits = ctx.get_logits_ith(idx);
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mass = |ids: &[LlamaToken]| {
            ids.iter()
                .map(|t| ((logits[t.0 as usize] - max) as f64).exp())
                .sum::<f64>()
        };
        ratio(mass(&self.yes), mass(&self.no))
    }

    /// Scores up to [`SCORE_PARALLEL`] items at once, each in its own sequence copied from the shared prefix
    /// (sequence 0, `shared` tokens long).
    fn score_group(
        &self,
        ctx: &mut LlamaContext<'_>,
        shared: usize,
        group: &[Vec<Vec<LlamaToken>>],
    ) -> Result<Vec<TextScore>> {
        let total: usize = group
            .iter()
            .map(|parts| parts.iter().map(Vec::len).sum::<usize>())
            .sum();
        let mut batch = LlamaBatch::new(total.max(1), group.len() as i32 + 1);
        // For each item: the batch indices whose logits predict each target token, and the probe's last index.
        let mut reads: Vec<(Vec<i32>, i32)> = Vec::with_capacity(group.len());
        let mut at = 0i32;
        for (j, parts) in group.iter().enumerate() {
            let seq = j as i32 + 1;
            ctx.kv_cache_seq_rm(seq, None, None).map_err(kv_err)?;
            ctx.kv_cache_seq_cp(MAIN_SEQ, seq, None, None).map_err(kv_err)?;
            let (context, target, probe) = (&parts[0], &parts[1], &parts[2]);
            let tokens: Vec<LlamaToken> = context.iter().chain(target).chain(probe).copied().collect();
            // The logits after token k predict token k + 1: target token t is predicted by the token before it.
            let first_target = context.len();
            let mut target_reads = Vec::with_capacity(target.len());
            for (k, t) in tokens.iter().enumerate() {
                let predicts_target = k + 1 >= first_target && k + 1 < first_target + target.len();
                let last = k + 1 == tokens.len();
                batch
                    .add(*t, (shared + k) as i32, &[seq], predicts_target || last)
                    .map_err(batch_err)?;
                if predicts_target {
                    target_reads.push(at + k as i32);
                }
            }
            reads.push((target_reads, at + tokens.len() as i32 - 1));
            at += tokens.len() as i32;
        }
        ctx.decode(&mut batch)
            .map_err(|e| Error::Model(format!("decode: {e}")))?;
        let mut out = Vec::with_capacity(group.len());
        for (j, (target_reads, probe_idx)) in reads.iter().enumerate() {
            let target = &group[j][1];
            let target_logprobs = target_reads
                .iter()
                .zip(target)
                .map(|(&idx, t)| log_softmax_at(ctx.get_logits_ith(idx), t.0 as usize))
                .collect();
            out.push(TextScore {
                target_logprobs,
                p_yes: self.p_yes(ctx, *probe_idx),
                tokens: group[j].iter().map(Vec::len).sum::<usize>() as u32,
            });
        }
        for j in 0..group.len() {
            ctx.kv_cache_seq_rm(j as i32 + 1, None, None).map_err(kv_err)?;
        }
        Ok(out)
    }

    /// The decode loop: greedy (or sampled) continuation of `prompt`, streamed through `on_token`, ending at
    /// end-of-generation, `max_tokens`, cancellation, or the first `stop` string (which is not emitted).
    fn generate(
        &self,
        prompt: &[LlamaToken],
        options: &GenerateOptions,
        stop: &[&str],
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Completion> {
        self.check_fits(prompt.len(), options.max_tokens as usize)?;
        let _cores = compute::exclusive();
        let mut ctx = self.context(1)?;
        let mut idx = eval(&mut ctx, prompt, 0, MAIN_SEQ, true)?;
        // A mild repetition penalty keeps small models from looping; greedy stays deterministic.
        let penalties = || LlamaSampler::penalties(self.model.n_vocab(), 64, 1.15, 0.0, 0.0);
        let mut sampler = if options.temperature <= 0.0 {
            LlamaSampler::chain_simple([penalties(), LlamaSampler::greedy()])
        } else {
            LlamaSampler::chain_simple([
                penalties(),
                LlamaSampler::top_k(40),
                LlamaSampler::top_p(0.95, 1),
                LlamaSampler::temp(options.temperature),
                LlamaSampler::dist(options.seed),
            ])
        };
        let mut out = StopStream::new(stop);
        let (mut pending, mut generated) = (Vec::new(), 0u32);
        let mut batch = LlamaBatch::new(1, 1);
        let mut finish = FinishReason::Length;
        while generated < options.max_tokens {
            if cancel.is_cancelled() {
                finish = FinishReason::Cancelled;
                break;
            }
            let token = sampler.sample(&ctx, idx);
            if self.model.vocab().is_eog(token) {
                finish = FinishReason::Stop;
                break;
            }
            generated += 1;
            pending.extend(self.model.vocab().token_to_piece(token, false, None));
            let piece = take_utf8(&mut pending);
            if out.push(&piece, on_token) {
                finish = FinishReason::Stop;
                break;
            }
            batch.clear();
            batch
                .add(token, (prompt.len() + generated as usize - 1) as i32, &[MAIN_SEQ], true)
                .map_err(batch_err)?;
            ctx.decode(&mut batch)
                .map_err(|e| Error::Model(format!("decode: {e}")))?;
            idx = 0;
        }
        if finish != FinishReason::Stop && !pending.is_empty() {
            out.push(&String::from_utf8_lossy(&pending), on_token);
        }
        Ok(Completion {
            text: out.finish(on_token),
            model: self.id.clone(),
            usage: Usage {
                prompt_tokens: prompt.len() as u32,
                completion_tokens: generated,
            },
            finish_reason: finish,
        })
    }

    fn readout(&self, ctx: &LlamaContext<'_>, idx: i32, evaluated: usize) -> YesNo {
        YesNo {
            p_yes: self.p_yes(ctx, idx),
            model: self.id.clone(),
            usage: Usage {
                prompt_tokens: evaluated as u32,
                completion_tokens: 0,
            },
            calibrated: true,
        }
    }
}

impl LanguageModel for EmbeddedModel {
    fn id(&self) -> &str {
        &self.id
    }

    fn chat(
        &self,
        messages: &[ChatMessage],
        options: &GenerateOptions,
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Completion> {
        let prompt = self.tokenize(&self.format(messages)?);
        self.generate(&prompt, options, &[], on_token, cancel)
    }

    fn complete(
        &self,
        prompt: &str,
        stop: &[&str],
        options: &GenerateOptions,
        on_token: &mut dyn FnMut(&str),
        cancel: &CancelToken,
    ) -> Result<Completion> {
        let tokens = self.model.vocab().tokenize(prompt.as_bytes(), true, false);
        self.generate(&tokens, options, stop, on_token, cancel)
    }

    fn yes_no(&self, prompts: &[Vec<ChatMessage>]) -> Result<Vec<YesNo>> {
        let toks = self.tokenize_all(prompts)?;
        let shared = shared_prefix(&toks);
        let _cores = compute::exclusive();
        let mut ctx = self.context(2)?;
        eval(&mut ctx, &toks[0][..shared], 0, MAIN_SEQ, false)?;
        let mut out = Vec::with_capacity(toks.len());
        for (i, t) in toks.iter().enumerate() {
            ctx.kv_cache_seq_rm(QUESTION_SEQ, None, None).map_err(kv_err)?;
            ctx.kv_cache_seq_cp(MAIN_SEQ, QUESTION_SEQ, None, None)
                .map_err(kv_err)?;
            let idx = eval(&mut ctx, &t[shared..], shared, QUESTION_SEQ, true)?;
            let evaluated = t.len() - shared + if i == 0 { shared } else { 0 };
            out.push(self.readout(&ctx, idx, evaluated));
        }
        Ok(out)
    }

    fn score_text(&self, shared: &str, items: &[ScoreItem]) -> Result<Vec<TextScore>> {
        if items.is_empty() {
            return Ok(Vec::new());
        }
        let vocab = self.model.vocab();
        let plain = |s: &str| vocab.tokenize(s.as_bytes(), false, false);
        let shared_tokens = vocab.tokenize(shared.as_bytes(), true, false);
        let parts: Vec<Vec<Vec<LlamaToken>>> = items
            .iter()
            .map(|it| vec![plain(&it.context), plain(&it.target), plain(&it.probe)])
            .collect();
        let longest = parts
            .iter()
            .map(|p| p.iter().map(Vec::len).sum::<usize>())
            .max()
            .unwrap_or(0);
        let need = shared_tokens.len() + SCORE_PARALLEL * longest;
        self.check_fits(need, 1)?;
        let _cores = compute::exclusive();
        let mut ctx = self.context_with_batch(SCORE_PARALLEL as u32 + 1, (SCORE_PARALLEL * longest).max(BATCH))?;
        if !shared_tokens.is_empty() {
            eval(&mut ctx, &shared_tokens, 0, MAIN_SEQ, false)?;
        }
        let mut out = Vec::with_capacity(items.len());
        for group in parts.chunks(SCORE_PARALLEL) {
            out.extend(self.score_group(&mut ctx, shared_tokens.len(), group)?);
        }
        if let Some(first) = out.first_mut() {
            first.tokens += shared_tokens.len() as u32;
        }
        Ok(out)
    }

    fn follows_instructions(&self) -> bool {
        self.own_template
    }
}

/// ln softmax(logits)[token], computed stably.
fn log_softmax_at(logits: &[f32], token: usize) -> f32 {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = logits.iter().map(|&l| ((l - max) as f64).exp()).sum();
    (logits[token] - max) - sum.ln() as f32
}

/// The token prefix all prompts share, leaving at least one token of each to evaluate on its own (0 for fewer
/// than two prompts).
fn shared_prefix(toks: &[Vec<LlamaToken>]) -> usize {
    if toks.len() < 2 {
        return 0;
    }
    let min_len = toks.iter().map(|t| t.len()).min().unwrap_or(0);
    (0..min_len.saturating_sub(1))
        .take_while(|&i| toks.iter().all(|t| t[i] == toks[0][i]))
        .count()
}

/// Decodes `tokens` at positions `start..` in sequence `seq`, in batches; returns the batch index of the last
/// token (whose logits are kept when `logits` is set).
fn eval(ctx: &mut LlamaContext<'_>, tokens: &[LlamaToken], start: usize, seq: i32, logits: bool) -> Result<i32> {
    let mut batch = LlamaBatch::new(BATCH, 1);
    let mut last = 0;
    for (c, chunk) in tokens.chunks(BATCH).enumerate() {
        batch.clear();
        for (j, t) in chunk.iter().enumerate() {
            let i = c * BATCH + j;
            let is_last = logits && i + 1 == tokens.len();
            batch.add(*t, (start + i) as i32, &[seq], is_last).map_err(batch_err)?;
        }
        ctx.decode(&mut batch)
            .map_err(|e| Error::Model(format!("decode: {e}")))?;
        last = batch.n_tokens() - 1;
    }
    Ok(last)
}

/// Streams generated text while watching for stop strings: text that could be the start of a stop string is
/// held back until it is known not to be one, so a stop string is never emitted.
struct StopStream<'s> {
    stops: &'s [&'s str],
    text: String,
    emitted: usize,
    stopped: bool,
}

impl<'s> StopStream<'s> {
    fn new(stops: &'s [&'s str]) -> Self {
        StopStream {
            stops,
            text: String::new(),
            emitted: 0,
            stopped: false,
        }
    }

    /// Adds a piece; returns true when a stop string has appeared (the text is cut before it).
    fn push(&mut self, piece: &str, on_token: &mut dyn FnMut(&str)) -> bool {
        if self.stopped {
            return true;
        }
        self.text.push_str(piece);
        if let Some(at) = self.stops.iter().filter_map(|s| self.text.find(s)).min() {
            self.text.truncate(at);
            self.stopped = true;
            self.flush(self.text.len(), on_token);
            return true;
        }
        let hold = self.stops.iter().map(|s| s.len().saturating_sub(1)).max().unwrap_or(0);
        let mut safe = self.text.len().saturating_sub(hold);
        while !self.text.is_char_boundary(safe) {
            safe -= 1;
        }
        self.flush(safe, on_token);
        false
    }

    fn flush(&mut self, upto: usize, on_token: &mut dyn FnMut(&str)) {
        if upto > self.emitted {
            on_token(&self.text[self.emitted..upto]);
            self.emitted = upto;
        }
    }

    fn finish(mut self, on_token: &mut dyn FnMut(&str)) -> String {
        let end = self.text.len();
        self.flush(end, on_token);
        self.text
    }
}

/// The longest valid UTF-8 prefix of `pending`, removed from it (a multi-byte character split across tokens
/// waits for its next piece; bytes that can never be valid are replaced).
fn take_utf8(pending: &mut Vec<u8>) -> String {
    match std::str::from_utf8(pending) {
        Ok(s) => {
            let s = s.to_string();
            pending.clear();
            s
        }
        Err(e) if e.error_len().is_none() => {
            let valid = e.valid_up_to();
            let s = String::from_utf8_lossy(&pending[..valid]).to_string();
            pending.drain(..valid);
            s
        }
        Err(_) => {
            let s = String::from_utf8_lossy(pending).to_string();
            pending.clear();
            s
        }
    }
}

fn check_gguf(path: &Path) -> Result<()> {
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic));
    match read {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Error::Model(format!(
            "{}: no such model file (run ./scripts/setup.sh, or pass a GGUF path)",
            path.display()
        ))),
        Err(e) => Err(Error::Model(format!(
            "{}: cannot read the model file: {e}",
            path.display()
        ))),
        Ok(()) if &magic != b"GGUF" => Err(Error::Model(format!("{}: not a GGUF model file", path.display()))),
        Ok(()) => Ok(()),
    }
}

fn batch_err(e: impl std::fmt::Display) -> Error {
    Error::Model(format!("batch: {e}"))
}

fn kv_err(e: impl std::fmt::Display) -> Error {
    Error::Model(format!("KV cache: {e}"))
}

/// The default chat model installed by set-up: `<models>/gemma-3-270m-q4_k_m/gemma-3-270m-q4_k_m.gguf`.
pub fn default_model_path(models_dir: &Path) -> PathBuf {
    models_dir
        .join(DEFAULT_CHAT_MODEL)
        .join(format!("{DEFAULT_CHAT_MODEL}.gguf"))
}

pub const DEFAULT_CHAT_MODEL: &str = "gemma-3-270m-q4_k_m";

/// The default chat model's file where it is installed for `home`: a user's own copy first, then the packaged one.
pub fn default_model_file(home: &Path) -> Result<PathBuf> {
    let folder = ragsift_core::paths::model_folder(home, DEFAULT_CHAT_MODEL)?;
    Ok(folder.join(format!("{DEFAULT_CHAT_MODEL}.gguf")))
}

/// The answer model set-up installs: an instruction model for grounded answers (Qwen2.5-Coder-0.5B-Instruct).
pub const DEFAULT_ANSWER_MODEL: &str = "qwen2.5-coder-0.5b-instruct-q4_k_m";

/// The default answer model's file where it is installed for `home` (a user's own copy first, then the packaged
/// one); it may be absent (set-up with `--no-chat-model`).
pub fn default_answer_model_file(home: &Path) -> Result<PathBuf> {
    let folder = ragsift_core::paths::model_folder(home, DEFAULT_ANSWER_MODEL)?;
    Ok(folder.join(format!("{DEFAULT_ANSWER_MODEL}.gguf")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_pieces_wait_for_their_last_byte() {
        let mut p = "é".as_bytes()[..1].to_vec();
        assert_eq!(take_utf8(&mut p), "");
        p.extend(&"é".as_bytes()[1..]);
        p.extend(b"x");
        assert_eq!(take_utf8(&mut p), "éx");
        assert!(p.is_empty());
    }

    #[test]
    fn stop_strings_are_never_emitted() {
        let stops = ["\n\nQuestion:", "[END]"];
        let mut seen = String::new();
        let mut stream = StopStream::new(&stops);
        for piece in ["The answer", " is 5 [1].", "\n\nQues", "tion: next"] {
            if stream.push(piece, &mut |t| seen.push_str(t)) {
                break;
            }
        }
        let text = stream.finish(&mut |t| seen.push_str(t));
        assert_eq!(text, "The answer is 5 [1].");
        assert_eq!(seen, text);
        let mut seen = String::new();
        let mut stream = StopStream::new(&stops);
        stream.push("no stop [EN", &mut |t| seen.push_str(t));
        assert_eq!(stream.finish(&mut |t| seen.push_str(t)), "no stop [EN");
        assert_eq!(seen, "no stop [EN");
    }

    #[test]
    fn templates_by_architecture() {
        assert_eq!(builtin_template("gemma3"), "gemma");
        assert_eq!(builtin_template("qwen2"), "chatml");
    }
}

//! `ragsift chat` and `ragsift yesno`: the configured language model (embedded GGUF or an OpenAI-compatible
//! endpoint), streaming to stdout; Ctrl-C stops the answer.

use crate::print_json;
use indicatif::{ProgressBar, ProgressStyle};
use ragsift_workbench::llm::{yes_no_prompt, ChatMessage, GenerateOptions, LanguageModel};
use ragsift_workbench::llm::{ChatBackend, ChatSettings};
use ragsift_workbench::CancelToken;
use ragsift_workbench::Error;
use ragsift_workbench::Workbench;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Which model to use; flags override `settings.json`.
#[derive(clap::Args)]
pub struct ModelArgs {
    /// A GGUF file to run in-process (default: the model set-up installed).
    #[arg(long, value_name = "PATH", conflicts_with = "endpoint")]
    model: Option<PathBuf>,
    /// An OpenAI-compatible server, e.g. http://localhost:11434 (Ollama).
    #[arg(long, value_name = "URL", requires = "model_name")]
    endpoint: Option<String>,
    /// The model name the server knows, e.g. llama3.2.
    #[arg(long, value_name = "NAME")]
    model_name: Option<String>,
    /// Environment variable that holds the server's API key.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    #[command(flatten)]
    judge: JudgeFlagArgs,
}

/// Where the decision model is: for --judge jev, systemone, ollama or openai; flags override `settings.json`.
#[derive(clap::Args)]
pub struct JudgeFlagArgs {
    /// The decision model's base URL (with or without /v1/systemone or /v1/decisions). Default: the saved
    /// setting, else the backend's (Ollama: http://localhost:11434).
    #[arg(long, value_name = "URL")]
    judge_url: Option<String>,
    /// The decision model's name, e.g. d1-omni:600m (Ollama) or gpt-6-luna (OpenAI).
    #[arg(long, value_name = "NAME")]
    judge_model: Option<String>,
    /// Environment variable that holds the decision model's key (default TYPESAFE_API_KEY, OLLAMA_API_KEY or
    /// OPENAI_API_KEY by backend; a server on this machine needs none).
    #[arg(long, value_name = "VAR")]
    judge_key_env: Option<String>,
}

impl JudgeFlagArgs {
    /// Uses these flags over the saved judge settings in `wb` for this command.
    pub fn apply(&self, wb: &Workbench) {
        wb.use_judge_flags(ragsift_workbench::JudgeFlags {
            base_url: self.judge_url.clone(),
            model: self.judge_model.clone(),
            key_env: self.judge_key_env.clone(),
        });
    }
}

impl ModelArgs {
    fn settings(&self, mut chat: ChatSettings) -> ChatSettings {
        if let Some(p) = &self.model {
            chat.backend = ChatBackend::Embedded;
            chat.model_path = Some(p.clone());
        }
        if let Some(e) = &self.endpoint {
            chat.backend = ChatBackend::OpenAi;
            chat.endpoint = Some(e.clone());
            chat.model_name = self.model_name.clone();
        }
        if let Some(v) = &self.api_key_env {
            chat.api_key_env = v.clone();
        }
        chat
    }

    /// Opens the workbench over `home` (the same one the app uses), with these flags over the saved model.
    pub fn workbench(&self, home: &Path) -> Result<Arc<Workbench>, Error> {
        let wb = Workbench::open(Some(home))?;
        wb.use_chat_model(self.settings(wb.settings().chat));
        self.judge.apply(&wb);
        Ok(Arc::new(wb))
    }

    /// The workbench's language model, with a progress bar while an embedded model loads.
    pub fn open(&self, wb: &Workbench) -> Result<Arc<dyn LanguageModel>, Error> {
        let bar = ProgressBar::new(100);
        if std::io::stderr().is_terminal() && wb.settings().chat.backend == ChatBackend::Embedded {
            bar.set_style(
                ProgressStyle::with_template("loading model [{bar:30}] {pos}%")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
        } else {
            bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        }
        let b = bar.clone();
        let model = wb.model(Some(Box::new(move |p| b.set_position((p * 100.0) as u64))));
        bar.finish_and_clear();
        model
    }
}

#[derive(clap::Args)]
pub struct ChatArgs {
    prompt: String,
    #[command(flatten)]
    model: ModelArgs,
    /// A system message before the prompt.
    #[arg(long)]
    system: Option<String>,
    #[arg(long, default_value_t = 512)]
    max_tokens: u32,
    /// Sampling temperature (seeded, so runs repeat); 0 = greedy.
    #[arg(long, default_value_t = 0.7)]
    temperature: f32,
    /// Print the completion (text, model, usage, finish reason) as JSON after streaming nothing.
    #[arg(long)]
    json: bool,
}

pub fn chat(home: &Path, args: ChatArgs) -> Result<ExitCode, Error> {
    let model = args.model.open(args.model.workbench(home)?.as_ref())?;
    let cancel = CancelToken::new();
    let c = cancel.clone();
    let _ = ctrlc::set_handler(move || c.cancel());
    let mut messages = Vec::new();
    if let Some(s) = args.system {
        messages.push(ChatMessage::system(s));
    }
    messages.push(ChatMessage::user(args.prompt));
    let options = GenerateOptions {
        max_tokens: args.max_tokens,
        temperature: args.temperature,
        ..Default::default()
    };
    let json = args.json;
    let mut out = std::io::stdout();
    let done = model.chat(
        &messages,
        &options,
        &mut |piece| {
            if !json {
                let _ = out.write_all(piece.as_bytes());
                let _ = out.flush();
            }
        },
        &cancel,
    )?;
    if json {
        print_json(&done);
    } else {
        println!();
        eprintln!(
            "[{}: {} prompt + {} generated tokens, {:?}]",
            done.model, done.usage.prompt_tokens, done.usage.completion_tokens, done.finish_reason
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args)]
pub struct YesNoArgs {
    question: String,
    /// A passage the question is about.
    #[arg(long)]
    passage: Option<String>,
    #[command(flatten)]
    model: ModelArgs,
}

pub fn yesno(home: &Path, args: YesNoArgs) -> Result<ExitCode, Error> {
    let model = args.model.open(args.model.workbench(home)?.as_ref())?;
    let prompt = yes_no_prompt(args.passage.as_deref().unwrap_or(""), &args.question);
    let answer = model.yes_no(&[prompt])?.remove(0);
    print_json(&answer);
    Ok(ExitCode::SUCCESS)
}

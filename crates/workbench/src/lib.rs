//! The desktop app's service layer: one method per app command over long-lived parts (the library, the
//! embedder, the language model, the judge key, running jobs), so the Tauri shell stays a thin mapping.

mod answers;
pub mod calibration;
mod calibration_view;
mod candidates;
pub mod doctor;
pub mod documents;
pub mod embedders;
mod evaluation;
pub mod first_run;
pub mod idle;
mod jobs;
pub mod judge_calibration;
mod judge_compare;
mod judges;
pub mod labels;
mod page;
pub mod process;
mod replay;
pub mod review;
mod scored;
mod serve_status;
mod served;
mod served_judge;
pub mod settings;
pub mod tuning;

pub use ragsift_core::{Error, Result};
pub use settings::{JudgeKind, JudgeSettings, PipelineDefaults, Settings};

pub use answers::{AskEvent, AskOptions, AskRequest, Events, PolicyForm};
pub use calibration_view::{CalibrateForm, CalibrationView};
pub use candidates::issues_error;
pub use doctor::{doctor, Doctor};
pub use documents::{extract, Extraction, LibraryOverview, Removal, SearchQuery, SearchResults};
pub use evaluation::{EvalLimits, EvalRequest, EvalView, Evaluation, EVAL_LIMITS};
pub use first_run::{FirstRun, Suggestion, SuggestionKind, SuggestionOpens};
pub use jobs::Jobs;
pub use judge_compare::{cohens_kappa, Disagreement, JudgeComparison, JudgeSide, QuestionAgreement};
pub use judges::{judge_choices, JudgeChoice, JudgeFlags, JudgeProbe};
pub use page::{PageChunk, PageView};
pub use serve_status::{policy_snippets, write_serve_status, ServeSnippet, ServeStatus};
pub use served::{ProxiedPassage, Retention, ServeBounds};

// The types the workbench's methods take and return, so that a front end (the app, the CLI) needs no other
// ragsift crate: the pure layers whole (core's plain helpers, the policy, the pipeline's trace, evaluation),
// and the plain types of the native ones. Their implementations (the library, the models, the extractor) are
// reached through the workbench only.
pub use ragsift_core::{error, fsx, paths, progress, read};
pub use ragsift_core::{page_range, CancelToken, FieldProblem, JudgeCode, RuntimePaths};
pub use ragsift_eval as eval;
pub use ragsift_interfaces::retrieve::SearchMode;
pub use ragsift_judge::jev::{Backend, Slots, Wire};
pub use ragsift_judge::JevRequest;
pub use ragsift_library::library::{IngestOptions, IngestReport};
pub use ragsift_pipeline as pipeline;
pub use ragsift_policy as policy;
pub use ragsift_store::sqlite::{DocumentRow, RunSummary};
pub use ragsift_store::{StoreInfo, StoreKind};

/// The language model's plain types: messages, options, the trait the workbench's model is used through.
pub mod llm {
    pub use ragsift_models::llm::{
        yes_no_prompt, ChatBackend, ChatMessage, ChatSettings, GenerateOptions, LanguageModel, YesNo,
    };
}
use ragsift_core::paths::resolve_home;
use ragsift_core::progress::IngestEvent;
use ragsift_library::library::Library;
use ragsift_models::embed::{Embedder, FastEmbedder};
use ragsift_models::llm::{embedded::LoadProgress, open_model, ChatBackend, LanguageModel};
use ragsift_pipeline::replay::ReplaySession;
use ragsift_pipeline::Trace;
use ragsift_policy::PolicyOptions;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// What the app shows about itself and its set-up.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct AppInfo {
    pub version: String,
    pub home: String,
    pub documents: u32,
    pub runs: u32,
    pub embedding_model: String,
    pub chat_model: String,
    pub judge: JudgeInfo,
    /// Where the library lives: this machine or a PostgreSQL server (never with its password).
    pub store: ragsift_store::StoreInfo,
    /// Megabytes the library takes in its store.
    pub store_mb: f64,
    /// Set-up problems in plain words (missing runtime or models), each with its fix.
    pub problems: Vec<String>,
}

/// Whether another process changed the library: see [`Workbench::library_activity`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LibraryActivity {
    pub generation: u32,
    pub runs: u32,
    /// The `ragsift serve` running on this library, if any.
    pub serving: Option<ServeStatus>,
}

/// Which judge new answers use.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct JudgeInfo {
    /// The judge new answers use (`auto` resolved).
    pub kind: JudgeKind,
    pub model: String,
    pub calibrated: bool,
    /// Whether a Jev key is stored or in `TYPESAFE_API_KEY` (the key itself never leaves the backend).
    pub key_set: bool,
    /// The thresholds this judge's probabilities are read with by default (`None` without a judge).
    pub defaults: Option<ragsift_policy::JudgeDefaults>,
    /// Questions this judge does not assess.
    pub not_assessed: Vec<String>,
}

/// The app's state.
pub struct Workbench {
    home: PathBuf,
    /// Where the Jev key file is: `home`, or for a derived library the library it was derived from.
    key_home: PathBuf,
    settings: RwLock<Settings>,
    library: RwLock<Arc<Library>>,
    embedder: Mutex<Option<Arc<FastEmbedder>>>,
    /// The server embedder, when the settings name one.
    remote_embedder: Mutex<Option<Arc<dyn Embedder>>>,
    model: Mutex<Option<Arc<dyn LanguageModel>>>,
    /// The instruction model that writes grounded answers for a base chat model (`None` inside: none installed).
    answer_model: Mutex<Option<Option<Arc<dyn LanguageModel>>>>,
    /// The local embedder behind the queue served selections share (see [`served_judge`]).
    embed_queue: Mutex<Option<(Arc<FastEmbedder>, Arc<ragsift_models::embed_queue::EmbedQueue>)>>,
    /// What the local judge measured of each passage, kept between served selections.
    passage_cache: ragsift_judge::local::cache::PassageCache,
    last_trace: Mutex<Option<Arc<Trace>>>,
    /// The replay session of the last run replayed (checked replayable once, its policy input kept per grouping).
    session: Mutex<Option<Arc<ReplaySession>>>,
    /// When a model was last handed out (see [`idle`]).
    last_used: Mutex<std::time::Instant>,
    /// The CLI's `--judge-url`, `--judge-model` and `--judge-key-env`, over the settings for whichever decision
    /// model a command judges with (see [`judges`]).
    judge_flags: RwLock<judges::JudgeFlags>,
    pub jobs: Jobs,
}

impl Workbench {
    /// Opens the library in `home` (else `$RAGSIFT_HOME`, else the per-user data dir), as the CLI does.
    pub fn open(home: Option<&Path>) -> Result<Self> {
        let home = resolve_home(home)?;
        ragsift_core::fsx::private_dir(&home)?;
        let settings = Settings::load(&home)?;
        let library = Library::open(&home, settings.library.clone())?;
        Ok(Workbench {
            key_home: home.clone(),
            home,
            settings: RwLock::new(settings),
            library: RwLock::new(Arc::new(library)),
            embedder: Mutex::new(None),
            remote_embedder: Mutex::new(None),
            model: Mutex::new(None),
            answer_model: Mutex::new(None),
            embed_queue: Mutex::new(None),
            passage_cache: ragsift_judge::local::cache::PassageCache::new(
                ragsift_judge::local::cache::DEFAULT_CAPACITY_BYTES,
            ),
            last_trace: Mutex::new(None),
            session: Mutex::new(None),
            last_used: Mutex::new(std::time::Instant::now()),
            judge_flags: RwLock::default(),
            jobs: Jobs::default(),
        })
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    pub fn library(&self) -> Arc<Library> {
        self.library.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The settings in force (`settings.json`, else the defaults).
    pub fn settings(&self) -> Settings {
        self.settings.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// What the app shows about itself: version, home, counts, models, judge and set-up problems.
    pub fn info(&self) -> Result<AppInfo> {
        let lib = self.library();
        let s = self.settings();
        let mut problems = Vec::new();
        match RuntimePaths::discover(&self.home) {
            Ok(rt) => {
                if let Err(e) = rt.model_dir(&s.library.embedding_model) {
                    problems.push(e.to_string());
                }
            }
            Err(e) => problems.push(e.to_string()),
        }
        problems.extend(doctor::unknown_field_problems(&self.home));
        let chat_model = match s.chat.backend {
            ChatBackend::OpenAi => format!(
                "{} at {}",
                s.chat.model_name.as_deref().unwrap_or("?"),
                s.chat.endpoint.as_deref().unwrap_or("?")
            ),
            ChatBackend::Embedded => {
                let path = match &s.chat.model_path {
                    Some(p) => p.clone(),
                    // Not installed anywhere: named where set-up would put it.
                    None => ragsift_models::llm::embedded::default_model_file(&self.home).unwrap_or_else(|_| {
                        let dir = ragsift_core::paths::data_dir().unwrap_or_default().join("models");
                        ragsift_models::llm::embedded::default_model_path(&dir)
                    }),
                };
                if !path.is_file() {
                    problems.push(format!(
                        "chat model {} not found: run ./scripts/setup.sh or choose a GGUF in Settings",
                        path.display()
                    ));
                }
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            }
        };
        Ok(AppInfo {
            version: env!("CARGO_PKG_VERSION").to_string(),
            home: self.home.display().to_string(),
            documents: lib.documents()?.len() as u32,
            runs: lib.store().run_count()?,
            embedding_model: s.library.embedding_model.clone(),
            chat_model,
            judge: self.judge_info(),
            store: lib.store_info(),
            store_mb: lib.store().size_bytes()? as f64 / 1e6,
            problems,
        })
    }

    pub fn documents(&self) -> Result<Vec<DocumentRow>> {
        self.library().documents()
    }

    /// What the app polls (one tiny query each) to follow other processes: the library's generation (modulo
    /// 2^32), bumped by every ingest or removal, and the number of stored runs, which an `ask` from the CLI or a
    /// selection served by `ragsift serve` raises. The app reloads its documents or its run list when one moves.
    pub fn library_activity(&self) -> Result<LibraryActivity> {
        let lib = self.library();
        Ok(LibraryActivity {
            generation: lib.store().generation()? as u32,
            runs: lib.store().run_count()?,
            serving: self.serve_status(),
        })
    }

    /// Ingests files and folders; files are skipped once `job` is cancelled.
    pub fn ingest(
        &self,
        paths: &[String],
        job: &str,
        on_event: &(dyn Fn(&IngestEvent) + Sync),
    ) -> Result<IngestReport> {
        let inputs: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        self.ingest_with(&inputs, Default::default(), job, on_event)
    }

    pub fn remove_document(&self, id: &str) -> Result<DocumentRow> {
        self.library().remove(id)
    }

    /// Gives a document the user's title (see [`Library::rename`]); returns it renamed.
    pub fn rename_document(&self, id: &str, title: &str) -> Result<DocumentRow> {
        self.library().rename(id, title)
    }

    pub fn runs(&self, limit: u32) -> Result<Vec<RunSummary>> {
        self.library().store().runs(limit as usize)
    }

    /// A stored run's trace (the last one is kept in memory, so replaying it does no I/O).
    pub fn run(&self, id: &str) -> Result<Arc<Trace>> {
        let mut last = self.last_trace.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = last.as_ref().filter(|t| t.run_id == id) {
            return Ok(t.clone());
        }
        let trace = Arc::new(Trace::load(self.library().store(), id)?);
        *last = Some(trace.clone());
        Ok(trace)
    }

    /// Validates and stores settings; the library reopens, and the model reloads on next use when its settings
    /// changed.
    pub fn save_settings(&self, settings: Settings) -> Result<Settings> {
        settings.save(&self.home)?;
        let old = self.settings();
        if old.chat != settings.chat {
            *self.model.lock().unwrap_or_else(|e| e.into_inner()) = None;
            *self.answer_model.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        if old.library.embedding_model != settings.library.embedding_model
            || old.library.embed_threads != settings.library.embed_threads
        {
            *self.embedder.lock().unwrap_or_else(|e| e.into_inner()) = None;
            *self.embed_queue.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
        *self.remote_embedder.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let library = Library::open(&self.home, settings.library.clone())?;
        *self.library.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(library);
        *self.settings.write().unwrap_or_else(|e| e.into_inner()) = settings.clone();
        Ok(settings)
    }

    /// Empties the judgment cache, so the next answers ask the judge again (stored runs still replay from their
    /// own judgments). Returns how many cached answers were dropped.
    pub fn clear_judgment_cache(&self) -> Result<u32> {
        self.library().store().clear_judgments()
    }

    /// Every problem with `settings`, by field, for the Settings form (the same rules `save_settings` applies).
    pub fn check_settings(&self, settings: &Settings) -> Vec<ragsift_core::FieldProblem> {
        settings.problems()
    }

    /// Uses `chat` instead of the saved language model for the rest of this session (not saved): the CLI's
    /// `--model` and `--endpoint` flags.
    pub fn use_chat_model(&self, chat: ragsift_models::llm::ChatSettings) {
        let mut settings = self.settings.write().unwrap_or_else(|e| e.into_inner());
        if settings.chat != chat {
            settings.chat = chat;
            *self.model.lock().unwrap_or_else(|e| e.into_inner()) = None;
            *self.answer_model.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    /// Makes `policy` the one new answers use.
    pub fn save_default_policy(&self, policy: PolicyOptions) -> Result<Settings> {
        let mut settings = self.settings();
        settings.policy = policy;
        self.save_settings(settings)
    }

    /// The embedder, loaded on first use.
    pub fn embedder(&self) -> Result<Arc<FastEmbedder>> {
        self.touch();
        let mut slot = self.embedder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = slot.as_ref() {
            return Ok(e.clone());
        }
        let s = self.settings();
        let runtime = RuntimePaths::discover(&self.home)?;
        let e = Arc::new(FastEmbedder::load(
            &runtime,
            &s.library.embedding_model,
            s.library.embed_threads,
            s.library.embed_batch,
        )?);
        *slot = Some(e.clone());
        Ok(e)
    }

    /// What embeds queries (and new chunks): the server the settings name, else the local model.
    pub fn query_embedder(&self) -> Result<Arc<dyn Embedder>> {
        let mut slot = self.remote_embedder.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = slot.as_ref() {
            return Ok(e.clone());
        }
        match embedders::open_remote(&self.home, &self.settings().library)? {
            Some(remote) => {
                let e: Arc<dyn Embedder> = Arc::new(remote);
                *slot = Some(e.clone());
                Ok(e)
            }
            None => Ok(self.embedder()?),
        }
    }

    /// The language model, loaded on first use; `progress` sees the load's fraction done.
    pub fn model(&self, progress: Option<LoadProgress>) -> Result<Arc<dyn LanguageModel>> {
        self.touch();
        let mut slot = self.model.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = slot.as_ref() {
            return Ok(m.clone());
        }
        let m: Arc<dyn LanguageModel> = Arc::from(open_model(&self.settings().chat, &self.home, progress)?);
        *slot = Some(m.clone());
        Ok(m)
    }

    /// The instruction model that writes grounded answers for the embedded base model, loaded on first use and
    /// kept like [`Workbench::model`]; `None` when the chat model runs on a server or none is installed.
    pub fn answer_model(&self, progress: Option<LoadProgress>) -> Result<Option<Arc<dyn LanguageModel>>> {
        self.touch();
        let mut slot = self.answer_model.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = slot.as_ref() {
            return Ok(m.clone());
        }
        let m = ragsift_models::llm::open_answer_model(&self.settings().chat, &self.home, progress)?.map(Arc::from);
        *slot = Some(m.clone());
        Ok(m)
    }
}

fn write_private(path: &Path, text: &str) -> Result<()> {
    ragsift_core::fsx::write_atomic(path, text.as_bytes(), ragsift_core::fsx::Access::Private)
}

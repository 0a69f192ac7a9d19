//! The doctor: is the runtime installed, do the models load and embed, is the library consistent? Each check
//! runs on its own, so one that fails does not hide the others (the workbench need not open for it to run).

use crate::{Error, Result, Settings};
use ragsift_core::{paths, RuntimePaths};
use ragsift_library::library::{Library, DB_FILE};
use ragsift_models::embed::{Embedder, FastEmbedder};
use serde::Serialize;
use std::path::Path;

/// Every check's outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Doctor {
    pub ok: bool,
    pub home: String,
    pub checks: Vec<Check>,
}

/// One check: what it looked at, whether it holds, and what was found (or what is wrong, with its fix).
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: CheckName,
    pub ok: bool,
    pub detail: String,
}

/// What a check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CheckName {
    #[serde(rename = "data dir")]
    DataDir,
    #[serde(rename = "settings")]
    Settings,
    #[serde(rename = "runtime")]
    Runtime,
    #[serde(rename = "embedding model")]
    EmbeddingModel,
    #[serde(rename = "chat model")]
    ChatModel,
    #[serde(rename = "library")]
    Library,
}

impl CheckName {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckName::DataDir => "data dir",
            CheckName::Settings => "settings",
            CheckName::Runtime => "runtime",
            CheckName::EmbeddingModel => "embedding model",
            CheckName::ChatModel => "chat model",
            CheckName::Library => "library",
        }
    }
}

/// Runs every check on the library in `home`.
pub fn doctor(home: &Path) -> Doctor {
    let mut checks = Vec::new();
    let mut add = |name, r: Result<String>| {
        let (ok, detail) = match r {
            Ok(d) => (true, d),
            Err(e) => (false, e.to_string()),
        };
        checks.push(Check { name, ok, detail });
    };
    let settings = Settings::load(home).unwrap_or_default();
    add(CheckName::DataDir, paths::data_dir().map(|d| d.display().to_string()));
    add(CheckName::Settings, settings_check(home));
    add(
        CheckName::Runtime,
        RuntimePaths::discover(home)
            .map(|r| format!("{} ; models in {}", r.onnxruntime.display(), r.models_dir.display())),
    );
    add(CheckName::EmbeddingModel, embedder_check(home, &settings));
    add(
        CheckName::ChatModel,
        ragsift_models::llm::open_model(&settings.chat, home, None)
            .map(|m| format!("{} ({} backend)", m.id(), settings.chat.backend)),
    );
    add(CheckName::Library, library_check(home));
    Doctor {
        ok: checks.iter().all(|c| c.ok),
        home: home.display().to_string(),
        checks,
    }
}

/// The unknown fields of `settings.json` in words, one per field (the app lists them as set-up problems).
pub fn unknown_field_problems(home: &Path) -> Vec<String> {
    Settings::unknown_fields(home)
        .into_iter()
        .map(|f| format!("settings.json: the unknown field `{f}` is ignored (misspelt, or from another version?)"))
        .collect()
}

/// Whether `settings.json` reads, and holds no field that no setting reads (those are ignored).
fn settings_check(home: &Path) -> Result<String> {
    let path = home.join("settings.json");
    Settings::load(home)?;
    let unknown = unknown_field_problems(home);
    if !unknown.is_empty() {
        return Err(Error::Invalid(unknown.join("; ")));
    }
    Ok(if path.exists() {
        path.display().to_string()
    } else {
        "defaults (no settings.json)".to_string()
    })
}

/// The embedding model loads and embeds one text.
fn embedder_check(home: &Path, settings: &Settings) -> Result<String> {
    let runtime = RuntimePaths::discover(home)?;
    let s = &settings.library;
    let e = FastEmbedder::load(&runtime, &s.embedding_model, s.embed_threads, s.embed_batch)?;
    let v = e.embed(&["ragsift doctor"])?;
    Ok(format!(
        "{} loaded, {} dimensions, max {} tokens",
        e.id(),
        v[0].len(),
        e.max_tokens()
    ))
}

/// The database is sound, every chunk has its vector, and what the last open repaired.
fn library_check(home: &Path) -> Result<String> {
    let lib = Library::open(home, Settings::load(home)?.library)?;
    let problems = lib.store().integrity_check()?;
    if !problems.is_empty() {
        return Err(Error::Invalid(format!("database problems: {}", problems.join("; "))));
    }
    let keys = lib.store().chunk_keys()?;
    let missing = keys.iter().filter(|k| !lib.index().contains(**k)).count();
    if missing > 0 || lib.index().len() != keys.len() {
        return Err(Error::Index(format!(
            "{} chunks, {} vectors, {missing} chunks without a vector",
            keys.len(),
            lib.index().len()
        )));
    }
    let docs = lib.documents()?;
    let gone = docs.iter().filter(|d| !Path::new(&d.path).exists()).count();
    let r = lib.reconciled();
    let repaired = if r.vectors_added > 0 || r.rebuilt {
        format!(
            "; repaired on open: {} vectors restored{}",
            r.vectors_added,
            if r.rebuilt { ", index rebuilt" } else { "" }
        )
    } else {
        String::new()
    };
    Ok(format!(
        "{DB_FILE} at {}: {} documents, {} chunks, all with vectors; {gone} files missing on disk{repaired}",
        home.display(),
        docs.len(),
        keys.len(),
    ))
}

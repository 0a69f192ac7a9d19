//! Where things live: the data dir, the library home, the ONNX Runtime library and the models.

use crate::{Error, Result};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The embedding model ragsift uses when none is configured (installed by `scripts/setup.sh`).
pub const DEFAULT_EMBEDDING_MODEL: &str = "all-minilm-l6-v2-int8";

/// What every "not installed" error tells the user to do.
pub const SETUP_HINT: &str = "run ./scripts/setup.sh (it installs ONNX Runtime and the default models)";

/// The per-user data dir: `$RAGSIFT_DATA`, else the platform's data dir (`~/.local/share/ragsift` on Linux).
/// Set-up installs the runtime and models here; it is also the default library home.
pub fn data_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("RAGSIFT_DATA").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    directories::ProjectDirs::from("", "", "ragsift")
        .map(|d| d.data_dir().to_path_buf())
        .ok_or_else(|| Error::Setup("cannot find a home directory for ragsift's data".into()))
}

/// The library home: an explicit dir, else `$RAGSIFT_HOME`, else the data dir.
pub fn resolve_home(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    match std::env::var_os("RAGSIFT_HOME").filter(|v| !v.is_empty()) {
        Some(h) => Ok(PathBuf::from(h)),
        None => data_dir(),
    }
}

/// Where the ONNX Runtime library and the models were found.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RuntimePaths {
    /// `libonnxruntime.so`.
    pub onnxruntime: PathBuf,
    /// The folder holding one folder per model.
    pub models_dir: PathBuf,
}

impl RuntimePaths {
    /// Finds the runtime without environment variables after set-up: `<home>/runtime`, then the data dir.
    /// `ORT_DYLIB_PATH` and `RAGSIFT_MODELS` override. The error says what is missing and how to fix it.
    pub fn discover(home: &Path) -> Result<Self> {
        let mut roots = vec![home.to_path_buf()];
        if let Ok(d) = data_dir() {
            if d != home {
                roots.push(d);
            }
        }
        let ort = std::env::var_os("ORT_DYLIB_PATH")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| first_existing(&roots, "runtime/libonnxruntime.so"));
        let models = std::env::var_os("RAGSIFT_MODELS")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| first_existing(&roots, "models"));
        let looked = roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let onnxruntime = ort.filter(|p| p.is_file()).ok_or_else(|| {
            Error::Setup(format!(
                "ONNX Runtime (runtime/libonnxruntime.so) not found under {looked}: {SETUP_HINT}"
            ))
        })?;
        let models_dir = models
            .filter(|p| p.is_dir())
            .ok_or_else(|| Error::Setup(format!("models dir not found under {looked}: {SETUP_HINT}")))?;
        Ok(RuntimePaths {
            onnxruntime,
            models_dir,
        })
    }

    /// The folder of one model, checked to exist.
    pub fn model_dir(&self, id: &str) -> Result<PathBuf> {
        let dir = self.models_dir.join(id);
        if dir.join("manifest.json").is_file() {
            Ok(dir)
        } else {
            Err(Error::Setup(format!(
                "model '{id}' not found in {}: {SETUP_HINT}",
                self.models_dir.display()
            )))
        }
    }
}

/// The models dir: `$RAGSIFT_MODELS`, else `<home>/models`, else `<data dir>/models`.
pub fn models_dir(home: &Path) -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("RAGSIFT_MODELS").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let mut roots = vec![home.to_path_buf()];
    roots.extend(data_dir().ok().filter(|d| d != home));
    first_existing(&roots, "models").filter(|p| p.is_dir()).ok_or_else(|| {
        let looked = roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Error::Setup(format!("models dir not found under {looked}: {SETUP_HINT}"))
    })
}

fn first_existing(roots: &[PathBuf], rel: &str) -> Option<PathBuf> {
    roots.iter().map(|r| r.join(rel)).find(|p| p.exists())
}

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

/// Where an installed package keeps its runtime and models: `$RAGSIFT_INSTALL_DIR`, else `<exe>/../lib/ragsift`
/// when it exists (`/usr/lib/ragsift` for binaries in `/usr/bin`). Read-only; a user's own models and every library
/// stay in the data dir.
pub fn install_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("RAGSIFT_INSTALL_DIR").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?.parent()?.join("lib").join("ragsift");
    dir.is_dir().then_some(dir)
}

/// The bundled sample documents the app offers on an empty library: `$RAGSIFT_SAMPLES`, else the install dir's
/// `samples`, else (a build from the source tree) the repository's `assets/samples`. `None` when none is there.
pub fn samples_dir() -> Option<PathBuf> {
    let env = std::env::var_os("RAGSIFT_SAMPLES")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let packaged = install_dir().map(|d| d.join("samples"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/samples");
    env.into_iter()
        .chain(packaged)
        .chain(std::iter::once(source))
        .find(|d| d.is_dir())
}

/// The folders searched for `runtime/` and `models/`, in order: the library home, the data dir, the install dir.
fn roots(home: &Path) -> Vec<PathBuf> {
    let mut roots = vec![home.to_path_buf()];
    for extra in [data_dir().ok(), install_dir()].into_iter().flatten() {
        if !roots.contains(&extra) {
            roots.push(extra);
        }
    }
    roots
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
    /// Finds the runtime without environment variables after set-up or a package install: `<home>/runtime`, then
    /// the data dir, then the install dir. `ORT_DYLIB_PATH` and `RAGSIFT_MODELS` override. The error says what is missing and how to fix it.
    pub fn discover(home: &Path) -> Result<Self> {
        let roots = roots(home);
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

    /// The folder of one model, checked to exist: in the models dir, else among the installed package's models.
    pub fn model_dir(&self, id: &str) -> Result<PathBuf> {
        let packaged = install_dir().map(|d| d.join("models").join(id));
        let found = std::iter::once(self.models_dir.join(id))
            .chain(packaged)
            .find(|dir| dir.join("manifest.json").is_file());
        if let Some(dir) = found {
            Ok(dir)
        } else {
            Err(Error::Setup(format!(
                "model '{id}' not found in {}: {SETUP_HINT}",
                self.models_dir.display()
            )))
        }
    }
}

/// The models dir: `$RAGSIFT_MODELS`, else `<home>/models`, else `<data dir>/models`, else the install dir's.
pub fn models_dir(home: &Path) -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("RAGSIFT_MODELS").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let roots = roots(home);
    first_existing(&roots, "models").filter(|p| p.is_dir()).ok_or_else(|| {
        let looked = roots
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Error::Setup(format!("models dir not found under {looked}: {SETUP_HINT}"))
    })
}

/// The folder of model `id`: under `$RAGSIFT_MODELS` when set, else the first `models/<id>` among the home, the
/// data dir and the install dir, so a user's own copy wins over the packaged one.
pub fn model_folder(home: &Path, id: &str) -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("RAGSIFT_MODELS").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir).join(id));
    }
    let roots = roots(home);
    first_existing(&roots, &format!("models/{id}"))
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            let looked = roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            Error::Setup(format!("model '{id}' not found under {looked}: {SETUP_HINT}"))
        })
}

fn first_existing(roots: &[PathBuf], rel: &str) -> Option<PathBuf> {
    roots.iter().map(|r| r.join(rel)).find(|p| p.exists())
}

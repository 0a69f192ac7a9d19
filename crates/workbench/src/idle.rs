//! Idle models are unloaded: after `idle_unload_secs` without a job, the embedder and the language model are
//! dropped (what a job still holds stays alive until it ends), and the next job loads them again with progress.
//! The app runs [`Workbench::start_idle_unloader`]; [`Workbench::unload_idle`] is the one step, testable alone.

use super::Workbench;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// Which models are loaded now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LoadedModels {
    pub embedder: bool,
    pub language_model: bool,
}

impl Workbench {
    /// Marks the models as just used.
    pub(crate) fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }

    /// Which models are loaded.
    pub fn loaded_models(&self) -> LoadedModels {
        LoadedModels {
            embedder: self.embedder.lock().unwrap_or_else(|e| e.into_inner()).is_some(),
            language_model: self.model.lock().unwrap_or_else(|e| e.into_inner()).is_some(),
        }
    }

    /// Unloads the models when none was used for the configured idle time and no job is running; returns what
    /// was unloaded. `idle_unload_secs = 0` never unloads.
    pub fn unload_idle(&self) -> LoadedModels {
        let none = LoadedModels {
            embedder: false,
            language_model: false,
        };
        let secs = self.settings().idle_unload_secs;
        let idle = self.last_used.lock().unwrap_or_else(|e| e.into_inner()).elapsed();
        if secs == 0 || idle < Duration::from_secs(u64::from(secs)) || self.jobs.running() > 0 {
            return none;
        }
        let queue = self
            .embed_queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .is_some();
        let embedder = self.embedder.lock().unwrap_or_else(|e| e.into_inner()).take().is_some() || queue;
        self.remote_embedder.lock().unwrap_or_else(|e| e.into_inner()).take();
        let answer_model =
            (self.answer_model.lock().unwrap_or_else(|e| e.into_inner()).take()).is_some_and(|m| m.is_some());
        let language_model = self.model.lock().unwrap_or_else(|e| e.into_inner()).take().is_some() || answer_model;
        if embedder || language_model {
            trim_heap();
        }
        LoadedModels {
            embedder,
            language_model,
        }
    }

    /// Checks every `every` for idle models on a background thread, for as long as the workbench lives.
    pub fn start_idle_unloader(self: &Arc<Self>, every: Duration) {
        let weak: Weak<Workbench> = Arc::downgrade(self);
        std::thread::spawn(move || loop {
            std::thread::sleep(every);
            match weak.upgrade() {
                Some(wb) => {
                    wb.unload_idle();
                }
                None => return,
            }
        });
    }
}

/// Hands the heap's free pages back to the system: glibc keeps freed memory in its arenas, so without this the
/// process's resident memory would stay at its peak after the models are dropped.
#[allow(unsafe_code)] // the one FFI call below; there is no safe wrapper
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator's own arenas; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

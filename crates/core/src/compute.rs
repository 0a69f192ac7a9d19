//! One CPU-heavy model at a time: embedding and language-model inference take this lock, because running them
//! together on the same cores collapses both (measured: 36 → 0.4 tokens/s for the embedded model).

use std::sync::{Mutex, MutexGuard};

static COMPUTE: Mutex<()> = Mutex::new(());

/// Holds the machine's cores for one model call.
pub fn exclusive() -> MutexGuard<'static, ()> {
    COMPUTE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Threads for one model: all cores, since calls are serialised by [`exclusive`].
pub fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

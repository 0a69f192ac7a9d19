//! Running jobs by the id the UI gave them, so any of them can be cancelled.

use ragsift_models::llm::CancelToken;
use std::collections::HashMap;
use std::sync::Mutex;

/// Cancel tokens of the jobs in flight.
#[derive(Default)]
pub struct Jobs(Mutex<HashMap<String, CancelToken>>);

impl Jobs {
    /// Registers `id` and returns its token.
    pub fn start(&self, id: &str) -> CancelToken {
        let token = CancelToken::new();
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_string(), token.clone());
        token
    }

    /// Unregisters `id` when the returned guard drops.
    pub fn finish_on_drop<'a>(&'a self, id: &'a str) -> impl Drop + 'a {
        Finish { jobs: self, id }
    }

    /// How many jobs are running.
    pub fn running(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Cancels `id`; false when no such job is running.
    pub fn cancel(&self, id: &str) -> bool {
        match self.0.lock().unwrap_or_else(|e| e.into_inner()).get(id) {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        }
    }
}

struct Finish<'a> {
    jobs: &'a Jobs,
    id: &'a str,
}

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.jobs.0.lock().unwrap_or_else(|e| e.into_inner()).remove(self.id);
    }
}

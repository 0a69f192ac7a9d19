//! Where a Spring library keeps its runs and judgments: ragsift's own tables in a `ragsift` schema beside the table
//! (shared by the team), or the home's SQLite file when the role may not create that schema.

use super::SpringTable;
use crate::backend::{JudgmentStore, LabelStore, LibraryStore, RunStore};
use crate::pg::PgStore;
use crate::sqlite::{CachedJudgment, RunSummary, SpanLabel, Store};
use crate::{Error, Result};
use std::path::Path;

impl RunStore for SpringTable {
    fn put_run(&self, run: &RunSummary, fingerprint: &str, trace_json: &str) -> Result<()> {
        self.records.get().put_run(run, fingerprint, trace_json)
    }
    fn run(&self, id: &str) -> Result<Option<String>> {
        self.records.get().run(id)
    }
    fn run_count(&self) -> Result<u32> {
        self.records.get().run_count()
    }
    fn runs(&self, limit: usize) -> Result<Vec<RunSummary>> {
        self.records.get().runs(limit)
    }
    fn delete_runs(&self, ids: &[String]) -> Result<usize> {
        self.records.get().delete_runs(ids)
    }
}

impl JudgmentStore for SpringTable {
    fn judgment(&self, key: &str) -> Result<Option<CachedJudgment>> {
        self.records.get().judgment(key)
    }
    fn put_judgments(&self, items: &[CachedJudgment]) -> Result<()> {
        self.records.get().put_judgments(items)
    }
    fn judgment_count(&self) -> Result<u32> {
        self.records.get().judgment_count()
    }
    fn clear_judgments(&self) -> Result<u32> {
        self.records.get().clear_judgments()
    }
}

impl LabelStore for SpringTable {
    fn put_label(&self, label: &SpanLabel) -> Result<()> {
        self.records.get().put_label(label)
    }
    fn label(&self, id: &str) -> Result<Option<SpanLabel>> {
        self.records.get().label(id)
    }
    fn labels(&self, question: Option<&str>) -> Result<Vec<SpanLabel>> {
        self.records.get().labels(question)
    }
    fn remove_label(&self, id: &str) -> Result<bool> {
        self.records.get().remove_label(id)
    }
}

/// Where a Spring library keeps its runs and judgments.
pub(super) enum Records {
    /// ragsift's tables in the `ragsift` schema of the table's database: the team shares them.
    Shared(PgStore),
    /// The home's SQLite file, when the role may not create that schema.
    Local(Store),
}

/// The schema beside a Spring table that holds ragsift's runs and judgments.
pub const RECORDS_SCHEMA: &str = "ragsift";

impl Records {
    pub(super) fn open(url: &str, local_db: &Path) -> Result<Records> {
        let created = PgStore::create_schema(url, RECORDS_SCHEMA);
        match created.and_then(|()| PgStore::open(&with_search_path(url, RECORDS_SCHEMA))) {
            Ok(store) => Ok(Records::Shared(store)),
            Err(Error::Server(_)) | Err(Error::Setup(_)) => Ok(Records::Local(Store::open(local_db)?)),
            Err(e) => Err(e),
        }
    }

    pub(super) fn get(&self) -> &dyn LibraryStore {
        match self {
            Records::Shared(store) => store,
            Records::Local(store) => store,
        }
    }
}

/// `url` with `schema` first on its search path (then `public`, where pgvector's type lives).
fn with_search_path(url: &str, schema: &str) -> String {
    if url.contains("://") {
        let sep = if url.contains('?') { '&' } else { '?' };
        format!("{url}{sep}options=-csearch_path%3D{schema},public")
    } else {
        format!("{url} options='-csearch_path={schema},public'")
    }
}

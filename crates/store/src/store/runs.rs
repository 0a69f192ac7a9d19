//! The stored runs: each answer's whole trace as JSON, with a summary row for listing.

use super::Store;
use crate::backend::RunStore;
use crate::Result;
use rusqlite::params;
use serde::{Deserialize, Serialize};

/// A run as listed (the trace itself is in [`Store::run`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunSummary {
    pub id: String,
    pub created_at: i64,
    pub query: String,
    pub judge: String,
    pub prompt_version: String,
    /// Who made the run (the `user` setting of the client that made it).
    #[serde(default)]
    pub made_by: String,
}

impl RunStore for Store {
    fn put_run(&self, run: &RunSummary, fingerprint: &str, trace_json: &str) -> Result<()> {
        self.conn().execute(
            "INSERT OR REPLACE INTO runs(id, created_at, query, judge, prompt_version, fingerprint, trace, made_by) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                run.id,
                run.created_at,
                run.query,
                run.judge,
                run.prompt_version,
                fingerprint,
                trace_json,
                run.made_by
            ],
        )?;
        Ok(())
    }

    /// The stored trace JSON of a run (by id or unique id prefix).
    fn run(&self, id: &str) -> Result<Option<String>> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT trace FROM runs WHERE id LIKE ?1 || '%' LIMIT 2")?;
        let rows: Vec<String> = stmt.query_map([id], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(if rows.len() == 1 { rows.into_iter().next() } else { None })
    }

    /// How many runs are stored.
    fn run_count(&self) -> Result<u32> {
        Ok(self.conn().query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))?)
    }

    fn runs(&self, limit: usize) -> Result<Vec<RunSummary>> {
        let conn = self.conn();
        let mut stmt = conn.prepare(
            "SELECT id, created_at, query, judge, prompt_version, made_by FROM runs \
             ORDER BY created_at DESC, id LIMIT ?1",
        )?;
        let rows = stmt
            .query_map([limit as i64], |r| {
                Ok(RunSummary {
                    id: r.get(0)?,
                    created_at: r.get(1)?,
                    query: r.get(2)?,
                    judge: r.get(3)?,
                    prompt_version: r.get(4)?,
                    made_by: r.get(5)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}

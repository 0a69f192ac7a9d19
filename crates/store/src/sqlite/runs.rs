//! The stored runs: each answer's whole trace as JSON, with a summary row for listing.

use super::Store;
use crate::backend::RunStore;
use crate::sql::Sql;
use crate::Result;
pub use ragsift_interfaces::store::{RunOrigin, RunSummary};
use rusqlite::params;

impl RunStore for Store {
    fn put_run(&self, run: &RunSummary, fingerprint: &str, trace_json: &str) -> Result<()> {
        self.conn().execute(
            "INSERT OR REPLACE INTO runs(id, created_at, query, judge, prompt_version, fingerprint, trace, made_by, \
             origin) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                run.id,
                run.created_at,
                run.query,
                run.judge,
                run.prompt_version,
                fingerprint,
                trace_json,
                run.made_by,
                run.origin.as_str()
            ],
        ).sql()?;
        Ok(())
    }

    /// The stored trace JSON of a run: the run with exactly this id, else the one run whose id starts with it
    /// (compared as text, case and all: no LIKE wildcards) when the prefix is at least
    /// [`ragsift_core::ids::MIN_PREFIX_LEN`] characters; none for an empty id or an ambiguous or short prefix.
    fn run(&self, id: &str) -> Result<Option<String>> {
        if id.is_empty() {
            return Ok(None);
        }
        let conn = self.conn();
        let mut exact = conn.prepare("SELECT trace FROM runs WHERE id = ?1").sql()?;
        if let Some(trace) = exact.query_map([id], |r| r.get(0)).sql()?.next() {
            return Ok(Some(trace.sql()?));
        }
        if id.chars().count() < ragsift_core::ids::MIN_PREFIX_LEN {
            return Ok(None);
        }
        let mut stmt = conn
            .prepare("SELECT trace FROM runs WHERE substr(id, 1, length(?1)) = ?1 LIMIT 2")
            .sql()?;
        let rows: Vec<String> = stmt
            .query_map([id], |r| r.get(0))
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()?;
        Ok(if rows.len() == 1 { rows.into_iter().next() } else { None })
    }

    /// How many runs are stored.
    fn run_count(&self) -> Result<u32> {
        self.conn()
            .query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
            .sql()
    }

    fn runs(&self, limit: usize) -> Result<Vec<RunSummary>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                "SELECT id, created_at, query, judge, prompt_version, made_by, origin FROM runs \
             ORDER BY created_at DESC, id LIMIT ?1",
            )
            .sql()?;
        let rows = stmt
            .query_map([limit as i64], |r| {
                Ok(RunSummary {
                    id: r.get(0)?,
                    created_at: r.get(1)?,
                    query: r.get(2)?,
                    judge: r.get(3)?,
                    prompt_version: r.get(4)?,
                    made_by: r.get(5)?,
                    origin: RunOrigin::parse(&r.get::<_, String>(6)?),
                })
            })
            .sql()?
            .collect::<rusqlite::Result<Vec<_>>>()
            .sql()?;
        Ok(rows)
    }

    fn delete_runs(&self, ids: &[String]) -> Result<usize> {
        let mut conn = self.conn();
        let tx = conn.transaction().sql()?;
        let mut deleted = 0;
        for id in ids {
            deleted += tx.execute("DELETE FROM runs WHERE id = ?1", [id]).sql()?;
        }
        tx.commit().sql()?;
        Ok(deleted)
    }
}

#[cfg(test)]
mod tests {
    use super::{RunStore, RunSummary, Store};

    fn put(store: &Store, id: &str) {
        let run = RunSummary {
            id: id.into(),
            created_at: 1,
            query: "q".into(),
            judge: "local".into(),
            prompt_version: "v".into(),
            made_by: String::new(),
            origin: Default::default(),
        };
        store.put_run(&run, "fp", &format!("{{\"run_id\":\"{id}\"}}")).unwrap();
    }

    #[test]
    fn a_run_is_found_by_its_exact_id_before_any_prefix_and_wildcards_match_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
        put(&store, "b8ced99fe37c");
        // An import whose id extends an existing one no longer hides it.
        put(&store, "b8ced99fe37c0");
        let got = |id: &str| {
            store
                .run(id)
                .unwrap()
                .map(|t| t.trim_start_matches("{\"run_id\":\"").to_string())
        };
        assert_eq!(got("b8ced99fe37c").as_deref(), Some("b8ced99fe37c\"}"));
        assert_eq!(got("b8ced99fe37c0").as_deref(), Some("b8ced99fe37c0\"}"));
        assert_eq!(got("b8ced"), None, "an ambiguous prefix names no run");
        for wild in ["%", "_", "b8ced99fe37_", "", "B8CED99FE37C"] {
            assert_eq!(got(wild), None, "{wild:?}");
        }
        put(&store, "a1b2c3d4");
        assert_eq!(
            got("a1b2c3").as_deref(),
            Some("a1b2c3d4\"}"),
            "a unique prefix of 6 still works"
        );
        assert_eq!(got("a1b2c"), None, "a prefix under 6 characters names no run");
    }
}

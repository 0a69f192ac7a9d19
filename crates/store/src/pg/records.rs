//! Runs and the judgment cache in PostgreSQL: shared by every client of the library, so a colleague's replay of a
//! run someone judged makes no judge call.

use super::PgStore;
use crate::backend::{JudgmentStore, RunStore};
use crate::sqlite::{CachedJudgment, RunOrigin, RunSummary};
use crate::Result;
use tokio_postgres::Row;

const JUDGMENT_COLUMNS: &str = "key, judge, model, answered_by, prompt_version, question, query_hash, passage_hash, \
     probability, input_tokens, output_tokens, latency_ms, created_at";

fn judgment_row(r: &Row) -> CachedJudgment {
    CachedJudgment {
        key: r.get(0),
        judge: r.get(1),
        model: r.get(2),
        answered_by: r.get(3),
        prompt_version: r.get(4),
        question: r.get(5),
        query_hash: r.get(6),
        passage_hash: r.get(7),
        probability: r.get(8),
        input_tokens: r.get::<_, i32>(9) as u32,
        output_tokens: r.get::<_, i32>(10) as u32,
        latency_ms: r.get(11),
        created_at: r.get(12),
    }
}

fn count(r: &Row) -> u32 {
    r.get::<_, i64>(0).clamp(0, u32::MAX as i64) as u32
}

impl RunStore for PgStore {
    fn put_run(&self, run: &RunSummary, fingerprint: &str, trace_json: &str) -> Result<()> {
        let (run, fingerprint, trace) = (run.clone(), fingerprint.to_string(), trace_json.to_string());
        self.conn().run(move |c| async move {
            c.execute(
                "INSERT INTO runs(id, created_at, query, judge, prompt_version, fingerprint, trace, made_by, origin) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO UPDATE SET made_by = excluded.made_by, \
                 origin = excluded.origin, \
                 created_at = excluded.created_at, \
                 query = excluded.query, judge = excluded.judge, prompt_version = excluded.prompt_version, \
                 fingerprint = excluded.fingerprint, trace = excluded.trace",
                &[
                    &run.id,
                    &run.created_at,
                    &run.query,
                    &run.judge,
                    &run.prompt_version,
                    &fingerprint,
                    &trace,
                    &run.made_by,
                    &run.origin.as_str(),
                ],
            )
            .await?;
            Ok(())
        })
    }

    fn run(&self, id: &str) -> Result<Option<String>> {
        // The exact id first, else a unique prefix compared as text (no LIKE wildcards), as the SQLite store.
        if id.is_empty() {
            return Ok(None);
        }
        let short = id.chars().count() < ragsift_core::ids::MIN_PREFIX_LEN;
        let id = id.to_string();
        self.conn().run(move |c| async move {
            if let Some(row) = c.query_opt("SELECT trace FROM runs WHERE id = $1", &[&id]).await? {
                return Ok(Some(row.get(0)));
            }
            if short {
                return Ok(None);
            }
            let rows = c
                .query("SELECT trace FROM runs WHERE starts_with(id, $1) LIMIT 2", &[&id])
                .await?;
            Ok(if rows.len() == 1 { Some(rows[0].get(0)) } else { None })
        })
    }

    fn run_count(&self) -> Result<u32> {
        self.conn()
            .run(move |c| async move { Ok(count(&c.query_one("SELECT count(*) FROM runs", &[]).await?)) })
    }

    fn runs(&self, limit: usize) -> Result<Vec<RunSummary>> {
        self.conn().run(move |c| async move {
            let rows = c
                .query(
                    "SELECT id, created_at, query, judge, prompt_version, made_by, origin FROM runs \
                     ORDER BY created_at DESC, id LIMIT $1",
                    &[&(limit as i64)],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| RunSummary {
                    id: r.get(0),
                    created_at: r.get(1),
                    query: r.get(2),
                    judge: r.get(3),
                    prompt_version: r.get(4),
                    made_by: r.get(5),
                    origin: RunOrigin::parse(r.get(6)),
                })
                .collect())
        })
    }

    fn delete_runs(&self, ids: &[String]) -> Result<usize> {
        let ids = ids.to_vec();
        self.conn().run(move |c| async move {
            let n = c.execute("DELETE FROM runs WHERE id = ANY($1)", &[&ids]).await?;
            Ok(n as usize)
        })
    }
}

impl JudgmentStore for PgStore {
    fn judgment(&self, key: &str) -> Result<Option<CachedJudgment>> {
        let key = key.to_string();
        self.conn().run(move |c| async move {
            let sql = format!("SELECT {JUDGMENT_COLUMNS} FROM judgments WHERE key = $1");
            Ok(c.query_opt(&sql, &[&key]).await?.as_ref().map(judgment_row))
        })
    }

    fn put_judgments(&self, items: &[CachedJudgment]) -> Result<()> {
        let items = items.to_vec();
        self.conn().run(move |mut c| async move {
            let tx = c.transaction().await?;
            let put = tx
                .prepare(&format!(
                    "INSERT INTO judgments({JUDGMENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
                     $12, $13) ON CONFLICT (key) DO UPDATE SET judge = excluded.judge, model = excluded.model, \
                     answered_by = excluded.answered_by, prompt_version = excluded.prompt_version, \
                     question = excluded.question, query_hash = excluded.query_hash, \
                     passage_hash = excluded.passage_hash, probability = excluded.probability, \
                     input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, \
                     latency_ms = excluded.latency_ms, created_at = excluded.created_at"
                ))
                .await?;
            for j in &items {
                tx.execute(
                    &put,
                    &[
                        &j.key,
                        &j.judge,
                        &j.model,
                        &j.answered_by,
                        &j.prompt_version,
                        &j.question,
                        &j.query_hash,
                        &j.passage_hash,
                        &j.probability,
                        &(j.input_tokens as i32),
                        &(j.output_tokens as i32),
                        &j.latency_ms,
                        &j.created_at,
                    ],
                )
                .await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    fn judgment_count(&self) -> Result<u32> {
        self.conn()
            .run(move |c| async move { Ok(count(&c.query_one("SELECT count(*) FROM judgments", &[]).await?)) })
    }

    fn clear_judgments(&self) -> Result<u32> {
        self.conn()
            .run(move |c| async move { Ok(c.execute("DELETE FROM judgments", &[]).await? as u32) })
    }
}

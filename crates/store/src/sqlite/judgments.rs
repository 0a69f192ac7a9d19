//! The judgment cache: one row per (judge, model, prompt version, question, query, passage), so a question a
//! judge already answered is never asked again. Each row keeps the model that answered and when (Unix seconds), so
//! a reader can refuse answers of a model alias that has since moved, or that are too old.

use super::Store;
use crate::backend::JudgmentStore;
use crate::sql::Sql;
use crate::Result;
pub use ragsift_interfaces::store::CachedJudgment;
use rusqlite::{params, OptionalExtension};

impl JudgmentStore for Store {
    fn judgment(&self, key: &str) -> Result<Option<CachedJudgment>> {
        let conn = self.conn();
        let row = conn
            .query_row(
                "SELECT key, judge, model, answered_by, prompt_version, question, query_hash, passage_hash, \
                 probability, input_tokens, output_tokens, latency_ms, created_at FROM judgments WHERE key = ?1",
                [key],
                |r| {
                    Ok(CachedJudgment {
                        key: r.get(0)?,
                        judge: r.get(1)?,
                        model: r.get(2)?,
                        answered_by: r.get(3)?,
                        prompt_version: r.get(4)?,
                        question: r.get(5)?,
                        query_hash: r.get(6)?,
                        passage_hash: r.get(7)?,
                        probability: r.get::<_, f64>(8)?,
                        input_tokens: r.get(9)?,
                        output_tokens: r.get(10)?,
                        latency_ms: r.get(11)?,
                        created_at: r.get(12)?,
                    })
                },
            )
            .optional()
            .sql()?;
        Ok(row)
    }

    fn put_judgments(&self, items: &[CachedJudgment]) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .sql()?;
        {
            let mut ins = tx.prepare(
                "INSERT OR REPLACE INTO judgments(key, judge, model, answered_by, prompt_version, question, query_hash, \
                 passage_hash, probability, input_tokens, output_tokens, latency_ms, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            ).sql()?;
            for j in items {
                ins.execute(params![
                    j.key,
                    j.judge,
                    j.model,
                    j.answered_by,
                    j.prompt_version,
                    j.question,
                    j.query_hash,
                    j.passage_hash,
                    j.probability,
                    j.input_tokens,
                    j.output_tokens,
                    j.latency_ms,
                    j.created_at
                ])
                .sql()?;
            }
        }
        tx.commit().sql()?;
        Ok(())
    }

    /// How many answers the judgment cache holds.
    fn judgment_count(&self) -> Result<u32> {
        self.conn()
            .query_row("SELECT COUNT(*) FROM judgments", [], |r| r.get(0))
            .sql()
    }

    /// Empties the judgment cache (every judge, model and prompt version) and says how many answers it held.
    /// Stored runs keep their own judgments, so they still replay.
    fn clear_judgments(&self) -> Result<u32> {
        Ok(self.conn().execute("DELETE FROM judgments", []).sql()? as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(key: &str) -> CachedJudgment {
        CachedJudgment {
            key: key.into(),
            judge: "jev".into(),
            model: "jev-latest".into(),
            answered_by: "jev-1.13.0".into(),
            prompt_version: "v".into(),
            question: "is_relevant".into(),
            query_hash: "q".into(),
            passage_hash: "p".into(),
            probability: 0.1999999999,
            input_tokens: 1,
            output_tokens: 1,
            latency_ms: 1.0,
            created_at: 1_700_000_000,
        }
    }

    #[test]
    fn answers_round_trip_in_double_precision_and_clear() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
        store.put_judgments(&[answer("a"), answer("b")]).unwrap();
        let a = store.judgment("a").unwrap().unwrap();
        assert_eq!((a.probability, a.created_at), (0.1999999999, 1_700_000_000));
        assert_eq!(store.judgment_count().unwrap(), 2);
        assert_eq!(store.clear_judgments().unwrap(), 2);
        assert_eq!(store.judgment_count().unwrap(), 0);
        assert!(store.judgment("a").unwrap().is_none());
    }
}

//! A Spring table's vector search as a [`VectorIndex`].

use super::{read_only, Shared};
use crate::index::{Neighbor, VectorIndex};
use crate::pg::vectors::Search;
use crate::{Error, Result};
use std::sync::Arc;

/// The table's HNSW index (or a scan, when Spring built none): the query vector must come from the model that
/// built the table, so a dimension mismatch is refused with the numbers.
pub(super) struct SpringVectors(pub(super) Arc<Shared>);

impl SpringVectors {
    fn query(&self, query: &[f32], k: usize, exact: bool) -> Result<Vec<Neighbor>> {
        let dims = self.dimensions();
        if dims > 0 && dims != query.len() {
            return Err(Error::Invalid(format!(
                "{} holds {dims}-dimensional vectors, and the query embedder makes {}: query vectors must come from the \
                 model that built the table (choose it as the embedder in settings)",
                self.0.name,
                query.len()
            )));
        }
        let sql = format!(
            "SELECT id::text, (1 - (embedding <=> $1))::REAL FROM {} WHERE embedding IS NOT NULL \
             ORDER BY embedding <=> $1 LIMIT $2",
            self.0.table
        );
        let search = Search::new(query, k, exact, self.0.ef_search);
        let rows = self.0.conn.run(move |c| search.rows(c, sql))?;
        let hits: Vec<(String, f32)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
        Ok(self
            .0
            .remember(hits)
            .into_iter()
            .map(|(key, similarity)| Neighbor { key, similarity })
            .collect())
    }
}

impl VectorIndex for SpringVectors {
    fn dimensions(&self) -> usize {
        let table = self.0.table.clone();
        self.0
            .conn
            .run(move |c| async move {
                let row = c
                    .query_one(
                        "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding'",
                        &[&table],
                    )
                    .await?;
                Ok(row.get::<_, i32>(0).max(0) as usize)
            })
            .unwrap_or(0)
    }
    fn len(&self) -> usize {
        let table = self.0.table.clone();
        self.0
            .conn
            .run(move |c| async move {
                Ok(c.query_one(&format!("SELECT count(*) FROM {table}"), &[])
                    .await?
                    .get::<_, i64>(0))
            })
            .map_or(0, |n| n.max(0) as usize)
    }
    fn contains(&self, key: u64) -> bool {
        self.0.ids.lock().unwrap_or_else(|p| p.into_inner()).contains_key(&key)
    }
    fn add(&self, _key: u64, _vector: &[f32]) -> Result<()> {
        Err(read_only(&self.0.name))
    }
    fn remove(&self, _key: u64) -> Result<()> {
        Err(read_only(&self.0.name))
    }
    fn search(&self, query: &[f32], k: usize) -> Result<Vec<Neighbor>> {
        self.query(query, k, false)
    }
    fn exact_search(&self, query: &[f32], k: usize) -> Result<Vec<Neighbor>> {
        self.query(query, k, true)
    }
    fn clear(&self) -> Result<()> {
        Ok(())
    }
    fn persist(&self) -> Result<()> {
        Ok(())
    }
}

//! pgvector search as a [`VectorIndex`]: the vectors live in the chunk rows (written with them, in the same
//! transaction), so adding, removing and saving are no-ops, and search is one query against the HNSW index.
//! Exact search turns index scans off for its transaction, the baseline HNSW is measured against.

use super::{schema, Client, Conn, PgResult};
use crate::index::{Neighbor, VectorIndex};
use crate::Result;
use pgvector::Vector;
use std::sync::Arc;
use tokio_postgres::Row;

/// One nearest-neighbour query: the vector, how many, and how pgvector searches (its HNSW index with a width, or
/// exactly with index scans off), set for its own transaction only.
pub(super) struct Search {
    vector: Vector,
    k: usize,
    setting: String,
}

impl Search {
    pub(super) fn new(query: &[f32], k: usize, exact: bool, ef_search: usize) -> Self {
        let setting = if exact {
            "SET LOCAL enable_indexscan = off".to_string()
        } else {
            format!("SET LOCAL hnsw.ef_search = {}", ef_search.max(k.min(1000)))
        };
        Search {
            vector: Vector::from(query.to_vec()),
            k,
            setting,
        }
    }

    /// Runs `sql` (`$1` the query vector, `$2` the limit) under the search setting.
    pub(super) async fn rows(self, mut c: Client, sql: String) -> PgResult<Vec<Row>> {
        let tx = c.transaction().await?;
        tx.batch_execute(&self.setting).await?;
        let rows = tx.query(&sql, &[&self.vector, &(self.k as i64)]).await?;
        tx.commit().await?;
        Ok(rows)
    }
}

/// The HNSW index on `chunks.embedding` (cosine).
pub struct PgVectors {
    conn: Arc<Conn>,
    /// `hnsw.ef_search`: candidates the search keeps (pgvector allows 1..=1000).
    ef_search: usize,
}

impl PgVectors {
    pub(crate) fn new(conn: Arc<Conn>, expansion_search: usize) -> Self {
        PgVectors {
            conn,
            ef_search: expansion_search.clamp(1, 1000),
        }
    }

    fn query(&self, query: &[f32], k: usize, exact: bool) -> Result<Vec<Neighbor>> {
        let sql = "SELECT key, (1 - (embedding <=> $1))::REAL FROM chunks ORDER BY embedding <=> $1 LIMIT $2";
        let search = Search::new(query, k, exact, self.ef_search);
        let rows = self.conn.run(move |c| search.rows(c, sql.to_string()))?;
        Ok(rows
            .iter()
            .map(|r| Neighbor {
                key: r.get::<_, i64>(0) as u64,
                similarity: r.get(1),
            })
            .collect())
    }
}

impl VectorIndex for PgVectors {
    /// The dimension the column is typed with (0 before the first ingest).
    fn dimensions(&self) -> usize {
        self.conn
            .run(|c| async move { schema::typed_dimensions(&c).await })
            .ok()
            .flatten()
            .unwrap_or(0)
    }

    fn len(&self) -> usize {
        self.conn
            .run(|c| async move { Ok(c.query_one("SELECT count(*) FROM chunks", &[]).await?.get::<_, i64>(0)) })
            .map_or(0, |n| n.max(0) as usize)
    }

    /// Whether a chunk row holds this key (its vector is a column of the row).
    fn contains(&self, key: u64) -> bool {
        self.conn
            .run(move |c| async move {
                Ok(c.query_opt("SELECT 1 FROM chunks WHERE key = $1", &[&(key as i64)])
                    .await?
                    .is_some())
            })
            .unwrap_or(false)
    }

    fn add(&self, _key: u64, _vector: &[f32]) -> Result<()> {
        Ok(())
    }

    fn remove(&self, _key: u64) -> Result<()> {
        Ok(())
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

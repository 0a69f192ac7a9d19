//! A Spring AI `PgVectorStore` table, opened read-only: its default layout (`id` text or uuid, `content`,
//! `metadata` json, `embedding vector(N)`) becomes a library whose chunks are the table's rows, so a Spring team can
//! retrieve, judge, replay and evaluate over its own production index. Rows group into documents by Spring's
//! `parent_document_id` metadata (else `source`, `file_name`, the row id); `chunk_index` and `page_number` give their
//! place. The table is never written: runs and the judgment cache go to ragsift's own tables in a `ragsift` schema of
//! the same database, shared by the team, or to the home's SQLite file when the role may not create that schema.

mod records;
mod vectors;

use records::Records;
use vectors::SpringVectors;

use super::{Client, Conn, PgResult};
use crate::backend::{DocumentStore, StoreInfo, StoreKind};
use crate::index::VectorIndex;
use crate::sqlite::{ChunkRow, DocumentRow, NewChunk, NewPage};
use crate::{Error, Result};
use pgvector::Vector;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use tokio_postgres::Row;

/// The document a row belongs to.
const DOC: &str = "coalesce(metadata->>'parent_document_id', metadata->>'source', metadata->>'file_name', id::text)";

/// A Spring AI vector-store table as a read-only library.
pub struct SpringTable {
    shared: Arc<Shared>,
    /// Runs and judgments: the team's (a `ragsift` schema beside the table) or this client's.
    records: Records,
}

struct Shared {
    conn: Conn,
    /// `"schema"."table"`, quoted.
    table: String,
    /// As the user wrote it, for messages.
    name: String,
    /// Row ids by the vector key ragsift gives them (filled as rows are read).
    ids: Mutex<HashMap<u64, String>>,
    ef_search: usize,
}

/// ragsift's vector key for a Spring row id (text or uuid).
pub fn row_key(id: &str) -> u64 {
    ragsift_core::ids::vector_key(&ragsift_core::ids::sha256_hex(id.as_bytes()))
}

/// `schema.table` or `table`, quoted; refuses anything else.
fn quoted(name: &str) -> Result<String> {
    let part = |p: &str| {
        let ok = p.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        ok.then(|| format!("\"{p}\""))
    };
    let parts: Option<Vec<String>> = name.split('.').map(part).collect();
    match parts {
        Some(p) if (1..=2).contains(&p.len()) => Ok(p.join(".")),
        _ => Err(Error::Invalid(format!(
            "spring_table: '{name}' is not a table name (schema.table, letters, digits and _)"
        ))),
    }
}

fn read_only(name: &str) -> Error {
    Error::NotSupported(format!(
        "{name} is a Spring AI table, opened read-only: ragsift searches, judges and replays it but never writes it"
    ))
}

impl SpringTable {
    /// Opens `table` in the database at `url`, checking it has Spring's columns. Runs and judgments go to the
    /// `ragsift` schema of that database when this role can create it, else to `local_db`.
    pub fn open(url: &str, table: &str, local_db: &Path, expansion_search: usize) -> Result<Self> {
        let shared = Arc::new(Shared {
            conn: Conn::connect(url)?,
            table: quoted(table)?,
            name: table.to_string(),
            ids: Mutex::new(HashMap::new()),
            ef_search: expansion_search.clamp(1, 1000),
        });
        let (target, name) = (shared.table.clone(), table.to_string());
        let columns: Vec<String> = shared.conn.run(move |c| async move {
            let rows = c
                .query(
                    "SELECT attname::text FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 \
                     AND NOT attisdropped",
                    &[&target],
                )
                .await?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })?;
        if columns.is_empty() {
            return Err(Error::NotFound(format!(
                "no table {name} at {}",
                shared.conn.location()
            )));
        }
        for want in ["id", "content", "metadata", "embedding"] {
            if !columns.iter().any(|c| c == want) {
                return Err(Error::Invalid(format!(
                    "{name} has no column '{want}': a Spring AI PgVectorStore table has id, content, metadata, embedding"
                )));
            }
        }
        Ok(SpringTable {
            shared,
            records: Records::open(url, local_db)?,
        })
    }

    fn run<T, F, Fut>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(Client, Arc<Shared>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = PgResult<T>> + Send + 'static,
    {
        let shared = self.shared.clone();
        self.shared.conn.run(move |c| f(c, shared))
    }

    fn rows(&self, condition: &'static str, arg: Vec<String>) -> Result<Vec<ChunkRow>> {
        let rows = self.run(move |c, s| async move {
            let sql = format!(
                "SELECT id::text, coalesce(content, ''), coalesce(metadata::text, '{{}}'), {DOC}, \
                 coalesce(metadata->>'file_name', metadata->>'source', {DOC}), \
                 CASE WHEN metadata->>'chunk_index' ~ '^[0-9]{{1,9}}$' THEN (metadata->>'chunk_index')::int ELSE 0 END, \
                 CASE WHEN metadata->>'page_number' ~ '^[0-9]{{1,9}}$' THEN (metadata->>'page_number')::int ELSE 1 END \
                 FROM {} WHERE {condition}",
                s.table
            );
            Ok(c.query(&sql, &[&arg]).await?.iter().map(chunk_row).collect::<Vec<_>>())
        })?;
        let mut ids = self.shared.ids.lock().unwrap_or_else(|p| p.into_inner());
        for r in &rows {
            ids.insert(r.key, r.id.clone());
        }
        Ok(rows)
    }
}

fn chunk_row(r: &Row) -> ChunkRow {
    let (id, text): (String, String) = (r.get(0), r.get(1));
    let page = r.get::<_, i32>(6).max(1) as u32;
    ChunkRow {
        key: row_key(&id),
        document_id: r.get(3),
        document_path: r.get(3),
        document_title: r.get(4),
        index: r.get::<_, i32>(5).max(0) as u32,
        page_start: page,
        page_end: page,
        char_start: 0,
        char_end: text.chars().count() as u32,
        tokens: (text.split_whitespace().count() * 4 / 3) as u32,
        metadata: Some(r.get(2)),
        // A Spring AI table knows neither.
        section: Vec::new(),
        boxes: Vec::new(),
        id,
        text,
    }
}

impl DocumentStore for SpringTable {
    fn info(&self) -> StoreInfo {
        StoreInfo {
            kind: StoreKind::Postgres,
            location: format!(
                "{} {} (Spring AI, read-only; runs and judgments {})",
                self.shared.conn.location(),
                self.shared.name,
                match self.records {
                    Records::Shared(_) => "shared in schema ragsift",
                    Records::Local(_) => "on this machine",
                }
            ),
        }
    }

    fn read_only(&self) -> bool {
        true
    }

    fn meta(&self, _key: &str) -> Result<Option<String>> {
        Ok(None)
    }

    fn set_meta(&self, _key: &str, _value: &str) -> Result<()> {
        Err(read_only(&self.shared.name))
    }

    fn generation(&self) -> Result<u64> {
        Ok(0)
    }

    fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>> {
        Ok(self.documents()?.into_iter().find(|d| d.path == path))
    }

    fn document(&self, id: &str) -> Result<Option<DocumentRow>> {
        self.document_by_path(id)
    }

    fn documents(&self) -> Result<Vec<DocumentRow>> {
        self.run(move |c, s| async move {
            let sql = format!(
                "SELECT {DOC} AS doc, min(coalesce(metadata->>'file_name', metadata->>'source', {DOC})), \
                 coalesce(min(metadata->>'checksum'), ''), count(*)::int, \
                 max(CASE WHEN metadata->>'page_number' ~ '^[0-9]{{1,9}}$' THEN (metadata->>'page_number')::int \
                 ELSE 1 END) FROM {} GROUP BY doc ORDER BY doc",
                s.table
            );
            let rows = c.query(&sql, &[]).await?;
            Ok(rows
                .iter()
                .map(|r| DocumentRow {
                    id: r.get(0),
                    path: r.get(0),
                    title: r.get(1),
                    renamed: false,
                    kind: ragsift_core::DocumentKind::Spring,
                    checksum: r.get(2),
                    size_bytes: 0,
                    page_count: r.get::<_, Option<i32>>(4).unwrap_or(1).max(1) as u32,
                    chunk_count: r.get::<_, i32>(3).max(0) as u32,
                    warning: None,
                    embedding_model: String::new(),
                    ingested_at: 0,
                })
                .collect())
        })
    }

    fn replace_document(&self, _: &DocumentRow, _: &[NewPage], _: &[NewChunk]) -> Result<Vec<u64>> {
        Err(read_only(&self.shared.name))
    }

    fn remove_document(&self, _id: &str) -> Result<Vec<u64>> {
        Err(read_only(&self.shared.name))
    }

    fn rename_document(&self, _id: &str, _title: &str) -> Result<bool> {
        Err(read_only(&self.shared.name))
    }

    fn chunk_keys(&self) -> Result<Vec<u64>> {
        let ids: Vec<String> = self.run(move |c, s| async move {
            let rows = c.query(&format!("SELECT id::text FROM {}", s.table), &[]).await?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })?;
        Ok(ids.iter().map(|id| row_key(id)).collect())
    }

    fn for_each_vector(&self, want: &dyn Fn(u64) -> bool, f: &mut dyn FnMut(u64, &[f32]) -> Result<()>) -> Result<()> {
        let rows: Vec<(String, Vec<f32>)> = self.run(move |c, s| async move {
            let rows = c
                .query(
                    &format!(
                        "SELECT id::text, embedding FROM {} WHERE embedding IS NOT NULL",
                        s.table
                    ),
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| (r.get(0), r.get::<_, Vector>(1).to_vec()))
                .collect())
        })?;
        for (id, v) in rows {
            let key = row_key(&id);
            if want(key) {
                f(key, &v)?;
            }
        }
        Ok(())
    }

    fn chunks_by_keys(&self, keys: &[u64]) -> Result<Vec<ChunkRow>> {
        let ids: Vec<String> = {
            let known = self.shared.ids.lock().unwrap_or_else(|p| p.into_inner());
            keys.iter().filter_map(|k| known.get(k).cloned()).collect()
        };
        let mut by_key: HashMap<u64, ChunkRow> = self
            .rows("id::text = ANY($1)", ids)?
            .into_iter()
            .map(|r| (r.key, r))
            .collect();
        Ok(keys.iter().filter_map(|k| by_key.remove(k)).collect())
    }

    fn chunks_of(&self, document_id: &str) -> Result<Vec<ChunkRow>> {
        let mut rows = self.rows(
            "coalesce(metadata->>'parent_document_id', metadata->>'source', \
             metadata->>'file_name', id::text) = ANY($1)",
            vec![document_id.to_string()],
        )?;
        rows.sort_by_key(|r| (r.page_start, r.index));
        Ok(rows)
    }

    /// Spring keeps no page text: a page is its rows' contents, in order.
    fn page(&self, document_id: &str, number: u32) -> Result<Option<String>> {
        let rows: Vec<ChunkRow> = self
            .chunks_of(document_id)?
            .into_iter()
            .filter(|r| r.page_start == number)
            .collect();
        Ok((!rows.is_empty()).then(|| rows.iter().map(|r| r.text.as_str()).collect::<Vec<_>>().join("\n\n")))
    }

    fn page_is_ocr(&self, _document_id: &str, _number: u32) -> Result<bool> {
        Ok(false)
    }

    fn keyword_search(&self, query: &str, k: usize) -> Result<Vec<(u64, f32)>> {
        let Some(q) = super::documents::ts_query(query) else {
            return Ok(Vec::new());
        };
        let hits: Vec<(String, f32)> = self.run(move |c, s| async move {
            let sql = format!(
                "SELECT id::text, ts_rank(to_tsvector('simple', coalesce(content, '')), q) AS r \
                 FROM {}, to_tsquery('simple', $1) q WHERE to_tsvector('simple', coalesce(content, '')) @@ q \
                 ORDER BY r DESC, id::text LIMIT $2",
                s.table
            );
            let rows = c.query(&sql, &[&q, &(k as i64)]).await?;
            Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
        })?;
        Ok(self.shared.remember(hits))
    }

    fn term_frequency(&self, word: &str) -> Result<u64> {
        let Some(q) = super::documents::ts_query(word) else {
            return Ok(0);
        };
        self.run(move |c, s| async move {
            let sql = format!(
                "SELECT count(*) FROM {} WHERE to_tsvector('simple', coalesce(content, '')) @@ to_tsquery('simple', $1)",
                s.table
            );
            Ok(c.query_one(&sql, &[&q]).await?.get::<_, i64>(0).max(0) as u64)
        })
    }

    fn chunk_count(&self) -> Result<u64> {
        self.run(move |c, s| async move {
            let sql = format!("SELECT count(*) FROM {}", s.table);
            Ok(c.query_one(&sql, &[]).await?.get::<_, i64>(0).max(0) as u64)
        })
    }

    fn size_bytes(&self) -> Result<u64> {
        self.run(move |c, s| async move {
            let row = c
                .query_one("SELECT pg_total_relation_size(to_regclass($1))::BIGINT", &[&s.table])
                .await?;
            Ok(row.get::<_, Option<i64>>(0).unwrap_or(0).max(0) as u64)
        })
    }

    fn integrity_check(&self) -> Result<Vec<String>> {
        self.run(move |c, s| async move {
            let sql = format!(
                "SELECT count(*) FILTER (WHERE embedding IS NULL), count(*) FILTER (WHERE content IS NULL) FROM {}",
                s.table
            );
            let row = c.query_one(&sql, &[]).await?;
            let (no_vector, no_text): (i64, i64) = (row.get(0), row.get(1));
            let mut problems = Vec::new();
            if no_vector > 0 {
                problems.push(format!("{}: {no_vector} rows without an embedding", s.name));
            }
            if no_text > 0 {
                problems.push(format!("{}: {no_text} rows without content", s.name));
            }
            Ok(problems)
        })
    }

    fn vector_index(&self, _expansion_search: usize) -> Option<Box<dyn VectorIndex>> {
        Some(Box::new(SpringVectors(self.shared.clone())))
    }
}

impl Shared {
    /// Records the ids of found rows under their keys; returns (key, score).
    fn remember(&self, hits: Vec<(String, f32)>) -> Vec<(u64, f32)> {
        let mut ids = self.ids.lock().unwrap_or_else(|p| p.into_inner());
        hits.into_iter()
            .map(|(id, score)| {
                let key = row_key(&id);
                ids.insert(key, id);
                (key, score)
            })
            .collect()
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_quoted_or_refused() {
        assert_eq!(quoted("vector_store").unwrap(), "\"vector_store\"");
        assert_eq!(quoted("public.vector_store").unwrap(), "\"public\".\"vector_store\"");
        for bad in ["", "a.b.c", "x; DROP TABLE y", "1table", "a\"b"] {
            assert!(quoted(bad).is_err(), "{bad}");
        }
    }
}

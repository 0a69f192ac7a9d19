//! Documents, pages and chunks in PostgreSQL. A document is written in one transaction under an advisory lock on
//! its id, so two clients ingesting the same file at once leave it once: the second sees the first's write (same
//! checksum and model) and keeps it; otherwise it replaces the document's stale chunks in the same transaction.

use super::{schema, Client, PgResult, PgStore};
use crate::backend::{DocumentStore, StoreInfo};
use crate::index::VectorIndex;
use crate::sqlite::chunks::{from_json, to_json};
use crate::sqlite::{furniture_json, furniture_of, ChunkRow, DocumentRow, FailedFile, NewChunk, NewPage};
use crate::Result;
use pgvector::Vector;
use tokio_postgres::Row;

const DOC_COLUMNS: &str = "id, path, title, kind, checksum, size_bytes, page_count, chunk_count, warning, \
     embedding_model, ingested_at, renamed";
const CHUNK_COLUMNS: &str = "c.key, c.id, c.document_id, d.path, d.title, c.idx, c.text, c.page_start, \
     c.page_end, c.char_start, c.char_end, c.tokens, c.section, c.boxes";
const BUMP_GENERATION: &str = "INSERT INTO meta(key, value) VALUES ('generation', '1') \
     ON CONFLICT (key) DO UPDATE SET value = (meta.value::BIGINT + 1)::TEXT";

fn document_row(r: &Row) -> DocumentRow {
    DocumentRow {
        id: r.get(0),
        path: r.get(1),
        title: r.get(2),
        kind: ragsift_core::DocumentKind::from_stored(r.get(3)),
        checksum: r.get(4),
        size_bytes: r.get::<_, i64>(5) as u64,
        page_count: r.get::<_, i32>(6) as u32,
        chunk_count: r.get::<_, i32>(7) as u32,
        warning: r.get(8),
        embedding_model: r.get(9),
        ingested_at: r.get(10),
        renamed: r.get(11),
    }
}

fn chunk_row(r: &Row) -> ChunkRow {
    ChunkRow {
        key: r.get::<_, i64>(0) as u64,
        id: r.get(1),
        document_id: r.get(2),
        document_path: r.get(3),
        document_title: r.get(4),
        index: r.get::<_, i32>(5) as u32,
        text: r.get(6),
        page_start: r.get::<_, i32>(7) as u32,
        page_end: r.get::<_, i32>(8) as u32,
        char_start: r.get::<_, i32>(9) as u32,
        char_end: r.get::<_, i32>(10) as u32,
        tokens: r.get::<_, i32>(11) as u32,
        metadata: None,
        section: from_json(r.try_get::<_, String>(12).ok().as_deref()),
        boxes: from_json(r.try_get::<_, String>(13).ok().as_deref()),
    }
}

/// Keys of a document's chunks.
async fn keys_of(client: &impl deadpool_postgres::GenericClient, id: &str) -> PgResult<Vec<u64>> {
    let rows = client
        .query("SELECT key FROM chunks WHERE document_id = $1", &[&id])
        .await?;
    Ok(rows.iter().map(|r| r.get::<_, i64>(0) as u64).collect())
}

/// Words of a free-text question as a tsquery OR of quoted terms (punctuation cannot break the syntax).
pub(super) fn ts_query(query: &str) -> Option<String> {
    crate::sqlite::or_query(query, '\'', " | ")
}

async fn write_document(
    mut client: Client,
    doc: DocumentRow,
    pages: Vec<NewPage>,
    chunks: Vec<NewChunk>,
) -> PgResult<Vec<u64>> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", &[&doc.id])
        .await?;
    let existing = tx
        .query_opt(
            "SELECT checksum, embedding_model, (SELECT id FROM chunks WHERE document_id = $1 AND idx = 0) \
             FROM documents WHERE id = $1",
            &[&doc.id],
        )
        .await?;
    if let Some(row) = existing {
        let (checksum, model, first): (String, String, Option<String>) = (row.get(0), row.get(1), row.get(2));
        // The same first chunk id: the same chunk settings too (see `LibraryConfig::chunk_version`).
        if checksum == doc.checksum
            && model == doc.embedding_model
            && first.as_deref() == chunks.first().map(|c| c.id.as_str())
        {
            // Another client wrote this very version while this one was embedding it.
            tx.commit().await?;
            return Ok(Vec::new());
        }
    }
    let old = keys_of(&tx, &doc.id).await?;
    tx.execute("DELETE FROM chunks WHERE document_id = $1", &[&doc.id])
        .await?;
    tx.execute("DELETE FROM pages WHERE document_id = $1", &[&doc.id])
        .await?;
    tx.execute("DELETE FROM documents WHERE id = $1", &[&doc.id]).await?;
    tx.execute(
        "INSERT INTO documents(id, path, title, kind, checksum, size_bytes, page_count, chunk_count, warning, \
         embedding_model, ingested_at, renamed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        &[
            &doc.id,
            &doc.path,
            &doc.title,
            &doc.kind.as_str(),
            &doc.checksum,
            &(doc.size_bytes as i64),
            &(doc.page_count as i32),
            &(doc.chunk_count as i32),
            &doc.warning,
            &doc.embedding_model,
            &doc.ingested_at,
            &doc.renamed,
        ],
    )
    .await?;
    let page = tx
        .prepare("INSERT INTO pages(document_id, number, text, ocr, furniture) VALUES ($1, $2, $3, $4, $5)")
        .await?;
    for p in &pages {
        let furniture = furniture_json(&p.furniture);
        tx.execute(&page, &[&doc.id, &(p.number as i32), &p.text, &p.ocr, &furniture])
            .await?;
    }
    let chunk = tx
        .prepare(
            "INSERT INTO chunks(key, id, document_id, idx, text, text_hash, page_start, page_end, char_start, \
             char_end, tokens, embedding, section, boxes) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
             ON CONFLICT (id) DO UPDATE SET key = excluded.key, document_id = excluded.document_id, \
             idx = excluded.idx, text = excluded.text, text_hash = excluded.text_hash, \
             page_start = excluded.page_start, page_end = excluded.page_end, char_start = excluded.char_start, \
             char_end = excluded.char_end, tokens = excluded.tokens, embedding = excluded.embedding, \
             section = excluded.section, boxes = excluded.boxes",
        )
        .await?;
    for c in chunks {
        let hash = ragsift_core::ids::sha256_hex(c.text.as_bytes());
        let (section, boxes) = (to_json(&c.section), to_json(&c.boxes));
        tx.execute(
            &chunk,
            &[
                &(c.key as i64),
                &c.id,
                &doc.id,
                &(c.index as i32),
                &c.text,
                &hash,
                &(c.place.page_start as i32),
                &(c.place.page_end as i32),
                &(c.place.char_start as i32),
                &(c.place.char_end as i32),
                &(c.tokens as i32),
                &Vector::from(c.embedding),
                &section,
                &boxes,
            ],
        )
        .await?;
    }
    tx.execute(BUMP_GENERATION, &[]).await?;
    tx.commit().await?;
    Ok(old)
}

impl DocumentStore for PgStore {
    fn info(&self) -> StoreInfo {
        self.describe()
    }

    fn meta(&self, key: &str) -> Result<Option<String>> {
        let key = key.to_string();
        self.conn().run(move |c| async move {
            let row = c.query_opt("SELECT value FROM meta WHERE key = $1", &[&key]).await?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        let (key, value) = (key.to_string(), value.to_string());
        self.conn().run(move |c| async move {
            c.execute(
                "INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                &[&key, &value],
            )
            .await?;
            Ok(())
        })
    }

    fn generation(&self) -> Result<u64> {
        Ok(self.meta("generation")?.and_then(|g| g.parse().ok()).unwrap_or(0))
    }

    fn bind_dimensions(&self, dimensions: usize) -> Result<()> {
        self.conn()
            .run(move |mut c| async move { schema::bind_dimensions(&mut c, dimensions).await })
    }

    fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>> {
        let path = path.to_string();
        self.conn().run(move |c| async move {
            let sql = format!("SELECT {DOC_COLUMNS} FROM documents WHERE path = $1");
            Ok(c.query_opt(&sql, &[&path]).await?.as_ref().map(document_row))
        })
    }

    fn document(&self, id: &str) -> Result<Option<DocumentRow>> {
        let id = id.to_string();
        self.conn().run(move |c| async move {
            let sql = format!("SELECT {DOC_COLUMNS} FROM documents WHERE id = $1");
            Ok(c.query_opt(&sql, &[&id]).await?.as_ref().map(document_row))
        })
    }

    fn documents(&self) -> Result<Vec<DocumentRow>> {
        self.conn().run(move |c| async move {
            let sql = format!("SELECT {DOC_COLUMNS} FROM documents ORDER BY path");
            Ok(c.query(&sql, &[]).await?.iter().map(document_row).collect())
        })
    }

    fn replace_document(&self, doc: &DocumentRow, pages: &[NewPage], chunks: &[NewChunk]) -> Result<Vec<u64>> {
        let (doc, pages, chunks) = (doc.clone(), pages.to_vec(), chunks.to_vec());
        self.conn().run(move |c| write_document(c, doc, pages, chunks))
    }

    fn failed_file(&self, path: &str) -> Result<Option<FailedFile>> {
        let path = path.to_string();
        self.conn().run(move |c| async move {
            let row = c
                .query_opt(
                    "SELECT path, checksum, code, reason, ocr, failed_at FROM failed_files WHERE path = $1",
                    &[&path],
                )
                .await?;
            Ok(row.map(|r| FailedFile {
                path: r.get(0),
                checksum: r.get(1),
                code: r.get(2),
                reason: r.get(3),
                ocr: r.get(4),
                failed_at: r.get(5),
            }))
        })
    }

    fn put_failed_file(&self, failed: &FailedFile) -> Result<()> {
        let f = failed.clone();
        self.conn().run(move |c| async move {
            c.execute(
                "INSERT INTO failed_files(path, checksum, code, reason, ocr, failed_at) \
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (path) DO UPDATE SET checksum = excluded.checksum, \
                 code = excluded.code, reason = excluded.reason, ocr = excluded.ocr, failed_at = excluded.failed_at",
                &[&f.path, &f.checksum, &f.code, &f.reason, &f.ocr, &f.failed_at],
            )
            .await?;
            Ok(())
        })
    }

    fn forget_failed_file(&self, path: &str) -> Result<()> {
        let path = path.to_string();
        self.conn().run(move |c| async move {
            c.execute("DELETE FROM failed_files WHERE path = $1", &[&path]).await?;
            Ok(())
        })
    }

    fn remove_document(&self, id: &str) -> Result<Vec<u64>> {
        let id = id.to_string();
        self.conn().run(move |mut c| async move {
            let tx = c.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", &[&id])
                .await?;
            let keys = keys_of(&tx, &id).await?;
            tx.execute("DELETE FROM documents WHERE id = $1", &[&id]).await?;
            tx.execute(BUMP_GENERATION, &[]).await?;
            tx.commit().await?;
            Ok(keys)
        })
    }

    fn rename_document(&self, id: &str, title: &str) -> Result<bool> {
        let (id, title) = (id.to_string(), title.to_string());
        self.conn().run(move |mut c| async move {
            let tx = c.transaction().await?;
            let changed = tx
                .execute(
                    "UPDATE documents SET title = $2, renamed = TRUE WHERE id = $1",
                    &[&id, &title],
                )
                .await?;
            // Another client's Library view follows the generation.
            tx.execute(BUMP_GENERATION, &[]).await?;
            tx.commit().await?;
            Ok(changed == 1)
        })
    }

    fn chunk_keys(&self) -> Result<Vec<u64>> {
        self.conn().run(move |c| async move {
            let rows = c.query("SELECT key FROM chunks", &[]).await?;
            Ok(rows.iter().map(|r| r.get::<_, i64>(0) as u64).collect())
        })
    }

    fn for_each_vector(&self, want: &dyn Fn(u64) -> bool, f: &mut dyn FnMut(u64, &[f32]) -> Result<()>) -> Result<()> {
        let rows: Vec<(u64, Vec<f32>)> = self.conn().run(move |c| async move {
            let rows = c.query("SELECT key, embedding FROM chunks", &[]).await?;
            Ok(rows
                .iter()
                .map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, Vector>(1).to_vec()))
                .collect())
        })?;
        for (key, vector) in rows.iter().filter(|(k, _)| want(*k)) {
            f(*key, vector)?;
        }
        Ok(())
    }

    fn chunks_by_keys(&self, keys: &[u64]) -> Result<Vec<ChunkRow>> {
        let wanted: Vec<i64> = keys.iter().map(|&k| k as i64).collect();
        let rows: Vec<ChunkRow> = self.conn().run(move |c| async move {
            let sql = format!(
                "SELECT {CHUNK_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.key = ANY($1)"
            );
            Ok(c.query(&sql, &[&wanted]).await?.iter().map(chunk_row).collect())
        })?;
        let mut by_key: std::collections::HashMap<u64, ChunkRow> = rows.into_iter().map(|r| (r.key, r)).collect();
        Ok(keys.iter().filter_map(|k| by_key.remove(k)).collect())
    }

    fn chunks_of(&self, document_id: &str) -> Result<Vec<ChunkRow>> {
        let id = document_id.to_string();
        self.conn().run(move |c| async move {
            let sql = format!(
                "SELECT {CHUNK_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id \
                 WHERE c.document_id = $1 ORDER BY c.idx"
            );
            Ok(c.query(&sql, &[&id]).await?.iter().map(chunk_row).collect())
        })
    }

    fn page(&self, document_id: &str, number: u32) -> Result<Option<String>> {
        let id = document_id.to_string();
        self.conn().run(move |c| async move {
            let row = c
                .query_opt(
                    "SELECT text FROM pages WHERE document_id = $1 AND number = $2",
                    &[&id, &(number as i32)],
                )
                .await?;
            Ok(row.map(|r| r.get(0)))
        })
    }

    fn page_furniture(&self, document_id: &str, number: u32) -> Result<Vec<String>> {
        let id = document_id.to_string();
        self.conn().run(move |c| async move {
            let row = c
                .query_opt(
                    "SELECT furniture FROM pages WHERE document_id = $1 AND number = $2",
                    &[&id, &(number as i32)],
                )
                .await?;
            Ok(row.map(|r| furniture_of(&r.get::<_, String>(0))).unwrap_or_default())
        })
    }

    fn page_is_ocr(&self, document_id: &str, number: u32) -> Result<bool> {
        let id = document_id.to_string();
        self.conn().run(move |c| async move {
            let row = c
                .query_opt(
                    "SELECT ocr FROM pages WHERE document_id = $1 AND number = $2",
                    &[&id, &(number as i32)],
                )
                .await?;
            Ok(row.is_some_and(|r| r.get(0)))
        })
    }

    fn keyword_search(&self, query: &str, k: usize) -> Result<Vec<(u64, f32)>> {
        let Some(q) = ts_query(query) else {
            return Ok(Vec::new());
        };
        self.conn().run(move |c| async move {
            let rows = c
                .query(
                    "SELECT key, ts_rank(keywords, q) AS s FROM chunks, to_tsquery('simple', $1) q \
                     WHERE keywords @@ q ORDER BY s DESC, key LIMIT $2",
                    &[&q, &(k as i64)],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| (r.get::<_, i64>(0) as u64, r.get::<_, f32>(1)))
                .collect())
        })
    }

    fn term_frequency(&self, word: &str) -> Result<u64> {
        let Some(q) = ts_query(word) else {
            return Ok(0);
        };
        self.conn().run(move |c| async move {
            let row = c
                .query_one(
                    "SELECT count(*) FROM chunks WHERE keywords @@ to_tsquery('simple', $1)",
                    &[&q],
                )
                .await?;
            Ok(row.get::<_, i64>(0).max(0) as u64)
        })
    }

    fn chunk_count(&self) -> Result<u64> {
        self.conn().run(move |c| async move {
            let row = c.query_one("SELECT count(*) FROM chunks", &[]).await?;
            Ok(row.get::<_, i64>(0).max(0) as u64)
        })
    }

    fn size_bytes(&self) -> Result<u64> {
        self.conn().run(move |c| async move {
            let row = c
                .query_one(
                    "SELECT sum(pg_total_relation_size(t::regclass))::BIGINT FROM \
                     unnest(ARRAY['meta', 'documents', 'pages', 'chunks', 'judgments', 'runs']) t",
                    &[],
                )
                .await?;
            Ok(row.get::<_, Option<i64>>(0).unwrap_or(0).max(0) as u64)
        })
    }

    fn integrity_check(&self) -> Result<Vec<String>> {
        self.conn().run(move |c| async move {
            let rows = c
                .query(
                    "SELECT d.path, d.chunk_count, count(c.key) FROM documents d \
                     LEFT JOIN chunks c ON c.document_id = d.id GROUP BY d.id, d.path, d.chunk_count \
                     HAVING count(c.key) <> d.chunk_count",
                    &[],
                )
                .await?;
            Ok(rows
                .iter()
                .map(|r| {
                    let (path, want, got): (String, i32, i64) = (r.get(0), r.get(1), r.get(2));
                    format!("{path}: {got} chunks stored, {want} expected")
                })
                .collect())
        })
    }

    fn vector_index(&self, expansion_search: usize) -> Option<Box<dyn VectorIndex>> {
        Some(Box::new(super::PgVectors::new(self.conn().clone(), expansion_search)))
    }
}

#[cfg(test)]
mod tests;

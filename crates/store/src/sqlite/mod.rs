//! SQLite store: documents, pages, chunks (with their vectors) and the FTS5 keyword index, one file per library.
//! A document is written in one transaction, so the database never holds half a document. Writes take the write
//! lock up front (immediate transactions), so concurrent processes wait for each other instead of failing, and
//! every change to the chunks bumps the library's generation in the same transaction.
//!
//! Long because it is the one SQLite schema with its transactions; queries of one table live in its submodules.

pub(crate) mod chunks;
mod judgments;
pub mod keyword;
pub(crate) mod labels;
mod runs;
mod schema;

use crate::backend::{DocumentStore, StoreInfo, StoreKind};
use crate::sql::Sql;
use crate::{Error, Result};
pub(crate) use keyword::or_query;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

pub use ragsift_interfaces::store::{DocumentRow, FailedFile};

use chunks::{chunk_row, insert_chunks, CHUNK_COLUMNS};
pub use chunks::{ChunkRow, NewChunk, NewPage, PageBox};
pub use judgments::CachedJudgment;
pub use labels::{label_question_key, SpanLabel};
pub use runs::{RunOrigin, RunSummary};
pub use schema::latest_version;

/// The SQLite database of one library.
pub struct Store {
    conn: Mutex<Connection>,
    path: PathBuf,
    /// Opened read-only because the disk is full (SQLite could not make its shared-memory file): reads work,
    /// writes are refused as [`Error::DiskFull`].
    full: bool,
}

/// Below this much free space, a failed open is taken for the disk being full.
const NEARLY_FULL: u64 = 1 << 20;

/// How long a statement waits for another process's write lock before failing.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Bumps the library's generation inside a write transaction.
const BUMP_GENERATION: &str = "INSERT INTO meta(key, value) VALUES ('generation', '1') \
     ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)";

impl Store {
    /// Opens (creating if needed) the database at `path`, migrated to this build's schema. On a full disk,
    /// where SQLite cannot create its shared-memory file, an up-to-date database opens read-only.
    pub fn open(path: &Path) -> Result<Self> {
        match Self::open_writable(path) {
            Err(e) if ragsift_core::fsx::free_bytes(path).is_some_and(|free| free < NEARLY_FULL) && path.exists() => {
                Self::open_frozen(path).map_err(|_| e)
            }
            opened => opened,
        }
    }

    /// Read-only and immutable (no locks, no shared memory): only when the disk is full. A clean close leaves no
    /// write-ahead log behind, so the file holds every committed write.
    fn open_frozen(path: &Path) -> Result<Self> {
        use rusqlite::OpenFlags;
        let uri = format!("file:{}?immutable=1", path.display());
        let conn =
            Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI).sql()?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).sql()?;
        if version as usize != latest_version() {
            return Err(Error::Invalid("not at this build's schema".into()));
        }
        Ok(Store {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
            full: true,
        })
    }

    fn open_writable(path: &Path) -> Result<Self> {
        // Private (0600) from the first byte: a new file is created so before SQLite opens it (an empty file is
        // a new database), an old one is tightened. SQLite gives its -wal and -shm files the database's mode.
        if !path.exists() {
            use std::os::unix::fs::OpenOptionsExt;
            let created = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path);
            match created {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(Error::io(path, e)),
                _ => {}
            }
        }
        // Not ours to change (another user's file opened read-only): left as it is.
        let _ = ragsift_core::fsx::make_private(path);
        let mut conn = Connection::open(path).sql()?;
        // Before anything else, so a second process opening the same new file waits instead of failing.
        conn.busy_timeout(BUSY_TIMEOUT).sql()?;
        // Switching a new file to WAL can report busy without calling the busy handler while another process
        // does the same: retry for a while.
        let mut attempts = 0;
        while let Err(e) =
            conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
        {
            let busy = e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy);
            attempts += 1;
            if !busy || attempts > 500 {
                return Err(crate::sql::db(e));
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).sql()?;
        if version as usize > latest_version() {
            return Err(Error::Setup(format!(
                "{} was written by a newer ragsift (schema {version}, this build knows {})",
                path.display(),
                latest_version()
            )));
        }
        schema::migrate(&mut conn)?;
        Ok(Store {
            conn: Mutex::new(conn),
            path: path.to_path_buf(),
            full: false,
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl DocumentStore for Store {
    fn disk_full(&self) -> Option<PathBuf> {
        self.full.then(|| self.path.clone())
    }

    fn info(&self) -> StoreInfo {
        StoreInfo {
            kind: StoreKind::Sqlite,
            location: self.path.display().to_string(),
        }
    }

    fn meta(&self, key: &str) -> Result<Option<String>> {
        self.conn()
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .sql()
    }

    /// The library's generation: bumped by every write to its chunks, in the same transaction, so a process can
    /// tell cheaply whether its vector index is older than the database.
    fn generation(&self) -> Result<u64> {
        Ok(self.meta("generation")?.and_then(|g| g.parse().ok()).unwrap_or(0))
    }

    fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn()
            .execute(
                "INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, value],
            )
            .sql()?;
        Ok(())
    }

    fn document_by_path(&self, path: &str) -> Result<Option<DocumentRow>> {
        let sql = format!("SELECT {DOC_COLUMNS} FROM documents WHERE path = ?1");
        self.conn().query_row(&sql, [path], document_row).optional().sql()
    }

    fn document(&self, id: &str) -> Result<Option<DocumentRow>> {
        let sql = format!("SELECT {DOC_COLUMNS} FROM documents WHERE id = ?1");
        self.conn().query_row(&sql, [id], document_row).optional().sql()
    }

    fn documents(&self) -> Result<Vec<DocumentRow>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(&format!("SELECT {DOC_COLUMNS} FROM documents ORDER BY path"))
            .sql()?;
        let rows = stmt
            .query_map([], document_row)
            .sql()?
            .collect::<rusqlite::Result<Vec<_>>>()
            .sql()?;
        Ok(rows)
    }

    fn replace_document(&self, doc: &DocumentRow, pages: &[NewPage], chunks: &[NewChunk]) -> Result<Vec<u64>> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).sql()?;
        let old = chunk_keys_of(&tx, &doc.id)?;
        delete_document_rows(&tx, &doc.id)?;
        tx.execute(
            "INSERT INTO documents(id, path, title, kind, checksum, size_bytes, page_count, chunk_count, warning, \
             embedding_model, ingested_at, renamed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                doc.id,
                doc.path,
                doc.title,
                doc.kind.as_str(),
                doc.checksum,
                doc.size_bytes as i64,
                doc.page_count,
                doc.chunk_count,
                doc.warning,
                doc.embedding_model,
                doc.ingested_at,
                doc.renamed
            ],
        )
        .sql()?;
        {
            let mut ins = tx
                .prepare("INSERT INTO pages(document_id, number, text, ocr, furniture) VALUES (?1, ?2, ?3, ?4, ?5)")
                .sql()?;
            for p in pages {
                ins.execute(params![doc.id, p.number, p.text, p.ocr, furniture_json(&p.furniture)])
                    .sql()?;
            }
            insert_chunks(&tx, &doc.id, chunks)?;
        }
        tx.execute(BUMP_GENERATION, []).sql()?;
        tx.commit().sql()?;
        Ok(old)
    }

    fn failed_file(&self, path: &str) -> Result<Option<FailedFile>> {
        self.conn()
            .query_row(
                "SELECT path, checksum, code, reason, ocr, failed_at FROM failed_files WHERE path = ?1",
                [path],
                |r| {
                    Ok(FailedFile {
                        path: r.get(0)?,
                        checksum: r.get(1)?,
                        code: r.get(2)?,
                        reason: r.get(3)?,
                        ocr: r.get(4)?,
                        failed_at: r.get(5)?,
                    })
                },
            )
            .optional()
            .sql()
    }

    fn put_failed_file(&self, failed: &FailedFile) -> Result<()> {
        self.conn().execute(
            "INSERT INTO failed_files(path, checksum, code, reason, ocr, failed_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
             ON CONFLICT(path) DO UPDATE SET checksum = excluded.checksum, code = excluded.code, \
             reason = excluded.reason, ocr = excluded.ocr, failed_at = excluded.failed_at",
            params![
                failed.path,
                failed.checksum,
                failed.code,
                failed.reason,
                failed.ocr,
                failed.failed_at
            ],
        ).sql()?;
        Ok(())
    }

    fn forget_failed_file(&self, path: &str) -> Result<()> {
        self.conn()
            .execute("DELETE FROM failed_files WHERE path = ?1", [path])
            .sql()?;
        Ok(())
    }

    /// Deletes a document and everything of it; returns the vector keys of its chunks.
    fn remove_document(&self, id: &str) -> Result<Vec<u64>> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).sql()?;
        let keys = chunk_keys_of(&tx, id)?;
        delete_document_rows(&tx, id)?;
        tx.execute(BUMP_GENERATION, []).sql()?;
        tx.commit().sql()?;
        Ok(keys)
    }

    fn rename_document(&self, id: &str, title: &str) -> Result<bool> {
        let mut conn = self.conn();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).sql()?;
        let changed = tx
            .execute(
                "UPDATE documents SET title = ?2, renamed = 1 WHERE id = ?1",
                params![id, title],
            )
            .sql()?;
        // Another process's Library view follows the generation.
        tx.execute(BUMP_GENERATION, []).sql()?;
        tx.commit().sql()?;
        Ok(changed == 1)
    }

    /// Every chunk's vector key.
    fn chunk_keys(&self) -> Result<Vec<u64>> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT key FROM chunks").sql()?;
        let keys = stmt
            .query_map([], |r| r.get::<_, i64>(0))
            .sql()?
            .collect::<rusqlite::Result<Vec<_>>>()
            .sql()?;
        Ok(keys.into_iter().map(|k| k as u64).collect())
    }

    /// Calls `f` with each stored vector whose key passes `want` (all of them when rebuilding the index).
    fn for_each_vector(&self, want: &dyn Fn(u64) -> bool, f: &mut dyn FnMut(u64, &[f32]) -> Result<()>) -> Result<()> {
        let conn = self.conn();
        let mut stmt = conn.prepare("SELECT key, embedding FROM chunks").sql()?;
        let mut rows = stmt.query([]).sql()?;
        while let Some(row) = rows.next().sql()? {
            let key = row.get::<_, i64>(0).sql()? as u64;
            if want(key) {
                let blob: Vec<u8> = row.get(1).sql()?;
                f(key, &blob_to_vector(&blob))?;
            }
        }
        Ok(())
    }

    /// The chunks with these keys, in the order of `keys` (unknown keys are skipped).
    fn chunks_by_keys(&self, keys: &[u64]) -> Result<Vec<ChunkRow>> {
        let conn = self.conn();
        let sql =
            format!("SELECT {CHUNK_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.key = ?1");
        let mut stmt = conn.prepare(&sql).sql()?;
        let mut out = Vec::with_capacity(keys.len());
        for &k in keys {
            if let Some(row) = stmt.query_row([k as i64], chunk_row).optional().sql()? {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// The chunks of one document in order.
    fn chunks_of(&self, document_id: &str) -> Result<Vec<ChunkRow>> {
        let conn = self.conn();
        let sql = format!(
            "SELECT {CHUNK_COLUMNS} FROM chunks c JOIN documents d ON d.id = c.document_id \
             WHERE c.document_id = ?1 ORDER BY c.idx"
        );
        let mut stmt = conn.prepare(&sql).sql()?;
        let rows = stmt
            .query_map([document_id], chunk_row)
            .sql()?
            .collect::<rusqlite::Result<Vec<_>>>()
            .sql()?;
        Ok(rows)
    }

    /// The text of one page.
    fn page(&self, document_id: &str, number: u32) -> Result<Option<String>> {
        self.conn()
            .query_row(
                "SELECT text FROM pages WHERE document_id = ?1 AND number = ?2",
                params![document_id, number],
                |r| r.get(0),
            )
            .optional()
            .sql()
    }

    /// The page's furniture (a JSON array of strings in the `pages` table).
    fn page_furniture(&self, document_id: &str, number: u32) -> Result<Vec<String>> {
        let json: Option<String> = self
            .conn()
            .query_row(
                "SELECT furniture FROM pages WHERE document_id = ?1 AND number = ?2",
                params![document_id, number],
                |r| r.get(0),
            )
            .optional()
            .sql()?;
        Ok(json.map(|j| furniture_of(&j)).unwrap_or_default())
    }

    /// Whether OCR read the page's text (it has no text layer).
    fn page_is_ocr(&self, document_id: &str, number: u32) -> Result<bool> {
        Ok(self
            .conn()
            .query_row(
                "SELECT ocr FROM pages WHERE document_id = ?1 AND number = ?2",
                params![document_id, number],
                |r| r.get::<_, bool>(0),
            )
            .optional()
            .sql()?
            .unwrap_or(false))
    }

    /// BM25 keyword search: (key, score) best first, score = -bm25 so that higher is better (see [`keyword`]).
    fn keyword_search(&self, query: &str, k: usize) -> Result<Vec<(u64, f32)>> {
        keyword::search(&self.conn(), query, k)
    }

    /// How many chunks contain `word` (as the keyword index tokenises it: lower case, no stemming).
    fn term_frequency(&self, word: &str) -> Result<u64> {
        keyword::term_frequency(&self.conn(), word)
    }

    fn documents_with_word(&self, word: &str) -> Result<std::collections::BTreeSet<String>> {
        keyword::documents_with_word(&self.conn(), word)
    }

    /// Number of chunks in the library.
    fn chunk_count(&self) -> Result<u64> {
        keyword::chunk_count(&self.conn())
    }

    fn size_bytes(&self) -> Result<u64> {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        Ok([self.path.clone(), PathBuf::from(wal)]
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum())
    }

    /// SQLite's own integrity check plus the FTS index's consistency with the chunks table.
    fn integrity_check(&self) -> Result<Vec<String>> {
        let conn = self.conn();
        let mut stmt = conn.prepare("PRAGMA integrity_check").sql()?;
        let mut problems: Vec<String> = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .sql()?
            .filter_map(|r| r.ok())
            .filter(|s| s != "ok")
            .collect();
        // FTS5's check is a write statement, which a database opened read-only on a full disk refuses: there
        // SQLite's own check (which covers the index's tables) stands alone.
        if self.full {
            return Ok(problems);
        }
        if let Err(e) = conn.execute(
            "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)",
            [],
        ) {
            problems.push(format!("keyword index: {e}"));
        }
        Ok(problems)
    }
}

const DOC_COLUMNS: &str = "id, path, title, kind, checksum, size_bytes, page_count, chunk_count, warning, \
     embedding_model, ingested_at, renamed";

fn document_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<DocumentRow> {
    Ok(DocumentRow {
        id: r.get(0)?,
        path: r.get(1)?,
        title: r.get(2)?,
        kind: ragsift_core::DocumentKind::from_stored(&r.get::<_, String>(3)?),
        checksum: r.get(4)?,
        size_bytes: r.get::<_, i64>(5)? as u64,
        page_count: r.get(6)?,
        chunk_count: r.get(7)?,
        warning: r.get(8)?,
        embedding_model: r.get(9)?,
        ingested_at: r.get(10)?,
        renamed: r.get(11)?,
    })
}

fn chunk_keys_of(tx: &rusqlite::Transaction<'_>, id: &str) -> Result<Vec<u64>> {
    let mut stmt = tx.prepare("SELECT key FROM chunks WHERE document_id = ?1").sql()?;
    let keys = stmt
        .query_map([id], |r| r.get::<_, i64>(0))
        .sql()?
        .collect::<rusqlite::Result<Vec<_>>>()
        .sql()?;
    Ok(keys.into_iter().map(|k| k as u64).collect())
}

fn delete_document_rows(tx: &rusqlite::Transaction<'_>, id: &str) -> Result<()> {
    tx.execute("DELETE FROM chunks WHERE document_id = ?1", [id]).sql()?;
    tx.execute("DELETE FROM pages WHERE document_id = ?1", [id]).sql()?;
    tx.execute("DELETE FROM documents WHERE id = ?1", [id]).sql()?;
    Ok(())
}

fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn blob_to_vector(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A page's furniture as stored: a JSON array of strings.
pub(crate) fn furniture_json(furniture: &[String]) -> String {
    serde_json::to_string(furniture).unwrap_or_else(|_| "[]".into())
}

/// A page's furniture from its stored JSON (none when it does not parse).
pub(crate) fn furniture_of(json: &str) -> Vec<String> {
    serde_json::from_str(json).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_through_blobs() {
        let v = vec![0.25f32, -1.5, 3.0];
        assert_eq!(blob_to_vector(&vector_to_blob(&v)), v);
    }
}

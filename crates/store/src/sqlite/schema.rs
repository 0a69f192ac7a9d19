//! Versioned SQLite migrations: `PRAGMA user_version` counts the ones applied; each runs in its own immediate
//! transaction that re-reads the version under the write lock, so processes opening one library at once apply each
//! migration exactly once.

use crate::sql::Sql;
use crate::Result;
use rusqlite::{Connection, TransactionBehavior};

/// Migration N+1 is `MIGRATIONS[N]`. Append only: never edit one that has shipped.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE documents (
    id              TEXT PRIMARY KEY,   -- sha256 of the canonical path (identity, not content)
    path            TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    kind            TEXT NOT NULL,      -- pdf | text
    checksum        TEXT NOT NULL,      -- sha256 of the bytes: detects change
    size_bytes      INTEGER NOT NULL,
    page_count      INTEGER NOT NULL,
    chunk_count     INTEGER NOT NULL,
    warning         TEXT,
    embedding_model TEXT NOT NULL,
    ingested_at     INTEGER NOT NULL    -- unix seconds
);
CREATE TABLE pages (
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    number      INTEGER NOT NULL,
    text        TEXT NOT NULL,
    PRIMARY KEY (document_id, number)
) WITHOUT ROWID;
CREATE TABLE chunks (
    key         INTEGER PRIMARY KEY,    -- the vector key in the usearch index
    id          TEXT NOT NULL UNIQUE,   -- sha256(document id, checksum, index)
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    text        TEXT NOT NULL,
    text_hash   TEXT NOT NULL,
    page_start  INTEGER NOT NULL,
    page_end    INTEGER NOT NULL,
    char_start  INTEGER NOT NULL,
    char_end    INTEGER NOT NULL,
    tokens      INTEGER NOT NULL,
    embedding   BLOB NOT NULL           -- little-endian f32, the source of truth for the index
);
CREATE INDEX chunks_by_document ON chunks(document_id, idx);
CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='key');
CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, text) VALUES (new.key, new.text);
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.key, old.text);
END;
"#,
    r#"
-- Judgments, cached by judge + model + prompt version + question + hashes of query and passage text.
CREATE TABLE judgments (
    key           TEXT PRIMARY KEY,
    judge         TEXT NOT NULL,
    model         TEXT NOT NULL,
    answered_by   TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    question      TEXT NOT NULL,
    query_hash    TEXT NOT NULL,
    passage_hash  TEXT NOT NULL,
    probability   REAL NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    latency_ms    REAL NOT NULL,
    created_at    INTEGER NOT NULL
);
-- Runs: the whole trace of one answer, as JSON (see pipeline::Trace).
CREATE TABLE runs (
    id             TEXT PRIMARY KEY,
    created_at     INTEGER NOT NULL,
    query          TEXT NOT NULL,
    judge          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    fingerprint    TEXT NOT NULL,
    trace          TEXT NOT NULL
);
CREATE INDEX runs_by_time ON runs(created_at);
"#,
    r#"
-- Document frequencies of the keyword index's terms (IDF weights for the local judge).
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');
"#,
    r#"
-- Pages whose text OCR read from their image (no text layer).
ALTER TABLE pages ADD COLUMN ocr INTEGER NOT NULL DEFAULT 0;
"#,
    r#"
-- Who made each run (a shared library shows it).
ALTER TABLE runs ADD COLUMN made_by TEXT NOT NULL DEFAULT '';
"#,
    r#"
-- Evidence labels kept as spans: a character range of one page of one document version (its checksum), for one
-- normalised question. No foreign key: a label outlives the document's removal and re-ingest.
CREATE TABLE span_labels (
    id          TEXT PRIMARY KEY,
    question    TEXT NOT NULL,
    document_id TEXT NOT NULL,
    checksum    TEXT NOT NULL,
    page        INTEGER NOT NULL,
    char_start  INTEGER NOT NULL,
    char_end    INTEGER NOT NULL,
    text        TEXT NOT NULL,
    relevant    INTEGER NOT NULL,
    labelled_by TEXT NOT NULL,
    labelled_at INTEGER NOT NULL,
    run_id      TEXT
);
CREATE INDEX span_labels_by_question ON span_labels(question, labelled_at);
"#,
    r#"
-- Files that failed for a reason their bytes decide (encrypted, damaged, no text even by OCR), by canonical path:
-- the next ingest of the unchanged file (same checksum, same OCR set-up) reports it without reading it again.
CREATE TABLE failed_files (
    path      TEXT PRIMARY KEY,
    checksum  TEXT NOT NULL,
    code      TEXT NOT NULL,
    reason    TEXT NOT NULL,
    ocr       TEXT NOT NULL,    -- Tesseract's languages when OCR ran, '' when it did not
    failed_at INTEGER NOT NULL  -- unix seconds
);
"#,
    r#"
-- Where each chunk lies, as JSON arrays: the heading path in force where it starts, and its boxes on its pages
-- (ingest::structure::PageBox). Chunks ingested before have neither.
ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT '[]';
ALTER TABLE chunks ADD COLUMN boxes TEXT NOT NULL DEFAULT '[]';
"#,
    r#"
-- A title the user gave (a rename): kept when the file is ingested again.
ALTER TABLE documents ADD COLUMN renamed INTEGER NOT NULL DEFAULT 0;
"#,
    r#"
-- Where each run's candidates came from (library, imported, served), so lists show and filter it without reading
-- the traces; older runs take theirs from their trace.
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'library';
UPDATE runs SET origin = json_extract(trace, '$.origin')
 WHERE json_valid(trace) AND json_extract(trace, '$.origin') IN ('imported', 'served');
CREATE INDEX runs_by_origin ON runs(origin, created_at);
"#,
    r#"
-- A page's furniture (running headers and footers, page numbers, stamps), kept apart from its text as a JSON array
-- of strings; pages stored before have none.
ALTER TABLE pages ADD COLUMN furniture TEXT NOT NULL DEFAULT '[]';
"#,
];

/// Brings the database up to the latest schema.
pub fn migrate(conn: &mut Connection) -> Result<()> {
    migrate_to(conn, MIGRATIONS.len())
}

/// Applies the migrations up to schema `target` (the tests make older libraries with it).
fn migrate_to(conn: &mut Connection, target: usize) -> Result<()> {
    let version = |c: &Connection| -> Result<usize> {
        Ok(c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)).sql()? as usize)
    };
    while version(conn)? < target.min(MIGRATIONS.len()) {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).sql()?;
        // Another process may have migrated while this one waited for the lock.
        let current = version(&tx)?;
        if let Some(sql) = MIGRATIONS.get(current) {
            tx.execute_batch(sql).sql()?;
            tx.pragma_update(None, "user_version", (current + 1) as i64).sql()?;
        }
        tx.commit().sql()?;
    }
    Ok(())
}

/// The schema version this build writes.
pub fn latest_version() -> usize {
    MIGRATIONS.len()
}

#[cfg(test)]
mod tests {
    use super::super::Store;
    use crate::backend::DocumentStore;

    /// Processes opening one new library at once: each migration runs exactly once, nobody fails.
    #[test]
    fn many_connections_opening_a_new_database_at_once_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let barrier = std::sync::Barrier::new(8);
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        Store::open(&path).map(|_| ())
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap().unwrap();
            }
        });
        let store = Store::open(&path).unwrap();
        assert_eq!(store.generation().unwrap(), 0);
        assert!(store.integrity_check().unwrap().is_empty());
    }

    /// Runs stored before their origin had a column take it from their trace; any other reads as `library`.
    #[test]
    fn older_runs_take_their_origin_from_their_trace() {
        use crate::backend::RunStore;
        use crate::sqlite::RunOrigin;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        {
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            // The schema just before runs had an origin column.
            let before = (super::MIGRATIONS.iter())
                .position(|m| m.contains("ADD COLUMN origin"))
                .unwrap();
            super::migrate_to(&mut conn, before).unwrap();
            for (id, trace) in [
                ("served1", r#"{"origin":"served"}"#),
                ("import1", r#"{"origin":"imported"}"#),
                ("asked01", r#"{"run_id":"asked01"}"#),
                ("broken1", "not json"),
            ] {
                conn.execute(
                    "INSERT INTO runs(id, created_at, query, judge, prompt_version, fingerprint, trace) \
                     VALUES (?1, 1, 'q', 'local', 'v', 'fp', ?2)",
                    [id, trace],
                )
                .unwrap();
            }
        }
        let store = Store::open(&path).unwrap();
        let origins: std::collections::BTreeMap<String, RunOrigin> =
            store.runs(10).unwrap().into_iter().map(|r| (r.id, r.origin)).collect();
        assert_eq!(origins["served1"], RunOrigin::Served);
        assert_eq!(origins["import1"], RunOrigin::Imported);
        assert_eq!(origins["asked01"], RunOrigin::Library);
        assert_eq!(origins["broken1"], RunOrigin::Library);
        assert_eq!(store.delete_runs(&["served1".into(), "nope".into()]).unwrap(), 1);
        assert_eq!(store.run_count().unwrap(), 3);
    }

    /// A library written before chunks had sections and boxes (schema 7) opens, migrates in place, and its chunks
    /// read with neither; a value that is not JSON reads as empty too.
    #[test]
    fn a_library_from_before_sections_migrates_with_empty_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        {
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            super::migrate_to(&mut conn, 7).unwrap();
            conn.execute_batch(
                "INSERT INTO documents VALUES ('doc', '/old.pdf', 'old', 'pdf', 'sum', 1, 1, 2, NULL, 'm', 0); \
                 INSERT INTO pages(document_id, number, text) VALUES ('doc', 1, 'Old text.'); \
                 INSERT INTO chunks VALUES (1, 'c1', 'doc', 0, 'Old text.', 'h', 1, 1, 0, 9, 3, x'00000000'); \
                 INSERT INTO chunks VALUES (2, 'c2', 'doc', 1, 'More.', 'h', 1, 1, 0, 5, 2, x'00000000');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let version: i64 = store.conn().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version as usize, super::latest_version());
        store
            .conn()
            .execute(
                "UPDATE chunks SET section = 'not json', boxes = '[{\"page\": 1}]' WHERE key = 2",
                [],
            )
            .unwrap();
        let chunks = store.chunks_of("doc").unwrap();
        assert_eq!(chunks.len(), 2);
        for c in &chunks {
            assert!(c.section.is_empty() && c.boxes.is_empty(), "{c:?}");
        }
        assert_eq!(chunks[0].text, "Old text.");
        assert!(store.integrity_check().unwrap().is_empty());
    }
}

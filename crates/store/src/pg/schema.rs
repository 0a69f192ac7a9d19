//! Versioned PostgreSQL migrations: `ragsift_schema.version` counts the ones applied. They run on open, in one
//! transaction under an advisory lock, so clients opening one new library at once apply each exactly once.

use super::{Client, PgResult};
use crate::Error;

/// Any fixed key: the advisory lock that serialises migrations of one database.
const MIGRATION_LOCK: i64 = 0x7261_6773_6966_7401;

/// Migration N+1 is `MIGRATIONS[N]`. Append only: never edit one that has shipped.
pub(crate) const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE documents (
    id              TEXT PRIMARY KEY,
    path            TEXT NOT NULL UNIQUE,
    title           TEXT NOT NULL,
    kind            TEXT NOT NULL,
    checksum        TEXT NOT NULL,
    size_bytes      BIGINT NOT NULL,
    page_count      INTEGER NOT NULL,
    chunk_count     INTEGER NOT NULL,
    warning         TEXT,
    embedding_model TEXT NOT NULL,
    ingested_at     BIGINT NOT NULL
);
CREATE TABLE pages (
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    number      INTEGER NOT NULL,
    text        TEXT NOT NULL,
    ocr         BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (document_id, number)
);
-- The vector column is typed vector(N), and its HNSW index built, on the first ingest (bind_dimensions).
CREATE TABLE chunks (
    key         BIGINT PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    idx         INTEGER NOT NULL,
    text        TEXT NOT NULL,
    text_hash   TEXT NOT NULL,
    page_start  INTEGER NOT NULL,
    page_end    INTEGER NOT NULL,
    char_start  INTEGER NOT NULL,
    char_end    INTEGER NOT NULL,
    tokens      INTEGER NOT NULL,
    embedding   vector NOT NULL,
    keywords    tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED
);
CREATE INDEX chunks_by_document ON chunks(document_id, idx);
CREATE INDEX chunks_keywords ON chunks USING gin(keywords);
CREATE TABLE judgments (
    key            TEXT PRIMARY KEY,
    judge          TEXT NOT NULL,
    model          TEXT NOT NULL,
    answered_by    TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    question       TEXT NOT NULL,
    query_hash     TEXT NOT NULL,
    passage_hash   TEXT NOT NULL,
    probability    DOUBLE PRECISION NOT NULL,
    input_tokens   INTEGER NOT NULL,
    output_tokens  INTEGER NOT NULL,
    latency_ms     DOUBLE PRECISION NOT NULL,
    created_at     BIGINT NOT NULL
);
CREATE TABLE runs (
    id             TEXT PRIMARY KEY,
    created_at     BIGINT NOT NULL,
    query          TEXT NOT NULL,
    judge          TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    fingerprint    TEXT NOT NULL,
    trace          TEXT NOT NULL
);
CREATE INDEX runs_by_time ON runs(created_at);
"#,
    r#"
ALTER TABLE runs ADD COLUMN made_by TEXT NOT NULL DEFAULT '';
"#,
    r#"
CREATE TABLE span_labels (
    id          TEXT PRIMARY KEY,
    question    TEXT NOT NULL,
    document_id TEXT NOT NULL,
    checksum    TEXT NOT NULL,
    page        INTEGER NOT NULL,
    char_start  INTEGER NOT NULL,
    char_end    INTEGER NOT NULL,
    text        TEXT NOT NULL,
    relevant    BOOLEAN NOT NULL,
    labelled_by TEXT NOT NULL,
    labelled_at BIGINT NOT NULL,
    run_id      TEXT
);
CREATE INDEX span_labels_by_question ON span_labels(question, labelled_at);
"#,
    r#"
CREATE TABLE failed_files (
    path      TEXT PRIMARY KEY,
    checksum  TEXT NOT NULL,
    code      TEXT NOT NULL,
    reason    TEXT NOT NULL,
    ocr       TEXT NOT NULL,
    failed_at BIGINT NOT NULL
);
"#,
    r#"
-- The chunk's heading path and its boxes on its pages, as JSON arrays (as in SQLite); older chunks have neither.
ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT '[]';
ALTER TABLE chunks ADD COLUMN boxes TEXT NOT NULL DEFAULT '[]';
"#,
    r#"
-- A title the user gave (a rename): kept when the file is ingested again.
ALTER TABLE documents ADD COLUMN renamed BOOLEAN NOT NULL DEFAULT FALSE;
"#,
    r#"
ALTER TABLE runs ADD COLUMN origin TEXT NOT NULL DEFAULT 'library';
UPDATE runs SET origin = trace::jsonb ->> 'origin' WHERE trace::jsonb ->> 'origin' IN ('imported', 'served');
CREATE INDEX runs_by_origin ON runs(origin, created_at);
"#,
    r#"
-- A page's furniture (running headers and footers, page numbers, stamps) as a JSON array, as in SQLite.
ALTER TABLE pages ADD COLUMN furniture TEXT NOT NULL DEFAULT '[]';
"#,
];

/// Brings the database up to the latest schema. pgvector must be installed on the server; creating the extension
/// needs a privileged role once (`CREATE EXTENSION vector`), after which any role with `CREATE` on the schema can
/// open libraries.
pub(crate) async fn migrate(client: &mut Client) -> PgResult<()> {
    let has_vector = client
        .query_opt("SELECT 1 FROM pg_extension WHERE extname = 'vector'", &[])
        .await?
        .is_some();
    if !has_vector {
        if let Err(e) = client.batch_execute("CREATE EXTENSION IF NOT EXISTS vector").await {
            return Err(Error::Setup(format!(
                "pgvector is not enabled in this database and this role cannot enable it ({}): ask an administrator \
                 to run CREATE EXTENSION vector",
                e.as_db_error()
                    .map(|d| d.message().to_string())
                    .unwrap_or_else(|| e.to_string())
            ))
            .into());
        }
    }
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS ragsift_schema (version INTEGER NOT NULL)")
        .await?;
    let version: i32 = match tx.query_opt("SELECT version FROM ragsift_schema", &[]).await? {
        Some(row) => row.get(0),
        None => {
            tx.execute("INSERT INTO ragsift_schema(version) VALUES (0)", &[])
                .await?;
            0
        }
    };
    let version = version.max(0) as usize;
    if version > MIGRATIONS.len() {
        return Err(Error::Setup(format!(
            "this library was written by a newer ragsift (schema {version}, this build knows {})",
            MIGRATIONS.len()
        ))
        .into());
    }
    for sql in &MIGRATIONS[version..] {
        tx.batch_execute(sql).await?;
    }
    tx.execute("UPDATE ragsift_schema SET version = $1", &[&(MIGRATIONS.len() as i32)])
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Types the vector column as `vector(dimensions)` and builds its HNSW index (cosine), once; refuses another
/// dimension later.
pub(crate) async fn bind_dimensions(client: &mut Client, dimensions: usize) -> PgResult<()> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    let current = typed_dimensions(&tx).await?;
    match current {
        Some(d) if d == dimensions => {}
        Some(d) => {
            return Err(Error::Invalid(format!(
                "this library holds {d}-dimensional vectors, the embedding model makes {dimensions}"
            ))
            .into())
        }
        None => {
            tx.batch_execute(&format!(
                "ALTER TABLE chunks ALTER COLUMN embedding TYPE vector({dimensions}); \
                 CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops);"
            ))
            .await?;
        }
    }
    tx.commit().await?;
    Ok(())
}

/// The dimension the vector column is typed with, if it is.
pub(crate) async fn typed_dimensions(client: &impl deadpool_postgres::GenericClient) -> PgResult<Option<usize>> {
    let row = client
        .query_one(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'",
            &[],
        )
        .await?;
    let typmod: i32 = row.get(0);
    Ok((typmod > 0).then_some(typmod as usize))
}

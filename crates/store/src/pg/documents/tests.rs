//! Sections, boxes and renames in PostgreSQL: written and read as in SQLite, a library from before them (schema 4)
//! migrates in place with empty ones, and a stored value that does not read is empty.

use crate::backend::DocumentStore;
use crate::pg::cluster::TestCluster;
use crate::pg::PgStore;
use crate::sqlite::chunks::tests::{a_rename_round_trips, sections_and_boxes_round_trip};

#[test]
fn sections_and_boxes_round_trip_and_older_libraries_migrate_in_postgres() {
    let Some(cluster) = TestCluster::start_or_skip() else {
        return;
    };
    let url = cluster.create_database("sections").unwrap();
    sections_and_boxes_round_trip(&PgStore::open(&url).unwrap());
    a_rename_round_trips(&PgStore::open(&cluster.create_database("rename").unwrap()).unwrap());

    // Back to schema 4, as a library written before chunks had sections: the columns gone, the rows kept.
    cluster
        .psql(
            "sections",
            "ALTER TABLE chunks DROP COLUMN section, DROP COLUMN boxes; ALTER TABLE documents DROP COLUMN renamed; \
             DROP INDEX runs_by_origin; ALTER TABLE runs DROP COLUMN origin; ALTER TABLE pages DROP COLUMN furniture; \
             UPDATE ragsift_schema SET version = 4",
        )
        .unwrap();
    let store = PgStore::open(&url).unwrap();
    assert_eq!(
        cluster
            .psql("sections", "SELECT version FROM ragsift_schema")
            .unwrap()
            .trim(),
        crate::pg::schema::MIGRATIONS.len().to_string()
    );
    assert!(!store.document("doc").unwrap().unwrap().renamed);
    let chunks = store.chunks_of("doc").unwrap();
    assert_eq!(chunks.len(), 2);
    assert!(
        chunks.iter().all(|c| c.section.is_empty() && c.boxes.is_empty()),
        "{chunks:?}"
    );

    cluster
        .psql(
            "sections",
            "UPDATE chunks SET section = 'not json', boxes = '{\"page\": 1}'",
        )
        .unwrap();
    let chunk = &store.chunks_by_keys(&[100]).unwrap()[0];
    assert!(chunk.section.is_empty() && chunk.boxes.is_empty(), "{chunk:?}");
}

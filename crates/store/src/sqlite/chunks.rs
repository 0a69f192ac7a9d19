//! Chunk rows in SQLite: what ingest writes (`NewChunk`), what a read returns (`ChunkRow`), and the section path and
//! page boxes both carry as JSON arrays in TEXT columns (PostgreSQL stores them the same way): a value that does
//! not read as its type reads as empty, never as an error, so a damaged or hand-edited row still loads.

use crate::sql::Sql;
use rusqlite::params;
use serde::de::DeserializeOwned;
use serde::Serialize;

pub use ragsift_core::PageBox;
pub use ragsift_interfaces::store::{ChunkRow, NewChunk, NewPage};

/// A section path or box list as its stored JSON array.
pub(crate) fn to_json<T: Serialize>(items: &[T]) -> String {
    serde_json::to_string(items).unwrap_or_else(|_| "[]".into())
}

/// A stored JSON array back as values; anything that is not one (no value, bad JSON, wrong shape) is empty.
pub(crate) fn from_json<T: DeserializeOwned>(json: Option<&str>) -> Vec<T> {
    json.and_then(|j| serde_json::from_str(j).ok()).unwrap_or_default()
}

/// The columns [`chunk_row`] reads, of `chunks c JOIN documents d`.
pub(super) const CHUNK_COLUMNS: &str = "c.key, c.id, c.document_id, d.path, d.title, c.idx, c.text, c.page_start, \
     c.page_end, c.char_start, c.char_end, c.tokens, c.section, c.boxes";

pub(super) fn chunk_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRow> {
    let json = |i: usize| r.get::<_, Option<String>>(i).ok().flatten();
    Ok(ChunkRow {
        key: r.get::<_, i64>(0)? as u64,
        id: r.get(1)?,
        document_id: r.get(2)?,
        document_path: r.get(3)?,
        document_title: r.get(4)?,
        index: r.get(5)?,
        text: r.get(6)?,
        page_start: r.get(7)?,
        page_end: r.get(8)?,
        char_start: r.get(9)?,
        char_end: r.get(10)?,
        tokens: r.get(11)?,
        metadata: None,
        section: from_json(json(12).as_deref()),
        boxes: from_json(json(13).as_deref()),
    })
}

/// Writes a document's chunks (inside the caller's transaction).
pub(super) fn insert_chunks(
    tx: &rusqlite::Transaction<'_>,
    document_id: &str,
    chunks: &[NewChunk],
) -> crate::Result<()> {
    let mut ins = tx
        .prepare(
            "INSERT INTO chunks(key, id, document_id, idx, text, text_hash, page_start, page_end, char_start, \
         char_end, tokens, embedding, section, boxes) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        )
        .sql()?;
    for c in chunks {
        ins.execute(params![
            c.key as i64,
            c.id,
            document_id,
            c.index as i64,
            c.text,
            ragsift_core::ids::sha256_hex(c.text.as_bytes()),
            c.place.page_start,
            c.place.page_end,
            c.place.char_start,
            c.place.char_end,
            c.tokens as i64,
            super::vector_to_blob(&c.embedding),
            to_json(&c.section),
            to_json(&c.boxes)
        ])
        .sql()?;
    }
    Ok(())
}

/// Shared by the SQLite and PostgreSQL tests: a document whose chunks carry sections and boxes reads them back
/// from both lookups, and a chunk without either reads empty.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::backend::DocumentStore;
    use crate::sqlite::DocumentRow;
    use ragsift_core::ChunkPlace;

    fn page_box(page: u32, y0: f32) -> PageBox {
        PageBox {
            page,
            x0: 0.1,
            y0,
            x1: 0.45,
            y1: y0 + 0.2,
        }
    }

    /// Two chunks, the first with a section and boxes on two pages, the second with neither.
    pub(crate) fn chunks() -> Vec<NewChunk> {
        let chunk = |i: usize, section: Vec<String>, boxes: Vec<PageBox>| NewChunk {
            key: 100 + i as u64,
            id: format!("chunk-{i}"),
            index: i,
            text: format!("Chunk {i} of the inverter manual."),
            place: ChunkPlace {
                page_start: 1,
                page_end: 2,
                char_start: 0,
                char_end: 30,
            },
            tokens: 8,
            section,
            boxes,
            embedding: vec![0.5; 4],
        };
        vec![
            chunk(
                0,
                vec!["3 Method".into(), "3.2 Training › losses".into()],
                vec![page_box(1, 0.6), page_box(2, 0.05)],
            ),
            chunk(1, Vec::new(), Vec::new()),
        ]
    }

    pub(crate) fn document() -> DocumentRow {
        DocumentRow {
            id: "doc".into(),
            path: "/manual.pdf".into(),
            title: "manual".into(),
            renamed: false,
            kind: ragsift_core::DocumentKind::Pdf,
            checksum: "0".repeat(64),
            size_bytes: 1,
            page_count: 2,
            chunk_count: 2,
            warning: None,
            embedding_model: "m".into(),
            ingested_at: 0,
        }
    }

    pub(crate) fn sections_and_boxes_round_trip(store: &dyn DocumentStore) {
        let page = |number: u32, text: &str, furniture: &[&str]| NewPage {
            number,
            text: text.into(),
            ocr: false,
            furniture: furniture.iter().map(|s| s.to_string()).collect(),
        };
        let pages = [page(1, "one", &["SLUSA75B – JULY 2010", "1"]), page(2, "two", &[])];
        let written = chunks();
        store.replace_document(&document(), &pages, &written).unwrap();
        // A page's furniture comes back as it went in, apart from its text.
        assert_eq!(store.page_furniture("doc", 1).unwrap(), pages[0].furniture);
        assert_eq!(store.page("doc", 1).unwrap().as_deref(), Some("one"));
        assert!(store.page_furniture("doc", 2).unwrap().is_empty());
        assert!(store.page_furniture("doc", 9).unwrap().is_empty());
        let by_document = store.chunks_of("doc").unwrap();
        let by_key = store.chunks_by_keys(&[101, 100]).unwrap();
        assert_eq!(by_document.len(), 2);
        for (row, want) in by_document.iter().zip(&written) {
            assert_eq!((&row.section, &row.boxes), (&want.section, &want.boxes), "{}", row.id);
        }
        assert_eq!(by_key[1], by_document[0]);
        assert_eq!(by_key[0], by_document[1]);
        assert_eq!(by_key[1].boxes[1].page, 2);
    }

    /// A rename changes the title the document and its chunks are listed under, marks it renamed, and misses
    /// an unknown id.
    pub(crate) fn a_rename_round_trips(store: &dyn DocumentStore) {
        let pages = [1, 2].map(|number| NewPage {
            number,
            text: "page".into(),
            ..NewPage::default()
        });
        store.replace_document(&document(), &pages, &chunks()).unwrap();
        assert!(!store.document("doc").unwrap().unwrap().renamed);
        assert!(store.rename_document("doc", "DeltaT User's Guide").unwrap());
        let doc = store.document("doc").unwrap().unwrap();
        assert_eq!((doc.title.as_str(), doc.renamed), ("DeltaT User's Guide", true));
        assert_eq!(store.documents().unwrap(), vec![doc.clone()]);
        assert_eq!(store.document_by_path("/manual.pdf").unwrap(), Some(doc));
        let titles: Vec<String> = (store.chunks_of("doc").unwrap().into_iter())
            .map(|c| c.document_title)
            .collect();
        assert_eq!(titles, ["DeltaT User's Guide", "DeltaT User's Guide"]);
        assert!(!store.rename_document("missing", "x").unwrap());
    }

    #[test]
    fn sections_and_boxes_round_trip_in_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::sqlite::Store::open(&dir.path().join("db.sqlite")).unwrap();
        sections_and_boxes_round_trip(&store);
        let other = crate::sqlite::Store::open(&dir.path().join("other.sqlite")).unwrap();
        a_rename_round_trips(&other);
    }

    #[test]
    fn a_stored_value_that_does_not_read_is_empty() {
        assert_eq!(from_json::<String>(None), Vec::<String>::new());
        assert!(from_json::<String>(Some("not json")).is_empty());
        assert!(from_json::<String>(Some("{\"a\": 1}")).is_empty());
        assert!(from_json::<PageBox>(Some("[{\"page\": \"one\"}]")).is_empty());
        let boxes = vec![page_box(3, 0.25)];
        assert_eq!(from_json::<PageBox>(Some(&to_json(&boxes))), boxes);
        assert_eq!(to_json::<String>(&[]), "[]");
    }
}

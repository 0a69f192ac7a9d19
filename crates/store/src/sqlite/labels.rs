//! Evidence labels kept as spans: for one question, a character range of one page of one document version (its
//! checksum), relevant evidence or not, with who labelled it and when. Chunks are matched against the spans when a
//! run is read, so the labels survive re-chunking.

use super::Store;
use crate::backend::LabelStore;
use crate::sql::Sql;
use crate::Result;
pub use ragsift_interfaces::store::SpanLabel;
use rusqlite::params;

/// A question as labels key it: trimmed, every run of whitespace one space, case-folded.
pub fn label_question_key(question: &str) -> String {
    question.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

pub(crate) const LABEL_COLUMNS: &str = "id, question, document_id, checksum, page, char_start, char_end, text, \
     relevant, labelled_by, labelled_at, run_id";

fn label_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SpanLabel> {
    Ok(SpanLabel {
        id: r.get(0)?,
        question: r.get(1)?,
        document_id: r.get(2)?,
        checksum: r.get(3)?,
        page: r.get(4)?,
        char_start: r.get(5)?,
        char_end: r.get(6)?,
        text: r.get(7)?,
        relevant: r.get(8)?,
        labelled_by: r.get(9)?,
        labelled_at: r.get(10)?,
        run_id: r.get(11)?,
    })
}

impl LabelStore for Store {
    fn put_label(&self, l: &SpanLabel) -> Result<()> {
        self.conn()
            .execute(
                &format!(
                    "INSERT OR REPLACE INTO span_labels({LABEL_COLUMNS}) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                ),
                params![
                    l.id,
                    l.question,
                    l.document_id,
                    l.checksum,
                    l.page,
                    l.char_start,
                    l.char_end,
                    l.text,
                    l.relevant,
                    l.labelled_by,
                    l.labelled_at,
                    l.run_id
                ],
            )
            .sql()?;
        Ok(())
    }

    fn label(&self, id: &str) -> Result<Option<SpanLabel>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {LABEL_COLUMNS} FROM span_labels WHERE substr(id, 1, length(?1)) = ?1 LIMIT 2"
            ))
            .sql()?;
        let rows: Vec<SpanLabel> = stmt
            .query_map([id], label_row)
            .sql()?
            .collect::<rusqlite::Result<_>>()
            .sql()?;
        Ok(if rows.len() == 1 { rows.into_iter().next() } else { None })
    }

    fn labels(&self, question: Option<&str>) -> Result<Vec<SpanLabel>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {LABEL_COLUMNS} FROM span_labels WHERE ?1 IS NULL OR question = ?1 \
             ORDER BY labelled_at, question, checksum, page, char_start, id"
            ))
            .sql()?;
        let rows = stmt
            .query_map([question], label_row)
            .sql()?
            .collect::<rusqlite::Result<Vec<_>>>()
            .sql()?;
        Ok(rows)
    }

    fn remove_label(&self, id: &str) -> Result<bool> {
        Ok(self
            .conn()
            .execute("DELETE FROM span_labels WHERE id = ?1", [id])
            .sql()?
            > 0)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A label of `question` on page `page`, `[start, end)`.
    pub(crate) fn label(question: &str, page: u32, start: u32, end: u32, relevant: bool) -> SpanLabel {
        let question = label_question_key(question);
        SpanLabel {
            id: SpanLabel::make_id(&question, "sum", page, start, end),
            question,
            document_id: "doc".into(),
            checksum: "sum".into(),
            page,
            char_start: start,
            char_end: end,
            text: "quoted ‘text’".into(),
            relevant,
            labelled_by: "ana".into(),
            labelled_at: 1_700_000_000 + i64::from(start),
            run_id: Some("run1".into()),
        }
    }

    /// The same checks on any store: put, replace, list by question, prefix lookup, remove.
    pub(crate) fn labels_round_trip(store: &dyn LabelStore) {
        let a = label("  How long is\tthe WARRANTY? ", 1, 10, 40, true);
        let b = label("how long is the warranty?", 2, 0, 5, false);
        let other = label("Who pays?", 1, 10, 40, true);
        assert_eq!(a.question, "how long is the warranty?");
        for l in [&a, &b, &other] {
            store.put_label(l).unwrap();
        }
        assert_eq!(store.labels(None).unwrap().len(), 3);
        assert_eq!(store.labels(Some(&a.question)).unwrap(), vec![b.clone(), a.clone()]);
        assert!(store.labels(Some("nobody asked")).unwrap().is_empty());
        // The same span labelled again replaces it (editable polarity), keeping one row.
        let flipped = SpanLabel {
            relevant: false,
            ..a.clone()
        };
        store.put_label(&flipped).unwrap();
        assert_eq!(store.labels(Some(&a.question)).unwrap().len(), 2);
        assert_eq!(store.label(&a.id).unwrap(), Some(flipped));
        assert_eq!(store.label(&a.id[..8]).unwrap().map(|l| l.id), Some(a.id.clone()));
        assert!(store.label("zz").unwrap().is_none());
        assert!(store.remove_label(&a.id).unwrap());
        assert!(!store.remove_label(&a.id).unwrap());
        assert_eq!(store.labels(Some(&a.question)).unwrap(), vec![b]);
        assert_eq!(
            other.run_id.as_deref(),
            store.label(&other.id).unwrap().unwrap().run_id.as_deref()
        );
    }

    #[test]
    fn labels_round_trip_in_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
        labels_round_trip(&store);
        // They survive reopening and the removal of the document they were labelled on.
        store.put_label(&label("q", 1, 0, 3, true)).unwrap();
        drop(store);
        let store = Store::open(&dir.path().join("db.sqlite")).unwrap();
        assert_eq!(store.labels(Some("q")).unwrap().len(), 1);
    }

    #[test]
    fn questions_normalise_whitespace_and_case() {
        assert_eq!(label_question_key(" What  IS\n it? "), "what is it?");
        assert_eq!(label_question_key("Straße"), "straße");
    }
}

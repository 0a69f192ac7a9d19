//! Evidence labels kept as spans in PostgreSQL: shared by every client of the library, like its runs.

use super::PgStore;
use crate::backend::LabelStore;
use crate::sqlite::labels::LABEL_COLUMNS;
use crate::sqlite::SpanLabel;
use crate::Result;
use tokio_postgres::Row;

fn label_row(r: &Row) -> SpanLabel {
    SpanLabel {
        id: r.get(0),
        question: r.get(1),
        document_id: r.get(2),
        checksum: r.get(3),
        page: r.get::<_, i32>(4).max(0) as u32,
        char_start: r.get::<_, i32>(5).max(0) as u32,
        char_end: r.get::<_, i32>(6).max(0) as u32,
        text: r.get(7),
        relevant: r.get(8),
        labelled_by: r.get(9),
        labelled_at: r.get(10),
        run_id: r.get(11),
    }
}

/// A `u32` as PostgreSQL's `integer` (page numbers and character offsets stay far below 2^31).
fn int(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

impl LabelStore for PgStore {
    fn put_label(&self, label: &SpanLabel) -> Result<()> {
        let l = label.clone();
        self.conn().run(move |c| async move {
            c.execute(
                &format!(
                    "INSERT INTO span_labels({LABEL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
                     $12) ON CONFLICT (id) DO UPDATE SET question = excluded.question, \
                     document_id = excluded.document_id, checksum = excluded.checksum, page = excluded.page, \
                     char_start = excluded.char_start, char_end = excluded.char_end, text = excluded.text, \
                     relevant = excluded.relevant, labelled_by = excluded.labelled_by, \
                     labelled_at = excluded.labelled_at, run_id = excluded.run_id"
                ),
                &[
                    &l.id,
                    &l.question,
                    &l.document_id,
                    &l.checksum,
                    &int(l.page),
                    &int(l.char_start),
                    &int(l.char_end),
                    &l.text,
                    &l.relevant,
                    &l.labelled_by,
                    &l.labelled_at,
                    &l.run_id,
                ],
            )
            .await?;
            Ok(())
        })
    }

    fn label(&self, id: &str) -> Result<Option<SpanLabel>> {
        let id = id.to_string();
        self.conn().run(move |c| async move {
            let rows = c
                .query(
                    &format!("SELECT {LABEL_COLUMNS} FROM span_labels WHERE left(id, length($1)) = $1 LIMIT 2"),
                    &[&id],
                )
                .await?;
            Ok(if rows.len() == 1 {
                Some(label_row(&rows[0]))
            } else {
                None
            })
        })
    }

    fn labels(&self, question: Option<&str>) -> Result<Vec<SpanLabel>> {
        let question = question.map(str::to_string);
        self.conn().run(move |c| async move {
            let rows = c
                .query(
                    &format!(
                        "SELECT {LABEL_COLUMNS} FROM span_labels WHERE $1::text IS NULL OR question = $1 \
                         ORDER BY labelled_at, question, checksum, page, char_start, id"
                    ),
                    &[&question],
                )
                .await?;
            Ok(rows.iter().map(label_row).collect())
        })
    }

    fn remove_label(&self, id: &str) -> Result<bool> {
        let id = id.to_string();
        self.conn()
            .run(move |c| async move { Ok(c.execute("DELETE FROM span_labels WHERE id = $1", &[&id]).await? > 0) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pg::cluster::TestCluster;

    #[test]
    fn labels_round_trip_in_postgres() {
        let Some(cluster) = TestCluster::start_or_skip() else {
            return;
        };
        let url = cluster.create_database("labels").unwrap();
        let store = PgStore::open(&url).unwrap();
        crate::sqlite::labels::tests::labels_round_trip(&store);
    }
}

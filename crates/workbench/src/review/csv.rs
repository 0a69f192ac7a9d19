//! The labels file: rag-jev's review export as RFC 4180 CSV (every field quoted, as its review page writes it),
//! and a reader for it that takes quoted commas, quotes and line breaks, LF or CRLF, and a leading BOM.

use super::{AnswerLabel, ReviewLabel, ReviewPacket};

/// The columns, in order: rag-jev's (`item_id` for its `case_id`), after the packet the labels are for.
pub const COLUMNS: [&str; 7] = [
    "packet_id",
    "item_id",
    "anonymous_answer",
    "reviewer",
    "semantically_correct",
    "ambiguous_question_or_reference",
    "notes",
];

/// The labels CSV for `packet`: a row per anonymous answer, in packet order, with what `labels` entered for it
/// (the first label naming it; labels naming no answer of the packet are left out) and empty fields otherwise.
/// The reviewer is written only with a label, as rag-jev's page does.
pub fn review_csv(packet: &ReviewPacket, labels: &[ReviewLabel]) -> String {
    let mut out = String::new();
    write_record(&mut out, &COLUMNS);
    for item in &packet.items {
        for side in AnswerLabel::BOTH {
            let label = (labels.iter()).find(|l| l.item_id == item.item_id && l.anonymous_answer == side);
            let verdict = |v: Option<super::Verdict>| v.map(|v| v.as_str()).unwrap_or_default();
            let (reviewer, correct, ambiguous, notes) = match label {
                Some(l) => {
                    let entered = l.semantically_correct.is_some() || l.ambiguous_question_or_reference.is_some();
                    (
                        if entered { l.reviewer.trim() } else { "" },
                        verdict(l.semantically_correct),
                        verdict(l.ambiguous_question_or_reference),
                        l.notes.as_str(),
                    )
                }
                None => ("", "", "", ""),
            };
            write_record(
                &mut out,
                &[
                    &packet.packet_id,
                    &item.item_id,
                    side.as_str(),
                    reviewer,
                    correct,
                    ambiguous,
                    notes,
                ],
            );
        }
    }
    out
}

/// Characters that make a spreadsheet read a cell as a formula when they lead it.
const FORMULA_LEAD: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Whether [`write_record`] writes `field` with a leading `'`: formula text, or text that already looks defused.
fn defused(field: &str) -> bool {
    field.starts_with(FORMULA_LEAD) || (field.starts_with('\'') && field[1..].starts_with(FORMULA_LEAD))
}

/// One record, every field quoted (`"` doubled), ended by LF. A field a spreadsheet would run as a formula
/// (leading `=`, `+`, `-`, `@`, tab or CR) is written with a leading `'`, which [`parse`] takes off again.
pub(super) fn write_record(out: &mut String, fields: &[&str]) {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        if defused(f) {
            out.push('\'');
        }
        out.push_str(&f.replace('"', "\"\""));
        out.push('"');
    }
    out.push('\n');
}

/// RFC 4180 records with the line each starts on (1-based). Blank lines are skipped; a quote inside an unquoted
/// field, text after a closing quote, or an unterminated quoted field is an error naming its line.
pub(super) fn parse(text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let (mut line, mut start, mut quote_line) = (1, 1, 1);
    // `quoted`: inside quotes; `closed`: the field's quotes have closed (only a separator may follow).
    let (mut quoted, mut closed) = (false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => (quoted, closed) = (false, true),
                _ => {
                    line += usize::from(c == '\n');
                    field.push(c);
                }
            }
            continue;
        }
        match c {
            ',' => {
                record.push(std::mem::take(&mut field));
                closed = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                record.push(std::mem::take(&mut field));
                if !(record.len() == 1 && record[0].is_empty() && !closed) {
                    records.push((start, std::mem::take(&mut record)));
                }
                record.clear();
                closed = false;
                line += 1;
                start = line;
            }
            _ if closed => return Err(format!("line {line}: text after a closing quote")),
            '"' if field.is_empty() => {
                quoted = true;
                quote_line = line;
            }
            '"' => return Err(format!("line {line}: a quote inside an unquoted field")),
            _ => field.push(c),
        }
    }
    if quoted {
        return Err(format!("line {quote_line}: a quoted field is never closed"));
    }
    if !field.is_empty() || !record.is_empty() || closed {
        record.push(field);
        records.push((start, record));
    }
    for (_, record) in &mut records {
        for field in record.iter_mut() {
            if field.starts_with('\'') && defused(&field[1..]) {
                field.remove(0);
            }
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::super::blind::tests::files;
    use super::super::Verdict;
    use super::*;

    /// Formula text never reaches a spreadsheet as a formula, and reads back as it was written.
    #[test]
    fn formula_text_is_defused_and_reads_back_unchanged() {
        let fields = ["=HYPERLINK(\"http://x\")", "+1", "-2", "@SUM(A1)", "'=already", "ok"];
        let mut text = String::new();
        write_record(&mut text, &fields);
        assert!(
            text.starts_with("\"'=HYPERLINK") && text.contains("\"'+1\"") && text.contains("\"''=already\""),
            "{text}"
        );
        assert_eq!(parse(&text).unwrap()[0].1, fields);
    }

    #[test]
    fn records_keep_quotes_commas_and_line_breaks() {
        let fields = [
            "plain",
            "a, b",
            "say \"yes\"",
            "two\nlines",
            "",
            "crlf\r\nend",
            "ünïcode",
        ];
        let mut text = String::new();
        write_record(&mut text, &fields);
        write_record(&mut text, &["x"]);
        let parsed = parse(&text).unwrap();
        assert_eq!(parsed[0].1, fields);
        assert_eq!(
            parsed[1],
            (4, vec!["x".to_string()]),
            "the second record starts on line 4"
        );

        let excel = "\u{feff}a,b\r\n\r\n1,\"2\"\r\n\"\"\r\nlast,unterminated line";
        let parsed = parse(excel).unwrap();
        assert_eq!(parsed.len(), 4, "{parsed:?}");
        assert_eq!(parsed[0].1, ["a", "b"]);
        assert_eq!(parsed[1], (3, vec!["1".to_string(), "2".to_string()]));
        assert_eq!(
            parsed[2].1,
            [""],
            "a quoted empty field is a record, a blank line is not"
        );
        assert_eq!(parsed[3].1, ["last", "unterminated line"]);

        assert!(parse("a,\"open\nstill open").unwrap_err().starts_with("line 1:"));
        assert!(parse("a\n\"x\"y").unwrap_err().starts_with("line 2:"));
        assert!(parse("a\nb\"c").unwrap_err().contains("unquoted"));
    }

    #[test]
    fn the_export_round_trips_what_the_reviewer_entered() {
        let f = files(2, 9);
        let label = |item: &str, side, correct, ambiguous, notes: &str| ReviewLabel {
            item_id: item.into(),
            anonymous_answer: side,
            reviewer: " ana ".into(),
            semantically_correct: correct,
            ambiguous_question_or_reference: ambiguous,
            notes: notes.into(),
        };
        let labels = [
            label(
                "q1",
                AnswerLabel::A,
                Some(Verdict::Yes),
                Some(Verdict::No),
                "quotes \"x\", commas\nand lines",
            ),
            label("q1", AnswerLabel::B, Some(Verdict::Unclear), Some(Verdict::Yes), ""),
            label("q2", AnswerLabel::B, None, None, "a note, not yet a label"),
            label(
                "q9",
                AnswerLabel::A,
                Some(Verdict::No),
                Some(Verdict::No),
                "not in the packet",
            ),
        ];
        let csv = review_csv(&f.packet, &labels);
        assert!(csv.starts_with(
            "\"packet_id\",\"item_id\",\"anonymous_answer\",\"reviewer\",\"semantically_correct\",\
             \"ambiguous_question_or_reference\",\"notes\"\n"
        ));
        let rows = parse(&csv).unwrap();
        assert_eq!(rows.len(), 5, "a header and a row per answer");
        let p = f.packet.packet_id.as_str();
        assert_eq!(
            rows[1].1,
            [p, "q1", "A", "ana", "yes", "no", "quotes \"x\", commas\nand lines"]
        );
        assert_eq!(rows[2].1, [p, "q1", "B", "ana", "unclear", "yes", ""]);
        assert_eq!(rows[3].1, [p, "q2", "A", "", "", "", ""]);
        assert_eq!(rows[4].1, [p, "q2", "B", "", "", "", "a note, not yet a label"]);
        assert!(!csv.contains("q9"));
        // Read back: the two labelled answers count, the note-only row and the empty one are missing.
        let r = super::super::review_results(&f.packet, &csv, Some(&f.key)).unwrap();
        assert_eq!(
            (r.labeled_answers, r.missing.len(), r.reviewers.as_slice()),
            (2, 2, ["ana".to_string()].as_slice())
        );
    }
}

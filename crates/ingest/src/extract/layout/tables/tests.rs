//! Tables on synthetic pages: header-keyed rows, wrapped cells, multi-line headers, captions, and prose or code
//! that must not be taken for a table.

use super::super::{page_layout, Glyph};

/// Ten-point glyphs, each character (spaces included) advancing 5pt.
fn word(x: f64, y: f64, text: &str) -> Vec<Glyph> {
    text.chars()
        .enumerate()
        .map(|(i, c)| Glyph {
            x: x + 5.0 * i as f64,
            y,
            size: 10.0,
            width: 5.0,
            text: c.to_string(),
            turn: 0,
        })
        .collect()
}

/// A row of cells at the given x positions.
fn row(y: f64, cells: &[(f64, &str)]) -> Vec<Glyph> {
    cells.iter().flat_map(|&(x, t)| word(x, y, t)).collect()
}

fn paragraph(top: f64, lines: &[&str]) -> Vec<Glyph> {
    (lines.iter().enumerate())
        .flat_map(|(i, l)| word(72.0, top - 12.0 * i as f64, l))
        .collect()
}

#[test]
fn a_table_of_figures_becomes_rows_that_carry_their_header() {
    let mut g = paragraph(
        760.0,
        &["The timings are summarized in Table 2 below, averaged over many calls."],
    );
    g.extend(row(
        720.0,
        &[(72.0, "Implementation"), (220.0, "Time in ms"), (320.0, "Relative")],
    ));
    g.extend(row(700.0, &[(72.0, "R API (as benchmark)"), (230.0, "218")]));
    g.extend(row(688.0, &[(72.0, "Rcpp sugar"), (230.0, "145"), (330.0, "0.67")]));
    g.extend(row(
        676.0,
        &[(72.0, "NumericVector::iterator"), (230.0, "217"), (330.0, "1.00")],
    ));
    g.extend(paragraph(
        650.0,
        &["Table 2: Run-time performance of the convolution examples."],
    ));
    let laid = page_layout(&g);
    assert_eq!(laid.tables.len(), 1, "{laid:?}");
    let t = &laid.tables[0];
    let rows: Vec<&str> = t.rows.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(
        rows,
        [
            "Implementation: R API (as benchmark); Time in ms: 218",
            "Implementation: Rcpp sugar; Time in ms: 145; Relative: 0.67",
            "Implementation: NumericVector::iterator; Time in ms: 217; Relative: 1.00",
        ]
    );
    assert!(t.head.starts_with("Table 2: Run-time performance"), "{}", t.head);
    assert!(t.head.ends_with("Implementation Time in ms Relative"), "{}", t.head);
    // The range covers the header, the rows and the caption below, and not the paragraph above.
    let covered = &laid.text[t.start..t.end];
    assert!(covered.starts_with("Implementation"), "{covered}");
    assert!(covered.ends_with("convolution examples."), "{covered}");
    // Each row's range is its own line of the page.
    assert_eq!(&laid.text[t.rows[1].start..t.rows[1].end], "Rcpp sugar 145 0.67");
}

#[test]
fn a_cell_that_wraps_stays_in_its_row() {
    let mut g = row(720.0, &[(72.0, "Option"), (180.0, "Meaning")]);
    let mut y = 706.0;
    for i in 0..6 {
        let meaning = format!("Sets option {i} of the programmer for this run.");
        g.extend(row(y, &[(72.0, &format!("-{i} value")), (180.0, &meaning)]));
        if i % 2 == 0 {
            y -= 12.0;
            g.extend(row(y, &[(180.0, "It wraps onto a second line.")]));
        }
        y -= 12.0;
    }
    let laid = page_layout(&g);
    let rows: Vec<&str> = laid.tables[0].rows.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(rows.len(), 6, "{rows:?}");
    assert_eq!(
        rows[0],
        "Option: -0 value; Meaning: Sets option 0 of the programmer for this run. It wraps onto a second line."
    );
    assert_eq!(
        rows[1],
        "Option: -1 value; Meaning: Sets option 1 of the programmer for this run."
    );
}

#[test]
fn a_row_label_set_level_with_the_middle_of_its_row_takes_the_lines_around_it() {
    // gpredict's format codes: the code sits half a line below the first line of its two-line description.
    let mut g = row(720.0, &[(72.0, "Code"), (180.0, "Description")]);
    g.extend(row(706.0, &[(72.0, "%C"), (180.0, "The century of the year.")]));
    g.extend(row(694.0, &[(180.0, "The ISO year, but without the century (range")]));
    g.extend(row(688.0, &[(72.0, "%g")]));
    g.extend(row(682.0, &[(180.0, "00 through 99).")]));
    g.extend(row(670.0, &[(72.0, "%G"), (180.0, "The ISO year.")]));
    let laid = page_layout(&g);
    let rows: Vec<&str> = laid.tables[0].rows.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(
        rows,
        [
            "Code: %C; Description: The century of the year.",
            "Code: %g; Description: The ISO year, but without the century (range 00 through 99).",
            "Code: %G; Description: The ISO year.",
        ]
    );
}

#[test]
fn a_header_over_two_lines_labels_a_body_of_figures() {
    let at = [72.0, 140.0, 220.0, 300.0, 380.0];
    let mut g = row(720.0, &[(at[1], "GLM"), (at[3], "Zero-augmented")]);
    g.extend(row(
        708.0,
        &[(at[1], "Poisson"), (at[2], "NB"), (at[3], "Hurdle"), (at[4], "ZINB")],
    ));
    let aic = ["AIC", "35959.2", "24359.1", "24210.1", "24211.4"];
    g.extend(row(694.0, &at.iter().copied().zip(aic).collect::<Vec<_>>()));
    let df = ["Df", "8", "9", "15", "15"];
    g.extend(row(682.0, &at.iter().copied().zip(df).collect::<Vec<_>>()));
    let laid = page_layout(&g);
    assert_eq!(laid.tables.len(), 1, "{laid:?}");
    assert_eq!(
        laid.tables[0].rows[0].text,
        "AIC; GLM Poisson: 35959.2; NB: 24359.1; Zero-augmented Hurdle: 24210.1; ZINB: 24211.4"
    );
}

#[test]
fn prose_code_and_a_contents_list_are_not_tables() {
    let prose = paragraph(
        720.0,
        &[
            "Rows of a page are grouped by baseline and split into segments at",
            "gaps wider than a word space, which keeps the words of one column",
            "together and the columns apart when a gutter runs between them.",
        ],
    );
    assert!(page_layout(&prose).tables.is_empty());
    // A contents list: its first line has a page number, so it is no header.
    let mut toc = row(720.0, &[(72.0, "1 Introduction"), (400.0, "3")]);
    toc.extend(row(708.0, &[(72.0, "2 Installation"), (400.0, "5")]));
    toc.extend(row(696.0, &[(72.0, "3 Usage"), (400.0, "9")]));
    assert!(page_layout(&toc).tables.is_empty());
    // Code with its comments aligned.
    let mut code = row(
        720.0,
        &[(72.0, "int fid, len;"), (250.0, "/* Identifies the buffer */")],
    );
    code.extend(row(
        708.0,
        &[(72.0, "int index;"), (250.0, "/* Where to insert the pair */")],
    ));
    code.extend(row(696.0, &[(72.0, "DBT *keyp;"), (250.0, "/* Key of the pair */")]));
    assert!(page_layout(&code).tables.is_empty());
    // A list of part ids and names has no header: its first line is an entry.
    let mut parts = row(720.0, &[(72.0, "m328p"), (250.0, "ATmega328P")]);
    parts.extend(row(708.0, &[(72.0, "m324p"), (250.0, "ATmega324P")]));
    parts.extend(row(696.0, &[(72.0, "m324pa"), (250.0, "ATmega324PA")]));
    assert!(page_layout(&parts).tables.is_empty());
    // A single line of two cells is no table.
    let lone = row(720.0, &[(72.0, "Name"), (300.0, "Value")]);
    assert!(page_layout(&lone).tables.is_empty());
}

#[test]
fn a_group_label_on_a_line_of_its_own_heads_the_rows_below_it_only() {
    // Group labels a full row above their rows (not centred between two): each row takes the label above it,
    // even the last row of a group, which lies nearer the next group's label.
    let mut g = row(
        720.0,
        &[
            (72.0, "Parameter"),
            (180.0, "Condition"),
            (280.0, "Min"),
            (330.0, "Max"),
            (380.0, "Unit"),
        ],
    );
    let groups = [
        ("Voltage", [("low", "1.8", "2.0"), ("high", "3.0", "3.6")]),
        ("Current", [("idle", "1", "2"), ("busy", "5", "9")]),
    ];
    // A first row with its own label, so that the first group label is not read as a second header line.
    g.extend(row(
        706.0,
        &[
            (72.0, "Supply"),
            (180.0, "typical"),
            (280.0, "3.0"),
            (330.0, "3.6"),
            (380.0, "V"),
        ],
    ));
    let mut y = 692.0;
    for (label, rows) in groups {
        g.extend(row(y, &[(72.0, label)]));
        y -= 14.0;
        for (cond, min, max) in rows {
            g.extend(row(y, &[(180.0, cond), (280.0, min), (330.0, max), (380.0, "mA")]));
            y -= 14.0;
        }
    }
    let laid = page_layout(&g);
    let rows: Vec<&str> = laid
        .tables
        .iter()
        .flat_map(|t| t.rows.iter().map(|r| r.text.as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            "Parameter: Supply; Condition: typical; Min: 3.0; Max: 3.6; Unit: V",
            "Parameter: Voltage; Condition: low; Min: 1.8; Max: 2.0; Unit: mA",
            "Parameter: Voltage; Condition: high; Min: 3.0; Max: 3.6; Unit: mA",
            "Parameter: Current; Condition: idle; Min: 1; Max: 2; Unit: mA",
            "Parameter: Current; Condition: busy; Min: 5; Max: 9; Unit: mA",
        ],
        "{laid:?}"
    );
}

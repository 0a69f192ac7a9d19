//! Document titles on real PDFs: each fixture's expected title, from its metadata when page 1 shows it, else its
//! largest type on page 1 (a wrapped title joined, footnote marks dropped), else its first short line.

mod common;

use ragsift_ingest::extract::{extract_file, Limits};
use std::time::Duration;

/// Each fixture (from the repository root) and its title.
const TITLES: &[(&str, &str)] = &[
    // Typeset on purpose with running headers, columns and line numbers; metadata names the fixture when any.
    (
        "fixtures/multicolumn/chromium_css.pdf",
        "Reading Order in Multi-Column Documents",
    ),
    (
        "fixtures/multicolumn/groff_ms.pdf",
        "Reading Order in Multi-Column Documents",
    ),
    (
        "fixtures/multicolumn/latex_multicol3.pdf",
        "Reading Order in Multi-Column Documents",
    ),
    (
        "fixtures/multicolumn/latex_twocolumn.pdf",
        "Reading Order in Multi-Column Documents",
    ),
    (
        "fixtures/multicolumn/reportlab_frames.pdf",
        "Reading Order in Multi-Column Documents",
    ),
    (
        "fixtures/multicolumn/writer_sections.pdf",
        "Reading Order in Multi-Column Documents",
    ),
    // Real papers: a Word template's placeholder as metadata, titles over two lines, footnote marks.
    (
        "fixtures/qa/documents/TLSH_CTC_final.pdf",
        "TLSH - A Locality Sensitive Hash",
    ),
    ("fixtures/qa/documents/bdb_usenix.pdf", "Berkeley DB"),
    (
        "fixtures/qa/documents/cvs-paper.pdf",
        "CVS II: Parallelizing Software Development",
    ),
    ("fixtures/qa/documents/dtc-paper.pdf", "Device trees everywhere"),
    (
        "fixtures/qa/documents/hash_usenix.pdf",
        "A New Hashing Package for UNIX",
    ),
    (
        "fixtures/qa/documents/libtp_usenix.pdf",
        "LIBTP: Portable, Modular Transactions for UNIX",
    ),
    // The broader labelled set: JSS papers, manuals (texinfo, LaTeX, Writer) and guides (a logo carries
    // "Little CMS"; the largest type on the page is the subtitle).
    (
        "fixtures/qa/documents/Rcpp-jss-2011.pdf",
        "Rcpp: Seamless R and C++ Integration",
    ),
    ("fixtures/qa/documents/avrdude.pdf", "AVRDUDE"),
    (
        "fixtures/qa/documents/countreg.pdf",
        "Regression Models for Count Data in R",
    ),
    ("fixtures/qa/documents/dotguide.pdf", "Drawing graphs with dot"),
    ("fixtures/qa/documents/gpredict-user-manual.pdf", "Gpredict User Manual"),
    ("fixtures/qa/documents/gputils.pdf", "gputils 1.4.0"),
    (
        "fixtures/qa/documents/jss816.pdf",
        "spacetime: Spatio-Temporal Data in R",
    ),
    (
        "fixtures/qa/documents/lcms2-tutorial.pdf",
        "How to use the engine in your applications",
    ),
    ("fixtures/qa/documents/speex-manual.pdf", "The Speex Codec Manual"),
    (
        "fixtures/decoding/math_italic_sigconf.pdf",
        "Counting Words Before Trusting a Parser",
    ),
    // Generated documents: metadata the page shows wins; metadata it does not show gives way to the heading.
    ("fixtures/pdf/two_column.pdf", "Harbor Point Library Newsletter"),
    ("fixtures/pdf/mixed_scanned.pdf", "Site Inspection Report"),
    ("fixtures/pdf/multipage.pdf", "Orion-7 Battery Warranty"),
    ("fixtures/damaged/multipage_bad_xref.pdf", "Orion-7 Battery Warranty"),
    (
        "fixtures/pdf/tounicode.pdf",
        "Identity-H test page for the ragsift extractor.",
    ),
    // Browser prints: metadata is the HTML file's name; one has no heading.
    ("fixtures/skia/justified.pdf", "Justified text in a narrow column"),
    ("fixtures/skia/kerning.pdf", "Kerning, ligatures and numbers"),
    ("fixtures/skia/letter_spacing.pdf", "Letter spacing"),
    ("fixtures/skia/rtl.pdf", "Right to left"),
    ("fixtures/skia/webfont.pdf", "A page with web fonts"),
    (
        "fixtures/skia/gdocs_style.pdf",
        "Beautiful is better than ugly. Explicit is better than implicit.",
    ),
    // Plain pages: their first line as set.
    (
        "fixtures/decoding/wrong_map.pdf",
        "The first page of this report uses an ordinary font.",
    ),
    (
        "fixtures/encoding/differences.pdf",
        "Jérôme and Søren find cafés on the quay.",
    ),
];

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_fixture_gets_its_title() {
    let limits = Limits {
        max_file_mb: 64,
        timeout: Duration::from_secs(120),
    };
    let wrong: Vec<String> = TITLES
        .iter()
        .filter_map(|&(file, want)| {
            let got = match extract_file(&common::repo().join(file), limits) {
                Ok(ex) => squash(&ex.title),
                Err(e) => format!("error: {e}"),
            };
            (got != squash(want)).then(|| format!("{file}: got {got:?}, want {want:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "wrong titles:\n{}", wrong.join("\n"));
}

#[test]
fn the_table_covers_every_multicolumn_fixture_and_paper() {
    let listed: Vec<std::path::PathBuf> = TITLES.iter().map(|(f, _)| common::repo().join(f)).collect();
    let mut pdfs: Vec<std::path::PathBuf> = common::multicolumn().into_iter().map(|(p, _)| p).collect();
    let papers = std::fs::read_dir(common::repo().join("fixtures/qa/documents")).expect("fixtures/qa/documents");
    pdfs.extend(
        papers
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "pdf")),
    );
    for pdf in pdfs {
        let name = pdf.file_name().expect("a file name");
        assert!(
            listed.iter().any(|l| l.file_name() == Some(name)),
            "{} has no expected title",
            pdf.display()
        );
    }
}

//! Extraction against the committed fixtures (made by scripts/make_fixtures.py with their expected text),
//! and every kind of bad input.

mod common;

use common::{fixture, words};
use ragsift_core::DocumentKind;
use ragsift_ingest::extract::{extract_file, Limits};
use ragsift_ingest::quality::{char_accuracy, word_similarity};
use ragsift_ingest::Error;
use std::time::Duration;

const LIMITS: Limits = Limits {
    max_file_mb: 50,
    timeout: Duration::from_secs(60),
};

/// Pages of an `.expected`: sections after `=== page N ===` lines.
fn expected_pages(name: &str) -> Vec<String> {
    let raw = std::fs::read_to_string(fixture(&format!("pdf/{name}.expected"))).unwrap();
    let mut pages: Vec<String> = Vec::new();
    for line in raw.lines() {
        if line.starts_with("=== page ") {
            pages.push(String::new());
        } else if let Some(p) = pages.last_mut() {
            p.push_str(line);
            p.push('\n');
        }
    }
    pages.into_iter().map(|p| p.trim().to_string()).collect()
}

fn assert_matches_expected(name: &str) {
    let ex = extract_file(&fixture(&format!("pdf/{name}.pdf")), LIMITS).unwrap();
    let expected = expected_pages(name);
    assert_eq!(ex.pages.len(), expected.len(), "{name}: page count");
    for (got, want) in ex.pages.iter().zip(&expected) {
        assert_eq!(
            words(&got.text),
            words(want),
            "{name} page {}: words in reading order",
            got.number
        );
        let paragraphs = |s: &str| s.split("\n\n").filter(|p| !p.trim().is_empty()).count();
        assert_eq!(
            paragraphs(&got.text),
            paragraphs(want),
            "{name} page {}: paragraphs\n{}",
            got.number,
            got.text
        );
    }
}

#[test]
fn multipage_text_with_page_numbers_hyphenation_and_winansi() {
    assert_matches_expected("multipage");
    let ex = extract_file(&fixture("pdf/multipage.pdf"), LIMITS).unwrap();
    assert_eq!(ex.pages.iter().map(|p| p.number).collect::<Vec<_>>(), vec![1, 2, 3]);
    let all: String = ex.pages.iter().map(|p| p.text.clone()).collect();
    assert!(
        all.contains("temperature"),
        "a word hyphenated across lines is re-joined"
    );
    assert!(!all.contains("tempera- ture") && !all.contains("tempera-ture"));
    assert!(!all.is_ascii(), "WinAnsi accents decode to Unicode");
}

#[test]
fn the_extractor_names_the_kind_of_file_it_read() {
    let pdf = extract_file(&fixture("pdf/multipage.pdf"), LIMITS).unwrap();
    assert_eq!(pdf.kind, DocumentKind::Pdf);
    for text in ["text/plain.txt", "text/notes.md"] {
        assert_eq!(
            extract_file(&fixture(text), LIMITS).unwrap().kind,
            DocumentKind::Text,
            "{text}"
        );
    }
}

#[test]
fn two_columns_are_read_in_column_order() {
    assert_matches_expected("two_column");
}

#[test]
fn tounicode_cmap_decodes_non_latin_text() {
    assert_matches_expected("tounicode");
}

#[test]
fn encrypted_with_empty_password_opens() {
    let ex = extract_file(&fixture("pdf/encrypted_empty_pw.pdf"), LIMITS).unwrap();
    let plain = extract_file(&fixture("pdf/multipage.pdf"), LIMITS).unwrap();
    assert_eq!(ex.pages, plain.pages);
}

#[test]
fn encrypted_with_password_is_a_clear_error() {
    let err = extract_file(&fixture("pdf/encrypted_user_pw.pdf"), LIMITS).unwrap_err();
    assert!(matches!(err, Error::Encrypted { .. }), "{err:?}");
    assert!(err.to_string().contains("encrypted_user_pw.pdf") && err.to_string().contains("password"));
}

#[test]
fn truncated_and_fake_pdfs_are_corrupt() {
    for name in ["corrupt.pdf", "not_a_pdf.pdf"] {
        let err = extract_file(&fixture(&format!("pdf/{name}")), LIMITS).unwrap_err();
        assert_eq!(err.code(), "corrupt", "{name}: {err}");
        assert!(err.to_string().contains(name));
    }
}

#[test]
fn image_only_pdf_names_its_pages() {
    let err = extract_file(&fixture("pdf/image_only.pdf"), LIMITS).unwrap_err();
    assert!(matches!(err, Error::NoText { .. }), "{err:?}");
    assert!(err.to_string().contains("no extractable text on pages 1–2"), "{err}");
}

#[test]
fn mixed_document_warns_about_its_scanned_page() {
    let ex = extract_file(&fixture("pdf/mixed_scanned.pdf"), LIMITS).unwrap();
    assert_eq!(ex.empty_pages, vec![2]);
    assert_eq!(ex.warning().unwrap(), "no extractable text on pages 2");
    assert_matches_expected("mixed_scanned");
}

#[test]
fn files_over_the_size_limit_are_refused_before_reading() {
    let err = extract_file(
        &fixture("pdf/multipage.pdf"),
        Limits {
            max_file_mb: 0,
            ..LIMITS
        },
    )
    .unwrap_err();
    assert_eq!(err.code(), "too_large", "{err}");
}

#[test]
fn unsupported_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let docx = dir.path().join("report.docx");
    std::fs::write(&docx, b"PK\x03\x04").unwrap();
    assert_eq!(extract_file(&docx, LIMITS).unwrap_err().code(), "unsupported");
    assert_eq!(
        extract_file(&dir.path().join("gone.pdf"), LIMITS).unwrap_err().code(),
        "io"
    );
}

#[test]
fn text_and_markdown_are_one_page_each() {
    let md = extract_file(&fixture("text/notes.md"), LIMITS).unwrap();
    assert_eq!(md.pages.len(), 1);
    assert!(md.pages[0].text.lines().count() > 1, "markdown keeps its lines");
    let txt = extract_file(&fixture("text/plain.txt"), LIMITS).unwrap();
    assert_eq!(txt.pages[0].number, 1);
    assert!(!txt.pages[0].text.is_empty());
}

/// True when `phrase` occurs in the page's text as a run of words (spacing and punctuation aside).
fn reads(ex: &ragsift_ingest::extract::Extracted, page: usize, phrase: &str) -> bool {
    let (text, want) = (words(&ex.pages[page - 1].text), words(phrase));
    text.windows(want.len()).any(|w| w == want.as_slice())
}

#[test]
fn real_two_column_papers_are_read_column_by_column() {
    let paper = |name: &str| extract_file(&fixture(&format!("qa/documents/{name}")), LIMITS).unwrap();
    // Word 2010, a 12pt gutter: each column reads on instead of alternating with the other line by line.
    let tlsh = paper("TLSH_CTC_final.pdf");
    assert!(reads(
        &tlsh,
        1,
        "Sdhash are similarity digests). Here, we describe a new locality sensitive"
    ));
    assert!(reads(
        &tlsh,
        1,
        "supported by Virus-Total [13]. The Ssdeep scheme [3, 1] is a CTPH"
    ));
    // pdfTeX with Type3 bitmap fonts: the left column ends before the right one starts.
    let dtc = paper("dtc-paper.pdf");
    assert!(reads(&dtc, 5, "in a vaguely C-like form. Figure 2 shows an example."));
    assert!(reads(&dtc, 1, "Device trees everywhere"));
    // Title and abstract across the page, then two columns (the abstract once hid the gutter).
    let hash = paper("hash_usenix.pdf");
    assert!(reads(
        &hash,
        1,
        "hsearch under most conditions. Introduction Current UNIX systems"
    ));
    // groff through Ghostscript sets lines with the ' operator, which pdf-extract skips.
    let cvs = paper("cvs-paper.pdf");
    assert!(reads(
        &cvs,
        7,
        "functions within the module database at this time. 2.4. Configurable Logging Support"
    ));
    assert!(reads(&cvs, 7, "example% cvs checkout libc ps"));
}

/// Chromium's "Save as PDF" (Skia: CID fonts whose `/W` widths come in ranges, per-glyph positioning for
/// letter spacing and kerning, justified text, web fonts) and a Google-Docs-style page kerned glyph by glyph
/// with `TJ` (scripts/make_skia_fixtures.sh made them): word for word the source text, and never further from it
/// than poppler's pdftotext (which itself splits the letters of widely tracked text).
#[test]
fn skia_and_tj_kerned_pages_read_word_for_word() {
    let dir = fixture("skia");
    let mut pdfs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .collect();
    pdfs.sort();
    assert_eq!(pdfs.len(), 6);
    for pdf in pdfs {
        let source = std::fs::read_to_string(pdf.with_extension("source.txt")).unwrap();
        let poppler = std::process::Command::new("pdftotext")
            .arg(&pdf)
            .arg("-")
            .output()
            .expect("pdftotext (poppler-utils) is installed by scripts/setup.sh");
        let theirs = word_similarity(&String::from_utf8_lossy(&poppler.stdout), &source);
        let text: String = extract_file(&pdf, LIMITS)
            .unwrap()
            .pages
            .iter()
            .map(|p| p.text.clone() + "\n")
            .collect();
        let ours = word_similarity(&text, &source);
        assert!(
            ours >= 0.98 && ours >= theirs - 1e-9,
            "{}: word-sequence similarity to the source {ours:.3} (pdftotext {theirs:.3})\nours: {text}",
            pdf.display()
        );
    }
}

/// A cross-reference table that points nowhere (fixtures/damaged/make.py) is rebuilt from the objects in the file,
/// as poppler does: the text is the intact file's, and a valid image-only file says "no extractable text", never
/// "damaged".
#[test]
fn a_broken_cross_reference_table_is_rebuilt_from_the_objects() {
    let text = |p: &str| -> Vec<String> {
        extract_file(&fixture(p), LIMITS)
            .unwrap()
            .pages
            .into_iter()
            .map(|p| p.text)
            .collect()
    };
    assert_eq!(text("damaged/multipage_bad_xref.pdf"), text("pdf/multipage.pdf"));
    let err = extract_file(&fixture("damaged/image_only_bad_xref.pdf"), LIMITS).unwrap_err();
    assert!(matches!(err, Error::NoText { .. }), "{err:?}");
}

/// A short fixed budget of the loader fuzzer — the same 10,000 mutants on every machine (`ragsift-bench fuzz` runs
/// it for a time): mutants of every fixture
/// end in text or a typed error — no panic past the loaders' guards, no run past the extraction timeout.
#[test]
fn heavy_fuzzed_fixtures_give_text_or_typed_errors() {
    let mut seeds = Vec::new();
    for dir in ["pdf", "skia", "damaged", "text"] {
        for entry in std::fs::read_dir(fixture(dir)).unwrap().flatten() {
            let path = entry.path();
            if ragsift_ingest::extract::is_supported(&path) {
                seeds.push((path.to_string_lossy().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    seeds.sort();
    let limits = Limits {
        max_file_mb: 50,
        timeout: Duration::from_secs(20),
    };
    let report = ragsift_ingest::fuzz::run(&seeds, ragsift_ingest::fuzz::Budget::Inputs(10_000), limits);
    assert!(
        report.inputs >= seeds.len() && report.errors > 0 && report.text > 0,
        "{report:?}"
    );
    assert_eq!((report.panics, report.hangs), (0, 0), "{report:?}");
}

/// Image-only pages rendered from known text (fixtures/scanned/make.py): without OCR "no extractable text", with
/// Tesseract (installed by setup) the text back at a character accuracy of at least 0.95, each page flagged.
#[test]
fn scanned_pages_are_read_by_ocr() {
    let pdf = fixture("scanned/scanned.pdf");
    let err = extract_file(&pdf, LIMITS).unwrap_err();
    assert!(matches!(err, Error::NoText { .. }), "{err:?}");
    let options = ragsift_ingest::extract::OcrOptions::default();
    assert!(
        ragsift_ingest::extract::ocr_available(&options.languages),
        "tesseract with English is installed by scripts/setup.sh"
    );
    let seen = std::sync::Mutex::new(Vec::new());
    let ex = ragsift_ingest::extract::extract_file_with_ocr(&pdf, LIMITS, Some(&options), &|k, n| {
        seen.lock().unwrap().push((k, n));
    })
    .unwrap();
    assert_eq!(seen.into_inner().unwrap(), [(1, 3), (2, 3), (3, 3)]);
    assert_eq!(ex.ocr_pages, [1, 2, 3]);
    assert!(ex.warning().unwrap().contains("pages 1–3 read by OCR"));
    let truth = expected_pages("multipage");
    for (page, want) in ex.pages.iter().zip(&truth) {
        let accuracy = char_accuracy(&page.text, want);
        assert!(
            page.ocr && accuracy >= 0.95,
            "page {}: accuracy {accuracy:.3}\n{}",
            page.number,
            page.text
        );
    }
}

/// OCR within a page budget of one: page 1 of the three-page scan keeps its OCR text, pages 2–3 are left unread
/// and named by the warning; a time budget already spent reads none and says so.
#[test]
fn ocr_out_of_budget_keeps_the_pages_it_read_and_names_the_rest() {
    use ragsift_ingest::extract::{extract_file_with_ocr, OcrLimit, OcrOptions};
    let pdf = fixture("scanned/scanned.pdf");
    let options = OcrOptions {
        max_pages: 1,
        ..OcrOptions::default()
    };
    let seen = std::sync::Mutex::new(Vec::new());
    let ex = extract_file_with_ocr(&pdf, LIMITS, Some(&options), &|k, n| seen.lock().unwrap().push((k, n))).unwrap();
    assert_eq!(seen.into_inner().unwrap(), [(1, 3)]);
    assert_eq!(ex.ocr_pages, [1]);
    let truth = expected_pages("multipage");
    assert!(
        char_accuracy(&ex.pages[0].text, &truth[0]) >= 0.95,
        "{}",
        ex.pages[0].text
    );
    assert!(ex.pages[1..].iter().all(|p| p.text.is_empty() && !p.ocr));
    let stop = ex.ocr_stop.clone().expect("OCR stopped");
    assert_eq!((stop.done, stop.wanted, stop.left.as_slice()), (1, 3, &[2, 3][..]));
    assert_eq!(stop.why, OcrLimit::Pages(1));
    let warning = ex.warning().unwrap();
    assert!(
        warning.contains("OCR stopped after 1 of 3 pages (its budget of 1 pages); pages 2–3 have no text from OCR"),
        "{warning}"
    );
    // A time budget spent before the first page: nothing is read, and the file says OCR read no page.
    let spent = OcrOptions {
        total_timeout: Duration::ZERO,
        ..OcrOptions::default()
    };
    let err = extract_file_with_ocr(&pdf, LIMITS, Some(&spent), &|_, _| panic!("no page is started")).unwrap_err();
    assert!(matches!(err, Error::NoText { .. }), "{err:?}");
}

/// A page cut by the file's time budget while Tesseract reads it is left, not counted as done: the document's
/// text page stays, and the warning names the scanned page as OCR's time budget ran out.
#[test]
fn ocr_cut_by_its_time_budget_mid_page_leaves_that_page() {
    use ragsift_ingest::extract::{extract_file_with_ocr, OcrLimit, OcrOptions};
    // Rendering and reading a page at 300 dpi takes far more than 50 ms: page 2 (the scan) is cut part way.
    let options = OcrOptions {
        total_timeout: Duration::from_millis(50),
        ..OcrOptions::default()
    };
    let started = std::time::Instant::now();
    let ex = extract_file_with_ocr(&fixture("pdf/mixed_scanned.pdf"), LIMITS, Some(&options), &|_, _| {}).unwrap();
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert!(ex.ocr_pages.is_empty() && ex.empty_pages == [2], "{ex:?}");
    let stop = ex.ocr_stop.clone().expect("OCR stopped");
    assert_eq!((stop.done, stop.wanted, stop.left.as_slice()), (0, 1, &[2][..]));
    assert_eq!(stop.why, OcrLimit::Seconds(0));
    let warning = ex.warning().unwrap();
    assert!(
        warning.contains("OCR stopped after 0 of 1 pages (its time budget of 0 s)"),
        "{warning}"
    );
}

/// Simple fonts whose `/Encoding` has `/Differences` (as pdfTeX writes them; fixtures/encoding/make.py), over no
/// base encoding and over WinAnsi: accented glyphs and ligatures decode by their glyph names.
#[test]
fn differences_encodings_decode_accented_glyphs_by_name() {
    let ex = extract_file(&fixture("encoding/differences.pdf"), LIMITS).unwrap();
    let source = std::fs::read_to_string(fixture("encoding/differences.source.txt")).unwrap();
    let split = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(split(&ex.pages[0].text), split(&source));
}

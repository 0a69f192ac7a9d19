//! Layout mechanisms on real pages (issue 55): each test takes a page, or a band of one page's glyphs, from a real
//! document of `fixtures/real/` and checks one mechanism against what the page shows. Committed files are read
//! whole; for files that may not be committed, the glyphs of the band under test are kept in
//! `fixtures/real/glyphs/` (written by `ragsift-bench glyphs FILE PAGE --y-min … --y-max …`: positions, sizes and
//! characters, nothing else).

use ragsift_ingest::extract::{extract_file, layout_page, Glyph, Limits};
use ragsift_test_support::files::{fixture, words};
use std::time::Duration;

const LIMITS: Limits = Limits {
    max_file_mb: 50,
    timeout: Duration::from_secs(120),
};

fn glyphs(name: &str) -> Vec<Glyph> {
    let path = fixture(&format!("real/glyphs/{name}.json"));
    let json = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Whether `text` holds `phrase`'s words in a row.
fn reads(text: &str, phrase: &str) -> bool {
    let (t, p) = (words(text), words(phrase));
    t.windows(p.len()).any(|w| w == p.as_slice())
}

#[test]
fn running_headers_footers_and_page_numbers_are_set_apart_on_a_real_journal_article() {
    // acmart's acmsmall sample (8 pages): "G. Zhou et. al." on even pages, the article's page number "39:N" and
    // the journal line at the foot of every page.
    let ex = extract_file(&fixture("real/files/acm-small.pdf"), LIMITS).unwrap();
    let journal = "ACM Transactions on the Web, Vol. 9, No. 4, Article 39, Publication date: March 2010.";
    let p2 = &ex.pages[1];
    assert!(
        !reads(&p2.text, journal),
        "the footer is not in the body: {}",
        &p2.text[p2.text.len().saturating_sub(300)..]
    );
    assert!(
        !reads(&p2.text, "G. Zhou et. al."),
        "the running header is not in the body"
    );
    assert!(
        p2.furniture.iter().any(|f| reads(f, journal)),
        "the footer is the page's furniture: {:?}",
        p2.furniture
    );
    assert!(
        p2.furniture.iter().any(|f| f.trim() == "39:2"),
        "the page number is furniture: {:?}",
        p2.furniture
    );
    for page in &ex.pages[1..] {
        assert!(
            !reads(&page.text, journal),
            "p{}: the footer stays out of the body",
            page.number
        );
    }
    // The body is whole: the page's first words of text and its last paragraph are still there.
    let truth: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("real/truth/acm-small.json")).unwrap()).unwrap();
    let want = truth["pages"]["2"]["text"].as_str().unwrap();
    let similarity = ragsift_ingest::quality::word_similarity(&p2.text, want);
    assert!(similarity >= 0.98, "page 2 against its truth: {similarity:.3}");
}

#[test]
fn a_vertical_stamp_is_set_apart_and_the_lines_it_crossed_read_whole() {
    // The BERT paper on arXiv, page 1: the left column's abstract and the vertical stamp "arXiv:1810.04805v2
    // [cs.CL] 24 May 2019" (20 pt, reading upwards in the margin) beside it. The stamp's glyphs lie between the
    // abstract's lines; once they merged two lines glyph by glyph ("ttuoncerdeawteithstajtues…").
    let (text, aside) = layout_page(&glyphs("arxiv-bert-p1-abstract"));
    for line in [
        "tuned with just one additional output layer",
        "to create state-of-the-art models for a wide",
        "range of tasks, such as question answering and",
    ] {
        assert!(reads(&text, line), "{line:?} in {text}");
    }
    assert!(
        !text.contains("arXiv") && !text.contains("cs.CL"),
        "the stamp is not in the body: {text}"
    );
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(reads(&aside[0], "arXiv 1810 04805v2 cs CL 24 May 2019"), "{aside:?}");
}

#[test]
fn a_figure_label_over_a_heading_stays_off_the_heading() {
    // A TI datasheet (SLUSA75B) page 13: the axis label "Current" of the figure above sits 4 pt over the heading
    // "8.3.2 Input Voltage Regulation" and across it; both used to be read as one row ("InpuCturVreontltage").
    let (text, _) = layout_page(&glyphs("ti-bq24650-p13-heading"));
    assert!(reads(&text, "8.3.2 Input Voltage Regulation"), "{text}");
    assert!(reads(&text, "Current"), "{text}");
    assert!(!text.split_whitespace().any(|w| w.len() > 12), "no merged word: {text}");
}

/// A labelled file of the set that may not be committed, when it has been fetched (`$RAGSIFT_REAL_DIR/<id>.pdf`,
/// default `~/.cache/ragsift/real/<id>.pdf`, as `ragsift-bench real` finds it); `None` (the test says so and
/// passes) when it is absent.
fn real_file(id: &str) -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("RAGSIFT_REAL_DIR")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cache/ragsift/real")))?;
    let path = dir.join(format!("{id}.pdf"));
    if path.exists() {
        Some(path)
    } else {
        eprintln!("{id}.pdf is absent from {}: the test checks nothing", dir.display());
        None
    }
}

/// Where `phrase` starts in `text` (by words), if it is there.
fn at(text: &str, phrase: &str) -> Option<usize> {
    let (t, p) = (words(text), words(phrase));
    t.windows(p.len()).position(|w| w == p.as_slice())
}

#[test]
fn a_figure_included_as_a_form_is_read_where_the_page_draws_it() {
    // The BERT paper, page 5: Figure 2 is an included PDF, drawn as a form XObject scaled by 0.48 at the top of the
    // left column. Its labels were placed at the form's own coordinates, spread over the column and onto its body
    // lines ("Input these two stage[Cs,LaSs] encodinmgyaconcatednoategd text").
    let Some(path) = real_file("arxiv-bert") else {
        return;
    };
    let ex = extract_file(&path, LIMITS).unwrap();
    let text = &ex.pages[4].text;
    let input = at(text, "Input [CLS] my dog is cute [SEP] he likes play ##ing [SEP]");
    let caption = at(text, "Figure 2: BERT input representation");
    assert!(
        input.is_some() && input < caption,
        "the figure's first row, before its caption: {text}"
    );
    for line in [
        "BERT instead uses the self-attention mechanism to unify these two stages, as encoding a concatenated text pair",
        "Fine-tuning is straightforward since the self-attention mechanism in the Transformer allows BERT to model",
    ] {
        assert!(reads(text, line), "{line:?} in {text}");
    }
}

#[test]
fn a_form_is_drawn_under_its_matrix_and_the_matrix_of_the_page_that_draws_it() {
    // The same structure written by hand (the BERT file may be absent): body lines at 700 and 300, and a form whose
    // label lies at (80, 200) in its own space, moved by its /Matrix to (80, 600) and drawn at half size from
    // (72, 100): on the page at (112, 400), between the two body lines. Read at its own coordinates, it came last.
    let font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
    let stream = |dict: &str, body: &str| format!("<< {dict} /Length {} >>\nstream\n{body}\nendstream", body.len());
    let page = "BT /F1 12 Tf 72 700 Td (The first body line above the figure) Tj ET\n\
                q 0.5 0 0 0.5 72 100 cm /Fm1 Do Q\n\
                BT /F1 12 Tf 72 300 Td (The second body line under the figure) Tj ET";
    let form = "BT /F1 24 Tf 80 200 Td (Token Embeddings) Tj ET";
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> \
         /XObject << /Fm1 6 0 R >> >> /Contents 5 0 R >>"
            .to_string(),
        font.to_string(),
        stream("", page),
        stream(
            "/Type /XObject /Subtype /Form /BBox [0 0 600 800] /Matrix [1 0 0 1 0 400] \
             /Resources << /Font << /F1 4 0 R >> >>",
            form,
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("form.pdf");
    std::fs::write(&path, ragsift_ingest::synth::assemble(&objects)).unwrap();
    let text = &extract_file(&path, LIMITS).unwrap().pages[0].text;
    let (first, label, second) = (
        at(text, "The first body line above the figure"),
        at(text, "Token Embeddings"),
        at(text, "The second body line under the figure"),
    );
    assert!(first.is_some() && label.is_some() && second.is_some(), "{text}");
    assert!(first < label && label < second, "the label between the lines: {text}");
}

#[test]
fn review_line_numbers_in_the_gutter_are_set_apart_and_the_columns_read_whole() {
    // The ACL template exported by LibreOffice, page 1, top of both columns: the right column's review line numbers
    // (35, 36 …, 5.5 pt) sit in the gutter 3 pt before its text, so each joined the line beside it, and rows ran
    // across both columns ("1 Abstract 35 Ut enim … 2 This document is … 37 nisi ut …").
    let (text, aside) = layout_page(&glyphs("acl-libreoffice-p1-gutter"));
    let left = at(
        &text,
        "This document is a supplement to the general guidelines for *ACL authors",
    );
    let right = at(&text, "Ut enim ad minima veniam");
    assert!(
        left.is_some() && right.is_some() && left < right,
        "the left column first: {text}"
    );
    assert!(
        !text.split_whitespace().any(|w| w.chars().all(|c| c.is_ascii_digit())),
        "no line number in the text: {text}"
    );
    assert!(aside.iter().any(|a| a.starts_with("35 36 37")), "{aside:?}");
}

#[test]
fn words_of_tight_small_print_keep_their_spaces() {
    // An Analog Devices datasheet (ADXL345), page 1: the legal notice in 6.5 pt, set so tight that every glyph
    // lies 0.07 of a size inside its advance and words only 0.08 of a size apart; the producer wrote its spaces.
    // Its lines were read as "responsibilityisassumedbyanalogdevicesforitsuse".
    let (text, _) = layout_page(&glyphs("adi-adxl345-p1-notice"));
    for line in [
        "Information furnished by Analog Devices is believed to be accurate and reliable. However, no",
        "responsibility is assumed by Analog Devices for its use, nor for any infringements of patents or other",
        "Trademarks and registered trademarks are the property of their respective owners.",
    ] {
        assert!(reads(&text, line), "{line:?} in {text}");
    }
    assert!(
        !text.split_whitespace().any(|w| w.len() > 16),
        "no words run together: {text}"
    );
}

#[test]
fn a_drop_cap_does_not_join_the_columns_beside_it() {
    // IEEEtran's how-to, page 1: the introduction opens with a 28.5 pt drop cap "W" beside 10 pt lines. On its
    // row, every gap was weighed against the cap's size, so the 12 pt gutter read as a word space and the left
    // line ran on into the right column's ("WLATEX, and a basic understanding of the LATEX language, in the
    // internet newsgroup …").
    let (text, _) = layout_page(&glyphs("ieee-howto-p1-dropcap"));
    let left = at(&text, "and a basic understanding of the");
    let left_next = at(&text, "an author can produce professional quality typeset research");
    let right = at(&text, "in the internet newsgroup comp.text.tex. There is also a");
    assert!(
        left.is_some() && left_next.is_some() && right.is_some(),
        "all three lines: {text}"
    );
    assert!(left < left_next && left_next < right, "the left column first: {text}");
}

/// Asserts that the layout of the glyph band `name` reads each of `rows` as one row, its cells in order.
fn reads_rows(name: &str, rows: &[&str]) {
    let (text, _) = layout_page(&glyphs(name));
    for row in rows {
        assert!(reads(&text, row), "{row:?} reads as one row:\n{text}");
    }
}

#[test]
fn a_datasheet_table_above_the_page_footer_keeps_its_rows() {
    // TI BQ24650 p5, "Recommended Operating Conditions": labels on the left, MIN/MAX on the right with an empty
    // band between them, a unit "V" centred over several rows, and the page footer below. The footer and the
    // header row stand level with nothing on the other side; the table is still read row by row, not as a column
    // of labels followed by a column of figures.
    reads_rows(
        "ti-bq24650-p5-table",
        &[
            "VCC, STAT1, STAT2, SRP, SRN –0.3 28",
            "PH –2 30",
            "BTST, HIDRV with respect to GND –0.3 34",
            "VREF 3.3",
        ],
    );
}

#[test]
fn a_datasheet_table_keeps_its_columns_past_section_titles_that_run_across_them() {
    // TI BQ24650 p8, Electrical Characteristics: PARAMETER, TEST CONDITIONS, MIN, TYP, MAX, UNIT, with section
    // titles ("THERMAL SHUTDOWN COMPARATOR") and wrapped conditions that run over the gaps between columns. Those
    // few cells must not merge the columns: each row keeps its parameter, its conditions, its figure and its unit
    // apart, under their own headers.
    let tables = ragsift_ingest::extract::layout_tables(&glyphs("ti-bq24650-p8-characteristics"));
    let rows: Vec<&str> = tables
        .iter()
        .flat_map(|t| t.rows.iter().map(|r| r.text.as_str()))
        .collect();
    let row = |label: &str| {
        rows.iter()
            .find(|r| r.contains(label))
            .unwrap_or_else(|| panic!("a row for {label:?} in {rows:#?}"))
    };
    let shutdown = row("Thermal shutdown rising temperature");
    assert!(
        shutdown.contains("TEST CONDITIONS: Temperature increasing") && shutdown.contains("UNIT: °C"),
        "{shutdown}"
    );
    assert!(
        shutdown.contains(": 145;"),
        "the figure is a cell of its own: {shutdown}"
    );
    let over = row("Charge overcurrent rising threshold");
    assert!(
        over.contains("TEST CONDITIONS: measure (VSRP – VSRN)") && over.contains(": 80; UNIT: mV"),
        "{over}"
    );
}

#[test]
fn a_cell_that_wraps_beside_its_row_label_keeps_the_table_whole() {
    // ST STM32F4 p60, "Table 11. Voltage characteristics": below a paragraph, the Min/Max/Unit side holds a unit
    // centred between two rows ("mV") and a four-line cell ("see Section 6.3.14: Absolute maximum ratings
    // (electrical sensitivity)") beside the one line of its row label. Those lines stand level with no line of
    // the labels' side, yet they are a table's cells: the table is read row by row, not as two columns.
    reads_rows(
        "st-stm32f4-p60-ratings",
        &[
            "Symbol Ratings Min Max Unit",
            "Input voltage on FT and TC pins(2) VSS–0.3 VDD+4.0 V",
            "VIN Input voltage on any other pin VSS–0.3 4.0",
            "Input voltage for BOOT0 VSS 9.0",
        ],
    );
}

#[test]
fn a_centred_title_block_over_the_gutter_does_not_hide_the_columns() {
    // groff mom's sample article p10 (gropdf, from Debian's groff-base): two justified columns with an 18 pt
    // gutter, under a title, a subtitle and three author lines centred on the page, which cover parts of the
    // gutter unevenly. The columns are still found, and each is read down before the next.
    let (text, _) = layout_page(&glyphs("groff-mom-samples-p10-title"));
    assert!(
        reads(
            &text,
            "Lorem ipsum dolor sit amet, consetetur sadipscing elitr. Sed diam nonumy eirmod tempor invidunt"
        ),
        "the left column's first lines read on:\n{text}"
    );
    assert!(
        text.find("by Joe Chang") < text.find("Lorem ipsum"),
        "the title block comes first"
    );
}

/// The table rows (as chunked facts) the layout finds in a glyph band.
fn table_rows(name: &str) -> Vec<String> {
    let tables = ragsift_ingest::extract::layout_tables(&glyphs(name));
    tables
        .iter()
        .flat_map(|t| t.rows.iter().map(|r| r.text.clone()))
        .collect()
}

/// The first of `rows` that holds `part`.
fn row_with(rows: &[String], part: &str) -> String {
    rows.iter()
        .find(|r| r.contains(part))
        .unwrap_or_else(|| panic!("a row with {part:?} in {rows:#?}"))
        .clone()
}

#[test]
fn a_label_and_unit_printed_once_for_several_rows_reach_each_row() {
    // TI BQ24650 p5, Absolute Maximum Ratings: "Voltage (with respect to GND)" and its unit "V" are printed once,
    // on a line of their own in the middle of six rows of pins. Each of the six rows carries both.
    let rows = table_rows("ti-bq24650-p5-ratings");
    for pin in [
        "VCC, STAT1, STAT2, SRP, SRN",
        "PH",
        "VFB",
        "REGN, LODRV, TS, MPPSET, TERM_EN",
        "VREF",
    ] {
        let row = (rows.iter())
            .find(|r| r.contains(&format!("; {pin};")))
            .unwrap_or_else(|| panic!("a row for {pin} in {rows:#?}"));
        assert!(
            row.starts_with("Voltage (with respect to GND);") && row.ends_with("UNIT: V"),
            "{row}"
        );
    }
    // A row with its own label keeps it.
    assert!(rows
        .iter()
        .any(|r| r.starts_with("Junction temperature, TJ;") && r.ends_with("UNIT: °C")));
    // The label's own line is no row of its own any more.
    assert!(
        !rows.iter().any(|r| r == "Voltage (with respect to GND); UNIT: V"),
        "{rows:#?}"
    );
}

#[test]
fn each_row_of_two_stacked_spans_takes_the_nearer_label() {
    // Maxim DS18B20 p2, DC Electrical Characteristics: "Pullup Supply Voltage" sits between its two rows
    // (parasite power, local power) and "Thermometer Error" between its two (–10 to +85 °C, –55 to +125 °C),
    // one span right under the other. Each row takes the label and unit of the span it belongs to.
    let rows = table_rows("maxim-ds18b20-p2-characteristics");
    let row = |cond: &str| row_with(&rows, cond);
    assert!(row("Parasite power; MIN: +3.0; TYP MAX: +5.5").contains("Pullup Supply Voltage;"));
    assert!(row("CONDITIONS: Local power; MIN: +3.0; TYP MAX: VDD").contains("Pullup Supply Voltage;"));
    for range in ["-10°C to +85°C", "-55°C to +125°C"] {
        let r = row(range);
        assert!(r.contains("Thermometer Error;") && r.ends_with("UNITS: °C"), "{r}");
    }
}

#[test]
fn a_chapter_title_in_the_running_header_is_furniture_on_its_chapter_pages() {
    // The AVRDUDE manual (Texinfo): each page's header holds the chapter's title beside the page number. Chapter 3
    // runs over six pages of 62, too few for its title to count as running text alone; it stands where the
    // running header stands on every page, so it is set apart all the same.
    let ex = extract_file(&fixture("manuals/avrdude.pdf"), LIMITS).unwrap();
    let p36 = ex.pages.iter().find(|p| p.number == 36).unwrap();
    assert!(
        !reads(&p36.text, "Chapter 3: Terminal Mode Operation"),
        "{}",
        &p36.text[..p36.text.len().min(300)]
    );
    assert!(
        p36.furniture
            .iter()
            .any(|f| reads(f, "Chapter 3: Terminal Mode Operation")),
        "{:?}",
        p36.furniture
    );
    // The chapter's own heading, in the body of its first page, stays.
    assert!(ex.pages.iter().any(|p| reads(&p.text, "Terminal Mode Operation")));
}

#[test]
fn a_title_at_the_top_of_the_right_column_is_read_first() {
    // Analog Devices ADXL345 p1: the product title, in 22.5 pt over a 9.5 pt body, sits at the top of the right
    // column, level with the start of the FEATURES list in the left one. Columns read left first would put it
    // after the whole list; it is read first, as the page presents it.
    let (text, _) = layout_page(&glyphs("adi-adxl345-p1-title"));
    let title = text.find("3-Axis, ±2 g/±4 g/±8 g/±16 g Digital Accelerometer");
    let features = text.find("FEATURES");
    assert!(title.is_some() && title < features, "{text}");
}

#[test]
fn a_chapter_title_level_with_the_page_number_on_two_pages_is_furniture() {
    // The gputils manual (LaTeX book class): chapter 3 ("gplink") runs over two pages that carry "CHAPTER 3.
    // GPLINK" in the header, level with the page number. Two pages are too few for the title to count alone; level
    // with the page number, it is the running header all the same.
    let ex = extract_file(&fixture("qa/documents/gputils.pdf"), LIMITS).unwrap();
    let header = |p: &ragsift_ingest::extract::PageText| p.furniture.iter().any(|f| reads(f, "CHAPTER 3. GPLINK"));
    let pages: Vec<u32> = ex.pages.iter().filter(|p| header(p)).map(|p| p.number).collect();
    assert!(pages.len() >= 2, "the header is the furniture of its pages: {pages:?}");
    for p in ex.pages.iter().filter(|p| header(p)) {
        assert!(
            !reads(&p.text, "CHAPTER 3. GPLINK"),
            "p{}: {}",
            p.number,
            &p.text[..p.text.len().min(200)]
        );
    }
    // A line of the contents is not a header: the contents page still lists the chapter with its page.
    assert!(ex.pages.iter().any(|p| reads(&p.text, "3 gplink 41")));
}

#[test]
fn a_footer_of_several_lines_over_the_page_number_is_set_apart() {
    // TLSH (Springer LNCS, CTC 2013): every page's foot holds a two-line "Published as …" note above the page
    // number. The note's first line was the fourth row from the bottom of the page, out of reach.
    let ex = extract_file(&fixture("qa/documents/TLSH_CTC_final.pdf"), LIMITS).unwrap();
    let note = "Published as Oliver, J., Cheng, C., Chen, Y.: TLSH - A Locality Sensitive Hash.";
    for p in &ex.pages {
        assert!(!reads(&p.text, note), "p{}: the note stays out of the body", p.number);
    }
    assert!(
        ex.pages
            .iter()
            .filter(|p| p.furniture.iter().any(|f| reads(f, note)))
            .count()
            >= 3
    );
}

#[test]
fn the_running_header_set_lower_on_the_first_page_is_furniture_there_too() {
    // TI BQ24650 p1: the part number and "SLUSA75B – JULY 2010 – REVISED JANUARY 2020" stand 1.7% of the page
    // lower than on the other 38 pages (under the page's banner), in the same sizes.
    let Some(path) = real_file("ti-bq24650") else { return };
    let ex = extract_file(&path, LIMITS).unwrap();
    let p1 = &ex.pages[0];
    assert!(!reads(&p1.text, "SLUSA75B"), "{}", &p1.text[..p1.text.len().min(300)]);
    assert!(p1.furniture.iter().any(|f| reads(f, "SLUSA75B")), "{:?}", p1.furniture);
    // The title, which begins with the part number in a larger size, stays.
    assert!(reads(
        &p1.text,
        "BQ24650 Stand-Alone Synchronous Buck Battery Charge Controller"
    ));
}

#[test]
fn a_table_under_its_title_block_keeps_its_rows_beside_a_side_of_wrapped_notes() {
    // Microchip KSZ8081 p35, Table 6-1: the section title, a note and the table's title stand over the left half
    // only; the Note column's cells wrap into a line above and a line below their row; "CMOS Level Inputs" opens
    // the next block under the last row. None of these stands beside the other side's lines, and the table was
    // read as two columns: Parameters to Typ., then Max., Units and Note.
    reads_rows(
        "microchip-ksz8081-p35-supply",
        &[
            "10BASE-T IDD1_3.3V — 41 — mA Full-duplex traffic @ 100% utilization",
            "EDPD Mode IDD3_3.3V — 20 — mA",
            "Power-Down Mode IDD4_3.3V — 4 — mA",
        ],
    );
}

#[test]
fn a_datasheet_row_whose_label_and_figures_both_wrap_is_read_as_a_row() {
    // Bosch BMP280 p7, Table 2: "Relative accuracy / pressure / VDD = 3.3V" beside "700 … 900hPa ±0.12 hPa /
    // 25 … 40 °C / ±1.0 m", each cell vertically centred in its row, so only each row's first line is level with
    // the other side. The last two rows were read as two columns: both rows' labels, then both rows' figures.
    reads_rows(
        "bosch-bmp280-p7-accuracy",
        &[
            "Relative accuracy Arel 700 ... 900hPa ±0.12 hPa",
            "25 . . . 40 °C VDD = 3.3V ±1.0 m",
            "Offset temperature TCO 900hPa ±1.5 Pa/K coefficient 25 . . . 40 °C 12.6 cm/K",
        ],
    );
}

#[test]
fn two_columns_under_a_full_width_table_are_read_as_columns() {
    // IEEE Transactions on Computers (2026) p8: Table I runs across the page, and its figures fill the 12 pt
    // gutter of the two columns below it, row after row, so no gutter showed and the columns were read
    // across, line by line ("SMURF achieves substanestimation more variance-sensitive"). The table is read row
    // by row as before, and each column down.
    let (text, _) = layout_page(&glyphs("ieee-tcomputers-2026-p8-table-over-columns"));
    assert!(
        reads(
            &text,
            "It maintains consistent accuracy not only for elementary trigonometric forms"
        ),
        "the left column reads on:\n{text}"
    );
    assert!(
        reads(&text, "Functions MAE@L = 64 RMSE@L = 64 MAE@L = 256 RMSE@L = 256"),
        "the table's header row stays a row:\n{text}"
    );
    assert!(
        text.find("TABLE II") > text.find("suitability for practical"),
        "the right column's table comes after the left column"
    );
}

#[test]
fn a_label_set_level_with_the_middle_of_its_rows_and_section_titles_keep_the_table_whole() {
    // Microchip KSZ8081 p35, Electrical Characteristics: section titles ("CMOS Level Inputs", "LED Output") run
    // from the first column over the others, and each parameter's label, symbol and unit stand once, level with
    // the middle of its three rows (one per VDDIO). The table is read past the titles, and each of the three rows
    // carries the label, the symbol and the unit.
    let rows = table_rows("microchip-ksz8081-p35-characteristics");
    let row = |cells: &str| row_with(&rows, cells);
    for (label, cells) in [
        (
            "Parameters: Input High Voltage; Symbol: VIH;",
            "Min.: 2.0; Typ.: —; Max.: —;",
        ),
        ("Parameters: Input High Voltage; Symbol: VIH;", "Min.: 1.3;"),
        ("Parameters: Input Low Voltage; Symbol: VIL;", "Max.: 0.8;"),
        ("Parameters: Input Low Voltage; Symbol: VIL;", "Max.: 0.5;"),
        ("Parameters: Output High Voltage; Symbol: VOH;", "Min.: 2.4;"),
        ("Parameters: Output Low Voltage; Symbol: VOL;", "Max.: 0.3;"),
    ] {
        let r = row(cells);
        assert!(r.starts_with(label) && r.contains("Units: V;"), "{r}");
    }
    // A row with its own label keeps it, and a section's title is a row of its own, given to no row.
    assert!(row("Max.: 10; Units: µA; Note: VIN").starts_with("Parameters: Input Current; Symbol: |IIN|;"));
    assert!(row("Typ.: 8;").starts_with("Parameters: Output Drive Current; Symbol: ILED;"));
    assert!(rows.iter().any(|r| r == "Parameters: CMOS Level Inputs"), "{rows:#?}");
    assert!(!rows.iter().any(|r| r.contains("CMOS Level Inputs;")), "{rows:#?}");
}

#[test]
fn a_table_of_one_row_under_its_caption_is_a_table() {
    // NXP FXOS8700CQ p2, "Table 1. Ordering information": a header and one part. Under its caption one row is a
    // table, and the row reads with its column names; without a caption, two rows at least are asked for.
    let tables = ragsift_ingest::extract::layout_tables(&glyphs("nxp-fxos8700cq-p2-ordering"));
    let rows: Vec<&str> = tables
        .iter()
        .flat_map(|t| t.rows.iter().map(|r| r.text.as_str()))
        .collect();
    assert_eq!(
        rows,
        ["Part number: FXOS8700CQR1; Temperature range: –40 °C to +85 °C; Package description: QFN; Shipping: Tape and reel"]
    );
    assert!(
        tables[0].head.starts_with("Table 1. Ordering information"),
        "{}",
        tables[0].head
    );
}

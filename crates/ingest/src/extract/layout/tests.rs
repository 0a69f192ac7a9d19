//! Reading order on synthetic pages: rows, spacing, columns, regions, right-to-left runs, paragraphs.
//!
//! Long because it is tests only, one per layout rule.

use super::*;

fn glyphs(x: f64, y: f64, size: f64, text: &str) -> Vec<Glyph> {
    let advance = size / 2.0;
    text.chars()
        .enumerate()
        .map(|(i, c)| Glyph {
            x: x + advance * i as f64,
            y,
            size,
            width: advance,
            text: c.to_string(),
            turn: 0,
        })
        .collect()
}

/// Ten-point text: every character, spaces included, advances 5pt.
fn word(x: f64, y: f64, text: &str) -> Vec<Glyph> {
    glyphs(x, y, 10.0, text)
}

/// A justified column line of 44 characters (220pt) starting with `tag`.
fn column_line(x: f64, y: f64, tag: &str) -> Vec<Glyph> {
    let filler = " lorem ipsum dolor sit amet consectetur adipiscing";
    word(x, y, &format!("{tag}{filler}")[..44])
}

/// Two columns of `lines` lines from `top` down, at x 72 and 320, tagged `left0`.. and `right0`...
fn two_columns(top: f64, lines: usize, left: &str, right: &str) -> Vec<Glyph> {
    let mut g = Vec::new();
    for i in 0..lines {
        let y = top - 12.0 * i as f64;
        g.extend(column_line(72.0, y, &format!("{left}{i}")));
        g.extend(column_line(320.0, y, &format!("{right}{i}")));
    }
    g
}

fn position(text: &str, word: &str) -> usize {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .iter()
        .position(|w| *w == word)
        .unwrap_or_else(|| panic!("{word} missing from: {text}"))
}

/// Asserts that the words appear in this order.
fn assert_order(text: &str, words: &[&str]) {
    for pair in words.windows(2) {
        assert!(
            position(text, pair[0]) < position(text, pair[1]),
            "{} must come before {}: {text}",
            pair[0],
            pair[1]
        );
    }
}

#[test]
fn right_to_left_lines_come_out_in_reading_order() {
    // As Chromium places them: the visual order, left to right.
    assert_eq!(
        logical_order(".طيسب يبرع صن اذه .ملاعلاب ابحرم"),
        "مرحبا بالعالم. هذا نص عربي بسيط."
    );
    assert_eq!(logical_order("the word ابحرم here"), "the word مرحبا here");
    assert_eq!(logical_order("םולש world"), "שלום world");
    assert_eq!(logical_order("plain text"), "plain text");
}

#[test]
fn a_right_to_left_ligature_glyph_keeps_its_letters_in_order() {
    // "سلام" as Chromium places it, left to right: meem, the lam-alef ligature (one glyph, "لا"), seen.
    let mut g = word(72.0, 700.0, "peace is");
    for (i, t) in ["م", "لا", "س"].iter().enumerate() {
        g.push(Glyph {
            x: 120.0 + 6.0 * i as f64,
            y: 700.0,
            size: 10.0,
            width: 6.0,
            text: (*t).to_string(),
            turn: 0,
        });
    }
    assert_eq!(page_text(&g), "peace is سلام");
}

#[test]
fn spaces_come_from_gaps() {
    let mut g = word(72.0, 700.0, "hello");
    g.extend(word(100.0, 700.0, "world"));
    assert_eq!(page_text(&g), "hello world");
}

#[test]
fn two_columns_are_read_left_then_right() {
    let mut g = word(
        72.0,
        760.0,
        "A title that spans the whole page width across the gutter and more words",
    );
    for i in 0..5 {
        let y = 700.0 - 12.0 * i as f64;
        g.extend(column_line(320.0, y, &format!("right{i}")));
        g.extend(column_line(72.0, y, &format!("left{i}")));
    }
    let text = page_text(&g);
    assert_order(&text, &["left0", "left4", "right0", "right4"]);
    assert!(text.starts_with("A title"));
}

#[test]
fn a_narrow_gutter_still_separates_lines_on_one_baseline() {
    // 12pt between the columns: less than the 1.5 font sizes that once split a row (the Word/IEEE case).
    let mut g = Vec::new();
    for i in 0..8 {
        let y = 700.0 - 12.0 * i as f64;
        g.extend(column_line(72.0, y, &format!("left{i}")));
        g.extend(column_line(304.0, y, &format!("right{i}")));
    }
    let text = page_text(&g);
    assert_order(&text, &["left0", "left7", "right0", "right7"]);
}

#[test]
fn columns_offset_by_half_a_line_are_still_columns() {
    let mut g = Vec::new();
    for i in 0..8 {
        g.extend(column_line(72.0, 700.0 - 12.0 * i as f64, &format!("left{i}")));
        g.extend(column_line(320.0, 694.0 - 12.0 * i as f64, &format!("right{i}")));
    }
    let text = page_text(&g);
    assert_order(&text, &["left0", "left7", "right0", "right7"]);
}

#[test]
fn columns_start_below_a_long_full_width_abstract() {
    let mut g = word(200.0, 780.0, "A Paper Title");
    for i in 0..10 {
        let line = format!("abstract{i} runs across the whole page from one margin to the other one ok");
        g.extend(word(72.0, 750.0 - 12.0 * i as f64, &line));
    }
    g.extend(two_columns(600.0, 8, "left", "right"));
    let text = page_text(&g);
    assert_order(
        &text,
        &["Title", "abstract0", "abstract9", "left0", "left7", "right0", "right7"],
    );
}

#[test]
fn a_full_width_caption_splits_the_columns_into_regions() {
    let mut g = Vec::new();
    g.extend(two_columns(700.0, 5, "topleft", "topright"));
    g.extend(word(
        72.0,
        620.0,
        "Figure 1: caption text that runs across both of the columns of the page here",
    ));
    g.extend(two_columns(590.0, 5, "lowleft", "lowright"));
    let text = page_text(&g);
    assert_order(
        &text,
        &[
            "topleft4",
            "topright0",
            "topright4",
            "Figure",
            "lowleft0",
            "lowleft4",
            "lowright0",
        ],
    );
}

#[test]
fn regions_find_their_own_gutters() {
    // Columns split at the middle above a full-width line, and a narrow sidebar beside a wide column below.
    let mut g = Vec::new();
    g.extend(two_columns(700.0, 6, "upleft", "upright"));
    g.extend(word(
        72.0,
        620.0,
        "a full width line that separates the two regions of this page from each other",
    ));
    for i in 0..6 {
        let y = 590.0 - 12.0 * i as f64;
        g.extend(word(72.0, y, &format!("side{i} notes in the margin")));
        g.extend(word(
            220.0,
            y,
            &format!("main{i} text of a wide column that fills the rest of the"),
        ));
    }
    let text = page_text(&g);
    assert_order(
        &text,
        &[
            "upleft5", "upright0", "upright5", "full", "side0", "side5", "main0", "main5",
        ],
    );
}

#[test]
fn a_table_on_a_single_column_page_is_read_row_by_row() {
    let mut g = Vec::new();
    let body = "body text of a single column page that runs from margin to margin";
    for i in 0..10 {
        g.extend(word(72.0, 740.0 - 12.0 * i as f64, &format!("{body} {i}")));
    }
    for i in 0..5 {
        let y = 600.0 - 12.0 * i as f64;
        g.extend(word(72.0, y, &format!("term{i}")));
        g.extend(word(250.0, y, &format!("meaning{i} is described in this cell")));
    }
    let text = page_text(&g);
    assert_order(&text, &["term0", "meaning0", "term1", "meaning1", "term4", "meaning4"]);
}

#[test]
fn running_header_and_footer_are_read_whole() {
    let mut g = word(72.0, 760.0, "Seltzer & Yigit");
    g.extend(word(435.0, 760.0, "A New Hashing Package"));
    g.extend(two_columns(720.0, 8, "left", "right"));
    g.extend(word(72.0, 60.0, "USENIX Winter"));
    g.extend(word(535.0, 60.0, "3"));
    let text = page_text(&g);
    assert!(text.starts_with("Seltzer & Yigit A New Hashing Package"), "{text}");
    assert!(text.ends_with("USENIX Winter 3"), "{text}");
    assert_order(&text, &["left7", "right0"]);
}

#[test]
fn a_superscript_stays_on_its_line() {
    // The superscript sits higher, so it is met first; the rest of its line must still join it.
    let mut g = glyphs(162.0, 705.0, 8.0, "32");
    g.extend(word(72.0, 700.0, "keys as large as 2"));
    g.extend(word(175.0, 700.0, "bytes are kept"));
    g.extend(word(72.0, 688.0, "on the next line"));
    assert_eq!(page_text(&g), "keys as large as 232 bytes are kept on the next line");
}

#[test]
fn wide_gaps_make_paragraphs() {
    let mut g = word(72.0, 700.0, "one");
    g.extend(word(72.0, 688.0, "two"));
    g.extend(word(72.0, 650.0, "three"));
    assert_eq!(page_text(&g), "one two\n\nthree");
}

#[test]
fn line_numbers_down_the_margin_are_left_out() {
    let mut g = Vec::new();
    for i in 0..8 {
        let y = 700.0 - 12.0 * i as f64;
        g.extend(glyphs(50.0, y, 7.0, &format!("{}", 41 + i)));
        g.extend(word(72.0, y, &format!("body{i} text of the numbered line")));
    }
    let text = page_text(&g);
    assert!(!text.contains("41") && !text.contains("48"), "{text}");
    assert_order(&text, &["body0", "body7"]);
    // A table's column of figures does not count up line by line: it stays.
    let mut t = Vec::new();
    for (i, n) in [512, 64, 2048, 8, 96, 4].iter().enumerate() {
        let y = 600.0 - 12.0 * i as f64;
        t.extend(word(72.0, y, &format!("setting{i}")));
        t.extend(word(200.0, y, &n.to_string()));
    }
    assert!(page_text(&t).contains("2048"));
    // A table's first column of codes counting up (0, 1, 2 …) lies in the text block, under a paragraph that
    // starts at the same margin: it stays too.
    let mut codes = word(72.0, 720.0, "The codes and their meaning are listed below.");
    for i in 0..10 {
        let y = 700.0 - 12.0 * i as f64;
        codes.extend(word(72.0, y, &i.to_string()));
        codes.extend(word(110.0, y, &format!("meaning{i} of the code")));
    }
    let text = page_text(&codes);
    assert!(text.contains("0 meaning0") && text.contains("9 meaning9"), "{text}");
}

#[test]
fn text_drawn_over_a_line_does_not_splice_into_its_words() {
    // The line is drawn first, then a figure's letters one by one across it on the same baseline.
    let mut g = word(72.0, 700.0, "pre-training and fine-tuning");
    for (i, c) in ["B", "E", "R", "T"].iter().enumerate() {
        g.extend(word(80.0 + 25.0 * i as f64, 700.5, c));
    }
    let text = page_text(&g);
    assert!(text.contains("pre-training and fine-tuning"), "{text}");
    // Text drawn twice in place (fake bold) is read once.
    let mut bold = word(72.0, 650.0, "Bold heading");
    bold.extend(word(72.3, 650.0, "Bold heading"));
    assert_eq!(page_text(&bold), "Bold heading");
    // Bold faked glyph by glyph (each letter struck twice, half a point apart) is read once; "ll" stays.
    let mut struck = Vec::new();
    for g in word(72.0, 600.0, "Programmers all") {
        let mut twin = g.clone();
        twin.x += 0.5;
        struck.push(g);
        struck.push(twin);
    }
    assert_eq!(page_text(&struck), "Programmers all");
}

#[test]
fn a_full_width_table_between_columns_is_read_whole_in_place() {
    // Two columns, then a table whose cells happen to leave the gutter empty, then two columns again.
    let mut g = two_columns(700.0, 5, "topleft", "topright");
    for (i, label) in ["alpha", "beta", "gamma"].iter().enumerate() {
        let y = 620.0 - 12.0 * i as f64;
        g.extend(word(72.0, y, label));
        for (k, x) in [200.0, 250.0, 380.0, 450.0].iter().enumerate() {
            g.extend(word(*x, y, &format!("{}", 10 * i + k)));
        }
    }
    g.extend(two_columns(570.0, 5, "lowleft", "lowright"));
    let text = page_text(&g);
    assert_order(
        &text,
        &[
            "topleft4",
            "topright0",
            "topright4",
            "alpha",
            "3",
            "beta",
            "13",
            "gamma",
            "23",
            "lowleft0",
            "lowleft4",
            "lowright0",
        ],
    );
}

#[test]
fn a_sentence_broken_across_a_column_jump_stays_one_paragraph() {
    let mut g = Vec::new();
    for i in 0..4 {
        let y = 700.0 - 12.0 * i as f64;
        g.extend(column_line(72.0, y, &format!("left{i}")));
        g.extend(column_line(320.0, y, &format!("right{i}")));
    }
    g.extend(word(72.0, 652.0, "the sentence goes on in the retrieval-"));
    g.extend(word(320.0, 652.0, "the end. A retrieval-augmented tool."));
    g.extend(word(72.0, 640.0, "a hyphenated archi-"));
    g.extend(column_line(320.0, 640.0, "right4"));
    // The right column's first line continues the left column's last.
    let mut text = page_text(&g);
    assert!(text.contains("archi- right0") || text.contains("archiright0"), "{text}");
    g.truncate(0);
    g.extend(word(72.0, 700.0, "a line that ends in a compound retrieval-"));
    g.extend(word(72.0, 688.0, "augmented, and a word broken as archi-"));
    g.extend(word(72.0, 676.0, "tecture; here retrieval-augmented stands whole."));
    text = page_text(&g);
    assert!(text.contains("retrieval-augmented, and"), "{text}");
    assert!(text.contains("architecture;"), "{text}");
    assert!(!text.contains("\n\n"), "{text}");
}

#[test]
fn an_accent_set_over_its_letter_is_composed_with_it() {
    // TeX's \accent: "m", "o", then a dieresis centred over the "o", then the rest of the word.
    let mut g = word(72.0, 700.0, "mo");
    g.push(Glyph {
        x: 77.5,
        y: 702.0,
        size: 10.0,
        width: 4.0,
        text: "\u{a8}".to_string(),
        turn: 0,
    });
    g.extend(word(82.0, 700.0, "glichst ~ x^2"));
    assert_eq!(page_text(&g), "möglichst ~ x^2");
}

#[test]
fn a_narrow_centred_table_between_columns_is_read_in_place() {
    // The table spans under half the text width, two cells on each side of the gutter, under a header row that
    // crosses it: its rows must not be split between the columns below.
    let mut g = two_columns(700.0, 5, "topleft", "topright");
    g.extend(word(180.0, 630.0, "Mode Top Threshold Latency"));
    for (i, (mode, a, b, c)) in [("vector", "4", "0.0", "12"), ("keyword", "4", "none", "3")]
        .iter()
        .enumerate()
    {
        let y = 618.0 - 12.0 * i as f64;
        g.extend(word(180.0, y, mode));
        g.extend(word(260.0, y, a));
        g.extend(word(330.0, y, b));
        g.extend(word(390.0, y, c));
    }
    g.extend(two_columns(570.0, 5, "lowleft", "lowright"));
    let text = page_text(&g);
    assert_order(
        &text,
        &[
            "topright4",
            "vector",
            "0.0",
            "12",
            "keyword",
            "none",
            "lowleft0",
            "lowleft4",
            "lowright0",
        ],
    );
}

#[test]
fn a_lone_row_of_figure_labels_between_columns_is_read_in_place() {
    let mut g = two_columns(700.0, 5, "topleft", "topright");
    for (k, label) in ["glyphs", "→", "words", "→", "lines", "→", "blocks", "→", "passages"]
        .iter()
        .enumerate()
    {
        g.extend(word(80.0 + 45.0 * k as f64, 612.0, label));
    }
    g.extend(two_columns(570.0, 5, "lowleft", "lowright"));
    let text = page_text(&g);
    assert_order(
        &text,
        &[
            "topleft4",
            "topright4",
            "glyphs",
            "lines",
            "blocks",
            "passages",
            "lowleft0",
        ],
    );
}

#[test]
fn a_short_right_column_does_not_hide_the_gutter() {
    // The right column ends two lines into the page; its footnote sits at the foot. The empty stretch of the
    // right column is wider than the gutter, but has no text along its edges.
    let mut g = Vec::new();
    for i in 0..20 {
        g.extend(column_line(72.0, 700.0 - 12.0 * i as f64, &format!("left{i}")));
    }
    g.extend(column_line(320.0, 712.0, "rightA"));
    g.extend(column_line(320.0, 700.0, "rightB"));
    g.extend(column_line(320.0, 472.0, "note1"));
    g.extend(word(320.0, 460.0, "noteend of it"));
    let text = page_text(&g);
    assert_order(&text, &["left0", "left19", "rightA", "rightB", "note1"]);
}

#[test]
fn a_lowered_subscript_stays_with_its_word() {
    // Chromium lowers `<sub>` by about 0.3 of the line's size.
    let mut g = word(72.0, 700.0, "between BERT");
    g.extend(glyphs(132.0, 697.0, 7.0, "BASE"));
    g.extend(word(150.0, 700.0, " and more"));
    g.extend(word(72.0, 688.0, "on the next line"));
    assert_eq!(page_text(&g), "between BERTBASE and more on the next line");
}

#[test]
fn a_table_row_level_with_a_column_s_short_last_line_stays_in_its_column() {
    // Left: a table of short cells under two headings; right: prose whose one-word last line is level with a
    // table row, then another table's header (as on page 11 of the USENIX hashing paper). The last line must
    // follow its paragraph, not the table row beside it.
    let mut g = word(72.0, 736.0, "SEQUENTIAL with data retrieval");
    g.extend(word(72.0, 724.0, "elapsed user and sys in seconds"));
    for i in 0..8 {
        let y = 700.0 - 12.0 * i as f64;
        g.extend(word(72.0, y, &format!("row{i}")));
        g.extend(word(130.0, y, "90.4"));
        g.extend(word(180.0, y, "99.6"));
        g.extend(word(230.0, y, "9"));
    }
    for i in 0..4 {
        g.extend(column_line(320.0, 700.0 - 12.0 * i as f64, &format!("prose{i}")));
    }
    g.extend(word(320.0, 652.0, "easily."));
    g.extend(word(340.0, 640.0, "hash"));
    g.extend(word(400.0, 640.0, "ndbm"));
    g.extend(word(520.0, 640.0, "%change"));
    let text = page_text(&g);
    let words: Vec<&str> = text.split_whitespace().collect();
    let last = position(&text, "easily.");
    assert!(words[last - 1].starts_with("consectetu"), "{text}");
    assert_order(&text, &["row0", "row7", "prose0", "prose3", "easily."]);
}

#[test]
fn a_table_whose_cells_wrap_is_read_row_by_row_not_column_after_column() {
    // An option table: two short cells on the left, a meaning on the right that wraps onto a second line for
    // every other option, so the right side looks like a column of prose beside a gutter.
    let mut g = Vec::new();
    let mut y = 700.0;
    for i in 0..8 {
        g.extend(word(72.0, y, &format!("-{i}")));
        g.extend(word(110.0, y, &format!("--opt{i}-with-a-long-name")));
        g.extend(column_line(300.0, y, &format!("mean{i}")));
        if i % 2 == 0 {
            y -= 12.0;
            g.extend(column_line(300.0, y, &format!("wrap{i}")));
        }
        y -= 12.0;
    }
    let text = page_text(&g);
    let opt = |i: usize| format!("--opt{i}-with-a-long-name");
    let (o0, o1, o2, o7) = (opt(0), opt(1), opt(2), opt(7));
    assert_order(
        &text,
        &[&o0, "mean0", "wrap0", &o1, "mean1", &o2, "mean2", "wrap2", &o7],
    );
    assert!(text.contains("-3 --opt3-with-a-long-name mean3"), "{text}");
    // Two columns of prose level with each other stay columns.
    let text = page_text(&two_columns(700.0, 8, "left", "right"));
    assert_order(&text, &["left0", "left7", "right0", "right7"]);
}

#[test]
fn a_footnote_number_raised_after_a_word_stands_apart_and_a_unit_square_stays() {
    // "temperature³ ... cm² ... x²": only the footnote marker after a word of three letters or more is a word.
    let mut g = word(72.0, 700.0, "temperature");
    g.extend(glyphs(127.0, 703.5, 6.0, "3"));
    g.extend(word(140.0, 700.0, "in cm"));
    g.extend(glyphs(165.0, 703.5, 6.0, "2"));
    g.extend(word(175.0, 700.0, "and x"));
    g.extend(glyphs(200.0, 703.5, 6.0, "2"));
    assert_eq!(page_text(&g).trim(), "temperature 3 in cm2 and x2");
}

//! Tells a page whose glyphs were decoded with the wrong map (a subset font without a usable ToUnicode, a font
//! resolved by the wrong name, a ToUnicode map that sends glyphs to garbage) from real text: such pages read as
//! strings no language has. A wrong map shows in one of a few ways, each judged over the page as a whole:
//! private-use or control characters; words no language writes; letters of a consistent but wrong alphabet (a
//! shifted or shuffled map: vowels no longer where every Latin-script language has them); punctuation where
//! letters belong; letters of several scripts inside one word; or Han ideographs drawn from an alphabet-sized set.

/// How much of a page's text is looked at.
const SAMPLE_BYTES: usize = 8 * 1024;
/// At least this many words of Latin letters are needed before a page is judged (a short label page is not).
const MIN_WORDS: usize = 15;
/// A page is garbled when more than this share of its Latin words look impossible.
const IMPOSSIBLE_SHARE: f64 = 0.35;
/// … or when more than this share of its characters are private-use, control or replacement characters.
const JUNK_SHARE: f64 = 0.2;

/// True when the text looks decoded with the wrong map rather than written by someone.
pub fn looks_garbled(text: &str) -> bool {
    // A sample is enough: a page decoded with the wrong map is wrong all through.
    let end = (0..=SAMPLE_BYTES.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let text = &text[..end];
    let chars = text.chars().filter(|c| !c.is_whitespace()).count();
    let junk = text
        .chars()
        .filter(|&c| c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace()) || is_private_use(c))
        .count();
    if chars >= 40 && junk as f64 > JUNK_SHARE * chars as f64 {
        return true;
    }
    // Words as written between spaces, less the punctuation around them; anything with other marks inside
    // (code, paths, formulas) is not judged, nor is an identifier with a number in it (ATmega1284P, hcs1365,
    // rf509af: part numbers and versions, which a wrong map seldom makes).
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | '.' | ';' | ':' | '"' | '\'' | '!' | '?')))
        .filter(|w| w.len() >= 4 && w.chars().any(|c| c.is_ascii_alphabetic()))
        .filter(|w| w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| !w.as_bytes().windows(2).any(|p| p.iter().all(u8::is_ascii_digit)))
        .collect();
    if words.len() >= MIN_WORDS {
        let impossible = words.iter().filter(|w| impossible(w)).count();
        if impossible as f64 > IMPOSSIBLE_SHARE * words.len() as f64 {
            return true;
        }
    }
    wrong_alphabet(text) || punctuation_for_letters(text) || mixed_scripts(text) || few_ideographs(text)
}

/// Vowels of Latin-script languages, accented ones included: Vietnamese's horned ơ and ư and its vowels with
/// tone marks (U+1EA0–U+1EF9) too.
fn is_vowel(c: char) -> bool {
    "aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿāăąēĕėęěīĭįıōŏőœūŭůűųơư".contains(c) || ('\u{1EA0}'..='\u{1EF9}').contains(&c)
}

/// Latin letters: the Latin blocks up to IPA, and Latin Extended Additional (Vietnamese, Welsh).
fn is_latin(c: char) -> bool {
    (c as u32) < 0x250 || ('\u{1E00}'..='\u{1EFF}').contains(&c)
}

/// Every Latin-script language writes about two letters in five as vowels (English 0.38, German 0.38, French 0.45,
/// Polish and Czech 0.42), has vowels among its most frequent letters, and hardly a word of four letters without
/// one. A map that sends glyphs to the wrong letters, consistently (a shifted or shuffled alphabet), keeps words
/// looking like words but moves the vowels: two of these three going wrong, or one far out, is such a map. Judged
/// over the page's distinct words (a word repeated down a list or a table counts once), at least
/// [`MIN_DISTINCT_WORDS`] of them. No page of 2,700 of TeX Live's documentation (many languages) is called so; a
/// random shuffle of their letters is, on seven pages in ten.
fn wrong_alphabet(text: &str) -> bool {
    // Words of Latin letters with a lower-case one: acronyms and pin names (GND, SCL) are not judged.
    let words: std::collections::HashSet<String> = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() >= 2 && w.chars().all(|c| c.is_alphabetic() && is_latin(c)))
        .filter(|w| w.chars().any(char::is_lowercase))
        .map(str::to_lowercase)
        .collect();
    if words.len() < MIN_DISTINCT_WORDS {
        return false;
    }
    let mut counts = std::collections::HashMap::<char, usize>::new();
    for c in words.iter().flat_map(|w| w.chars()) {
        *counts.entry(c).or_default() += 1;
    }
    let letters: usize = counts.values().sum();
    let vowels: usize = counts.iter().filter(|(c, _)| is_vowel(**c)).map(|(_, n)| n).sum();
    let share = vowels as f64 / letters as f64;
    let mut by_count: Vec<(char, usize)> = counts.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let top_vowels = by_count.iter().take(5).filter(|(c, _)| is_vowel(*c)).count();
    // Words of four letters or more without a vowel (abbreviations are shorter: "kt", "pps", "bvm").
    let long: Vec<&String> = words.iter().filter(|w| w.chars().count() >= 4).collect();
    let voweless = long.iter().filter(|w| !w.chars().any(is_vowel)).count() as f64 / long.len().max(1) as f64;
    let odd = usize::from(share < 0.32) + usize::from(top_vowels < 2) + usize::from(voweless > 0.1);
    odd >= 2 || share < 0.25 || voweless > 0.25
}

/// Distinct words of Latin letters needed before a page's alphabet is judged.
const MIN_DISTINCT_WORDS: usize = 20;

/// Punctuation and symbols other than math operators, counted once per run (dot leaders, rules of dashes).
fn is_symbol(c: char) -> bool {
    !(c.is_alphanumeric() || c.is_whitespace() || c.is_control() || is_math(c))
}

fn is_math(c: char) -> bool {
    matches!(c, '+' | '<' | '=' | '>' | '|' | '~' | '^' | '±' | '×' | '÷' | '¬' | '\u{2200}'..='\u{22FF}'
        | '\u{27C0}'..='\u{27EF}' | '\u{2980}'..='\u{2AFF}' | '\u{2190}'..='\u{21FF}')
}

/// A map that sends letters to punctuation (a glyph-order map landing in ASCII's or Latin-1's symbols): more than
/// 45% of the page's characters are symbols, and hardly a tenth of its words are made of letters. Code and
/// formulas stay under it (math operators are not counted; identifiers are words).
fn punctuation_for_letters(text: &str) -> bool {
    let mut seen = 0usize;
    let mut symbols = 0usize;
    let mut last = None;
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        if last == Some(c) {
            continue;
        }
        last = Some(c);
        seen += 1;
        symbols += usize::from(is_symbol(c));
    }
    if seen < 40 || symbols as f64 <= 0.45 * seen as f64 {
        return false;
    }
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let wordlike = tokens
        .iter()
        .map(|t| t.trim_matches(|c: char| c.is_ascii_punctuation()))
        .filter(|t| t.chars().count() >= 2 && t.chars().all(char::is_alphabetic))
        .count();
    (wordlike as f64) < 0.1 * tokens.len() as f64
}

/// The alphabetic script a letter is written in (by Unicode block; IPA is Latin, presentation forms are their
/// script's), for [`mixed_scripts`]; `None` for ideographs, syllabaries and anything else.
fn script(c: char) -> Option<u8> {
    Some(match c as u32 {
        0..=0x2AF | 0x1E00..=0x1EFF => 1,
        0x370..=0x3FF | 0x1F00..=0x1FFF => 2,
        0x400..=0x52F => 3,
        0x530..=0x58F => 4,
        0x590..=0x5FF | 0xFB1D..=0xFB4F => 5,
        0x600..=0x6FF | 0x750..=0x77F | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => 6,
        0x900..=0xDFF => 7,
        _ => return None,
    })
}

/// A map that sends glyph numbers to code points as they are (an identity map over a font's glyph order) spreads
/// one word's letters over Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic…: more than half the words of four
/// letters or more mix scripts. Real text mixes them in a unit or a formula (μA, kΩ, σxσy), a few words a page:
/// at most 16% of them on 2,700 pages of TeX Live's documentation in many languages, against 80% or more of the
/// words of such a map.
fn mixed_scripts(text: &str) -> bool {
    let (mut judged, mut mixed) = (0usize, 0usize);
    for word in text.split_whitespace() {
        let scripts: Vec<u8> = word.chars().filter(|c| c.is_alphabetic()).filter_map(script).collect();
        if scripts.len() < 4 {
            continue;
        }
        judged += 1;
        mixed += usize::from(scripts.iter().any(|&s| s != scripts[0]));
    }
    judged >= 10 && mixed as f64 > 0.5 * judged as f64
}

/// Han text draws on thousands of ideographs: a hundred of them in a row use dozens of different ones. Letters
/// mapped onto ideographs use an alphabet's worth: fewer than 12% different.
fn few_ideographs(text: &str) -> bool {
    let han: Vec<char> = text
        .chars()
        .filter(|&c| matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF))
        .collect();
    if han.len() < 100 {
        return false;
    }
    let distinct: std::collections::HashSet<&char> = han.iter().collect();
    (distinct.len() as f64) < 0.12 * han.len() as f64
}

/// What a person can do about pages still garbled, by whether OCR ran and why not, and whether poppler (the
/// second reading) is installed.
pub(super) fn advice(ocr: Option<ragsift_core::NoTextOcr>, poppler: bool) -> String {
    use ragsift_core::NoTextOcr;
    let poppler = if poppler { "" } else { " (or install poppler-utils)" };
    match ocr {
        Some(NoTextOcr::Read) => "OCR could not read them either".into(),
        Some(NoTextOcr::Off) => format!("OCR is off — turn it on to read them{poppler}"),
        Some(NoTextOcr::Missing) => format!("OCR could read them, but Tesseract is not installed{poppler}"),
        None => format!("OCR can read them (turn it on; it needs Tesseract){poppler}"),
    }
}

fn is_private_use(c: char) -> bool {
    matches!(c, '\u{E000}'..='\u{F8FF}' | '\u{F0000}'..='\u{FFFFD}' | '\u{100000}'..='\u{10FFFD}')
}

/// A word no language writes: letters without a vowel, six consonants in a row, capitals inside it that begin no
/// syllable, or digits inside letters.
fn impossible(word: &str) -> bool {
    word.split('-').filter(|p| !p.is_empty()).any(|part| {
        let letters: Vec<char> = part.chars().collect();
        if letters.iter().all(|c| c.is_ascii_digit()) {
            return false;
        }
        let vowel = |c: &char| matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u' | 'y');
        let alpha: Vec<char> = letters.iter().copied().filter(char::is_ascii_alphabetic).collect();
        let no_vowel = alpha.len() >= 4 && !alpha.iter().any(vowel) && alpha.iter().any(char::is_ascii_lowercase);
        let consonants = letters
            .split(|c| !c.is_ascii_alphabetic() || vowel(c))
            .any(|run| run.len() >= 6);
        // Capitals inside a word: CamelCase names start a syllable or more at each (DisplayStyleSize); wrongly
        // mapped letters leave one or two (yDaNviQs).
        let humps: Vec<usize> = (1..letters.len())
            .filter(|&i| letters[i - 1].is_ascii_lowercase() && letters[i].is_ascii_uppercase())
            .collect();
        let short_humps = humps
            .iter()
            .enumerate()
            .filter(|&(k, &at)| {
                let end = humps.get(k + 1).copied().unwrap_or(letters.len());
                end - at <= 2
            })
            .count();
        let digits_inside = letters.len() > 2
            && letters[1..letters.len() - 1].iter().any(char::is_ascii_digit)
            && letters.first().is_some_and(char::is_ascii_alphabetic)
            && letters.last().is_some_and(char::is_ascii_alphabetic);
        no_vowel || consonants || (humps.len() >= 2 && short_humps >= 2) || digits_inside
    })
}

#[cfg(test)]
mod tests {
    use super::looks_garbled;

    #[test]
    fn garbage_is_told_from_text() {
        let text = "The extractor groups glyphs into words by their horizontal distance, words into lines by \
                    their shared baseline, and lines into blocks by their vertical spacing and their common left \
                    edge. A getPages() call and an iPhone are fine; so are strengths, BERT-Base and \\cs_new:Npn, and \
                    FractionDenominatorDisplayStyleShiftDown.";
        assert!(!looks_garbled(text));
        let garbage = "aplcliyDaNviQs-sti-e7i-NsaDeiItfItQtes Qrnfgkw xcvbnmqw hjklzxcv tbNvcQxw pqrstvwx \
                       zxcvbnml kjhgfdsq wrtzpqxc lkjhgfdq mnbvcxzq qwrtpsdf ghjklzxc vbnmqwrt pLkMjNhB \
                       sdfghjkl qwrtzpsd";
        assert!(looks_garbled(garbage));
        assert!(looks_garbled(&"\u{E001}\u{E002}\u{E003} ".repeat(20)));
        // Lists of part numbers are names, not garbage.
        let parts = "usb82 AT90USB82 m103 ATmega103 m128 ATmega128 m1280 ATmega1280 m1284rfr2 ATmega1284RFR2 \
                     m128rfa1 ATmega128RFA1 m16u2 ATmega16U2 hcs1365 hcs1370 mcv08a mcv14a rf509af rf675h sx18 sx28";
        assert!(!looks_garbled(parts));
        // Too little text to judge.
        assert!(!looks_garbled("Xqzt Brrr"));
        // Vietnamese writes most of its vowels with tone marks, and its commonest letters are the consonants of
        // nh, ng, th and ch (a Word thesis of the real set, p2).
        let vietnamese = "Tôi xin cam đoan các kết quả của đề tài “Xây dựng công cụ tự động nhận dạng cảm xúc dựa trên \
                          mặt người” là công trình nghiên cứu của cá nhân tôi và chưa từng được công bố trong bất cứ \
                          công trình khoa học nào khác tính tới thời điểm hiện tại. Các số liệu, kết quả được nêu trong \
                          luận văn là trung thực. Các thông tin tham khảo đã được trích dẫn và ghi nguồn đầy đủ. Nếu \
                          không đúng như đã nêu trên, tôi xin chịu trách nhiệm về đề tài của mình. Cần Thơ ngày 31 \
                          tháng 7 năm 2018 Người cam đoan";
        assert!(!looks_garbled(vietnamese));
    }
}

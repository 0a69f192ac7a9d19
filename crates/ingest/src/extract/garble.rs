//! Tells a page whose glyphs were decoded with the wrong map (a subset font without a usable ToUnicode, a font
//! resolved by the wrong name) from real text: such pages read as strings no language has.

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
    if words.len() < MIN_WORDS {
        return false;
    }
    let impossible = words.iter().filter(|w| impossible(w)).count();
    impossible as f64 > IMPOSSIBLE_SHARE * words.len() as f64
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
    }
}

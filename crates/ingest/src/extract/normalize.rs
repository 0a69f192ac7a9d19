//! Text clean-up shared by every loader: Unicode compatibility forms, whitespace, and line-end hyphenation.

use super::lexicon;
use unicode_normalization::UnicodeNormalization;

/// NFKC (so ligatures like "ﬁ" become "fi"), soft hyphens dropped, every kind of space made a plain space,
/// runs of spaces collapsed and the ends trimmed. Newlines are kept.
pub fn clean_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last_space = true;
    for c in s.nfkc() {
        match c {
            '\u{00AD}' | '\u{200B}' | '\u{FEFF}' => {}
            c if c.is_whitespace() && c != '\n' => {
                if !last_space {
                    out.push(' ');
                    last_space = true;
                }
            }
            c if c.is_control() && c != '\n' => {}
            c => {
                out.push(c);
                last_space = false;
            }
        }
    }
    out.trim_end().to_string()
}

/// Joins the lines of one paragraph with single spaces, re-joining words hyphenated across a line end
/// ("tempera-" + "ture" → "temperature"); a hyphen before an uppercase letter or digit is kept ("X-" + "Ray"),
/// and so is that of a compound ("retrieval-" + "augmented", [`lexicon::compound`]).
pub fn join_lines<S: AsRef<str>>(lines: &[S]) -> String {
    join_lines_keeping(lines, &lexicon::compound)
}

/// [`join_lines`], keeping the hyphen of a word broken at a line end when `compound(first, second)` says the
/// hyphenated form is a compound (one the same text writes whole elsewhere: "retrieval-" + "augmented").
pub fn join_lines_keeping<S: AsRef<str>>(lines: &[S], compound: &dyn Fn(&str, &str) -> bool) -> String {
    join_lines_tracked(lines, compound).0
}

/// [`join_lines_keeping`], also returning where each input line starts in the joined text (a byte offset; an
/// empty line gets the offset where it would have been).
pub fn join_lines_tracked<S: AsRef<str>>(lines: &[S], compound: &dyn Fn(&str, &str) -> bool) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut starts = Vec::with_capacity(lines.len());
    for line in lines {
        let line = line.as_ref().trim();
        if line.is_empty() {
            starts.push(out.len());
            continue;
        }
        if out.is_empty() {
            starts.push(0);
            out.push_str(line);
            continue;
        }
        let next_lower = line.chars().next().is_some_and(|c| c.is_lowercase());
        let mut tail = out.chars().rev();
        let hyphenated = tail.next() == Some('-') && tail.next().is_some_and(|c| c.is_alphabetic());
        if hyphenated && next_lower {
            let first = out[..out.len() - 1].rsplit(char::is_whitespace).next().unwrap_or("");
            let second = line.split(char::is_whitespace).next().unwrap_or("");
            if !compound(first, second) {
                out.pop();
            }
        } else {
            out.push(' ');
        }
        starts.push(out.len());
        out.push_str(line);
    }
    (out, starts)
}

/// Normalises a whole plain-text document: CRLF → LF, each line cleaned, runs of blank lines collapsed to one,
/// and the lines of each paragraph joined (with hyphenation repaired).
pub fn normalize_text(s: &str) -> String {
    let s = s.replace("\r\n", "\n").replace('\r', "\n");
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for line in s.split('\n') {
        let line = clean_line(line);
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(join_lines(&current));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(join_lines(&current));
    }
    paragraphs.join("\n\n")
}

/// Normalises Markdown: lines are kept as written (lists, headings and code keep their shape), each line is
/// cleaned, and runs of blank lines collapse to one.
pub fn normalize_markdown(s: &str) -> String {
    let s = s.replace("\r\n", "\n").replace('\r', "\n");
    let mut out: Vec<String> = Vec::new();
    for line in s.split('\n') {
        let line = clean_line(line);
        if line.is_empty() && out.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// Lower-cased alphanumeric words.
pub fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleans_ligatures_and_spaces() {
        assert_eq!(clean_line("  eﬃcient\u{00A0}\u{00A0}ﬁle\t end "), "efficient file end");
        assert_eq!(clean_line("co\u{00AD}operate"), "cooperate");
    }

    #[test]
    fn joins_hyphenated_words_but_keeps_real_hyphens() {
        assert_eq!(join_lines(&["the tempera-", "ture rises"]), "the temperature rises");
        assert_eq!(join_lines(&["an X-", "Ray image"]), "an X- Ray image");
        assert_eq!(join_lines(&["range 10 -", "20"]), "range 10 - 20");
        assert_eq!(
            join_lines(&["a retrieval-", "augmented model"]),
            "a retrieval-augmented model"
        );
    }

    #[test]
    fn normalizes_paragraphs() {
        let t = "Title\r\n\r\n\r\nfirst line\nsecond line\n\n\nnext";
        assert_eq!(normalize_text(t), "Title\n\nfirst line second line\n\nnext");
    }
}

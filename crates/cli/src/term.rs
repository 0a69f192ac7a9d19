//! Text from outside (a run's query, an imported id, a document's title) made safe to print on a terminal:
//! control characters and bidirectional overrides are shown escaped, so a run file cannot move the cursor,
//! recolour the terminal or reverse what follows.

/// `s` with every control character (C0, DEL, C1; newlines and tabs too, as output here is one line per item)
/// and every bidirectional embedding, override or isolate written as a `\u{…}` escape.
pub fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Document text on one line: runs of whitespace (newlines and tabs included) become one space, then [`plain`].
pub fn one_line(s: &str) -> String {
    plain(&s.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::{one_line, plain};

    #[test]
    fn document_text_reads_on_one_line() {
        assert_eq!(
            one_line("Retrieval modes\n\nEvery search\truns"),
            "Retrieval modes Every search runs"
        );
        assert_eq!(one_line("a\u{1b}[2J b"), "a\\u{1b}[2J b");
    }

    #[test]
    fn escapes_are_shown_not_sent() {
        assert_eq!(plain("plain text é"), "plain text é");
        assert_eq!(plain("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(plain("x\u{9b}y\u{7f}"), "x\\u{9b}y\\u{7f}");
        assert_eq!(plain("evil\u{202E}txt.exe"), "evil\\u{202e}txt.exe");
        assert_eq!(plain("two\nlines"), "two\\u{a}lines");
    }
}

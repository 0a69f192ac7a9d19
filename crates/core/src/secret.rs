//! Keeping keys out of messages: a server's error body can echo the key it was sent (whole, or masked with its
//! start and end showing); [`redact`] takes out anything that looks like it before the body reaches an error.

/// `text` with every word that holds `key`, or starts with the key's first characters, replaced by
/// `[redacted]`. Keys shorter than 8 characters are still taken out where they occur whole.
pub fn redact(text: &str, key: &str) -> String {
    let key = key.trim();
    if key.is_empty() {
        return text.to_string();
    }
    let prefix: String = key.chars().take(8).collect();
    let looks_like_key =
        |word: &str| word.contains(key) || (prefix.chars().count() >= 8 && word.contains(prefix.as_str()));
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if looks_like_key(word) {
            out.push_str("[redacted]");
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | ',' | ';' | '`' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>'
            )
        {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// [`redact`] with an optional key.
pub fn redact_opt(text: &str, key: Option<&str>) -> String {
    match key {
        Some(k) => redact(text, k),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echoed_key_whole_or_masked_is_taken_out() {
        let key = "sk-live-0123456789abcdef";
        let body =
            r#"{"error":{"message":"Incorrect API key provided: sk-live-0123456789abcdef. Also sk-live-0***cdef"}}"#;
        let out = redact(body, key);
        assert!(!out.contains("0123456789") && !out.contains("sk-live-0"), "{out}");
        assert!(
            out.contains("Incorrect API key provided") && out.contains("[redacted]"),
            "{out}"
        );
        assert_eq!(redact("no key here", key), "no key here");
        assert_eq!(redact("short abc in it", "abc"), "short [redacted] in it");
        assert_eq!(redact_opt("x", None), "x");
    }
}

//! How close an extracted text is to a reference, as the extraction benchmarks and tests measure it: word-sequence
//! similarity (is every word there, whole and in order?) and character accuracy (for OCR).

pub use crate::extract::normalize::words;

/// 2·LCS / (|a| + |b|) over [`words`]: 1.0 means the same words in the same order; a word split in two counts as
/// two misses.
pub fn word_similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (words(a), words(b));
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let mut prev = vec![0u32; b.len() + 1];
    let mut cur = vec![0u32; b.len() + 1];
    for x in &a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y { prev[j] + 1 } else { cur[j].max(prev[j + 1]) };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    2.0 * f64::from(prev[b.len()]) / (a.len() + b.len()) as f64
}

/// 1 − edit distance / length of `truth`, over whitespace-collapsed characters.
pub fn char_accuracy(ours: &str, truth: &str) -> f64 {
    let squash = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .collect::<Vec<char>>()
    };
    let (a, b) = (squash(ours), squash(truth));
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(x != y)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    1.0 - prev[b.len()] as f64 / b.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_words_and_typos_cost() {
        assert_eq!(word_similarity("Example document", "example   document."), 1.0);
        assert!((word_similarity("Exa mp le document", "Example document") - 2.0 / 6.0).abs() < 1e-12);
        assert_eq!(char_accuracy("The warranty", "The  warranty"), 1.0);
        assert!((char_accuracy("he warranty", "The warranty") - (1.0 - 1.0 / 12.0)).abs() < 1e-12);
    }
}

//! Layout mutations: a page's content stream is decompressed and its text placement rewritten — positions
//! shifted, swapped, negated, made huge or not numbers at all, fonts scaled to nothing or to absurd sizes, text
//! blocks duplicated over each other or scattered, the stream cut — so the reading-order layout meets the pages a
//! broken or hostile producer writes, behind a file that still parses.

use super::Rng;

/// Operators that place text (and how many number operands they take), the operands the mutations rewrite.
const PLACING: [(&[u8], usize); 6] = [(b"Td", 2), (b"TD", 2), (b"Tm", 6), (b"cm", 6), (b"TL", 1), (b"Ts", 1)];
/// Numbers at the edge of what a reader parses: far off the page, overflowing f32, or denormal.
const HUGE: [&[u8]; 8] = [
    b"1e308",
    b"-1e308",
    b"99999999999",
    b"-99999999999",
    b"3.5e38",
    b"1e-308",
    b"4294967296",
    b"0",
];
/// Tokens where a number should be that are none (or, to a lenient parser, a NaN or an infinity).
const NOT_NUMBERS: [&[u8]; 10] = [
    b"nan", b"NaN", b"inf", b"-inf", b"-", b"--1", b".", b"1e", b"1.2.3", b"+-0",
];
/// Font sizes and scales from nothing to absurd.
const SCALES: [&[u8]; 7] = [b"0", b"-0", b"1e-9", b"-12", b"100000", b"1e30", b"0.0001"];

/// One to three layout mutations of one page of `seed` (a PDF); a file lopdf cannot open or save, or one without
/// a content stream, gets the byte-level mutations instead. The same `(seed, round)` gives the same bytes.
pub fn mutate_layout(seed: &[u8], round: u64) -> Vec<u8> {
    let mut rng = Rng::new(round.wrapping_mul(0xd1b5_4a32_d192_ed03));
    let mutated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| mutate_page(seed, &mut rng)));
    match mutated {
        Ok(Some(bytes)) => bytes,
        _ => super::mutate(seed, round),
    }
}

fn mutate_page(seed: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
    let mut doc = lopdf::Document::load_mem(seed).ok()?;
    let pages: Vec<lopdf::ObjectId> = doc.get_pages().into_values().collect();
    let page = *pages.get(rng.below(pages.len()))?;
    let streams = doc.get_page_contents(page);
    let id = *streams.get(rng.below(streams.len()))?;
    let stream = doc.get_object_mut(id).ok()?.as_stream_mut().ok()?;
    let mut content = stream.decompressed_content().ok()?;
    for _ in 0..=rng.below(3) {
        content = mutate_content(&content, rng);
    }
    stream.set_plain_content(content);
    let mut out = Vec::new();
    doc.save_to(&mut out).ok()?;
    Some(out)
}

/// A token of a content stream: its byte range and whether it is a number.
#[derive(Debug, Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    number: bool,
}

/// Splits a content stream into tokens, with strings (`(...)`, `<...>`) and comments as single tokens, so that
/// mutations only touch numbers and operators.
fn tokens(c: &[u8]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    let delimiter = |b: u8| b.is_ascii_whitespace() || b"()<>[]{}/%".contains(&b);
    while i < c.len() {
        let start = i;
        match c[i] {
            b if b.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'(' => {
                let mut depth = 0usize;
                while i < c.len() {
                    match c[i] {
                        b'\\' => i += 1,
                        b'(' => depth += 1,
                        b')' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            b'<' if c.get(i + 1) != Some(&b'<') => {
                i = c[i..].iter().position(|&b| b == b'>').map_or(c.len(), |p| i + p + 1);
            }
            b'%' => {
                i = c[i..]
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .map_or(c.len(), |p| i + p);
            }
            b'<' | b'>' | b'[' | b']' | b'{' | b'}' => i += if c.get(i + 1) == Some(&c[i]) { 2 } else { 1 },
            b'/' => {
                i += 1;
                while i < c.len() && !delimiter(c[i]) {
                    i += 1;
                }
            }
            _ => {
                while i < c.len() && !delimiter(c[i]) {
                    i += 1;
                }
            }
        }
        let i_end = i.min(c.len());
        let text = &c[start..i_end];
        let number = !text.is_empty()
            && text.iter().all(|b| b.is_ascii_digit() || b"+-.".contains(b))
            && text.iter().any(u8::is_ascii_digit);
        out.push(Token {
            start,
            end: i_end,
            number,
        });
        i = i_end.max(start + 1);
    }
    out
}

/// The operand tokens of each operator named in `ops`: (operator index, operand indices).
fn operands(c: &[u8], toks: &[Token], ops: &[(&[u8], usize)]) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        let Some(&(_, arity)) = ops.iter().find(|(name, _)| &c[t.start..t.end] == *name) else {
            continue;
        };
        if k >= arity && (k - arity..k).all(|j| toks[j].number) {
            out.push((k - arity..k).collect());
        }
    }
    out
}

/// Replaces the bytes of `t` by `with`.
fn replace(c: &[u8], t: Token, with: &[u8]) -> Vec<u8> {
    [&c[..t.start], with, &c[t.end..]].concat()
}

/// The `BT ... ET` text blocks of a stream, as byte ranges.
fn text_blocks(c: &[u8], toks: &[Token]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open = None;
    for t in toks {
        match &c[t.start..t.end] {
            b"BT" => open = Some(t.start),
            b"ET" => {
                if let Some(s) = open.take() {
                    out.push((s, t.end));
                }
            }
            _ => {}
        }
    }
    out
}

/// One mutation of a decompressed content stream.
fn mutate_content(c: &[u8], rng: &mut Rng) -> Vec<u8> {
    let toks = tokens(c);
    let placed = operands(c, &toks, &PLACING);
    let pick = |rng: &mut Rng, list: &[Vec<usize>]| -> Option<Token> {
        let ops = list.get(rng.below(list.len()))?;
        Some(toks[ops[rng.below(ops.len())]])
    };
    let number = |t: Token| -> f64 {
        std::str::from_utf8(&c[t.start..t.end])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.0)
    };
    match rng.below(10) {
        // A position shifted: a little (text over its neighbours) or far (off the page, into another column).
        0 => pick(rng, &placed).map_or_else(
            || c.to_vec(),
            |t| {
                let by = [0.5, 3.0, 40.0, 300.0, 5000.0][rng.below(5)] * if rng.below(2) == 0 { 1.0 } else { -1.0 };
                replace(c, t, format!("{}", number(t) + by).as_bytes())
            },
        ),
        // The operands of two placements swapped (lines trade places).
        1 if placed.len() >= 2 => {
            let (a, b) = (&placed[rng.below(placed.len())], &placed[rng.below(placed.len())]);
            let (ta, tb) = (toks[a[0]], toks[b[0]]);
            let (ta_end, tb_end) = (toks[a[a.len() - 1]].end, toks[b[b.len() - 1]].end);
            if ta.start == tb.start
                || (ta.start < tb.start && ta_end > tb.start)
                || (tb.start < ta.start && tb_end > ta.start)
            {
                return c.to_vec();
            }
            let ((s1, e1), (s2, e2)) = if ta.start < tb.start {
                ((ta.start, ta_end), (tb.start, tb_end))
            } else {
                ((tb.start, tb_end), (ta.start, ta_end))
            };
            [&c[..s1], &c[s2..e2], &c[e1..s2], &c[s1..e1], &c[e2..]].concat()
        }
        // A position negated (text mirrored to the other side of the origin).
        2 => pick(rng, &placed).map_or_else(|| c.to_vec(), |t| replace(c, t, format!("{}", -number(t)).as_bytes())),
        // A position made huge, or not a number at all.
        3 => pick(rng, &placed).map_or_else(|| c.to_vec(), |t| replace(c, t, HUGE[rng.below(HUGE.len())])),
        4 => pick(rng, &placed).map_or_else(
            || c.to_vec(),
            |t| replace(c, t, NOT_NUMBERS[rng.below(NOT_NUMBERS.len())]),
        ),
        // A font scaled to nothing or to an absurd size: the size of `Tf`, a scale of `Tm`, or `Tz`.
        5 => {
            let fonts = operands(c, &toks, &[(b"Tz", 1), (b"Tc", 1), (b"Tw", 1)]);
            let sized: Vec<Token> = toks
                .windows(3)
                .filter(|w| &c[w[2].start..w[2].end] == b"Tf" && w[1].number)
                .map(|w| w[1])
                .collect();
            let scale = SCALES[rng.below(SCALES.len())];
            match (sized.get(rng.below(sized.len())), pick(rng, &fonts)) {
                (Some(&t), _) if rng.below(3) > 0 => replace(c, t, scale),
                (_, Some(t)) => replace(c, t, scale),
                (Some(&t), None) => replace(c, t, scale),
                (None, None) => c.to_vec(),
            }
        }
        // A text block drawn again, over itself (shifted a little) or somewhere else on the page.
        6 | 7 => {
            let blocks = text_blocks(c, &toks);
            let Some(&(s, e)) = blocks.get(rng.below(blocks.len())) else {
                return c.to_vec();
            };
            let (dx, dy) = match rng.below(3) {
                0 => (0.0, 0.0),
                1 => (rng.below(5) as f64 * 0.7, rng.below(5) as f64 * -0.7),
                _ => (rng.below(600) as f64 - 300.0, rng.below(800) as f64 - 400.0),
            };
            let copies = 1 + rng.below(4);
            let mut extra = Vec::new();
            for k in 1..=copies {
                extra.extend(format!("\nq 1 0 0 1 {} {} cm\n", dx * k as f64, dy * k as f64).bytes());
                extra.extend_from_slice(&c[s..e]);
                extra.extend(b"\nQ\n");
            }
            let at = blocks.get(rng.below(blocks.len())).map_or(c.len(), |b| b.1);
            [&c[..at], &extra[..], &c[at..]].concat()
        }
        // The kerning inside a `TJ` array made extreme (a word pushed across the page, or back over itself).
        8 => {
            let kerns: Vec<Token> = toks
                .iter()
                .enumerate()
                .filter(|&(k, t)| {
                    t.number
                        && toks[k + 1..]
                            .iter()
                            .take(64)
                            .find(|n| !n.number && c[n.start] != b'(' && c[n.start] != b'<')
                            .is_some_and(|n| &c[n.start..n.end] == b"]")
                })
                .map(|(_, t)| *t)
                .collect();
            match kerns.get(rng.below(kerns.len())) {
                Some(&t) => replace(c, t, [&b"-1e9"[..], b"1e9", b"-30000", b"30000", b"nan"][rng.below(5)]),
                None => c.to_vec(),
            }
        }
        // The stream cut anywhere, even inside a token or a string.
        _ => c[..rng.below(c.len() + 1)].to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONTENT: &[u8] = b"BT /F1 12 Tf 72 700 Td (Hello \\(world\\)) Tj 0 -14 Td [(A) -250 (B)] TJ ET\n\
                             q 1 0 0 1 10 10 cm BT /F1 9 Tf 1 0 0 1 300 700 Tm <0041> Tj ET Q";

    #[test]
    fn content_tokens_keep_strings_whole_and_find_operands() {
        let toks = tokens(CONTENT);
        let text: Vec<&[u8]> = toks.iter().map(|t| &CONTENT[t.start..t.end]).collect();
        assert!(text.contains(&&b"(Hello \\(world\\))"[..]), "{text:?}");
        assert!(text.contains(&&b"<0041>"[..]));
        let placed = operands(CONTENT, &toks, &PLACING);
        // Two Td, one cm, one Tm.
        assert_eq!(placed.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 6, 6]);
        assert_eq!(text_blocks(CONTENT, &toks).len(), 2);
    }

    #[test]
    fn content_mutations_are_deterministic_and_change_the_stream() {
        let run = |round: u64| {
            let mut rng = Rng::new(round);
            mutate_content(CONTENT, &mut rng)
        };
        assert_eq!(run(11), run(11));
        let changed = (0..100).filter(|&r| run(r) != CONTENT).count();
        assert!(changed >= 80, "{changed}");
    }
}

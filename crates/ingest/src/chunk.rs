//! Chunker: splits a document's pages into token-bounded chunks with the embedding model's own tokenizer,
//! cutting at page, paragraph, sentence or word boundaries, with overlap, and recording page spans and offsets.
//! Each table the layout found also becomes chunks of its own: its caption and header, then its rows as
//! header-keyed facts, placed over the table's stretch of the page, so that a row is found by its header's words.

use crate::extract::{PageText, Table};
use crate::structure::{Heading, PageBox, SectionPath};
use crate::{Error, Result};
use ragsift_core::ChunkPlace;
use serde::Serialize;
use std::path::Path;

/// A chunk before it is stored: its text, position in the document and where it sits in its pages.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ChunkDraft {
    pub index: usize,
    pub text: String,
    /// Its pages and character offsets (flattened in JSON: `page_start`, `page_end`, `char_start`, `char_end`).
    #[serde(flatten)]
    pub place: ChunkPlace,
    pub tokens: usize,
    /// The heading path in force where the chunk starts ("3 Method", "3.2 Training"); empty before the first
    /// heading and for documents without detected headings.
    pub section: Vec<String>,
    /// Where the chunk's text lies on its pages, one box per run of lines in one column of one page (empty when
    /// the loader knows no positions: plain text, OCR).
    pub boxes: Vec<PageBox>,
}

/// A chunker stage: pages in, chunks out.
pub trait Chunker: Send + Sync {
    fn name(&self) -> &'static str;
    fn chunk(&self, pages: &[PageText]) -> Result<Vec<ChunkDraft>>;
}

/// Token-window chunker over a Hugging Face `tokenizer.json`.
pub struct TokenChunker {
    tokenizer: tokenizers::Tokenizer,
    max_tokens: usize,
    overlap: usize,
}

const PAGE_SEP: &str = "\n\n";
/// Between a table chunk's header and rows, and between rows: a blank line, so each row reads as a sentence of
/// its own (to the judge's sentence model and the extractive answer).
const ROW_SEP: &str = "\n\n";

impl TokenChunker {
    /// `max_tokens` excludes the model's special tokens; `overlap` tokens are repeated between neighbours.
    pub fn from_file(tokenizer_json: &Path, max_tokens: usize, overlap: usize) -> Result<Self> {
        let mut tokenizer = tokenizers::Tokenizer::from_file(tokenizer_json)
            .map_err(|e| Error::Model(format!("{}: cannot load tokenizer: {e}", tokenizer_json.display())))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| Error::Model(format!("tokenizer: {e}")))?;
        Ok(TokenChunker {
            tokenizer,
            max_tokens,
            overlap: overlap.min(max_tokens / 2),
        })
    }

    /// Number of tokens in `text`, special tokens excluded.
    pub fn count_tokens(&self, text: &str) -> Result<usize> {
        Ok(self.encode_offsets(text)?.len())
    }

    /// Token offsets of `text`, which the caller keeps short (a piece of [`Tokens`], a chunk, a table row).
    fn encode_offsets(&self, text: &str) -> Result<Vec<(usize, usize)>> {
        let enc = self
            .tokenizer
            .encode(text, false)
            .map_err(|e| Error::Model(format!("tokenizer: {e}")))?;
        Ok(enc.get_offsets().iter().copied().filter(|(s, e)| e > s).collect())
    }
}

impl Chunker for TokenChunker {
    fn name(&self) -> &'static str {
        "token"
    }

    fn chunk(&self, pages: &[PageText]) -> Result<Vec<ChunkDraft>> {
        let doc = DocText::new(pages);
        // The document is tokenized a piece at a time, just ahead of the chunk being cut: a long document never has
        // all its tokens in memory at once.
        let mut toks = Tokens::new(self, &doc.text);
        let mut chunks = Vec::new();
        // Byte offset in the document where each chunk starts, to place the tables' chunks among the others.
        let mut starts = Vec::new();
        let mut i = 0;
        loop {
            toks.drop_before(i);
            toks.fill(i + self.max_tokens + 1)?;
            if i >= toks.len() {
                break;
            }
            let mut end = (i + self.max_tokens).min(toks.len());
            // A chunk ends where a new section starts, once it holds a quarter of its budget.
            if let Some(k) = (i + self.max_tokens / 4..end).find(|&k| doc.is_heading(toks[k].0)) {
                end = k;
            } else if end < toks.len() {
                end = best_cut(&doc, &toks, i + self.max_tokens / 2, end);
            }
            let (start_b, end_b) = (toks[i].0, toks[end - 1].1);
            let text = doc.text[start_b..end_b].trim().to_string();
            if !text.is_empty() {
                let place = doc.place(start_b, end_b);
                let section = doc.section_at(start_b);
                let boxes = doc.boxes(start_b, end_b);
                starts.push(start_b);
                chunks.push(ChunkDraft {
                    index: chunks.len(),
                    text,
                    place,
                    tokens: end - i,
                    section,
                    boxes,
                });
            }
            if end >= toks.len() {
                break;
            }
            // No overlap back across a section's heading: the next chunk starts at it.
            let from = end.saturating_sub(self.overlap).max(i + 1);
            i = (from..=end)
                .find(|&k| doc.is_heading(toks[k].0))
                .unwrap_or_else(|| next_start(&doc, &toks, from, end));
        }
        for (base, table) in &doc.tables {
            for (start, end, text) in self.table_parts(table)? {
                let (start, end) = (base + start, base + end);
                let place = doc.place(start, end);
                starts.push(start);
                chunks.push(ChunkDraft {
                    index: 0,
                    tokens: self.count_tokens(&text)?,
                    text,
                    place,
                    section: doc.section_at(start),
                    boxes: doc.boxes(start, end),
                });
            }
        }
        // In the order of the text, a table's chunks after the chunk its first line is in.
        let mut order: Vec<usize> = (0..chunks.len()).collect();
        order.sort_by_key(|&k| starts[k]);
        let mut slots: Vec<Option<ChunkDraft>> = chunks.into_iter().map(Some).collect();
        Ok(order
            .into_iter()
            .enumerate()
            .filter_map(|(index, k)| slots[k].take().map(|c| ChunkDraft { index, ..c }))
            .collect())
    }
}

impl TokenChunker {
    /// A table's chunks, as `(start, end, text)` with byte offsets into its page's text: its caption and header,
    /// then as many rows as fit the token budget; a longer table goes on in further chunks, each led by the same
    /// caption and header. The first chunk's stretch starts where the table does, the last one's ends where it
    /// does (a caption below included), and the others' follow their rows.
    fn table_parts(&self, table: &Table) -> Result<Vec<(usize, usize, String)>> {
        let head_tokens = self.count_tokens(&table.head)?;
        let budget = self.max_tokens.saturating_sub(head_tokens).max(self.max_tokens / 4);
        let mut parts: Vec<(usize, usize, String)> = Vec::new();
        let mut used = 0;
        for row in &table.rows {
            let tokens = self.count_tokens(&row.text)?;
            match parts.last_mut() {
                Some(part) if used + tokens <= budget => {
                    part.1 = row.end;
                    part.2.push_str(ROW_SEP);
                    part.2.push_str(&row.text);
                    used += tokens;
                }
                _ => {
                    let start = if parts.is_empty() { table.start } else { row.start };
                    parts.push((start, row.end, format!("{}{ROW_SEP}{}", table.head, row.text)));
                    used = tokens;
                }
            }
        }
        if let Some(last) = parts.last_mut() {
            last.1 = last.1.max(table.end);
        }
        Ok(parts)
    }
}

/// The pages of a document joined into one string, remembering where each page starts, where each line lies on
/// its page and where each heading starts (byte offsets into `text`).
struct DocText {
    text: String,
    starts: Vec<(usize, u32)>,
    lines: Vec<(usize, usize, PageBox)>,
    headings: Vec<(usize, Heading)>,
    /// Each table with the byte offset of its page in `text`.
    tables: Vec<(usize, Table)>,
}

impl DocText {
    fn new(pages: &[PageText]) -> Self {
        let mut text = String::new();
        let (mut starts, mut lines, mut headings) = (Vec::new(), Vec::new(), Vec::new());
        let mut tables = Vec::new();
        for p in pages.iter().filter(|p| !p.text.is_empty()) {
            if !text.is_empty() {
                text.push_str(PAGE_SEP);
            }
            let base = text.len();
            starts.push((base, p.number));
            text.push_str(&p.text);
            lines.extend(p.lines.iter().map(|l| (base + l.start, base + l.end, l.bbox)));
            headings.extend(p.headings.iter().map(|h| (base + h.start, h.clone())));
            tables.extend(p.tables.iter().map(|t| (base, t.clone())));
        }
        DocText {
            text,
            starts,
            lines,
            headings,
            tables,
        }
    }

    fn is_heading(&self, byte: usize) -> bool {
        self.headings.binary_search_by_key(&byte, |(at, _)| *at).is_ok()
    }

    /// The heading path in force at a byte position (headings starting at it included).
    fn section_at(&self, byte: usize) -> Vec<String> {
        let mut path = SectionPath::new();
        for (_, h) in self.headings.iter().take_while(|(at, _)| *at <= byte) {
            path.enter(h);
        }
        path.titles()
    }

    /// The boxes of the lines that `[start, end)` touches, lines of one column run merged into one box.
    fn boxes(&self, start: usize, end: usize) -> Vec<PageBox> {
        let first = self.lines.partition_point(|l| l.1 <= start);
        let mut out: Vec<PageBox> = Vec::new();
        for &(_, _, b) in self.lines[first..].iter().take_while(|l| l.0 < end) {
            match out.last_mut() {
                Some(last) if stacked(last, &b) => {
                    last.x0 = last.x0.min(b.x0);
                    last.x1 = last.x1.max(b.x1);
                    last.y0 = last.y0.min(b.y0);
                    last.y1 = last.y1.max(b.y1);
                }
                _ => out.push(b),
            }
        }
        out
    }

    /// (page number, character offset within that page) of a byte position.
    /// The page a byte of the joined text is on, and its character offset in that page's text.
    fn locate(&self, byte: usize) -> (u32, u32) {
        let idx = self.starts.partition_point(|(s, _)| *s <= byte).saturating_sub(1);
        let (start, page) = self.starts[idx];
        let chars = self.text[start..byte].chars().count();
        (page, u32::try_from(chars).unwrap_or(u32::MAX))
    }

    /// Where the bytes `[start, end)` of the joined text sit in the pages.
    fn place(&self, start: usize, end: usize) -> ChunkPlace {
        let (page_start, char_start) = self.locate(start);
        let (page_end, char_end) = self.locate(end);
        ChunkPlace {
            page_start,
            page_end,
            char_start,
            char_end,
        }
    }

    fn is_page_break(&self, byte: usize) -> bool {
        self.starts.iter().any(|(s, _)| *s == byte)
    }
}

/// True when box `b` continues the run of lines in `run`: the same page, overlapping horizontally by half the
/// narrower of the two, and starting at most a line and a half below it.
fn stacked(run: &PageBox, b: &PageBox) -> bool {
    let overlap = run.x1.min(b.x1) - run.x0.max(b.x0);
    let narrower = (run.x1 - run.x0).min(b.x1 - b.x0);
    let height = b.y1 - b.y0;
    run.page == b.page && overlap >= 0.5 * narrower && b.y0 >= run.y0 && b.y0 - run.y1 <= 1.5 * height
}

/// Bytes of text tokenized in one call at most: a piece ends at the last whitespace before it (or, in a run of
/// text without any, at a character boundary), so the tokenizer sees whole words and a huge file costs a bounded
/// amount of memory per call.
const PIECE_BYTES: usize = 16 << 10;

/// A token spanning more bytes than this is cut into pieces of this size, each counted as a token.
const MAX_TOKEN_BYTES: usize = 24;

/// Forgotten tokens are dropped this many at a time at least.
const DROP_BATCH: usize = 4096;

/// A document's tokens, as byte offsets `(start, end)`, tokenized on demand a piece at a time; indexed by the
/// token's number in the whole document, of which only those from [`Tokens::drop_before`]'s mark on are held.
struct Tokens<'a> {
    chunker: &'a TokenChunker,
    text: &'a str,
    /// Bytes tokenized so far.
    pos: usize,
    /// The number of the first held token.
    base: usize,
    held: Vec<(usize, usize)>,
}

impl<'a> Tokens<'a> {
    fn new(chunker: &'a TokenChunker, text: &'a str) -> Self {
        Tokens {
            chunker,
            text,
            pos: 0,
            base: 0,
            held: Vec::new(),
        }
    }

    /// Tokens known so far (all of them once the text is tokenized to its end).
    fn len(&self) -> usize {
        self.base + self.held.len()
    }

    /// Tokenizes on until at least `n` tokens are known, or the text ends.
    fn fill(&mut self, n: usize) -> Result<()> {
        while self.len() < n && self.pos < self.text.len() {
            let rest = &self.text[self.pos..];
            let cut = if rest.len() <= PIECE_BYTES {
                rest.len()
            } else {
                let mut limit = PIECE_BYTES;
                while !rest.is_char_boundary(limit) {
                    limit -= 1;
                }
                match rest[..limit].rfind(char::is_whitespace) {
                    Some(k) if k > 0 => k,
                    _ => limit,
                }
            };
            let at = self.pos;
            for (s, e) in self.chunker.encode_offsets(&rest[..cut])? {
                let (mut s, e) = (s + at, e + at);
                // A token wider than a word can be is the tokenizer's "unknown" for a run of text without spaces:
                // counted as one token for every few bytes, so that no chunk grows past its budget in bytes.
                while e - s > MAX_TOKEN_BYTES {
                    let mut cut = s + MAX_TOKEN_BYTES;
                    while !self.text.is_char_boundary(cut) {
                        cut += 1;
                    }
                    if cut >= e {
                        break;
                    }
                    self.held.push((s, cut));
                    s = cut;
                }
                self.held.push((s, e));
            }
            self.pos += cut;
        }
        Ok(())
    }

    /// Forgets the tokens before token `k` (the chunker never looks back past the chunk it cuts).
    fn drop_before(&mut self, k: usize) {
        // Forgotten in batches, so that the held tokens are not moved for every chunk.
        let k = k.saturating_sub(1).min(self.len());
        if k >= self.base + DROP_BATCH {
            self.held.drain(..k - self.base);
            self.base = k;
        }
    }
}

impl std::ops::Index<usize> for Tokens<'_> {
    type Output = (usize, usize);

    fn index(&self, k: usize) -> &(usize, usize) {
        &self.held[k - self.base]
    }
}

/// Picks where a chunk ends, in tokens (exclusive), between `lo` and `hi`: the latest page break, else
/// paragraph break, else sentence end, else line break, else word boundary; `hi` when there is none. A heading
/// (the start of a section) beats all of them.
fn best_cut(doc: &DocText, toks: &Tokens, lo: usize, hi: usize) -> usize {
    let mut best = (0u8, hi);
    for k in lo.max(1)..=hi {
        let score = boundary_score(doc, toks, k);
        if score > 0 && score >= best.0 {
            best = (score, k);
        }
    }
    best.1
}

/// Where the next chunk starts: the first word boundary at or after `from` (and before `limit`).
fn next_start(doc: &DocText, toks: &Tokens, from: usize, limit: usize) -> usize {
    (from..limit)
        .find(|&k| boundary_score(doc, toks, k) > 0)
        .unwrap_or(limit)
}

/// How good a cut before token `k` is (0 = inside a word).
fn boundary_score(doc: &DocText, toks: &Tokens, k: usize) -> u8 {
    let (prev_end, next_start) = (toks[k - 1].1, toks[k].0);
    let gap = &doc.text[prev_end..next_start];
    if doc.is_heading(next_start) {
        6
    } else if doc.is_page_break(next_start) {
        5
    } else if gap.contains("\n\n") {
        4
    } else if !gap.is_empty() && doc.text[..prev_end].ends_with(['.', '!', '?', ':', ';']) {
        3
    } else if gap.contains('\n') {
        2
    } else if !gap.is_empty() {
        1
    } else {
        0
    }
}

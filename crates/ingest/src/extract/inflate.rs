//! Bounded stream decoding: decodes a PDF stream the way lopdf does (Flate, LZW, ASCII85, in filter order) but
//! never past a byte limit, so a decompression bomb is measured and refused before pdf-extract inflates it whole.

use lopdf::{Object, Stream};
use std::io::{Read, Write};

/// The most bytes one stream may decode to (each stage of its filter chain).
pub const MAX_STREAM_BYTES: u64 = 256 << 20;

/// The most bytes all the streams that text extraction decodes may decode to together, each stream counted once.
pub const MAX_DOCUMENT_BYTES: u64 = 1 << 30;

/// A stream decoded past its limit.
#[derive(Debug, PartialEq, Eq)]
pub struct OverLimit;

/// The bytes lopdf's `decompressed_content` would give (the raw bytes when it would fail, as pdf-extract then
/// uses them), or [`OverLimit`] as soon as any stage of the filter chain goes past `limit` bytes.
pub fn decode(stream: &Stream, limit: u64) -> Result<Vec<u8>, OverLimit> {
    let Ok(filters) = stream.filters() else {
        return Ok(stream.content.clone());
    };
    let params = stream.dict.get(b"DecodeParms").and_then(Object::as_dict).ok();
    let mut data = stream.content.clone();
    for filter in filters {
        data = match filter {
            b"FlateDecode" => flate(&data, limit)?,
            b"LZWDecode" => lzw(&data, params, limit)?,
            b"ASCII85Decode" => match ascii85(&data, limit)? {
                Some(decoded) => decoded,
                None => return Ok(stream.content.clone()),
            },
            // lopdf gives up on the whole chain (what was decoded so far was measured), pdf-extract takes the
            // raw bytes.
            _ => return Ok(stream.content.clone()),
        };
    }
    if params.is_some_and(|p| p.get(b"Predictor").is_ok()) {
        // A predictor only shrinks the data; the size is known to be in bounds, so lopdf's own decoding is safe.
        return Ok(stream.decompressed_content().unwrap_or_else(|_| stream.content.clone()));
    }
    Ok(data)
}

/// Reads `reader` to its end or its first error (keeping what came before, as lopdf does), refusing more than
/// `limit` bytes.
fn read_capped(reader: impl Read, limit: u64) -> Result<(Vec<u8>, bool), OverLimit> {
    let mut out = Vec::new();
    let ok = reader.take(limit + 1).read_to_end(&mut out).is_ok();
    if out.len() as u64 > limit {
        return Err(OverLimit);
    }
    Ok((out, ok))
}

fn flate(input: &[u8], limit: u64) -> Result<Vec<u8>, OverLimit> {
    if input.is_empty() {
        return Ok(Vec::new());
    }
    let (out, ok) = read_capped(flate2::read::ZlibDecoder::new(input), limit)?;
    if !ok && out.is_empty() && input.len() > 2 {
        // lopdf's retry as raw deflate, skipping the zlib header and the checksum.
        return Ok(read_capped(flate2::read::DeflateDecoder::new(&input[2..]), limit)?.0);
    }
    Ok(out)
}

/// A writer that refuses to hold more than `limit` bytes.
struct Capped {
    out: Vec<u8>,
    limit: u64,
    over: bool,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if (self.out.len() + buf.len()) as u64 > self.limit {
            self.over = true;
            return Err(std::io::Error::other("over the decoding limit"));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn lzw(input: &[u8], params: Option<&lopdf::Dictionary>, limit: u64) -> Result<Vec<u8>, OverLimit> {
    use weezl::{decode::Decoder, BitOrder};
    let early_change = params
        .and_then(|p| p.get(b"EarlyChange").ok())
        .and_then(|p| p.as_i64().ok())
        .is_none_or(|v| v != 0);
    let mut decoder = if early_change {
        Decoder::with_tiff_size_switch(BitOrder::Msb, 8)
    } else {
        Decoder::new(BitOrder::Msb, 8)
    };
    let mut sink = Capped {
        out: Vec::new(),
        limit,
        over: false,
    };
    let _ = decoder.into_stream(&mut sink).decode_all(input);
    if sink.over {
        return Err(OverLimit);
    }
    Ok(sink.out)
}

/// ASCII85 as lopdf reads it: whitespace skipped, `z` for four zero bytes, a partial last group padded with `u`,
/// stopping at the first other byte; `None` where lopdf fails (a `z` inside a group, an overflowing group).
fn ascii85(input: &[u8], limit: u64) -> Result<Option<Vec<u8>>, OverLimit> {
    let input = input.strip_suffix(b"~>").unwrap_or(input);
    let mut out = Vec::new();
    let (mut group, mut count) = (0u32, 0usize);
    let push = |group: u32, c: u8| group.checked_mul(85)?.checked_add(u32::from(c));
    for &c in input {
        if out.len() as u64 > limit {
            return Err(OverLimit);
        }
        match c {
            b'z' if count != 0 => return Ok(None),
            b'z' => out.extend_from_slice(&[0; 4]),
            c if c.is_ascii_whitespace() => {}
            b'!'..=b'u' => {
                let Some(next) = push(group, c - b'!') else {
                    return Ok(None);
                };
                (group, count) = (next, count + 1);
                if count == 5 {
                    out.extend_from_slice(&group.to_be_bytes());
                    (group, count) = (0, 0);
                }
            }
            _ => break,
        }
    }
    if count > 0 {
        for _ in count..5 {
            let Some(next) = push(group, 84) else {
                return Ok(None);
            };
            group = next;
        }
        out.extend_from_slice(&group.to_be_bytes()[..count - 1]);
    }
    if out.len() as u64 > limit {
        return Err(OverLimit);
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::{dictionary, Stream};
    use std::io::Write;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn decodes_like_lopdf_within_the_limit_and_refuses_past_it() {
        let plain = b"BT /F1 12 Tf (Visible text survives) Tj ET".repeat(50);
        let stream = Stream::new(dictionary! { "Filter" => "FlateDecode" }, zlib(&plain));
        assert_eq!(
            decode(&stream, 1 << 20).unwrap(),
            stream.decompressed_content().unwrap()
        );
        assert_eq!(decode(&stream, plain.len() as u64).unwrap(), plain);
        assert_eq!(decode(&stream, plain.len() as u64 - 1), Err(OverLimit));
        let bomb = Stream::new(dictionary! { "Filter" => "FlateDecode" }, zlib(&vec![b' '; 4 << 20]));
        assert_eq!(decode(&bomb, 1 << 20), Err(OverLimit));
    }

    #[test]
    fn ascii85_and_chains_match_lopdf() {
        let a85 = Stream::new(
            dictionary! { "Filter" => "ASCII85Decode" },
            b"87cURD]i,\"Ebo80z~>".to_vec(),
        );
        assert_eq!(decode(&a85, 1 << 20).unwrap(), a85.decompressed_content().unwrap());
        assert_eq!(decode(&a85, 4), Err(OverLimit));
        let unknown = Stream::new(dictionary! { "Filter" => "DCTDecode" }, b"jpeg".to_vec());
        assert_eq!(decode(&unknown, 1).unwrap(), b"jpeg");
    }
}

//! The walk behind [`super::mark_hidden_text`]: the part of the graphics state pdf-extract leaves out (clip,
//! render mode, fill colour and alpha, where each text-showing operator starts), and a scan of raw content bytes
//! that drives it without decoding, so that only streams that need markers are decoded and written again.

use super::Visibility;
use std::collections::HashMap;

/// Walks a content stream's operators with the part of the graphics state that decides whether text is seen,
/// and says before which text-showing operator the collector's visibility must change.
pub(super) struct Walker<'a> {
    alphas: &'a HashMap<Vec<u8>, f64>,
    state: State,
    stack: Vec<State>,
    path: Option<[f64; 4]>,
    clipping: bool,
    /// The visibility the collector holds now: plain at the start of every stream and after each form.
    shown: Visibility,
    /// The text line matrix and leading, to know where each text-showing operator starts (page space).
    tlm: [f64; 6],
    leading: f64,
    /// Boxes painted before (non-white fills, shadings, images and forms): white text over one is seen.
    grounds: Vec<[f64; 4]>,
}

/// The most painted boxes remembered per stream; past it, white text counts as seen.
const MAX_GROUNDS: usize = 4_096;

impl<'a> Walker<'a> {
    pub(super) fn new(alphas: &'a HashMap<Vec<u8>, f64>) -> Self {
        Walker {
            alphas,
            state: State::default(),
            stack: Vec::new(),
            path: None,
            clipping: false,
            shown: Visibility::default(),
            tlm: IDENTITY,
            leading: 0.0,
            grounds: Vec::new(),
        }
    }

    /// Remembers a painted box (page space); `None` (unknown extent) counts as the whole page.
    fn ground(&mut self, area: Option<[f64; 4]>) {
        if self.grounds.len() <= MAX_GROUNDS {
            let all = [f64::NEG_INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY];
            self.grounds.push(area.unwrap_or(all));
        }
    }

    /// Whether `(x, y)` lies on something painted before, or too much was painted to tell.
    fn on_ground(&self, (x, y): (f64, f64)) -> bool {
        self.grounds.len() > MAX_GROUNDS
            || self
                .grounds
                .iter()
                .any(|&[x0, y0, x1, y1]| x >= x0 && x <= x1 && y >= y0 && y <= y1)
    }

    /// Steps over one operator with its numeric operands and its first name operand; returns the visibility
    /// to mark before it, if the collector's must change.
    pub(super) fn step(&mut self, operator: &str, nums: &[f64], name: Option<&[u8]>) -> Option<Visibility> {
        let state = &mut self.state;
        match operator {
            "q" => self.stack.push(state.clone()),
            "Q" => *state = self.stack.pop().unwrap_or_default(),
            "cm" if nums.len() == 6 => {
                if let Ok(m) = nums.try_into() {
                    state.ctm = multiply(m, &state.ctm);
                }
            }
            "m" | "l" | "c" | "v" | "y" => {
                for xy in nums.chunks_exact(2) {
                    extend(&mut self.path, state.point(xy[0], xy[1]));
                }
            }
            "re" if nums.len() == 4 => {
                let (x, y, w, h) = (nums[0], nums[1], nums[2], nums[3]);
                for (px, py) in [(x, y), (x + w, y), (x, y + h), (x + w, y + h)] {
                    extend(&mut self.path, state.point(px, py));
                }
            }
            "W" | "W*" => self.clipping = true,
            "n" | "S" | "s" | "f" | "F" | "f*" | "B" | "B*" | "b" | "b*" => {
                let fills = !matches!(operator, "n" | "S" | "s");
                if fills && !state.white && self.path.is_some() {
                    let (path, clip) = (self.path, state.clip);
                    self.ground(path.map(|p| clip.map_or(p, |c| intersect(c, p))));
                }
                let state = &mut self.state;
                if self.clipping {
                    state.clip = Some(match (state.clip, self.path) {
                        (Some(c), Some(p)) => intersect(c, p),
                        (None, Some(p)) => p,
                        (c, None) => c.unwrap_or([0.0; 4]),
                    });
                }
                self.clipping = false;
                self.path = None;
            }
            "Tr" if nums.len() == 1 => state.render = nums[0] as i64,
            "BT" => self.tlm = IDENTITY,
            "Tm" if nums.len() == 6 => self.tlm.copy_from_slice(nums),
            "TL" if nums.len() == 1 => self.leading = nums[0],
            "Td" | "TD" if nums.len() == 2 => {
                if operator == "TD" {
                    self.leading = -nums[1];
                }
                next_line(&mut self.tlm, nums[0], nums[1]);
            }
            "T*" => next_line(&mut self.tlm, 0.0, -self.leading),
            "g" | "rg" | "k" => {
                let n = match operator {
                    "g" => 1,
                    "rg" => 3,
                    _ => 4,
                };
                state.space = Some(n);
                state.white = is_white(nums, n);
            }
            "cs" => {
                state.space = match name {
                    Some(b"DeviceGray") => Some(1),
                    Some(b"DeviceRGB") => Some(3),
                    Some(b"DeviceCMYK") => Some(4),
                    _ => None,
                };
                state.white = false;
            }
            "sc" | "scn" => state.white = state.space.is_some_and(|n| is_white(nums, n)),
            "gs" => {
                if let Some(alpha) = name.and_then(|n| self.alphas.get(n)) {
                    state.alpha_zero = *alpha <= 0.001;
                }
            }
            "sh" => {
                let clip = state.clip;
                self.ground(clip);
            }
            "Do" => {
                // An image or form fills (at most) the unit square under the current matrix.
                let corners = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map(|(x, y)| state.point(x, y));
                let mut area = None;
                for c in corners {
                    extend(&mut area, c);
                }
                self.ground(area);
                // A form starts plain (pdf-extract draws it with a fresh state); say so before it if needed.
                if self.shown != Visibility::default() {
                    self.shown = Visibility::default();
                    return Some(self.shown);
                }
            }
            "Tj" | "TJ" | "'" | "\"" => {
                if operator != "Tj" && operator != "TJ" {
                    next_line(&mut self.tlm, 0.0, -self.leading);
                }
                let mut now = state.visibility();
                // A clip matters only to text that starts outside it (figure labels beyond the frame); text set
                // inside its clip, as every table cell of a Word file is, needs no marker.
                let (x, y) = state.point(self.tlm[4], self.tlm[5]);
                // White ink on a band, a box or a picture painted before is seen.
                if now.white && self.on_ground((x, y)) {
                    now.white = false;
                }
                if now
                    .clip
                    .is_some_and(|[x0, y0, x1, y1]| x >= x0 - 1.0 && x <= x1 + 1.0 && y >= y0 - 1.0 && y <= y1 + 1.0)
                {
                    now.clip = None;
                }
                if now != self.shown {
                    self.shown = now;
                    return Some(now);
                }
            }
            _ => {}
        }
        None
    }

    /// The marker that leaves the collector plain at the end of the stream, if one is needed.
    pub(super) fn finish(&self) -> Option<Visibility> {
        (self.shown != Visibility::default()).then(Visibility::default)
    }
}

const IDENTITY: [f64; 6] = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// The graphics state that decides whether text is seen.
#[derive(Clone)]
struct State {
    ctm: [f64; 6],
    clip: Option<[f64; 4]>,
    render: i64,
    white: bool,
    alpha_zero: bool,
    /// The fill colour space's component count when it is a device space (1 gray, 3 RGB, 4 CMYK).
    space: Option<usize>,
}

impl Default for State {
    fn default() -> Self {
        State {
            ctm: [1.0, 0.0, 0.0, 1.0, 0.0, 0.0],
            clip: None,
            render: 0,
            white: false,
            alpha_zero: false,
            space: Some(1),
        }
    }
}

impl State {
    fn visibility(&self) -> Visibility {
        let fills = matches!(self.render, 0 | 2 | 4 | 6);
        Visibility {
            invisible: matches!(self.render, 3 | 7) || (fills && self.alpha_zero),
            white: matches!(self.render, 0 | 4) && self.white,
            clip: self.clip,
        }
    }

    fn point(&self, x: f64, y: f64) -> (f64, f64) {
        let m = &self.ctm;
        (x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5])
    }
}

/// Whether a fill colour in a device space of `n` components is white.
fn is_white(values: &[f64], n: usize) -> bool {
    match (n, values) {
        (1, [g]) => *g >= 0.999,
        (3, [r, g, b]) => [r, g, b].iter().all(|v| **v >= 0.999),
        (4, [c, m, y, k]) => [c, m, y, k].iter().all(|v| **v <= 0.001),
        _ => false,
    }
}

/// `Td`: the next line starts at `(tx, ty)` in the current line's space.
fn next_line(tlm: &mut [f64; 6], tx: f64, ty: f64) {
    tlm[4] += tx * tlm[0] + ty * tlm[2];
    tlm[5] += tx * tlm[1] + ty * tlm[3];
}

/// A quick look at the raw stream before decoding it: text can only be hidden by a clip (`W`), a render mode
/// (`Tr`), a graphics state (`gs`, for its alpha), white in a device colour (`1 g`, `1 1 1 rg`, `0 0 0 0 k`) or a
/// colour set by `sc`/`scn`. Most pages of most producers have none of these, and decoding is most of the pass's
/// cost. A token inside a string may say yes wrongly; that only costs the decoding.
pub(super) fn might_hide(bytes: &[u8]) -> bool {
    let mut prev: [&[u8]; 4] = [b""; 4];
    for token in bytes.split(|b| b.is_ascii_whitespace() || matches!(b, b'[' | b']' | b'(' | b')' | b'/' | b'<' | b'>'))
    {
        if token.is_empty() {
            continue;
        }
        let one = |t: &[u8]| {
            std::str::from_utf8(t)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .is_some_and(|v| v >= 0.999)
        };
        let zero = |t: &[u8]| {
            std::str::from_utf8(t)
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .is_some_and(|v| v <= 0.001)
        };
        let hit = match token {
            b"W" | b"W*" | b"Tr" | b"gs" | b"sc" | b"scn" => true,
            b"g" => one(prev[3]),
            b"rg" => prev[1..].iter().all(|t| one(t)),
            b"k" => prev.iter().all(|t| zero(t)),
            _ => false,
        };
        if hit {
            return true;
        }
        prev = [prev[1], prev[2], prev[3], token];
    }
    false
}

fn extend(bbox: &mut Option<[f64; 4]>, (x, y): (f64, f64)) {
    if !x.is_finite() || !y.is_finite() {
        return;
    }
    *bbox = Some(match *bbox {
        Some([x0, y0, x1, y1]) => [x0.min(x), y0.min(y), x1.max(x), y1.max(y)],
        None => [x, y, x, y],
    });
}

fn intersect(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let (x0, y0) = (a[0].max(b[0]), a[1].max(b[1]));
    [x0, y0, a[2].min(b[2]).max(x0), a[3].min(b[3]).max(y0)]
}

/// Calls `f` with each operator of a raw content stream, its numeric operands and its first name operand,
/// without building objects (strings, arrays, dictionaries and inline images are skipped over); stops and
/// returns true as soon as `f` does.
pub(in crate::extract) fn scan_ops(bytes: &[u8], mut f: impl FnMut(&str, &[f64], Option<&[u8]>) -> bool) -> bool {
    scan_ops_at(bytes, |_, op, nums, name| f(op, nums, name))
}

/// [`scan_ops`], also giving where each operation starts in the stream (its first operand, or the operator).
pub(in crate::extract) fn scan_ops_at(
    bytes: &[u8],
    mut f: impl FnMut(usize, &str, &[f64], Option<&[u8]>) -> bool,
) -> bool {
    let mut nums: Vec<f64> = Vec::new();
    let mut name: Option<&[u8]> = None;
    let mut i = 0;
    let n = bytes.len();
    let regular = |b: u8| !b.is_ascii_whitespace() && !b"()<>[]{}/%".contains(&b);
    // Where the operation being read began: its first token after the last operator.
    let mut begun: Option<usize> = None;
    while i < n {
        let b = bytes[i];
        if !b.is_ascii_whitespace() && b != b'%' && begun.is_none() {
            begun = Some(i);
        }
        match b {
            _ if b.is_ascii_whitespace() => i += 1,
            b'%' => {
                while i < n && bytes[i] != b'\n' && bytes[i] != b'\r' {
                    i += 1;
                }
            }
            b'(' => {
                let mut depth = 0usize;
                while i < n {
                    match bytes[i] {
                        b'\\' => i += 1,
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') => i += 2,
            b'>' if bytes.get(i + 1) == Some(&b'>') => i += 2,
            b'<' => {
                while i < n && bytes[i] != b'>' {
                    i += 1;
                }
                i += 1;
            }
            b'[' | b']' | b'{' | b'}' | b'>' | b')' => i += 1,
            b'/' => {
                let start = i + 1;
                i += 1;
                while i < n && regular(bytes[i]) {
                    i += 1;
                }
                if name.is_none() {
                    name = Some(&bytes[start..i]);
                }
            }
            _ => {
                let start = i;
                while i < n && regular(bytes[i]) {
                    i += 1;
                }
                let token = &bytes[start..i];
                if matches!(token[0], b'0'..=b'9' | b'+' | b'-' | b'.') {
                    if let Some(v) = std::str::from_utf8(token).ok().and_then(|t| t.parse::<f64>().ok()) {
                        nums.push(v);
                    }
                    continue;
                }
                if token == b"BI" {
                    i = skip_inline_image(bytes, i);
                } else if let Ok(op) = std::str::from_utf8(token) {
                    if f(begun.unwrap_or(start), op, &nums, name) {
                        return true;
                    }
                }
                nums.clear();
                name = None;
                begun = None;
            }
        }
    }
    false
}

/// The position after an inline image's `EI` (its data may hold any bytes, so it is found as `EI` between
/// white space after `ID`).
fn skip_inline_image(bytes: &[u8], from: usize) -> usize {
    let Some(id) = bytes[from..]
        .windows(3)
        .position(|w| w == b"ID ".as_slice() || w == b"ID\n".as_slice() || w == b"ID\r".as_slice())
    else {
        return bytes.len();
    };
    let mut i = from + id + 3;
    while i + 2 < bytes.len() {
        if bytes[i].is_ascii_whitespace()
            && &bytes[i + 1..i + 3] == b"EI"
            && bytes.get(i + 3).is_none_or(|b| b.is_ascii_whitespace())
        {
            return i + 3;
        }
        i += 1;
    }
    bytes.len()
}

/// `m` then `c`: the PDF matrix product `m × c` (a `cm` operator's matrix applied before the current one).
pub(in crate::extract) fn multiply(m: &[f64; 6], c: &[f64; 6]) -> [f64; 6] {
    [
        m[0] * c[0] + m[1] * c[2],
        m[0] * c[1] + m[1] * c[3],
        m[2] * c[0] + m[3] * c[2],
        m[2] * c[1] + m[3] * c[3],
        m[4] * c[0] + m[5] * c[2] + c[4],
        m[4] * c[1] + m[5] * c[3] + c[5],
    ]
}

#[cfg(test)]
mod tests {
    use super::scan_ops;

    #[test]
    fn the_scan_sees_the_operators_lopdf_decodes_and_skips_strings_and_images() {
        let stream = b"q 1 0 0 1 5 6 cm % a comment with Tj in it\n/GS1 gs BT (a (nested\\) W) string Tr) Tj \
                       [(x) -20 <5772> 3] TJ ET BI /W 2 /H 1 /BPC 8 /CS /G ID \x00Tj\xffW EI Q";
        let mut seen: Vec<(String, Vec<f64>, Option<Vec<u8>>)> = Vec::new();
        scan_ops(stream, |op, nums, name| {
            seen.push((op.to_string(), nums.to_vec(), name.map(<[u8]>::to_vec)));
            false
        });
        let ops: Vec<&str> = seen.iter().map(|s| s.0.as_str()).collect();
        assert_eq!(ops, ["q", "cm", "gs", "BT", "Tj", "TJ", "ET", "Q"]);
        assert_eq!(seen[1].1, [1.0, 0.0, 0.0, 1.0, 5.0, 6.0]);
        assert_eq!(seen[2].2.as_deref(), Some(b"GS1".as_slice()));
        // Stopping early returns true.
        assert!(scan_ops(stream, |op, _, _| op == "TJ"));
    }
}

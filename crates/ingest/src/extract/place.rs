//! From a laid-out page in PDF space to what a `PageText` keeps: line boxes as fractions of the visible page
//! (the crop box, which is what poppler renders) with the origin at the top-left, and headings.

use super::layout::{Laid, Table};
use crate::structure::{Heading, PageBox, TextLine};

/// The visible part of a page in PDF user space (y up): the crop box, else the media box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub llx: f64,
    pub lly: f64,
    pub urx: f64,
    pub ury: f64,
}

impl Frame {
    /// `None` for an empty or non-finite box.
    pub fn new(llx: f64, lly: f64, urx: f64, ury: f64) -> Option<Frame> {
        let (llx, urx) = (llx.min(urx), llx.max(urx));
        let (lly, ury) = (lly.min(ury), lly.max(ury));
        let ok = [llx, lly, urx, ury].iter().all(|v| v.is_finite()) && urx - llx > 1.0 && ury - lly > 1.0;
        ok.then_some(Frame { llx, lly, urx, ury })
    }

    /// Whether a glyph's origin lies inside the box, give or take a point (a glyph set on the box's edge).
    pub fn holds(&self, x: f64, y: f64) -> bool {
        const SLACK: f64 = 1.0;
        (self.llx - SLACK..=self.urx + SLACK).contains(&x) && (self.lly - SLACK..=self.ury + SLACK).contains(&y)
    }
}

/// A line's box reaches this many font sizes above its baseline and below it.
const ASCENT: f64 = 0.85;
const DESCENT: f64 = 0.25;

/// What a `PageText` keeps of a laid-out page.
pub struct Placed {
    pub text: String,
    pub lines: Vec<TextLine>,
    pub headings: Vec<Heading>,
    pub tables: Vec<Table>,
    /// Text set apart from the body (see [`Laid::aside`]).
    pub furniture: Vec<String>,
}

/// The text, line boxes, headings and tables of a laid-out page; boxes only when the page's frame is known (a rotated
/// page, a body set at an angle, or one without a usable box gets none rather than wrong ones).
pub fn place(laid: Laid, page: u32, frame: Option<Frame>) -> Placed {
    let frame = frame.filter(|_| !laid.turned);
    let lines = frame.map_or_else(Vec::new, |f| {
        let (w, h) = (f.urx - f.llx, f.ury - f.lly);
        let fx = |x: f64| ((x - f.llx) / w).clamp(0.0, 1.0) as f32;
        let fy = |y: f64| ((f.ury - y) / h).clamp(0.0, 1.0) as f32;
        laid.lines
            .iter()
            .map(|l| TextLine {
                start: l.start,
                end: l.end,
                bbox: PageBox {
                    page,
                    x0: fx(l.x0),
                    y0: fy(l.y + ASCENT * l.size),
                    x1: fx(l.x1),
                    y1: fy(l.y - DESCENT * l.size),
                },
                size: l.size as f32,
            })
            .collect()
    });
    let headings = laid
        .headings
        .into_iter()
        .map(|h| Heading {
            start: h.start,
            level: 0,
            title: h.title,
            size: h.size as f32,
            depth: h.depth,
        })
        .collect();
    Placed {
        text: laid.text,
        lines,
        headings,
        tables: laid.tables,
        furniture: laid.aside,
    }
}

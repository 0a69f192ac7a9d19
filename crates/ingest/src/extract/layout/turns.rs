//! Text set at an angle: each glyph's turn (the angle of its baseline), the page's own turn (that of most of its
//! glyphs), and glyphs turned upright so that rows can be built from them. Text at another angle than the page's
//! (an arXiv stamp up the margin, a diagonal "PRELIMINARY" watermark, a rotated axis title) is laid out on its own
//! and set apart from the body, so it can never join a body line or become a title.

use super::Glyph;

/// Turns within this many degrees of a multiple of 90 are that multiple (slanted italics and a slightly rotated
/// scan are still upright).
const SNAP_DEGREES: f64 = 5.0;

/// The turn of a glyph whose text space maps its baseline direction to `(dx, dy)` on the page, in whole degrees
/// counter-clockwise, in `(-180, 180]`: 0 upright, 90 reading upwards, -90 reading downwards, 180 upside down.
pub(crate) fn turn_of(dx: f64, dy: f64) -> i16 {
    if !(dx.is_finite() && dy.is_finite()) || (dx == 0.0 && dy == 0.0) {
        return 0;
    }
    let degrees = dy.atan2(dx).to_degrees();
    let quarter = (degrees / 90.0).round() * 90.0;
    let snapped = if (degrees - quarter).abs() <= SNAP_DEGREES {
        quarter
    } else {
        degrees.round()
    };
    let t = snapped as i16;
    if t <= -180 {
        t + 360
    } else {
        t
    }
}

/// The page's glyphs by turn: the page's own turn (that of most glyphs that are not blank; upright on a tie) with its
/// glyphs turned upright, then each other turn with its glyphs turned upright, most glyphs first.
pub(super) fn by_turn(glyphs: &[Glyph]) -> (i16, Vec<Glyph>, Vec<Vec<Glyph>>) {
    if glyphs.iter().all(|g| g.turn == 0) {
        return (0, glyphs.to_vec(), Vec::new());
    }
    let mut counts: Vec<(i16, usize)> = Vec::new();
    for g in glyphs.iter().filter(|g| g.text.chars().any(char::is_alphanumeric)) {
        match counts.iter_mut().find(|(t, _)| *t == g.turn) {
            Some((_, n)) => *n += 1,
            None => counts.push((g.turn, 1)),
        }
    }
    // Most glyphs first; upright before any other turn with as many.
    counts.sort_by_key(|&(t, n)| (std::cmp::Reverse(n), t != 0));
    let main = counts.first().map_or(0, |&(t, _)| t);
    let upright = |turn: i16| -> Vec<Glyph> { glyphs.iter().filter(|g| g.turn == turn).map(turned_upright).collect() };
    let others = counts
        .iter()
        .filter(|&&(t, _)| t != main)
        .map(|&(t, _)| upright(t))
        .filter(|gs| !gs.is_empty())
        .collect();
    (main, upright(main), others)
}

/// The glyph in a frame turned by its own turn, so that its baseline runs left to right (y still up).
fn turned_upright(g: &Glyph) -> Glyph {
    let (sin, cos) = f64::from(g.turn).to_radians().sin_cos();
    // Exact for the quarter turns, so that a column's glyphs keep one baseline.
    let (sin, cos) = match g.turn {
        0 => (0.0, 1.0),
        90 => (1.0, 0.0),
        -90 => (-1.0, 0.0),
        180 => (0.0, -1.0),
        _ => (sin, cos),
    };
    Glyph {
        x: g.x * cos + g.y * sin,
        y: -g.x * sin + g.y * cos,
        turn: 0,
        ..g.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glyph(x: f64, y: f64, turn: i16, c: char) -> Glyph {
        Glyph {
            x,
            y,
            size: 10.0,
            width: 5.0,
            text: c.to_string(),
            turn,
        }
    }

    #[test]
    fn turns_snap_to_quarters_and_keep_other_angles() {
        assert_eq!(turn_of(1.0, 0.0), 0);
        assert_eq!(turn_of(1.0, 0.05), 0);
        assert_eq!(turn_of(0.0, 1.0), 90);
        assert_eq!(turn_of(0.0, -1.0), -90);
        assert_eq!(turn_of(-1.0, 0.0), 180);
        assert_eq!(turn_of(-1.0, -0.01), 180);
        assert_eq!(turn_of(1.0, 1.0), 45);
        assert_eq!(turn_of(f64::NAN, 1.0), 0);
    }

    #[test]
    fn text_reading_upwards_is_turned_into_one_row_and_set_apart() {
        // Body text upright at y 700; a stamp reading upwards at x 20, one glyph every 6 pt.
        let mut page: Vec<Glyph> = "body text here"
            .chars()
            .enumerate()
            .map(|(i, c)| glyph(72.0 + 5.0 * i as f64, 700.0, 0, c))
            .collect();
        page.extend(
            "arXiv"
                .chars()
                .enumerate()
                .map(|(i, c)| glyph(20.0, 300.0 + 6.0 * i as f64, 90, c)),
        );
        let (main, body, others) = by_turn(&page);
        assert_eq!(main, 0);
        assert_eq!(body.len(), 14);
        assert_eq!(others.len(), 1);
        let stamp = &others[0];
        // Upright, the stamp's glyphs share one baseline and read left to right.
        assert!(stamp.iter().all(|g| (g.y - stamp[0].y).abs() < 1e-9));
        assert!(stamp.windows(2).all(|w| w[1].x > w[0].x));
    }

    #[test]
    fn a_page_set_sideways_is_read_as_its_own_turn() {
        // A landscape table on a portrait page: everything reads downwards.
        let page: Vec<Glyph> = "sideways"
            .chars()
            .enumerate()
            .map(|(i, c)| glyph(300.0, 700.0 - 6.0 * i as f64, -90, c))
            .collect();
        let (main, body, others) = by_turn(&page);
        assert_eq!(main, -90);
        assert!(others.is_empty());
        assert!(body
            .windows(2)
            .all(|w| w[1].x > w[0].x && (w[1].y - w[0].y).abs() < 1e-9));
    }
}

//! `ragsift-bench glyphs`: one page's glyphs as the layout gets them, as JSON, optionally only those whose baseline
//! lies in a band of heights: the input of the layout tests taken from real pages (`crates/ingest/tests/real_pages`).

use std::path::Path;

/// Prints the glyphs of page `page` of `pdf` whose baseline lies within `[y_min, y_max]`, one JSON array.
pub fn run(pdf: &Path, page: u32, y_min: f64, y_max: f64) -> ragsift_engine::Result<()> {
    let glyphs: Vec<_> = ragsift_engine::extract::page_glyphs(pdf, page)?
        .into_iter()
        .filter(|g| (y_min..=y_max).contains(&g.y))
        .map(|mut g| {
            // Two decimals are finer than any layout rule looks.
            for v in [&mut g.x, &mut g.y, &mut g.size, &mut g.width] {
                *v = (*v * 100.0).round() / 100.0;
            }
            g
        })
        .collect();
    let json = serde_json::to_string(&glyphs).map_err(|e| ragsift_engine::Error::io(pdf, std::io::Error::other(e)))?;
    println!("{json}");
    Ok(())
}

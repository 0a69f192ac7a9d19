//! Screenshots from the X server's own framebuffer: Xvfb started with `-fbdir DIR` keeps its screen in
//! `DIR/Xvfb_screen0`, an XWD image (X Window Dump: a big-endian header, a colormap, then the pixels). This reads
//! a true-colour ZPixmap dump and encodes it as PNG — what is on the display, whatever the webview's compositing.
#![allow(dead_code)]

use std::path::Path;

/// The screen in the XWD file at `path`, as PNG bytes.
pub fn png_of(path: &Path) -> Result<Vec<u8>, String> {
    let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let field = |i: usize| -> Result<u32, String> {
        let b = data.get(i * 4..i * 4 + 4).ok_or("a truncated XWD header")?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (header, version, format) = (field(0)? as usize, field(1)?, field(2)?);
    if version != 7 || format != 2 {
        return Err(format!(
            "XWD version {version}, format {format}: only version 7 ZPixmap dumps are read"
        ));
    }
    let (width, height) = (field(4)? as usize, field(5)? as usize);
    let (lsb_first, bits, stride) = (field(7)? == 0, field(11)?, field(12)? as usize);
    let masks = [field(14)?, field(15)?, field(16)?];
    let colours = field(19)? as usize;
    if bits != 32 || masks.contains(&0) {
        return Err(format!(
            "{bits} bits per pixel with masks {masks:?}: only 32-bit true colour is read"
        ));
    }
    let pixels = header + colours * 12;
    let image = data
        .get(pixels..pixels + stride * height)
        .ok_or("the XWD file ends before its pixels do")?;
    let mut rgb = Vec::with_capacity(width * height * 3);
    for row in image.chunks_exact(stride) {
        for px in row[..width * 4].chunks_exact(4) {
            let b = [px[0], px[1], px[2], px[3]];
            let p = if lsb_first {
                u32::from_le_bytes(b)
            } else {
                u32::from_be_bytes(b)
            };
            rgb.extend(masks.map(|m| ((p & m) >> m.trailing_zeros()) as u8));
        }
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width as u32, height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(png)
}

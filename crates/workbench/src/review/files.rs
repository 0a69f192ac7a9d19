//! The app's side of a review: a packet opened from its file (checked against its id), and the reviewer's labels
//! written as rag-jev's CSV.

use super::{review_csv, ReviewLabel, ReviewPacket};
use crate::{Error, Result, Workbench};
use std::path::Path;

/// A review packet is a few hundred KB; anything far larger is not one.
const MAX_PACKET_BYTES: u64 = 64 << 20;

impl Workbench {
    /// Reads a packet written by `ragsift review packet`; refused when it was edited since (its id no longer
    /// matches its content) or is not a packet.
    pub fn open_review_packet(&self, path: &str) -> Result<ReviewPacket> {
        let p = Path::new(path.trim());
        let size = std::fs::metadata(p).map_err(|e| Error::io(p, e))?.len();
        if size > MAX_PACKET_BYTES {
            return Err(Error::Invalid(format!(
                "{}: {size} bytes is not a review packet",
                p.display()
            )));
        }
        let text = std::fs::read_to_string(p).map_err(|e| Error::io(p, e))?;
        let packet: ReviewPacket = serde_json::from_str(&text)
            .map_err(|e| Error::Invalid(format!("{}: not a review packet ({e})", p.display())))?;
        packet.verify()?;
        Ok(packet)
    }

    /// Writes the reviewer's labels for `packet` as CSV at `path` (what `ragsift review results` reads); returns
    /// the path.
    pub fn export_review_labels(&self, packet: &ReviewPacket, labels: &[ReviewLabel], path: &str) -> Result<String> {
        packet.verify()?;
        let p = Path::new(path.trim());
        std::fs::write(p, review_csv(packet, labels)).map_err(|e| Error::io(p, e))?;
        Ok(p.display().to_string())
    }
}

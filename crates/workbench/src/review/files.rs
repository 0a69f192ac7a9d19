//! The app's side of a review: a packet opened from its file (checked against its id), and the reviewer's labels
//! written as rag-jev's CSV.

use super::{review_csv, ReviewLabel, ReviewPacket};
use crate::{Error, Result, Workbench};
use std::path::Path;

impl Workbench {
    /// Reads a packet written by `ragsift review packet`; refused when it was edited since (its id no longer
    /// matches its content) or is not a packet.
    pub fn open_review_packet(&self, path: &str) -> Result<ReviewPacket> {
        let p = Path::new(path.trim());
        let text = ragsift_core::read::read_text(p, ragsift_core::read::JSON_MAX_MB)?;
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
        let csv = review_csv(packet, labels);
        ragsift_core::fsx::write_atomic(p, csv.as_bytes(), ragsift_core::fsx::Access::Shared)?;
        Ok(p.display().to_string())
    }
}

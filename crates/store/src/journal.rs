//! The removal journal beside the usearch file: the keys removed since the file was last saved whole, as
//! little-endian u64s. Rewriting a large index file after every small change costs time in proportion to the
//! library, so a small change appends its removed keys here instead (constant time), and whoever loads the file
//! removes them again. Added vectors need no journal: the reconcile after a load adds every chunk the index lacks
//! from the database. Replaying the journal is always safe, since a key removed too eagerly is one the reconcile
//! adds back; a torn last record (a crash mid-append) is ignored.

use crate::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The journal of the index file at `index`.
pub fn path_of(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(".removed");
    PathBuf::from(name)
}

/// Appends `keys` to the journal and flushes them to disk.
pub fn append(journal: &Path, keys: &[u64]) -> Result<()> {
    if keys.is_empty() {
        return Ok(());
    }
    let bytes: Vec<u8> = keys.iter().flat_map(|k| k.to_le_bytes()).collect();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(journal)
        .map_err(|e| Error::io(journal, e))?;
    file.write_all(&bytes).map_err(|e| Error::io(journal, e))?;
    file.sync_data().map_err(|e| Error::io(journal, e))
}

/// The keys in the journal (none when it is missing).
pub fn read(journal: &Path) -> Result<Vec<u64>> {
    let bytes = match std::fs::read(journal) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(journal, e)),
    };
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect())
}

/// Empties the journal: the index file now holds every change.
pub fn clear(journal: &Path) -> Result<()> {
    match std::fs::remove_file(journal) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(journal, e)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_read_back_in_order_and_a_torn_record_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let journal = path_of(&dir.path().join("v.usearch"));
        assert!(journal.to_string_lossy().ends_with("v.usearch.removed"));
        assert_eq!(read(&journal).unwrap(), Vec::<u64>::new());
        append(&journal, &[1, u64::MAX]).unwrap();
        append(&journal, &[]).unwrap();
        append(&journal, &[7]).unwrap();
        assert_eq!(read(&journal).unwrap(), vec![1, u64::MAX, 7]);
        let mut torn = std::fs::OpenOptions::new().append(true).open(&journal).unwrap();
        torn.write_all(&[9, 9, 9]).unwrap();
        assert_eq!(read(&journal).unwrap(), vec![1, u64::MAX, 7]);
        clear(&journal).unwrap();
        clear(&journal).unwrap();
        assert!(read(&journal).unwrap().is_empty());
    }
}

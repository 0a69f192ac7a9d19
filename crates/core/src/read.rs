//! Bounded reading of a user's file: its type and size are checked from its metadata before it is opened (opening
//! a FIFO for reading blocks), it is opened without blocking and checked again, and the read stops one byte past
//! the limit, so a FIFO, a device, or a file that grows or lies about its size cannot hang or exhaust memory.
//! Every JSON input (run files, review packets, case and trace files, candidate imports) has the one limit
//! [`JSON_MAX_MB`], the same on export, so that what ragsift exports it can import.

use crate::{Error, Result};
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// The one size limit of every JSON file ragsift reads or writes (MiB).
pub const JSON_MAX_MB: u64 = 256;

/// The limit of small text files: keys, URLs, settings (MiB).
pub const SMALL_MAX_MB: u64 = 1;

/// The UTF-8 text of the regular file at `path`, bounded as [`read_capped`].
pub fn read_text(path: &Path, max_mb: u64) -> Result<String> {
    let bytes = read_capped(path, max_mb)?;
    String::from_utf8(bytes).map_err(|e| Error::Corrupt {
        path: path.into(),
        kind: "UTF-8 text",
        detail: e.to_string(),
    })
}

/// Refuses before anything else (before a lock is taken) a path that is not a regular file: a FIFO would block
/// the reader, a device never ends.
pub fn check_regular(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    check(path, &meta, u64::MAX / (1024 * 1024))
}

/// The bytes of the regular file at `path`, refused when it is not a regular file or is over `max_mb` MiB.
pub fn read_capped(path: &Path, max_mb: u64) -> Result<Vec<u8>> {
    let max = max_mb.saturating_mul(1024 * 1024);
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    check(path, &meta, max_mb)?;
    let file = open(path)?;
    // The path may have been swapped between the two looks; the handle is what is read.
    let opened = file.metadata().map_err(|e| Error::io(path, e))?;
    check(path, &opened, max_mb)?;
    let mut bytes = Vec::with_capacity(opened.len().min(max) as usize);
    file.take(max.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > max {
        // It grew while being read.
        return Err(too_large(path, bytes.len() as u64, max_mb));
    }
    Ok(bytes)
}

/// A regular file within the limit.
fn check(path: &Path, meta: &Metadata, max_mb: u64) -> Result<()> {
    if !meta.is_file() {
        return Err(Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("not a regular file ({}); ragsift reads only regular files", kind(meta)),
            ),
        ));
    }
    if meta.len() > max_mb.saturating_mul(1024 * 1024) {
        return Err(too_large(path, meta.len(), max_mb));
    }
    Ok(())
}

fn too_large(path: &Path, size: u64, max_mb: u64) -> Error {
    Error::TooLarge {
        path: path.into(),
        size_mb: size as f64 / 1048576.0,
        limit_mb: max_mb,
    }
}

#[cfg(unix)]
fn kind(meta: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    match () {
        _ if t.is_dir() => "a folder",
        _ if t.is_fifo() => "a named pipe",
        _ if t.is_char_device() || t.is_block_device() => "a device",
        _ if t.is_socket() => "a socket",
        _ => "not a file",
    }
}

#[cfg(not(unix))]
fn kind(meta: &Metadata) -> &'static str {
    if meta.is_dir() {
        "a folder"
    } else {
        "not a file"
    }
}

/// Opens for reading without blocking on a FIFO swapped in after the metadata check.
fn open(path: &Path) -> Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    options.open(path).map_err(|e| Error::io(path, e))
}

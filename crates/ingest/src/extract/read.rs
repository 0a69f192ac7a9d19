//! Bounded reading of a user's file: its type and size are checked from its metadata before it is opened (opening
//! a FIFO for reading blocks), it is opened without blocking and checked again, and the read stops one byte past
//! the limit, so a FIFO, a device, or a file that grows or lies about its size cannot hang or exhaust memory.

use crate::{Error, Result};
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

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

//! Durable, atomic, private file writes: every file a user would miss (settings, fits, exports, review packets,
//! the key and store-url files, the vector index) is written to a unique temp file beside it, synced, renamed over
//! it and the folder synced; a failed write removes its temp file and leaves the old file whole. Also the private
//! home (0700), the check that a secret file is not readable by others, a cross-process lock for saves, and
//! disk-full errors that name the path and the space needed.

use crate::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Who may read a written file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Only the owner (0600): keys, connection strings, the database, settings.
    Private,
    /// Everyone may read (0644): exports and reports the user hands on.
    Shared,
}

impl Access {
    fn mode(self) -> u32 {
        match self {
            Access::Private => 0o600,
            Access::Shared => 0o644,
        }
    }
}

/// Writes `bytes` to `path` atomically and durably (see the module doc). A full disk is [`Error::DiskFull`].
pub fn write_atomic(path: &Path, bytes: &[u8], access: Access) -> Result<()> {
    let mut tmp = TempFile::beside(path, access)?;
    tmp.file()
        .and_then(|f| f.write_all(bytes))
        .map_err(|e| disk_error(path, e, Some(bytes.len() as u64)))?;
    tmp.commit()
}

/// Writes `bytes` to a new file `path` as [`write_atomic`] does, refused when `path` exists (no file is ever
/// replaced): the temp file is linked to its name, which fails when the name is taken.
pub fn write_new(path: &Path, bytes: &[u8], access: Access) -> Result<()> {
    let mut tmp = TempFile::beside(path, access)?;
    let file = tmp.file().map_err(|e| Error::io(path, e))?;
    file.write_all(bytes)
        .and_then(|_| file.sync_all())
        .map_err(|e| disk_error(path, e, Some(bytes.len() as u64)))?;
    std::fs::hard_link(tmp.path(), path).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            Error::Invalid(format!("{} exists: ragsift does not overwrite it", path.display()))
        }
        _ => disk_error(path, e, None),
    })?;
    drop(tmp);
    sync_dir(parent(path))
}

/// A temp file beside its target, removed on drop unless [`TempFile::commit`]ted. For writers that need a path
/// (the vector index saves itself to one), [`TempFile::path`] gives it.
#[derive(Debug)]
pub struct TempFile {
    target: PathBuf,
    path: PathBuf,
    file: Option<File>,
    done: bool,
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

impl TempFile {
    /// Creates a new, unique, empty temp file in `target`'s folder (`.NAME.PID.N.tmp`), with `access`'s mode.
    pub fn beside(target: &Path, access: Access) -> Result<Self> {
        let dir = parent(target);
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
            match OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(access.mode())
                .open(&path)
            {
                Ok(file) => {
                    return Ok(TempFile {
                        target: target.to_path_buf(),
                        path,
                        file: Some(file),
                        done: false,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(disk_error(&path, e, None)),
            }
        }
    }

    /// The temp file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open temp file, to write into.
    pub fn file(&mut self) -> std::io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the temp file is closed"))
    }

    /// Syncs the temp file, renames it over the target and syncs the folder. On failure the temp file is removed
    /// and the target is unchanged.
    pub fn commit(mut self) -> Result<()> {
        let file = match self.file.take() {
            Some(f) => f,
            // Written through its path by someone else: open it to sync it.
            None => File::open(&self.path).map_err(|e| Error::io(&self.path, e))?,
        };
        file.sync_all().map_err(|e| disk_error(&self.target, e, None))?;
        drop(file);
        std::fs::rename(&self.path, &self.target).map_err(|e| disk_error(&self.target, e, None))?;
        self.done = true;
        sync_dir(parent(&self.target))
    }

    /// Closes the file handle, so that another writer can write to [`TempFile::path`].
    pub fn close(&mut self) {
        self.file = None;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Syncs a folder, so that a rename in it survives a power cut.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

/// Creates `dir` (and its parents) if needed and makes it private (0700): a library home holds the database,
/// keys and traces.
pub fn private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let meta = std::fs::metadata(dir).map_err(|e| Error::io(dir, e))?;
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| Error::io(dir, e))?;
    }
    Ok(())
}

/// Makes an existing file private (0600) if others can read or write it.
pub fn make_private(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    if meta.permissions().mode() & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|e| Error::io(path, e))?;
    }
    Ok(())
}

/// Refuses a secret file (`what`: "the Jev key") that users other than its owner can read or write, saying how
/// to fix it.
pub fn check_secret(path: &Path, what: &str) -> Result<()> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(Error::Setup(format!(
            "{}: {what} can be read by other users (mode {mode:04o}); ragsift does not use it until it is \
             private: run `chmod 600 {}`",
            path.display(),
            path.display()
        )));
    }
    Ok(())
}

/// An exclusive lock on a lock file (created if needed), held until dropped: serialises saves of one file
/// across threads and processes.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

/// Takes the exclusive lock `path` (e.g. `settings.json.lock`), waiting for another holder to let go.
pub fn lock(path: &Path) -> Result<FileLock> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    file.lock().map_err(|e| Error::io(path, e))?;
    Ok(FileLock { _file: file })
}

/// Bytes free for this user on the file system holding `path` (or its nearest existing ancestor).
#[allow(unsafe_code)] // statvfs has no safe wrapper in std
pub fn free_bytes(path: &Path) -> Option<u64> {
    let mut at = Some(path);
    while let Some(p) = at {
        if p.exists() {
            let c = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())).ok()?;
            let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
            // SAFETY: `c` is a valid NUL-terminated path and `st` is written by statvfs before it is read.
            let rc = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
            if rc != 0 {
                return None;
            }
            // SAFETY: statvfs returned 0, so it filled `st`.
            let st = unsafe { st.assume_init() };
            return Some(st.f_bavail.saturating_mul(st.f_frsize));
        }
        at = p.parent();
    }
    None
}

/// Whether an OS error means the disk (or the user's quota) is full.
pub fn is_disk_full(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull || matches!(e.raw_os_error(), Some(libc::ENOSPC) | Some(libc::EDQUOT))
}

/// An I/O error on `path`: [`Error::DiskFull`] (with the free space and `needed`, when known) when the disk is
/// full, else [`Error::Io`].
pub fn disk_error(path: &Path, e: std::io::Error, needed: Option<u64>) -> Error {
    if is_disk_full(&e) {
        Error::DiskFull {
            path: path.to_path_buf(),
            needed,
            free: free_bytes(path),
        }
    } else {
        Error::io(path, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        write_atomic(&path, b"one", Access::Private).unwrap();
        write_atomic(&path, b"two", Access::Private).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["settings.json"]);
    }

    #[test]
    fn a_new_file_never_replaces_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("packet.json");
        write_new(&path, b"one", Access::Shared).unwrap();
        let err = write_new(&path, b"two", Access::Shared).unwrap_err().to_string();
        assert!(err.contains("exists"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"one");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_temp_file_not_committed_is_removed_and_the_target_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, "old").unwrap();
        {
            let mut tmp = TempFile::beside(&path, Access::Shared).unwrap();
            tmp.file().unwrap().write_all(b"half").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_home_is_made_private_and_a_readable_secret_is_refused_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        private_dir(&home).unwrap();
        assert_eq!(std::fs::metadata(&home).unwrap().permissions().mode() & 0o777, 0o700);
        let key = home.join("jev-api-key");
        std::fs::write(&key, "k").unwrap();
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = check_secret(&key, "the Jev key").unwrap_err().to_string();
        assert!(err.contains("mode 0644") && err.contains("chmod 600"), "{err}");
        make_private(&key).unwrap();
        check_secret(&key, "the Jev key").unwrap();
    }

    #[test]
    fn enospc_is_a_disk_full_error_naming_the_path_and_the_space() {
        let e = disk_error(
            Path::new("/tmp/x.json"),
            std::io::Error::from_raw_os_error(libc::ENOSPC),
            Some(3 << 20),
        );
        let text = e.to_string();
        assert!(matches!(e, Error::DiskFull { .. }), "{e:?}");
        assert!(
            text.contains("/tmp/x.json") && text.contains("disk is full") && text.contains("3.0 MB"),
            "{text}"
        );
        let other = disk_error(Path::new("/x"), std::io::Error::from_raw_os_error(libc::EACCES), None);
        assert!(matches!(other, Error::Io { .. }));
    }
}

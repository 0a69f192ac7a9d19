//! SQLite's errors as the core's plain database error (the core holds no database type), with whether SQLite
//! said its disk is full.

use crate::{Error, Result};
use ragsift_core::DbError;

/// `.sql()?` turns a rusqlite result into the engine's.
pub(crate) trait Sql<T> {
    fn sql(self) -> Result<T>;
}

impl<T> Sql<T> for rusqlite::Result<T> {
    fn sql(self) -> Result<T> {
        self.map_err(db)
    }
}

/// SQLite's error as [`Error::Db`].
pub(crate) fn db(e: rusqlite::Error) -> Error {
    let disk_full = matches!(&e, rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::DiskFull);
    Error::Db(DbError {
        message: e.to_string(),
        disk_full,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_reads_as_full_and_other_failures_do_not() {
        let full = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL), None);
        assert!(db(full).is_disk_full());
        let busy = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY), None);
        let e = db(busy);
        assert!(!e.is_disk_full());
        assert_eq!(e.code(), "database");
    }
}

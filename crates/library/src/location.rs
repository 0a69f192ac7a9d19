//! Where a library's store lives: this machine (SQLite + usearch in the home folder) or a PostgreSQL server.
//! The server comes from, first to last: `RAGSIFT_STORE_URL` (the CLI's `--store` sets it), `<home>/store-url`
//! (mode 0600), or the `store` setting (a URL without a password). Passwords only ever come from the first two, or
//! from `PGPASSWORD`; never from `settings.json`, a command line, a trace or a log.

use crate::{Error, Result};
use std::path::Path;

/// The environment variable holding a full store URL (password allowed).
pub const STORE_URL_ENV: &str = "RAGSIFT_STORE_URL";
/// The file in a library's home holding a full store URL (password allowed; must be mode 0600).
pub const STORE_URL_FILE: &str = "store-url";

/// Where a library's store lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// SQLite and a usearch file in the home folder.
    Local,
    /// A PostgreSQL database: its connection URL (may hold a password: never print it).
    Postgres(String),
}

/// Whether `url` names a PostgreSQL server (URL or `key=value` form).
pub fn is_postgres_url(url: &str) -> bool {
    let url = url.trim();
    url.starts_with("postgres://") || url.starts_with("postgresql://") || url.contains("host=")
}

/// Whether `url` carries a password.
pub fn has_password(url: &str) -> bool {
    url.parse::<tokio_postgres::Config>()
        .is_ok_and(|c| c.get_password().is_some())
}

/// The problem with a `store` setting, if any: it must be empty (this machine) or a PostgreSQL URL without a
/// password.
pub fn setting_problem(store: &str) -> Option<String> {
    let store = store.trim();
    if store.is_empty() {
        return None;
    }
    if !is_postgres_url(store) {
        return Some("leave empty for this machine, or give postgres://user@host:port/database".into());
    }
    if let Err(e) = store.parse::<tokio_postgres::Config>() {
        return Some(format!("not a PostgreSQL URL: {e}"));
    }
    if has_password(store) {
        return Some(format!(
            "no passwords here (settings and command lines can be read by others): put the full URL in \
             {STORE_URL_ENV} or in <home>/{STORE_URL_FILE} (mode 0600), or the password in PGPASSWORD"
        ));
    }
    None
}

/// Resolves a library's store from its `store` setting, the environment and its home folder.
pub fn resolve(home: &Path, setting: &str) -> Result<StoreLocation> {
    if let Some(problem) = setting_problem(setting) {
        return Err(Error::Invalid(format!("store: {problem}")));
    }
    let url = match std::env::var(STORE_URL_ENV).ok().filter(|v| !v.trim().is_empty()) {
        Some(env) => Some(env.trim().to_string()),
        None => read_url_file(home)?.or_else(|| Some(setting.trim().to_string()).filter(|s| !s.is_empty())),
    };
    let Some(url) = url else {
        return Ok(StoreLocation::Local);
    };
    if !is_postgres_url(&url) {
        return Err(Error::Invalid(
            "the store URL must be postgres://user[:password]@host[:port]/database".into(),
        ));
    }
    Ok(StoreLocation::Postgres(with_env_password(&url)))
}

/// `<home>/store-url`, refused unless only its owner can read it.
fn read_url_file(home: &Path) -> Result<Option<String>> {
    let path = home.join(STORE_URL_FILE);
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(Error::Invalid(format!(
            "{} can be read by other users: chmod 600 it (it may hold a password)",
            path.display()
        )));
    }
    let text = ragsift_core::read::read_text(&path, ragsift_core::read::SMALL_MAX_MB)?;
    Ok(Some(text.trim().to_string()).filter(|s| !s.is_empty()))
}

/// Adds `PGPASSWORD` (libpq's variable) as the password when the URL has none.
fn with_env_password(url: &str) -> String {
    match std::env::var("PGPASSWORD") {
        Ok(pw) if !pw.is_empty() && !has_password(url) && !url.contains("://") => {
            format!("{url} password='{}'", pw.replace('\\', "\\\\").replace('\'', "\\'"))
        }
        Ok(pw) if !pw.is_empty() && !has_password(url) => {
            let sep = if url.contains('?') { '&' } else { '?' };
            format!("{url}{sep}password={}", percent_encode(&pw))
        }
        _ => url.to_string(),
    }
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_never_hold_a_password() {
        assert_eq!(setting_problem(""), None);
        assert_eq!(setting_problem("postgres://alice@db:5432/team"), None);
        assert!(setting_problem("postgres://alice:pw@db/team")
            .unwrap()
            .contains("no passwords"));
        assert!(setting_problem("host=/tmp user=a password=b")
            .unwrap()
            .contains("no passwords"));
        assert!(setting_problem("mysql://x").is_some());
    }

    #[test]
    fn the_url_file_must_be_private() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        assert_eq!(resolve(home.path(), "").unwrap(), StoreLocation::Local);
        let file = home.path().join(STORE_URL_FILE);
        std::fs::write(&file, "postgres://a:secret@h/db\n").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = resolve(home.path(), "").unwrap_err().to_string();
        assert!(err.contains("chmod 600") && !err.contains("secret"), "{err}");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        match resolve(home.path(), "").unwrap() {
            StoreLocation::Postgres(url) => assert!(url.starts_with("postgres://a:secret@h/db")),
            other => panic!("{other:?}"),
        }
        // The home's file wins over the setting.
        assert!(matches!(resolve(home.path(), "postgres://b@other/db").unwrap(),
            StoreLocation::Postgres(url) if url.contains("@h/db")));
        std::fs::remove_file(&file).unwrap();
        assert_eq!(
            resolve(home.path(), "postgres://b@other/db").unwrap(),
            StoreLocation::Postgres("postgres://b@other/db".into())
        );
    }

    #[test]
    fn passwords_are_percent_encoded() {
        assert_eq!(percent_encode("p@ss word"), "p%40ss%20word");
    }
}

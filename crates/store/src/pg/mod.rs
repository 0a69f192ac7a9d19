//! The PostgreSQL + pgvector store: a team library on a shared server. Documents, pages, chunks (vectors in a
//! `vector(N)` column with an HNSW index, keywords in a generated `tsvector`), runs and the judgment cache, behind
//! the same traits as the SQLite store. One tokio-postgres connection pool (deadpool) on a small private runtime;
//! the traits stay synchronous, so each call runs on that runtime and waits for its answer.

#[cfg(any(test, feature = "test-support"))]
pub mod cluster;
mod documents;
mod labels;
mod records;
mod schema;
pub mod spring;
mod tls;
mod vectors;

use crate::backend::{StoreInfo, StoreKind};
use crate::{Error, Result};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use vectors::PgVectors;

/// How long opening a connection may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections one process keeps to the server.
const POOL_SIZE: usize = 8;

/// A library in a PostgreSQL database.
pub struct PgStore {
    conn: Arc<Conn>,
}

/// The pool and the runtime that drives it, shared by the store and its vector index.
pub(crate) struct Conn {
    runtime: Option<tokio::runtime::Runtime>,
    pool: Pool,
    /// `postgres://user@host:port/db`, never with a password.
    location: String,
}

/// What a database call can fail with, before it becomes the crate's [`Error`].
pub(crate) enum Failure {
    Pg(tokio_postgres::Error),
    Core(Error),
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Self {
        Failure::Pg(e)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

pub(crate) type PgResult<T> = std::result::Result<T, Failure>;
pub(crate) type Client = deadpool_postgres::Object;

impl PgStore {
    /// Connects to the database at `url` (a `postgres://` URL or `key=value` pairs; `host` may be a socket
    /// directory), checks that pgvector is there, and brings the schema up to date.
    pub fn open(url: &str) -> Result<Self> {
        let store = PgStore {
            conn: Arc::new(Conn::connect(url)?),
        };
        store.conn.run(|mut c| async move { schema::migrate(&mut c).await })?;
        Ok(store)
    }

    /// Creates `schema` in the database at `url` if it is missing (a role without CREATE gets `Server`).
    pub fn create_schema(url: &str, schema: &str) -> Result<()> {
        let conn = Conn::connect(url)?;
        let sql = format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\"");
        conn.run(move |c| async move { Ok(c.batch_execute(&sql).await?) })
    }

    pub(crate) fn conn(&self) -> &Arc<Conn> {
        &self.conn
    }

    /// Engine and location.
    pub fn describe(&self) -> StoreInfo {
        StoreInfo {
            kind: StoreKind::Postgres,
            location: self.conn.location.clone(),
        }
    }
}

impl Conn {
    /// A pool for `url` on a new private runtime (no connection is made yet).
    pub(crate) fn connect(url: &str) -> Result<Conn> {
        let (url, root_cert) = tls::take_root_cert(url);
        let (url, verify) = tls::verify_modes(&url);
        let config: tokio_postgres::Config = url.parse().map_err(|e| Error::Invalid(format!("store URL: {e}")))?;
        let location = describe(&config);
        let mut config = config;
        tls::require_off_loopback(&mut config, verify || url.contains("sslmode="));
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("ragsift");
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ragsift-pg")
            .enable_all()
            .build()
            .map_err(|e| Error::Setup(format!("cannot start the database runtime: {e}")))?;
        let manager_config = || ManagerConfig {
            // A connection the server dropped is noticed on checkout and replaced by a new one.
            recycling_method: RecyclingMethod::Verified,
        };
        let manager = if tls::wanted(&config) {
            Manager::from_config(config, tls::connector(root_cert.as_deref())?, manager_config())
        } else {
            Manager::from_config(config, tokio_postgres::NoTls, manager_config())
        };
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .create_timeout(Some(CONNECT_TIMEOUT))
            .wait_timeout(Some(Duration::from_secs(60)))
            .recycle_timeout(Some(CONNECT_TIMEOUT))
            .build()
            .map_err(|e| Error::Setup(format!("connection pool: {e}")))?;
        Ok(Conn {
            runtime: Some(runtime),
            pool,
            location,
        })
    }

    /// `postgres://user@host:port/db`, without the password.
    pub(crate) fn location(&self) -> &str {
        &self.location
    }

    /// Runs `f` with a pooled connection on the store's runtime and waits for it. Safe to call from any thread,
    /// inside another tokio runtime too.
    pub(crate) fn run<T, F, Fut>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(Client) -> Fut + Send + 'static,
        Fut: Future<Output = PgResult<T>> + Send + 'static,
    {
        let runtime = self
            .runtime
            .as_ref()
            .ok_or_else(|| Error::Server("the store is closed".into()))?;
        let pool = self.pool.clone();
        let location = self.location.clone();
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        runtime.spawn(async move {
            let out = match pool.get().await {
                Ok(client) => f(client).await,
                // SQLSTATE class 28: the server refused the login (password, role, pg_hba rule).
                Err(deadpool_postgres::PoolError::Backend(e))
                    if e.as_db_error().is_some_and(|d| d.code().code().starts_with("28")) =>
                {
                    Err(Failure::Core(Error::Auth(format!(
                        "PostgreSQL at {location} refused the login: {}",
                        chain(&e)
                    ))))
                }
                Err(e) => Err(Failure::Core(Error::Unreachable(format!(
                    "cannot connect: {}",
                    chain(&e)
                )))),
            };
            let _ = tx.send(out);
        });
        let out = rx
            .recv()
            .map_err(|_| Error::Server("the database task stopped".into()))?;
        out.map_err(|f| self.error(f))
    }

    /// The crate's error for a failed call: a lost or refused connection is `Unreachable`, a server error
    /// `Server`, both naming the server.
    fn error(&self, failure: Failure) -> Error {
        let location = &self.location;
        match failure {
            Failure::Core(Error::Unreachable(m)) => Error::Unreachable(format!("PostgreSQL at {location}: {m}")),
            Failure::Core(e) => e,
            Failure::Pg(e) => match e.as_db_error() {
                Some(db) => Error::Server(format!(
                    "PostgreSQL at {location}: {} ({})",
                    db.message(),
                    db.code().code()
                )),
                None => Error::Unreachable(format!("PostgreSQL at {location}: {e}")),
            },
        }
    }
}

impl Drop for Conn {
    fn drop(&mut self) {
        // Dropping a runtime blocks, which tokio forbids inside another runtime (the app's async commands).
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// An error with its causes, `a: b: c` (deadpool and tokio-postgres keep the useful part in the sources).
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let next = cause.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = cause.source();
    }
    text
}

/// `postgres://user@host:port/db` of a connection config: where, never the password.
fn describe(config: &tokio_postgres::Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(name) => name.clone(),
            tokio_postgres::config::Host::Unix(path) => path.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("");
    let db = config.get_dbname().unwrap_or(user);
    format!("postgres://{user}@{host}:{port}/{db}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_location_never_shows_the_password() {
        let config: tokio_postgres::Config = "postgres://alice:s3cret@db.example:6543/team".parse().unwrap();
        assert_eq!(describe(&config), "postgres://alice@db.example:6543/team");
        let config: tokio_postgres::Config = "host=/tmp/sock user=postgres password=x dbname=lib".parse().unwrap();
        assert_eq!(describe(&config), "postgres://postgres@/tmp/sock:5432/lib");
    }
}

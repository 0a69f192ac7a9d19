//! A throwaway PostgreSQL 16 + pgvector server for tests and benchmarks: the server `scripts/setup.sh` unpacks
//! from the pgserver wheel, a new cluster in a temporary directory, listening only on a Unix socket there, stopped
//! and deleted on drop. PostgreSQL refuses to run as root, so under root the server runs as `nobody` from a
//! world-readable copy of the binaries.

use crate::{Error, Result};
use ragsift_core::paths::data_dir;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where setup puts the server, under the data dir.
pub const INSTALL_DIR: &str = "runtime/postgresql/pgserver/pginstall";

/// A running throwaway cluster.
pub struct TestCluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// `nobody`'s uid and gid when this process is root.
    run_as: Option<(u32, u32)>,
}

fn setup_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Setup(format!("test PostgreSQL: {what}: {e}"))
}

impl TestCluster {
    /// Creates and starts a cluster (a few seconds).
    pub fn start() -> Result<Self> {
        let installed = data_dir()?.join(INSTALL_DIR);
        if !installed.join("bin/postgres").is_file() {
            return Err(Error::Setup(format!(
                "PostgreSQL is not installed at {}: {}",
                installed.display(),
                ragsift_core::paths::SETUP_HINT
            )));
        }
        let run_as = is_root().then(nobody).transpose()?;
        let bin = match run_as {
            Some(_) => world_readable_copy(&installed)?.join("pgserver/pginstall/bin"),
            None => installed.join("bin"),
        };
        let dir = tempfile::Builder::new()
            .prefix("ragsift-pg-")
            .tempdir()
            .map_err(|e| setup_error("temp dir", e))?;
        let cluster = TestCluster { dir, bin, run_as };
        cluster.give_to_server(cluster.dir.path())?;
        let data = cluster.data();
        cluster.tool(
            "initdb",
            &[
                "-D",
                path_str(&data)?,
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        )?;
        let options = format!(
            "-k {} -c listen_addresses='' -c fsync=off -c max_connections=100",
            cluster.socket_dir().display()
        );
        let log = cluster.dir.path().join("server.log");
        cluster.tool(
            "pg_ctl",
            &[
                "-D",
                path_str(&data)?,
                "-o",
                &options,
                "-l",
                path_str(&log)?,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )?;
        Ok(cluster)
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The directory of the server's Unix socket.
    pub fn socket_dir(&self) -> &Path {
        self.dir.path()
    }

    /// Connection settings for database `db` (the superuser `postgres`, trusted on the socket).
    pub fn url(&self, db: &str) -> String {
        format!("host={} user=postgres dbname={db}", self.socket_dir().display())
    }

    /// Creates a database (with pgvector enabled) and returns its connection settings.
    pub fn create_database(&self, name: &str) -> Result<String> {
        self.psql("postgres", &format!("CREATE DATABASE \"{name}\""))?;
        self.psql(name, "CREATE EXTENSION IF NOT EXISTS vector")?;
        Ok(self.url(name))
    }

    /// Runs SQL with psql as the superuser; returns its output (unaligned, tuples only).
    pub fn psql(&self, db: &str, sql: &str) -> Result<String> {
        let socket = path_str(self.socket_dir())?.to_string();
        self.tool(
            "psql",
            &[
                "-h",
                &socket,
                "-U",
                "postgres",
                "-d",
                db,
                "-v",
                "ON_ERROR_STOP=1",
                "-Atq",
                "-c",
                sql,
            ],
        )
    }

    /// Stops the server at once, as a crash or a pulled cable would look to its clients.
    pub fn kill(&self) -> Result<()> {
        self.tool(
            "pg_ctl",
            &["-D", path_str(&self.data())?, "-m", "immediate", "-w", "stop"],
        )
        .map(|_| ())
    }

    /// Starts the server again after [`TestCluster::kill`].
    pub fn restart(&self) -> Result<()> {
        let options = format!("-k {} -c listen_addresses='' -c fsync=off", self.socket_dir().display());
        let log = self.dir.path().join("server.log");
        self.tool(
            "pg_ctl",
            &[
                "-D",
                path_str(&self.data())?,
                "-o",
                &options,
                "-l",
                path_str(&log)?,
                "-w",
                "-t",
                "60",
                "start",
            ],
        )
        .map(|_| ())
    }

    fn tool(&self, name: &str, args: &[&str]) -> Result<String> {
        let mut cmd = Command::new(self.bin.join(name));
        cmd.args(args).stdin(Stdio::null());
        if let Some((uid, gid)) = self.run_as {
            use std::os::unix::process::CommandExt;
            cmd.uid(uid).gid(gid);
            cmd.current_dir(self.dir.path());
        }
        let out = cmd.output().map_err(|e| setup_error(name, e))?;
        if !out.status.success() {
            return Err(setup_error(
                name,
                format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stderr),
                    String::from_utf8_lossy(&out.stdout)
                ),
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    fn give_to_server(&self, path: &Path) -> Result<()> {
        if let Some((uid, gid)) = self.run_as {
            std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(|e| setup_error("chown", e))?;
        }
        Ok(())
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        if let Ok(data) = path_str(&self.data()).map(str::to_string) {
            let _ = self.tool("pg_ctl", &["-D", &data, "-m", "immediate", "-w", "stop"]);
        }
    }
}

fn path_str(p: &Path) -> Result<&str> {
    p.to_str()
        .ok_or_else(|| Error::Setup(format!("{} is not UTF-8", p.display())))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `nobody`'s uid and gid.
fn nobody() -> Result<(u32, u32)> {
    let id = |flag: &str| -> Result<u32> {
        let out = Command::new("id")
            .args([flag, "nobody"])
            .output()
            .map_err(|e| setup_error("id nobody", e))?;
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .map_err(|e| setup_error("id nobody", e))
    };
    Ok((id("-u")?, id("-g")?))
}

/// A copy of the install (its `pgserver/` and `pgserver.libs/`, which the binaries find through RPATH) that
/// `nobody` can read, made once per machine and reused.
fn world_readable_copy(installed: &Path) -> Result<PathBuf> {
    let root = installed
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| Error::Setup("unexpected PostgreSQL install layout".into()))?;
    let target = std::env::temp_dir().join("ragsift-postgresql-16");
    if target.join("pgserver/pginstall/bin/postgres").is_file() && target.join("complete").is_file() {
        return Ok(target);
    }
    let staging = std::env::temp_dir().join(format!("ragsift-postgresql-16.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
    for part in ["pgserver", "pgserver.libs"] {
        let status = Command::new("cp")
            .arg("-a")
            .arg(root.join(part))
            .arg(&staging)
            .status()
            .map_err(|e| setup_error("cp", e))?;
        if !status.success() {
            return Err(setup_error(
                "cp",
                format!("copying {} failed", root.join(part).display()),
            ));
        }
    }
    let status = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(&staging)
        .status()
        .map_err(|e| setup_error("chmod", e))?;
    if !status.success() {
        return Err(setup_error("chmod", "failed"));
    }
    std::fs::write(staging.join("complete"), b"").map_err(|e| Error::io(&staging, e))?;
    match std::fs::rename(&staging, &target) {
        Ok(()) => Ok(target),
        // Another test process made it first.
        Err(_) if target.join("complete").is_file() => {
            let _ = std::fs::remove_dir_all(&staging);
            Ok(target)
        }
        Err(e) => Err(Error::io(&target, e)),
    }
}

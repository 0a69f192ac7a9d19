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
    /// The port (of the socket file, and of 127.0.0.1 when TLS is on).
    port: u16,
    /// Server options beyond the socket.
    options: String,
}

fn setup_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Setup(format!("test PostgreSQL: {what}: {e}"))
}

impl TestCluster {
    /// Creates and starts a cluster (a few seconds).
    pub fn start() -> Result<Self> {
        Self::launch(false)
    }

    /// A cluster for a unit test, or `None` (the test skips, saying why) when the test server is not installed.
    #[cfg(test)]
    pub(crate) fn start_or_skip() -> Option<Self> {
        match Self::start() {
            Ok(c) => Some(c),
            // Without the test server installed (scripts/setup.sh) there is nothing to run against.
            Err(Error::Setup(m)) if m.contains("not installed") => {
                eprintln!("skipped: {m}");
                None
            }
            Err(e) => panic!("{e}"),
        }
    }

    /// A cluster that also listens on 127.0.0.1 with TLS on and accepts TCP clients only over TLS, its certificate
    /// signed by a throwaway CA; returns it with the CA's PEM file (for `sslrootcert`). The pgserver build has no
    /// SSL, so this is Debian's PostgreSQL (without pgvector); it needs the `openssl` command.
    pub fn start_tls() -> Result<(Self, PathBuf)> {
        let cluster = Self::launch(true)?;
        let ca = cluster.dir.path().join("ca.pem");
        Ok((cluster, ca))
    }

    /// The TCP port (with [`TestCluster::start_tls`]).
    pub fn port(&self) -> u16 {
        self.port
    }

    fn launch(tls: bool) -> Result<Self> {
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
            // The pgserver build has no SSL: the TLS cluster is Debian's server (setup's `postgresql` package).
            _ if tls => debian_bin()?,
            Some(_) => world_readable_copy(&installed)?.join("pgserver/pginstall/bin"),
            None => installed.join("bin"),
        };
        let dir = tempfile::Builder::new()
            .prefix("ragsift-pg-")
            .tempdir()
            .map_err(|e| setup_error("temp dir", e))?;
        let mut cluster = TestCluster {
            dir,
            bin,
            run_as,
            port: 5432,
            options: String::new(),
        };
        cluster.give_to_server(cluster.dir.path())?;
        if tls {
            cluster.port = free_port()?;
            cluster.options = cluster.certificates()?;
        }
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
        if tls {
            let hba = data.join("pg_hba.conf");
            std::fs::write(&hba, "local all all trust\nhostssl all all 127.0.0.1/32 trust\n")
                .map_err(|e| Error::io(&hba, e))?;
        }
        cluster.restart()?;
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
        format!(
            "host={} port={} user=postgres dbname={db}",
            self.socket_dir().display(),
            self.port
        )
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
        let port = self.port.to_string();
        let args = [
            "-h",
            &socket,
            "-p",
            &port,
            "-U",
            "postgres",
            "-d",
            db,
            "-v",
            "ON_ERROR_STOP=1",
            "-Atq",
            "-c",
            sql,
        ];
        self.tool("psql", &args)
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
        let listen = if self.options.is_empty() {
            "-c listen_addresses=''"
        } else {
            self.options.as_str()
        };
        let options = format!(
            "-k {} -p {} -c fsync=off -c max_connections=100 {listen}",
            self.socket_dir().display(),
            self.port
        );
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
        .map_err(|e| {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(5).collect();
            Error::Setup(format!(
                "{e}; server log: {}",
                tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
            ))
        })
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

    /// A CA and a server certificate for localhost / 127.0.0.1 signed by it, in the cluster's dir; returns the
    /// server options that turn TLS on over TCP.
    fn certificates(&self) -> Result<String> {
        let dir = self.dir.path();
        let openssl = |args: &[&str]| -> Result<()> {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(dir)
                .output()
                .map_err(|e| setup_error("openssl", e))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(setup_error("openssl", String::from_utf8_lossy(&out.stderr)))
            }
        };
        openssl(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=ragsift test CA",
        ])?;
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ])?;
        let ext = dir.join("ext.cnf");
        std::fs::write(
            &ext,
            "subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
        )
        .map_err(|e| Error::io(&ext, e))?;
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "ext.cnf",
        ])?;
        for file in ["server.key", "server.crt"] {
            use std::os::unix::fs::PermissionsExt;
            let path = dir.join(file);
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).map_err(|e| Error::io(&path, e))?;
            self.give_to_server(&path)?;
        }
        Ok(format!(
            "-c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
            dir.join("server.crt").display(),
            dir.join("server.key").display()
        ))
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

/// The newest Debian PostgreSQL server's `bin` directory.
fn debian_bin() -> Result<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| {
            Error::Setup(format!(
                "Debian's PostgreSQL is not installed: {}",
                ragsift_core::paths::SETUP_HINT
            ))
        })?
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| bin.join("postgres").is_file())
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or_else(|| {
        Error::Setup(format!(
            "no PostgreSQL server under /usr/lib/postgresql: {}",
            ragsift_core::paths::SETUP_HINT
        ))
    })
}

/// A TCP port free on 127.0.0.1 right now.
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| setup_error("free port", e))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| setup_error("free port", e))
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

/// The name of the world-readable copy under the temp dir, and of its "finished" marker.
const COPY_NAME: &str = "ragsift-postgresql-16";
const COMPLETE: &str = "complete";

/// A copy of the install (its `pgserver/` and `pgserver.libs/`, which the binaries find through RPATH) that
/// `nobody` can read, made at most once per process (the tests of one binary start clusters from many threads)
/// and reused across processes.
fn world_readable_copy(installed: &Path) -> Result<PathBuf> {
    static COPY: std::sync::OnceLock<std::result::Result<PathBuf, String>> = std::sync::OnceLock::new();
    COPY.get_or_init(|| copy_for_nobody(installed, &std::env::temp_dir()).map_err(|e| e.to_string()))
        .clone()
        .map_err(Error::Setup)
}

/// Makes (or finds) the world-readable copy of `installed` under `tmp`: copied into a staging folder unique to
/// this call, marked complete, then renamed into place in one step, so another process sees either no copy or a
/// finished one. If the place is taken by a copy without its marker (left by an older build, or a copy being
/// removed), this process waits a little for the marker and otherwise keeps its own staging copy.
pub(crate) fn copy_for_nobody(installed: &Path, tmp: &Path) -> Result<PathBuf> {
    let root = installed
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| Error::Setup("unexpected PostgreSQL install layout".into()))?;
    check_searchable(tmp)?;
    let target = tmp.join(COPY_NAME);
    if is_complete(&target) {
        return Ok(target);
    }
    let staging = tempfile::Builder::new()
        .prefix(&format!("{COPY_NAME}.staging-"))
        .tempdir_in(tmp)
        .map_err(|e| setup_error("staging folder", e))?;
    for part in ["pgserver", "pgserver.libs"] {
        run(
            Command::new("cp").arg("-a").arg(root.join(part)).arg(staging.path()),
            "cp",
        )?;
    }
    run(Command::new("chmod").args(["-R", "a+rX"]).arg(staging.path()), "chmod")?;
    let marker = staging.path().join(COMPLETE);
    std::fs::write(&marker, b"").map_err(|e| Error::io(&marker, e))?;
    // `rename` onto an existing, non-empty folder fails: then the place is someone else's.
    if std::fs::rename(staging.path(), &target).is_ok() {
        // The staging folder is now the target; nothing is left for the TempDir to remove.
        let _ = staging.keep();
        return Ok(target);
    }
    for _ in 0..50 {
        if is_complete(&target) {
            return Ok(target);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // No finished copy at the usual place: use this one, left for the process's lifetime.
    Ok(staging.keep())
}

fn is_complete(copy: &Path) -> bool {
    copy.join("pgserver/pginstall/bin/postgres").is_file() && copy.join(COMPLETE).is_file()
}

/// The server runs as `nobody`, so every folder above its files must let others through.
fn check_searchable(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for d in dir.ancestors() {
        let Ok(meta) = std::fs::metadata(d) else { continue };
        if meta.permissions().mode() & 0o001 == 0 {
            return Err(Error::Setup(format!(
                "test PostgreSQL runs as nobody, who cannot enter {} (mode {:o}): use a temp dir others may enter \
                 (chmod o+x {}), or set TMPDIR to one",
                d.display(),
                meta.permissions().mode() & 0o7777,
                d.display()
            )));
        }
    }
    Ok(())
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd.stdin(Stdio::null()).output().map_err(|e| setup_error(what, e))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(setup_error(what, String::from_utf8_lossy(&out.stderr).trim()))
    }
}

//! TLS to the library's server (rustls, ring): `sslmode` as libpq reads it (`prefer` by default on this machine,
//! `require` for a server elsewhere unless the URL says otherwise; `verify-full` and `verify-ca` read), server
//! certificates checked against the public roots, the system's store and libpq's
//! `sslrootcert=FILE` (taken out of the URL, since tokio-postgres does not parse it). Unix sockets never use TLS.

use crate::{Error, Result};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_postgres::config::{Host, SslMode};

/// The system's CA bundle (Debian, Ubuntu, Alpine; corporate CAs land here too).
const SYSTEM_BUNDLE: &str = "/etc/ssl/certs/ca-certificates.crt";

/// Whether to offer TLS: any TCP host, unless `sslmode=disable`.
pub(super) fn wanted(config: &tokio_postgres::Config) -> bool {
    config.get_ssl_mode() != SslMode::Disable && config.get_hosts().iter().any(|h| matches!(h, Host::Tcp(_)))
}

/// `url` without its `sslrootcert` parameter, and that file.
pub(super) fn take_root_cert(url: &str) -> (String, Option<PathBuf>) {
    let mut found = None;
    let mut keep = |pair: &str| match pair.strip_prefix("sslrootcert=") {
        Some(path) => {
            found = Some(PathBuf::from(path.trim_matches('\'')));
            false
        }
        None => true,
    };
    let rest = if let Some((base, query)) = url.split_once('?') {
        let params: Vec<&str> = query.split('&').filter(|p| keep(p)).collect();
        if params.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", params.join("&"))
        }
    } else if url.contains("://") {
        url.to_string()
    } else {
        url.split_whitespace().filter(|p| keep(p)).collect::<Vec<_>>().join(" ")
    };
    (rest, found)
}

/// `url` with libpq's `sslmode=verify-full` and `verify-ca` read as `require`, which tokio-postgres knows (and
/// whether one was there): the connector checks the server's certificate and host name in every TLS mode, so
/// `require` here is `verify-full`.
pub(super) fn verify_modes(url: &str) -> (String, bool) {
    let mut found = false;
    let mut out = url.to_string();
    for mode in ["sslmode=verify-full", "sslmode=verify-ca"] {
        if out.contains(mode) {
            found = true;
            out = out.replace(mode, "sslmode=require");
        }
    }
    (out, found)
}

/// A server off this machine with no `sslmode` in its URL gets TLS required, not libpq's `prefer` (which falls
/// back to plain text without a word): `sslmode=disable` or `prefer` in the URL says otherwise.
pub(super) fn require_off_loopback(config: &mut tokio_postgres::Config, mode_given: bool) {
    let remote = |h: &Host| match h {
        Host::Tcp(name) => {
            let name = name.trim_matches(['[', ']']);
            name != "localhost" && !name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        _ => false,
    };
    if !mode_given && config.get_hosts().iter().any(remote) {
        config.ssl_mode(SslMode::Require);
    }
}

/// A rustls connector trusting the public roots, the system bundle and `root_cert`.
pub(super) fn connector(root_cert: Option<&Path>) -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Ok(certs) = CertificateDer::pem_file_iter(SYSTEM_BUNDLE) {
        for cert in certs.flatten() {
            let _ = roots.add(cert);
        }
    }
    if let Some(path) = root_cert {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect())
            .map_err(|e| Error::Invalid(format!("sslrootcert {}: {e}", path.display())))?;
        if certs.is_empty() {
            return Err(Error::Invalid(format!(
                "sslrootcert {} holds no certificate",
                path.display()
            )));
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| Error::Invalid(format!("sslrootcert {}: {e}", path.display())))?;
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Setup(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verify_modes_are_read_and_remote_servers_need_tls_unless_told() {
        let (url, found) = verify_modes("postgres://a@h/db?sslmode=verify-full");
        assert!(found);
        let config: tokio_postgres::Config = url.parse().unwrap();
        assert_eq!(config.get_ssl_mode(), SslMode::Require);
        let mut remote: tokio_postgres::Config = "postgres://a@db.example/x".parse().unwrap();
        require_off_loopback(&mut remote, false);
        assert_eq!(remote.get_ssl_mode(), SslMode::Require);
        let mut local: tokio_postgres::Config = "postgres://a@127.0.0.1/x".parse().unwrap();
        require_off_loopback(&mut local, false);
        assert_eq!(local.get_ssl_mode(), SslMode::Prefer);
        let mut told: tokio_postgres::Config = "postgres://a@db.example/x?sslmode=prefer".parse().unwrap();
        require_off_loopback(&mut told, true);
        assert_eq!(told.get_ssl_mode(), SslMode::Prefer);
    }

    #[test]
    fn sslrootcert_is_taken_out_of_both_url_forms() {
        assert_eq!(
            take_root_cert("postgres://a@h/db?sslmode=require&sslrootcert=/ca.pem&connect_timeout=5"),
            (
                "postgres://a@h/db?sslmode=require&connect_timeout=5".into(),
                Some(PathBuf::from("/ca.pem"))
            )
        );
        assert_eq!(
            take_root_cert("postgres://a@h/db?sslrootcert=/x"),
            ("postgres://a@h/db".into(), Some("/x".into()))
        );
        assert_eq!(
            take_root_cert("host=h sslrootcert=/ca.pem dbname=d"),
            ("host=h dbname=d".into(), Some(PathBuf::from("/ca.pem")))
        );
        assert_eq!(take_root_cert("postgres://a@h/db"), ("postgres://a@h/db".into(), None));
    }

    #[test]
    fn unix_sockets_and_disable_skip_tls() {
        let socket: tokio_postgres::Config = "host=/tmp/sock user=a".parse().unwrap();
        assert!(!wanted(&socket));
        let tcp: tokio_postgres::Config = "postgres://a@db.example/x".parse().unwrap();
        assert!(wanted(&tcp));
        let off: tokio_postgres::Config = "postgres://a@db.example/x?sslmode=disable".parse().unwrap();
        assert!(!wanted(&off));
    }
}

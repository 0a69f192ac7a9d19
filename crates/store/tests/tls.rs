//! TLS to a team server: a real PostgreSQL with `ssl=on` on 127.0.0.1 that accepts TCP clients only over TLS
//! (`hostssl`), its certificate signed by a throwaway CA. With the CA as `sslrootcert`, `sslmode=require` connects
//! and queries (it gets as far as finding that this server has no pgvector); without it the certificate is refused.

use ragsift_store::pg::cluster::TestCluster;
use ragsift_store::pg::PgStore;
use ragsift_store::Error;

#[test]
fn sslmode_require_connects_encrypted_and_checks_the_certificate() {
    let (cluster, ca) = TestCluster::start_tls().unwrap();
    cluster.psql("postgres", "CREATE DATABASE lib").unwrap();
    let base = format!("postgres://postgres@localhost:{}/lib?sslmode=require", cluster.port());

    // Only a TLS client gets past the server's hostssl rule to run the extension query.
    let err = PgStore::open(&format!("{base}&sslrootcert={}", ca.display()))
        .err()
        .unwrap();
    assert!(
        matches!(err, Error::Setup(_)) && err.to_string().contains("pgvector"),
        "{err}"
    );
    let plain = PgStore::open(&base.replace("sslmode=require", "sslmode=disable"))
        .err()
        .unwrap();
    assert!(
        matches!(plain, Error::Auth(_)) && plain.to_string().contains("pg_hba"),
        "{plain}"
    );

    let err = PgStore::open(&base).err().expect("an unknown CA is refused");
    assert!(matches!(err, Error::Unreachable(_)), "{err}");
    assert!(err.to_string().to_lowercase().contains("certificate"), "{err}");
}

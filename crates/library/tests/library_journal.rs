//! A library past the removal journal's threshold (`JOURNAL_FROM` chunks, embedded by the real ONNX model), and a
//! removal made by another process that dies before it closes: the removal reaches the index through the journal
//! (the index file is not rewritten), a library open in this process sees it on its next search, and a fresh open
//! agrees with the database.

mod common;

use common::embedder;
use ragsift_library::library::INDEX_FILE;
use ragsift_library::{Library, LibraryConfig, LibraryRetriever, Retriever, SearchMode, SearchRequest};
use ragsift_store::index::JOURNAL_FROM;
use std::path::Path;
use std::process::Command;

/// Set in the child process: the library home and the file to remove.
const CHILD: &str = "RAGSIFT_TEST_JOURNAL_CHILD";
const FILES: usize = 40;
/// The child's exit code once it has removed.
const DIED: i32 = 3;

/// Short chunks, so that tens of thousands embed in seconds.
fn config() -> LibraryConfig {
    LibraryConfig {
        chunk_tokens: 16,
        overlap_tokens: 0,
        ..LibraryConfig::default()
    }
}

/// `FILES` text files of varied words, together past `JOURNAL_FROM` chunks; each file has its own marker word.
fn write_corpus(dir: &Path) {
    const WORDS: [&str; 24] = [
        "inverter", "battery", "fault", "reset", "voltage", "warranty", "module", "panel", "current", "breaker",
        "firmware", "display", "sensor", "cable", "ground", "meter", "export", "limit", "charge", "cycle", "manual",
        "service", "error", "code",
    ];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let words_per_file = (JOURNAL_FROM + JOURNAL_FROM / 20) * 12 / FILES;
    for f in 0..FILES {
        let mut text = format!("marker{f} ");
        for w in 0..words_per_file {
            text.push_str(WORDS[(next() % WORDS.len() as u64) as usize]);
            text.push(if w % 11 == 10 { '.' } else { ' ' });
            if w % 110 == 109 {
                text.push_str("\n\n");
            }
        }
        std::fs::write(dir.join(format!("doc{f:02}.txt")), text).unwrap();
    }
}

fn keyword(lib: &Library, q: &str) -> Vec<ragsift_library::Hit> {
    let req = SearchRequest {
        query: q.into(),
        top_k: 4,
        threshold: 0.0,
        search_mode: SearchMode::Keyword,
    };
    LibraryRetriever {
        library: lib,
        embedder: embedder(),
    }
    .retrieve(&req)
    .unwrap()
}

#[test]
fn heavy_a_removal_in_a_process_that_dies_reaches_a_large_library_through_the_journal() {
    if let Ok(args) = std::env::var(CHILD) {
        // The child: remove one document, then die without closing the library (`exit` runs no destructor, so
        // there is no whole save on drop).
        let (home, file) = args.split_once('\n').unwrap();
        let lib = Library::open(Path::new(home), config()).unwrap();
        lib.remove(file).unwrap();
        std::process::exit(DIED);
    }
    let home = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    write_corpus(docs.path());
    let lib = Library::open(home.path(), config()).unwrap();
    let report = lib.ingest(embedder(), &[docs.path().to_path_buf()], &|_| {}).unwrap();
    assert_eq!(report.failed(), 0, "{report:?}");
    let chunks = lib.store().chunk_keys().unwrap().len();
    assert!(chunks >= JOURNAL_FROM, "{chunks} chunks: below the journal's threshold");
    let index_file = home.path().join(INDEX_FILE);
    let saved = std::fs::read(&index_file).unwrap();
    let journal = home.path().join(format!("{INDEX_FILE}.removed"));
    assert!(!journal.exists(), "the first save is whole");

    let target = docs.path().join("doc07.txt");
    let doc = (lib.documents().unwrap().into_iter())
        .find(|d| Path::new(&d.path) == target)
        .unwrap();
    let removed_keys: Vec<u64> = (lib.store().chunks_of(&doc.id).unwrap().iter())
        .map(|c| c.key)
        .collect();
    assert!(!removed_keys.is_empty() && !keyword(&lib, "marker7").is_empty());

    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "heavy_a_removal_in_a_process_that_dies_reaches_a_large_library_through_the_journal",
            "--nocapture",
        ])
        .env(CHILD, format!("{}\n{}", home.path().display(), target.display()))
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(DIED), "the child was to remove, then die");
    assert!(journal.exists(), "a small removal from a large index is journaled");
    assert_eq!(
        std::fs::read(&index_file).unwrap(),
        saved,
        "and the index file not rewritten"
    );

    // The library open here follows on its next search: reload, journal, reconcile.
    assert!(
        keyword(&lib, "marker7").is_empty(),
        "the removed document is still found"
    );
    let check = |lib: &Library, who: &str| {
        let keys = lib.store().chunk_keys().unwrap();
        assert_eq!(keys.len(), chunks - removed_keys.len(), "{who}");
        assert_eq!(lib.index().len(), keys.len(), "{who}: vectors without chunks");
        assert!(
            keys.iter().all(|k| lib.index().contains(*k)),
            "{who}: a chunk lacks its vector"
        );
        assert!(
            removed_keys.iter().all(|k| !lib.index().contains(*k)),
            "{who}: a removed vector is back"
        );
        assert!(!keyword(lib, "marker8").is_empty(), "{who}: another document is lost");
    };
    check(&lib, "the library open during the removal");
    drop(lib);
    check(&Library::open(home.path(), config()).unwrap(), "a fresh open");
}

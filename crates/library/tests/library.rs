//! The real stack end to end: PDF → chunks → ONNX embeddings → store → search; idempotent re-ingest, replacement
//! of changed files, removal, bad files in a batch, and index repair on open. The library tests run the same bodies
//! against both stores: SQLite + usearch, and a real PostgreSQL 16 + pgvector server started for each test.

mod common;

use common::{embedder, fixture, temp_docs, Counting};
use ragsift_core::progress::IngestStatus;
use ragsift_library::library::INDEX_FILE;
use ragsift_library::{Library, LibraryConfig, LibraryRetriever, Retriever, SearchMode, SearchRequest};
use ragsift_store::pg::cluster::TestCluster;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

/// A library home, and the server when the library lives in PostgreSQL.
struct Env {
    home: tempfile::TempDir,
    store: String,
    cluster: Option<TestCluster>,
}

impl Env {
    fn new(backend: Backend) -> Env {
        let (cluster, store) = match backend {
            Backend::Sqlite => (None, String::new()),
            Backend::Postgres => {
                let cluster = TestCluster::start().unwrap();
                let url = cluster.create_database("library").unwrap();
                (Some(cluster), url)
            }
        };
        Env {
            home: tempfile::tempdir().unwrap(),
            store,
            cluster,
        }
    }

    fn config(&self) -> LibraryConfig {
        LibraryConfig {
            store: self.store.clone(),
            ..LibraryConfig::default()
        }
    }

    fn open(&self) -> Library {
        Library::open(self.home.path(), self.config()).unwrap()
    }

    /// Opens the library with chunks of `chunk_tokens`, overlapping by `overlap_tokens`.
    fn open_chunked(&self, chunk_tokens: usize, overlap_tokens: usize) -> Library {
        let config = LibraryConfig {
            chunk_tokens,
            overlap_tokens,
            ..self.config()
        };
        Library::open(self.home.path(), config).unwrap()
    }
}

/// `#[test]`s that run one body on each store.
macro_rules! on_both_stores {
    ($($body:ident),* $(,)?) => {
        mod sqlite {
            $(#[test] fn $body() { super::$body(super::Backend::Sqlite) })*
        }
        mod postgres {
            $(#[test] fn $body() { super::$body(super::Backend::Postgres) })*
        }
    };
}

on_both_stores!(
    a_batch_with_bad_files_ingests_the_good_ones_and_reports_the_rest,
    search_finds_the_page_that_answers,
    hybrid_search_puts_the_named_parts_documents_first,
    re_ingesting_unchanged_files_embeds_nothing,
    new_chunk_settings_chunk_unchanged_files_again,
    a_changed_file_replaces_its_chunks_and_vectors,
    removing_a_document_removes_its_chunks_and_vectors,
    scanned_pages_are_ingested_through_ocr_when_it_is_on,
    a_file_without_text_even_by_ocr_is_remembered_until_retried,
);

/// Two datasheets in one library: a question that names one part is answered from that part's document first,
/// even by a passage that shares fewer words with it than the other part's.
fn hybrid_search_puts_the_named_parts_documents_first(backend: Backend) {
    let env = Env::new(backend);
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(
        docs.path().join("zx4120.md"),
        "In sleep mode the ZX4120 pressure sensor draws 0.3 uA from its supply at 25 degrees.\n\n\
         The ZX4120 ships on tape and reel in lots of 10,000 parts, with a moisture barrier bag.\n",
    )
    .unwrap();
    std::fs::write(
        docs.path().join("qm7731.md"),
        "The QM7731 accelerometer sleep current is 1.2 uA in sleep mode at 25 degrees.\n\n\
         Sleep current of the QM7731 rises to 4 uA at 85 degrees in sleep mode.\n\n\
         To lower the sleep current further, the QM7731 can switch off its sleep-mode oscillator.\n",
    )
    .unwrap();
    let lib = env.open_chunked(24, 0);
    lib.ingest(embedder(), &[docs.path().to_path_buf()], &|_| {}).unwrap();
    let doc_of = |h: &ragsift_library::Hit| h.chunk.document_path.rsplit('/').next().unwrap().to_string();
    let ask = "How much sleep current does the ZX4120 draw?";
    let hybrid: Vec<String> = search(&lib, ask, SearchMode::Hybrid).iter().map(doc_of).collect();
    assert!(hybrid.len() >= 4, "{hybrid:?}");
    assert_eq!(hybrid[..2], ["zx4120.md", "zx4120.md"], "{hybrid:?}");
    // Unfocused, the other part's sleep-current passages outrank the named part's reel passage.
    let vector: Vec<String> = search(&lib, ask, SearchMode::Vector).iter().map(doc_of).collect();
    assert_ne!(vector[..2], ["zx4120.md", "zx4120.md"], "{vector:?}");
    // A question naming no part, or a part no document holds, is not focused.
    let plain: Vec<String> = search(&lib, "How much sleep current is drawn?", SearchMode::Hybrid)
        .iter()
        .map(doc_of)
        .collect();
    assert_ne!(plain[..2], ["zx4120.md", "zx4120.md"], "{plain:?}");
}

/// Every chunk has its vector and no vector lacks its chunk.
fn assert_consistent(lib: &Library) {
    let keys = lib.store().chunk_keys().unwrap();
    assert!(
        keys.iter().all(|k| lib.index().contains(*k)),
        "a chunk lacks its vector"
    );
    assert_eq!(lib.index().len(), keys.len(), "vectors without chunks");
    assert!(lib.store().integrity_check().unwrap().is_empty());
}

fn search(lib: &Library, q: &str, mode: SearchMode) -> Vec<ragsift_library::Hit> {
    let req = SearchRequest {
        query: q.into(),
        top_k: 4,
        threshold: 0.0,
        search_mode: mode,
    };
    LibraryRetriever {
        library: lib,
        embedder: embedder(),
    }
    .retrieve(&req)
    .unwrap()
}

fn a_batch_with_bad_files_ingests_the_good_ones_and_reports_the_rest(backend: Backend) {
    let env = Env::new(backend);
    let lib = env.open();
    let report = lib
        .ingest(embedder(), &[fixture("pdf"), fixture("text")], &|_| {})
        .unwrap();
    let status = |name: &str| {
        report
            .files
            .iter()
            .find(|f| f.path.ends_with(name))
            .unwrap_or_else(|| panic!("{name} in report"))
            .clone()
    };
    assert_eq!(status("multipage.pdf").status, IngestStatus::Ingested);
    assert_eq!(status("multipage.pdf").pages, 3);
    assert!(status("multipage.pdf").chunks >= 1);
    assert_eq!(status("encrypted_empty_pw.pdf").status, IngestStatus::Ingested);
    assert_eq!(
        status("mixed_scanned.pdf").warning.as_deref(),
        Some("no extractable text on pages 2")
    );
    for (name, code) in [
        ("encrypted_user_pw.pdf", "encrypted"),
        ("corrupt.pdf", "corrupt"),
        ("not_a_pdf.pdf", "corrupt"),
        ("image_only.pdf", "no_text"),
    ] {
        let f = status(name);
        assert_eq!(
            (f.status.as_str(), f.error_code.as_deref()),
            ("failed", Some(code)),
            "{name}"
        );
        assert!(f.error.unwrap().contains(name));
    }
    assert_eq!(status("notes.md").status, IngestStatus::Ingested);
    assert_consistent(&lib);
}

fn search_finds_the_page_that_answers(backend: Backend) {
    let env = Env::new(backend);
    let lib = env.open();
    lib.ingest(
        embedder(),
        &[fixture("pdf/multipage.pdf"), fixture("pdf/two_column.pdf")],
        &|_| {},
    )
    .unwrap();
    let hits = search(&lib, "How long is the warranty?", SearchMode::Vector);
    assert!(!hits.is_empty());
    let top = &hits[0];
    assert!(top.chunk.document_path.ends_with("multipage.pdf"));
    assert!(top.chunk.text.to_lowercase().contains("warranty"), "{}", top.chunk.text);
    assert!(top.similarity.unwrap() > 0.3);
    assert!(
        hits.windows(2).all(|w| w[0].score >= w[1].score),
        "ranked by similarity"
    );
    // The chunk's offsets point into its page's stored text.
    let page = lib
        .store()
        .page(&top.chunk.document_id, top.chunk.page_start)
        .unwrap()
        .unwrap();
    let start: String = page.chars().skip(top.chunk.char_start as usize).take(20).collect();
    assert!(top.chunk.text.starts_with(start.trim()), "offsets: {start:?}");

    let kw = search(&lib, "warranty", SearchMode::Keyword);
    assert!(kw[0].chunk.text.to_lowercase().contains("warranty") && kw[0].bm25.unwrap() > 0.0);
    let hy = search(&lib, "warranty period", SearchMode::Hybrid);
    assert!(hy[0].similarity.is_some() || hy[0].bm25.is_some());
    let strict = SearchRequest {
        threshold: 0.99,
        ..SearchRequest::new("How long is the warranty?")
    };
    let none = LibraryRetriever {
        library: &lib,
        embedder: embedder(),
    }
    .retrieve(&strict)
    .unwrap();
    assert!(none.is_empty(), "the similarity threshold filters");
}

fn re_ingesting_unchanged_files_embeds_nothing(backend: Backend) {
    let env = Env::new(backend);
    let docs = temp_docs(&[fixture("pdf/multipage.pdf"), fixture("text/notes.md")]);
    let lib = env.open();
    let first = Counting::new(embedder());
    lib.ingest(&first, &[docs.path().to_path_buf()], &|_| {}).unwrap();
    assert!(first.count() > 0);
    let ids: Vec<String> = lib.documents().unwrap().iter().map(|d| d.id.clone()).collect();
    drop(lib);

    let lib = env.open();
    let again = Counting::new(embedder());
    let report = lib.ingest(&again, &[docs.path().to_path_buf()], &|_| {}).unwrap();
    assert_eq!(again.count(), 0, "no embedding for unchanged files");
    assert!(report.files.iter().all(|f| f.status == IngestStatus::Unchanged));
    assert_eq!(
        lib.documents()
            .unwrap()
            .iter()
            .map(|d| d.id.clone())
            .collect::<Vec<_>>(),
        ids
    );
    assert_consistent(&lib);
}

/// An unchanged file chunked with other settings than those in force is chunked again on the next ingest, under
/// new chunk ids; with the settings in force it is skipped; back at the defaults, its ids are what they were.
fn new_chunk_settings_chunk_unchanged_files_again(backend: Backend) {
    let env = Env::new(backend);
    let docs = temp_docs(&[fixture("pdf/multipage.pdf"), fixture("text/notes.md")]);
    let ingest = |lib: &Library| {
        let counting = Counting::new(embedder());
        let report = lib.ingest(&counting, &[docs.path().to_path_buf()], &|_| {}).unwrap();
        assert_eq!(report.failed(), 0, "{report:?}");
        let mut keys = lib.store().chunk_keys().unwrap();
        keys.sort_unstable();
        assert_consistent(lib);
        (counting.count(), keys)
    };
    let (embedded, defaults) = ingest(&env.open());
    assert!(embedded > 0);

    let small = env.open_chunked(64, 8);
    let (embedded, keys) = ingest(&small);
    assert!(
        keys.len() > defaults.len(),
        "64-token chunks are more: {} vs {}",
        keys.len(),
        defaults.len()
    );
    assert_eq!(embedded, keys.len(), "every file is chunked again");
    assert!(
        keys.iter().all(|k| defaults.binary_search(k).is_err()),
        "a chunk id survived re-chunking"
    );
    assert_eq!(ingest(&small), (0, keys), "the settings in force: nothing to do");
    drop(small);

    let (embedded, back) = ingest(&env.open());
    assert_eq!(
        (embedded, back),
        (defaults.len(), defaults),
        "at the defaults, the ids are what they were"
    );
}

fn a_changed_file_replaces_its_chunks_and_vectors(backend: Backend) {
    let env = Env::new(backend);
    let docs = tempfile::tempdir().unwrap();
    let file = docs.path().join("note.txt");
    std::fs::write(&file, "The old launch code is alpha tango.\n\nIt expires in May.").unwrap();
    let lib = env.open();
    lib.ingest(embedder(), std::slice::from_ref(&file), &|_| {}).unwrap();
    let doc = lib.documents().unwrap().remove(0);
    let old_keys: Vec<u64> = lib.store().chunks_of(&doc.id).unwrap().iter().map(|c| c.key).collect();

    std::fs::write(&file, "The new launch code is bravo zulu.\n\nIt expires in June.").unwrap();
    let counter = Counting::new(embedder());
    let report = lib.ingest(&counter, std::slice::from_ref(&file), &|_| {}).unwrap();
    assert_eq!(report.files[0].status, IngestStatus::Ingested);
    assert!(counter.count() > 0);
    let docs_now = lib.documents().unwrap();
    assert_eq!(docs_now.len(), 1);
    assert_eq!(docs_now[0].id, doc.id, "identity is the path, so the id is stable");
    assert_ne!(docs_now[0].checksum, doc.checksum);
    for k in &old_keys {
        assert!(!lib.index().contains(*k), "old vector left behind");
    }
    assert!(
        lib.store().chunks_by_keys(&old_keys).unwrap().is_empty(),
        "old chunk left behind"
    );
    let hits = search(&lib, "launch code", SearchMode::Keyword);
    assert!(hits.iter().all(|h| h.chunk.text.contains("bravo")));
    assert_consistent(&lib);
}

fn removing_a_document_removes_its_chunks_and_vectors(backend: Backend) {
    let env = Env::new(backend);
    let docs = temp_docs(&[fixture("pdf/multipage.pdf"), fixture("text/plain.txt")]);
    let lib = env.open();
    lib.ingest(embedder(), &[docs.path().to_path_buf()], &|_| {}).unwrap();
    let before = lib.index().len();
    let target = docs.path().join("multipage.pdf");
    let removed = lib.remove(&target.to_string_lossy()).unwrap();
    assert!(lib.index().len() < before);
    assert!(lib.store().chunks_of(&removed.id).unwrap().is_empty());
    assert!(lib.remove(&removed.id).is_err(), "already gone");
    std::fs::remove_file(docs.path().join("plain.txt")).unwrap();
    if backend == Backend::Postgres {
        // A shared store: a path missing here may be a teammate's file on their machine. Refused, saying why.
        let err = lib.remove_missing().unwrap_err().to_string();
        assert!(err.contains("shared") && err.contains("by id"), "{err}");
        let left = lib.documents().unwrap();
        assert_eq!(left.len(), 1, "nothing removed");
        lib.remove(&left[0].id).unwrap();
    } else {
        assert_eq!(lib.remove_missing().unwrap().len(), 1);
    }
    assert!(lib.documents().unwrap().is_empty());
    assert_eq!(lib.index().len(), 0);
    assert_consistent(&lib);
}

/// The next file is prepared (extracted, chunked) while the current one embeds; the events still come file by
/// file in order, and cancelling mid-batch stops the preparing thread, keeps the files done and reports the rest.
#[test]
fn a_cancelled_batch_keeps_the_files_done_and_events_stay_in_file_order() {
    use ragsift_core::progress::IngestEvent;
    use ragsift_core::CancelToken;
    let docs = temp_docs(&[
        fixture("pdf/multipage.pdf"),
        fixture("text/notes.md"),
        fixture("pdf/encrypted_empty_pw.pdf"),
        fixture("pdf/corrupt.pdf"),
    ]);
    let env = Env::new(Backend::Sqlite);
    let lib = env.open();
    let events = std::sync::Mutex::new(Vec::new());
    let report = lib
        .ingest(embedder(), &[docs.path().to_path_buf()], &|e| {
            events.lock().unwrap().push(e.clone());
        })
        .unwrap();
    assert_eq!(report.files.len(), 4);
    assert_eq!(report.failed(), 1, "{report:?}");
    // Per file: started, (extracted, embedding…), finished — never another file's event in between.
    let mut current = 0;
    for e in events.into_inner().unwrap() {
        match e {
            IngestEvent::FileStarted { file, .. } => {
                assert_eq!(file, current + 1);
                current = file;
            }
            IngestEvent::Extracted { file, .. }
            | IngestEvent::Embedding { file, .. }
            | IngestEvent::Ocr { file, .. }
            | IngestEvent::FileFinished { file, .. } => assert_eq!(file, current, "{e:?}"),
            _ => {}
        }
    }
    assert_eq!(current, 4);

    // A fresh library, cancelled once the second file is done (sorted: corrupt.pdf fails, then
    // encrypted_empty_pw.pdf is ingested; multipage.pdf and notes.md are never started).
    let env = Env::new(Backend::Sqlite);
    let lib = env.open();
    let cancel = CancelToken::new();
    let report = lib
        .ingest_cancellable(
            embedder(),
            &[docs.path().to_path_buf()],
            &|e| {
                if let IngestEvent::FileFinished { file: 2, .. } = e {
                    cancel.cancel();
                }
            },
            &cancel,
        )
        .unwrap();
    let status: Vec<IngestStatus> = report.files.iter().map(|f| f.status).collect();
    assert_eq!(
        status,
        [
            IngestStatus::Failed,
            IngestStatus::Ingested,
            IngestStatus::Cancelled,
            IngestStatus::Cancelled
        ]
    );
    assert_eq!(lib.documents().unwrap().len(), 1);
    assert_consistent(&lib);
}

#[test]
fn open_repairs_an_index_that_lost_vectors_or_kept_stale_ones() {
    let env = Env::new(Backend::Sqlite);
    let home = &env.home;
    let docs = temp_docs(&[fixture("pdf/multipage.pdf"), fixture("text/notes.md")]);
    let index_file: PathBuf = home.path().join(INDEX_FILE);
    {
        let lib = env.open();
        lib.ingest(embedder(), &[docs.path().join("multipage.pdf")], &|_| {})
            .unwrap();
    }
    let snapshot = std::fs::read(&index_file).unwrap();
    {
        let lib = env.open();
        lib.ingest(embedder(), &[docs.path().join("notes.md")], &|_| {})
            .unwrap();
    }
    // An index saved before the last ingest: chunks without vectors.
    std::fs::write(&index_file, &snapshot).unwrap();
    let lib = env.open();
    assert!(lib.reconciled().vectors_added > 0 && !lib.reconciled().rebuilt);
    assert_consistent(&lib);
    let full = std::fs::read(&index_file).unwrap();
    lib.remove(&docs.path().join("multipage.pdf").to_string_lossy())
        .unwrap();
    drop(lib);
    // An index saved before a removal: vectors without chunks.
    std::fs::write(&index_file, &full).unwrap();
    let lib = env.open();
    assert!(lib.reconciled().rebuilt);
    assert_consistent(&lib);
    // A garbage index file is rebuilt from the database.
    drop(lib);
    std::fs::write(&index_file, b"not an index").unwrap();
    let lib = env.open();
    assert_consistent(&lib);
    assert!(!lib.index().is_empty());
}

/// A scanned PDF is read by OCR during ingest (with progress per page), its pages flagged; with OCR off in the
/// settings it stays "no extractable text".
fn scanned_pages_are_ingested_through_ocr_when_it_is_on(backend: Backend) {
    let env = Env::new(backend);
    let off = Library::open(
        env.home.path(),
        LibraryConfig {
            ocr: false,
            ..env.config()
        },
    )
    .unwrap();
    let report = off
        .ingest(embedder(), &[fixture("scanned/scanned.pdf")], &|_| {})
        .unwrap();
    assert_eq!(report.files[0].error_code.as_deref(), Some("no_text"));
    drop(off);

    let lib = env.open();
    let events = std::sync::Mutex::new(Vec::new());
    let report = lib
        .ingest(embedder(), &[fixture("scanned/scanned.pdf")], &|e| {
            if let ragsift_core::progress::IngestEvent::Ocr { page, pages, .. } = e {
                events.lock().unwrap().push((*page, *pages));
            }
        })
        .unwrap();
    let file = &report.files[0];
    assert_eq!(file.status, IngestStatus::Ingested, "{file:?}");
    assert!(
        file.chunks >= 1 && file.warning.as_deref() == Some("pages 1–3 read by OCR"),
        "{file:?}"
    );
    assert_eq!(events.into_inner().unwrap(), [(1, 3), (2, 3), (3, 3)]);
    let doc = &lib.documents().unwrap()[0];
    assert!(lib.store().page_is_ocr(&doc.id, 2).unwrap());
    let hits = search(&lib, "How long is the battery warranty?", SearchMode::Hybrid);
    assert!(hits[0].chunk.text.to_lowercase().contains("warranty"), "{hits:?}");
    assert_consistent(&lib);
}

/// A file without text even by OCR (images only) fails saying so and is remembered by its checksum: the next
/// ingest of the unchanged file reports the remembered reason without reading it, `retry_failed` reads it again,
/// and so does a change of its bytes. The store keeps the memory (SQLite and PostgreSQL alike).
fn a_file_without_text_even_by_ocr_is_remembered_until_retried(backend: Backend) {
    use ragsift_library::library::{IngestOptions, FAILED_BEFORE};
    if !ragsift_ingest::extract::ocr_available("eng") {
        eprintln!("skipped: tesseract-ocr (with English) or poppler-utils is not installed");
        return;
    }
    let env = Env::new(backend);
    let docs = tempfile::tempdir().unwrap();
    let photo = docs.path().join("photo.pdf");
    std::fs::copy(fixture("pdf/image_only.pdf"), &photo).unwrap();
    let canonical = photo.canonicalize().unwrap().to_string_lossy().to_string();
    let lib = env.open();
    let ingest = |retry_failed: bool| {
        let report = lib
            .ingest_with(
                embedder(),
                std::slice::from_ref(&photo),
                &|_| {},
                &ragsift_core::CancelToken::new(),
                IngestOptions { retry_failed },
            )
            .unwrap();
        report.files[0].clone()
    };

    let file = ingest(false);
    assert_eq!(
        (file.status, file.error_code.as_deref()),
        (IngestStatus::Failed, Some("no_text"))
    );
    let error = file.error.unwrap();
    assert!(
        error.ends_with("no text found on pages 1–2, also not by OCR"),
        "{error}"
    );
    let remembered = lib
        .store()
        .failed_file(&canonical)
        .unwrap()
        .expect("the failure is remembered");
    assert_eq!((remembered.code.as_str(), remembered.ocr.as_str()), ("no_text", "eng"));
    assert_eq!(remembered.reason, error);

    // What the next ingest reports comes from memory, not from reading the file: a marked reason shows it.
    lib.store()
        .put_failed_file(&ragsift_store::sqlite::FailedFile {
            reason: "remembered".into(),
            ..remembered.clone()
        })
        .unwrap();
    let file = ingest(false);
    assert!(file.failed_before(), "{file:?}");
    assert_eq!(
        file.error.as_deref(),
        Some(format!("{FAILED_BEFORE}: remembered").as_str())
    );
    assert_eq!(
        (file.status, file.error_code.as_deref()),
        (IngestStatus::Failed, Some("no_text"))
    );

    // Retried: read again (the real reason, remembered again).
    let file = ingest(true);
    assert!(!file.failed_before(), "{file:?}");
    assert_eq!(file.error.as_deref(), Some(error.as_str()));
    assert_eq!(lib.store().failed_file(&canonical).unwrap().unwrap().reason, error);

    // Changed bytes: read again without being asked.
    lib.store()
        .put_failed_file(&ragsift_store::sqlite::FailedFile {
            reason: "remembered".into(),
            ..remembered
        })
        .unwrap();
    let mut bytes = std::fs::read(&photo).unwrap();
    bytes.extend_from_slice(b"\n% edited\n");
    std::fs::write(&photo, bytes).unwrap();
    let file = ingest(false);
    assert_eq!(file.error.as_deref(), Some(error.as_str()));

    // A file that reads fine after all is forgotten: replace it with one that has text.
    std::fs::copy(fixture("pdf/multipage.pdf"), &photo).unwrap();
    let file = ingest(false);
    assert_eq!(file.status, IngestStatus::Ingested, "{file:?}");
    assert!(lib.store().failed_file(&canonical).unwrap().is_none());
}

/// The server going away mid-ingest: the files already written stay whole, the others fail with a clear error
/// naming the server, and once it is back the same open library reconnects and the next run resumes where the
/// first stopped. A connection the server drops is replaced without the caller noticing.
#[test]
fn postgres_going_away_mid_ingest_loses_nothing_and_the_next_run_resumes() {
    let env = Env::new(Backend::Postgres);
    let cluster = env.cluster.as_ref().unwrap();
    let docs = tempfile::tempdir().unwrap();
    for i in 0..6 {
        let text = format!("# Memo {i}\n\nMemo {i} sets the budget of project {i} and names its owner.\n");
        std::fs::write(docs.path().join(format!("memo-{i}.md")), text).unwrap();
    }
    let lib = env.open();
    let report = lib
        .ingest(embedder(), &[docs.path().to_path_buf()], &|e| {
            if let ragsift_core::progress::IngestEvent::FileFinished { file: 2, .. } = e {
                cluster.kill().unwrap();
            }
        })
        .unwrap();
    let statuses: Vec<IngestStatus> = report.files.iter().map(|f| f.status).collect();
    assert_eq!(&statuses[..2], [IngestStatus::Ingested, IngestStatus::Ingested]);
    for f in &report.files[2..] {
        assert_eq!(
            (f.status, f.error_code.as_deref()),
            (IngestStatus::Failed, Some("unreachable")),
            "{f:?}"
        );
        assert!(
            f.error.as_deref().unwrap().contains("PostgreSQL at postgres://"),
            "{f:?}"
        );
    }

    cluster.restart().unwrap();
    let again = Counting::new(embedder());
    let report = lib.ingest(&again, &[docs.path().to_path_buf()], &|_| {}).unwrap();
    let statuses: Vec<IngestStatus> = report.files.iter().map(|f| f.status).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == IngestStatus::Unchanged).count(),
        2,
        "{report:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == IngestStatus::Ingested).count(),
        4,
        "{report:?}"
    );
    assert_eq!(lib.documents().unwrap().len(), 6);
    assert_consistent(&lib);

    // The server drops every connection of this client: the next call opens a new one.
    let dropped = cluster
        .psql(
            "library",
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'ragsift'",
        )
        .unwrap();
    assert_ne!(dropped, "0");
    assert_eq!(lib.documents().unwrap().len(), 6);
}

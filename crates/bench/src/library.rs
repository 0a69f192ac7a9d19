//! `ragsift-bench library`: a generated corpus of PDFs of varied sizes (written to a temp dir, never to git)
//! ingested into one library with progress — the throughput curve per tenth of the files, which must stay flat,
//! and peak memory — then searched at that size (vector through the usearch HNSW index, keyword through SQLite
//! FTS5, hybrid: p50/p95), and the per-file steps timed at a tenth of the size and at full size (list, remove,
//! re-ingest), so that no step grows with the library.

use ragsift_engine::corpus;
use ragsift_engine::library::DB_FILE;
use ragsift_engine::progress::IngestEvent;
use ragsift_engine::sqlite::keyword::or_query;
use ragsift_engine::{Error, Library, LibraryConfig, LibraryRetriever, Result, Retriever, SearchMode, SearchRequest};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

pub struct Options {
    pub docs: usize,
    /// The chunker's window in tokens (small windows reach ≥ 100,000 chunks in reasonable time on 2 cores).
    pub chunk_tokens: usize,
    pub queries: usize,
}

pub fn run(o: &Options) -> Result<()> {
    let tmp = tempfile::tempdir().map_err(err)?;
    let corpus = tmp.path().join("corpus");
    std::fs::create_dir_all(&corpus).map_err(err)?;
    let t = Instant::now();
    let files: Vec<PathBuf> = (0..o.docs)
        .map(|i| corpus::write_doc(&corpus, i).map_err(err))
        .collect::<Result<_>>()?;
    let bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "\n## library at scale: {} generated PDFs ({:.1} MB, written in {:.1} s), chunk window {} tokens ({})",
        files.len(),
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64(),
        o.chunk_tokens,
        crate::machine()
    );
    let embedder = crate::embedder(0)?;
    let config = LibraryConfig {
        chunk_tokens: o.chunk_tokens,
        overlap_tokens: o.chunk_tokens / 8,
        ..LibraryConfig::default()
    };
    let home = tmp.path().join("home");
    let lib = Library::open(&home, config.clone())?;
    // A tenth first: the per-file steps are timed at this size, then again at full size.
    let tenth = (files.len() / 10).max(1);
    let finished = Mutex::new(Vec::<Instant>::new());
    let progress = |e: &IngestEvent| {
        if let IngestEvent::FileFinished { .. } = e {
            if let Ok(mut f) = finished.lock() {
                f.push(Instant::now());
                if f.len() % 100 == 0 {
                    eprintln!("ingested {} of {} files", f.len(), files.len());
                }
            }
        }
    };
    let started = Instant::now();
    let first = lib.ingest(&embedder, &files[..tenth], &progress)?;
    let paused = Instant::now();
    let small = steps(&lib, &embedder, &files[0])?;
    let resumed = Instant::now();
    let rest = lib.ingest(&embedder, &files[tenth..], &progress)?;
    let total_s = started.elapsed().as_secs_f64() - resumed.duration_since(paused).as_secs_f64();
    let reports: Vec<_> = first.files.iter().chain(&rest.files).collect();
    let chunks: usize = reports.iter().map(|f| f.chunks as usize).sum();
    let failed = reports.iter().filter(|f| f.error.is_some()).count();
    println!(
        "ingested {} files ({failed} failed), {chunks} chunks in {total_s:.0} s: {:.1} chunks/s; peak memory {:.0} MiB",
        reports.len(),
        chunks as f64 / total_s,
        peak_mib()
    );
    // Throughput per tenth of the files (the small-size steps ran between the first tenth and the rest).
    let times = finished
        .into_inner()
        .map_err(|_| Error::Invalid("progress lock".into()))?;
    println!("| files | chunks | chunks/s |");
    println!("| --- | ---: | ---: |");
    let mut rates = Vec::new();
    for d in 0..10 {
        let (a, b) = (d * reports.len() / 10, ((d + 1) * reports.len() / 10).min(times.len()));
        if b <= a {
            continue;
        }
        // Each tenth from the end of the one before; the steps timed after the first tenth are left out.
        let from = match a {
            0 => started,
            a if a == tenth => resumed,
            a => times[a - 1],
        };
        let secs = times[b - 1].duration_since(from).as_secs_f64().max(1e-9);
        let n: usize = reports[a..b].iter().map(|f| f.chunks as usize).sum();
        let rate = n as f64 / secs;
        rates.push(rate);
        println!("| {}–{} | {n} | {rate:.1} |", a + 1, b);
    }
    if let (Some(first), Some(last)) = (rates.first(), rates.last()) {
        println!("last tenth / first tenth throughput: {:.2}", last / first);
    }
    let large = steps(&lib, &embedder, &files[0])?;
    println!("| per-file step | at {} files | at {} files |", tenth, reports.len());
    println!("| --- | ---: | ---: |");
    for (name, a, b) in [
        ("list the library", small.list, large.list),
        ("remove one document", small.remove, large.remove),
        (
            "baseline: save the index file whole",
            small.whole_save,
            large.whole_save,
        ),
        ("re-ingest it", small.reingest, large.reingest),
        ("ingest again, unchanged", small.unchanged, large.unchanged),
    ] {
        println!("| {name} | {:.1} ms | {:.1} ms |", a * 1e3, b * 1e3);
    }
    search(&lib, &embedder, o.queries, chunks)?;
    every_word_baseline(&home.join(DB_FILE), o.queries)
}

/// Times of the per-file steps on `file` (already in the library).
struct Steps {
    list: f64,
    remove: f64,
    whole_save: f64,
    reingest: f64,
    unchanged: f64,
}

fn steps(lib: &Library, embedder: &ragsift_engine::FastEmbedder, file: &Path) -> Result<Steps> {
    let secs = |t: Instant| t.elapsed().as_secs_f64();
    let t = Instant::now();
    let docs = lib.documents()?;
    let list = secs(t);
    let doc = docs
        .iter()
        .find(|d| Path::new(&d.path).file_name() == file.file_name())
        .ok_or_else(|| Error::Invalid("document not found".into()))?;
    let t = Instant::now();
    lib.remove(&doc.id)?;
    let remove = secs(t);
    // What every write paid before the removal journal: the index file saved whole (a no-op when the step
    // already saved it, below the journal's size).
    let t = Instant::now();
    lib.index().persist()?;
    let whole_save = secs(t);
    let t = Instant::now();
    lib.ingest(embedder, &[file.to_path_buf()], &|_| {})?;
    let reingest = secs(t);
    let t = Instant::now();
    lib.ingest(embedder, &[file.to_path_buf()], &|_| {})?;
    let unchanged = secs(t);
    Ok(Steps {
        list,
        remove,
        whole_save,
        reingest,
        unchanged,
    })
}

fn search(lib: &Library, embedder: &ragsift_engine::FastEmbedder, queries: usize, chunks: usize) -> Result<()> {
    let retriever = LibraryRetriever { library: lib, embedder };
    println!("| search over {chunks} chunks, top 8, {queries} queries | p50 | p95 |");
    println!("| --- | ---: | ---: |");
    for (name, mode) in [
        ("vector (usearch HNSW, query embedding included)", SearchMode::Vector),
        (
            "keyword (SQLite FTS5, BM25; words in half the chunks left out)",
            SearchMode::Keyword,
        ),
        ("hybrid (both, fused)", SearchMode::Hybrid),
    ] {
        let mut ms = Vec::new();
        for q in 0..queries {
            let mut req = SearchRequest::new(query(q));
            req.top_k = 8;
            req.search_mode = mode;
            let t = Instant::now();
            let hits = retriever.retrieve(&req)?;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            if hits.is_empty() {
                return Err(Error::Invalid(format!("{name}: no hit for {:?}", query(q))));
            }
        }
        ms.sort_by(f64::total_cmp);
        let at = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
        println!("| {name} | {:.1} ms | {:.1} ms |", at(0.5), at(0.95));
    }
    Ok(())
}

/// Baseline of the keyword row: the FTS5 query of every content word (before words in half the chunks were left
/// out), on the same database, through its own connection.
fn every_word_baseline(db: &Path, queries: usize) -> Result<()> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(err)?;
    let mut stmt = conn
        .prepare("SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY s LIMIT 8")
        .map_err(err)?;
    let mut ms = Vec::new();
    for q in 0..queries {
        let fts = or_query(&query(q), '"', " OR ").unwrap_or_default();
        let t = Instant::now();
        let n = stmt.query_map([&fts], |r| r.get::<_, i64>(0)).map_err(err)?.count();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(n);
    }
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    println!(
        "| baseline: keyword with every content word (the query before) | {:.1} ms | {:.1} ms |",
        at(0.5),
        at(0.95)
    );
    Ok(())
}

fn err(e: impl std::fmt::Display) -> Error {
    Error::Invalid(e.to_string())
}

/// The process's peak resident memory (VmHWM), in MiB.
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// A question about a document's topic, answered somewhere in the corpus.
fn query(q: usize) -> String {
    let t = corpus::TOPICS[q % corpus::TOPICS.len()];
    format!("What is the {t} limit of unit {} after the test?", q * 7 % 1000)
}

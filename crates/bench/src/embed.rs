//! Embedding benchmark: chunks/s through the engine's embedder (tokenise, run, pool, normalise) vs a raw ONNX
//! Runtime session running the same model on the same pre-tokenised batches with the same thread count.

use ndarray::Array2;
use ragsift_engine::chunk::{Chunker, TokenChunker};
use ragsift_engine::extract::PageText;
use ragsift_engine::{Embedder, Error, Result};
use std::time::Instant;

/// The fixed batch of the raw baseline (and of the engine before length batching).
const BATCH: usize = 32;

pub fn run(n: usize, threads: usize, synthetic: bool) -> Result<()> {
    let threads = if threads == 0 {
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    } else {
        threads
    };
    let embedder = crate::embedder(threads)?;
    let texts = if synthetic {
        chunks_of_256_tokens(&embedder, n)?
    } else {
        real_chunks(&embedder, n)?
    };
    let tokenizer = tokenizer(embedder.tokenizer_path())?;
    let token_counts: Vec<usize> = texts
        .iter()
        .map(|t| tokenizer.encode(t.as_str(), true).map(|e| e.len()).unwrap_or(0))
        .collect();
    let mean_tokens = token_counts.iter().sum::<usize>() as f64 / texts.len() as f64;
    let shortest = token_counts.iter().min().copied().unwrap_or(0);
    println!(
        "\n## embedding: {} {} chunks, {mean_tokens:.0} tokens on average ({shortest}–{} with [CLS]/[SEP]), {threads} threads",
        texts.len(),
        if synthetic { "synthetic" } else { "real (fixtures/qa/documents, the engine's chunker)" },
        token_counts.iter().max().copied().unwrap_or(0),
    );

    let refs: Vec<&str> = texts.iter().map(|s| s.as_str()).collect();
    embedder.embed(&refs[..BATCH.min(refs.len())])?; // warm-up
    let fixed = pretokenise(&tokenizer, &texts, BATCH)?;
    let single = pretokenise(&tokenizer, &texts, 1)?;
    let home = ragsift_engine::paths::data_dir()?;
    let runtime = ragsift_engine::RuntimePaths::discover(&home)?;
    let env = ragsift_engine::embed::init_onnxruntime(&runtime.onnxruntime)?;
    let model = runtime
        .model_dir(ragsift_engine::paths::DEFAULT_EMBEDDING_MODEL)?
        .join("model.onnx");
    // The same session options fastembed uses: graph optimisation level 3, `threads` intra-op threads.
    let mut session = ort::session::Session::builder(&env)
        .and_then(|b| {
            b.with_optimization_level(ort::session::builder::GraphOptimizationLevel::Level3)
                .map_err(Into::into)
        })
        .and_then(|b| b.with_intra_threads(threads).map_err(Into::into))
        .and_then(|mut b| b.commit_from_file(&model))
        .map_err(ort_err)?;
    run_batch(&mut session, &fixed[0])?; // warm-up
                                         // Alternate the three, best of two each, so drift on a shared machine hits all alike.
    let (mut e2e, mut raw, mut raw1) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..2 {
        let t = Instant::now();
        for b in &fixed {
            run_batch(&mut session, b)?;
        }
        raw = raw.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for b in &single {
            run_batch(&mut session, b)?;
        }
        raw1 = raw1.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let vectors = embedder.embed(&refs)?;
        e2e = e2e.min(t.elapsed().as_secs_f64());
        assert_eq!(vectors.len(), texts.len());
    }
    let n = texts.len() as f64;
    println!("| path | chunks/s | seconds | vs raw ORT, fixed batches |");
    println!("| --- | ---: | ---: | ---: |");
    let row = |name: &str, secs: f64| println!("| {name} | {:.1} | {secs:.2} | {:.2}× |", n / secs, raw / secs);
    row(
        "raw ONNX Runtime session, fixed batches of 32 in input order (baseline)",
        raw,
    );
    row("raw ONNX Runtime session, one chunk per run", raw1);
    row(
        "engine `FastEmbedder::embed` (length-sorted batches within 1,000 characters; tokenise, run, pool, normalise)",
        e2e,
    );
    Ok(())
}

/// Every chunk of the labelled set's papers, cut by the engine's chunker at the default settings (first `n`).
fn real_chunks(embedder: &dyn Embedder, n: usize) -> Result<Vec<String>> {
    let defaults = ragsift_engine::LibraryConfig::default();
    let chunker = TokenChunker::from_file(
        embedder.tokenizer_path(),
        defaults.chunk_tokens,
        defaults.overlap_tokens,
    )?;
    let dir = crate::repo_root().join("fixtures/qa/documents");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| Error::Invalid(format!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let extracted = ragsift_engine::extract::extract_file(
            &f,
            ragsift_engine::extract::Limits {
                max_file_mb: 200,
                timeout: std::time::Duration::from_secs(120),
            },
        )?;
        out.extend(chunker.chunk(&extracted.pages)?.into_iter().map(|c| c.text));
    }
    out.truncate(n);
    Ok(out)
}

fn ort_err(e: impl std::fmt::Display) -> Error {
    Error::Model(e.to_string())
}

fn tokenizer(path: &std::path::Path) -> Result<tokenizers::Tokenizer> {
    let mut t = tokenizers::Tokenizer::from_file(path).map_err(ort_err)?;
    t.with_padding(None);
    t.with_truncation(Some(tokenizers::TruncationParams {
        max_length: 256,
        ..Default::default()
    }))
    .map_err(ort_err)?;
    Ok(t)
}

/// Deterministic English-like text cut by the engine's own chunker into chunks of up to 254 tokens.
fn chunks_of_256_tokens(embedder: &dyn Embedder, n: usize) -> Result<Vec<String>> {
    const WORDS: &[&str] = &[
        "the",
        "battery",
        "retrieval",
        "passage",
        "threshold",
        "model",
        "document",
        "system",
        "answer",
        "question",
        "evidence",
        "context",
        "page",
        "index",
        "vector",
        "search",
        "result",
        "relevant",
        "policy",
        "judge",
        "warranty",
        "charging",
        "temperature",
        "library",
        "chunk",
        "token",
        "embedding",
        "score",
        "rank",
        "query",
        "and",
        "of",
        "to",
        "in",
        "is",
        "for",
        "with",
        "that",
        "on",
        "as",
        "by",
        "from",
        "which",
        "when",
        "each",
    ];
    let mut seed = 0x9E3779B97F4A7C15u64;
    let mut text = String::new();
    for i in 0..(n * 230) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        text.push_str(WORDS[(seed % WORDS.len() as u64) as usize]);
        text.push_str(if i % 17 == 16 { ". " } else { " " });
    }
    let chunker = TokenChunker::from_file(embedder.tokenizer_path(), 254, 0)?;
    let pages = [PageText {
        number: 1,
        text,
        failed: false,
        ocr: false,
        decoding: Default::default(),
        ..PageText::default()
    }];
    Ok(chunker.chunk(&pages)?.into_iter().map(|c| c.text).take(n).collect())
}

struct Batch {
    ids: Array2<i64>,
    mask: Array2<i64>,
    types: Array2<i64>,
}

fn pretokenise(tok: &tokenizers::Tokenizer, texts: &[String], batch: usize) -> Result<Vec<Batch>> {
    let mut out = Vec::new();
    for group in texts.chunks(batch) {
        let encs: Vec<_> = group
            .iter()
            .map(|t| tok.encode(t.as_str(), true))
            .collect::<std::result::Result<_, _>>()
            .map_err(ort_err)?;
        let len = encs.iter().map(|e| e.len()).max().unwrap_or(0);
        let mut b = Batch {
            ids: Array2::zeros((group.len(), len)),
            mask: Array2::zeros((group.len(), len)),
            types: Array2::zeros((group.len(), len)),
        };
        for (i, e) in encs.iter().enumerate() {
            for (j, &id) in e.get_ids().iter().enumerate() {
                b.ids[[i, j]] = id as i64;
                b.mask[[i, j]] = 1;
                b.types[[i, j]] = e.get_type_ids()[j] as i64;
            }
        }
        out.push(b);
    }
    Ok(out)
}

fn run_batch(session: &mut ort::session::Session, b: &Batch) -> Result<()> {
    let inputs = ort::inputs![
        "input_ids" => ort::value::TensorRef::from_array_view(&b.ids).map_err(ort_err)?,
        "attention_mask" => ort::value::TensorRef::from_array_view(&b.mask).map_err(ort_err)?,
        "token_type_ids" => ort::value::TensorRef::from_array_view(&b.types).map_err(ort_err)?,
    ];
    let out = session.run(inputs).map_err(ort_err)?;
    let (shape, _) = out[0].try_extract_tensor::<f32>().map_err(ort_err)?;
    assert_eq!(shape[2], 384);
    Ok(())
}

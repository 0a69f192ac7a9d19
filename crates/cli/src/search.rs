//! `ragsift search`: vector, keyword or hybrid search over the library.

use crate::{load_query_embedder, open_library, print_json};
use ragsift_engine::{Error, LibraryRetriever, Retriever, SearchMode, SearchRequest};
use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    query: String,
    /// Number of hits (default: the library's setting, 12).
    #[arg(long)]
    top_k: Option<usize>,
    /// Minimum cosine similarity (default 0.0: accept all).
    #[arg(long)]
    threshold: Option<f32>,
    /// vector, keyword or hybrid.
    #[arg(long, default_value = "vector")]
    mode: SearchMode,
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Path, args: Args) -> Result<ExitCode, Error> {
    let lib = open_library(home)?;
    let embedder = load_query_embedder(home, lib.settings())?;
    let req = SearchRequest {
        query: args.query,
        top_k: args.top_k.unwrap_or(lib.settings().top_k),
        threshold: args.threshold.unwrap_or(lib.settings().similarity_threshold),
        mode: args.mode,
    };
    let hits = LibraryRetriever {
        library: &lib,
        embedder: embedder.as_ref(),
    }
    .retrieve(&req)?;
    if args.json {
        let hits: Vec<_> = hits
            .iter()
            .map(|h| {
                serde_json::json!({
                    "rank": h.rank, "chunk_id": h.chunk.id, "document": h.chunk.document_path,
                    "document_id": h.chunk.document_id, "title": h.chunk.document_title,
                    "page_start": h.chunk.page_start, "page_end": h.chunk.page_end,
                    "char_start": h.chunk.char_start, "char_end": h.chunk.char_end,
                    "score": h.score, "similarity": h.similarity, "vector_rank": h.vector_rank,
                    "bm25": h.bm25, "keyword_rank": h.keyword_rank, "text": h.chunk.text,
                })
            })
            .collect();
        print_json(&serde_json::json!({ "query": req.query, "mode": req.mode, "hits": hits }));
    } else if hits.is_empty() {
        println!("No hits. (Is the library empty? `ragsift library list`)");
    } else {
        for h in &hits {
            let pages = if h.chunk.page_start == h.chunk.page_end {
                format!("p. {}", h.chunk.page_start)
            } else {
                format!("pp. {}–{}", h.chunk.page_start, h.chunk.page_end)
            };
            let preview: String = h.chunk.text.chars().take(240).collect();
            println!(
                "{}. [{:.3}] {} ({pages})\n   {preview}…\n",
                h.rank, h.score, h.chunk.document_path
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

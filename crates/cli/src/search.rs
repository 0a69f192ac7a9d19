//! `ragsift search`: vector, keyword or hybrid search over the library.

use crate::print_json;
use ragsift_workbench::{Error, SearchMode};
use ragsift_workbench::{SearchQuery, Workbench};
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
    #[arg(long, alias = "mode", default_value = "vector")]
    search_mode: SearchMode,
    #[arg(long)]
    json: bool,
}

pub fn run(home: &Path, args: Args) -> Result<ExitCode, Error> {
    let wb = Workbench::open(Some(home))?;
    let results = wb.search(&SearchQuery {
        query: args.query,
        top_k: args.top_k,
        threshold: args.threshold,
        search_mode: args.search_mode,
    })?;
    if args.json {
        print_json(&results);
    } else if results.hits.is_empty() {
        println!("No hits. (Is the library empty? `ragsift library list`)");
    } else {
        for h in &results.hits {
            let pages = ragsift_workbench::page_range(h.page_start, h.page_end);
            let preview: String = h.text.chars().take(240).collect();
            let (document, preview) = (crate::term::plain(&h.document), crate::term::one_line(&preview));
            println!("{}. [{:.3}] {document} ({pages})\n   {preview}…\n", h.rank, h.score);
        }
    }
    Ok(ExitCode::SUCCESS)
}

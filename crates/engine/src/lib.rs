//! ragsift's engine under one name: the layer crates re-exported at the paths the CLI, the app and the
//! benchmarks use (as swiftide's facade crate does). Each module lives in its own crate, dependencies only
//! downward: the stage traits (`interfaces`) apart from their native implementations (`models`, `store`), and
//! the judge, pipeline and evaluation on the traits only. See ARCHITECTURE.md.

pub use ragsift_core::{cancel, compute, error, fsx, ids, paths, progress, read};
pub use ragsift_eval as eval;
pub use ragsift_ingest::{chunk, corpus, extract, fuzz, quality, worker};
pub use ragsift_judge as judge;
pub use ragsift_library::{config as library_config, library, location, retrieve};
pub use ragsift_models::{embed, llm};
pub use ragsift_pipeline as pipeline;
pub use ragsift_policy as policy;
pub use ragsift_store::{backend, index, pg, sqlite};
pub use ragsift_workbench as workbench;
pub use ragsift_workbench::settings;

pub use ragsift_core::{page_range, CancelToken, ChunkPlace, DocumentKind, Error, JudgeCode, Result, RuntimePaths};
pub use ragsift_interfaces as interfaces;
pub use ragsift_library::{
    FileReport, Hit, IngestReport, Library, LibraryConfig, LibraryRetriever, Retriever, SearchMode, SearchRequest,
};
pub use ragsift_models::{ChatMessage, Embedder, FastEmbedder, GenerateOptions, LanguageModel};
pub use ragsift_store::{LibraryStore, StoreInfo, StoreKind};
pub use ragsift_workbench::Settings;

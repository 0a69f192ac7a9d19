//! The store's traits and rows live in `ragsift-interfaces` (so that crates above the store build without its
//! native parts); re-exported here under their old paths.

pub use ragsift_interfaces::store::{
    DocumentStore, JudgmentStore, LabelStore, LibraryStore, RunStore, StoreInfo, StoreKind, TermStats,
};

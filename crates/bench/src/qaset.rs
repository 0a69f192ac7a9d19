//! The labelled set as the judge and answer benchmarks use it: the papers of `fixtures/qa/documents`, and the
//! datasheets of `fixtures/qa/external.json` (real files of `fixtures/real` that may not be committed, used when
//! present), ingested into a library (kept in the cache dir between runs; unchanged files are not re-embedded),
//! each question's evidence located in it, and each question's retrieved candidates labelled by span overlap.

use ragsift_engine::eval::qa::{load_questions, locate_evidence, LocatedEvidence, QaQuestion, QuestionKind};
use ragsift_engine::retrieve::Hit;
use ragsift_engine::{FastEmbedder, Library, LibraryConfig, LibraryRetriever, Result, Retriever, SearchRequest};
use std::path::PathBuf;

/// One retrieved hit with its labels (a candidate of the labelled set).
pub struct LabelledHit {
    pub hit: Hit,
    /// Holds a quoted answer span.
    pub evidence: bool,
    /// Lies on a page that states the answer.
    pub answer_page: bool,
}

/// One question with its candidates.
pub struct Case {
    pub question: QaQuestion,
    pub candidates: Vec<LabelledHit>,
    /// Document fold (the question's family) for cross-validation.
    pub fold: usize,
}

pub struct QaSet {
    pub library: Library,
    pub cases: Vec<Case>,
    pub folds: Vec<String>,
}

/// The library of the labelled papers, in `~/.cache/ragsift/bench/qa-library`.
pub fn library(embedder: &FastEmbedder) -> Result<Library> {
    library_at(embedder, "qa-library", LibraryConfig::default())
}

/// The labelled documents in a library of their own under the bench cache, chunked as `config` says.
pub fn library_at(embedder: &FastEmbedder, name: &str, config: LibraryConfig) -> Result<Library> {
    let home = dirs_cache().join(name);
    std::fs::create_dir_all(&home).map_err(|e| ragsift_engine::Error::Invalid(format!("{}: {e}", home.display())))?;
    let library = Library::open(&home, config)?;
    let docs = crate::repo_root().join("fixtures/qa/documents");
    let external = external_documents();
    // The cache is shared by checkouts (a worktree, a release build elsewhere): documents ingested from another
    // checkout's path would sit beside these as copies and crowd every top k, so they go first.
    let ours = docs.canonicalize().unwrap_or_else(|_| docs.clone());
    for d in library.documents()? {
        let path = std::path::Path::new(&d.path);
        if !path.starts_with(&ours) && !external.iter().any(|e| e.as_path() == path) {
            library.remove(&d.id)?;
        }
    }
    let mut paths = vec![docs];
    paths.extend(external);
    let report = library.ingest(embedder, &paths, &|_| {})?;
    if report.failed() > 0 {
        return Err(ragsift_engine::Error::Invalid(
            "a labelled document failed to ingest".into(),
        ));
    }
    Ok(library)
}

/// The labelled set's datasheets present on this machine (`fixtures/qa/external.json` names them by their
/// `fixtures/real` id); an absent one is reported, and its questions are left out.
fn external_documents() -> Vec<PathBuf> {
    let list = crate::repo_root().join("fixtures/qa/external.json");
    let ids: Vec<String> = std::fs::read_to_string(&list)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    ids.iter()
        .filter_map(|id| {
            let found = crate::real::file_of(id);
            if found.is_none() {
                eprintln!("warning: {id}.pdf is absent (see fixtures/real/README.md): its questions are left out");
            }
            found.and_then(|p| p.canonicalize().ok())
        })
        .collect()
}

/// The labelled questions whose documents are all in `library`.
pub fn questions_in(library: &Library) -> Result<Vec<QaQuestion>> {
    let names: Vec<String> = library
        .documents()?
        .iter()
        .filter_map(|d| {
            std::path::Path::new(&d.path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .collect();
    let family_present = |q: &QaQuestion| {
        q.family_id
            .as_ref()
            .is_none_or(|f| names.iter().any(|n| n.strip_suffix(".pdf") == Some(f.as_str())))
    };
    Ok(load_questions(&crate::repo_root().join("fixtures/qa/cases.json"))?
        .into_iter()
        .filter(|q| family_present(q) && q.evidence.iter().all(|e| names.contains(&e.document)))
        .collect())
}

/// The bench's cache dir (`~/.cache/ragsift/bench`).
pub fn dirs_cache() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("ragsift/bench")
}

/// Loads the questions, locates their evidence and retrieves `top_k` candidates for each, in `mode` (vector,
/// keyword or hybrid).
pub fn load_with(embedder: &FastEmbedder, top_k: usize, mode: ragsift_engine::retrieve::SearchMode) -> Result<QaSet> {
    let library = library(embedder)?;
    let questions = questions_in(&library)?;
    let (located, missing) = locate_evidence(library.store(), &questions)?;
    for m in &missing {
        eprintln!("warning: evidence not found in the extracted text: {m}");
    }
    let retriever = LibraryRetriever {
        library: &library,
        embedder,
    };
    let mut folds: Vec<String> = Vec::new();
    let mut cases = Vec::with_capacity(questions.len());
    for (q, ev) in questions.into_iter().zip(located) {
        let hits = retriever.retrieve(&SearchRequest {
            top_k,
            search_mode: mode,
            ..SearchRequest::new(q.query.clone())
        })?;
        let family = q.family_id.clone().unwrap_or_default();
        let fold = match folds.iter().position(|f| *f == family) {
            Some(i) => i,
            None => {
                folds.push(family);
                folds.len() - 1
            }
        };
        cases.push(Case {
            candidates: hits.into_iter().map(|h| label(h, &ev)).collect(),
            question: q,
            fold,
        });
    }
    Ok(QaSet { library, cases, folds })
}

fn label(hit: Hit, ev: &LocatedEvidence) -> LabelledHit {
    let extent = hit.chunk.place();
    LabelledHit {
        evidence: ev.holds(&hit.chunk.document_id, &extent),
        answer_page: ev.on_answer_page(&hit.chunk.document_id, &extent),
        hit,
    }
}

impl Case {
    pub fn answerable(&self) -> bool {
        self.question.kind != QuestionKind::Unanswerable
    }
    pub fn passages(&self) -> Vec<String> {
        self.candidates.iter().map(|c| c.hit.chunk.text.clone()).collect()
    }
}

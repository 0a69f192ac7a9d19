//! `ragsift doctor`: is the runtime installed, do the models load and embed, is the library consistent?

use crate::{load_embedder, open_library, print_json};
use ragsift_engine::{paths, Embedder, Error, RuntimePaths, Settings};
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

#[derive(Serialize)]
struct Check {
    name: &'static str,
    ok: bool,
    detail: String,
}

pub fn run(home: &Path, json: bool) -> Result<ExitCode, Error> {
    let mut checks = Vec::new();
    let mut add = |name, r: Result<String, Error>| {
        let (ok, detail) = match r {
            Ok(d) => (true, d),
            Err(e) => (false, e.to_string()),
        };
        checks.push(Check { name, ok, detail });
    };
    let settings = Settings::load(home).unwrap_or_default();
    add("data dir", paths::data_dir().map(|d| d.display().to_string()));
    add("settings", settings_check(home));
    add(
        "runtime",
        RuntimePaths::discover(home)
            .map(|r| format!("{} ; models in {}", r.onnxruntime.display(), r.models_dir.display())),
    );
    add(
        "embedding model",
        load_embedder(home, &settings.library).and_then(|e| {
            let v = e.embed(&["ragsift doctor"])?;
            Ok(format!(
                "{} loaded, {} dimensions, max {} tokens",
                e.id(),
                v[0].len(),
                e.max_tokens()
            ))
        }),
    );
    add(
        "chat model",
        ragsift_engine::llm::open_model(&settings.chat, home, None)
            .map(|m| format!("{} ({} backend)", m.id(), settings.chat.backend)),
    );
    add("library", library_check(home));
    let all_ok = checks.iter().all(|c| c.ok);
    if json {
        print_json(&serde_json::json!({ "ok": all_ok, "home": home, "checks": checks }));
    } else {
        for c in &checks {
            println!("{} {:<16} {}", if c.ok { "ok  " } else { "FAIL" }, c.name, c.detail);
        }
    }
    Ok(if all_ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Whether `settings.json` reads, and holds no field that no setting reads (those are ignored).
fn settings_check(home: &Path) -> Result<String, Error> {
    let path = home.join("settings.json");
    Settings::load(home)?;
    let unknown = Settings::unknown_fields(home);
    if !unknown.is_empty() {
        let fields: Vec<String> = unknown.iter().map(|f| format!("`{}`", crate::term::plain(f))).collect();
        return Err(Error::Invalid(format!(
            "{}: unknown fields, ignored: {} (misspelt, or from another version?)",
            path.display(),
            fields.join(", ")
        )));
    }
    Ok(if path.exists() {
        path.display().to_string()
    } else {
        "defaults (no settings.json)".to_string()
    })
}

fn library_check(home: &Path) -> Result<String, Error> {
    let lib = open_library(home)?;
    let problems = lib.store().integrity_check()?;
    if !problems.is_empty() {
        return Err(Error::Invalid(format!("database problems: {}", problems.join("; "))));
    }
    let keys = lib.store().chunk_keys()?;
    let missing = keys.iter().filter(|k| !lib.index().contains(**k)).count();
    if missing > 0 || lib.index().len() != keys.len() {
        return Err(Error::Index(format!(
            "{} chunks, {} vectors, {missing} chunks without a vector",
            keys.len(),
            lib.index().len()
        )));
    }
    let docs = lib.documents()?;
    let gone = docs.iter().filter(|d| !Path::new(&d.path).exists()).count();
    let r = lib.reconciled();
    let repaired = if r.vectors_added > 0 || r.rebuilt {
        format!(
            "; repaired on open: {} vectors restored{}",
            r.vectors_added,
            if r.rebuilt { ", index rebuilt" } else { "" }
        )
    } else {
        String::new()
    };
    Ok(format!(
        "{} at {}: {} documents, {} chunks, all with vectors; {} files missing on disk{repaired}",
        ragsift_engine::library::DB_FILE,
        home.display(),
        docs.len(),
        keys.len(),
        gone
    ))
}

//! The `ragsift` binary as a user runs it: JSON shapes, exit codes, and a kill -9 in the middle of an ingest.

mod common;

use common::{ragsift, repo, run_json};
use ragsift_engine::{Library, LibraryConfig};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::Stdio;

#[test]
fn ingest_search_list_remove_doctor() {
    let home = tempfile::tempdir().unwrap();
    let fx = repo().join("fixtures");
    let (code, v) = run_json(
        ragsift(home.path())
            .args(["ingest", "--json"])
            .arg(fx.join("pdf"))
            .arg(fx.join("text")),
    );
    assert_eq!(code, 1, "some fixtures are meant to fail");
    let files = v["files"].as_array().unwrap();
    let by_name = |n: &str| {
        files
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(n))
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("multipage.pdf")["status"], "ingested");
    assert_eq!(by_name("multipage.pdf")["pages"], 3);
    assert_eq!(by_name("encrypted_user_pw.pdf")["status"], "failed");
    assert!(by_name("encrypted_user_pw.pdf")["error"]
        .as_str()
        .unwrap()
        .contains("encrypted"));
    for f in files {
        for key in ["path", "status", "pages", "chunks", "error"] {
            assert!(f.get(key).is_some(), "{key} in {f}");
        }
    }

    let (code, v) = run_json(
        ragsift(home.path())
            .args(["ingest", "--json"])
            .arg(fx.join("pdf/multipage.pdf")),
    );
    assert_eq!((code, v["files"][0]["status"].as_str()), (0, Some("unchanged")));

    let (code, v) =
        run_json(ragsift(home.path()).args(["search", "How long is the warranty?", "--top-k", "3", "--json"]));
    assert_eq!(code, 0);
    let hits = v["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 3);
    for key in ["chunk_id", "document", "page_start", "page_end", "score", "text"] {
        assert!(hits[0].get(key).is_some(), "{key}");
    }
    // multipage.pdf and encrypted_empty_pw.pdf hold the same text.
    let top = hits[0]["document"].as_str().unwrap();
    assert!(
        top.ends_with("multipage.pdf") || top.ends_with("encrypted_empty_pw.pdf"),
        "{top}"
    );
    assert!(hits[0]["text"].as_str().unwrap().to_lowercase().contains("warranty"));
    let (_, v) = run_json(ragsift(home.path()).args(["search", "warranty", "--search-mode", "hybrid", "--json"]));
    assert!(!v["hits"].as_array().unwrap().is_empty());
    assert_eq!(
        v["search_mode"], "hybrid",
        "the results name the search as the request does"
    );

    let (_, v) = run_json(ragsift(home.path()).args(["library", "list", "--json"]));
    let docs = v["documents"].as_array().unwrap();
    let md = docs
        .iter()
        .find(|d| d["path"].as_str().unwrap().ends_with("notes.md"))
        .unwrap();
    let (code, v) = run_json(ragsift(home.path()).args(["library", "remove", "--json", md["id"].as_str().unwrap()]));
    assert_eq!((code, v["removed"].as_array().unwrap().len()), (0, 1));

    let (code, v) = run_json(ragsift(home.path()).args(["doctor", "--json"]));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["ok"], true);
}

#[test]
fn extract_prints_pages_and_errors_clearly() {
    let home = tempfile::tempdir().unwrap();
    let (code, v) = run_json(
        ragsift(home.path())
            .args(["extract", "--json"])
            .arg(repo().join("fixtures/pdf/multipage.pdf")),
    );
    assert_eq!(code, 0);
    let pages = v["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 3);
    assert_eq!(pages[1]["number"], 2);
    assert!(pages[0]["text"].as_str().unwrap().len() > 100);
    let (code, v) = run_json(
        ragsift(home.path())
            .args(["extract", "--json"])
            .arg(repo().join("fixtures/pdf/image_only.pdf")),
    );
    assert_eq!(code, 1);
    assert_eq!(v["code"], "no_text");
}

/// Through the extraction worker, the store and search: a table's row is found by its header's words, with the
/// header in the hit's text, and the hit lies over the table on its page.
#[test]
fn an_ingested_table_row_is_found_with_its_header() {
    let home = tempfile::tempdir().unwrap();
    let pdf = repo().join("fixtures/qa/documents/Rcpp-jss-2011.pdf");
    let (code, _) = run_json(ragsift(home.path()).args(["ingest", "--json"]).arg(&pdf));
    assert_eq!(code, 0);
    let query = "Rcpp sugar time in millisec relative to R API";
    let (code, v) =
        run_json(ragsift(home.path()).args(["search", query, "--mode", "hybrid", "--top-k", "4", "--json"]));
    assert_eq!(code, 0);
    let hits = v["hits"].as_array().unwrap();
    let row = "Implementation: Rcpp sugar; Time in millisec.: 145; Relative to R API: 0.67";
    let hit = (hits.iter())
        .find(|h| h["text"].as_str().unwrap().contains(row))
        .unwrap_or_else(|| panic!("no hit holds the keyed row: {hits:#?}"));
    assert_eq!(
        (hit["page_start"].as_u64(), hit["page_end"].as_u64()),
        (Some(15), Some(15))
    );
}

#[test]
fn extract_tables_prints_each_row_with_its_header() {
    let home = tempfile::tempdir().unwrap();
    let pdf = repo().join("fixtures/qa/documents/gpredict-user-manual.pdf");
    let (code, v) = run_json(ragsift(home.path()).args(["extract", "--json", "--tables"]).arg(&pdf));
    assert_eq!(code, 0);
    let tables = v["tables"].as_array().unwrap();
    let codes = tables
        .iter()
        .find(|t| t["head"].as_str().unwrap().starts_with("Table 3.2"))
        .unwrap();
    let rows: Vec<&str> = codes["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        rows.contains(&"Code: %j; Description: The day of the year (range 001 to 366).")
            && rows.contains(
                &"Code: %g; Description: The year corresponding to the ISO week number, but without the century \
                  (range 00 through 99)."
            ),
        "{rows:#?}"
    );
    // Without --tables, the text output is the pages alone.
    let out = ragsift(home.path()).arg("extract").arg(&pdf).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("--- table on page"));
    let out = ragsift(home.path())
        .args(["extract", "--tables"])
        .arg(&pdf)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("--- table on page"));
}

#[test]
fn missing_runtime_says_what_to_run() {
    let home = tempfile::tempdir().unwrap();
    let out = ragsift(home.path())
        .env("RAGSIFT_DATA", home.path().join("nowhere"))
        .args(["search", "anything"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("scripts/setup.sh") && err.contains("not found"), "{err}");
}

/// kill -9 in the middle of an ingest, then open: every chunk has its vector, no vector lacks its chunk,
/// every stored document is complete, and ingesting again finishes the job without redoing finished files.
#[test]
fn a_killed_ingest_leaves_a_consistent_library() {
    let home = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    let src = repo().join("fixtures/pdf/multipage.pdf");
    for i in 0..60 {
        std::fs::copy(&src, docs.path().join(format!("copy-{i:02}.pdf"))).unwrap();
    }
    let mut child = ragsift(home.path())
        .arg("ingest")
        .arg(docs.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut finished = 0;
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        if line.unwrap().contains("ingested:") {
            finished += 1;
            if finished == 8 {
                break;
            }
        }
    }
    assert_eq!(finished, 8, "the ingest got going");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let lib = Library::open(home.path(), LibraryConfig::default()).unwrap();
    let keys = lib.store().chunk_keys().unwrap();
    assert!(keys.iter().all(|k| lib.index().contains(*k)));
    assert_eq!(lib.index().len(), keys.len());
    let docs_stored = lib.documents().unwrap();
    assert!(
        docs_stored.len() >= 8 && docs_stored.len() < 60,
        "killed part-way: {}",
        docs_stored.len()
    );
    for d in &docs_stored {
        assert_eq!(
            lib.store().chunks_of(&d.id).unwrap().len() as u32,
            d.chunk_count,
            "{} is complete",
            d.path
        );
    }
    assert!(
        lib.reconciled().vectors_added > 0,
        "the kill left vectors unsaved, and open restored them"
    );
    drop(lib);
    let (code, v) = run_json(ragsift(home.path()).args(["doctor", "--json"]));
    assert_eq!((code, &v["ok"]), (0, &Value::Bool(true)), "doctor after the kill: {v}");

    let (code, v) = run_json(ragsift(home.path()).args(["ingest", "--json"]).arg(docs.path()));
    assert_eq!(code, 0);
    let files = v["files"].as_array().unwrap();
    let unchanged = files.iter().filter(|f| f["status"] == "unchanged").count();
    assert_eq!(unchanged, docs_stored.len());
    assert_eq!(files.len(), 60);
}

#[test]
fn a_renamed_document_keeps_its_title_through_a_new_version_of_its_file() {
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let note = files.path().join("fog.md");
    std::fs::write(&note, "# Fog log\n\nThe keeper logs the fog signal every 37 minutes.\n").unwrap();
    let (code, _) = run_json(ragsift(home.path()).args(["ingest", "--json"]).arg(&note));
    assert_eq!(code, 0);
    let listed = |home: &std::path::Path| {
        let (code, v) = run_json(ragsift(home).args(["library", "list", "--json"]));
        assert_eq!(code, 0, "{v}");
        v["documents"][0].clone()
    };
    let before = listed(home.path());
    assert_eq!(before["renamed"], false, "{before}");
    assert_ne!(before["title"], "Skerryvore keeper's log");

    // By path, the title cleaned of its runs of white space.
    let (code, v) = run_json(
        ragsift(home.path())
            .args(["library", "rename", "--json"])
            .arg(&note)
            .arg("  Skerryvore\n keeper's   log "),
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        (&v["document"]["title"], &v["document"]["renamed"]),
        (&Value::from("Skerryvore keeper's log"), &Value::from(true))
    );
    assert_eq!(listed(home.path())["title"], "Skerryvore keeper's log");

    // A new version of the file keeps the user's title; its text is the new one.
    std::fs::write(
        &note,
        "# Fog log, second edition\n\nThe keeper logs the fog signal every 41 minutes.\n",
    )
    .unwrap();
    let (code, v) = run_json(ragsift(home.path()).args(["ingest", "--json"]).arg(&note));
    assert_eq!((code, &v["files"][0]["status"]), (0, &Value::from("ingested")), "{v}");
    let after = listed(home.path());
    assert_eq!(
        (&after["title"], &after["renamed"]),
        (&Value::from("Skerryvore keeper's log"), &Value::from(true))
    );
    assert_ne!(after["checksum"], before["checksum"]);

    // Refused with a clear error: a blank title, an unknown document; the title stays.
    let out = ragsift(home.path())
        .args(["library", "rename", before["id"].as_str().unwrap(), " \t "])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("blank"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = ragsift(home.path())
        .args(["library", "rename", "no-such-document", "A title"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no document"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(listed(home.path())["title"], "Skerryvore keeper's log");
}

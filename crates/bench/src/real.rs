//! Real documents (issue 55): the labelled pages of `fixtures/real/` — real PDFs from many producers, none made by
//! this project — against their hand-written truth, ragsift beside poppler's `pdftotext` (plain, one page at a time)
//! in the same run. Per producer family and overall: mean and worst word-order similarity, pages below 0.90,
//! glyph-merged tokens, running headers and footers left in the page text, and extraction time.
//!
//! A file is looked for, in order, at its committed copy (`fixtures/real/files/`), at its Debian documentation path
//! (gzip-compressed ones are unpacked to a temporary file), and in `$RAGSIFT_REAL_DIR` (default
//! `~/.cache/ragsift/real/`) as `<id>.pdf`. A file found nowhere, or whose sha256 differs from the manifest's, is
//! reported as absent.

use ragsift_engine::extract::{extract_file, Limits};
use ragsift_engine::quality::{word_similarity, words};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const LIMITS: Limits = Limits {
    max_file_mb: 200,
    timeout: Duration::from_secs(300),
};
/// A page below this similarity is counted as bad.
const BAD: f64 = 0.90;

struct PageScore {
    id: String,
    page: u32,
    ours: f64,
    theirs: f64,
    merged_ours: Vec<String>,
    merged_theirs: usize,
    spaceless_ours: Vec<String>,
    spaceless_theirs: usize,
    furniture: usize,
    furniture_ours: Vec<String>,
    furniture_theirs: usize,
    /// The previous code's score on the page (from its `--dump`), its merged tokens, furniture strings and table
    /// cells kept.
    previous: Option<(f64, usize, usize, usize)>,
    /// The truth's table cells, and how many each extractor keeps with their row label and unit.
    cells: usize,
    cells_ours: usize,
    cells_theirs: usize,
}

#[derive(Default)]
struct Family {
    files: usize,
    pages: Vec<PageScore>,
    ours_s: f64,
    theirs_s: f64,
}

/// `previous`: a folder that an earlier build's `ragsift-bench real --dump` wrote (the code before a change), scored
/// beside this build's text on the same pages.
pub fn run(dump: Option<&Path>, previous: Option<&Path>) -> ragsift_engine::Result<()> {
    let root = crate::repo_root().join("fixtures/real");
    let manifest = read_json(&root.join("manifest.json"));
    let files = manifest["files"].as_array().cloned().unwrap_or_default();
    let tmp = tempfile::tempdir().map_err(|e| ragsift_engine::Error::io(std::env::temp_dir(), e))?;
    if let Some(d) = dump {
        std::fs::create_dir_all(d).map_err(|e| ragsift_engine::Error::io(d.to_path_buf(), e))?;
    }
    let mut families: BTreeMap<String, Family> = BTreeMap::new();
    let mut absent = Vec::new();
    println!("\n## Real documents (issue 55): word-order similarity to the hand-written truth, per labelled page");
    println!(
        "{:<22} {:>4} {:>8} {:>10}  notes",
        "file", "page", "ragsift", "pdftotext"
    );
    for f in &files {
        let id = f["id"].as_str().unwrap_or_default().to_string();
        let truth = read_json(&root.join("truth").join(format!("{id}.json")));
        let Some(truth_pages) = truth["pages"].as_object().filter(|p| !p.is_empty()) else {
            continue;
        };
        let Some(pdf) = locate(&root, f, tmp.path()) else {
            absent.push(id);
            continue;
        };
        let family = f["group"]
            .as_str()
            .or(f["family"].as_str())
            .unwrap_or("other")
            .to_string();
        let t = Instant::now();
        let ours = match extract_file(&pdf, LIMITS) {
            Ok(x) => x.pages,
            Err(e) => {
                println!("{id:<22} ragsift failed: {e}");
                Vec::new()
            }
        };
        let ours_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let _ = Command::new("pdftotext").arg("-q").arg(&pdf).arg("-").output();
        let theirs_s = t.elapsed().as_secs_f64();
        let fam = families.entry(family).or_default();
        fam.files += 1;
        fam.ours_s += ours_s;
        fam.theirs_s += theirs_s;
        let mut numbers: Vec<u32> = truth_pages.keys().filter_map(|k| k.parse().ok()).collect();
        numbers.sort_unstable();
        for n in numbers {
            let want = &truth_pages[&n.to_string()];
            let text = want["text"].as_str().unwrap_or_default();
            let furniture: Vec<String> = want["furniture"]
                .as_array()
                .map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            let page = ours.iter().find(|p| p.number == n);
            let mine = page.map_or("", |p| p.text.as_str());
            // ragsift's units of text: the page's paragraphs and each table row as a fact; pdftotext's: its lines.
            let mut units: Vec<&str> = mine.split("\n\n").collect();
            units.extend(
                page.into_iter()
                    .flat_map(|p| p.tables.iter().flat_map(|t| t.rows.iter().map(|r| r.text.as_str()))),
            );
            let cells: Vec<&Value> = want["cells"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
            let theirs = poppler_page(&pdf, n);
            if let Some(d) = dump {
                let _ = std::fs::write(d.join(format!("{id}-p{n}.ragsift.txt")), mine);
                let _ = std::fs::write(d.join(format!("{id}-p{n}.pdftotext.txt")), &theirs);
                let rows: Vec<&str> = page
                    .into_iter()
                    .flat_map(|p| p.tables.iter().flat_map(|t| t.rows.iter().map(|r| r.text.as_str())))
                    .collect();
                let _ = std::fs::write(d.join(format!("{id}-p{n}.tables.txt")), rows.join("\n"));
            }
            let truth_words = words(text);
            let furniture_words: Vec<String> = furniture.iter().flat_map(|f| words(f)).collect();
            let (merged_ours, spaceless_ours) = merged_tokens(mine, &truth_words, &furniture_words);
            let (merged_theirs, spaceless_theirs) = merged_tokens(&theirs, &truth_words, &furniture_words);
            let merged_theirs = merged_theirs.len();
            let counted: Vec<&String> = furniture.iter().filter(|s| counts_as_furniture(s)).collect();
            let furniture_ours: Vec<String> = counted
                .iter()
                .filter(|s| furniture_left(mine, text, s))
                .map(|s| s.to_string())
                .collect();
            let furniture_theirs = counted.iter().filter(|s| furniture_left(&theirs, text, s)).count();
            let kept_cells = |units: &[&str]| cells.iter().filter(|c| units.iter().any(|u| cell_found(u, c))).count();
            let previous = previous
                .and_then(|d| {
                    let before = std::fs::read_to_string(d.join(format!("{id}-p{n}.ragsift.txt"))).ok()?;
                    let rows = std::fs::read_to_string(d.join(format!("{id}-p{n}.tables.txt"))).unwrap_or_default();
                    Some((before, rows))
                })
                .map(|(before, rows)| {
                    let merged = merged_tokens(&before, &truth_words, &furniture_words).0.len();
                    let kept = counted.iter().filter(|s| furniture_left(&before, text, s)).count();
                    let mut units: Vec<&str> = before.split("\n\n").collect();
                    units.extend(rows.lines());
                    (word_similarity(&before, text), merged, kept, kept_cells(&units))
                });
            let cells_ours = kept_cells(&units);
            let cells_theirs = kept_cells(&theirs.lines().collect::<Vec<_>>());
            let score = PageScore {
                cells: cells.len(),
                cells_ours,
                cells_theirs,
                previous,
                ours: word_similarity(mine, text),
                theirs: word_similarity(&theirs, text),
                id: id.clone(),
                page: n,
                merged_ours,
                merged_theirs,
                spaceless_ours,
                spaceless_theirs: spaceless_theirs.len(),
                furniture: counted.len(),
                furniture_ours,
                furniture_theirs,
            };
            let mut notes = Vec::new();
            if !score.merged_ours.is_empty() {
                notes.push(format!("merged: {}", score.merged_ours.join(", ")));
            }
            if !score.spaceless_ours.is_empty() {
                notes.push(format!("spaces lost: {}", score.spaceless_ours.join(", ")));
            }
            if score.cells > 0 {
                notes.push(format!(
                    "table cells kept with label and unit: {} of {}",
                    score.cells_ours, score.cells
                ));
            }
            if !score.furniture_ours.is_empty() {
                notes.push(format!("furniture: {}", score.furniture_ours.join(" | ")));
            }
            println!(
                "{id:<22} {n:>4} {:>8.3} {:>10.3}  {}",
                score.ours,
                score.theirs,
                notes.join("; ")
            );
            fam.pages.push(score);
        }
    }
    report(&families, &absent, files.len());
    Ok(())
}

fn report(families: &BTreeMap<String, Family>, absent: &[String], listed: usize) {
    println!("\n### Per group of producers (each cell: ragsift \\| pdftotext, on the same pages; time is whole-file extraction)\n");
    println!(
        "| group | files | pages | mean | worst | pages < {BAD:.2} | glyph-merged tokens | words run together | furniture in text | table cells with label and unit | time s | ratio |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut all = Family::default();
    let row = |name: &str, f: &Family| {
        let pages: Vec<&PageScore> = f.pages.iter().collect();
        let (om, ow, ob) = stats(pages.iter().map(|p| p.ours));
        let (tm, tw, tb) = stats(pages.iter().map(|p| p.theirs));
        let mo: usize = pages.iter().map(|p| p.merged_ours.len()).sum();
        let mt: usize = pages.iter().map(|p| p.merged_theirs).sum();
        let so: usize = pages.iter().map(|p| p.spaceless_ours.len()).sum();
        let st: usize = pages.iter().map(|p| p.spaceless_theirs).sum();
        let fo: usize = pages.iter().map(|p| p.furniture_ours.len()).sum();
        let ft: usize = pages.iter().map(|p| p.furniture_theirs).sum();
        let fall: usize = pages.iter().map(|p| p.furniture).sum();
        let cells: usize = pages.iter().map(|p| p.cells).sum();
        let co: usize = pages.iter().map(|p| p.cells_ours).sum();
        let ct: usize = pages.iter().map(|p| p.cells_theirs).sum();
        let cells = if cells == 0 {
            "—".to_string()
        } else {
            format!("{co} \\| {ct} of {cells}")
        };
        println!(
            "| {name} | {} | {} | {om:.3} \\| {tm:.3} | {ow:.3} \\| {tw:.3} | {ob} \\| {tb} | {mo} \\| {mt} | {so} \\| {st} | {fo} \\| {ft} of {fall} | {cells} | {:.2} \\| {:.2} | {:.2}× |",
            f.files,
            pages.len(),
            f.ours_s,
            f.theirs_s,
            f.theirs_s / f.ours_s.max(1e-9),
        );
    };
    for (name, f) in families {
        row(name, f);
    }
    for f in families.values() {
        all.files += f.files;
        all.ours_s += f.ours_s;
        all.theirs_s += f.theirs_s;
    }
    let scores: Vec<PageScore> = families
        .values()
        .flat_map(|f| f.pages.iter())
        .map(|p| PageScore {
            id: p.id.clone(),
            page: p.page,
            ours: p.ours,
            theirs: p.theirs,
            merged_ours: p.merged_ours.clone(),
            merged_theirs: p.merged_theirs,
            spaceless_ours: p.spaceless_ours.clone(),
            spaceless_theirs: p.spaceless_theirs,
            furniture: p.furniture,
            furniture_ours: p.furniture_ours.clone(),
            furniture_theirs: p.furniture_theirs,
            previous: p.previous,
            cells: p.cells,
            cells_ours: p.cells_ours,
            cells_theirs: p.cells_theirs,
        })
        .collect();
    all.pages = scores;
    row("**all**", &all);
    println!("\n(ratio = pdftotext's time / ragsift's: below 1 means ragsift is slower)");
    if all.pages.iter().any(|p| p.previous.is_some()) {
        println!("\n### Against the previous code (its --dump), on the same pages\n");
        println!("| group | pages | mean, now \\| before | worst | pages < {BAD:.2} | glyph-merged tokens | furniture in text | table cells with label and unit |");
        println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
        let before_row = |name: &str, pages: Vec<&PageScore>| {
            let pages: Vec<&PageScore> = pages.into_iter().filter(|p| p.previous.is_some()).collect();
            let prev = |p: &PageScore| p.previous.unwrap_or_default();
            let (om, ow, ob) = stats(pages.iter().map(|p| p.ours));
            let (pm, pw, pb) = stats(pages.iter().map(|p| prev(p).0));
            let mo: usize = pages.iter().map(|p| p.merged_ours.len()).sum();
            let mp: usize = pages.iter().map(|p| prev(p).1).sum();
            let fo: usize = pages.iter().map(|p| p.furniture_ours.len()).sum();
            let fp: usize = pages.iter().map(|p| prev(p).2).sum();
            let co: usize = pages.iter().map(|p| p.cells_ours).sum();
            let cp: usize = pages.iter().map(|p| prev(p).3).sum();
            let cells: usize = pages.iter().map(|p| p.cells).sum();
            let cells = if cells == 0 {
                "—".to_string()
            } else {
                format!("{co} \\| {cp} of {cells}")
            };
            println!(
                "| {name} | {} | {om:.3} \\| {pm:.3} | {ow:.3} \\| {pw:.3} | {ob} \\| {pb} | {mo} \\| {mp} | {fo} \\| {fp} | {cells} |",
                pages.len()
            );
        };
        for (name, f) in families {
            before_row(name, f.pages.iter().collect());
        }
        before_row("**all**", all.pages.iter().collect());
    }
    let mut worst: Vec<&PageScore> = all.pages.iter().collect();
    worst.sort_by(|a, b| a.ours.total_cmp(&b.ours));
    println!("\n### ragsift's worst pages\n");
    println!("| file | page | ragsift | pdftotext |");
    println!("| --- | ---: | ---: | ---: |");
    for p in worst.iter().take(12) {
        println!("| {} | {} | {:.3} | {:.3} |", p.id, p.page, p.ours, p.theirs);
    }
    let examples: Vec<String> = all
        .pages
        .iter()
        .flat_map(|p| p.merged_ours.iter().map(move |t| format!("{t} ({} p{})", p.id, p.page)))
        .take(15)
        .collect();
    if !examples.is_empty() {
        println!("\nglyph-merged tokens in ragsift's text, e.g.: {}", examples.join(", "));
    }
    let runs: Vec<String> = all
        .pages
        .iter()
        .flat_map(|p| {
            p.spaceless_ours
                .iter()
                .map(move |t| format!("{t} ({} p{})", p.id, p.page))
        })
        .take(6)
        .collect();
    if !runs.is_empty() {
        println!("\nwords run together in ragsift's text, e.g.: {}", runs.join(", "));
    }
    let present = all.files;
    println!(
        "\n{present} of {listed} listed files present, {} labelled pages; absent ({}): {}",
        all.pages.len(),
        absent.len(),
        if absent.is_empty() {
            "none".to_string()
        } else {
            absent.join(", ")
        }
    );
    if !absent.is_empty() {
        println!("(absent files are fetched by hand into $RAGSIFT_REAL_DIR, default ~/.cache/ragsift/real/: see fixtures/real/README.md)");
    }
}

fn stats(v: impl Iterator<Item = f64>) -> (f64, f64, usize) {
    let v: Vec<f64> = v.collect();
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    (
        mean,
        v.iter().copied().fold(1.0, f64::min),
        v.iter().filter(|&&s| s < BAD).count(),
    )
}

/// A real file of the manifest by its id, on this machine and checked against its sha256 (not a gzip-compressed
/// Debian copy: those are unpacked by `run` only), or `None` when it is absent.
pub fn file_of(id: &str) -> Option<PathBuf> {
    let root = crate::repo_root().join("fixtures/real");
    let manifest = read_json(&root.join("manifest.json"));
    let f = manifest["files"].as_array()?.iter().find(|f| f["id"] == id)?.clone();
    let tmp = std::env::temp_dir();
    locate(&root, &f, &tmp).filter(|p| !p.starts_with(&tmp))
}

fn read_json(path: &Path) -> Value {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default()
}

/// The file's path on this machine, checked against the manifest's sha256, or `None`.
fn locate(root: &Path, f: &Value, tmp: &Path) -> Option<PathBuf> {
    let id = f["id"].as_str()?;
    let want = f["sha256"].as_str().unwrap_or_default();
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(c) = f["committed"].as_str() {
        candidates.push(crate::repo_root().join(c));
    }
    if let Some(p) = f["source"]["path"].as_str().filter(|_| f["source"]["type"] == "debian") {
        candidates.push(PathBuf::from(p));
    }
    if let Some(p) = f["source"]["path"].as_str().filter(|_| f["source"]["type"] == "repo") {
        candidates.push(crate::repo_root().join(p));
    }
    let cache = std::env::var_os("RAGSIFT_REAL_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/ragsift/real")));
    if let Some(dir) = cache {
        candidates.push(dir.join(format!("{id}.pdf")));
    }
    let _ = root;
    for c in candidates {
        let Ok(mut bytes) = std::fs::read(&c) else { continue };
        if c.extension().is_some_and(|x| x == "gz") {
            let mut out = Vec::new();
            if flate2::read::GzDecoder::new(bytes.as_slice())
                .read_to_end(&mut out)
                .is_err()
            {
                continue;
            }
            bytes = out;
        }
        let got: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        if !want.is_empty() && got != want {
            println!("{id:<22} {} has sha256 {got}, not the manifest's: skipped", c.display());
            continue;
        }
        if c.extension().is_some_and(|x| x == "gz") {
            let out = tmp.join(format!("{id}.pdf"));
            std::fs::write(&out, &bytes).ok()?;
            return Some(out);
        }
        return Some(c);
    }
    None
}

/// `pdftotext` (plain: no -layout) on one page, with words broken at a line end by a hyphen joined again when the
/// next line starts in lower case, as ragsift's own text does.
fn poppler_page(pdf: &Path, n: u32) -> String {
    let out = Command::new("pdftotext")
        .args(["-q", "-f", &n.to_string(), "-l", &n.to_string()])
        .arg(pdf)
        .arg("-")
        .output();
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let mut joined = String::with_capacity(text.len());
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let next_lower = lines
            .get(i + 1)
            .and_then(|l| l.trim_start().chars().next())
            .is_some_and(char::is_lowercase);
        let trimmed = line.trim_end();
        let hyphen = trimmed.ends_with('-')
            && trimmed[..trimmed.len() - 1]
                .chars()
                .last()
                .is_some_and(char::is_alphabetic);
        if hyphen && next_lower {
            joined.push_str(&trimmed[..trimmed.len() - 1]);
        } else {
            joined.push_str(line);
            joined.push('\n');
        }
    }
    joined
}

mod measure;
use measure::{cell_found, counts_as_furniture, furniture_left, merged_tokens};

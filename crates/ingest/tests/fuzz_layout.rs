//! The reading-order layout under hostile input: layout mutants of the multi-column fixtures (positions shifted,
//! swapped, negated, huge or not numbers, fonts scaled to nothing or to absurd sizes, text blocks duplicated and
//! overlapped, streams cut) each end in text or a typed error within a time bound for their size, and synthetic
//! glyph sets (20,000 glyphs at random, on one baseline, at one point, with sizes 0, NaN and infinity) are laid
//! out without a panic. Growth is checked by ratios, not clocks: 4× the glyphs (or a page drawn 4 times) must cost
//! at most 8× the time (linear is ≈ 4×, quadratic ≈ 16×), each time the fastest of a few runs.
//!
//! `RAGSIFT_FUZZ_LAYOUT=N` runs N layout mutants per fixture (default 40), `RAGSIFT_FUZZ_LAYOUT_SECS=S` runs them for
//! S seconds; byte-level mutants of the same fixtures follow, a quarter as many.

use ragsift_ingest::extract::{extract_bytes, layout_text, Glyph, Limits};
use ragsift_ingest::fuzz::{self, Budget, FuzzReport};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The tests here run one at a time, so that the timed ones are not slowed by the others.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Layout mutants per fixture by default: about 20 s in a debug build on two cores.
const DEFAULT_MUTANTS: u64 = 40;

const LIMITS: Limits = Limits {
    max_file_mb: 50,
    timeout: Duration::from_secs(60),
};

fn fixtures() -> PathBuf {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").to_string());
    Path::new(&root).join("../../fixtures/multicolumn")
}

/// The 6 multi-column PDFs (24 pages from 6 producers), by name.
fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(fixtures())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .map(|p| (p.to_string_lossy().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    seeds.sort();
    assert_eq!(seeds.len(), 6);
    seeds
}

fn env(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// The time `f` takes, the fastest of `runs` batches (the least disturbed by whatever else the machine does).
fn fastest(runs: usize, reps: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed()
        })
        .min()
        .unwrap()
}

/// How many times longer `big` takes than `small`: each the fastest of 4 batches, interleaved, a batch repeating
/// its call until the small one takes 50 ms or more, so that scheduling noise is small against it.
fn ratio(mut small: impl FnMut(), mut big: impl FnMut()) -> f64 {
    let once = fastest(1, 1, &mut small).max(Duration::from_micros(10));
    let reps = (0.05 / once.as_secs_f64()).ceil().clamp(1.0, 1000.0) as usize;
    let (mut a, mut b) = (Duration::MAX, Duration::MAX);
    for _ in 0..4 {
        a = a.min(fastest(1, reps, &mut small));
        b = b.min(fastest(1, reps, &mut big));
    }
    b.as_secs_f64() / a.as_secs_f64().max(1e-9)
}

fn print(name: &str, report: &FuzzReport, seeds: &[(String, Vec<u8>)], elapsed: Duration) {
    println!(
        "{name} fuzz: {} mutants in {:.1} s: text {}, typed errors {} {:?}, panics {}, hangs {}",
        report.inputs,
        elapsed.as_secs_f64(),
        report.text,
        report.errors,
        report.kinds,
        report.panics,
        report.hangs
    );
    if let Some(s) = report.slowest {
        println!(
            "slowest for its size: {} round {} ({} bytes) in {:.2} s",
            seeds[s.seed].0,
            s.round,
            s.bytes,
            s.elapsed.as_secs_f64()
        );
    }
    for (seed, round) in &report.failures {
        println!("failure: {} round {round}", seeds[*seed].0);
    }
}

#[test]
fn layout_mutants_of_multicolumn_pages_end_in_text_or_typed_errors() {
    let _serial = serial();
    ragsift_ingest::extract::install_quiet_panic_hook();
    let seeds = seeds();
    let budget = match (env("RAGSIFT_FUZZ_LAYOUT_SECS"), env("RAGSIFT_FUZZ_LAYOUT")) {
        (Some(secs), _) => Budget::Time(Duration::from_secs(secs)),
        (None, n) => Budget::Inputs(n.unwrap_or(DEFAULT_MUTANTS) as usize * seeds.len()),
    };
    // Layout mutations, then (a quarter as many) the byte-level ones, on the same seeds.
    let bytes_budget = match budget {
        Budget::Time(t) => Budget::Time(t / 4),
        Budget::Inputs(n) => Budget::Inputs(n / 4),
    };
    for (name, budget, mutator) in [
        ("layout", budget, fuzz::mutate_layout as fn(&[u8], u64) -> Vec<u8>),
        ("bytes", bytes_budget, fuzz::mutate),
    ] {
        let start = Instant::now();
        let report = fuzz::run_with(&seeds, budget, LIMITS, mutator);
        print(name, &report, &seeds, start.elapsed());
        assert_eq!((report.panics, report.hangs), (0, 0), "{name}: {report:?}");
        assert!(report.inputs >= seeds.len() && report.text > 0, "{name}: {report:?}");
        // Every mutant within 20 s per 64 KiB (plus 64 KiB): a page of text takes well under a second in a debug
        // build, the 60 s timeout is the hang threshold.
        let s = report.slowest.unwrap();
        let bound = Duration::from_secs_f64(20.0 * (s.bytes + 65_536) as f64 / 65_536.0);
        assert!(
            s.elapsed <= bound,
            "{} round {}: {:?} > {bound:?}",
            seeds[s.seed].0,
            s.round,
            s.elapsed
        );
    }
}

/// The mutations are the same on every machine, keep the file a PDF that lopdf opens, and reach the layout: most
/// change the text read.
#[test]
fn layout_mutations_are_deterministic_pdfs_that_change_the_text() {
    let _serial = serial();
    ragsift_ingest::extract::install_quiet_panic_hook();
    let (_, seed) = seeds()
        .into_iter()
        .find(|(n, _)| n.ends_with("reportlab_frames.pdf"))
        .unwrap();
    assert_eq!(fuzz::mutate_layout(&seed, 3), fuzz::mutate_layout(&seed, 3));
    let text = |bytes: Vec<u8>| -> Option<Vec<String>> {
        let ex = extract_bytes(Path::new("a.pdf"), bytes, LIMITS).ok()?;
        Some(ex.pages.into_iter().map(|p| p.text).collect())
    };
    let original = text(seed.clone());
    let (mut opened, mut changed) = (0, 0);
    for round in 0..20 {
        let mutant = fuzz::mutate_layout(&seed, round);
        opened += usize::from(mutant != seed && lopdf::Document::load_mem(&mutant).is_ok());
        changed += usize::from(text(mutant) != original);
    }
    assert!(
        opened >= 15 && changed >= 12,
        "{opened} of 20 open, {changed} change the text"
    );
}

/// The first page alone, its content stream drawn `copies` times: stacked down the page (`dy` = -800: a page 4
/// times as long) or over itself (`dy` ≈ 0: text drawn again, as for boldness).
fn drawn(seed: &[u8], copies: usize, dx: f64, dy: f64) -> Vec<u8> {
    let mut doc = lopdf::Document::load_mem(seed).unwrap();
    let rest: Vec<u32> = doc.get_pages().into_keys().skip(1).collect();
    doc.delete_pages(&rest);
    for page in doc.get_pages().into_values() {
        let content = doc.get_page_content(page).unwrap();
        let mut out = Vec::new();
        for k in 0..copies {
            out.extend(format!("q 1 0 0 1 {} {} cm\n", dx * k as f64, dy * k as f64).bytes());
            out.extend_from_slice(&content);
            out.extend(b"\nQ\n");
        }
        let ids = doc.get_page_contents(page);
        let stream = doc.get_object_mut(ids[0]).unwrap().as_stream_mut().unwrap();
        stream.set_plain_content(out);
        for &id in &ids[1..] {
            doc.get_object_mut(id)
                .unwrap()
                .as_stream_mut()
                .unwrap()
                .set_plain_content(Vec::new());
        }
    }
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// A real page's glyphs 4 times over cost about 4 times as much, whether the copies stack down the page or lie
/// over each other: no step of extraction and layout grows quadratically with the glyphs of a page.
#[test]
fn pages_drawn_four_times_cost_about_four_times_as_much() {
    let _serial = serial();
    for (name, seed) in seeds() {
        let name = Path::new(&name).file_name().unwrap().to_string_lossy().to_string();
        let one = drawn(&seed, 1, 0.0, 0.0);
        let extract = |bytes: &[u8]| {
            let ex = extract_bytes(Path::new("a.pdf"), bytes.to_vec(), LIMITS).unwrap();
            assert!(!ex.pages.is_empty());
        };
        for (how, dx, dy) in [("stacked", 0.0, -800.0), ("overlapping", 0.4, -0.3)] {
            let four = drawn(&seed, 4, dx, dy);
            let r = ratio(|| extract(&one), || extract(&four));
            println!("{name}: drawn 4× {how}: {r:.2}× the time");
            assert!(r <= 8.0, "{name}: drawn 4× {how} took {r:.2}× as long");
        }
    }
}

fn glyph(x: f64, y: f64, size: f64, text: &str) -> Glyph {
    Glyph {
        x,
        y,
        size,
        width: 0.5 * size,
        text: text.into(),
        turn: 0,
    }
}

const LETTERS: [&str; 8] = ["a", "e", "t", "n", "o", "1", "-", "é"];

/// `n` glyphs laid out as `shape` says, the same on every run.
fn glyphs(shape: &str, n: usize) -> Vec<Glyph> {
    let mut rng = ragsift_core::rng::SplitMix64::new(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let (r1, r2) = (rng.uniform(), rng.uniform());
        let text = LETTERS[i % LETTERS.len()];
        out.push(match shape {
            "random" => glyph(r1 * 612.0, r2 * 792.0, 4.0 + 20.0 * rng.uniform(), text),
            "one baseline" => glyph(r1 * 612.0, 400.0, 10.0, text),
            "one point" => glyph(300.0, 400.0, 10.0, text),
            "one column" => glyph(72.0 + (i % 80) as f64 * 6.0, 700.0 - (i / 80) as f64 * 12.0, 10.0, text),
            // Two columns of 40-glyph lines, words of 5, one line per 12 pt, as long as the glyphs last.
            "two columns" => {
                let (line, k) = (i / 40, i % 40);
                let x = if line % 2 == 0 { 72.0 } else { 320.0 } + k as f64 * 5.5 + (k / 5) as f64 * 3.0;
                glyph(x, 700.0 - (line / 2) as f64 * 12.0, 10.0, text)
            }
            // Every glyph a run of its own over the last (the same few places drawn again and again).
            "overlapping" => glyph((i % 50) as f64 * 5.0 + r1, 400.0 + r2, 10.0, text),
            "far apart" => glyph(r1 * 1e12 - 5e11, r2 * 1e12 - 5e11, 10.0, text),
            "sizes" => {
                let size = [0.0, -1.0, f64::NAN, f64::INFINITY, 1e-300, 1e300, 10.0][i % 7];
                glyph(r1 * 612.0, r2 * 792.0, size, text)
            }
            "positions" => {
                let v = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 1e308, 5.0][i % 6];
                Glyph {
                    x: if i % 2 == 0 { v } else { r1 * 612.0 },
                    y: if i % 3 == 0 { v } else { r2 * 792.0 },
                    size: 10.0,
                    width: [f64::NAN, -5.0, 1e308, 5.0][i % 4],
                    text: text.into(),
                    turn: [0, 90, -90, 180, 45, -137][i % 6],
                }
            }
            _ => unreachable!(),
        });
    }
    out
}

const SHAPES: [&str; 9] = [
    "random",
    "one baseline",
    "one point",
    "one column",
    "two columns",
    "overlapping",
    "far apart",
    "sizes",
    "positions",
];

/// Hostile glyph sets are laid out without a panic, and their text keeps the glyphs it can place.
#[test]
fn hostile_glyph_sets_are_laid_out_without_a_panic() {
    let _serial = serial();
    for shape in SHAPES {
        let gs = glyphs(shape, 20_000);
        let started = Instant::now();
        let text = std::panic::catch_unwind(|| layout_text(&gs)).unwrap_or_else(|_| panic!("{shape}: panicked"));
        println!(
            "{shape}: 20,000 glyphs in {:.0} ms, {} chars",
            started.elapsed().as_secs_f64() * 1e3,
            text.len()
        );
        if !matches!(shape, "sizes" | "positions") {
            assert!(!text.trim().is_empty(), "{shape}");
        }
    }
    for empty in [
        vec![],
        vec![glyph(0.0, 0.0, 10.0, "")],
        vec![glyph(0.0, 0.0, 10.0, " \u{0}")],
    ] {
        assert_eq!(layout_text(&empty), "");
    }
}

/// Layout time grows about linearly: 20,000 glyphs cost at most 8 times as much as 5,000, in every shape.
#[test]
fn layout_time_grows_about_linearly_with_the_glyphs() {
    let _serial = serial();
    for shape in SHAPES {
        let (small, big) = (glyphs(shape, 5_000), glyphs(shape, 20_000));
        let r = ratio(|| drop(layout_text(&small)), || drop(layout_text(&big)));
        println!("{shape}: 20,000 glyphs take {r:.2}× the time of 5,000");
        assert!(r <= 8.0, "{shape}: 4× the glyphs took {r:.2}× as long");
    }
}

//! A deterministic mutation fuzzer for the loaders (cargo-fuzz needs a nightly toolchain this project does not
//! install): seeded with real files, it flips bits, overwrites, truncates, duplicates and deletes byte ranges and
//! rewrites numbers, then extracts each mutant with the production limits. Every input must end in text or a typed
//! error: a panic that escapes a loader or a run past the extraction timeout is counted as a failure.
//! [`mutate_layout`] (in `layout`) rewrites the text placement inside decompressed page content instead, for
//! the reading-order layout.

use crate::extract::{extract_bytes, Limits};
use crate::Error;
/// The mutants' generator: the same on every machine, so a `(seed, round)` names one input for good.
use ragsift_core::rng::SplitMix64 as Rng;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

mod layout;

pub use layout::mutate_layout;

/// What a fuzz run tried and found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FuzzReport {
    /// Mutants extracted.
    pub inputs: usize,
    /// Mutants that gave text.
    pub text: usize,
    /// Mutants that gave a typed error.
    pub errors: usize,
    /// Mutants whose loader panicked past its own guards (the error says the parser crashed).
    pub panics: usize,
    /// Mutants that ran past the extraction timeout.
    pub hangs: usize,
    /// Mutants whose extraction worker died or ran out of memory (only with workers installed: the fuzzing
    /// process itself goes on).
    pub worker_deaths: usize,
    /// The seed index and mutation round of each panic or hang, to reproduce it.
    pub failures: Vec<(usize, u64)>,
    /// Typed errors by their code (`corrupt`, `no_text`, ...).
    pub kinds: BTreeMap<&'static str, usize>,
    /// The mutant that took longest for its size (time over 64 KiB plus its bytes), to bound the time per file.
    pub slowest: Option<Slowest>,
}

/// One mutant's extraction time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slowest {
    /// The seed index and mutation round.
    pub seed: usize,
    pub round: u64,
    /// The mutant's size.
    pub bytes: usize,
    pub elapsed: Duration,
}

impl Slowest {
    /// Time per byte, with 64 KiB added so that a tiny file's fixed costs do not dominate.
    fn rate(&self) -> f64 {
        self.elapsed.as_secs_f64() / (self.bytes + 65_536) as f64
    }
}

/// One to three mutations of `seed`.
pub fn mutate(seed: &[u8], round: u64) -> Vec<u8> {
    let mut rng = Rng::new(round);
    let mut b = seed.to_vec();
    for _ in 0..=rng.below(3) {
        let len = b.len().max(1);
        let at = rng.below(len);
        match rng.below(7) {
            0 => {
                for _ in 0..=rng.below(8) {
                    let i = rng.below(b.len());
                    if let Some(x) = b.get_mut(i) {
                        *x ^= 1 << rng.below(8);
                    }
                }
            }
            1 => {
                let n = rng.below(64).min(b.len().saturating_sub(at));
                for x in &mut b[at..at + n] {
                    *x = (rng.next_u64() & 0xff) as u8;
                }
            }
            2 => b.truncate(at),
            3 => {
                let n = rng.below(512).min(b.len().saturating_sub(at));
                let copy = b[at..at + n].to_vec();
                let to = rng.below(b.len());
                b.splice(to..to, copy);
            }
            4 => {
                let n = rng.below(256).min(b.len().saturating_sub(at));
                b.drain(at..at + n);
            }
            5 => {
                // A number token (an offset, a length, a count, a width) becomes an extreme one.
                if let Some(start) = (at..b.len()).find(|&i| b[i].is_ascii_digit()) {
                    let end = (start..b.len()).find(|&i| !b[i].is_ascii_digit()).unwrap_or(b.len());
                    let extreme: &[u8] = [&b"0"[..], b"-1", b"4294967296", b"99999999999", b"1e308"][rng.below(5)];
                    b.splice(start..end, extreme.iter().copied());
                }
            }
            _ => {
                // A keyword swapped for another, so the structure is valid-looking but wrong.
                const WORDS: [&[u8]; 8] = [
                    b"obj",
                    b"endobj",
                    b"stream",
                    b"endstream",
                    b"xref",
                    b"trailer",
                    b"/Length",
                    b"R",
                ];
                let w = WORDS[rng.below(WORDS.len())];
                b.splice(at.min(b.len())..at.min(b.len()), w.iter().copied());
            }
        }
    }
    b
}

/// How long a run goes: for a time (benchmarks), or for a fixed number of mutants (tests: the same inputs on every
/// machine, however fast).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    Time(Duration),
    Inputs(usize),
}

/// Extracts mutants of every seed in turn until `budget` is spent (at least one per seed); `limits.timeout` is the
/// hang threshold.
pub fn run(seeds: &[(String, Vec<u8>)], budget: Budget, limits: Limits) -> FuzzReport {
    run_with(seeds, budget, limits, mutate)
}

/// [`run`] with another mutator, e.g. [`mutate_layout`].
pub fn run_with(
    seeds: &[(String, Vec<u8>)],
    budget: Budget,
    limits: Limits,
    mutator: fn(&[u8], u64) -> Vec<u8>,
) -> FuzzReport {
    let mut report = FuzzReport::default();
    if seeds.is_empty() {
        return report;
    }
    let start = Instant::now();
    let mut round = 0u64;
    let more = |inputs: usize| match budget {
        Budget::Time(t) => start.elapsed() < t,
        Budget::Inputs(n) => inputs < n,
    };
    while report.inputs < seeds.len() || more(report.inputs) {
        let (i, (name, seed)) = (round as usize % seeds.len(), &seeds[round as usize % seeds.len()]);
        let input = mutator(seed, round);
        report.inputs += 1;
        let (bytes, began) = (input.len(), Instant::now());
        let result = if crate::worker::installed() {
            in_worker(name, &input, limits)
        } else {
            extract_bytes(Path::new(name), input, limits)
        };
        let time = Slowest {
            seed: i,
            round,
            bytes,
            elapsed: began.elapsed(),
        };
        if report.slowest.is_none_or(|s| s.rate() < time.rate()) {
            report.slowest = Some(time);
        }
        match result {
            Ok(_) => report.text += 1,
            Err(Error::Timeout { .. }) => {
                report.hangs += 1;
                report.failures.push((i, round));
            }
            Err(Error::Hostile { .. }) => {
                report.worker_deaths += 1;
                report.failures.push((i, round));
            }
            Err(Error::Corrupt { detail, .. }) if detail == crate::extract::PARSER_CRASHED => {
                report.panics += 1;
                report.failures.push((i, round));
            }
            Err(e) => {
                report.errors += 1;
                *report.kinds.entry(e.code()).or_default() += 1;
            }
        }
        round += 1;
    }
    report
}

/// A mutant extracted by a worker, as ingest does: written to a temp file named like its seed.
fn in_worker(name: &str, input: &[u8], limits: Limits) -> crate::Result<crate::extract::Extracted> {
    let ext = Path::new(name).extension().and_then(|e| e.to_str()).unwrap_or("pdf");
    let mut file = tempfile::Builder::new()
        .suffix(&format!(".{ext}"))
        .tempfile()
        .map_err(|e| Error::io(name, e))?;
    std::io::Write::write_all(&mut file, input).map_err(|e| Error::io(name, e))?;
    crate::worker::extract_isolated(file.path(), limits, None, &|_, _| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_change_the_input() {
        let seed = b"%PDF-1.4\n1 0 obj\n<< /Length 12 >>\nstream\nhello world\nendstream\nendobj\n".to_vec();
        assert_eq!(mutate(&seed, 7), mutate(&seed, 7));
        let changed = (0..50).filter(|&r| mutate(&seed, r) != seed).count();
        assert!(changed >= 45, "{changed}");
    }
}

//! rag-jev's paired bootstrap (`paired_interval` in `src/rag_jev/calibration.py` @fa73e740): differences
//! resampled by family, with Python's own generator so a seed gives rag-jev's draws exactly.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::mean;

/// rag-jev's bootstrap seed (`random.Random(20260919)`).
pub const SEED: u64 = 20_260_919;
/// rag-jev's number of bootstrap draws.
pub const DRAWS: usize = 2_000;

/// What [`paired_interval`] says about the interval's scope, in rag-jev's words.
pub const INTERVAL_SCOPE: &str =
    "Descriptive paired bootstrap of supplied families (else questions); query-weighted mean, 2,000 draws";
/// The scope when there are fewer than two families (no interval).
pub const TOO_FEW_UNITS: &str = "Too few independent families for an interval";

/// rag-jev's paired difference: the mean of `selected − baseline` per question, and its bootstrap 95% interval
/// over the independent units (families, else questions).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PairedInterval {
    /// Mean per-question difference (selected minus baseline).
    pub delta: f64,
    /// The 2.5th and 97.5th percentiles of the bootstrap means; `None` with fewer than two units.
    pub ci95: Option<[f64; 2]>,
    pub questions: usize,
    pub independent_units: usize,
    pub scope: String,
}

/// Python's `random.Random` (MT19937, seeded by `init_by_array` from the seed's 32-bit words, `random()` with
/// 53-bit resolution), so that a seed draws the same numbers as in rag-jev.
pub struct PythonRandom {
    state: [u32; 624],
    index: usize,
}

impl PythonRandom {
    /// `random.Random(seed)` for a non-negative integer seed.
    pub fn new(seed: u64) -> Self {
        let mut key = vec![seed as u32];
        if seed > u64::from(u32::MAX) {
            key.push((seed >> 32) as u32);
        }
        let mut rng = PythonRandom {
            state: [0; 624],
            index: 624,
        };
        rng.init_by_array(&key);
        rng
    }

    fn init_genrand(&mut self, seed: u32) {
        self.state[0] = seed;
        for i in 1..624 {
            let prev = self.state[i - 1];
            self.state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        self.index = 624;
    }

    fn init_by_array(&mut self, key: &[u32]) {
        const N: usize = 624;
        self.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = self.state[i - 1];
            self.state[i] = (self.state[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                self.state[0] = self.state[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = self.state[i - 1];
            self.state[i] = (self.state[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                self.state[0] = self.state[N - 1];
                i = 1;
            }
        }
        self.state[0] = 0x8000_0000;
    }

    fn next_u32(&mut self) -> u32 {
        const N: usize = 624;
        const M: usize = 397;
        if self.index >= N {
            for k in 0..N {
                let y = (self.state[k] & 0x8000_0000) | (self.state[(k + 1) % N] & 0x7fff_ffff);
                let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.state[k] = self.state[(k + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()`: a float in [0, 1) with 53 random bits.
    pub fn random(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// One index of `choices(population, k=…)` without weights: `floor(random() * n)`.
    pub fn choice_index(&mut self, n: usize) -> usize {
        ((self.random() * n as f64).floor() as usize).min(n.saturating_sub(1))
    }
}

/// The per-case differences grouped by family, groups in order of first appearance (as rag-jev's dict).
fn groups(differences: &[f64], families: &[String]) -> Vec<Vec<f64>> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut groups: Vec<Vec<f64>> = Vec::new();
    for (d, f) in differences.iter().zip(families) {
        let at = *index.entry(f.as_str()).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[at].push(*d);
    }
    groups
}

/// The bootstrap 95% interval of the mean difference, resampling whole families: each of `draws` draws picks as
/// many families as there are, with replacement (Python's `random.Random(seed).choices`), and takes the mean over
/// every question in the picked families; the interval is the sorted draws at ranks 2.5% and 97.5% (indices 49
/// and 1,949 of 2,000, as rag-jev). Cases of one family always enter or leave a draw together. `None` with fewer
/// than two families, no draws, or `families` not one per difference.
pub fn bootstrap_interval(differences: &[f64], families: &[String], seed: u64, draws: usize) -> Option<(f64, f64)> {
    if families.len() != differences.len() || draws == 0 {
        return None;
    }
    let groups = groups(differences, families);
    if groups.len() < 2 {
        return None;
    }
    let mut rng = PythonRandom::new(seed);
    let mut means: Vec<f64> = (0..draws)
        .map(|_| {
            let picked: Vec<usize> = (0..groups.len()).map(|_| rng.choice_index(groups.len())).collect();
            mean(picked.iter().flat_map(|&g| groups[g].iter().copied())).unwrap_or(0.0)
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let rank = |q: f64| ((draws as f64 * q).round() as usize).clamp(1, draws) - 1;
    Some((means[rank(0.025)], means[rank(0.975)]))
}

/// rag-jev's `paired_interval`: differences `selected[i] − baseline[i]`, grouped by `families` (one label per
/// question; `None` makes every question its own unit), with rag-jev's seed and 2,000 draws. `None` when the
/// lists are empty or of different lengths.
pub fn paired_interval(baseline: &[f64], selected: &[f64], families: Option<&[String]>) -> Option<PairedInterval> {
    if baseline.is_empty() || baseline.len() != selected.len() {
        return None;
    }
    let differences: Vec<f64> = baseline.iter().zip(selected).map(|(a, b)| b - a).collect();
    let own: Vec<String>;
    let families = match families {
        Some(f) if f.len() == differences.len() => f,
        Some(_) => return None,
        None => {
            own = (0..differences.len()).map(|i| i.to_string()).collect();
            &own
        }
    };
    let units = groups(&differences, families).len();
    let ci95 = bootstrap_interval(&differences, families, SEED, DRAWS).map(|(lo, hi)| [lo, hi]);
    Some(PairedInterval {
        delta: mean(differences.iter().copied()).unwrap_or(0.0),
        scope: if ci95.is_some() { INTERVAL_SCOPE } else { TOO_FEW_UNITS }.to_string(),
        ci95,
        questions: differences.len(),
        independent_units: units,
    })
}

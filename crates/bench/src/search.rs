//! Vector search benchmark: usearch HNSW QPS and recall@10 at several `expansion_search` widths vs an exact
//! scan (brute-force dot products) over the same clustered unit vectors.

use ragsift_engine::{Error, Result};
use std::time::Instant;

const DIMS: usize = 384;
const K: usize = 10;

pub fn run(n: usize, nq: usize) -> Result<()> {
    let (data, queries, clusters) = clustered(0x2545F4914F6CDD1D, n, nq);
    println!("\n## vector search: {n} × {DIMS} clustered unit vectors ({clusters} clusters), {nq} queries, top-{K}, 1 thread");

    let options = usearch::IndexOptions {
        dimensions: DIMS,
        metric: usearch::MetricKind::Cos,
        quantization: usearch::ScalarKind::F32,
        ..Default::default()
    };
    let index = usearch::Index::new(&options).map_err(|e| Error::Index(e.to_string()))?;
    index.reserve(n).map_err(|e| Error::Index(e.to_string()))?;
    let t = Instant::now();
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    std::thread::scope(|s| {
        for w in 0..threads {
            let (index, data) = (&index, &data);
            s.spawn(move || {
                for (i, v) in data.iter().enumerate().skip(w).step_by(threads) {
                    index.add(i as u64, v).expect("add");
                }
            });
        }
    });
    println!("usearch build: {:.1} s ({threads} threads)", t.elapsed().as_secs_f64());

    let t = Instant::now();
    let truth: Vec<Vec<u64>> = queries.iter().map(|q| exact(&data, q)).collect();
    let exact_qps = nq as f64 / t.elapsed().as_secs_f64();
    println!("{:<28} {:>10} {:>12}", "method", "QPS", "recall@10");
    println!("{:<28} {:>10.0} {:>12.3}", "exact scan (baseline)", exact_qps, 1.0);
    // usearch's own SIMD brute force: what the engine uses below index::EXACT_BELOW vectors.
    let t = Instant::now();
    let mut found = 0usize;
    for (q, truth) in queries.iter().zip(&truth) {
        let m = index.exact_search(q, K).map_err(|e| Error::Index(e.to_string()))?;
        found += m.keys.iter().filter(|k| truth.contains(k)).count();
    }
    let qps = nq as f64 / t.elapsed().as_secs_f64();
    println!(
        "{:<28} {:>10.0} {:>12.3}",
        "usearch exact_search",
        qps,
        found as f64 / (nq * K) as f64
    );
    for ef in [16usize, 64, 128, 256] {
        index.change_expansion_search(ef);
        let t = Instant::now();
        let mut found = 0usize;
        for (q, truth) in queries.iter().zip(&truth) {
            let m = index.search(q, K).map_err(|e| Error::Index(e.to_string()))?;
            found += m.keys.iter().filter(|k| truth.contains(k)).count();
        }
        let qps = nq as f64 / t.elapsed().as_secs_f64();
        let recall = found as f64 / (nq * K) as f64;
        println!(
            "{:<28} {:>10.0} {:>12.3}",
            format!("usearch expansion_search={ef}"),
            qps,
            recall
        );
    }
    Ok(())
}

/// `n` unit vectors scattered around `n / 50` random centroids (relative spread 0.6) and `nq` queries from the same
/// distribution; also the number of clusters.
pub(crate) fn clustered(seed: u64, n: usize, nq: usize) -> (Vec<Vec<f32>>, Vec<Vec<f32>>, usize) {
    let mut rng = Rng(seed);
    let centroids: Vec<Vec<f32>> = (0..(n / 50).max(1)).map(|_| unit(&mut rng, None, 0.0)).collect();
    let data = (0..n)
        .map(|i| unit(&mut rng, Some(&centroids[i % centroids.len()]), 0.6))
        .collect();
    let queries = (0..nq)
        .map(|i| unit(&mut rng, Some(&centroids[(i * 7919) % centroids.len()]), 0.6))
        .collect();
    (data, queries, centroids.len())
}

/// Top-K keys by dot product (vectors are unit length, so this is cosine).
pub(crate) fn exact(data: &[Vec<f32>], q: &[f32]) -> Vec<u64> {
    let mut best: Vec<(f32, u64)> = Vec::with_capacity(K + 1);
    for (i, v) in data.iter().enumerate() {
        let s: f32 = v.iter().zip(q).map(|(a, b)| a * b).sum();
        if best.len() < K || s > best[best.len() - 1].0 {
            let pos = best.partition_point(|(x, _)| *x >= s);
            best.insert(pos, (s, i as u64));
            best.truncate(K);
        }
    }
    best.into_iter().map(|(_, k)| k).collect()
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn gauss(&mut self) -> f32 {
        let (u, v) = (self.next().max(1e-12), self.next());
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
}

/// A random unit vector, or one scattered around `center` with relative noise `spread`.
fn unit(rng: &mut Rng, center: Option<&Vec<f32>>, spread: f32) -> Vec<f32> {
    let sigma = spread / (DIMS as f32).sqrt();
    let mut v: Vec<f32> = match center {
        Some(c) => c.iter().map(|x| x + sigma * rng.gauss()).collect(),
        None => (0..DIMS).map(|_| rng.gauss()).collect(),
    };
    ragsift_engine::embed::normalize(&mut v);
    v
}

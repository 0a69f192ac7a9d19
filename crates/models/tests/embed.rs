//! The ONNX embedding model installed by scripts/setup.sh: unit vectors, and similar texts closer than unrelated ones.

mod common;

use common::embedder;
use ragsift_models::Embedder;

#[test]
fn embeddings_are_unit_vectors_and_similar_texts_are_close() {
    let e = embedder();
    let v = e
        .embed(&[
            "The warranty lasts two years.",
            "How long is the guarantee?",
            "Tide pools host anemones.",
        ])
        .unwrap();
    assert_eq!(v.len(), 3);
    assert!(v.iter().all(|x| x.len() == 384));
    let norm: f32 = v[0].iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4);
    let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    assert!(dot(&v[0], &v[1]) > dot(&v[0], &v[2]) + 0.1, "related texts are closer");
}

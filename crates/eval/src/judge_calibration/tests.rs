//! Tests of judge calibration on synthetic judges with known miscalibration.

use super::*;
use ragsift_core::rng::SplitMix64 as Rng;

/// n raw probabilities spread over (0, 1), labels drawn from `truth(p)`.
fn synthetic(n: usize, seed: u64, truth: impl Fn(f64) -> f64) -> (Vec<f64>, Vec<bool>) {
    let mut rng = Rng::new(seed);
    let p: Vec<f64> = (0..n).map(|_| 0.01 + 0.98 * rng.uniform()).collect();
    let y = p.iter().map(|&pi| rng.uniform() < truth(pi)).collect();
    (p, y)
}

#[test]
fn auc_counts_ties_half() {
    assert_eq!(auc(&[0.1, 0.9], &[false, true]), Some(1.0));
    assert_eq!(auc(&[0.9, 0.1], &[false, true]), Some(0.0));
    assert_eq!(auc(&[0.5, 0.5], &[false, true]), Some(0.5));
    // Positives 0.8, 0.4; negatives 0.4, 0.2: pairs (0.8>0.4)=1, (0.8>0.2)=1, (0.4=0.4)=½, (0.4>0.2)=1.
    assert_eq!(auc(&[0.8, 0.4, 0.4, 0.2], &[true, true, false, false]), Some(3.5 / 4.0));
    assert_eq!(auc(&[0.1, 0.2], &[true, true]), None);
}

#[test]
fn brier_and_bins_add_up() {
    assert_eq!(brier(&[1.0, 0.0, 0.5], &[true, false, true]), Some(0.25 / 3.0));
    assert_eq!(brier(&[], &[]), None);
    let (p, y) = synthetic(537, 7, |p| p);
    let bins = reliability_bins(&p, &y);
    assert_eq!(bins.iter().map(|b| b.n as usize).sum::<usize>(), p.len());
    assert!(bins.iter().all(|b| b.n > 0));
    let edges = reliability_bins(&[0.0, 0.1, 0.95, 1.0], &[false, false, true, true]);
    assert_eq!(
        edges.iter().map(|b| b.n).collect::<Vec<_>>(),
        [1, 1, 2],
        "1.0 falls in the last bin"
    );
    assert_eq!(edges[2].frac_positive, 1.0);
}

#[test]
fn platt_recovers_a_known_miscalibration() {
    let (a, b) = (2.0, -0.7);
    let (p, y) = synthetic(20_000, 42, |p| sigmoid(a * logit(p) + b));
    let Some(Calibrator::Platt { a: fa, b: fb }) = fit_platt(&p, &y) else {
        panic!("no fit")
    };
    assert!((fa - a).abs() < 0.1 && (fb - b).abs() < 0.1, "a {fa}, b {fb}");
    let fit = calibrate_question(&p, &y);
    assert_eq!(fit.report.method, Method::Platt, "{:?}", fit.report.note);
    assert!(fit.report.brier_calibrated.unwrap() < fit.report.brier_raw.unwrap() - 0.005);
    let bins = &fit.report.bins_calibrated;
    assert!(
        bins.iter()
            .filter(|b| b.n >= 200)
            .all(|b| (b.p_mean - b.frac_positive).abs() < 0.06),
        "{bins:?}"
    );
}

#[test]
fn separable_labels_give_a_finite_platt_fit() {
    let p: Vec<f64> = (0..20).map(|i| f64::from(i) / 20.0).collect();
    let y: Vec<bool> = (0..20).map(|i| i >= 10).collect();
    let Some(Calibrator::Platt { a, b }) = fit_platt(&p, &y) else {
        panic!("no fit")
    };
    assert!(a.is_finite() && b.is_finite() && a > 1.0, "a {a} b {b}");
    let backwards: Vec<bool> = y.iter().map(|v| !v).collect();
    assert_eq!(
        fit_platt(&p, &backwards),
        None,
        "a fit that reverses the order is refused"
    );
}

#[test]
fn isotonic_is_monotone_and_fixes_a_step() {
    // The truth jumps at 0.6: 0.1 below, 0.9 above; the raw p says nothing of it.
    let (p, y) = synthetic(3000, 9, |p| if p < 0.6 { 0.1 } else { 0.9 });
    let c = fit_isotonic(&p, &y);
    let Calibrator::Isotonic { x, y: v } = &c else { panic!() };
    assert!(x.windows(2).all(|w| w[0] < w[1]) && v.windows(2).all(|w| w[0] < w[1]));
    let grid: Vec<f64> = (0..=1000).map(|i| f64::from(i) / 1000.0).collect();
    assert!(grid.windows(2).all(|w| c.apply(w[0]) <= c.apply(w[1])));
    let fit = calibrate_question(&p, &y);
    assert_eq!(fit.report.method, Method::Isotonic, "{:?}", fit.report.note);
    assert!(fit.report.brier_calibrated.unwrap() < fit.report.brier_raw.unwrap() - 0.02);
    assert!((fit.calibrator.apply(0.3) - 0.1).abs() < 0.07 && (fit.calibrator.apply(0.8) - 0.9).abs() < 0.07);
}

/// Also guards the fold assignment: folds dealt in order of p leaked the held-out labels and made isotonic
/// "beat" the true probabilities on every seed.
#[test]
fn a_calibrated_judge_keeps_none() {
    for seed in [1, 2, 3, 4, 5, 6, 7, 8] {
        let (p, y) = synthetic(2000, seed, |p| p);
        let fit = calibrate_question(&p, &y);
        let r = &fit.report;
        assert!(
            r.brier_calibrated.unwrap() <= r.brier_raw.unwrap(),
            "seed {seed}: {:?}",
            r.note
        );
        assert_eq!(r.method, Method::None, "seed {seed}: {:?}", r.note);
    }
}

#[test]
fn too_few_labels_or_one_class_invent_no_fit() {
    let few = calibrate_question(&[0.2, 0.8, 0.4], &[false, true, true]);
    assert_eq!((few.report.method, few.calibrator), (Method::None, Calibrator::None));
    assert!(few.report.note.unwrap().contains("at least 10"));
    let p: Vec<f64> = (0..30).map(|i| f64::from(i) / 30.0).collect();
    let one = calibrate_question(&p, &[true; 30]);
    assert_eq!(one.report.method, Method::None);
    assert_eq!(one.report.auc, None);
    assert!(one.report.note.unwrap().contains("0 negative"));
}

#[test]
fn raw_thresholds_reproduce_the_decisions() {
    let (p, y) = synthetic(500, 5, |p| sigmoid(1.7 * logit(p) - 0.4));
    let calibrators = [
        Calibrator::None,
        fit_platt(&p, &y).unwrap(),
        fit_isotonic(&p, &y),
        Calibrator::Platt { a: 0.5, b: 3.0 },
    ];
    let mut probe = p.clone();
    probe.extend([0.0, 1.0, 0.5]);
    for c in &calibrators {
        // Probe the raw values themselves and their neighbours too.
        let near: Vec<f64> = (probe.iter())
            .flat_map(|&v| {
                [
                    v,
                    f64::from_bits(v.to_bits().saturating_sub(1)),
                    f64::from_bits(v.to_bits() + 1),
                ]
            })
            .filter(|v| (0.0..=1.0).contains(v))
            .collect();
        for t in [0.05, 0.2, 0.45, 0.55, 0.7, 0.95, c.apply(0.3), c.apply(p[17])] {
            for cmp in [Comparison::AtLeast, Comparison::Above] {
                match c.raw_threshold(t, cmp) {
                    Some(raw) => {
                        assert!((0.0..=1.0).contains(&raw));
                        for &v in &near {
                            assert_eq!(cmp.passes(v, raw), cmp.passes(c.apply(v), t), "{c:?} t {t} v {v}");
                        }
                    }
                    None => {
                        let all = near.iter().all(|&v| cmp.passes(c.apply(v), t));
                        let nothing = near.iter().all(|&v| !cmp.passes(c.apply(v), t));
                        assert!(all || nothing, "{c:?} t {t}");
                    }
                }
            }
        }
    }
    // The identity gives the threshold back.
    assert_eq!(Calibrator::None.raw_threshold(0.45, Comparison::AtLeast), Some(0.45));
    assert_eq!(Calibrator::None.raw_threshold(0.55, Comparison::Above), Some(0.55));
}

#[test]
fn calibrators_serialise_with_their_method() {
    let c = Calibrator::Platt { a: 2.0, b: -1.0 };
    let v = serde_json::to_value(&c).unwrap();
    assert_eq!(v, serde_json::json!({"method": "platt", "a": 2.0, "b": -1.0}));
    assert_eq!(serde_json::from_value::<Calibrator>(v).unwrap(), c);
    let none = serde_json::to_value(Calibrator::None).unwrap();
    assert_eq!(none, serde_json::json!({"method": "none"}));
}

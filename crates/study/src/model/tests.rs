//! The capacity model on seeded simulated data of known σ, κ and λ.

use super::boot::SplitMix;
use super::*;

const TRUTH: Usl = Usl {
    lambda: 100.0,
    sigma: 0.05,
    kappa: 0.0005,
};

fn normal(rng: &mut SplitMix) -> f64 {
    let (u1, u2) = (rng.unit().max(1e-12), rng.unit());
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Steps at `levels` of a closed model, each with `reps` repetitions whose
/// throughput scatters by `spread` (relative standard deviation).
fn simulate(m: &Usl, levels: &[u64], reps: usize, spread: f64, seed: u64) -> Vec<Step> {
    let mut rng = SplitMix::new(seed);
    levels
        .iter()
        .map(|&l| Step {
            level: l,
            runs: (0..reps)
                .map(|_| {
                    let n = l as f64;
                    let x = m.throughput(n) * (1.0 + spread * normal(&mut rng));
                    Obs { n, x, r: n / x }
                })
                .collect(),
        })
        .collect()
}

const LEVELS: [u64; 8] = [1, 4, 8, 16, 24, 32, 48, 64];

#[test]
fn fit_recovers_known_parameters() {
    let steps = simulate(&TRUTH, &LEVELS, 5, 0.02, 1);
    let m = model(&steps, 200, SEED).expect("a model");
    assert!((m.usl.lambda - 100.0).abs() < 5.0, "{:?}", m.usl);
    assert!((m.usl.sigma - 0.05).abs() < 0.02, "{:?}", m.usl);
    assert!((m.usl.kappa / 0.0005 - 1.0).abs() < 0.3, "{:?}", m.usl);
    let (x_true, n_true) = (TRUTH.peak_throughput(), TRUTH.peak_concurrency());
    assert!(
        (m.x_max.mid / x_true - 1.0).abs() < 0.05,
        "{:?} vs {x_true}",
        m.x_max
    );
    assert!(
        (m.n_star.mid / n_true - 1.0).abs() < 0.2,
        "{:?} vs {n_true}",
        m.n_star
    );
    assert!(m.x_max.lo < m.x_max.mid && m.x_max.mid < m.x_max.hi);
    assert!(m.sigma.covers(0.05) && m.kappa.covers(0.0005), "{m:?}");
    let s = sentence(&m, "req/s");
    assert!(s.starts_with("Throughput peaks near "), "{s}");
    assert!(s.contains("coherency"), "{s}");
}

#[test]
fn noiseless_fit_is_exact() {
    let steps = simulate(&TRUTH, &LEVELS, 2, 0.0, 2);
    let u = fit::fit(&boot::weighted(&steps));
    assert!((u.lambda - 100.0).abs() < 1e-3, "{u:?}");
    assert!((u.sigma - 0.05).abs() < 1e-5, "{u:?}");
    assert!((u.kappa - 0.0005).abs() < 1e-7, "{u:?}");
}

#[test]
fn intervals_cover_the_truth_in_nine_of_ten_studies() {
    let truths = [
        TRUTH,
        Usl {
            lambda: 40.0,
            sigma: 0.02,
            kappa: 0.0002,
        },
    ];
    for t in truths {
        let (x_true, n_true) = (t.peak_throughput(), t.peak_concurrency());
        let studies = 40;
        let (mut x_in, mut n_in) = (0, 0);
        for seed in 0..studies {
            let steps = simulate(&t, &LEVELS, 5, 0.03, 100 + seed);
            let m = model(&steps, 200, seed).expect("a model");
            x_in += usize::from(m.x_max.covers(x_true));
            n_in += usize::from(m.n_star.covers(n_true));
        }
        eprintln!("{t:?}: X_max covered {x_in}/{studies}, N* {n_in}/{studies}");
        let need = studies as usize * 9 / 10;
        assert!(x_in >= need, "X_max covered in {x_in} of {studies} ({t:?})");
        assert!(n_in >= need, "N* covered in {n_in} of {studies} ({t:?})");
    }
}

#[test]
fn too_few_steps_or_repetitions_are_refused_in_words() {
    let e = model(&simulate(&TRUTH, &[1, 8, 32], 3, 0.02, 3), 50, 1).unwrap_err();
    assert!(
        e.contains("at least 4 steps") && e.contains("there are 3"),
        "{e}"
    );
    let e = model(&simulate(&TRUTH, &LEVELS, 1, 0.02, 4), 50, 1).unwrap_err();
    assert!(e.contains("at least 2 repetitions"), "{e}");
    assert!(!e.chars().any(|c| c == '±'), "{e}");
}

#[test]
fn a_poor_fit_is_refused_with_its_criterion() {
    // Throughput that rises and falls twice: no single curve follows it.
    let mut steps = simulate(&TRUTH, &LEVELS, 3, 0.01, 5);
    for (i, s) in steps.iter_mut().enumerate() {
        let f = if i % 2 == 0 { 0.5 } else { 1.5 };
        for o in &mut s.runs {
            o.x *= f;
        }
    }
    let e = model(&steps, 50, 1).unwrap_err();
    assert!(e.contains("weighted RMS") && e.contains("10 %"), "{e}");
}

#[test]
fn steps_far_below_the_knee_are_refused() {
    // Up to N = 8 while the peak is near 44: the curve is still nearly straight.
    let steps = simulate(&TRUTH, &[1, 2, 3, 4, 6, 8], 4, 0.02, 6);
    let e = model(&steps, 100, 1).unwrap_err();
    assert!(e.contains("never approach the knee"), "{e}");
}

#[test]
fn a_plateau_reads_as_levelling_off() {
    // No coherency: throughput rises to λ/σ = 500 and stays.
    let flat = Usl {
        lambda: 100.0,
        sigma: 0.2,
        kappa: 0.0,
    };
    let steps = simulate(&flat, &[1, 4, 16, 64, 128, 256], 4, 0.01, 7);
    let m = model(&steps, 200, 1).expect("a model");
    assert!((m.x_max.mid / 500.0 - 1.0).abs() < 0.05, "{:?}", m.x_max);
    let s = sentence(&m, "req/s");
    assert!(s.starts_with("Throughput levels off near"), "{s}");
}

#[test]
fn the_same_seed_gives_the_same_intervals() {
    let steps = simulate(&TRUTH, &LEVELS, 4, 0.03, 8);
    assert_eq!(model(&steps, 100, 9), model(&steps, 100, 9));
}

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
                    Obs::closed(n, x, n / x)
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

/// Open-model steps at `fracs` of a wall's capacity `cap` (a pool in
/// front of a queue of `queue` requests; service time `s0`, 1.2 s steps):
/// below it everything is answered at once; past it the queue grows, the
/// rest is refused, and the target answers `cap` while busy.
fn simulate_wall(cap: f64, queue: f64, fracs: &[f64], reps: usize, seed: u64) -> Vec<Step> {
    let (s0, t) = (0.02, 1.2);
    let mut rng = SplitMix::new(seed);
    fracs
        .iter()
        .map(|&f| {
            let sent = f * cap;
            let runs = (0..reps)
                .map(|_| {
                    let c = cap * (1.0 + 0.01 * normal(&mut rng));
                    let excess = ((sent - c) * t).max(0.0);
                    let backlog = excess.min(queue);
                    let successes = sent * t - (excess - backlog);
                    let wait = s0 + backlog / c;
                    let r = s0 * (1.0 + 0.01 * normal(&mut rng)) + 0.5 * backlog / c;
                    let x = successes / (t + wait);
                    Obs {
                        n: x * r,
                        x,
                        r,
                        sent,
                        delivered: successes / t,
                        busy: (successes / (t + wait - s0)).max(x),
                    }
                })
                .collect();
            Step {
                level: sent.round() as u64,
                runs,
            }
        })
        .collect()
}

#[test]
fn a_queue_that_grew_measures_the_capacity() {
    // Nothing refused: the 110 % step's queue absorbed the excess, and
    // only its latency and its busy span show the wall.
    let steps = simulate_wall(300.0, 1e9, &[0.2, 0.4, 0.6, 0.8, 1.1], 3, 11);
    assert!(
        steps
            .iter()
            .all(|s| s.runs.iter().all(|o| o.delivered >= o.sent - 1e-9))
    );
    let m = model(&steps, 100, 1).expect("a model");
    let sat = m.saturation.as_ref().expect("read from the saturated step");
    assert_eq!((sat.from, sat.runs), (330, 3));
    assert!(m.x_max.covers(300.0), "{:?}", m.x_max);
    assert!((m.x_max.mid / 300.0 - 1.0).abs() < 0.05, "{:?}", m.x_max);
    assert!(
        (m.n_star.mid / (300.0 * 0.02) - 1.0).abs() < 0.1,
        "{:?}",
        m.n_star
    );
    let s = sentence(&m, "req/s");
    assert!(s.starts_with("Throughput levels off at "), "{s}");
    assert!(s.contains("measured: from the 330 req/s step on"), "{s}");
}

#[test]
fn refused_work_measures_the_capacity_in_nineteen_of_twenty_studies() {
    let mut covered = 0;
    for seed in 0..20 {
        let steps = simulate_wall(180.0, 4.0, &[0.2, 0.4, 0.6, 0.8, 1.25], 3, 100 + seed);
        let m = model(&steps, 50, 1).expect("a model");
        assert_eq!(m.saturation.as_ref().map(|s| s.from), Some(225), "{m:?}");
        assert!((m.x_max.mid / 180.0 - 1.0).abs() < 0.05, "{:?}", m.x_max);
        covered += usize::from(m.x_max.covers(180.0));
    }
    assert!(covered >= 19, "covered {covered} of 20");
}

#[test]
fn a_queue_that_only_begins_is_not_a_wall() {
    // At 97 % of the capacity the busy span may fall behind a little, but
    // the latency has not risen: the curve, not a wall, answers.
    let mut steps = simulate_wall(300.0, 1e9, &[0.2, 0.4, 0.6, 0.8, 0.97], 3, 12);
    for o in &mut steps[4].runs {
        o.busy = 0.98 * o.sent;
        o.r *= 1.1;
    }
    let s0 = steps[0].r();
    assert!(
        !steps
            .iter()
            .any(|s| saturation::refused(s) || saturation::queued(s, s0))
    );
    assert_eq!(saturation::reading(&steps), None);
}

#[test]
fn a_closed_model_never_reads_a_wall() {
    let steps = simulate(&TRUTH, &LEVELS, 3, 0.02, 13);
    assert_eq!(saturation::reading(&steps), None);
    assert_eq!(model(&steps, 50, 1).unwrap().saturation, None);
}

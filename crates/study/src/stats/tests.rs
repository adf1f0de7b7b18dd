use super::*;
use crate::hypothesis::Cmp;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn normal(rng: &mut SmallRng, mu: f64, sd: f64, n: usize) -> Vec<f64> {
    // Box–Muller.
    (0..n)
        .map(|_| {
            let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
            mu + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
        })
        .collect()
}

fn st(a: &[f64], b: &[f64]) -> Stratum {
    Stratum {
        label: "s".into(),
        a: a.to_vec(),
        b: b.to_vec(),
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn exact_null_distributions_by_hand() {
    // 2 vs 2: the 6 arrangements give U = 0, 1, 2, 2, 3, 4.
    let p = mann_whitney_null(2, 2);
    let want = [1.0, 1.0, 2.0, 1.0, 1.0].map(|c| c / 6.0);
    assert!(p.iter().zip(want).all(|(x, y)| close(*x, y)), "{p:?}");
    // 3 vs 3: 20 arrangements.
    let p = mann_whitney_null(3, 3);
    let want = [1., 1., 2., 3., 3., 3., 3., 2., 1., 1.].map(|c| c / 20.0);
    assert!(p.iter().zip(want).all(|(x, y)| close(*x, y)), "{p:?}");
    // 1 vs 3: U uniform on 0..=3.
    assert!(mann_whitney_null(1, 3).iter().all(|x| close(*x, 0.25)));
    assert!(close(binomial_tail(5, 5), 1.0 / 32.0));
    assert!(close(binomial_tail(4, 3), 5.0 / 16.0));
    assert!(close(binomial_tail(4, 0), 1.0));
    assert_eq!(binomial_tail(3, 4), 0.0);
    assert_eq!(runs_needed(Test::RankSum, 1, 0.05), 3); // 1/20
    assert_eq!(runs_needed(Test::RankSum, 2, 0.05), 2); // 1/36
    assert_eq!(runs_needed(Test::RankSum, 1, 0.01), 5); // 1/70 > 0.01 >= 1/252
    assert_eq!(runs_needed(Test::Sign, 1, 0.05), 5); // 1/32
    assert_eq!(runs_needed(Test::Sign, 2, 0.05), 3); // 1/64
}

#[test]
fn two_rates_of_two_runs_by_hand() {
    // d = a − b within each rate: {4, 3, 5, 4} and {5, 3, 6, 4}.
    let s = [
        st(&[5.0, 6.0], &[1.0, 2.0]),
        st(&[15.0, 16.0], &[10.0, 12.0]),
    ];
    let ev = compare(&s, ALPHA).unwrap();
    // Null of U1 + U2: (1 1 2 1 1)/6 convolved with itself = (1 2 5 6 8 6 5 2 1)/36.
    assert!(close(ev.p_greater, 1.0 / 36.0), "{ev:?}");
    assert!(close(ev.p_less, 1.0), "{ev:?}");
    assert!(close(ev.p_floor, 1.0 / 36.0));
    // Only U = 8 is in the 5 % tail (P(U >= 7) = 3/36): the interval's ends
    // are the smallest and largest differences, both kept (ties count against).
    assert_eq!(ev.ci, (Some(3.0), Some(6.0)));
    assert_eq!(ev.ci_open, (false, false));
    assert_eq!(ev.diff, 4.0, "median of 3 3 4 4 4 5 5 6");
    assert_eq!(ev.cliffs_delta, 1.0);
    assert_eq!((ev.n_a, ev.n_b, ev.strata, ev.per_cell), (4, 4, 2, 2));
    let j = judge(Cmp::Gt, 0.0, &ev, ALPHA);
    assert_eq!((j.verdict, j.underpowered), (Verdict::Supported, None));
    assert!(close(j.p, 1.0 / 36.0));
    assert_eq!(judge(Cmp::Lt, 0.0, &ev, ALPHA).verdict, Verdict::Rejected);
    // `A >= B + 3` is the edge: 3 is inside the interval.
    assert_eq!(
        judge(
            Cmp::Ge,
            0.0,
            &compare(&shift(&s, -3.0), ALPHA).unwrap(),
            ALPHA
        )
        .verdict,
        Verdict::Inconclusive
    );
}

fn shift(s: &[Stratum], by: f64) -> Vec<Stratum> {
    s.iter()
        .map(|x| Stratum {
            label: x.label.clone(),
            a: x.a.iter().map(|v| v + by).collect(),
            b: x.b.clone(),
        })
        .collect()
}

#[test]
fn two_runs_at_one_rate_can_never_be_significant() {
    // The case: a clear difference, n = 2 per cell, one rate.
    let ev = compare(&[st(&[1.0, 0.999], &[0.95, 0.96])], ALPHA).unwrap();
    assert!(close(ev.p_greater, 1.0 / 6.0), "{ev:?}");
    assert_eq!(ev.ci, (None, None), "no shift can be rejected at 1/6");
    let j = judge(Cmp::Ge, 0.0, &ev, ALPHA);
    assert_eq!(j.verdict, Verdict::Inconclusive);
    assert_eq!(j.underpowered, Some((2, 3)));
    // Three runs a side reach exactly 1/20.
    let ev = compare(&[st(&[1.0, 0.999, 0.998], &[0.95, 0.96, 0.97])], ALPHA).unwrap();
    assert!(close(ev.p_greater, 0.05));
    assert_eq!(judge(Cmp::Ge, 0.0, &ev, ALPHA).verdict, Verdict::Supported);
    // Only the extreme arrangement is in the tail: the interval runs from
    // the smallest difference (1.0 − 0.97 ... 0.998 − 0.97) to the largest.
    let (lo, hi) = (ev.ci.0.unwrap(), ev.ci.1.unwrap());
    assert!(close(lo, 0.028) && close(hi, 0.05), "{ev:?}");
}

#[test]
fn tied_rates_carry_no_evidence_unless_a_margin_is_given() {
    // Success ratios: equal at two rates, different at the third.
    let s = [
        st(&[1.0, 1.0], &[1.0, 1.0]),
        st(&[1.0, 1.0], &[1.0, 1.0]),
        st(&[1.0, 1.0], &[0.95, 0.96]),
    ];
    let ev = compare(&s, ALPHA).unwrap();
    // Only the third rate informs "A > B": 1/6.
    assert!(close(ev.p_greater, 1.0 / 6.0), "{ev:?}");
    let j = judge(Cmp::Ge, 0.0, &ev, ALPHA);
    assert_eq!(j.verdict, Verdict::Inconclusive);
    assert_eq!(j.underpowered, Some((2, 3)), "one informative rate");
    // Non-inferiority within 0.5 points: every rate informs, (1/6)^3.
    let j = judge(Cmp::Ge, 0.005, &ev, ALPHA);
    assert_eq!(j.verdict, Verdict::Supported);
    assert!(close(j.p, 1.0 / 216.0), "{j:?}");
    // Nothing varies at all: no test, no verdict.
    let ev = compare(&s[..2], ALPHA).unwrap();
    let j = judge(Cmp::Ge, 0.0, &ev, ALPHA);
    assert!(
        j.no_variation && j.verdict == Verdict::Inconclusive,
        "{j:?}"
    );
    assert_eq!(
        judge(Cmp::Lt, 0.0, &ev, ALPHA).verdict,
        Verdict::Inconclusive
    );
    assert_eq!(ev.ci, (Some(0.0), Some(0.0)));
    assert!(close(ev.p_greater, 1.0) && close(ev.p_less, 1.0));
    // A constant difference is not "no variation": the labels can be permuted.
    let ev = compare(&[st(&[12.0, 12.0], &[20.0, 20.0])], ALPHA).unwrap();
    let j = judge(Cmp::Lt, 0.0, &ev, ALPHA);
    assert!(!j.no_variation && close(j.p, 1.0 / 6.0), "{j:?}");
}

#[test]
fn sign_test_against_a_constant_by_hand() {
    let s = [st(&[30.0, 31.0, 29.0], &[25.0]), st(&[33.0, 34.0], &[25.0])];
    let ev = compare_const(&s, 25.0, ALPHA).unwrap();
    assert_eq!(ev.test, Test::Sign);
    assert!(close(ev.p_greater, 1.0 / 32.0), "{ev:?}");
    assert_eq!(judge(Cmp::Gt, 0.0, &ev, ALPHA).verdict, Verdict::Supported);
    assert_eq!(judge(Cmp::Lt, 0.0, &ev, ALPHA).verdict, Verdict::Rejected);
    // Inverting the sign test: only "all 5 above" is in the tail, so the
    // interval of the median's offset runs from the smallest to the largest.
    assert_eq!(ev.ci, (Some(4.0), Some(9.0)));
    assert_eq!(ev.diff, 6.0);
    // Two runs: 1/4 at best.
    let ev = compare_const(&s[1..], 25.0, ALPHA).unwrap();
    let j = judge(Cmp::Gt, 0.0, &ev, ALPHA);
    assert!(close(j.p, 0.25));
    assert_eq!(
        (j.verdict, j.underpowered),
        (Verdict::Inconclusive, Some((2, 5)))
    );
}

/// The verdict, the p-value and the interval agree on every data set.
#[test]
fn verdict_p_and_interval_always_agree() {
    let mut rng = SmallRng::seed_from_u64(5);
    for _ in 0..400 {
        let k = rng.random_range(1..=3);
        let strata: Vec<Stratum> = (0..k)
            .map(|_| {
                let (na, nb) = (rng.random_range(1..=4), rng.random_range(1..=4));
                // Small integers: plenty of ties.
                let shift = rng.random_range(-3..=3) as f64;
                Stratum {
                    label: "x".into(),
                    a: (0..na)
                        .map(|_| rng.random_range(0..5) as f64 + shift)
                        .collect(),
                    b: (0..nb).map(|_| rng.random_range(0..5) as f64).collect(),
                }
            })
            .collect();
        let ev = compare(&strata, ALPHA).unwrap();
        let (lo, hi) = ev.ci;
        let above = |x: f64| lo.is_some_and(|l| l > x || (l == x && ev.ci_open.0));
        let below = |x: f64| hi.is_some_and(|h| h < x || (h == x && ev.ci_open.1));
        for margin in [0.0, 0.5, 1.0] {
            let gt = judge(Cmp::Ge, margin, &ev, ALPHA);
            assert_eq!(
                gt.verdict == Verdict::Supported,
                above(-margin),
                "{ev:?} {gt:?}"
            );
            assert_eq!(
                gt.verdict == Verdict::Rejected,
                below(-margin),
                "{ev:?} {gt:?}"
            );
            let lt = judge(Cmp::Le, margin, &ev, ALPHA);
            assert_eq!(
                lt.verdict == Verdict::Supported,
                below(margin),
                "{ev:?} {lt:?}"
            );
            assert_eq!(
                lt.verdict == Verdict::Rejected,
                above(margin),
                "{ev:?} {lt:?}"
            );
            let eq = judge(Cmp::Eq, margin, &ev, ALPHA);
            assert_eq!(
                eq.verdict == Verdict::Supported,
                above(-margin) && below(margin),
                "{ev:?} {eq:?}"
            );
        }
        assert_eq!(ev.p_greater <= ALPHA, above(0.0), "{ev:?}");
        assert_eq!(ev.p_less <= ALPHA, below(0.0), "{ev:?}");
        if let (Some(l), Some(h)) = (lo, hi) {
            assert!(l <= ev.diff && ev.diff <= h, "{ev:?}");
        }
    }
}

#[test]
fn the_level_holds_with_three_runs_at_three_rates() {
    // Identical distributions: "A > B" must be supported in at most about 5 % of trials.
    let mut rng = SmallRng::seed_from_u64(11);
    let trials = 400;
    let mut false_alarms = 0;
    for _ in 0..trials {
        let strata: Vec<Stratum> = (0..3)
            .map(|i| Stratum {
                label: format!("{i}"),
                a: normal(&mut rng, 100.0 * (i + 1) as f64, 10.0, 3),
                b: normal(&mut rng, 100.0 * (i + 1) as f64, 10.0, 3),
            })
            .collect();
        let ev = compare(&strata, ALPHA).unwrap();
        if judge(Cmp::Gt, 0.0, &ev, ALPHA).verdict == Verdict::Supported {
            false_alarms += 1;
        }
    }
    assert!(false_alarms <= 30, "{false_alarms}/{trials} false alarms");
}

#[test]
fn clear_difference_is_supported_and_the_reverse_rejected() {
    let mut rng = SmallRng::seed_from_u64(7);
    let strata: Vec<Stratum> = (0..3)
        .map(|i| Stratum {
            label: format!("{}", 100 * (i + 1)),
            a: normal(&mut rng, 100.0 + i as f64 * 10.0, 5.0, 5),
            b: normal(&mut rng, 150.0 + i as f64 * 10.0, 5.0, 5),
        })
        .collect();
    let ev = compare(&strata, ALPHA).unwrap();
    let (lo, hi) = (ev.ci.0.unwrap(), ev.ci.1.unwrap());
    assert!(lo > -70.0 && hi < -30.0, "{ev:?}");
    assert!(ev.p_less < 1e-6 && ev.p_greater > 0.99, "{ev:?}");
    assert_eq!(ev.cliffs_delta, -1.0);
    for (op, v) in [
        (Cmp::Lt, Verdict::Supported),
        (Cmp::Le, Verdict::Supported),
        (Cmp::Gt, Verdict::Rejected),
        (Cmp::Ge, Verdict::Rejected),
        (Cmp::Eq, Verdict::Rejected),
    ] {
        assert_eq!(judge(op, 0.0, &ev, ALPHA).verdict, v, "{op:?}");
    }
    assert!((ev.relative.unwrap() + 50.0 / 160.0).abs() < 0.1);
}

#[test]
fn many_runs_use_the_normal_approximation() {
    // 100 vs 100 (e.g. time buckets of two runs): 10 000 pairs.
    let mut rng = SmallRng::seed_from_u64(3);
    let s = [Stratum {
        label: "buckets".into(),
        a: normal(&mut rng, 10.0, 2.0, 100),
        b: normal(&mut rng, 11.0, 2.0, 100),
    }];
    let ev = compare(&s, 0.025).unwrap();
    assert!(ev.p_less < 0.01, "{ev:?}");
    let (lo, hi) = (ev.ci.0.unwrap(), ev.ci.1.unwrap());
    assert!(lo < -1.0 + 0.8 && hi > -1.0 - 0.8 && hi < 0.0, "{ev:?}");
    let s = [Stratum {
        label: "same".into(),
        a: normal(&mut rng, 10.0, 2.0, 100),
        b: normal(&mut rng, 10.0, 2.0, 100),
    }];
    let ev = compare(&s, 0.025).unwrap();
    assert!(ev.ci.0.unwrap() < 0.0 && ev.ci.1.unwrap() > 0.0, "{ev:?}");
}

#[test]
fn empty_sides_give_no_evidence() {
    assert!(compare(&[st(&[], &[1.0])], ALPHA).is_none());
    assert!(compare_const(&[st(&[], &[1.0])], 1.0, ALPHA).is_none());
}

#[test]
fn normal_cdf_known_values() {
    assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
    assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
    assert!((normal_cdf(-1.0) - 0.158_655_25).abs() < 1e-6);
}

#[test]
fn the_method_text_names_the_test_and_the_level_that_computed_the_verdicts() {
    let t = method_text(&[Test::RankSum], ALPHA);
    assert!(t.contains("exact stratified Wilcoxon–Mann–Whitney"), "{t}");
    assert!(
        t.contains("Hodges–Lehmann") && t.contains("90 % interval"),
        "{t}"
    );
    assert!(!t.contains("bootstrap") && !t.contains("sign test"), "{t}");
    let t = method_text(&[Test::Sign, Test::RankSum], 0.025);
    assert!(
        t.contains("95 %") && t.contains("sign test") && t.contains("0.025"),
        "{t}"
    );
}

//! `prepare`'s values against Debian's sysbench 1.0.20's: column `k` drawn
//! from the same distribution (sysbench's default, `special`), checked
//! with a two-sample Kolmogorov–Smirnov test at 100,000 rows.

use crate::common;

use common::{mysql_args, run, sysbench, sysbench_or_skip};
use loadlab_testkit::db::MariaDb;

const ROWS: u64 = 100_000;

/// The two-sample Kolmogorov–Smirnov statistic D of `a` and `b` (sorted)
/// and its asymptotic p-value (conservative with ties, as here).
fn ks(a: &[i64], b: &[i64]) -> (f64, f64) {
    let (n, m) = (a.len() as f64, b.len() as f64);
    let (mut i, mut j, mut d) = (0, 0, 0.0f64);
    while i < a.len() && j < b.len() {
        let x = a[i].min(b[j]);
        while i < a.len() && a[i] == x {
            i += 1;
        }
        while j < b.len() && b[j] == x {
            j += 1;
        }
        d = d.max((i as f64 / n - j as f64 / m).abs());
    }
    let en = (n * m / (n + m)).sqrt();
    let lambda = (en + 0.12 + 0.11 / en) * d;
    if lambda < 0.3 {
        // Q_KS(0.3) = 0.99999…; the series below converges slowly there.
        return (d, 1.0);
    }
    let mut p = 0.0;
    for k in 1..=100 {
        let k = f64::from(k);
        let sign = if k as u32 % 2 == 1 { 1.0 } else { -1.0 };
        p += sign * 2.0 * (-2.0 * k * k * lambda * lambda).exp();
    }
    (d, p.clamp(0.0, 1.0))
}

#[test]
fn ks_of_known_samples() {
    let a: Vec<i64> = (0..1000).collect();
    let (d, p) = ks(&a, &a);
    assert_eq!(d, 0.0);
    assert!(p > 0.99, "{p}");
    let b: Vec<i64> = (500..1500).collect();
    let (d, p) = ks(&a, &b);
    assert!((d - 0.5).abs() < 1e-9, "{d}");
    assert!(p < 1e-10, "{p}");
}

#[test]
fn prepare_draws_k_as_sysbench_does() {
    let Some(_) = sysbench_or_skip("prepare_draws_k_as_sysbench_does") else {
        return;
    };
    let Some(db) = MariaDb::start_or_skip("prepare_draws_k_as_sysbench_does") else {
        return;
    };
    let a = mysql_args(db.port);
    let ks_of_table = || -> Vec<i64> {
        let mut v: Vec<i64> = db
            .root_sql("SELECT k FROM sbtest.sbtest1")
            .unwrap()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect();
        v.sort_unstable();
        assert_eq!(v.len() as u64, ROWS);
        v
    };
    let prep = format!("{a} --table-size={ROWS} --rand-seed=3 oltp_read_only prepare");
    sysbench(&prep);
    let theirs = ks_of_table();
    sysbench(&format!("{a} oltp_read_only cleanup"));
    run(&prep).unwrap();
    let ours = ks_of_table();
    run(&format!("{a} oltp_read_only cleanup")).unwrap();
    let distinct = |v: &[i64]| {
        let mut d = v.to_vec();
        d.dedup();
        d.len()
    };
    let (d, p) = ks(&ours, &theirs);
    eprintln!(
        "k at {ROWS} rows: loadlab min {} max {} distinct {}; sysbench min {} max {} distinct {}; KS D {d:.4} p {p:.3}",
        ours[0],
        ours[ours.len() - 1],
        distinct(&ours),
        theirs[0],
        theirs[theirs.len() - 1],
        distinct(&theirs),
    );
    assert!(p > 0.01, "KS D {d}, p {p}");
}

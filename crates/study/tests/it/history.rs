//! Change points across studies: E-divisive means on seeded simulated
//! histories (30 studies of 5 runs each, 2.5 % run-to-run spread), and
//! the store's labels.

use loadlab_study::history::{Settings, detect};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut SmallRng) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    let v: f64 = rng.random_range(0.0..1.0);
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// Per study, the mean of `reps` runs (what a history seeks change points
/// in) around 100 ms · (1 + step after
/// `at`), each run with a coefficient of variation `cv`.
fn simulated(seed: u64, n: usize, at: usize, step: f64, cv: f64, reps: usize) -> Vec<f64> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|i| {
            let level = 100.0 * if i >= at { 1.0 + step } else { 1.0 };
            let runs: Vec<f64> = (0..reps)
                .map(|_| level * (1.0 + cv * normal(&mut rng)))
                .collect();
            runs.iter().sum::<f64>() / reps as f64
        })
        .collect()
}

#[test]
fn a_three_percent_step_is_found_at_its_study() {
    let cases = 100;
    let mut hits = 0;
    for seed in 0..cases {
        // The step's place varies: studies 8 to 22 of 30.
        let at = 8 + (seed as usize * 7) % 15;
        let x = simulated(1000 + seed, 30, at, 0.03, 0.025, 5);
        let found = detect(&x, &Settings::default());
        if found.iter().any(|c| c.index.abs_diff(at) <= 1) {
            hits += 1;
        }
    }
    eprintln!("3 % step found at its study ±1 in {hits} of {cases}");
    assert!(hits >= 90, "found in {hits} of {cases}");
}

#[test]
fn noise_alone_rarely_raises_an_alarm() {
    let cases = 200;
    let alarms = (0..cases)
        .filter(|seed| {
            !detect(
                &simulated(5000 + seed, 30, 30, 0.0, 0.025, 5),
                &Settings::default(),
            )
            .is_empty()
        })
        .count();
    eprintln!("false alarms in {alarms} of {cases} noise-only histories");
    assert!(alarms * 100 <= 5 * cases as usize, "{alarms} of {cases}");
}

#[test]
fn a_short_or_flat_history_has_no_change_point() {
    assert!(detect(&[1.0, 2.0, 3.0], &Settings::default()).is_empty());
    assert!(detect(&[5.0; 20], &Settings::default()).is_empty());
    let step: Vec<f64> = (0..20).map(|i| if i < 12 { 1.0 } else { 2.0 }).collect();
    let found = detect(&step, &Settings::default());
    assert_eq!(found.iter().map(|c| c.index).collect::<Vec<_>>(), vec![12]);
    // Ten studies, the last five 5 % slower with a little noise: the
    // shortest history where a step in the middle can be found.
    let ten: Vec<f64> = (0..10)
        .map(|i| if i < 5 { 20.0 } else { 21.0 } + 0.05 * ((i * 7 % 5) as f64 - 2.0))
        .collect();
    let found = detect(&ten, &Settings::default());
    assert_eq!(found.iter().map(|c| c.index).collect::<Vec<_>>(), vec![5]);
    assert!(found[0].p <= 0.02, "{found:?}");
}

#[test]
fn a_store_without_labels_is_migrated_and_keeps_its_studies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let store = loadlab_study::Store::open(&path).unwrap();
        store
            .create_study("old", "p.yaml", "", "{}", "{}", "out")
            .unwrap();
    }
    {
        // Make it the store an earlier loadlab wrote: no label column.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("ALTER TABLE studies DROP COLUMN label; PRAGMA user_version = 1;")
            .unwrap();
    }
    let store = loadlab_study::Store::open(&path).unwrap();
    let s = store.studies().unwrap();
    assert_eq!(
        (s.len(), s[0].name.as_str(), s[0].label.as_str()),
        (1, "old", "")
    );
    store.set_label(s[0].id, "abc1234").unwrap();
    assert_eq!(store.study(s[0].id).unwrap().label, "abc1234");
    let c = rusqlite::Connection::open(&path).unwrap();
    let v: i32 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, loadlab_study::store::SCHEMA_VERSION);
}

#[test]
fn the_history_page_fills_the_interval_band_and_cuts_it_at_a_gap() {
    use loadlab_study::history::{History, Point, render};
    use loadlab_study::hypothesis::Metric;
    let point = |i: i64, ci: (Option<f64>, Option<f64>)| Point {
        study: i,
        label: format!("v{i}"),
        plan_hash: "0".into(),
        value: 10e6,
        mean: 10e6,
        ci,
        runs: vec![10e6; 3],
    };
    let both = (Some(9e6), Some(11e6));
    let h = History {
        plan: "nightly".into(),
        target: "api".into(),
        rate: 50,
        metric: Metric::P99,
        points: vec![
            point(1, both),
            point(2, both),
            point(3, (None, None)),
            point(4, both),
            point(5, (Some(9.5e6), Some(12e6))),
        ],
        shifts: Vec::new(),
    };
    let page = render::html(&h).unwrap();
    let bands: Vec<&str> = page
        .split('<')
        .filter(|t| t.starts_with("polygon class=\"band\""))
        .collect();
    // Studies 1–2 and 4–5: two filled pieces, each closed over 4 corners;
    // the edges are no longer drawn as lines.
    assert_eq!(bands.len(), 2, "{page}");
    for b in &bands {
        assert!(
            b.contains("fill-opacity=") && !b.contains("fill=\"none\""),
            "{b}"
        );
        let pts = b
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(pts.split(' ').count(), 4, "{b}");
    }
    assert!(!page.contains("interval, lower"), "{page}");
    assert_eq!(page.matches("class=\"swatch-band\"").count(), 1, "{page}");
}

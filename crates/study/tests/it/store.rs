//! The store: round trip of runs (histograms, series), and refusal of foreign
//! or damaged files without modifying them.

use loadlab_core::Sample;
use loadlab_study::collect::Collector;
use loadlab_study::{Store, StoreError};

fn data() -> loadlab_study::collect::RunData {
    let mut c = Collector::new(100, 0, 100_000_000);
    for i in 0..500u64 {
        let at = i * 10_000_000;
        c.record(&Sample {
            seq: i,
            intended_ns: at,
            sent_ns: at,
            done_ns: at + 1_000_000 + i * 10_000,
            status: 200,
            ..Default::default()
        });
    }
    c.finish()
}

#[test]
fn runs_round_trip_and_resume_lookup() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.db");
    let mut s = Store::open(&db).unwrap();
    let id = s
        .create_study("n", "/p.yaml", "name: n", "{}", "{}", "out")
        .unwrap();
    let d = data();
    let run = s
        .save_run(id, "sweep", 100, "a", 1, &d, &[], Some(true))
        .unwrap();
    // A second copy of the same run is refused by the schema: nothing runs twice.
    assert!(
        s.save_run(id, "sweep", 100, "a", 1, &d, &[], Some(true))
            .is_err()
    );
    drop(s);
    let s = Store::open(&db).unwrap();
    let r = s.run(run).unwrap();
    assert_eq!(r.latency, d.latency);
    assert_eq!(r.summary, d.summary);
    assert_eq!(r.series.len(), d.series.len());
    for (a, b) in r.series.iter().zip(&d.series) {
        assert!(
            (a.t - b.t).abs() < 1e-9
                && a.count == b.count
                && a.p99_ns == b.p99_ns
                && a.warmup == b.warmup
        );
    }
    assert!(s.has_run(id, "sweep", 100, "a", 1).unwrap());
    assert!(!s.has_run(id, "sweep", 100, "a", 2).unwrap());
    assert_eq!(s.resumable("/p.yaml").unwrap().unwrap().id, id);
    s.set_status(id, "done").unwrap();
    assert!(s.resumable("/p.yaml").unwrap().is_none());
    assert!(matches!(s.study(99), Err(StoreError::NoStudy(99))));
}

fn assert_refused_untouched(path: &std::path::Path, want: &str) {
    let before = std::fs::read(path).unwrap();
    let e = match Store::open(path) {
        Err(e) => e,
        Ok(_) => panic!("{} was accepted", path.display()),
    };
    assert!(matches!(e, StoreError::Foreign { .. }), "{e}");
    assert!(e.to_string().contains(want), "{e}");
    assert_eq!(
        std::fs::read(path).unwrap(),
        before,
        "the file was modified"
    );
    assert!(!path.with_extension("db-journal").exists());
}

#[test]
fn foreign_and_damaged_files_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.db");
    std::fs::write(&text, "these are my notes, not a database\n".repeat(10)).unwrap();
    assert_refused_untouched(&text, "not an SQLite file");

    // Somebody else's SQLite database.
    let other = dir.path().join("other.db");
    {
        let c = rusqlite::Connection::open(&other).unwrap();
        c.execute_batch("CREATE TABLE mine (x INTEGER); INSERT INTO mine VALUES (1);")
            .unwrap();
    }
    assert_refused_untouched(&other, "application_id");

    // Ours, but damaged: scribble over the second page.
    let ours = dir.path().join("ours.db");
    {
        let mut s = Store::open(&ours).unwrap();
        let id = s.create_study("n", "/p", "", "{}", "{}", "").unwrap();
        for rep in 1..=5 {
            s.save_run(id, "sweep", 100, "a", rep, &data(), &[], None)
                .unwrap();
        }
    }
    let mut bytes = std::fs::read(&ours).unwrap();
    for b in &mut bytes[4096..8192] {
        *b = 0xA5;
    }
    std::fs::write(&ours, &bytes).unwrap();
    assert_refused_untouched(&ours, "damaged");
}

#[test]
fn a_read_only_open_never_makes_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, b"").unwrap();
    let e = Store::open_existing(&empty).err().expect("refused");
    assert!(e.to_string().contains("an empty file"), "{e}");
    assert_eq!(std::fs::read(&empty).unwrap(), b"");
    let missing = dir.path().join("missing.db");
    assert!(Store::open_existing(&missing).is_err());
    assert!(!missing.exists());
    // A real store opens.
    let db = dir.path().join("s.db");
    drop(Store::open(&db).unwrap());
    assert!(Store::open_existing(&db).is_ok());
}

#[test]
fn studies_starting_together_on_a_new_store_all_open_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("new.db");
    let go = std::sync::Arc::new(std::sync::Barrier::new(20));
    let opened: Vec<_> = (0..20)
        .map(|i| {
            let (db, go) = (db.clone(), go.clone());
            std::thread::spawn(move || {
                go.wait();
                let s = Store::open(&db).map_err(|e| e.to_string())?;
                s.create_study(&format!("s{i}"), "p.yaml", "", "{}", "{}", "")
                    .map_err(|e| e.to_string())
            })
        })
        .collect();
    let mut ids: Vec<i64> = opened
        .into_iter()
        .map(|t| t.join().unwrap().expect("opened and written"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=20).collect::<Vec<_>>());
}

//! The results file (format v2): its series, and the writer thread that
//! takes the run's records in batches.

use super::*;

fn series(o: &Options) -> Vec<(u32, SeriesInfo)> {
    let tags = |stmt: &str| {
        vec![
            ("statement".to_string(), stmt.to_string()),
            ("test".to_string(), o.test.name().to_string()),
            ("driver".to_string(), o.driver.name().to_string()),
        ]
    };
    let mut v = vec![(
        SERIES_TX,
        SeriesInfo {
            kind: SeriesKind::Sample,
            name: "sql_tx".into(),
            time: true,
            tags: tags("transaction"),
        },
    )];
    for s in Stmt::ALL {
        v.push((
            SERIES_STMT0 + s as u32,
            SeriesInfo {
                kind: SeriesKind::Sample,
                name: "sql_stmt".into(),
                time: true,
                tags: tags(s.tag()),
            },
        ));
    }
    for (id, name) in [
        (SERIES_ERRORS, "sql_ignored_errors"),
        (SERIES_RECONNECTS, "sql_reconnects"),
    ] {
        v.push((
            id,
            SeriesInfo {
                kind: SeriesKind::Counter,
                name: name.into(),
                time: false,
                tags: vec![
                    ("test".to_string(), o.test.name().to_string()),
                    ("driver".to_string(), o.driver.name().to_string()),
                ],
            },
        ));
    }
    v
}

pub(super) type WriterThread = (
    std::sync::mpsc::SyncSender<Vec<Rec>>,
    std::thread::JoinHandle<std::io::Result<()>>,
);

/// Creates the results file (a bad path fails here, before any
/// connection) and its writer thread, which writes the header when the
/// events start ([`Rec::Begin`]).
pub(super) fn start_writer(o: &Options) -> Result<Option<WriterThread>, Error> {
    let Some(path) = o.output.clone() else {
        return Ok(None);
    };
    let file = std::fs::File::create(&path).map_err(|e| Error::Output {
        path: path.display().to_string(),
        err: e.to_string(),
    })?;
    let series = series(o);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Rec>>(64);
    let h = std::thread::spawn(move || {
        let mut w = ResultsWriter::new(std::io::BufWriter::new(file));
        for batch in rx {
            for r in batch {
                match r {
                    Rec::Begin(info) => {
                        w.begin(&info);
                        for (id, s) in &series {
                            w.register_series(*id, s);
                        }
                    }
                    Rec::Sample(s) => w.record(&s),
                    Rec::Metric(m) => w.metric(&m),
                }
            }
        }
        w.finish()
    });
    Ok(Some((tx, h)))
}

/// Closes the results file: the writer thread's outcome.
pub(super) fn finish_writer(o: &Options, w: Option<WriterThread>) -> Result<(), Error> {
    let Some((tx, h)) = w else { return Ok(()) };
    drop(tx);
    let path = o
        .output
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    match h.join() {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Error::Output {
            path,
            err: e.to_string(),
        }),
        Err(_) => Err(Error::Output {
            path,
            err: "writer thread panicked".into(),
        }),
    }
}

pub(super) fn send_pending(st: &Shared, writer: &Option<WriterThread>) {
    let Some((tx, _)) = writer else { return };
    let batch = {
        let mut s = lock(st);
        match s.pending.as_mut() {
            Some(p) if !p.is_empty() => std::mem::replace(p, Vec::with_capacity(4096)),
            _ => return,
        }
    };
    let _ = tx.send(batch);
}

//! The SQLite store: one file holding studies, steps, runs, the resolved
//! plan, the environment, per-run summaries, serialized HdrHistograms (V2
//! format) and time series.
//!
//! The file is marked with `PRAGMA application_id` and versioned with
//! `PRAGMA user_version`; an older version is migrated on open (version 2
//! added `studies.label`; a version-1 store reads with empty labels until
//! then); a file that is not SQLite, or is somebody else's
//! database, is refused with a clear error and never written to. Each run is
//! committed in its own transaction, so an interrupted study loses at most the
//! run in flight and `--resume` never repeats a committed one.

use std::path::{Path, PathBuf};

use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2Serializer};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::collect::{RunData, RunSummary, SeriesPoint};

/// "LLAB": identifies a loadlab store.
pub const APPLICATION_ID: i32 = 0x4C4C_4142;
pub const SCHEMA_VERSION: i32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: not a loadlab database ({reason}); refusing to touch it")]
    Foreign { path: String, reason: String },
    #[error(
        "{path}: database schema version {found} is newer than this loadlab understands ({SCHEMA_VERSION})"
    )]
    TooNew { path: String, found: i32 },
    #[error("{path}: {source}")]
    Sql {
        path: String,
        source: rusqlite::Error,
    },
    #[error("no study with id {0}")]
    NoStudy(i64),
    #[error("no run with id {0}")]
    NoRun(i64),
    #[error("corrupt record: {0}")]
    Corrupt(String),
    #[error("{0}")]
    Invalid(String),
}

const SCHEMA: &str = "
CREATE TABLE studies (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  plan_path TEXT NOT NULL,
  plan_yaml TEXT NOT NULL,
  plan_json TEXT NOT NULL,
  environment_json TEXT NOT NULL,
  out_dir TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL,
  analysis_json TEXT,
  label TEXT NOT NULL DEFAULT ''
);
CREATE TABLE steps (
  id INTEGER PRIMARY KEY,
  study_id INTEGER NOT NULL REFERENCES studies(id),
  phase TEXT NOT NULL,
  rate INTEGER NOT NULL,
  UNIQUE (study_id, phase, rate)
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  study_id INTEGER NOT NULL REFERENCES studies(id),
  step_id INTEGER NOT NULL REFERENCES steps(id),
  target TEXT NOT NULL,
  repetition INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  summary_json TEXT NOT NULL,
  latency_hdr BLOB NOT NULL,
  service_hdr BLOB NOT NULL,
  series_json TEXT NOT NULL,
  monitor_json TEXT NOT NULL,
  slo_pass INTEGER,
  UNIQUE (step_id, target, repetition)
);
";

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// A study row.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StudyRow {
    pub id: i64,
    pub name: String,
    pub plan_path: String,
    pub plan_yaml: String,
    pub plan_json: String,
    pub environment_json: String,
    pub out_dir: String,
    pub created_at: String,
    pub finished_at: Option<String>,
    pub status: String,
    pub runs: i64,
    /// Names the study in a history: `--label`, the git commit, or the time.
    pub label: String,
}

/// One monitored sample of the process under test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MonitorPoint {
    pub t: f64,
    pub cpu: f64,
    pub rss: u64,
}

/// A stored run, histograms decoded.
#[derive(Debug, Clone)]
pub struct RunRow {
    pub id: i64,
    pub study_id: i64,
    pub phase: String,
    pub rate: u64,
    pub target: String,
    pub repetition: u32,
    pub started_at: String,
    pub summary: RunSummary,
    pub latency: Histogram<u64>,
    pub service: Histogram<u64>,
    pub series: Vec<SeriesPoint>,
    pub monitor: Vec<MonitorPoint>,
    pub slo_pass: Option<bool>,
}

fn encode(h: &Histogram<u64>) -> Vec<u8> {
    let mut buf = Vec::new();
    // Serializing an in-memory histogram into a Vec cannot fail.
    let _ = V2Serializer::new().serialize(h, &mut buf);
    buf
}

fn decode(b: &[u8]) -> Result<Histogram<u64>, StoreError> {
    Deserializer::new()
        .deserialize(&mut &b[..])
        .map_err(|e| StoreError::Corrupt(format!("histogram: {e:?}")))
}

pub fn now_rfc3339() -> String {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + (month <= 2) as i64;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Brings a store of schema `from` up to [`SCHEMA_VERSION`] in one
/// transaction (another process may be doing the same: the version is read
/// again under the write lock). Version 1 → 2: `studies.label`, empty.
fn migrate(conn: &Connection, from: i32) -> Result<(), rusqlite::Error> {
    conn.execute_batch("BEGIN IMMEDIATE")?;
    let now: i32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let step = || -> Result<(), rusqlite::Error> {
        if from.min(now) < 2 && now < 2 {
            conn.execute_batch("ALTER TABLE studies ADD COLUMN label TEXT NOT NULL DEFAULT ''")?;
        }
        conn.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION}"))
    };
    match step() {
        Ok(()) => conn.execute_batch("COMMIT"),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

/// How long a store waits for another process's write lock.
const BUSY: std::time::Duration = std::time::Duration::from_secs(5);

/// One run for [`Store::save_runs`].
pub struct RunToSave<'a> {
    pub target: &'a str,
    pub data: &'a RunData,
    pub monitor: &'a [MonitorPoint],
    pub slo_pass: Option<bool>,
}

impl Store {
    /// Opens the store at `path` for a command that only reads it (`runs`,
    /// `compare`): a missing or empty file is refused, never made a store.
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        match path.metadata() {
            Ok(m) if m.len() > 0 => Store::open(path),
            Ok(_) => Err(StoreError::Foreign {
                path: path.display().to_string(),
                reason: "an empty file".into(),
            }),
            Err(e) => Err(StoreError::Foreign {
                path: path.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }

    /// Opens (or creates) the store at `path`. An existing file must be a
    /// loadlab store; anything else is refused untouched.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let p = path.display().to_string();
        let sql = |source| StoreError::Sql {
            path: p.clone(),
            source,
        };
        let exists = path.metadata().map(|m| m.len() > 0).unwrap_or(false);
        if exists {
            // Check the header before SQLite touches the file: a foreign file
            // must not get a journal, a schema or anything else.
            let mut head = [0u8; 16];
            use std::io::Read;
            let n = std::fs::File::open(path)
                .and_then(|mut f| f.read(&mut head))
                .unwrap_or(0);
            if n < 16 || &head != b"SQLite format 3\0" {
                return Err(StoreError::Foreign {
                    path: p,
                    reason: "not an SQLite file".into(),
                });
            }
            let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
                .map_err(sql)?;
            // Set before the first read: another study may hold the lock.
            conn.busy_timeout(BUSY).map_err(sql)?;
            let app: i32 = conn
                .query_row("PRAGMA application_id", [], |r| r.get(0))
                .map_err(|e| StoreError::Foreign {
                    path: p.clone(),
                    reason: format!("damaged: {e}"),
                })?;
            let blank = || {
                conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                    r.get::<_, i64>(0)
                })
                .is_ok_and(|n| n == 0)
            };
            if app == 0 && blank() {
                // A store another study is creating this very moment (its
                // file exists, its schema not yet): created below, once.
                drop(conn);
                return Store::create(path, &p);
            }
            if app != APPLICATION_ID {
                return Err(StoreError::Foreign {
                    path: p,
                    reason: format!("application_id is {app:#x}"),
                });
            }
            let ok: String = conn
                .query_row("PRAGMA quick_check", [], |r| r.get(0))
                .map_err(|e| StoreError::Foreign {
                    path: p.clone(),
                    reason: format!("damaged: {e}"),
                })?;
            if ok != "ok" {
                return Err(StoreError::Foreign {
                    path: p,
                    reason: format!("damaged: {ok}"),
                });
            }
            let ver: i32 = conn
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(sql)?;
            if ver > SCHEMA_VERSION {
                return Err(StoreError::TooNew {
                    path: p,
                    found: ver,
                });
            }
            if ver < SCHEMA_VERSION {
                migrate(&conn, ver).map_err(sql)?;
            }
            return Ok(Store {
                conn,
                path: path.to_path_buf(),
            });
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            let _ = std::fs::create_dir_all(dir);
        }
        Store::create(path, &p)
    }

    /// Creates the schema in a new (or blank) store, unless another process
    /// has just done so.
    fn create(path: &Path, p: &str) -> Result<Store, StoreError> {
        let sql = |source| StoreError::Sql {
            path: p.to_string(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sql)?;
        // Several studies may start on a new store at the same moment: each
        // waits for the write lock, and only the first creates the schema.
        conn.busy_timeout(BUSY).map_err(sql)?;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sql)?;
        let app: i32 = tx
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(sql)?;
        if app != APPLICATION_ID {
            tx.execute_batch(SCHEMA).map_err(sql)?;
            tx.execute_batch(&format!(
                "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {SCHEMA_VERSION};"
            ))
            .map_err(sql)?;
        }
        tx.commit().map_err(sql)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    fn sql(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::Sql {
            path: self.path.display().to_string(),
            source,
        }
    }

    pub fn create_study(
        &self,
        name: &str,
        plan_path: &str,
        plan_yaml: &str,
        plan_json: &str,
        environment_json: &str,
        out_dir: &str,
    ) -> Result<i64, StoreError> {
        self.conn
            .execute(
                "INSERT INTO studies (name, plan_path, plan_yaml, plan_json, environment_json, out_dir, created_at, status)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running')",
                params![name, plan_path, plan_yaml, plan_json, environment_json, out_dir, now_rfc3339()],
            )
            .map_err(self.sql())?;
        Ok(self.conn.last_insert_rowid())
    }

    pub fn set_status(&self, study: i64, status: &str) -> Result<(), StoreError> {
        let finished = (status == "done").then(now_rfc3339);
        self.conn
            .execute(
                "UPDATE studies SET status = ?2, finished_at = ?3 WHERE id = ?1",
                params![study, status, finished],
            )
            .map_err(self.sql())?;
        Ok(())
    }

    pub fn set_label(&self, study: i64, label: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE studies SET label = ?2 WHERE id = ?1",
                params![study, label],
            )
            .map_err(self.sql())?;
        Ok(())
    }

    pub fn set_out_dir(&self, study: i64, out: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE studies SET out_dir = ?2 WHERE id = ?1",
                params![study, out],
            )
            .map_err(self.sql())?;
        Ok(())
    }

    pub fn set_analysis(&self, study: i64, json: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE studies SET analysis_json = ?2 WHERE id = ?1",
                params![study, json],
            )
            .map_err(self.sql())?;
        Ok(())
    }

    /// The stored analysis (ceilings, verdicts) of a finished study, as JSON.
    pub fn analysis(&self, study: i64) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT analysis_json FROM studies WHERE id = ?1",
                [study],
                |r| r.get(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(self.sql())
    }

    pub fn studies(&self) -> Result<Vec<StudyRow>, StoreError> {
        let mut st = self
            .conn
            .prepare(
                "SELECT s.id, s.name, s.plan_path, s.plan_yaml, s.plan_json, s.environment_json, s.out_dir, s.created_at,
                        s.finished_at, s.status, (SELECT COUNT(*) FROM runs r WHERE r.study_id = s.id), s.label
                 FROM studies s ORDER BY s.id",
            )
            .map_err(self.sql())?;
        let rows = st
            .query_map([], |r| {
                Ok(StudyRow {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    plan_path: r.get(2)?,
                    plan_yaml: r.get(3)?,
                    plan_json: r.get(4)?,
                    environment_json: r.get(5)?,
                    out_dir: r.get(6)?,
                    created_at: r.get(7)?,
                    finished_at: r.get(8)?,
                    status: r.get(9)?,
                    runs: r.get(10)?,
                    label: r.get(11)?,
                })
            })
            .map_err(self.sql())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sql())
    }

    pub fn study(&self, id: i64) -> Result<StudyRow, StoreError> {
        self.studies()?
            .into_iter()
            .find(|s| s.id == id)
            .ok_or(StoreError::NoStudy(id))
    }

    /// The most recent unfinished study started from this plan file, if any.
    pub fn resumable(&self, plan_path: &str) -> Result<Option<StudyRow>, StoreError> {
        Ok(self
            .studies()?
            .into_iter()
            .rev()
            .find(|s| s.plan_path == plan_path && s.status != "done"))
    }

    /// Commits one run (and its step, if new) in a single transaction.
    #[allow(clippy::too_many_arguments)]
    pub fn save_run(
        &mut self,
        study: i64,
        phase: &str,
        rate: u64,
        target: &str,
        repetition: u32,
        data: &RunData,
        monitor: &[MonitorPoint],
        slo_pass: Option<bool>,
    ) -> Result<i64, StoreError> {
        let runs = [RunToSave {
            target,
            data,
            monitor,
            slo_pass,
        }];
        self.save_runs(study, phase, rate, repetition, &runs)
    }

    /// Saves the runs of one step and repetition in one transaction (a
    /// concurrent group's members and the group: all or none); returns
    /// the last one's id.
    pub fn save_runs(
        &mut self,
        study: i64,
        phase: &str,
        rate: u64,
        repetition: u32,
        runs: &[RunToSave<'_>],
    ) -> Result<i64, StoreError> {
        let p = self.path.display().to_string();
        let sql = |source| StoreError::Sql {
            path: p.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sql)?;
        tx.execute(
            "INSERT OR IGNORE INTO steps (study_id, phase, rate) VALUES (?1, ?2, ?3)",
            params![study, phase, rate as i64],
        )
        .map_err(sql)?;
        let step: i64 = tx
            .query_row(
                "SELECT id FROM steps WHERE study_id = ?1 AND phase = ?2 AND rate = ?3",
                params![study, phase, rate as i64],
                |r| r.get(0),
            )
            .map_err(sql)?;
        let mut id = 0;
        for r in runs {
            tx.execute(
                "INSERT INTO runs (study_id, step_id, target, repetition, started_at, summary_json, latency_hdr, service_hdr,
                                   series_json, monitor_json, slo_pass)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    study,
                    step,
                    r.target,
                    repetition,
                    now_rfc3339(),
                    serde_json::to_string(&r.data.summary).unwrap_or_default(),
                    encode(&r.data.latency),
                    encode(&r.data.service),
                    serde_json::to_string(&r.data.series).unwrap_or_default(),
                    serde_json::to_string(r.monitor).unwrap_or_default(),
                    r.slo_pass,
                ],
            )
            .map_err(sql)?;
            id = tx.last_insert_rowid();
        }
        tx.commit().map_err(sql)?;
        Ok(id)
    }

    const RUN_COLS: &'static str =
        "r.id, r.study_id, s.phase, s.rate, r.target, r.repetition, r.started_at, r.summary_json,
        r.latency_hdr, r.service_hdr, r.series_json, r.monitor_json, r.slo_pass";

    fn read_runs(&self, filter: &str, arg: i64) -> Result<Vec<RunRow>, StoreError> {
        let q = format!(
            "SELECT {} FROM runs r JOIN steps s ON s.id = r.step_id WHERE {filter} ORDER BY r.id",
            Self::RUN_COLS
        );
        let mut st = self.conn.prepare(&q).map_err(self.sql())?;
        type Raw = (
            i64,
            i64,
            String,
            i64,
            String,
            u32,
            String,
            String,
            Vec<u8>,
            Vec<u8>,
            String,
            String,
            Option<bool>,
        );
        let raws: Vec<Raw> = st
            .query_map([arg], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                    r.get(10)?,
                    r.get(11)?,
                    r.get(12)?,
                ))
            })
            .map_err(self.sql())?
            .collect::<Result<_, _>>()
            .map_err(self.sql())?;
        raws.into_iter()
            .map(
                |(
                    id,
                    study_id,
                    phase,
                    rate,
                    target,
                    repetition,
                    started_at,
                    sj,
                    lh,
                    sh,
                    ser,
                    mon,
                    slo_pass,
                )| {
                    let bad = |what: &str, e: serde_json::Error| {
                        StoreError::Corrupt(format!("run {id} {what}: {e}"))
                    };
                    Ok(RunRow {
                        id,
                        study_id,
                        phase,
                        rate: rate as u64,
                        target,
                        repetition,
                        started_at,
                        summary: serde_json::from_str(&sj).map_err(|e| bad("summary", e))?,
                        latency: decode(&lh)?,
                        service: decode(&sh)?,
                        series: serde_json::from_str(&ser).map_err(|e| bad("series", e))?,
                        monitor: serde_json::from_str(&mon).map_err(|e| bad("monitor", e))?,
                        slo_pass,
                    })
                },
            )
            .collect()
    }

    pub fn runs(&self, study: i64) -> Result<Vec<RunRow>, StoreError> {
        self.read_runs("r.study_id = ?1", study)
    }

    pub fn run(&self, id: i64) -> Result<RunRow, StoreError> {
        self.read_runs("r.id = ?1", id)?
            .into_iter()
            .next()
            .ok_or(StoreError::NoRun(id))
    }

    /// Whether a run is already committed (used by resume).
    pub fn has_run(
        &self,
        study: i64,
        phase: &str,
        rate: u64,
        target: &str,
        rep: u32,
    ) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT r.id FROM runs r JOIN steps s ON s.id = r.step_id
                 WHERE r.study_id = ?1 AND s.phase = ?2 AND s.rate = ?3 AND r.target = ?4 AND r.repetition = ?5",
                params![study, phase, rate as i64, target, rep],
                |r| r.get::<_, i64>(0),
            )
            .optional()
            .map(|o| o.is_some())
            .map_err(self.sql())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

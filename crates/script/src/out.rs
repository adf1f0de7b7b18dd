//! The run's files: our results file (v2, through the `Sink` API), k6's
//! NDJSON points (`--out json=FILE`), k6's CSV points (`--out csv=FILE`)
//! and the summary export.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use loadlab_core::{AttackInfo, MetricSample, Sample, SeriesInfo, Sink};
use loadlab_metrics::ResultsWriter;
use loadlab_metrics::distributed::WorkerPlan;

use crate::ScriptError;
use crate::system_tags::SystemTags;

/// A record held until the test starts (see [`Outputs::start`]).
pub(crate) enum Held {
    Series(u32, SeriesInfo),
    Sample(Sample),
    Metric(MetricSample),
}

/// The results file's header, written when the test starts: a worker's
/// record says when it began, which is known only then.
pub(crate) struct Pending {
    pub(crate) info: AttackInfo,
    pub(crate) plan: Option<WorkerPlan>,
    pub(crate) held: Vec<Held>,
}

/// A metric's thresholds (their sources) and sub-metrics (their tag filters).
type MetricDecl = (Vec<String>, Vec<Vec<(String, String)>>);

/// `--out csv=…`: the file and how its timestamps are written.
#[derive(Debug, Clone, PartialEq)]
pub struct CsvOut {
    pub path: PathBuf,
    pub time_format: CsvTime,
}

/// k6's `timeFormat` for CSV timestamps.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum CsvTime {
    /// Whole seconds since the Unix epoch (k6's default).
    #[default]
    Unix,
    UnixMilli,
    UnixMicro,
    UnixNano,
    Rfc3339,
    Rfc3339Nano,
}

impl CsvOut {
    /// k6's argument of `--out csv=…`: a file name, or
    /// `fileName=F,timeFormat=T,saveInterval=D` (the interval is accepted:
    /// loadlab writes as it goes). A `.gz` name is gzipped, as in k6.
    pub fn parse(arg: &str) -> Result<CsvOut, String> {
        let mut out = CsvOut {
            path: PathBuf::from("file.csv"),
            time_format: CsvTime::Unix,
        };
        if !arg.contains('=') {
            out.path = PathBuf::from(arg);
            return Ok(out);
        }
        for pair in arg.split(',') {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            if v.is_empty() {
                return Err(format!("couldn't parse {arg:?} as argument for csv output"));
            }
            match k {
                "fileName" => out.path = PathBuf::from(v),
                "saveInterval" => {}
                "timeFormat" => {
                    out.time_format = match v {
                        "unix" => CsvTime::Unix,
                        "unix_milli" => CsvTime::UnixMilli,
                        "unix_micro" => CsvTime::UnixMicro,
                        "unix_nano" => CsvTime::UnixNano,
                        "rfc3339" => CsvTime::Rfc3339,
                        "rfc3339_nano" => CsvTime::Rfc3339Nano,
                        _ => {
                            return Err(format!(
                                "{v:?} is not a valid CSV time format (unix, unix_milli, unix_micro, unix_nano, rfc3339, rfc3339_nano)"
                            ));
                        }
                    }
                }
                _ => return Err(format!("unknown key {k:?} as argument for csv output")),
            }
        }
        Ok(out)
    }
}

/// A CSV field as Go's `encoding/csv` writes it: quoted when it holds a
/// comma, a quote or a line break, or starts with a space.
fn csv_field(w: &mut impl Write, f: &str) -> std::io::Result<()> {
    let quote = f.contains([',', '"', '\r', '\n']) || f.starts_with([' ', '\t']) || f == "\\.";
    if quote {
        write!(w, "\"{}\"", f.replace('"', "\"\""))
    } else {
        w.write_all(f.as_bytes())
    }
}

pub struct Outputs {
    pub(crate) results: Option<(PathBuf, ResultsWriter<BufWriter<File>>)>,
    pub(crate) pending: Option<Pending>,
    pub(crate) json: Option<(PathBuf, BufWriter<File>)>,
    pub(crate) csv: Option<(PathBuf, Box<dyn Write>, CsvTime)>,
    pub(crate) json_metrics: Vec<String>,
    /// Per metric: its thresholds' sources and its sub-metrics' filters,
    /// for the JSON output's `Metric` lines (k6's `thresholds`, `submetrics`).
    pub(crate) json_decl: std::collections::HashMap<String, MetricDecl>,
    pub(crate) export: Option<PathBuf>,
    pub(crate) next_id: u32,
    pub(crate) start_unix_ns: u64,
    /// `systemTags`: the metadata points carry, and the CSV columns.
    pub(crate) sys: SystemTags,
    pub(crate) csv_cols: Vec<&'static str>,
}

pub(crate) fn create(p: &PathBuf, what: &str) -> Result<File, ScriptError> {
    File::create(p)
        .map_err(|e| ScriptError::Output(format!("cannot create {what} {}: {e}", p.display())))
}

impl Outputs {
    pub fn none() -> Outputs {
        Outputs {
            results: None,
            pending: None,
            json: None,
            csv: None,
            json_metrics: Vec::new(),
            json_decl: std::collections::HashMap::new(),
            export: None,
            next_id: 0,
            start_unix_ns: 0,
            sys: SystemTags::default(),
            csv_cols: Vec::new(),
        }
    }

    pub fn has_results(&self) -> bool {
        self.results.is_some()
    }

    /// True with `--out json=FILE` or `--out csv=FILE` (k6's points).
    pub fn has_points(&self) -> bool {
        self.json.is_some() || self.csv.is_some()
    }

    /// The test starts: the results header is written (a worker's record
    /// with `began_unix_ns`, its wall clock now), then what was held.
    pub fn start(&mut self, began_unix_ns: u64) {
        let (Some(p), Some((_, w))) = (self.pending.take(), &mut self.results) else {
            return;
        };
        let mut info = p.info;
        if let Some(wi) = &mut info.worker {
            wi.began_unix_ns = began_unix_ns;
        }
        w.begin(&info);
        if let Some(plan) = &p.plan {
            w.write_worker_plan(plan);
        }
        for h in p.held {
            match h {
                Held::Series(id, s) => w.register_series(id, &s),
                Held::Sample(s) => w.record(&s),
                Held::Metric(m) => w.metric(&m),
            }
        }
    }

    /// Hands what is buffered to the file (a worker killed later leaves a
    /// file readable up to here).
    pub fn flush(&mut self) {
        if self.pending.is_none()
            && let Some((_, w)) = &mut self.results
        {
            let _ = w.flush();
        }
    }

    /// Declares a series in the results file; returns its id.
    pub fn register(&mut self, info: SeriesInfo) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        if let Some(p) = &mut self.pending {
            p.held.push(Held::Series(id, info));
        } else if let Some((_, w)) = &mut self.results {
            w.register_series(id, &info);
        }
        id
    }

    pub fn sample(&mut self, s: &Sample) {
        if let Some(p) = &mut self.pending {
            p.held.push(Held::Sample(*s));
        } else if let Some((_, w)) = &mut self.results {
            w.record(s);
        }
    }

    pub fn metric(&mut self, series: u32, t_ns: u64, value: f64) {
        let m = MetricSample {
            series,
            t_ns,
            value,
        };
        if let Some(p) = &mut self.pending {
            p.held.push(Held::Metric(m));
        } else if let Some((_, w)) = &mut self.results {
            w.metric(&m);
        }
    }

    /// What the JSON output's `Metric` lines say of each metric, as k6: the
    /// thresholds on the metric itself, and a sub-metric per tag filter that
    /// a threshold names (`http_req_duration` has `expected_response:true`
    /// while `systemTags` keeps that tag).
    pub fn declare_thresholds(&mut self, options: &crate::config::Options) {
        for t in &options.thresholds {
            if t.filter.is_empty() {
                let e = self.json_decl.entry(t.metric.clone()).or_default();
                e.0.push(t.source.clone());
            }
        }
        let expected = (
            "http_req_duration".to_string(),
            vec![("expected_response".to_string(), "true".to_string())],
        );
        let expected = options
            .system_tags
            .has(SystemTags::EXPECTED_RESPONSE)
            .then_some(&expected);
        for (metric, filter) in options.submetrics.iter().chain(expected) {
            let e = self.json_decl.entry(metric.clone()).or_default();
            if !e.1.contains(filter) {
                e.1.push(filter.clone());
            }
        }
        for e in self.json_decl.values_mut() {
            e.1.sort();
        }
    }

    /// One k6 point: a CSV row, and a JSON point (with the metric's
    /// declaration the first time).
    pub fn point(
        &mut self,
        def: &crate::registry::MetricDef,
        unix_ns: u64,
        value: f64,
        tags: &[(String, String)],
        meta: Option<(u64, u64)>,
    ) {
        // k6's metadata: `vu` and `iter` when `systemTags` asks for them.
        let mut metadata: Vec<(&str, String)> = Vec::new();
        if let Some((vu, iter)) = meta {
            if self.sys.has(SystemTags::VU) {
                metadata.push(("vu", vu.to_string()));
            }
            if self.sys.has(SystemTags::ITER) {
                metadata.push(("iter", iter.to_string()));
            }
        }
        if let Some((_, w, time)) = &mut self.csv {
            let _ = csv_row(
                w,
                &def.name,
                (unix_ns, *time),
                value,
                tags,
                &self.csv_cols,
                &metadata,
            );
        }
        let Some((_, w)) = &mut self.json else {
            return;
        };
        let metric = def.name.as_str();
        if !self.json_metrics.iter().any(|m| m == metric) {
            self.json_metrics.push(metric.to_string());
            let contains = if def.time {
                "time"
            } else if def.data {
                "data"
            } else {
                "default"
            };
            let (thresholds, subs) = self.json_decl.get(metric).cloned().unwrap_or_default();
            let submetrics = if subs.is_empty() {
                serde_json::Value::Null
            } else {
                subs.iter()
                    .map(|f| {
                        let suffix = f
                            .iter()
                            .map(|(k, v)| format!("{k}:{v}"))
                            .collect::<Vec<_>>()
                            .join(",");
                        let tags: serde_json::Map<String, serde_json::Value> = f
                            .iter()
                            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                            .collect();
                        serde_json::json!({"name": format!("{metric}{{{suffix}}}"), "suffix": suffix, "tags": tags})
                    })
                    .collect()
            };
            let decl = serde_json::json!({
                "type": "Metric",
                "data": {"name": metric, "type": def.kind.name(), "contains": contains, "thresholds": thresholds, "submetrics": submetrics},
                "metric": metric,
            });
            let _ = writeln!(w, "{decl}");
        }
        let mut t = serde_json::Map::new();
        for (k, v) in tags {
            t.insert(k.clone(), serde_json::Value::String(v.clone()));
        }
        let mut p = serde_json::json!({
            "metric": metric,
            "type": "Point",
            "data": {
                "time": loadlab_metrics::timefmt::rfc3339(unix_ns as i128),
                "value": value,
                "tags": t,
            },
        });
        if !metadata.is_empty() {
            let m: serde_json::Map<String, serde_json::Value> = metadata
                .iter()
                .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.clone())))
                .collect();
            p["data"]["metadata"] = serde_json::Value::Object(m);
        }
        let _ = writeln!(w, "{p}");
    }

    /// Closes every file; the summary export gets `export`.
    pub fn finish(&mut self, export: serde_json::Value) -> Result<(), ScriptError> {
        if self.pending.is_some() {
            // Ended before the start (Ctrl-C while waiting): a readable file.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            self.start(now);
        }
        if let Some((p, mut w)) = self.results.take() {
            w.finish()
                .map_err(|e| ScriptError::Output(format!("writing {}: {e}", p.display())))?;
        }
        if let Some((p, mut w)) = self.json.take() {
            w.flush()
                .map_err(|e| ScriptError::Output(format!("writing {}: {e}", p.display())))?;
        }
        if let Some((p, mut w, _)) = self.csv.take() {
            w.flush()
                .map_err(|e| ScriptError::Output(format!("writing {}: {e}", p.display())))?;
            // A gzipped file ends when its encoder does.
            drop(w);
        }
        if let Some(p) = self.export.take() {
            let text = serde_json::to_string_pretty(&export).unwrap_or_default();
            std::fs::write(&p, text)
                .map_err(|e| ScriptError::Output(format!("writing {}: {e}", p.display())))?;
        }
        Ok(())
    }
}

/// One point as a row of k6's CSV output.
fn csv_row(
    w: &mut impl Write,
    metric: &str,
    (unix_ns, time): (u64, CsvTime),
    value: f64,
    tags: &[(String, String)],
    cols: &[&str],
    metadata: &[(&str, String)],
) -> std::io::Result<()> {
    csv_field(w, metric)?;
    let ts = match time {
        CsvTime::Unix => (unix_ns / 1_000_000_000).to_string(),
        CsvTime::UnixMilli => (unix_ns / 1_000_000).to_string(),
        CsvTime::UnixMicro => (unix_ns / 1_000).to_string(),
        CsvTime::UnixNano => unix_ns.to_string(),
        CsvTime::Rfc3339 => {
            loadlab_metrics::timefmt::rfc3339((unix_ns / 1_000_000_000 * 1_000_000_000) as i128)
        }
        CsvTime::Rfc3339Nano => loadlab_metrics::timefmt::rfc3339(unix_ns as i128),
    };
    write!(w, ",{ts},{value:.6}")?;
    for name in cols {
        w.write_all(b",")?;
        if let Some((_, v)) = tags.iter().find(|(k, _)| k == name) {
            csv_field(w, v)?;
        }
    }
    let extra: Vec<String> = tags
        .iter()
        .filter(|(k, _)| !cols.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    w.write_all(b",")?;
    csv_field(w, &extra.join("&"))?;
    // `metadata`: `vu` and `iter`, when `systemTags` asks for them.
    let meta: Vec<String> = metadata.iter().map(|(k, v)| format!("{k}={v}")).collect();
    w.write_all(b",")?;
    csv_field(w, &meta.join("&"))?;
    w.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system_tags::CSV_TAGS;

    #[test]
    fn csv_arguments_as_k6() {
        let c = CsvOut::parse("out.csv").unwrap();
        assert_eq!(
            (c.path, c.time_format),
            (PathBuf::from("out.csv"), CsvTime::Unix)
        );
        let c = CsvOut::parse("fileName=o.csv.gz,timeFormat=rfc3339_nano,saveInterval=5s").unwrap();
        assert_eq!(
            (c.path, c.time_format),
            (PathBuf::from("o.csv.gz"), CsvTime::Rfc3339Nano)
        );
        assert_eq!(
            CsvOut::parse("fileName=a,colour=red").unwrap_err(),
            "unknown key \"colour\" as argument for csv output"
        );
        assert_eq!(
            CsvOut::parse("fileName=").unwrap_err(),
            "couldn't parse \"fileName=\" as argument for csv output"
        );
        assert!(
            CsvOut::parse("timeFormat=weekly")
                .unwrap_err()
                .contains("\"weekly\"")
        );
    }

    #[test]
    fn csv_rows_quote_and_spill_tags_as_k6() {
        let mut buf = Vec::new();
        let tags = vec![
            ("check".to_string(), "a, \"b\"".to_string()),
            ("mine".to_string(), "x".to_string()),
            ("scenario".to_string(), "default".to_string()),
            ("z".to_string(), "y".to_string()),
        ];
        csv_row(
            &mut buf,
            "checks",
            (1_795_465_741_500_000_000, CsvTime::Unix),
            1.0,
            &tags,
            &CSV_TAGS,
            &[],
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "checks,1795465741,1.000000,\"a, \"\"b\"\"\",,,,,,,,default,,,,,,mine=x&z=y,\n"
        );
    }
}

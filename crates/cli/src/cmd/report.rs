//! `loadlab report`: reports from loadlab results and vegeta gob, JSON and CSV results.

use std::fs::File;
use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use loadlab_metrics::{GroupBy, Grouped, Metrics, ReportType, open_results};

use crate::exit::CliError;
use crate::flags;

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    /// Report type: text, json, hist[BUCKETS] (e.g. hist[0,1ms,5ms,10ms]) or hdrplot
    #[arg(long = "type", default_value = "text")]
    pub kind: String,
    /// Histogram buckets, e.g. "[0,1ms,10ms]": counted into the JSON report
    /// (-type=json), or the buckets of -type=hist
    #[arg(long)]
    pub buckets: Option<String>,
    /// Print the report again at this interval while results are still arriving
    #[arg(long, value_parser = flags::duration)]
    pub every: Option<Duration>,
    /// One report per target (method and URL), per attack name (-name), or per
    /// value of a series tag: method, url, scenario, group, endpoint,
    /// statement, worker, or tag:NAME for any tag
    #[arg(long)]
    pub by: Option<String>,
    /// Output file
    #[arg(long, default_value = "stdout")]
    pub output: String,
    /// Results files (loadlab, vegeta gob, JSON or CSV; mixed formats are merged) [default: stdin];
    /// s3://BUCKET/KEY reads an object, s3://BUCKET/PREFIX/ every object under it
    pub files: Vec<String>,
}

/// One input: a file or stdin.
pub fn open_input(name: &str) -> Result<(Box<dyn Read + Send>, String), CliError> {
    if name == "-" || name == "stdin" {
        // Results typed or pasted on a terminal end with one Ctrl-D.
        let stdin = crate::stdin::StickyEof::new(std::io::stdin());
        return Ok((Box::new(stdin), "stdin".to_string()));
    }
    let f = File::open(name).map_err(|e| CliError::io(format!("cannot read {name}: {e}")))?;
    // A local copy of an S3 object is named by its URL in warnings.
    let label = S3_LABELS
        .get()
        .and_then(|m| m.lock().ok()?.get(name).cloned())
        .unwrap_or_else(|| name.to_string());
    Ok((Box::new(f), label))
}

/// Local copy → the `s3://` URL it came from.
static S3_LABELS: std::sync::OnceLock<Mutex<std::collections::HashMap<String, String>>> =
    std::sync::OnceLock::new();

/// Reads every record of `inputs` into `m`. The lock is taken per record (it
/// is uncontended except for `-every`), so a periodic report sees every record
/// read so far, even from a slow live pipe. Warnings go to stderr.
pub fn read_into(inputs: &[String], m: &Mutex<Grouped>) -> Result<(), CliError> {
    for name in inputs {
        let (reader, label) = open_input(name)?;
        let mut results = open_results(reader, &label).map_err(read_error)?;
        while let Some(item) = results.next_item() {
            let item = item.map_err(read_error)?;
            let mut g = m
                .lock()
                .map_err(|_| CliError::internal("report state poisoned"))?;
            match item {
                loadlab_metrics::Item::Request(r) => g.add(&r),
                loadlab_metrics::Item::Metric(r) => g.add_metric(&r),
            }
        }
        let mut g = m
            .lock()
            .map_err(|_| CliError::internal("report state poisoned"))?;
        for (attack, n) in results.unsent() {
            g.add_unsent(attack, *n);
        }
        for w in results.workers() {
            g.add_worker(w);
        }
        drop(g);
        for w in results.warnings() {
            eprintln!("loadlab: warning: {w}");
        }
    }
    Ok(())
}

/// Renders a report. The text report rounds durations as vegeta's does
/// (`1.99s`, `59.997s`, `2.709ms`).
pub fn render(kind: &ReportType, g: &Grouped) -> String {
    g.render(|m: &Metrics| loadlab_metrics::render(kind, m))
}

pub fn read_error(e: loadlab_metrics::ReadError) -> CliError {
    if e.is_io() {
        CliError::io(e)
    } else {
        CliError::bad_input(e)
    }
}

/// `-buckets=[0,1ms,10ms]` (vegeta's form; the brackets may be left out):
/// lower bounds in ns, a leading 0 added as vegeta adds it.
fn buckets(s: &str) -> Result<Vec<u64>, CliError> {
    let inner = s.trim();
    let inner = inner
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .unwrap_or(inner);
    match format!("hist[{inner}]").parse::<ReportType>() {
        Ok(ReportType::Hist(b)) => Ok(b),
        Err(loadlab_metrics::ReportTypeError::BadBucket { bucket, reason, .. }) => Err(
            CliError::usage(format!("bad -buckets {s:?}: bucket {bucket:?}: {reason}")),
        ),
        _ => Err(CliError::usage(format!(
            "bad -buckets {s:?}: expected [D1,D2,...] with Go durations, e.g. [0,1ms,10ms]"
        ))),
    }
}

/// The report type, with `-buckets` applied as vegeta applies it: the
/// buckets of a `hist` report (`-type=hist` needs no brackets then), and
/// counted into a `json` report; other types ignore it.
fn report_kind(a: &ReportArgs) -> Result<(ReportType, Option<Vec<u64>>), CliError> {
    let bounds = a.buckets.as_deref().map(buckets).transpose()?;
    if a.kind.starts_with("hist")
        && let Some(b) = &bounds
    {
        return Ok((ReportType::Hist(b.clone()), None));
    }
    if a.kind == "hist" {
        return Err(CliError::usage(
            "-type=hist needs buckets: -type=hist[0,1ms,5ms] or -buckets=[0,1ms,5ms]",
        ));
    }
    let kind: ReportType = a.kind.parse().map_err(CliError::usage)?;
    let json_buckets = if kind == ReportType::Json {
        bounds
    } else {
        None
    };
    Ok((kind, json_buckets))
}

pub fn run(a: ReportArgs) -> Result<(), CliError> {
    let (kind, json_buckets) = report_kind(&a)?;
    let inputs = if a.files.is_empty() {
        vec!["stdin".to_string()]
    } else {
        a.files.clone()
    };
    // Objects in S3 are read from local copies, kept until the report is done.
    let (inputs, _downloads) = fetch_s3(inputs)?;
    let inputs = once_each(inputs);
    if inputs.iter().any(|f| f == "stdin" || f == "-") && std::io::stdin().is_terminal() {
        eprintln!(
            "loadlab: reading results from stdin (pipe `loadlab attack` into me, or name a file)"
        );
    }
    let to_stdout = a.output == "stdout" || a.output == "-";
    // As vegeta does, -every redraws the report on a cleared screen when it
    // goes to a terminal (the final report too, so that it stands alone);
    // never into a pipe or a file.
    let clear = if a.every.is_some() && to_stdout && std::io::stdout().is_terminal() {
        CLEAR_SCREEN
    } else {
        ""
    };
    let mut out: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stdout())
    } else {
        Box::new(
            File::create(&a.output)
                .map_err(|e| CliError::io(format!("cannot write {}: {e}", a.output)))?,
        )
    };
    let by: Option<GroupBy> =
        a.by.as_deref()
            .map(str::parse)
            .transpose()
            .map_err(CliError::usage)?;
    let mut grouped = Grouped::new(&kind, by);
    if let Some(b) = json_buckets {
        grouped = grouped.with_buckets(b);
    }
    let metrics = Arc::new(Mutex::new(grouped));
    match a.every {
        None => read_into(&inputs, &metrics)?,
        Some(every) => {
            let (m2, inputs2) = (metrics.clone(), inputs.clone());
            let reader = std::thread::spawn(move || read_into(&inputs2, &m2));
            // Absolute ticks, so rendering time does not stretch the interval.
            let mut next = std::time::Instant::now() + every;
            loop {
                while std::time::Instant::now() < next && !reader.is_finished() {
                    std::thread::sleep(Duration::from_millis(20));
                }
                if reader.is_finished() {
                    break;
                }
                let text = render(
                    &kind,
                    &*metrics.lock().map_err(|_| CliError::internal("poisoned"))?,
                );
                write_out(&mut out, &format!("{clear}{text}"))?;
                next += every;
            }
            reader
                .join()
                .map_err(|_| CliError::internal("the results reader panicked"))??;
        }
    }
    let text = render(
        &kind,
        &*metrics.lock().map_err(|_| CliError::internal("poisoned"))?,
    );
    write_out(&mut out, &format!("{clear}{text}"))
}

/// The inputs with each file read once: a path given twice (or two names of
/// one file) and a second copy of one worker's segment (the same attack,
/// segment, start and host) are dropped, each with a warning naming which
/// file was kept. Counting them twice would double the requests and the rate.
fn once_each(inputs: Vec<String>) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let mut files: Vec<((u64, u64), String)> = Vec::new();
    let mut segments: Vec<(String, String)> = Vec::new();
    let mut kept = Vec::new();
    for name in inputs {
        if name == "-" || name == "stdin" {
            kept.push(name);
            continue;
        }
        let Ok(m) = std::fs::metadata(&name) else {
            kept.push(name);
            continue;
        };
        if !m.is_file() {
            // A pipe (`<(loadlab attack …)`) or a device is read once as
            // it comes: peeking at its first records would lose them.
            kept.push(name);
            continue;
        }
        let id = (m.dev(), m.ino());
        if let Some((_, first)) = files.iter().find(|(f, _)| *f == id) {
            eprintln!("loadlab: warning: {name} is {first} again; read once");
            continue;
        }
        files.push((id, name.clone()));
        if let Some(seg) = segment_of(&name) {
            if let Some((_, first)) = segments.iter().find(|(s, _)| *s == seg) {
                let shown = seg.rsplit_once("; ").map_or(seg.as_str(), |(s, _)| s);
                eprintln!(
                    "loadlab: warning: {name} holds the same worker's results as {first} ({shown}); counted once, {name} dropped"
                );
                continue;
            }
            segments.push((seg, name.clone()));
        }
        kept.push(name);
    }
    kept
}

/// What identifies one worker's segment in a loadlab results file (its
/// attack, segment, planned start, actual start and host), read from the
/// file's first records; `None` for other formats or an unreadable file
/// (whose error comes when it is read for the report).
fn segment_of(name: &str) -> Option<String> {
    let (reader, label) = open_input(name).ok()?;
    let mut results = open_results(reader, &label).ok()?;
    for _ in 0..4 {
        if let Some(w) = results.workers().first() {
            let i = &w.info;
            // The actual start (ns) and host tell two runs of one segment
            // apart; the message shows the planned start.
            return Some(format!(
                "attack {:?}, segment {}/{}, started {} on {}; {}",
                &*w.attack,
                i.index,
                i.count,
                loadlab_metrics::timefmt::rfc3339(i128::from(w.start_unix_ns)),
                i.host,
                i.began_unix_ns
            ));
        }
        results.next_item()?.ok()?;
    }
    None
}

/// Replaces every `s3://` input by local copies of the object(s) it names.
fn fetch_s3(inputs: Vec<String>) -> Result<(Vec<String>, Option<tempfile::TempDir>), CliError> {
    use crate::store::{self, StoreError};
    if !inputs.iter().any(|i| i.starts_with("s3://")) {
        return Ok((inputs, None));
    }
    let dir = tempfile::tempdir()
        .map_err(|e| CliError::io(format!("cannot create a temporary folder: {e}")))?;
    let mut out = Vec::new();
    for (n, input) in inputs.into_iter().enumerate() {
        let Some(url) = store::s3_url(&input, "")? else {
            out.push(input);
            continue;
        };
        let err = |e: StoreError| match e {
            StoreError::Url(_) => CliError::usage(e),
            StoreError::Local { .. } => CliError::io(e),
            _ => CliError::network(e),
        };
        let sub = dir.path().join(n.to_string());
        std::fs::create_dir(&sub)
            .map_err(|e| CliError::io(format!("cannot create {}: {e}", sub.display())))?;
        let files = store::block_on(store::download(&url, &sub))
            .map_err(err)?
            .map_err(err)?;
        let labels = S3_LABELS.get_or_init(Default::default);
        for (path, from) in files {
            let local = path.display().to_string();
            if let Ok(mut m) = labels.lock() {
                m.insert(local.clone(), from);
            }
            out.push(local);
        }
    }
    Ok((out, Some(dir)))
}

/// Erase the screen and move the cursor home (vegeta's `-every` prefix).
const CLEAR_SCREEN: &str = "\x1b[2J\x1b[0;0H";

fn write_out(out: &mut Box<dyn Write>, text: &str) -> Result<(), CliError> {
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::io(format!("cannot write the report: {e}"))),
    }
}

/// Prints the text report of one results file on stdout (used by `attack` on a terminal).
pub fn print_text_report(path: &Path) -> Result<(), CliError> {
    let m = Mutex::new(Grouped::new(&ReportType::Text, None));
    read_into(&[path.display().to_string()], &m)?;
    let text = render(
        &ReportType::Text,
        &*m.lock().map_err(|_| CliError::internal("poisoned"))?,
    );
    let mut out: Box<dyn Write> = Box::new(std::io::stdout());
    write_out(&mut out, &text)
}

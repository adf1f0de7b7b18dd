//! `loadlab encode`: results to vegeta's JSON or CSV result encodings.

use std::fs::File;
use std::io::{BufWriter, Write};

use loadlab_metrics::{Encoder, Encoding, open_results};

use super::report::{open_input, read_error};
use crate::exit::CliError;

#[derive(Debug, clap::Args)]
pub struct EncodeArgs {
    /// Output encoding: json or csv
    #[arg(long, default_value = "json")]
    pub to: String,
    /// Output file
    #[arg(long, default_value = "stdout")]
    pub output: String,
    /// Results files (loadlab, vegeta gob, JSON or CSV) [default: stdin]
    pub files: Vec<String>,
}

pub fn run(a: EncodeArgs) -> Result<(), CliError> {
    let enc = match a.to.as_str() {
        "json" => Encoding::Json,
        "csv" => Encoding::Csv,
        "gob" => return Err(CliError::usage("-to=gob is not supported: use json or csv")),
        other => {
            return Err(CliError::usage(format!(
                "unknown encoding {other:?}: use json or csv"
            )));
        }
    };
    let inputs = if a.files.is_empty() {
        vec!["stdin".to_string()]
    } else {
        a.files.clone()
    };
    let out: Box<dyn Write> = if a.output == "stdout" || a.output == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(
            File::create(&a.output)
                .map_err(|e| CliError::io(format!("cannot write {}: {e}", a.output)))?,
        )
    };
    let mut encoder = Encoder::new(BufWriter::with_capacity(1 << 16, out), enc);
    let write_err = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            None
        } else {
            Some(CliError::io(format!("cannot write: {e}")))
        }
    };
    for name in &inputs {
        let (reader, label) = open_input(name)?;
        let mut results = open_results(reader, &label).map_err(read_error)?;
        for r in results.by_ref() {
            let r = r.map_err(read_error)?;
            if let Err(e) = encoder.encode(&r) {
                return write_err(e).map_or(Ok(()), Err);
            }
        }
        for w in results.warnings() {
            eprintln!("loadlab: warning: {w}");
        }
        for (attack, n) in results.unsent() {
            eprintln!(
                "loadlab: note: {label}: attack {attack:?} never sent {n} scheduled requests; vegeta's encodings have no place for that count"
            );
        }
        let metrics = results.metric_records();
        if metrics > 0 {
            eprintln!(
                "loadlab: note: {label}: {metrics} metric records (counters, trends, rates, gauges) left out; vegeta's encodings hold requests only"
            );
        }
    }
    match encoder.finish().and_then(|mut w| w.flush()) {
        Ok(()) => Ok(()),
        Err(e) => write_err(e).map_or(Ok(()), Err),
    }
}

//! Writers of vegeta's JSON and CSV result encodings (`loadlab encode`), with
//! vegeta's field names and column order so its own tools can read them.
//!
//! What we write, and why: `timestamp` is the **intended** send time (the
//! actual send, for a request the send clock sent early) and
//! `latency` the **corrected** latency (completion − intended send), the
//! honest figure that includes any time the request waited for its turn.
//! Their sum is still the completion time, so vegeta's `end` and `wait`
//! come out right. Bodies are not stored by loadlab, so `body` is `null` in
//! JSON and empty in CSV; `headers` likewise.

use std::io::{self, Write};

use crate::gofmt::{csv_field, json_string};
use crate::record::{Record, write_error_string};
use crate::timefmt::write_rfc3339;

/// The two encodings `loadlab encode -to=` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Json,
    Csv,
}

impl std::str::FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "json" => Ok(Encoding::Json),
            "csv" => Ok(Encoding::Csv),
            "gob" => Err("encoding \"gob\" is not supported: use json or csv".to_string()),
            other => Err(format!("unknown encoding {other:?}: use json or csv")),
        }
    }
}

/// Encodes records one per line into `out` (buffer it: each record is one
/// `write_all`).
pub struct Encoder<W: Write> {
    out: W,
    enc: Encoding,
    line: String,
    err: String,
}

impl<W: Write> Encoder<W> {
    pub fn new(out: W, enc: Encoding) -> Self {
        Encoder {
            out,
            enc,
            line: String::with_capacity(512),
            err: String::new(),
        }
    }

    pub fn encode(&mut self, r: &Record) -> io::Result<()> {
        self.line.clear();
        match self.enc {
            Encoding::Json => json_line(&mut self.line, &mut self.err, r),
            Encoding::Csv => csv_line(&mut self.line, &mut self.err, r),
        }
        self.out.write_all(self.line.as_bytes())
    }

    /// Flushes and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

fn error_text<'a>(scratch: &'a mut String, r: &'a Record) -> &'a str {
    match &r.error_text {
        Some(t) => t,
        None => {
            scratch.clear();
            write_error_string(scratch, &r.method, &r.url, r.sample.error, r.sample.status);
            scratch
        }
    }
}

/// One vegeta JSON result line (with its newline).
pub fn json_line(out: &mut String, scratch: &mut String, r: &Record) {
    use std::fmt::Write as _;
    let s = &r.sample;
    out.push_str("{\"attack\":");
    json_string(out, &r.attack);
    let _ = write!(
        out,
        ",\"seq\":{},\"code\":{},\"timestamp\":\"",
        s.seq, s.status
    );
    write_rfc3339(out, i128::from(r.abs_latency_start_ns()));
    let _ = write!(
        out,
        "\",\"latency\":{},\"bytes_out\":{},\"bytes_in\":{},\"error\":",
        s.latency_ns(),
        s.bytes_out,
        s.bytes_in
    );
    json_string(out, error_text(scratch, r));
    out.push_str(",\"body\":null,\"method\":");
    json_string(out, &r.method);
    out.push_str(",\"url\":");
    json_string(out, &r.url);
    out.push_str(",\"headers\":null}\n");
}

/// One vegeta CSV result line (with its newline).
pub fn csv_line(out: &mut String, scratch: &mut String, r: &Record) {
    use std::fmt::Write as _;
    let s = &r.sample;
    let _ = write!(
        out,
        "{},{},{},{},{},",
        r.abs_latency_start_ns(),
        s.status,
        s.latency_ns(),
        s.bytes_out,
        s.bytes_in
    );
    csv_field(out, error_text(scratch, r));
    out.push_str(",,");
    csv_field(out, &r.attack);
    let _ = write!(out, ",{},", s.seq);
    csv_field(out, &r.method);
    out.push(',');
    csv_field(out, &r.url);
    out.push_str(",\n");
}

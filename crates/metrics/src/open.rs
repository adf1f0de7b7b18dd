//! Format sniffing: one entry point that reads loadlab binary results,
//! vegeta gob, JSON or CSV results, and says clearly what anything else is.

use std::io::{BufReader, Cursor, Read};

use crate::codec::{HEADER_LEN, MAGIC, ResultsReader};
use crate::error::ReadError;
use crate::gob::{GobDecoder, looks_like_gob};
use crate::record::{Item, Record};
use crate::sniff::describe_start;
use crate::vegeta::{CsvDecoder, JsonDecoder};

/// The encodings [`open_results`] recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Loadlab,
    /// vegeta's default encoding (`vegeta attack > results.gob`).
    VegetaGob,
    VegetaJson,
    VegetaCsv,
    /// An empty input: no records.
    Empty,
}

type Source = std::io::Chain<Cursor<Vec<u8>>, Box<dyn Read + Send>>;

enum Inner {
    // Boxed: the reader is far larger than the other decoders (one per input file, so the box costs nothing).
    Loadlab(Box<ResultsReader<Source>>),
    Gob(GobDecoder<BufReader<Source>>),
    Json(JsonDecoder<BufReader<Source>>),
    Csv(CsvDecoder<Source>),
    Empty,
}

/// A stream of [`Record`]s from one input, whatever its format.
pub struct Results {
    inner: Inner,
    format: Format,
    warnings: Vec<String>,
}

impl Results {
    pub fn format(&self) -> Format {
        self.format
    }

    /// Per attack name, the requests its schedule called for that were never
    /// sent (only loadlab files record it). Complete once the iterator has
    /// returned `None`.
    pub fn unsent(&self) -> &[(std::sync::Arc<str>, u64)] {
        match &self.inner {
            Inner::Loadlab(r) => r.unsent(),
            _ => &[],
        }
    }

    /// The worker records of a split run's files (only loadlab files have
    /// them). Complete once the iterator has returned `None`.
    pub fn workers(&self) -> &[crate::distributed::WorkerSegment] {
        match &self.inner {
            Inner::Loadlab(r) => r.workers(),
            _ => &[],
        }
    }

    /// Metric records read so far (also those the [`Iterator`] passed over).
    pub fn metric_records(&self) -> u64 {
        match &self.inner {
            Inner::Loadlab(r) => r.metric_records(),
            _ => 0,
        }
    }

    /// The next request or metric record (only loadlab files of version 2
    /// and later hold metric records; the [`Iterator`] yields the requests
    /// alone).
    pub fn next_item(&mut self) -> Option<Result<Item, ReadError>> {
        match &mut self.inner {
            Inner::Loadlab(r) => r.next_item(),
            _ => self.next().map(|r| r.map(Item::Request)),
        }
    }

    /// Non-fatal problems (e.g. a truncated last record). Complete once the
    /// iterator has returned `None`.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.warnings.clone();
        match &self.inner {
            Inner::Loadlab(r) => w.extend(r.warnings().iter().cloned()),
            Inner::Gob(r) => w.extend(r.warnings().iter().cloned()),
            _ => {}
        }
        w
    }
}

impl Iterator for Results {
    type Item = Result<Record, ReadError>;
    fn next(&mut self) -> Option<<Self as Iterator>::Item> {
        match &mut self.inner {
            Inner::Loadlab(r) => r.next(),
            Inner::Gob(r) => r.next(),
            Inner::Json(r) => r.next(),
            Inner::Csv(r) => r.next(),
            Inner::Empty => None,
        }
    }
}

/// How many bytes are looked at to recognise a format.
const SNIFF: usize = 512;

/// Detects the format of `reader` from its first bytes and returns a record
/// stream. `name` (a file name or `stdin`) labels every message.
pub fn open_results<R: Read + Send + 'static>(reader: R, name: &str) -> Result<Results, ReadError> {
    let mut reader: Box<dyn Read + Send> = Box::new(reader);
    // Read only as much as the decision needs: on a live pipe
    // (`attack | report -every=1s`) more bytes may be seconds away.
    let mut head = Vec::with_capacity(SNIFF);
    let mut chunk = [0u8; SNIFF];
    let format = loop {
        let eof = head.len() >= SNIFF || {
            let want = SNIFF - head.len();
            match reader.read(&mut chunk[..want]) {
                Ok(0) => true,
                Ok(k) => {
                    head.extend_from_slice(&chunk[..k]);
                    head.len() >= SNIFF
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => false,
                Err(e) => return Err(ReadError::io(name, e)),
            }
        };
        if let Some(decided) = sniff(&head, eof, name) {
            break decided?;
        }
    };
    let mut warnings = Vec::new();
    let src: Source = Cursor::new(head.clone()).chain(reader);
    let inner = match format {
        Format::Empty => {
            if !head.is_empty() {
                warnings.push(format!(
                    "{name}: truncated file header ({} bytes); no records",
                    head.len()
                ));
            }
            Inner::Empty
        }
        Format::Loadlab => Inner::Loadlab(Box::new(ResultsReader::new(src, name)?)),
        Format::VegetaGob => Inner::Gob(GobDecoder::new(
            BufReader::with_capacity(256 * 1024, src),
            name,
        )),
        Format::VegetaJson => Inner::Json(JsonDecoder::new(
            BufReader::with_capacity(256 * 1024, src),
            name,
        )),
        Format::VegetaCsv => Inner::Csv(CsvDecoder::new(src, name)),
    };
    Ok(Results {
        inner,
        format,
        warnings,
    })
}

/// Decides the format from the first bytes, or `None` if it needs more and
/// the input has not ended (`done`: end of input or enough bytes read).
fn sniff(head: &[u8], done: bool, name: &str) -> Option<Result<Format, ReadError>> {
    if head.is_empty() {
        return done.then_some(Ok(Format::Empty));
    }
    if head.len() < HEADER_LEN && MAGIC.starts_with(&head[..head.len().min(MAGIC.len())]) {
        // A header still arriving, or cut off (warned about by the caller).
        return done.then_some(Ok(Format::Empty));
    }
    if head.starts_with(&MAGIC) {
        return Some(Ok(Format::Loadlab));
    }
    // vegeta's default encoding: its first message defines the Result type
    // (a negative type id from -64 down, which no JSON or CSV text starts
    // with). vegeta's own reader tries gob first too.
    match looks_like_gob(head) {
        Some(true) => return Some(Ok(Format::VegetaGob)),
        None if !done => return None,
        _ => {}
    }
    let Some(start) = head.iter().position(|b| !b.is_ascii_whitespace()) else {
        return done.then(|| Err(unknown(head, name)));
    };
    let text = &head[start..];
    if text[0] == b'{' {
        return Some(Ok(Format::VegetaJson));
    }
    if text[0].is_ascii_digit() || text[0] == b'-' {
        let line_end = text.iter().position(|&b| b == b'\n');
        if line_end.is_none() && !done {
            return None;
        }
        let first_line = &text[..line_end.unwrap_or(text.len())];
        if first_line.iter().filter(|&&b| b == b',').count() >= 11 {
            return Some(Ok(Format::VegetaCsv));
        }
    }
    if !done {
        return None;
    }
    Some(Err(unknown(head, name)))
}

fn unknown(head: &[u8], name: &str) -> ReadError {
    ReadError::UnknownFormat {
        name: name.to_string(),
        start: describe_start(head),
    }
}

//! Format sniffing: one entry point that reads loadlab binary results,
//! vegeta JSON or vegeta CSV results, and says clearly what anything else is.

use std::io::{BufReader, Cursor, Read};

use crate::codec::{HEADER_LEN, MAGIC, ResultsReader};
use crate::error::ReadError;
use crate::record::Record;
use crate::vegeta::{CsvDecoder, JsonDecoder};

/// The encodings [`open_results`] recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Loadlab,
    VegetaJson,
    VegetaCsv,
    /// An empty input: no records.
    Empty,
}

type Source = std::io::Chain<Cursor<Vec<u8>>, Box<dyn Read + Send>>;

enum Inner {
    Loadlab(ResultsReader<Source>),
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

    /// Non-fatal problems (e.g. a truncated last record). Complete once the
    /// iterator has returned `None`.
    pub fn warnings(&self) -> Vec<String> {
        let mut w = self.warnings.clone();
        if let Inner::Loadlab(r) = &self.inner {
            w.extend(r.warnings().iter().cloned());
        }
        w
    }
}

impl Iterator for Results {
    type Item = Result<Record, ReadError>;
    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            Inner::Loadlab(r) => r.next(),
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
    let mut head = Vec::with_capacity(SNIFF);
    (&mut reader)
        .take(SNIFF as u64)
        .read_to_end(&mut head)
        .map_err(|e| ReadError::io(name, e))?;
    let format = sniff(&head, name)?;
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
        Format::Loadlab => Inner::Loadlab(ResultsReader::new(src, name)?),
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

fn sniff(head: &[u8], name: &str) -> Result<Format, ReadError> {
    if head.is_empty() {
        return Ok(Format::Empty);
    }
    if head.len() < HEADER_LEN && MAGIC.starts_with(head) {
        return Ok(Format::Empty); // a header cut off: warned about by the caller
    }
    if head.starts_with(&MAGIC) {
        return Ok(Format::Loadlab);
    }
    let text = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(&head[..0], |i| &head[i..]);
    if text.first() == Some(&b'{') {
        return Ok(Format::VegetaJson);
    }
    let first_line = text.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let commas = first_line.iter().filter(|&&b| b == b',').count();
    if text
        .first()
        .is_some_and(|b| b.is_ascii_digit() || *b == b'-')
        && commas >= 11
    {
        return Ok(Format::VegetaCsv);
    }
    let contains = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    if contains(b"Result") && (contains(b"Attack") || contains(b"Timestamp")) {
        return Err(ReadError::Gob {
            name: name.to_string(),
        });
    }
    Err(ReadError::UnknownFormat {
        name: name.to_string(),
        start: describe_start(head),
    })
}

/// A short, printable description of the first bytes of an unknown file.
pub(crate) fn describe_start(head: &[u8]) -> String {
    if head.is_empty() {
        return "nothing: the input is empty".to_string();
    }
    if head.starts_with(&[0x1f, 0x8b]) {
        return "1f 8b: gzip-compressed data; decompress it first".to_string();
    }
    let n = head.len().min(24);
    let printable = head[..n]
        .iter()
        .all(|&b| b.is_ascii_graphic() || b == b' ' || b == b'\t' || b == b'\n' || b == b'\r');
    if printable {
        let s = String::from_utf8_lossy(&head[..n]);
        let more = if head.len() > n { "..." } else { "" };
        format!("\"{}{more}\"", s.escape_debug())
    } else {
        let hex: Vec<String> = head[..n.min(12)]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("bytes {}", hex.join(" "))
    }
}

//! [`ResultsReader`]: streams [`Record`]s out of loadlab results files,
//! including several files concatenated with `cat`, and stops with a warning
//! (not an error) at a record cut off by a crash.

use std::io::{self, Read};
use std::sync::Arc;

use loadlab_core::{AttackInfo, Sample, SeriesKind};

use super::{
    DeltaState, HEADER_LEN, MAGIC, MAX_PAYLOAD, VERSION, crc8, decode_metric, decode_sample,
    decode_series, decode_worker, get_str as read_str, get_varint, kind,
};
use crate::distributed::WorkerSegment;
use crate::error::ReadError;
use crate::record::{ErrorTexts, Item, MetricRecord, Record, SeriesDef};

/// One entry of a segment's series table.
#[derive(Clone)]
struct Entry {
    method: Arc<str>,
    url: Arc<str>,
    /// `None` for a version 1 target (method and URL only).
    series: Option<Arc<SeriesDef>>,
    /// `None` for a series kind from a later version: its records are skipped.
    kind: Option<SeriesKind>,
}

const BUF_SIZE: usize = 256 * 1024;

/// Iterator over the records of a loadlab results stream.
pub struct ResultsReader<R: Read> {
    src: R,
    name: String,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// File offset of `buf[0]`, for messages.
    base: u64,
    attack: Arc<str>,
    start_unix_ns: u64,
    targets: Vec<Option<Entry>>,
    empty: Arc<str>,
    state: DeltaState,
    /// The current segment's format version.
    version: u8,
    in_segment: bool,
    segment_samples: u64,
    total: u64,
    unknown_target_warned: bool,
    unknown_series_warned: bool,
    metrics: u64,
    warnings: Vec<String>,
    unsent: Vec<(Arc<str>, u64)>,
    /// The wire bytes a wire record gave the next sample.
    wire_in: u64,
    /// The worker records of the segments read so far, with what each
    /// segment holds; `cur_worker` indexes the current segment's.
    workers: Vec<WorkerSegment>,
    cur_worker: Option<usize>,
    done: bool,
    texts: ErrorTexts,
}

enum Step {
    Record(Record),
    Metric(MetricRecord),
    Continue,
    Stop,
}

impl<R: Read> ResultsReader<R> {
    /// Reads and checks the file header. `name` labels messages (a file name,
    /// or `stdin`).
    pub fn new(src: R, name: &str) -> Result<Self, ReadError> {
        let empty: Arc<str> = Arc::from("");
        let mut r = ResultsReader {
            src,
            name: name.to_string(),
            buf: vec![0; BUF_SIZE],
            pos: 0,
            end: 0,
            eof: false,
            base: 0,
            attack: empty.clone(),
            start_unix_ns: 0,
            targets: Vec::new(),
            empty,
            state: DeltaState::default(),
            version: VERSION,
            in_segment: false,
            segment_samples: 0,
            total: 0,
            unknown_target_warned: false,
            unknown_series_warned: false,
            metrics: 0,
            warnings: Vec::new(),
            unsent: Vec::new(),
            wire_in: 0,
            workers: Vec::new(),
            cur_worker: None,
            done: false,
            texts: ErrorTexts::default(),
        };
        if !r.fill(HEADER_LEN)? || r.buf[..MAGIC.len()] != MAGIC {
            let start = crate::sniff::describe_start(&r.buf[r.pos..r.end]);
            return Err(ReadError::UnknownFormat {
                name: r.name.clone(),
                start,
            });
        }
        r.header()?;
        Ok(r)
    }

    /// Non-fatal problems met so far (a truncated last record, an attack
    /// without its end record...). Complete once the iterator is exhausted.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Per attack (in file order), the requests its schedule called for that
    /// were never sent, for the attacks read so far that recorded any.
    /// Complete once the iterator is exhausted.
    pub fn unsent(&self) -> &[(Arc<str>, u64)] {
        &self.unsent
    }

    /// The worker records (`-segment`, `-start-at`) of the attacks read so
    /// far, each with the samples and unsent count its attack holds.
    /// Complete once the iterator is exhausted.
    pub fn workers(&self) -> &[WorkerSegment] {
        &self.workers
    }

    /// The settings of the attack (segment) being read: its name, start,
    /// and what its begin record says (timeout, `-connect-to`...).
    pub fn attack_info(&self) -> &AttackInfo {
        self.texts.info()
    }

    /// Metric records read so far.
    pub fn metric_records(&self) -> u64 {
        self.metrics
    }

    /// The next request or metric record (the [`Iterator`] yields only the
    /// requests).
    pub fn next_item(&mut self) -> Option<Result<Item, ReadError>> {
        while !self.done {
            match self.step() {
                Ok(Step::Record(r)) => return Some(Ok(Item::Request(r))),
                Ok(Step::Metric(m)) => return Some(Ok(Item::Metric(m))),
                Ok(Step::Continue) => {}
                Ok(Step::Stop) => self.done = true,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        None
    }

    /// Makes at least `n` bytes available from `pos`; false if the stream
    /// ends first.
    fn fill(&mut self, n: usize) -> Result<bool, ReadError> {
        if self.end - self.pos >= n {
            return Ok(true);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        if n > self.buf.len() {
            self.buf.resize(n.next_power_of_two(), 0);
        }
        while self.end < n && !self.eof {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(k) => self.end += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ReadError::io(&self.name, e)),
            }
        }
        Ok(self.end - self.pos >= n)
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Consumes a file header at `pos` (already known to be whole and to
    /// start with the magic) and starts a new attack segment.
    fn header(&mut self) -> Result<(), ReadError> {
        let version = self.buf[self.pos + MAGIC.len()];
        if version > VERSION {
            return Err(ReadError::UnsupportedVersion {
                name: self.name.clone(),
                version,
                supported: VERSION,
            });
        }
        self.pos += HEADER_LEN;
        self.close_segment();
        self.version = version;
        self.in_segment = true;
        self.attack = self.empty.clone();
        self.start_unix_ns = 0;
        self.targets.clear();
        self.texts.reset(AttackInfo::default());
        self.state = DeltaState::default();
        self.segment_samples = 0;
        self.cur_worker = None;
        Ok(())
    }

    fn close_segment(&mut self) {
        if self.in_segment {
            self.in_segment = false;
            self.warnings.push(format!(
                "{}: attack {:?} has no end record after {} samples: it was interrupted (or is still being written)",
                self.name, &*self.attack, self.segment_samples
            ));
        }
    }

    fn truncated(&mut self, what: &str) -> Step {
        let left = self.end - self.pos;
        self.warnings.push(format!(
            "{}: truncated {what} at byte {} ({left} trailing bytes ignored); read {} whole records",
            self.name,
            self.offset(),
            self.total
        ));
        self.in_segment = false;
        Step::Stop
    }

    fn corrupt(&mut self, what: &str) -> Step {
        self.warnings.push(format!(
            "{}: {what} at byte {}; ignoring the rest of the file after {} whole records",
            self.name,
            self.offset(),
            self.total
        ));
        self.in_segment = false;
        Step::Stop
    }

    fn step(&mut self) -> Result<Step, ReadError> {
        if !self.fill(1)? {
            self.close_segment();
            return Ok(Step::Stop);
        }
        if self.buf[self.pos] == MAGIC[0] {
            if !self.fill(HEADER_LEN)? {
                return Ok(self.truncated("file header"));
            }
            if self.buf[self.pos..self.pos + MAGIC.len()] != MAGIC {
                return Ok(self.corrupt("corrupt file header"));
            }
            self.header()?;
            return Ok(Step::Continue);
        }
        // Type, then the length varint byte by byte: never wait for bytes
        // beyond the record (a live pipe may not have them yet).
        let mut want = 2;
        let (rtype, p, len) = loop {
            if !self.fill(want)? {
                return Ok(self.truncated("record"));
            }
            let avail = &self.buf[self.pos..self.end];
            let mut p = 1;
            match get_varint(avail, &mut p) {
                Some(len) => break (avail[0], p, len),
                None if avail.len() > 10 => return Ok(self.corrupt("corrupt record length")),
                None => want = avail.len() + 1,
            }
        };
        if rtype == 0 || len > MAX_PAYLOAD {
            return Ok(self.corrupt("corrupt record (bad type or length)"));
        }
        let whole = p + len as usize + 1;
        if !self.fill(whole)? {
            return Ok(self.truncated("record"));
        }
        let rec = &self.buf[self.pos..self.pos + whole];
        if crc8(&rec[..whole - 1]) != rec[whole - 1] {
            return Ok(self.corrupt("checksum mismatch (torn or corrupt record)"));
        }
        let payload_range = self.pos + p..self.pos + whole - 1;
        self.pos += whole;
        if !self.in_segment {
            return Ok(self.corrupt("record outside an attack"));
        }
        let payload = &self.buf[payload_range];
        match rtype {
            kind::SAMPLE => {
                let Some(mut sample) = decode_sample(payload, &mut self.state) else {
                    return Err(self.bad("undecodable sample record"));
                };
                sample.wire_in = std::mem::take(&mut self.wire_in);
                self.segment_samples += 1;
                self.total += 1;
                if let Some(i) = self.cur_worker {
                    self.workers[i].samples += 1;
                }
                return Ok(Step::Record(self.make_record(sample)));
            }
            kind::WIRE_IN => {
                let mut q = 0;
                self.wire_in =
                    get_varint(payload, &mut q).ok_or_else(|| self.bad("bad wire record"))?;
            }
            kind::BEGIN => {
                self.wire_in = 0;
                let (start, info) = decode_begin(payload).map_err(|e| self.bad(e))?;
                self.attack = Arc::from(info.name.as_str());
                self.start_unix_ns = start;
                self.texts.reset(info);
            }
            kind::TARGET => {
                let Some((idx, method, url)) = decode_target(payload) else {
                    return Err(self.bad("bad target record"));
                };
                self.set_entry(
                    idx,
                    Entry {
                        method,
                        url,
                        series: None,
                        kind: Some(SeriesKind::Sample),
                    },
                )?;
            }
            kind::SERIES if self.version >= 2 => {
                let Some((id, kind, time, name, tags)) = decode_series(payload) else {
                    return Err(self.bad("bad series record"));
                };
                let def = SeriesDef {
                    kind: kind.unwrap_or_default(),
                    name: Arc::from(name),
                    time,
                    tags: tags
                        .into_iter()
                        .map(|(k, v)| (Arc::from(k), Arc::from(v)))
                        .collect(),
                };
                let tag = |key: &str| def.tag(key).map_or(self.empty.clone(), Arc::from);
                let entry = Entry {
                    method: tag(loadlab_core::series::tag::METHOD),
                    url: tag(loadlab_core::series::tag::URL),
                    series: Some(Arc::new(def)),
                    kind,
                };
                self.set_entry(id as usize, entry)?;
            }
            kind::METRIC if self.version >= 2 => {
                let Some(m) = decode_metric(payload, &mut self.state) else {
                    return Err(self.bad("undecodable metric record"));
                };
                let entry = self.targets.get(m.series as usize).and_then(Option::as_ref);
                let Some(series) = entry
                    .filter(|e| e.kind.is_some_and(|k| k != SeriesKind::Sample))
                    .and_then(|e| e.series.clone())
                else {
                    if !self.unknown_series_warned {
                        self.unknown_series_warned = true;
                        self.warnings.push(format!(
                            "{}: a metric record refers to series {}, which is not a known metric series; such records are skipped",
                            self.name, m.series
                        ));
                    }
                    return Ok(Step::Continue);
                };
                self.metrics += 1;
                // A script worker's share counts iterations: its own tally.
                if let Some(i) = self.cur_worker
                    && self.workers[i].plan.is_some()
                {
                    let n = if m.value.is_finite() && m.value > 0.0 {
                        m.value as u64
                    } else {
                        0
                    };
                    match &*series.name {
                        "iterations" => self.workers[i].iterations += n,
                        "dropped_iterations" => self.workers[i].dropped += n,
                        _ => {}
                    }
                }
                return Ok(Step::Metric(MetricRecord {
                    attack: self.attack.clone(),
                    start_unix_ns: self.start_unix_ns,
                    series,
                    t_ns: m.t_ns,
                    value: m.value,
                }));
            }
            kind::END => {
                let mut q = 0;
                let n = get_varint(payload, &mut q).ok_or_else(|| self.bad("bad end record"))?;
                if n != self.segment_samples {
                    self.warnings.push(format!(
                        "{}: attack {:?} says it wrote {n} samples but {} were read",
                        self.name, &*self.attack, self.segment_samples
                    ));
                }
                // Only another file header (a concatenated file) may follow.
                self.in_segment = false;
                if let Some(i) = self.cur_worker.take() {
                    self.workers[i].ended = true;
                }
            }
            kind::UNSENT => {
                let mut q = 0;
                let n = get_varint(payload, &mut q).ok_or_else(|| self.bad("bad unsent record"))?;
                if n > 0 {
                    self.unsent.push((self.attack.clone(), n));
                }
                if let Some(i) = self.cur_worker {
                    self.workers[i].unsent = n;
                }
            }
            kind::WORKER => return Ok(self.begin_worker(decode_worker(payload))),
            kind::WORKER_PLAN => {
                let plan = super::decode_worker_plan(payload);
                match (self.cur_worker, plan) {
                    (Some(i), Some(p)) => self.workers[i].plan = Some(p),
                    _ => self.warnings.push(format!(
                        "{}: an undecodable or misplaced worker plan record at byte {} was skipped",
                        self.name,
                        self.offset()
                    )),
                }
            }
            _ => {} // a record type from a later version: skipped by design
        }
        Ok(Step::Continue)
    }

    /// A worker record: the segment the records after it belong to
    /// (optional: one that does not decode is skipped, said once).
    fn begin_worker(&mut self, info: Option<loadlab_core::WorkerInfo>) -> Step {
        let Some(info) = info else {
            self.warnings.push(format!(
                "{}: an undecodable worker record at byte {} was skipped (the attack's segment and start are unknown)",
                self.name,
                self.offset()
            ));
            return Step::Continue;
        };
        self.workers.push(WorkerSegment {
            file: self.name.clone(),
            attack: self.attack.clone(),
            start_unix_ns: self.start_unix_ns,
            info,
            samples: 0,
            unsent: 0,
            ended: false,
            plan: None,
            iterations: 0,
            dropped: 0,
        });
        self.cur_worker = Some(self.workers.len() - 1);
        Step::Continue
    }

    fn set_entry(&mut self, idx: usize, e: Entry) -> Result<(), ReadError> {
        if idx >= 1 << 24 {
            return Err(self.bad("target index too large"));
        }
        if self.targets.len() <= idx {
            self.targets.resize(idx + 1, None);
        }
        self.targets[idx] = Some(e);
        Ok(())
    }

    fn bad(&self, msg: &str) -> ReadError {
        ReadError::malformed(&self.name, format!("byte {}", self.offset()), msg)
    }

    fn make_record(&mut self, sample: Sample) -> Record {
        let (method, url, series) = match self.targets.get(sample.target as usize) {
            Some(Some(e)) => (e.method.clone(), e.url.clone(), e.series.clone()),
            _ => {
                if !self.unknown_target_warned {
                    self.unknown_target_warned = true;
                    self.warnings.push(format!(
                        "{}: sample {} refers to unregistered target {}",
                        self.name, sample.seq, sample.target
                    ));
                }
                (self.empty.clone(), self.empty.clone(), None)
            }
        };
        let error_text = self.texts.get(&sample, &method, &url);
        Record {
            attack: self.attack.clone(),
            start_unix_ns: self.start_unix_ns,
            sample,
            method,
            url,
            error_text,
            series,
        }
    }
}

impl<R: Read> Iterator for ResultsReader<R> {
    type Item = Result<Record, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            match self.next_item()? {
                Ok(Item::Request(r)) => return Some(Ok(r)),
                Ok(Item::Metric(_)) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// An attack-start record: its start instant and the attack's settings
/// (the optional fields absent from files of older versions); the error
/// names what was wrong.
fn decode_begin(payload: &[u8]) -> Result<(u64, AttackInfo), &'static str> {
    if payload.len() < 8 {
        return Err("short attack-start record");
    }
    let start = u64::from_le_bytes(payload[..8].try_into().expect("8 bytes"));
    let mut q = 8;
    let name = read_str(payload, &mut q).ok_or("bad attack name")?;
    let mut info = AttackInfo {
        name: name.to_string(),
        start_unix_ns: start,
        ..AttackInfo::default()
    };
    // Optional fields, absent from files of older versions.
    if q < payload.len() {
        let parsed = (|| {
            info.timeout_ns = get_varint(payload, &mut q)?;
            let sock = read_str(payload, &mut q)?;
            info.unix_socket = (!sock.is_empty()).then(|| sock.to_string());
            let n = get_varint(payload, &mut q)?;
            for _ in 0..n {
                let src = read_str(payload, &mut q)?;
                let dst = read_str(payload, &mut q)?;
                info.connect_to.push((src.to_string(), dst.to_string()));
            }
            if q < payload.len() {
                info.max_headers_size = get_varint(payload, &mut q)?;
            }
            Some(())
        })();
        if parsed.is_none() {
            return Err("bad attack-start record");
        }
    }
    Ok((start, info))
}

/// A target record: its index, method and URL.
fn decode_target(payload: &[u8]) -> Option<(usize, Arc<str>, Arc<str>)> {
    let mut q = 0;
    let idx = usize::try_from(get_varint(payload, &mut q)?).ok()?;
    let method = read_str(payload, &mut q)?;
    let url = read_str(payload, &mut q)?;
    Some((idx, Arc::<str>::from(method), Arc::<str>::from(url)))
}

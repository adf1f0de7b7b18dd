//! [`ResultsWriter`]: the results-file [`Sink`]. Encodes into one reused
//! buffer (no allocation per request) and hands it to the underlying writer
//! when it fills or when [`ResultsWriter::flush_interval`] has passed, so a
//! killed attack still leaves a file readable up to its last flush.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use loadlab_core::{AttackInfo, MetricSample, Sample, SeriesInfo, Sink, TargetInfo};

use super::{
    DeltaState, MAGIC, VERSION, crc8, encode_metric, encode_sample, encode_series, encode_worker,
    kind, put_str, put_varint,
};

/// Flush when this much is buffered, whatever the time.
const BUF_LIMIT: usize = 64 * 1024;

/// Writes loadlab results (see `docs/results-format.md`) to any `Write`.
///
/// Write errors cannot be returned from [`Sink::record`]; the first one is
/// kept, later records are dropped, and [`Sink::finish`] returns it.
pub struct ResultsWriter<W: Write + Send> {
    out: W,
    buf: Vec<u8>,
    payload: Vec<u8>,
    state: DeltaState,
    began: bool,
    finished: bool,
    samples: u64,
    /// Samples and metric records: the wall clock is checked every 256.
    records: u64,
    seg_samples: u64,
    written: u64,
    last_flush: Instant,
    /// Sample clock (`done_ns`) at which the next timed flush is due.
    next_flush_ns: u64,
    flush_interval: Duration,
    error: Option<io::Error>,
    /// Tags added to every series this writer declares (e.g. `worker`).
    tags: Vec<(String, String)>,
}

impl<W: Write + Send> ResultsWriter<W> {
    pub fn new(out: W) -> Self {
        ResultsWriter {
            out,
            buf: Vec::with_capacity(BUF_LIMIT + 1024),
            payload: Vec::with_capacity(128),
            state: DeltaState::default(),
            began: false,
            finished: false,
            samples: 0,
            records: 0,
            seg_samples: 0,
            written: 0,
            last_flush: Instant::now(),
            next_flush_ns: 0,
            flush_interval: Duration::from_millis(100),
            error: None,
            tags: Vec::new(),
        }
    }

    /// Adds these tags to every series the writer declares (a series' own
    /// tag of the same key wins), e.g. `[("worker", "w1")]` for the file of
    /// one worker of a distributed run.
    pub fn with_tags(mut self, tags: Vec<(String, String)>) -> Self {
        self.tags = tags;
        self
    }

    /// How often buffered records are pushed to the underlying writer even
    /// if the buffer is not full (default 100 ms).
    pub fn flush_interval(mut self, every: Duration) -> Self {
        self.flush_interval = every;
        self
    }

    /// Samples recorded so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Bytes handed to the underlying writer so far (excluding the buffer).
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// The first write error, if any.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }

    /// Finishes (if not done yet) and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.finish()?;
        Ok(self.out)
    }

    /// Hands everything buffered to the underlying writer (and flushes
    /// it) without ending the attack: [`ResultsWriter::write_unsent`] and
    /// [`Sink::finish`] may follow.
    pub fn flush(&mut self) -> io::Result<()> {
        self.push_out(true);
        match &self.error {
            None => Ok(()),
            Some(e) => Err(io::Error::new(e.kind(), e.to_string())),
        }
    }

    /// Records how many requests the attack's schedule called for that were
    /// never sent (an optional record, before the end record that
    /// [`Sink::finish`] writes). Nothing is written for 0.
    pub fn write_unsent(&mut self, unsent: u64) {
        if unsent == 0 || !self.began || self.finished {
            return;
        }
        self.payload.clear();
        put_varint(&mut self.payload, unsent);
        self.frame(kind::UNSENT);
    }

    /// Writes a script worker's plan (`loadlab k6 run --execution-segment`:
    /// what its share counts and each segment's scheduled count), right
    /// after [`Sink::begin`] and before any other record.
    pub fn write_worker_plan(&mut self, plan: &crate::distributed::WorkerPlan) {
        if !self.began || self.finished {
            return;
        }
        self.payload.clear();
        super::encode_worker_plan(&mut self.payload, plan);
        self.frame(kind::WORKER_PLAN);
    }

    fn start_segment(&mut self, info: &AttackInfo) {
        self.buf.extend_from_slice(&MAGIC);
        self.buf.push(VERSION);
        self.buf.push(0); // flags, reserved
        self.payload.clear();
        self.payload
            .extend_from_slice(&info.start_unix_ns.to_le_bytes());
        put_str(&mut self.payload, &info.name);
        // Optional trailing fields (older readers ignore them): what error
        // texts need to name the timeout and the dialled addresses.
        put_varint(&mut self.payload, info.timeout_ns);
        put_str(
            &mut self.payload,
            info.unix_socket.as_deref().unwrap_or_default(),
        );
        put_varint(&mut self.payload, info.connect_to.len() as u64);
        for (src, dst) in &info.connect_to {
            put_str(&mut self.payload, src);
            put_str(&mut self.payload, dst);
        }
        put_varint(&mut self.payload, info.max_headers_size);
        self.frame(kind::BEGIN);
        if let Some(w) = &info.worker {
            self.payload.clear();
            encode_worker(&mut self.payload, w);
            self.frame(kind::WORKER);
        }
        self.state = DeltaState::default();
        self.next_flush_ns = 0;
        self.began = true;
        self.finished = false;
        self.seg_samples = 0;
    }

    /// Appends `payload` as a record of `kind` to the buffer.
    fn frame(&mut self, kind: u8) {
        let start = self.buf.len();
        self.buf.push(kind);
        put_varint(&mut self.buf, self.payload.len() as u64);
        self.buf.extend_from_slice(&self.payload);
        let crc = crc8(&self.buf[start..]);
        self.buf.push(crc);
    }

    fn push_out(&mut self, flush: bool) {
        if self.error.is_some() {
            self.buf.clear();
            return;
        }
        let res = self
            .out
            .write_all(&self.buf)
            .and_then(|_| if flush { self.out.flush() } else { Ok(()) });
        match res {
            Ok(()) => self.written += self.buf.len() as u64,
            Err(e) => self.error = Some(e),
        }
        self.buf.clear();
        self.last_flush = Instant::now();
    }

    /// For the rare records (begin, targets): the wall clock decides.
    fn maybe_flush(&mut self) {
        if self.buf.len() >= BUF_LIMIT || self.last_flush.elapsed() >= self.flush_interval {
            self.push_out(true);
        }
    }

    /// For samples: their own completion instant is the clock (reading the
    /// system clock per request would cost more than encoding the request
    /// on a virtual machine). The wall clock is still consulted every 256
    /// samples in case the sample clock misbehaves (e.g. a sink fed by hand).
    fn maybe_flush_sample(&mut self, done_ns: u64) {
        let interval = u64::try_from(self.flush_interval.as_nanos()).unwrap_or(u64::MAX);
        if self.buf.len() >= BUF_LIMIT
            || done_ns >= self.next_flush_ns
            || (self.records.is_multiple_of(256)
                && self.last_flush.elapsed() >= self.flush_interval)
        {
            self.push_out(true);
            self.next_flush_ns = done_ns.saturating_add(interval);
        }
    }
}

impl<W: Write + Send> Sink for ResultsWriter<W> {
    fn begin(&mut self, info: &AttackInfo) {
        self.start_segment(info);
        self.maybe_flush();
    }

    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        self.register_series(index, &SeriesInfo::http(&target.method, &target.url));
    }

    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        if !self.began {
            self.start_segment(&AttackInfo::default());
        }
        self.payload.clear();
        encode_series(&mut self.payload, id, series, &self.tags);
        self.frame(kind::SERIES);
        self.maybe_flush();
    }

    fn metric(&mut self, m: &MetricSample) {
        if !self.began {
            self.start_segment(&AttackInfo::default());
        }
        self.payload.clear();
        encode_metric(&mut self.payload, &mut self.state, m);
        self.frame(kind::METRIC);
        self.records += 1;
        self.maybe_flush_sample(m.t_ns);
    }

    fn record(&mut self, sample: &Sample) {
        if !self.began {
            self.start_segment(&AttackInfo::default());
        }
        if sample.wire_in != 0 {
            self.payload.clear();
            put_varint(&mut self.payload, sample.wire_in);
            self.frame(kind::WIRE_IN);
        }
        self.payload.clear();
        encode_sample(&mut self.payload, &mut self.state, sample);
        self.frame(kind::SAMPLE);
        self.samples += 1;
        self.records += 1;
        self.seg_samples += 1;
        self.maybe_flush_sample(sample.done_ns);
    }

    fn finish(&mut self) -> io::Result<()> {
        if self.began && !self.finished {
            self.payload.clear();
            put_varint(&mut self.payload, self.seg_samples);
            self.frame(kind::END);
            self.finished = true;
        }
        self.push_out(true);
        match &self.error {
            None => Ok(()),
            Some(e) => Err(io::Error::new(e.kind(), e.to_string())),
        }
    }
}

/// A results writer as an engine's sink whose end record waits: when the
/// engine finishes the sink, the samples are flushed but the segment is
/// not closed, so that what only the run's summary knows (the requests
/// its schedule called for that were never sent) goes in first, with
/// [`Unfinished::close`], on the writer the engine hands back.
pub struct Unfinished<W: Write + Send>(pub ResultsWriter<W>);

impl<W: Write + Send> Unfinished<W> {
    /// Records `unsent` (none when 0), then the end record, and flushes.
    pub fn close(mut self, unsent: u64) -> io::Result<()> {
        self.0.write_unsent(unsent);
        self.0.finish()
    }
}

impl<W: Write + Send> Sink for Unfinished<W> {
    fn begin(&mut self, info: &AttackInfo) {
        self.0.begin(info);
    }
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        self.0.register_target(index, target);
    }
    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        self.0.register_series(id, series);
    }
    fn record(&mut self, sample: &Sample) {
        self.0.record(sample);
    }
    fn metric(&mut self, m: &MetricSample) {
        self.0.metric(m);
    }
    fn finish(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

//! loadlab's own results file: a magic + version header, then a stream of
//! small, framed, append-only records. See `docs/results-format.md`.
//!
//! Every record is `type (1 byte) | payload length (varint) | payload |
//! CRC-8 of all the preceding bytes of the record`. The length lets a reader
//! skip record types it does not know; the length plus the checksum let it
//! stop cleanly at the last whole record of a file that was cut off (crash,
//! `kill -9`, full disk) and report that as a warning, not an error.
//!
//! Sample records are delta-encoded against the previous sample of the same
//! attack (sequence number, intended send time) and store the other instants
//! as differences, so a typical request costs about 20 bytes.
//!
//! Version 2 labels every record with a *series* (a metric name plus tags,
//! declared once per attack in a series record) and adds metric records
//! (counter, trend, rate and gauge values). Version 1 files still read: their
//! target records are HTTP request series.

mod reader;
mod writer;

pub use reader::ResultsReader;
pub use writer::{ResultsWriter, Unfinished};

/// The first bytes of every loadlab results file (and of every attack in a
/// concatenation of files). The high first byte and the CR LF / SUB bytes
/// catch files mangled by text-mode transfers, as PNG's signature does.
pub const MAGIC: [u8; 8] = *b"\x89LLRES\r\n";
/// The format version written after [`MAGIC`]; readers reject newer majors
/// (and read every older one).
pub const VERSION: u8 = 2;
/// Magic, version byte, flags byte.
pub const HEADER_LEN: usize = MAGIC.len() + 2;

/// Record types. Values below 0x40 are defined by version 1; unknown types are
/// skipped by readers (their length is known), so later versions can add
/// optional records without breaking old readers.
pub(crate) mod kind {
    /// Attack start: `start_unix_ns` (8 bytes LE), name length (varint), name.
    pub const BEGIN: u8 = 0x01;
    /// Target dictionary entry: index, method, url (varint-prefixed strings).
    pub const TARGET: u8 = 0x02;
    /// One request; see `encode_sample`.
    pub const SAMPLE: u8 = 0x03;
    /// Clean end of the attack: number of samples written (varint).
    pub const END: u8 = 0x04;
    /// Version 2: series dictionary entry (id, kind, name, tags); see
    /// `encode_series`. Replaces `TARGET` in the files loadlab writes.
    pub const SERIES: u8 = 0x05;
    /// Version 2: one metric record (series, timestamp, value); see
    /// `encode_metric`.
    pub const METRIC: u8 = 0x06;
    /// Optional (0x40 and up: skipped by readers that do not know it):
    /// requests the schedule called for that were never sent (varint);
    /// written before `END` when the count is above 0.
    pub const UNSENT: u8 = 0x40;
    /// Optional: the worker of a split run (`-segment`, `-start-at`); see
    /// `encode_worker`. Written right after `BEGIN`.
    pub const WORKER: u8 = 0x41;
    /// Optional: how a script worker's share is counted (`loadlab k6 run
    /// --execution-segment`); see `encode_worker_plan`. Right after `WORKER`.
    pub const WORKER_PLAN: u8 = 0x42;
    /// Optional: the response body bytes of the next sample as they came
    /// over the wire (varint), written before a sample whose body the
    /// engine decoded (gzip): its `bytes_in` counts the decoded bytes, as
    /// vegeta does. Readers that do not know it skip it.
    pub const WIRE_IN: u8 = 0x43;
}

/// Worker plan payload: the unit its shares count (string, `iterations`),
/// its segment as given (string, `1/3:1/2`), the sequence (string,
/// `0,1/3,1/2,1`), the number of segments (varint), then each segment's
/// scheduled count + 1 (varints, 0 = unknown). Later fields are ignored.
pub(crate) fn encode_worker_plan(out: &mut Vec<u8>, p: &crate::distributed::WorkerPlan) {
    put_str(out, &p.unit);
    put_str(out, &p.segment);
    put_str(out, &p.sequence);
    put_varint(out, p.scheduled.len() as u64);
    for s in &p.scheduled {
        put_varint(out, s.map_or(0, |n| n.saturating_add(1)));
    }
}

pub(crate) fn decode_worker_plan(p: &[u8]) -> Option<crate::distributed::WorkerPlan> {
    let mut pos = 0;
    let unit = get_str(p, &mut pos)?.to_string();
    let segment = get_str(p, &mut pos)?.to_string();
    let sequence = get_str(p, &mut pos)?.to_string();
    let n = get_varint(p, &mut pos)?;
    if n > 1 << 20 {
        return None;
    }
    let mut scheduled = Vec::with_capacity(n as usize);
    for _ in 0..n {
        scheduled.push(get_varint(p, &mut pos)?.checked_sub(1));
    }
    Some(crate::distributed::WorkerPlan {
        unit,
        segment,
        sequence,
        scheduled,
    })
}

/// Worker payload (all varints unless said): segment index, segment count,
/// `-start-at` (ns since the epoch, 0 = none), the wall clock when the
/// worker began, the send clock's resolution (ns), the whole schedule's
/// request count + 1 (0 = unknown), the clock's maximum error in ns + 1 (0 =
/// unknown), the host name (string). Later fields are ignored.
pub(crate) fn encode_worker(out: &mut Vec<u8>, w: &loadlab_core::WorkerInfo) {
    put_varint(out, w.index);
    put_varint(out, w.count);
    put_varint(out, w.start_at_unix_ns);
    put_varint(out, w.began_unix_ns);
    put_varint(out, w.resolution_ns);
    put_varint(out, w.scheduled_total.map_or(0, |n| n.saturating_add(1)));
    put_varint(out, w.clock_max_error_ns.map_or(0, |n| n.saturating_add(1)));
    put_str(out, &w.host);
}

pub(crate) fn decode_worker(p: &[u8]) -> Option<loadlab_core::WorkerInfo> {
    let mut pos = 0;
    let mut g = || get_varint(p, &mut pos);
    let (index, count) = (g()?, g()?);
    let (start_at_unix_ns, began_unix_ns, resolution_ns) = (g()?, g()?, g()?);
    let total = g()?;
    let err = g()?;
    let host = get_str(p, &mut pos)?.to_string();
    Some(loadlab_core::WorkerInfo {
        index,
        count,
        start_at_unix_ns,
        began_unix_ns,
        resolution_ns,
        scheduled_total: total.checked_sub(1),
        clock_max_error_ns: err.checked_sub(1),
        host,
    })
}

/// Largest payload a reader accepts; anything bigger is corruption.
pub(crate) const MAX_PAYLOAD: u64 = 1 << 20;

/// CRC-8 (polynomial 0x07), table driven: one lookup per byte is plenty for
/// records of about 20 bytes and catches torn or zero-filled tails.
pub(crate) fn crc8(data: &[u8]) -> u8 {
    const TABLE: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u8;
            let mut b = 0;
            while b < 8 {
                c = if c & 0x80 != 0 {
                    (c << 1) ^ 0x07
                } else {
                    c << 1
                };
                b += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    };
    let mut crc = 0u8;
    for &b in data {
        crc = TABLE[(crc ^ b) as usize];
    }
    crc
}

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint from `buf` at `*pos`; `None` if it is cut off or too long.
pub(crate) fn get_varint(buf: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let b = *buf.get(*pos)?;
        *pos += 1;
        if shift == 63 && b > 1 {
            return None;
        }
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Signed difference `a - b` of two u64 instants, zigzag-encoded so small
/// differences in either direction stay small. Wrapping makes it exact for
/// any pair of values.
pub(crate) fn zigzag_diff(a: u64, b: u64) -> u64 {
    let d = a.wrapping_sub(b) as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

/// Inverse of [`zigzag_diff`]: `b + diff`.
pub(crate) fn apply_zigzag(b: u64, z: u64) -> u64 {
    let d = ((z >> 1) as i64) ^ -((z & 1) as i64);
    b.wrapping_add(d as u64)
}

/// Delta state shared by the encoder and decoder of one attack's samples
/// (and of its metric records' timestamps).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct DeltaState {
    pub prev_seq: Option<u64>,
    pub prev_intended: u64,
    pub prev_metric_t: u64,
}

pub(crate) fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads a varint-prefixed UTF-8 string.
pub(crate) fn get_str<'a>(p: &'a [u8], pos: &mut usize) -> Option<&'a str> {
    let len = usize::try_from(get_varint(p, pos)?).ok()?;
    let s = p.get(*pos..pos.checked_add(len)?)?;
    *pos += len;
    std::str::from_utf8(s).ok()
}

/// Flag bit of a series record's kind byte: the values are durations in ns.
const TIME_FLAG: u64 = 0x08;

/// Series payload: id (varint), kind (varint: `SeriesKind` in the low 3
/// bits, `TIME_FLAG` when the values are durations), name (string), number
/// of tags (varint), each as key and value (strings). Later fields, if any,
/// are ignored by readers. `extra` tags (the writer's own, e.g. `worker`)
/// are added after the series' tags when it does not have them already.
pub(crate) fn encode_series(
    out: &mut Vec<u8>,
    id: u32,
    s: &loadlab_core::SeriesInfo,
    extra: &[(String, String)],
) {
    put_varint(out, u64::from(id));
    put_varint(out, s.kind as u64 | if s.time { TIME_FLAG } else { 0 });
    put_str(out, &s.name);
    let mut tags: Vec<(&str, &str)> = Vec::with_capacity(s.tags.len() + extra.len());
    for (k, v) in s.tags.iter().chain(extra) {
        if !tags.iter().any(|(k2, _)| k2 == k) {
            tags.push((k, v));
        }
    }
    put_varint(out, tags.len() as u64);
    for (k, v) in tags {
        put_str(out, k);
        put_str(out, v);
    }
}

/// A decoded series record: id, kind (`None` for a kind from a later
/// version), time flag, name, tags.
pub(crate) type DecodedSeries<'a> = (
    u32,
    Option<loadlab_core::SeriesKind>,
    bool,
    &'a str,
    Vec<(&'a str, &'a str)>,
);

pub(crate) fn decode_series(p: &[u8]) -> Option<DecodedSeries<'_>> {
    let mut pos = 0;
    let id = u32::try_from(get_varint(p, &mut pos)?).ok()?;
    let k = get_varint(p, &mut pos)?;
    let kind = loadlab_core::SeriesKind::from_u8((k & 0x07) as u8);
    let time = k & TIME_FLAG != 0;
    let name = get_str(p, &mut pos)?;
    let n = get_varint(p, &mut pos)?;
    // Each tag takes at least two bytes: a count beyond that is corruption.
    if n > (p.len() as u64) / 2 {
        return None;
    }
    let mut tags = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let key = get_str(p, &mut pos)?;
        let value = get_str(p, &mut pos)?;
        tags.push((key, value));
    }
    Some((id, kind, time, name, tags))
}

/// Integers of at most this magnitude are stored as varints; other values
/// (fractions, huge, NaN, -0.0) as the 8 bytes of the f64.
const EXACT_INT: f64 = 9_007_199_254_740_992.0; // 2^53

/// Metric payload: series id (varint), zigzag(t − previous metric record's
/// t) (the first counts from 0), then the value: `zigzag(v) << 1` (varint)
/// when it is an integer of magnitude below 2^53, else `1` (varint)
/// followed by the f64's 8 bytes, little-endian. Later fields are ignored.
pub(crate) fn encode_metric(
    out: &mut Vec<u8>,
    st: &mut DeltaState,
    m: &loadlab_core::MetricSample,
) {
    put_varint(out, u64::from(m.series));
    put_varint(out, zigzag_diff(m.t_ns, st.prev_metric_t));
    st.prev_metric_t = m.t_ns;
    let v = m.value;
    if v.trunc() == v && v.abs() < EXACT_INT && !(v == 0.0 && v.is_sign_negative()) {
        put_varint(out, zigzag_diff(v as i64 as u64, 0) << 1);
    } else {
        put_varint(out, 1);
        out.extend_from_slice(&v.to_bits().to_le_bytes());
    }
}

pub(crate) fn decode_metric(p: &[u8], st: &mut DeltaState) -> Option<loadlab_core::MetricSample> {
    let mut pos = 0;
    let series = u32::try_from(get_varint(p, &mut pos)?).ok()?;
    let t_ns = apply_zigzag(st.prev_metric_t, get_varint(p, &mut pos)?);
    let h = get_varint(p, &mut pos)?;
    let value = if h & 1 == 0 {
        apply_zigzag(0, h >> 1) as i64 as f64
    } else if h == 1 {
        let b = p.get(pos..pos + 8)?;
        f64::from_bits(u64::from_le_bytes(b.try_into().ok()?))
    } else {
        return None;
    };
    st.prev_metric_t = t_ns;
    Some(loadlab_core::MetricSample {
        series,
        t_ns,
        value,
    })
}

/// Sample payload, in order (all varints):
/// 1. zigzag(seq − (previous seq + 1)), 0 for the usual next-in-line
/// 2. target index (version 2: series id)
/// 3. zigzag(intended − previous intended)
/// 4. zigzag(sent − intended)            (the send lag)
/// 5. 0 if no first byte, else zigzag(first_byte − sent) + 1
/// 6. zigzag(done − (first_byte or sent))
/// 7. connect_ns
/// 8. status << 5 | error kind
/// 9. bytes_out
/// 10. bytes_in
///
/// A sample's `wire_in` (nonzero only for a decoded body) goes in a
/// [`kind::WIRE_IN`] record before it, so that the sample record, and
/// every file without decoded bodies, stays as older readers know it.
pub(crate) fn encode_sample(out: &mut Vec<u8>, st: &mut DeltaState, s: &loadlab_core::Sample) {
    let expected_seq = st.prev_seq.map_or(0, |p| p.wrapping_add(1));
    put_varint(out, zigzag_diff(s.seq, expected_seq));
    put_varint(out, u64::from(s.target));
    put_varint(out, zigzag_diff(s.intended_ns, st.prev_intended));
    put_varint(out, zigzag_diff(s.sent_ns, s.intended_ns));
    let done_base = if s.first_byte_ns == 0 {
        put_varint(out, 0);
        s.sent_ns
    } else {
        put_varint(out, zigzag_diff(s.first_byte_ns, s.sent_ns).wrapping_add(1));
        s.first_byte_ns
    };
    put_varint(out, zigzag_diff(s.done_ns, done_base));
    put_varint(out, u64::from(s.connect_ns));
    put_varint(out, (u64::from(s.status) << 5) | u64::from(s.error as u8));
    put_varint(out, s.bytes_out);
    put_varint(out, s.bytes_in);
    st.prev_seq = Some(s.seq);
    st.prev_intended = s.intended_ns;
}

/// Decodes what [`encode_sample`] wrote; `None` if the payload is malformed.
pub(crate) fn decode_sample(p: &[u8], st: &mut DeltaState) -> Option<loadlab_core::Sample> {
    let mut pos = 0;
    let mut g = || get_varint(p, &mut pos);
    let expected_seq = st.prev_seq.map_or(0, |p| p.wrapping_add(1));
    let seq = apply_zigzag(expected_seq, g()?);
    let target = u32::try_from(g()?).ok()?;
    let intended_ns = apply_zigzag(st.prev_intended, g()?);
    let sent_ns = apply_zigzag(intended_ns, g()?);
    let fb = g()?;
    let first_byte_ns = if fb == 0 {
        0
    } else {
        apply_zigzag(sent_ns, fb - 1)
    };
    let done_base = if fb == 0 { sent_ns } else { first_byte_ns };
    let done_ns = apply_zigzag(done_base, g()?);
    let connect_ns = u32::try_from(g()?).ok()?;
    let se = g()?;
    let status = u16::try_from(se >> 5).ok()?;
    // A kind added by a later version reads as a generic I/O failure.
    let error =
        loadlab_core::ErrorKind::from_u8((se & 0x1f) as u8).unwrap_or(loadlab_core::ErrorKind::Io);
    let bytes_out = g()?;
    let bytes_in = g()?;
    if pos != p.len() {
        return None;
    }
    st.prev_seq = Some(seq);
    st.prev_intended = intended_ns;
    Some(loadlab_core::Sample {
        seq,
        target,
        intended_ns,
        sent_ns,
        first_byte_ns,
        done_ns,
        connect_ns,
        status,
        error,
        bytes_out,
        bytes_in,
        // Set from a wire record before it, if any.
        wire_in: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadlab_core::{ErrorKind, Sample};

    #[test]
    fn varints_round_trip() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut pos = 0;
            assert_eq!(get_varint(&b, &mut pos), Some(v));
            assert_eq!(pos, b.len());
        }
        assert_eq!(get_varint(&[0x80], &mut 0), None);
    }

    #[test]
    fn zigzag_is_exact_for_extremes() {
        for (a, b) in [(0u64, u64::MAX), (u64::MAX, 0), (5, 7), (7, 5), (0, 0)] {
            assert_eq!(apply_zigzag(b, zigzag_diff(a, b)), a);
        }
        assert_eq!(zigzag_diff(7, 5), 4);
        assert_eq!(zigzag_diff(5, 7), 3);
    }

    #[test]
    fn samples_round_trip_including_odd_values() {
        let samples = [
            Sample {
                seq: 0,
                intended_ns: 0,
                sent_ns: 10,
                first_byte_ns: 50,
                done_ns: 60,
                status: 200,
                bytes_in: 100,
                ..Default::default()
            },
            Sample {
                seq: 2,
                target: 3,
                intended_ns: 5,
                sent_ns: 4,
                first_byte_ns: 0,
                done_ns: 1,
                status: 0,
                error: ErrorKind::Io,
                ..Default::default()
            },
            Sample {
                seq: u64::MAX,
                target: u32::MAX,
                intended_ns: u64::MAX,
                sent_ns: 0,
                first_byte_ns: 1,
                done_ns: u64::MAX,
                connect_ns: u32::MAX,
                status: u16::MAX,
                error: ErrorKind::Canceled,
                bytes_out: u64::MAX,
                bytes_in: u64::MAX,
                wire_in: 0,
            },
            Sample {
                seq: 1,
                ..Default::default()
            },
        ];
        let mut enc = DeltaState::default();
        let mut dec = DeltaState::default();
        for s in samples {
            let mut buf = Vec::new();
            encode_sample(&mut buf, &mut enc, &s);
            assert_eq!(decode_sample(&buf, &mut dec), Some(s));
        }
    }

    /// Walks the records of a one-attack file: (offset, type, whole length).
    fn records(file: &[u8]) -> Vec<(usize, u8, usize)> {
        let mut out = Vec::new();
        let mut pos = HEADER_LEN;
        while pos < file.len() {
            let mut p = pos + 1;
            let len = get_varint(file, &mut p).unwrap() as usize;
            let whole = p + len + 1 - pos;
            out.push((pos, file[pos], whole));
            pos += whole;
        }
        out
    }

    #[test]
    fn wire_bytes_ride_in_an_optional_record_older_readers_skip() {
        use loadlab_core::Sink;
        let samples: Vec<Sample> = (0..6u64)
            .map(|i| Sample {
                seq: i,
                done_ns: i * 10,
                status: 200,
                bytes_in: 60_065,
                wire_in: if i % 2 == 0 { 625 } else { 0 },
                ..Default::default()
            })
            .collect();
        let mut w = ResultsWriter::new(Vec::new());
        let t = loadlab_core::TargetInfo {
            method: "GET".into(),
            url: "http://h/".into(),
        };
        w.register_target(0, &t);
        for s in &samples {
            w.record(s);
        }
        let mut file = w.into_inner().unwrap();
        let read = |f: &[u8]| -> Vec<Sample> {
            ResultsReader::new(f, "x")
                .unwrap()
                .map(|r| r.unwrap().sample)
                .collect()
        };
        assert_eq!(read(&file), samples);
        let recs = records(&file);
        let wire: Vec<_> = recs.iter().filter(|r| r.1 == kind::WIRE_IN).collect();
        assert_eq!(wire.len(), 3, "one per decoded body, none for the others");
        // A reader that does not know the record (a type of 0x40 and up it
        // skips) reads the same samples, without their wire bytes.
        for &&(at, _, whole) in &wire {
            file[at] = 0x7f;
            file[at + whole - 1] = crc8(&file[at..at + whole - 1]);
        }
        let old: Vec<Sample> = samples
            .iter()
            .map(|s| Sample { wire_in: 0, ..*s })
            .collect();
        assert_eq!(read(&file), old);
    }
}

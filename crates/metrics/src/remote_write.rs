//! Prometheus remote write (protocol 1.0): a `WriteRequest` of time series,
//! encoded as protobuf and compressed in snappy's block format, as a
//! remote-write endpoint (Prometheus, Mimir, Grafana Cloud, …) takes it.
//! The messages are the subset of `prometheus/prompb` that samples need;
//! their field numbers are prompb's.

/// A batch of series: the body of one push.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WriteRequest {
    #[prost(message, repeated, tag = "1")]
    pub timeseries: Vec<TimeSeries>,
}

/// One series: its labels (`__name__` among them, sorted by name) and
/// samples.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TimeSeries {
    #[prost(message, repeated, tag = "1")]
    pub labels: Vec<Label>,
    #[prost(message, repeated, tag = "2")]
    pub samples: Vec<Sample>,
}

#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct Label {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    #[prost(double, tag = "1")]
    pub value: f64,
    /// Milliseconds since the Unix epoch.
    #[prost(int64, tag = "2")]
    pub timestamp: i64,
}

/// Prometheus' staleness marker: the value that ends a series.
pub const STALE_NAN: f64 = f64::from_bits(0x7ff0_0000_0000_0002);

/// The headers a push carries besides its body.
pub const HEADERS: [(&str, &str); 3] = [
    ("Content-Encoding", "snappy"),
    ("Content-Type", "application/x-protobuf"),
    ("X-Prometheus-Remote-Write-Version", "0.1.0"),
];

impl TimeSeries {
    /// A series of one sample; `labels` are sorted by name here.
    pub fn one(mut labels: Vec<Label>, value: f64, timestamp_ms: i64) -> TimeSeries {
        labels.sort_by(|a, b| a.name.cmp(&b.name));
        TimeSeries {
            labels,
            samples: vec![Sample {
                value,
                timestamp: timestamp_ms,
            }],
        }
    }

    /// The value of label `name`.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|l| l.name == name)
            .map(|l| l.value.as_str())
    }
}

/// The body of a push: the request as protobuf, snappy-compressed.
pub fn encode(series: Vec<TimeSeries>) -> Vec<u8> {
    let raw = prost::Message::encode_to_vec(&WriteRequest { timeseries: series });
    snap::raw::Encoder::new()
        .compress_vec(&raw)
        .expect("snappy takes any protobuf a push can hold")
}

/// Reads a push's body (a receiver's side: tests, and tools).
pub fn decode(body: &[u8]) -> Result<WriteRequest, String> {
    let raw = snap::raw::Decoder::new()
        .decompress_vec(body)
        .map_err(|e| format!("not snappy's block format: {e}"))?;
    <WriteRequest as prost::Message>::decode(raw.as_slice())
        .map_err(|e| format!("not a remote-write request: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(n: &str, v: &str) -> Label {
        Label {
            name: n.into(),
            value: v.into(),
        }
    }

    #[test]
    fn a_push_decodes_to_what_was_encoded() {
        let s = TimeSeries::one(
            vec![
                label("scenario", "default"),
                label("__name__", "k6_http_reqs_total"),
            ],
            12.0,
            1_795_529_777_123,
        );
        assert_eq!(s.labels[0].name, "__name__");
        let body = encode(vec![s.clone(), TimeSeries::one(vec![], STALE_NAN, 1)]);
        let back = decode(&body).unwrap();
        assert_eq!(back.timeseries[0], s);
        assert_eq!(
            back.timeseries[1].samples[0].value.to_bits(),
            STALE_NAN.to_bits()
        );
        assert!(decode(b"nonsense").is_err());
    }

    #[test]
    fn the_wire_format_is_prompbs() {
        // A label `a`="b" and a sample 1.0 at 2 ms, written by hand from
        // prompb's field numbers: WriteRequest.timeseries = 1,
        // TimeSeries.labels = 1, .samples = 2, Label.name = 1, .value = 2,
        // Sample.value = 1 (double), .timestamp = 2 (int64).
        let raw = prost::Message::encode_to_vec(&WriteRequest {
            timeseries: vec![TimeSeries::one(vec![label("a", "b")], 1.0, 2)],
        });
        let want = [
            0x0a, 0x15, // timeseries, 21 bytes
            0x0a, 0x06, 0x0a, 0x01, b'a', 0x12, 0x01, b'b', // labels
            0x12, 0x0b, 0x09, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, // samples, 11 bytes: value
            0x10, 0x02, // timestamp
        ];
        assert_eq!(raw, want);
    }
}

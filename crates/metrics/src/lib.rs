//! loadlab's results and reports: everything between the engine's sample
//! stream and the text a person (or a script) reads.
//!
//! * [`codec`]: our compact binary results file ([`ResultsWriter`] is a
//!   [`loadlab_core::Sink`]; [`ResultsReader`] streams it back), documented
//!   in `docs/results-format.md`. About 20 bytes per request; survives being
//!   cut off mid-record.
//! * [`open_results`]: reads our files and vegeta's gob, JSON and CSV results
//!   (sniffed from the first bytes), so old runs can be re-reported and mixed.
//! * [`encode`]: writes vegeta's JSON and CSV result encodings.
//! * [`dist`]: [`Distribution`], the one mergeable HDR distribution every
//!   report, face, study run and progress line uses.
//! * [`metrics`]: vegeta's figures plus HdrHistograms of the corrected
//!   latency, the uncorrected service time and the send lag.
//! * [`MetricsSink`]: a [`loadlab_core::Sink`] feeding [`Metrics`] live.
//! * [`prom`]: vegeta's Prometheus metrics of an attack in progress.
//! * [`report`]: `text`, `json`, `hist[...]` and `hdrplot` renderers with
//!   vegeta's layouts; [`Grouped`] splits a report by target or by attack.
//!
//! Everything reads [`Record`]s: a `Copy` [`loadlab_core::Sample`] plus
//! shared labels, so reading allocates only when a label changes.

pub mod buckets;
pub mod codec;
pub mod dist;
pub mod distributed;
pub mod encode;
mod error;
pub mod figures;
#[doc(hidden)]
pub mod fuzzing;
mod gob;
mod gofmt;
pub mod group;
pub mod metrics;
mod open;
pub mod prom;
mod record;
pub mod remote_write;
pub mod report;
pub mod selfcheck;
pub mod series;
mod sink;
mod sniff;
mod tabwriter;
pub mod timefmt;
pub mod vegeta;

pub use buckets::Buckets;
pub use codec::{ResultsReader, ResultsWriter, Unfinished};
pub use dist::{Distribution, Micros, Nanos};
pub use encode::{Encoder, Encoding};
pub use error::ReadError;
pub use gofmt::{json_string as go_json_string, round_duration, round_for_text};
pub use group::{GroupBy, Grouped};
pub use metrics::{DEFAULT_LATE_THRESHOLD_NS, Metrics, Summary};
pub use open::{Format, Results, open_results};
pub use prom::{PromMetrics, PromSink};
pub use record::{Item, MetricRecord, Record, SeriesDef, status_text};
pub use report::{
    ReportType, ReportTypeError, TextStyle, format_report_hdrplot, format_report_hist,
    format_report_json, format_report_text, render, text_with_style,
};
pub use sink::MetricsSink;

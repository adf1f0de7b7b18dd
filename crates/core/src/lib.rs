//! Value types shared by every loadlab crate.
//!
//! * [`duration`]: Go-style duration parsing and formatting (`1m30s`, `107.381249ms`),
//!   so flags and reports read exactly like vegeta's.
//! * [`rate`]: request rates (`400`, `400/1s`, `10/100ms`, `0`, `infinity`).
//! * [`size`]: byte sizes (`200kb`, `1mb`, `512`).
//! * [`sample`]: the fixed-size, `Copy` record of one request, and [`sample::ErrorKind`].
//! * [`pacer`]: pure, clock-free schedules: when request *n* is due, as an offset from the start.
//! * [`series`]: what a sample or metric record belongs to: a metric name plus tags.
//! * [`info`]: what a sink is told about an attack, its targets and workers.
//! * [`sink`]: the consumer interface every results destination implements.
//!
//! Nothing here does I/O or knows about sockets; everything is table-testable without a clock.

pub mod credentials;
pub mod duration;
pub mod info;
pub mod mix;
pub mod pacer;
pub mod rate;
pub mod sample;
pub mod segment;
pub mod series;
pub mod sink;
pub mod size;
pub mod start_at;

pub use duration::{DurationError, format_go_duration, parse_go_duration};
pub use info::{AttackInfo, TargetInfo, WorkerInfo};
pub use pacer::{Pacer, PacerError, PacerSpec};
pub use rate::{Rate, RateError};
pub use sample::{ErrorKind, Sample};
pub use segment::{MAX_SEGMENTS, ScheduleSegment, SegmentError};
pub use series::{MetricSample, SeriesInfo, SeriesKind};
pub use sink::{Sink, Tee};
pub use size::{SizeError, parse_size};

//! `loadlab attack` flags: vegeta's names and defaults, plus rate shapes.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::ArgAction;
use loadlab_core::Rate;

use crate::flags;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "RATE SHAPES:\n  -rate=400                        constant 400 requests/s (also 400/1s, 10/100ms)\n  -rate=0 (or infinity)            as fast as possible; needs -max-workers or -max-connections\n  -rate=100 -ramp-to=1000 -ramp-duration=60s   linear ramp, then hold 1000/s\n  -pace=30s@50,1m@200,1m@200->800  piecewise plan: DURATION@RATE or DURATION@FROM->TO; ends with the plan\n  -rate=100 -sine-amplitude=50 -sine-period=1m  sine wave around the mean\n\nResults are written to stdout (binary, compact) unless -output is given; pipe them\ninto `loadlab report`. On a terminal with no -output, a text report is printed instead."
)]
pub struct AttackArgs {
    /// Requests per time unit: FREQ[/DURATION]; 0 or infinity = as fast as possible
    #[arg(long, default_value = "50/1s", value_parser = flags::rate)]
    pub rate: Rate,
    /// Duration of the test [0 = until the targets, the plan or -max-requests end it, or Ctrl-C]
    #[arg(long, default_value = "0s", value_parser = flags::duration)]
    pub duration: Duration,
    /// Stop after this many requests
    #[arg(long)]
    pub max_requests: Option<u64>,
    /// Linear ramp: final rate (requests/s), reached after -ramp-duration, then held
    #[arg(long, requires = "ramp_duration")]
    pub ramp_to: Option<f64>,
    /// Linear ramp: how long the ramp from -rate to -ramp-to lasts
    #[arg(long, value_parser = flags::duration, requires = "ramp_to")]
    pub ramp_duration: Option<Duration>,
    /// Piecewise rate plan, e.g. "30s@50,1m@200,1m@200->800" (the attack ends with the plan)
    #[arg(long, conflicts_with_all = ["ramp_to", "sine_amplitude"])]
    pub pace: Option<String>,
    /// Sine pacer: amplitude (requests/s) around -rate
    #[arg(long, requires = "sine_period", conflicts_with = "ramp_to")]
    pub sine_amplitude: Option<f64>,
    /// Sine pacer: period of one wave
    #[arg(long, value_parser = flags::duration, requires = "sine_amplitude")]
    pub sine_period: Option<Duration>,

    /// Targets file
    #[arg(long, default_value = "stdin")]
    pub targets: String,
    /// Targets format: http or json
    #[arg(long, default_value = "http", value_parser = ["http", "json"])]
    pub format: String,
    /// Read targets lazily, as they arrive
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "false")]
    pub lazy: bool,
    /// Request body file
    #[arg(long)]
    pub body: Option<PathBuf>,
    /// Request header "Name: value" (repeatable)
    #[arg(long = "header", short = 'H', value_parser = flags::header, action = ArgAction::Append)]
    pub headers: Vec<(String, String)>,
    /// Attack name (recorded in the results)
    #[arg(long, default_value = "")]
    pub name: String,
    /// A tag KEY=VALUE every request of the results carries (repeatable), e.g.
    /// -tag=worker=w1; report -by=tag:KEY splits by it
    #[arg(long = "tag", value_parser = flags::tag, action = ArgAction::Append)]
    pub tags: Vec<(String, String)>,
    /// Output file for results
    #[arg(long, default_value = "stdout")]
    pub output: String,

    /// Initial number of workers
    #[arg(long, default_value_t = 10)]
    pub workers: u64,
    /// Maximum number of concurrent requests [default: unlimited]
    #[arg(long)]
    pub max_workers: Option<u64>,
    /// Max idle open connections per target host
    #[arg(long, default_value_t = 10000)]
    pub connections: usize,
    /// Max connections per target host [default: unlimited]
    #[arg(long)]
    pub max_connections: Option<usize>,
    /// Requests timeout [0 = no timeout]
    #[arg(long, default_value = "30s", value_parser = flags::duration)]
    pub timeout: Duration,
    /// Number of redirects to follow; -1 = don't follow but count as success
    #[arg(long, default_value_t = 10, allow_negative_numbers = true)]
    pub redirects: i32,
    /// Use persistent connections
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "true")]
    pub keepalive: bool,
    /// Send HTTP/2 requests when supported by the server (TLS, ALPN)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "true")]
    pub http2: bool,
    /// Send HTTP/2 requests without TLS (prior knowledge)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "false")]
    pub h2c: bool,
    /// Ignore invalid server TLS certificates
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "false")]
    pub insecure: bool,
    /// TLS client PEM encoded certificate file
    #[arg(long)]
    pub cert: Option<PathBuf>,
    /// TLS client PEM encoded private key file
    #[arg(long)]
    pub key: Option<PathBuf>,
    /// TLS root certificate files (comma separated list)
    #[arg(long, value_delimiter = ',')]
    pub root_certs: Vec<PathBuf>,
    /// Connect over this Unix socket instead of TCP
    #[arg(long)]
    pub unix_socket: Option<PathBuf>,
    /// Connect to DST instead of SRC: SRC_HOST:SRC_PORT:DST_HOST:DST_PORT (repeatable)
    #[arg(long, value_parser = flags::connect_to, action = ArgAction::Append)]
    pub connect_to: Vec<(String, String)>,
    /// Local IP address to bind
    #[arg(long)]
    pub laddr: Option<IpAddr>,
    /// A weighted mix: one weight per target, in the targets' order
    /// (-weights=70,20,10); each target's share of the requests holds at
    /// every instant, not only on average [default: round-robin]
    #[arg(long, value_delimiter = ',', value_name = "W,W,...")]
    pub weights: Option<Vec<u32>>,
    /// Send request bodies with chunked transfer encoding (HTTP/1.1)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "false")]
    pub chunked: bool,
    /// Resume TLS sessions on new connections (session tickets)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "false")]
    pub session_tickets: bool,
    /// Cache DNS lookups for the given duration [-1 = disabled, 0 = forever]
    #[arg(long, default_value = "0s", value_parser = flags::dns_ttl, allow_hyphen_values = true)]
    pub dns_ttl: loadlab_engine::DnsCache,
    /// (vegeta's custom DNS servers: not supported; see -connect-to)
    #[arg(long, hide = true)]
    pub resolvers: Option<String>,
    /// (vegeta's proxy CONNECT headers: not supported)
    #[arg(long, hide = true, action = ArgAction::Append)]
    pub proxy_header: Vec<String>,
    /// Serve Prometheus metrics here while the attack runs, e.g. 127.0.0.1:8880 or :8880
    #[arg(long)]
    pub prometheus_addr: Option<String>,
    /// Serve a live web dashboard while the attack runs, on ADDR (default
    /// 127.0.0.1 on a free port; the URL is printed on stderr)
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = crate::dashboard::DEFAULT_ADDR)]
    pub dashboard: Option<String>,
    /// The token a non-loopback -dashboard address requires of every request
    /// (?token=TOKEN in the URL); also LOADLAB_DASHBOARD_TOKEN
    #[arg(long, value_name = "TOKEN")]
    pub dashboard_token: Option<String>,
    /// At the end, write the dashboard with the whole run to this
    /// self-contained HTML file (opens with no network)
    #[arg(long, value_name = "FILE")]
    pub dashboard_export: Option<PathBuf>,
    /// Maximum number of response body bytes to capture (-1 = all); bytes are always counted
    #[arg(long, default_value = "-1", value_parser = flags::max_body, allow_hyphen_values = true)]
    pub max_body: i64,
    /// Ask for compressed responses (Accept-Encoding: gzip, unless a header sets it); gzip bodies count decoded in Bytes In, as in vegeta, and as received in Wire In
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "true")]
    pub compression: bool,
    /// Largest response head accepted (status line and all header fields), e.g. 1mb, 10mb
    #[arg(long, default_value = "1mb", value_parser = flags::max_headers_size)]
    pub max_headers_size: usize,
    /// Send clock window: requests due within it go out together (up to this
    /// much early, timed from their actual send) and responses are collected
    /// once per window; 0 = wake for every request at its own instant
    #[arg(long, default_value = "1ms", value_parser = flags::duration)]
    pub resolution: Duration,
    /// Send only share i of n of the schedule (0 <= i < n): the requests whose
    /// sequence number k has k mod n == i, at their global times. -rate,
    /// -duration, -max-requests and the worker limits describe the whole test
    #[arg(long, value_parser = flags::segment)]
    pub segment: Option<loadlab_core::ScheduleSegment>,
    /// Start the schedule at this instant (RFC 3339, or Unix seconds; at most
    /// 24h ahead, at most 1s past), so that every worker starts together
    #[arg(long, value_parser = flags::start_at)]
    pub start_at: Option<u64>,
    /// Replay a recorded log at its own timing (nginx/Apache combined or
    /// common, -log-format, HAR, vegeta JSON with timestamps, AWS ALB and
    /// CloudFront logs, loadlab results);
    /// see docs/replay.md
    #[arg(long, conflicts_with_all = ["pace", "ramp_to", "sine_amplitude", "lazy", "weights", "segment"])]
    pub replay: Option<PathBuf>,
    /// Replay speed: recorded offsets are divided by it (2 = twice as fast)
    #[arg(long, default_value_t = 1.0, requires = "replay")]
    pub speed: f64,
    /// Replay: start again at the end of the log (end it with -duration or -max-requests)
    #[arg(long = "loop", num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "false", requires = "replay")]
    pub looped: bool,
    /// Replay only the records START..END into the log (from its first record), e.g. 10m..20m; either end may be left out
    #[arg(long, requires = "replay", value_parser = flags::replay_window)]
    pub replay_window: Option<(Duration, Option<Duration>)>,
    /// Replay format: combined, common, har, json, alb, cloudfront, results [default: detected]
    #[arg(long, requires = "replay")]
    pub replay_format: Option<String>,
    /// Replay a custom log written with this nginx log_format, e.g. '$msec "$request" $status'
    #[arg(long, requires = "replay", conflicts_with = "replay_format")]
    pub log_format: Option<String>,
    /// Replay: the scheme://host:port for logs that record paths without a host
    #[arg(long, requires = "replay")]
    pub replay_base: Option<String>,
    /// Replay: records held to sort timestamps that go backwards
    #[arg(long, default_value_t = loadlab_engine::replay::DEFAULT_REORDER, requires = "replay")]
    pub replay_reorder: usize,
    /// Replay: a malformed line ends the attack (default: counted, reported, skipped)
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "false", requires = "replay")]
    pub strict: bool,
    /// Replay: send requests for host OLD to NEW (host[:port], or scheme://host:port) (repeatable)
    #[arg(long, value_parser = flags::rewrite_host, action = ArgAction::Append, requires = "replay")]
    pub rewrite_host: Vec<(String, String)>,
    /// Replay: drop this recorded header (repeatable), e.g. -drop-header=Cookie
    #[arg(long, action = ArgAction::Append, requires = "replay")]
    pub drop_header: Vec<String>,
    /// Replay: set this header "Name: value", replacing the recorded one (repeatable)
    #[arg(long, action = ArgAction::Append, requires = "replay")]
    pub set_header: Vec<String>,
    /// Never show live progress, even on a terminal
    #[arg(long, num_args = 0..=1, default_missing_value = "true", action = ArgAction::Set, default_value = "false")]
    pub quiet: bool,
}

//! wrk2's command line, parsed once into [`WrkOptions`].

use std::time::Duration;

use crate::getopt::{self, GetoptError, Item, Opt};
use crate::probe::{Endpoint, UrlError};

const OPTS: &[Opt] = &[
    Opt::value('c').with_long("connections"),
    Opt::value('d').with_long("duration"),
    Opt::value('t').with_long("threads"),
    Opt::value('s').with_long("script"),
    Opt::value('H').with_long("header"),
    Opt::value('R').with_long("rate"),
    Opt::flag('L').with_long("latency"),
    Opt::flag('U').with_long("u_latency"),
    Opt::flag('B').with_long("batch_latency"),
    Opt::long_only("timeout", true),
    Opt::flag('v').with_long("version"),
    Opt::flag('h').with_long("help"),
];

/// A validated wrk run.
#[derive(Debug, Clone, PartialEq)]
pub struct WrkOptions {
    pub url: String,
    pub endpoint: Endpoint,
    /// Also write every sample to this loadlab results file (not a flag of
    /// the tool: the CLI sets it from `LOADLAB_RESULTS`).
    pub results: Option<std::path::PathBuf>,
    pub threads: u64,
    pub connections: u64,
    pub duration: Duration,
    /// `-R`: total requests per second (open model). None = closed loop (wrk).
    pub rate: Option<u64>,
    pub headers: Vec<(String, String)>,
    pub timeout: Duration,
    pub latency: bool,
    pub u_latency: bool,
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum WrkCommand {
    Run(Box<WrkOptions>),
    Help,
    Version,
}

/// Why a wrk command line was rejected; each message names the flag.
#[derive(Debug, thiserror::Error)]
pub enum WrkFlagError {
    #[error("{0}")]
    Getopt(#[from] GetoptError),
    #[error(
        "-s/--script is not supported: loadlab wrk has no Lua scripting (use `loadlab attack` with a targets file for varied requests)"
    )]
    Script,
    #[error("-B/--batch_latency is not supported by loadlab wrk")]
    Batch,
    #[error("invalid value {value:?} for {flag}: {why}")]
    Value {
        flag: String,
        value: String,
        why: String,
    },
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Url(#[from] UrlError),
}

/// wrk's counts: `10`, `1k`, `2M` (metric multiples).
fn metric(flag: &str, v: &str) -> Result<u64, WrkFlagError> {
    let bad = || WrkFlagError::Value {
        flag: flag.into(),
        value: v.into(),
        why: "expected a whole number, e.g. 10, 1k".into(),
    };
    let s = v.trim();
    let (num, mult) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_lowercase() {
                'k' => 1_000,
                'm' => 1_000_000,
                'g' => 1_000_000_000,
                _ => return Err(bad()),
            };
            (&s[..i], m)
        }
        _ => (s, 1),
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    n.checked_mul(mult).ok_or_else(bad)
}

/// wrk's times: `30s`, `2m`, `1h`, a bare number of seconds, or a Go-style
/// duration such as `500ms` or `1.5s`.
fn time(flag: &str, v: &str) -> Result<Duration, WrkFlagError> {
    let bad = || WrkFlagError::Value {
        flag: flag.into(),
        value: v.into(),
        why: "expected a time such as 30s, 2m, 1h or 500ms".into(),
    };
    let s = v.trim();
    let d = if let Ok(n) = s.parse::<f64>() {
        if !(0.0..1e9).contains(&n) {
            return Err(bad());
        }
        Duration::from_secs_f64(n)
    } else {
        loadlab_core::parse_go_duration(s).map_err(|_| bad())?
    };
    if d.is_zero() {
        return Err(bad());
    }
    Ok(d)
}

/// Parses wrk's arguments (everything after `wrk`).
pub fn parse(args: &[String]) -> Result<WrkCommand, WrkFlagError> {
    let items = getopt::parse(args, OPTS)?;
    let mut o = WrkOptions {
        url: String::new(),
        results: None,
        endpoint: Endpoint {
            https: false,
            host: String::new(),
            port: 0,
            path: String::new(),
        },
        threads: 2,
        connections: 10,
        duration: Duration::from_secs(10),
        rate: None,
        headers: Vec::new(),
        timeout: Duration::from_secs(2),
        latency: false,
        u_latency: false,
    };
    let mut urls = Vec::new();
    for item in items {
        let (k, v) = match item {
            Item::Positional(p) => {
                urls.push(p);
                continue;
            }
            Item::Opt { key, value } => (key, value.unwrap_or_default()),
        };
        match k.as_str() {
            "h" => return Ok(WrkCommand::Help),
            "v" => return Ok(WrkCommand::Version),
            "s" => return Err(WrkFlagError::Script),
            "B" => return Err(WrkFlagError::Batch),
            "c" => o.connections = metric("-c", &v)?,
            "t" => o.threads = metric("-t", &v)?,
            "d" => o.duration = time("-d", &v)?,
            "timeout" => o.timeout = time("--timeout", &v)?,
            "R" => o.rate = Some(metric("-R", &v)?),
            "L" => o.latency = true,
            "U" => o.u_latency = true,
            "H" => {
                let Some((name, value)) = v.split_once(':') else {
                    return Err(WrkFlagError::Value {
                        flag: "-H".into(),
                        value: v,
                        why: "expected \"Name: value\"".into(),
                    });
                };
                o.headers
                    .push((name.trim().to_string(), value.trim().to_string()));
            }
            other => {
                return Err(WrkFlagError::Getopt(GetoptError::Unknown(
                    other.to_string(),
                )));
            }
        }
    }
    o.url = match urls.as_slice() {
        [u] => u.clone(),
        [] => {
            return Err(WrkFlagError::Usage(
                "missing URL: loadlab wrk <options> <url>".into(),
            ));
        }
        _ => {
            return Err(WrkFlagError::Usage(format!(
                "expected one URL, got {}: {}",
                urls.len(),
                urls.join(" ")
            )));
        }
    };
    o.endpoint = Endpoint::parse(&o.url)?;
    if o.threads == 0 {
        return Err(WrkFlagError::Usage("-t must be at least 1".into()));
    }
    if o.connections < o.threads {
        return Err(WrkFlagError::Usage(format!(
            "number of connections must be >= threads (-c {} < -t {})",
            o.connections, o.threads
        )));
    }
    if o.rate == Some(0) {
        return Err(WrkFlagError::Usage(
            "-R must be at least 1 request per second".into(),
        ));
    }
    Ok(WrkCommand::Run(Box::new(o)))
}

/// `-h`: wrk2's option list.
pub const USAGE: &str = "\
Usage: loadlab wrk <options> <url>
  Options:
    -c, --connections <N>  Connections to keep open   (default 10)
    -d, --duration    <T>  Duration of test           (default 10s)
    -t, --threads     <N>  Number of threads to use   (default 2)

    -H, --header      <H>  Add header to request
    -L  --latency          Print latency statistics
    -U  --u_latency        Print uncorrected latency statistics
        --timeout     <T>  Socket/request timeout     (default 2s)
    -R  --rate        <T>  Work rate (throughput) in requests/sec (total);
                           without it, a closed loop as fast as -c allows
    -v, --version          Print version details

  Numeric arguments may include a SI unit (1k, 1M, 1G)
  Time arguments may include a time unit (2s, 2m, 2h, 500ms)
  Not supported: -s/--script (Lua), -B/--batch_latency (see docs/faces.md)
";

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &[&str]) -> Result<WrkCommand, WrkFlagError> {
        parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }
    fn run(v: &[&str]) -> WrkOptions {
        match p(v).unwrap() {
            WrkCommand::Run(o) => *o,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn seed_command() {
        let o = run(&["-t2", "-c10", "-d30s", "-R1000", "http://h:8084/"]);
        assert_eq!(
            (o.threads, o.connections, o.duration, o.rate),
            (2, 10, Duration::from_secs(30), Some(1000))
        );
        assert_eq!(o.timeout, Duration::from_secs(2));
        assert!(!o.latency);
    }

    #[test]
    fn long_forms_and_units() {
        let o = run(&[
            "--threads",
            "1",
            "--connections=2k",
            "--duration",
            "2m",
            "--latency",
            "-U",
            "--timeout",
            "500ms",
            "-R",
            "1k",
            "-H",
            "X-A: 1",
            "http://h/",
        ]);
        assert_eq!(
            (o.threads, o.connections, o.duration),
            (1, 2000, Duration::from_secs(120))
        );
        assert_eq!(
            (o.rate, o.timeout),
            (Some(1000), Duration::from_millis(500))
        );
        assert!(o.latency && o.u_latency);
        assert_eq!(o.headers, vec![("X-A".to_string(), "1".to_string())]);
        assert_eq!(
            run(&["-d", "1.5", "http://h/"]).duration,
            Duration::from_millis(1500)
        );
    }

    #[test]
    fn rejections() {
        let e = p(&["-s", "x.lua", "http://h/"]).unwrap_err().to_string();
        assert!(e.contains("Lua"), "{e}");
        assert!(
            p(&["-t4", "-c2", "http://h/"])
                .unwrap_err()
                .to_string()
                .contains(">= threads")
        );
        assert!(
            p(&["-d", "soon", "http://h/"])
                .unwrap_err()
                .to_string()
                .contains("-d")
        );
        assert!(
            p(&["-c", "x", "http://h/"])
                .unwrap_err()
                .to_string()
                .contains("-c")
        );
        assert!(p(&["-R", "0", "http://h/"]).is_err());
        assert!(p(&[]).unwrap_err().to_string().contains("missing URL"));
        assert!(matches!(p(&["--version"]).unwrap(), WrkCommand::Version));
    }
}

//! ab's command line, parsed once into [`AbOptions`].

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;

use crate::getopt::{self, GetoptError, Item, Opt};
use crate::probe::{Endpoint, UrlError};

/// ab's own cap on `-c`.
pub const MAX_CONCURRENCY: u64 = 20_000;
/// `-t` without `-n` implies this many requests, as in ab.
pub const TIMELIMIT_REQUESTS: u64 = 50_000;

const OPTS: &[Opt] = &[
    Opt::value('n'),
    Opt::value('c'),
    Opt::value('t'),
    Opt::value('s'),
    Opt::value('p'),
    Opt::value('u'),
    Opt::value('T'),
    Opt::value('v'),
    Opt::value('C'),
    Opt::value('H'),
    Opt::value('A'),
    Opt::value('m'),
    Opt::value('g'),
    Opt::value('e'),
    Opt::flag('k'),
    Opt::flag('q'),
    Opt::flag('l'),
    Opt::flag('r'),
    Opt::flag('i'),
    Opt::flag('d'),
    Opt::flag('S'),
    // ab itself knows only -h and -V; the long spellings are what users of
    // every other tool try first.
    Opt::flag('h').with_long("help"),
    Opt::flag('V').with_long("version"),
    // Known to ab, rejected here (see UNSUPPORTED).
    Opt::value('b'),
    Opt::value('B'),
    Opt::flag('w'),
    Opt::value('x'),
    Opt::value('y'),
    Opt::value('z'),
    Opt::value('X'),
    Opt::value('P'),
    Opt::value('Z'),
    Opt::value('f'),
    Opt::value('E'),
    Opt::flag('I'),
];

/// ab flags loadlab does not implement, with the reason given to the user.
pub const UNSUPPORTED: &[(char, &str)] = &[
    ('b', "TCP send/receive buffer size"),
    ('B', "local address to bind"),
    ('w', "HTML table output"),
    ('x', "HTML table attributes"),
    ('y', "HTML tr attributes"),
    ('z', "HTML td attributes"),
    ('X', "proxy"),
    ('P', "proxy authentication"),
    ('Z', "cipher suite selection"),
    ('f', "TLS protocol selection"),
    ('E', "client certificate"),
    ('I', "disabling TLS SNI"),
];

/// A validated ab run.
#[derive(Debug, Clone, PartialEq)]
pub struct AbOptions {
    pub url: String,
    pub endpoint: Endpoint,
    /// Also write every sample to this loadlab results file (not a flag of
    /// the tool: the CLI sets it from `LOADLAB_RESULTS`).
    pub results: Option<std::path::PathBuf>,
    pub requests: u64,
    pub concurrency: u64,
    pub timelimit: Option<Duration>,
    pub timeout: Duration,
    pub keepalive: bool,
    pub method: String,
    /// Extra request headers (`-H`, `-C`, `-A`, `-T`), in order.
    pub headers: Vec<(String, String)>,
    /// Request body (`-p`/`-u` file contents).
    pub body: Option<Vec<u8>>,
    pub verbosity: u32,
    pub gnuplot: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub variable_length: bool,
    pub quiet: bool,
    pub percentiles: bool,
    pub confidence: bool,
}

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum AbCommand {
    Run(Box<AbOptions>),
    Help,
    Version,
}

/// Why an ab command line was rejected; each message names the flag.
#[derive(Debug, thiserror::Error)]
pub enum AbFlagError {
    #[error("{0}")]
    Getopt(#[from] GetoptError),
    #[error("{flag} is not supported by loadlab ab ({what}); unsupported ab flags: {all}")]
    Unsupported {
        flag: String,
        what: &'static str,
        all: String,
    },
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
    #[error("cannot read {flag} file {path}: {err}")]
    File {
        flag: String,
        path: String,
        err: std::io::Error,
    },
}

fn num(flag: char, v: &str) -> Result<u64, AbFlagError> {
    v.trim().parse::<u64>().map_err(|_| AbFlagError::Value {
        flag: format!("-{flag}"),
        value: v.to_string(),
        why: "expected a whole number".into(),
    })
}

fn seconds(flag: char, v: &str) -> Result<Duration, AbFlagError> {
    let bad = |why: &str| AbFlagError::Value {
        flag: format!("-{flag}"),
        value: v.to_string(),
        why: why.into(),
    };
    let f: f64 = v
        .trim()
        .parse()
        .map_err(|_| bad("expected seconds, e.g. 30"))?;
    if !(f > 0.0 && f.is_finite() && f < 1e9) {
        return Err(bad("must be a positive number of seconds"));
    }
    Ok(Duration::from_secs_f64(f))
}

/// The flags as given, before the checks that need them all.
struct Given {
    requests: Option<u64>,
    concurrency: u64,
    timelimit: Option<Duration>,
    timeout: Duration,
    keepalive: bool,
    method: Option<String>,
    headers: Vec<(String, String)>,
    cookies: Vec<String>,
    content_type: Option<String>,
    body_file: Option<(char, String)>,
    head: bool,
    urls: Vec<String>,
}

/// Parses ab's arguments (everything after `ab`).
pub fn parse(args: &[String]) -> Result<AbCommand, AbFlagError> {
    let items = getopt::parse(args, OPTS)?;
    let mut g = Given {
        requests: None,
        concurrency: 1,
        timelimit: None,
        timeout: Duration::from_secs(30),
        keepalive: false,
        method: None,
        headers: Vec::new(),
        cookies: Vec::new(),
        content_type: None,
        body_file: None,
        head: false,
        urls: Vec::new(),
    };
    let mut o = AbOptions {
        url: String::new(),
        results: None,
        endpoint: Endpoint {
            https: false,
            host: String::new(),
            port: 0,
            path: String::new(),
        },
        requests: 1,
        concurrency: 1,
        timelimit: None,
        timeout: g.timeout,
        keepalive: g.keepalive,
        method: String::new(),
        headers: Vec::new(),
        body: None,
        verbosity: 1,
        gnuplot: None,
        csv: None,
        variable_length: false,
        quiet: false,
        percentiles: true,
        confidence: true,
    };
    for item in items {
        let (k, v) = match item {
            Item::Positional(p) => {
                g.urls.push(p);
                continue;
            }
            Item::Opt { key, value } => {
                (key.chars().next().unwrap_or('?'), value.unwrap_or_default())
            }
        };
        if let Some(c) = flag(&mut g, &mut o, k, v)? {
            return Ok(c);
        }
    }
    let url = target_url(&g.urls)?;
    o.endpoint = Endpoint::parse(&url)?;
    o.url = url;
    request(&mut g, &mut o)?;
    limits(g, o)
}

/// One flag into `g` or `o`; `Some` for `-h` and `-V`.
fn flag(
    g: &mut Given,
    o: &mut AbOptions,
    k: char,
    v: String,
) -> Result<Option<AbCommand>, AbFlagError> {
    if let Some((_, what)) = UNSUPPORTED.iter().find(|(c, _)| *c == k) {
        let all = UNSUPPORTED
            .iter()
            .map(|(c, _)| format!("-{c}"))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(AbFlagError::Unsupported {
            flag: format!("-{k}"),
            what,
            all,
        });
    }
    match k {
        'h' => return Ok(Some(AbCommand::Help)),
        'V' => return Ok(Some(AbCommand::Version)),
        'n' => g.requests = Some(num(k, &v)?),
        'c' => g.concurrency = num(k, &v)?,
        't' => g.timelimit = Some(seconds(k, &v)?),
        's' => g.timeout = seconds(k, &v)?,
        'k' => g.keepalive = true,
        'q' => o.quiet = true,
        'l' => o.variable_length = true,
        'r' => {} // loadlab never aborts on receive errors; see docs/faces.md.
        'd' => o.percentiles = false,
        'S' => o.confidence = false,
        'i' => g.head = true,
        'v' => o.verbosity = num(k, &v)? as u32,
        'g' => o.gnuplot = Some(PathBuf::from(v)),
        'e' => o.csv = Some(PathBuf::from(v)),
        'm' => g.method = Some(v),
        'T' => g.content_type = Some(v),
        'C' => g.cookies.push(v),
        'p' | 'u' => {
            if g.body_file.as_ref().is_some_and(|(c, _)| *c != k) {
                return Err(AbFlagError::Usage(
                    "cannot mix -p (POST) and -u (PUT)".into(),
                ));
            }
            g.body_file = Some((k, v));
        }
        'A' => {
            if !v.contains(':') {
                return Err(AbFlagError::Value {
                    flag: "-A".into(),
                    value: v,
                    why: "expected user:password".into(),
                });
            }
            let enc = base64::engine::general_purpose::STANDARD.encode(v.as_bytes());
            g.headers
                .push(("Authorization".into(), format!("Basic {enc}")));
        }
        'H' => g.headers.push(header(v)?),
        _ => return Err(AbFlagError::Getopt(GetoptError::Unknown(format!("-{k}")))),
    }
    Ok(None)
}

/// `-H "Name: value"`.
fn header(v: String) -> Result<(String, String), AbFlagError> {
    let Some((name, value)) = v.split_once(':') else {
        return Err(AbFlagError::Value {
            flag: "-H".into(),
            value: v,
            why: "expected \"Name: value\"".into(),
        });
    };
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(AbFlagError::Value {
            flag: "-H".into(),
            value: v.clone(),
            why: "bad header name".into(),
        });
    }
    Ok((name.to_string(), value.trim().to_string()))
}

/// The one URL; ab assumes http:// when it has no scheme
/// (`ab 127.0.0.1:8080/`).
fn target_url(urls: &[String]) -> Result<String, AbFlagError> {
    let url = match urls {
        [u] => u.clone(),
        [] => {
            return Err(AbFlagError::Usage(
                "missing URL: loadlab ab [options] [http[s]://]hostname[:port]/path".into(),
            ));
        }
        _ => {
            return Err(AbFlagError::Usage(format!(
                "expected one URL, got {}: {}",
                urls.len(),
                urls.join(" ")
            )));
        }
    };
    Ok(if url.contains("://") {
        url
    } else {
        format!("http://{url}")
    })
}

/// The request: cookies, the body file (`-p`/`-u`) and its type, the
/// method.
fn request(g: &mut Given, o: &mut AbOptions) -> Result<(), AbFlagError> {
    if !g.cookies.is_empty() {
        g.headers.push(("Cookie".into(), g.cookies.join("; ")));
    }
    if let Some((flag, path)) = g.body_file.take() {
        if g.head {
            return Err(AbFlagError::Usage(
                "cannot mix HEAD (-i) with POST/PUT (-p/-u)".into(),
            ));
        }
        let body = std::fs::read(&path).map_err(|err| AbFlagError::File {
            flag: format!("-{flag}"),
            path: path.clone(),
            err,
        })?;
        o.body = Some(body);
        g.method.get_or_insert_with(|| {
            if flag == 'p' {
                "POST".into()
            } else {
                "PUT".into()
            }
        });
        g.headers.push((
            "Content-Type".into(),
            g.content_type.take().unwrap_or_else(|| "text/plain".into()),
        ));
    } else if let Some(ct) = g.content_type.take() {
        g.headers.push(("Content-Type".into(), ct));
    }
    o.method = match (g.method.take(), g.head) {
        (Some(m), _) => m.to_ascii_uppercase(),
        (None, true) => "HEAD".into(),
        (None, false) => "GET".into(),
    };
    if http::Method::from_bytes(o.method.as_bytes()).is_err() {
        return Err(AbFlagError::Value {
            flag: "-m".into(),
            value: o.method.clone(),
            why: "not an HTTP method".into(),
        });
    }
    Ok(())
}

/// The number of requests and the concurrency, checked together.
fn limits(g: Given, mut o: AbOptions) -> Result<AbCommand, AbFlagError> {
    o.requests = match (g.requests, g.timelimit) {
        (Some(n), _) => n,
        (None, Some(_)) => TIMELIMIT_REQUESTS,
        (None, None) => 1,
    };
    if o.requests == 0 {
        return Err(AbFlagError::Usage("-n must be at least 1".into()));
    }
    let concurrency = g.concurrency;
    if concurrency == 0 || concurrency > MAX_CONCURRENCY {
        return Err(AbFlagError::Usage(format!(
            "invalid concurrency -c {concurrency}: must be 1..{MAX_CONCURRENCY}"
        )));
    }
    if concurrency > o.requests {
        return Err(AbFlagError::Usage(format!(
            "cannot use concurrency level greater than total number of requests (-c {concurrency} > -n {})",
            o.requests
        )));
    }
    o.concurrency = concurrency;
    o.timelimit = g.timelimit;
    o.timeout = g.timeout;
    o.keepalive = g.keepalive;
    o.headers = g.headers;
    Ok(AbCommand::Run(Box::new(o)))
}

/// `-h`: ab's option list, limited to what loadlab ab implements.
pub const USAGE: &str = "\
Usage: loadlab ab [options] [http[s]://]hostname[:port]/path
Options are:
    -n requests     Number of requests to perform
    -c concurrency  Number of multiple requests to make at a time
    -t timelimit    Seconds to max. to spend on benchmarking
                    This implies -n 50000
    -s timeout      Seconds to max. wait for each response
                    Default is 30 seconds
    -p postfile     File containing data to POST. Remember also to set -T
    -u putfile      File containing data to PUT. Remember also to set -T
    -T content-type Content-type header to use for POST/PUT data, eg.
                    'application/x-www-form-urlencoded'
                    Default is 'text/plain'
    -v verbosity    How much troubleshooting info to print
    -i              Use HEAD instead of GET
    -C attribute    Add cookie, eg. 'Apache=1234'. (repeatable)
    -H attribute    Add Arbitrary header line, eg. 'Accept-Encoding: gzip'
                    Inserted after all normal header lines. (repeatable)
    -A attribute    Add Basic WWW Authentication, the attributes
                    are a colon separated username and password.
    -V, --version   Print version number and exit
    -k              Use HTTP KeepAlive feature
    -d              Do not show percentiles served table.
    -S              Do not show confidence estimators and warnings.
    -q              Do not show progress when doing more than 150 requests
    -l              Accept variable document length (use this for dynamic pages)
    -g filename     Output collected data to gnuplot format file.
    -e filename     Output CSV file with percentages served
    -r              Don't exit on socket receive errors (loadlab never does).
    -m method       Method name
    -h, --help      Display usage information (this message)
Not supported: -b -B -w -x -y -z -X -P -Z -f -E -I (see docs/faces.md)
";

#[cfg(test)]
mod tests {
    use super::*;

    fn p(v: &[&str]) -> Result<AbCommand, AbFlagError> {
        parse(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }
    fn run(v: &[&str]) -> AbOptions {
        match p(v).unwrap() {
            AbCommand::Run(o) => *o,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn seed_command() {
        let o = run(&[
            "-c",
            "10",
            "-n",
            "1000",
            "-g",
            "out.data",
            "http://h/~Lars/md3/",
        ]);
        assert_eq!((o.concurrency, o.requests), (10, 1000));
        assert_eq!(o.gnuplot.as_deref(), Some(std::path::Path::new("out.data")));
        assert_eq!(o.method, "GET");
        assert!(!o.keepalive);
        assert_eq!(o.endpoint.path, "/~Lars/md3/");
    }

    #[test]
    fn headers_cookies_auth() {
        let o = run(&[
            "-kq",
            "-H",
            "X-A: 1",
            "-C",
            "a=1",
            "-C",
            "b=2",
            "-A",
            "u:p",
            "-t",
            "5",
            "http://h/",
        ]);
        assert!(o.keepalive && o.quiet);
        assert_eq!(o.requests, TIMELIMIT_REQUESTS);
        assert_eq!(o.timelimit, Some(Duration::from_secs(5)));
        assert_eq!(
            o.headers,
            vec![
                ("X-A".into(), "1".into()),
                ("Authorization".into(), "Basic dTpw".into()),
                ("Cookie".into(), "a=1; b=2".into())
            ]
        );
    }

    #[test]
    fn post_body() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), b"a=1").unwrap();
        let path = f.path().to_str().unwrap();
        let o = run(&[
            "-p",
            path,
            "-T",
            "application/x-www-form-urlencoded",
            "http://h/",
        ]);
        assert_eq!(o.method, "POST");
        assert_eq!(o.body.as_deref(), Some(&b"a=1"[..]));
        assert!(o.headers.contains(&(
            "Content-Type".into(),
            "application/x-www-form-urlencoded".into()
        )));
        let e = p(&["-p", "/nonexistent/x", "http://h/"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("-p") && e.contains("/nonexistent/x"), "{e}");
    }

    #[test]
    fn rejections_name_the_flag() {
        let e = p(&["-w", "http://h/"]).unwrap_err().to_string();
        assert!(e.contains("-w is not supported") && e.contains("-X"), "{e}");
        let e = p(&["-c", "10", "-n", "5", "http://h/"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("greater than total"), "{e}");
        let e = p(&["-n", "x", "http://h/"]).unwrap_err().to_string();
        assert!(e.contains("-n"), "{e}");
        assert!(
            p(&["-n", "5"])
                .unwrap_err()
                .to_string()
                .contains("missing URL")
        );
        assert!(p(&["ftp://h/"]).is_err());
        assert!(matches!(p(&["-h"]).unwrap(), AbCommand::Help));
        assert!(matches!(p(&["-V"]).unwrap(), AbCommand::Version));
    }
}

//! k6's log lines: the script's `console`, k6's own warnings ("Request
//! Failed", "Insufficient VUs") and the errors of a run, in the three
//! layouts `--log-format` chooses, sent where `--log-output` says.
//!
//! * text (the default): on a terminal, `INFO[0003] message  key=value`
//!   in colour (the seconds since the process started); anywhere else
//!   (a pipe, a CI log, a file), or with `--no-color`, logfmt:
//!   `time="2026-11-24T14:16:17Z" level=info msg="…" source=console`,
//!   which log tooling parses;
//! * `json`: one object per line, keys in sorted order;
//! * `raw`: the message alone.
//!
//! The outputs: `stderr` (the default), `stdout`, `none`, and
//! `file=PATH[,level=LEVEL]` (appended to; only LEVEL and more severe).

use std::fmt::Write as _;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use loadlab_metrics::go_json_string;

/// A line's level, the most severe first (the order k6's levels have).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Panic,
    Fatal,
    Error,
    Warning,
    Info,
    Debug,
    Trace,
}

impl Level {
    /// The level's name in logfmt and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Level::Panic => "panic",
            Level::Fatal => "fatal",
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Info => "info",
            Level::Debug => "debug",
            Level::Trace => "trace",
        }
    }

    /// A level's name as k6 reads it (`warn` or `warning`, any case).
    pub fn parse(s: &str) -> Option<Level> {
        Some(match s.to_ascii_lowercase().as_str() {
            "panic" => Level::Panic,
            "fatal" => Level::Fatal,
            "error" => Level::Error,
            "warn" | "warning" => Level::Warning,
            "info" => Level::Info,
            "debug" => Level::Debug,
            "trace" => Level::Trace,
            _ => return None,
        })
    }

    /// The level of a `console` method (`log` is `info`).
    pub fn of_console(method: &str) -> Level {
        match method {
            "error" => Level::Error,
            "warn" => Level::Warning,
            "debug" => Level::Debug,
            _ => Level::Info,
        }
    }

    /// The four capitals and the colour of a terminal line.
    fn tag(self) -> (&'static str, u8) {
        match self {
            Level::Panic => ("PANI", 31),
            Level::Fatal => ("FATA", 31),
            Level::Error => ("ERRO", 31),
            Level::Warning => ("WARN", 33),
            Level::Info => ("INFO", 36),
            Level::Debug => ("DEBU", 37),
            Level::Trace => ("TRAC", 37),
        }
    }
}

/// `--log-format`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Text,
    Json,
    Raw,
}

impl Format {
    /// k6's names: `text` (or empty), `json`, `raw`. k6 takes any other
    /// word as text; loadlab refuses it, so a typo does not pass unseen.
    pub fn parse(s: &str) -> Result<Format, String> {
        match s {
            "" | "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "raw" => Ok(Format::Raw),
            _ => Err(format!(
                "--log-format {s:?}: the formats are text (the default), json and raw"
            )),
        }
    }
}

/// `--log-output`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Output {
    #[default]
    Stderr,
    Stdout,
    None,
    /// `file=PATH[,level=LEVEL]`: lines of `max` and more severe levels.
    File {
        path: PathBuf,
        max: Level,
    },
}

impl Output {
    /// Reads `--log-output`'s value, with k6's words for what is wrong.
    pub fn parse(line: &str) -> Result<Output, String> {
        let err = |e: String| format!("--log-output {line:?}: {e}");
        match line {
            "stderr" => return Ok(Output::Stderr),
            "stdout" => return Ok(Output::Stdout),
            "none" => return Ok(Output::None),
            _ => {}
        }
        if line.starts_with("loki") {
            return Err(err(
                "loadlab k6 does not send logs to Loki (the outputs are stderr, stdout, none and file=PATH)".into(),
            ));
        }
        if !line.starts_with("file") {
            return Err(format!("unsupported log output '{line}'"));
        }
        if line.split_once('=').map(|(k, _)| k) != Some("file") {
            return Err(err(format!(
                "logfile configuration should be in the form `file=path-to-local-file` but is `{line}`"
            )));
        }
        let mut path = None;
        let mut max = Level::Trace;
        for token in line.split(',') {
            let (k, v) = token.split_once('=').unwrap_or((token, ""));
            match k {
                "file" if v.is_empty() => return Err(err("filepath must not be empty".into())),
                "file" => path = Some(PathBuf::from(v)),
                "level" => {
                    max = Level::parse(v).ok_or_else(|| err(format!("unknown log level {v}")))?;
                }
                other => return Err(err(format!("unknown logfile config key {other}"))),
            }
        }
        let path = path.ok_or_else(|| err("filepath must not be empty".into()))?;
        Ok(Output::File { path, max })
    }
}

/// How a run logs: `--log-output`, `--log-format`, `--no-color`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogConfig {
    pub output: Output,
    pub format: Format,
    pub no_color: bool,
}

impl LogConfig {
    /// The flags over k6's variables (`K6_LOG_OUTPUT`, `K6_LOG_FORMAT`,
    /// `K6_NO_COLOR` when not empty, `NO_COLOR` when set at all).
    pub fn from_flags(
        output: Option<&str>,
        format: Option<&str>,
        no_color: bool,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<LogConfig, String> {
        let output = match output.map(str::to_string).or_else(|| var("K6_LOG_OUTPUT")) {
            Some(o) => Output::parse(&o)?,
            None => Output::Stderr,
        };
        let format = match format.map(str::to_string).or_else(|| var("K6_LOG_FORMAT")) {
            Some(f) => Format::parse(&f)?,
            None => Format::Text,
        };
        let no_color = no_color
            || var("K6_NO_COLOR").is_some_and(|v| !v.is_empty())
            || var("NO_COLOR").is_some();
        Ok(LogConfig {
            output,
            format,
            no_color,
        })
    }
}

/// Where the lines' seconds count from (k6 counts from its start).
static PROCESS_START: LazyLock<Instant> = LazyLock::new(Instant::now);

/// Writes log lines as a [`LogConfig`] says.
#[derive(Debug)]
pub struct Logger {
    format: Format,
    output: Output,
    /// Terminal colours (text on a terminal, without `--no-color`).
    colors: bool,
    file: Option<Mutex<std::fs::File>>,
    /// Secret values a script has read (`k6/secrets`): redacted from
    /// every line after.
    secrets: Mutex<Vec<String>>,
}

/// What a secret value becomes in a log line (k6's text).
pub const REDACTED: &str = "***SECRET_REDACTED***";

impl Default for Logger {
    fn default() -> Self {
        Logger::open(&LogConfig::default()).expect("standard error needs no file")
    }
}

impl Logger {
    /// Opens `file=`'s file (appended to, created `0600` as k6 does);
    /// the error names it.
    pub fn open(cfg: &LogConfig) -> Result<Logger, String> {
        LazyLock::force(&PROCESS_START);
        let tty = match cfg.output {
            Output::Stderr => std::io::stderr().is_terminal(),
            Output::Stdout => std::io::stdout().is_terminal(),
            _ => false,
        };
        let file = match &cfg.output {
            Output::File { path, .. } => Some(Mutex::new(open_append(path)?)),
            _ => None,
        };
        Ok(Logger {
            format: cfg.format,
            output: cfg.output.clone(),
            colors: tty && !cfg.no_color && cfg.format == Format::Text,
            file,
            secrets: Mutex::new(Vec::new()),
        })
    }

    /// Redacts `secret` from every line made after (an empty value is
    /// nothing to hide).
    pub fn redact(&self, secret: &str) {
        let mut s = self.secrets.lock().unwrap_or_else(|p| p.into_inner());
        if !secret.is_empty() && !s.iter().any(|x| x == secret) {
            s.push(secret.to_string());
            // Longest first: a secret inside another is not left half shown.
            s.sort_by_key(|x| std::cmp::Reverse(x.len()));
        }
    }

    fn no_secrets(&self) -> bool {
        self.secrets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_empty()
    }

    /// `line` with every secret read so far replaced by [`REDACTED`].
    pub fn redacted(&self, line: String) -> String {
        let s = self.secrets.lock().unwrap_or_else(|p| p.into_inner());
        if s.is_empty() {
            return line;
        }
        let mut line = line;
        for x in s.iter() {
            if line.contains(x.as_str()) {
                line = line.replace(x.as_str(), REDACTED);
            }
        }
        line
    }

    /// `--log-format`.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The lines go to standard error (where live progress lines are
    /// drawn too).
    pub fn to_stderr(&self) -> bool {
        self.output == Output::Stderr
    }

    /// The line for an entry (no newline at its end), or `None` when the
    /// output takes no line of this level.
    pub fn line(&self, level: Level, msg: &str, fields: &[(&str, &str)]) -> Option<String> {
        match &self.output {
            Output::None => return None,
            Output::File { max, .. } if level > *max => return None,
            _ => {}
        }
        if self.no_secrets() {
            return Some(format_line(
                self.format,
                self.colors,
                PROCESS_START.elapsed().as_secs(),
                unix_now_ns(),
                level,
                msg,
                fields,
            ));
        }
        // As k6: the message and the fields' values lose their secrets
        // before the line is laid out (so logfmt quotes what now holds
        // `*`), and the whole line after (a secret in a field's name).
        let msg = self.redacted(msg.to_string());
        let values: Vec<String> = fields
            .iter()
            .map(|(_, v)| self.redacted(v.to_string()))
            .collect();
        let fields: Vec<(&str, &str)> = fields
            .iter()
            .zip(&values)
            .map(|((k, _), v)| (*k, v.as_str()))
            .collect();
        Some(self.redacted(format_line(
            self.format,
            self.colors,
            PROCESS_START.elapsed().as_secs(),
            unix_now_ns(),
            level,
            &msg,
            &fields,
        )))
    }

    /// Writes a line made by [`Logger::line`] to the output.
    pub fn write(&self, line: &str) {
        let mut text = String::with_capacity(line.len() + 1);
        text.push_str(line);
        text.push('\n');
        // One write per line: nothing waits in a buffer if the process
        // exits, and lines from two writers do not interleave.
        let _ = match &self.output {
            Output::Stderr => std::io::stderr().lock().write_all(text.as_bytes()),
            Output::Stdout => std::io::stdout().lock().write_all(text.as_bytes()),
            Output::None => Ok(()),
            Output::File { .. } => match &self.file {
                Some(f) => f
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .write_all(text.as_bytes()),
                None => Ok(()),
            },
        };
    }

    /// Logs an entry.
    pub fn log(&self, level: Level, msg: &str, fields: &[(&str, &str)]) {
        if let Some(line) = self.line(level, msg, fields) {
            self.write(&line);
        }
    }
}

/// Opens a log file to append to; its folder must exist (k6's words).
pub fn open_append(path: &std::path::Path) -> Result<std::fs::File, String> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.exists()
    {
        return Err(format!(
            "provided directory '{}' does not exist",
            dir.display()
        ));
    }
    let mut o = std::fs::OpenOptions::new();
    o.append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o.open(path)
        .map_err(|e| format!("failed to open logfile {}: {e}", path.display()))
}

/// One entry in a layout: `secs` since the process started (the terminal
/// layout), `unix_ns` now (logfmt and JSON, to the second, UTC). Fields
/// are written in sorted order, as k6 writes them.
pub fn format_line(
    format: Format,
    colors: bool,
    secs: u64,
    unix_ns: u64,
    level: Level,
    msg: &str,
    fields: &[(&str, &str)],
) -> String {
    let mut fields = fields.to_vec();
    fields.sort_by(|a, b| a.0.cmp(b.0));
    let time =
        || loadlab_metrics::timefmt::rfc3339(i128::from(unix_ns / 1_000_000_000) * 1_000_000_000);
    let mut out = String::with_capacity(msg.len() + 64);
    match format {
        Format::Raw => out.push_str(msg),
        Format::Json => {
            let mut all: Vec<(&str, String)> = fields
                .iter()
                .map(|(k, v)| (*k, v.to_string()))
                .filter(|(k, _)| !matches!(*k, "level" | "msg" | "time"))
                .collect();
            all.push(("level", level.name().into()));
            all.push(("msg", msg.into()));
            all.push(("time", time()));
            all.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in all.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json_string(&mut out, k);
                out.push(':');
                go_json_string(&mut out, v);
            }
            out.push('}');
        }
        Format::Text if colors => {
            let (tag, color) = level.tag();
            let msg = msg.strip_suffix('\n').unwrap_or(msg);
            // The message padded to 44 characters, as on k6's terminal.
            let pad = 44usize.saturating_sub(msg.chars().count());
            let _ = write!(
                out,
                "\x1b[{color}m{tag}\x1b[0m[{secs:04}] {msg}{:pad$} ",
                ""
            );
            for (k, v) in &fields {
                let _ = write!(out, " \x1b[{color}m{k}\x1b[0m={}", logfmt_value(v));
            }
        }
        Format::Text => {
            let _ = write!(out, "time={} level={}", logfmt_value(&time()), level.name());
            if !msg.is_empty() {
                let _ = write!(out, " msg={}", logfmt_value(msg));
            }
            for (k, v) in &fields {
                let _ = write!(out, " {k}={}", logfmt_value(v));
            }
        }
    }
    out
}

/// A value in logfmt as k6 writes it: bare when it is made of letters,
/// digits and `-._/@^+` (or empty), else quoted with Go's escapes.
pub fn logfmt_value(v: &str) -> String {
    let bare = v
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-._/@^+".contains(c));
    if bare {
        return v.to_string();
    }
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for c in v.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Now, in ns since the Unix epoch.
pub(crate) fn unix_now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2026-11-24T14:16:17Z
    const T: u64 = 1_795_529_777_000_000_000;

    fn line(format: Format, colors: bool, level: Level, msg: &str, f: &[(&str, &str)]) -> String {
        format_line(format, colors, 3, T + 123_456_789, level, msg, f)
    }

    #[test]
    fn logfmt_is_k6s_line_off_a_terminal() {
        assert_eq!(
            line(
                Format::Text,
                false,
                Level::Info,
                "init line",
                &[("source", "console")]
            ),
            "time=\"2026-11-24T14:16:17Z\" level=info msg=\"init line\" source=console"
        );
        assert_eq!(
            line(
                Format::Text,
                false,
                Level::Error,
                "Error: boom\n\tat default (s.js:9:30)\n",
                &[("source", "stacktrace"), ("executor", "shared-iterations")]
            ),
            "time=\"2026-11-24T14:16:17Z\" level=error msg=\"Error: boom\\n\\tat default (s.js:9:30)\\n\" executor=shared-iterations source=stacktrace"
        );
        assert_eq!(
            line(Format::Text, false, Level::Info, "td", &[("e", "")]),
            "time=\"2026-11-24T14:16:17Z\" level=info msg=td e="
        );
    }

    #[test]
    fn a_terminal_line_has_k6s_capitals_colours_and_padding() {
        let l = line(
            Format::Text,
            true,
            Level::Warning,
            "Request Failed",
            &[("error", "Get \"x\"")],
        );
        assert_eq!(
            l,
            format!(
                "\x1b[33mWARN\x1b[0m[0003] Request Failed{} \x20\x1b[33merror\x1b[0m=\"Get \\\"x\\\"\"",
                " ".repeat(30)
            )
        );
        // A message longer than 44 characters is not cut.
        let long = "x".repeat(50);
        assert!(line(Format::Text, true, Level::Info, &long, &[]).contains(&format!("{long} ")));
    }

    #[test]
    fn json_sorts_keys_and_escapes_as_go() {
        assert_eq!(
            line(
                Format::Json,
                false,
                Level::Warning,
                "a <b> & \"c\"",
                &[("source", "console"), ("error", "e")]
            ),
            "{\"error\":\"e\",\"level\":\"warning\",\"msg\":\"a \\u003cb\\u003e \\u0026 \\\"c\\\"\",\"source\":\"console\",\"time\":\"2026-11-24T14:16:17Z\"}"
        );
        let v: serde_json::Value =
            serde_json::from_str(&line(Format::Json, false, Level::Info, "x\ny\u{1}", &[]))
                .unwrap();
        assert_eq!(v["msg"], "x\ny\u{1}");
    }

    #[test]
    fn raw_is_the_message_alone() {
        assert_eq!(
            line(
                Format::Raw,
                false,
                Level::Error,
                "quote \"x\"",
                &[("a", "b")]
            ),
            "quote \"x\""
        );
    }

    #[test]
    fn outputs_and_formats_are_read_with_k6s_words() {
        assert_eq!(Output::parse("stdout"), Ok(Output::Stdout));
        assert_eq!(
            Output::parse("file=./k6.log,level=warning"),
            Ok(Output::File {
                path: "./k6.log".into(),
                max: Level::Warning
            })
        );
        assert_eq!(
            Output::parse("file=x.log"),
            Ok(Output::File {
                path: "x.log".into(),
                max: Level::Trace
            })
        );
        assert_eq!(
            Output::parse("syslog"),
            Err("unsupported log output 'syslog'".into())
        );
        assert!(
            Output::parse("file=")
                .unwrap_err()
                .contains("filepath must not be empty")
        );
        assert!(
            Output::parse("file=a,level=loud")
                .unwrap_err()
                .contains("unknown log level loud")
        );
        assert!(
            Output::parse("file=a,size=1")
                .unwrap_err()
                .contains("unknown logfile config key size")
        );
        assert!(
            Output::parse("filex")
                .unwrap_err()
                .contains("should be in the form `file=path-to-local-file`")
        );
        assert!(Output::parse("loki=http://x").unwrap_err().contains("Loki"));
        assert_eq!(Format::parse("json"), Ok(Format::Json));
        assert!(Format::parse("jsn").unwrap_err().contains("json and raw"));
    }

    #[test]
    fn flags_override_variables_and_no_color_follows_both_conventions() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| (*v).to_string())
            }
        };
        let c = LogConfig::from_flags(
            None,
            None,
            false,
            env(&[("K6_LOG_FORMAT", "json"), ("K6_LOG_OUTPUT", "none")]),
        )
        .unwrap();
        assert_eq!(
            (c.output, c.format, c.no_color),
            (Output::None, Format::Json, false)
        );
        let c = LogConfig::from_flags(
            Some("stdout"),
            Some("raw"),
            false,
            env(&[("K6_LOG_FORMAT", "json"), ("NO_COLOR", "")]),
        )
        .unwrap();
        assert_eq!(
            (c.output, c.format, c.no_color),
            (Output::Stdout, Format::Raw, true)
        );
        let c = LogConfig::from_flags(None, None, false, env(&[("K6_NO_COLOR", "")])).unwrap();
        assert!(!c.no_color);
    }

    #[test]
    fn a_file_takes_its_level_and_more_severe_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k6.log");
        let cfg = LogConfig {
            output: Output::File {
                path: path.clone(),
                max: Level::Warning,
            },
            ..Default::default()
        };
        let l = Logger::open(&cfg).unwrap();
        l.log(Level::Info, "not kept", &[]);
        l.log(Level::Warning, "kept", &[("source", "console")]);
        l.log(Level::Error, "kept too", &[]);
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].ends_with("level=warning msg=kept source=console"));
        assert!(lines[1].ends_with("level=error msg=\"kept too\""));
        let missing = LogConfig {
            output: Output::parse(&format!("file={}/no/such/k6.log", dir.path().display()))
                .unwrap(),
            ..Default::default()
        };
        assert!(
            Logger::open(&missing)
                .unwrap_err()
                .starts_with("provided directory ")
        );
    }
}

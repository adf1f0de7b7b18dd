//! A small getopt: the option syntax ab and wrk users type (`-c 10`, `-c10`,
//! `-kq`, `--latency`, `--timeout=2s`, `--timeout 2s`), kept separate from
//! clap so the faces accept exactly their tools' spelling and can name
//! unsupported flags precisely.

/// One option a face knows (including ones it rejects).
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    pub short: Option<char>,
    pub long: Option<&'static str>,
    pub takes_value: bool,
}

impl Opt {
    pub const fn flag(short: char) -> Opt {
        Opt {
            short: Some(short),
            long: None,
            takes_value: false,
        }
    }
    pub const fn value(short: char) -> Opt {
        Opt {
            short: Some(short),
            long: None,
            takes_value: true,
        }
    }
    pub const fn with_long(mut self, long: &'static str) -> Opt {
        self.long = Some(long);
        self
    }
    pub const fn long_only(long: &'static str, takes_value: bool) -> Opt {
        Opt {
            short: None,
            long: Some(long),
            takes_value,
        }
    }
    /// The name used in messages: `-c` or `--timeout`.
    pub fn name(&self) -> String {
        match (self.short, self.long) {
            (Some(c), _) => format!("-{c}"),
            (None, Some(l)) => format!("--{l}"),
            (None, None) => String::from("?"),
        }
    }
}

/// One parsed item, in command-line order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// An option, identified by its short letter (or long name when it has none).
    Opt {
        key: String,
        value: Option<String>,
    },
    Positional(String),
}

/// Why a command line was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GetoptError {
    #[error("unknown option {0}")]
    Unknown(String),
    #[error("option {0} requires a value")]
    MissingValue(String),
    #[error("option {0} does not take a value")]
    UnexpectedValue(String),
}

fn key(o: &Opt) -> String {
    match (o.short, o.long) {
        (Some(c), _) => c.to_string(),
        (None, Some(l)) => l.to_string(),
        (None, None) => String::new(),
    }
}

/// Parses `args` (without the program and subcommand words) against `opts`.
/// Options and positionals may be interleaved; `--` ends option parsing.
pub fn parse(args: &[String], opts: &[Opt]) -> Result<Vec<Item>, GetoptError> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut only_positional = false;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if only_positional || a == "-" || !a.starts_with('-') {
            out.push(Item::Positional(a.clone()));
            continue;
        }
        if a == "--" {
            only_positional = true;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let o = opts
                .iter()
                .find(|o| o.long == Some(name))
                .ok_or_else(|| GetoptError::Unknown(format!("--{name}")))?;
            let value = if o.takes_value {
                match inline {
                    Some(v) => Some(v),
                    None => {
                        let v = args
                            .get(i)
                            .cloned()
                            .ok_or_else(|| GetoptError::MissingValue(format!("--{name}")))?;
                        i += 1;
                        Some(v)
                    }
                }
            } else if inline.is_some() {
                return Err(GetoptError::UnexpectedValue(format!("--{name}")));
            } else {
                None
            };
            out.push(Item::Opt { key: key(o), value });
            continue;
        }
        // A cluster of short options: `-kq`, `-c10`, `-c 10`.
        let chars: Vec<char> = a[1..].chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            let o = opts
                .iter()
                .find(|o| o.short == Some(c))
                .ok_or_else(|| GetoptError::Unknown(format!("-{c}")))?;
            if o.takes_value {
                let rest: String = chars[j..].iter().collect();
                let value = if !rest.is_empty() {
                    rest
                } else {
                    let v = args
                        .get(i)
                        .cloned()
                        .ok_or_else(|| GetoptError::MissingValue(format!("-{c}")))?;
                    i += 1;
                    v
                };
                out.push(Item::Opt {
                    key: key(o),
                    value: Some(value),
                });
                break;
            }
            out.push(Item::Opt {
                key: key(o),
                value: None,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }
    const OPTS: &[Opt] = &[
        Opt::value('c').with_long("connections"),
        Opt::flag('k'),
        Opt::flag('q'),
        Opt::flag('L').with_long("latency"),
        Opt::long_only("timeout", true),
    ];

    #[test]
    fn parses_tool_spellings() {
        let items = parse(
            &s(&[
                "-c10",
                "-kq",
                "--latency",
                "--timeout=2s",
                "-c",
                "5",
                "URL",
                "--timeout",
                "3s",
            ]),
            OPTS,
        )
        .unwrap();
        let o = |k: &str, v: Option<&str>| Item::Opt {
            key: k.into(),
            value: v.map(String::from),
        };
        assert_eq!(
            items,
            vec![
                o("c", Some("10")),
                o("k", None),
                o("q", None),
                o("L", None),
                o("timeout", Some("2s")),
                o("c", Some("5")),
                Item::Positional("URL".into()),
                o("timeout", Some("3s")),
            ]
        );
    }

    #[test]
    fn rejects_clearly() {
        assert_eq!(
            parse(&s(&["-x"]), OPTS),
            Err(GetoptError::Unknown("-x".into()))
        );
        assert_eq!(
            parse(&s(&["-c"]), OPTS),
            Err(GetoptError::MissingValue("-c".into()))
        );
        assert_eq!(
            parse(&s(&["--latency=1"]), OPTS),
            Err(GetoptError::UnexpectedValue("--latency".into()))
        );
        assert_eq!(
            parse(&s(&["--", "-c"]), OPTS).unwrap(),
            vec![Item::Positional("-c".into())]
        );
    }
}

//! The command lines of the testkit's binaries (`dsps-like`, `private-db`):
//! `--flag`, `--flag VALUE` and `--flag=VALUE`, and one-line errors with
//! exit code 2, as loadlab's own.

/// One parsed argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A switch (`--mariadb`, `--help`; `-h` is read as `--help`).
    Switch(&'static str),
    /// A flag with its value (`--port 3307`, `--port=3307`).
    Value(&'static str, String),
}

/// Parses `args` (without the program name): `switches` take no value,
/// `valued` take one. Anything else is an error naming it.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    switches: &[&'static str],
    valued: &[&'static str],
) -> Result<Vec<Arg>, String> {
    let mut out = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let a = if a == "-h" { "--help".to_string() } else { a };
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        if let Some(s) = switches.iter().find(|s| **s == name) {
            if inline.is_some() {
                return Err(format!("{name} takes no value (got {a:?})"));
            }
            out.push(Arg::Switch(s));
        } else if let Some(f) = valued.iter().find(|f| **f == name) {
            let v = match inline {
                Some(v) => v,
                None => it.next().ok_or_else(|| format!("{name} needs a value"))?,
            };
            out.push(Arg::Value(f, v));
        } else if name.starts_with('-') {
            return Err(format!("unknown flag {name}"));
        } else {
            return Err(format!("unexpected argument {a:?}"));
        }
    }
    Ok(out)
}

/// Prints `prog: msg` on stderr and exits with `code`.
pub fn fail(prog: &str, code: i32, msg: &str) -> ! {
    eprintln!("{prog}: {msg}");
    std::process::exit(code)
}

/// Exits with 2 after a one-line command-line error pointing at `--help`.
pub fn usage_error(prog: &str, msg: &str) -> ! {
    fail(prog, 2, &format!("{msg}; see '{prog} --help'"))
}

//! `--secret-source`: where `k6/secrets` gets its values, read as k6 v1
//! reads the flag. `TYPE=CONFIG`, repeatable:
//!
//! - `file=PATH`, or `file=name=N,filename=PATH[,default]`: a file of
//!   `key=value` lines (the value is the rest of the line);
//! - `mock=KEY=VALUE,KEY=VALUE…[,name=N][,default]`: values on the
//!   command line, for trying a script.
//!
//! With one source, it is the default; with several, the one marked
//! `default` (or named `default`), or none, and `secrets.get()` fails as
//! in k6. k6's `url` source (secrets fetched from an HTTP endpoint) is
//! refused by name, before any load.

use std::collections::HashMap;

/// One configured source: its name and its values.
#[derive(Debug, Clone, Default)]
struct Source {
    name: String,
    values: HashMap<String, String>,
}

/// The run's secret sources (`--secret-source`, in order).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    sources: Vec<Source>,
    /// Index of the default source, if there is one.
    default: Option<usize>,
}

/// Why a `secrets.get` failed: k6's text (a rejected promise's reason).
pub(crate) type GetError = String;

impl Sources {
    /// Reads the `--secret-source` flags; `read` opens a file source's
    /// file (the path as given). The error is k6's text for the flag.
    pub fn parse(
        flags: &[String],
        read: &dyn Fn(&str) -> std::io::Result<String>,
    ) -> Result<Sources, String> {
        let mut out = Sources::default();
        let mut marked = None;
        for flag in flags {
            let (kind, config) = flag.split_once('=').unwrap_or((flag.as_str(), ""));
            let (source, is_default) = match kind {
                "file" => file_source(config, read)?,
                "mock" => mock_source(config)?,
                "url" => {
                    return Err(format!(
                        "--secret-source={flag}: the url secret source (secrets fetched over HTTP) is not supported by loadlab k6; use file= or mock="
                    ));
                }
                _ => {
                    return Err(format!(
                        "no secret source for type {kind:?} for configuration {flag:?}"
                    ));
                }
            };
            if out.sources.iter().any(|s| s.name == source.name) {
                return Err(format!(
                    "--secret-source={flag}: a secret source named {:?} is configured twice",
                    source.name
                ));
            }
            if is_default || source.name == "default" {
                marked = Some(out.sources.len());
            }
            out.sources.push(source);
        }
        out.default = marked.or((out.sources.len() == 1).then_some(0));
        Ok(out)
    }

    /// Whether no source is configured.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    /// `secrets.get(key)` (`source`: `None`) or
    /// `secrets.source(name).get(key)`, with k6's texts for what fails.
    pub(crate) fn get(&self, source: Option<&str>, key: &str) -> Result<&str, GetError> {
        let src = match source {
            None => self.default.map(|i| &self.sources[i]),
            Some(name) => self.sources.iter().find(|s| s.name == name),
        };
        let Some(src) = src else {
            return Err(format!(
                "no secret source with name {:?} is configured",
                source.unwrap_or("default")
            ));
        };
        src.values
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| "no value".to_string())
    }
}

/// `name=…`, `default` and the other `k=v` pairs of a source's config.
fn pairs(config: &str) -> (Option<String>, bool, Vec<(String, String)>) {
    let (mut name, mut is_default, mut rest) = (None, false, Vec::new());
    for part in config.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('=') {
            Some(("name", v)) => name = Some(v.to_string()),
            Some((k, v)) => rest.push((k.to_string(), v.to_string())),
            None if part == "default" => is_default = true,
            None => rest.push((part.to_string(), String::new())),
        }
    }
    (name, is_default, rest)
}

fn file_source(
    config: &str,
    read: &dyn Fn(&str) -> std::io::Result<String>,
) -> Result<(Source, bool), String> {
    let (name, is_default, path) = if config.contains('=') {
        let (name, d, rest) = pairs(config);
        let mut path = None;
        for (k, v) in rest {
            match k.as_str() {
                "filename" => path = Some(v),
                _ => {
                    return Err(format!(
                        "unknown configuration key for file secret source {k:?}"
                    ));
                }
            }
        }
        (
            name,
            d,
            path.ok_or("file secret source needs filename=PATH")?,
        )
    } else {
        (None, false, config.to_string())
    };
    if path.is_empty() {
        return Err("file secret source needs a file: --secret-source=file=PATH".into());
    }
    let text = read(&path).map_err(|e| format!("open {path}: {}", io_text(&e)))?;
    let mut values = HashMap::new();
    for line in text.lines() {
        let Some((k, v)) = line.split_once('=') else {
            return Err(format!("parsing {line:?}, needs ="));
        };
        values.insert(k.to_string(), v.to_string());
    }
    Ok((
        Source {
            name: name.unwrap_or_else(|| "file".into()),
            values,
        },
        is_default,
    ))
}

fn mock_source(config: &str) -> Result<(Source, bool), String> {
    let (name, is_default, rest) = pairs(config);
    let mut values = HashMap::new();
    for (k, v) in rest {
        values.insert(k, v);
    }
    Ok((
        Source {
            name: name.unwrap_or_else(|| "mock".into()),
            values,
        },
        is_default,
    ))
}

/// Go's words for the common file errors.
fn io_text(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(flags: &[&str]) -> Result<Sources, String> {
        let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        Sources::parse(&flags, &|p| match p {
            "s.file" => Ok("cool=some\nelse=source=x\n".into()),
            "odd.file" => Ok("noequals\n".into()),
            _ => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
        })
    }

    #[test]
    fn one_source_is_the_default_as_in_k6() {
        let s = parse(&["file=s.file"]).unwrap();
        assert_eq!(s.get(None, "cool"), Ok("some"));
        // The value is the rest of the line.
        assert_eq!(s.get(None, "else"), Ok("source=x"));
        assert_eq!(s.get(None, "nope"), Err("no value".into()));
        let s = parse(&["file=name=mine,filename=s.file"]).unwrap();
        assert_eq!(s.get(None, "cool"), Ok("some"));
        assert_eq!(s.get(Some("mine"), "cool"), Ok("some"));
        assert_eq!(
            s.get(Some("other"), "cool"),
            Err("no secret source with name \"other\" is configured".into())
        );
    }

    #[test]
    fn several_sources_need_a_default() {
        let s = parse(&["file=s.file", "mock=name=m2,cool=x"]).unwrap();
        assert_eq!(
            s.get(None, "cool"),
            Err("no secret source with name \"default\" is configured".into())
        );
        assert_eq!(s.get(Some("m2"), "cool"), Ok("x"));
        assert_eq!(s.get(Some("file"), "cool"), Ok("some"));
        let s = parse(&["file=s.file", "mock=name=m2,default,cool=x"]).unwrap();
        assert_eq!(s.get(None, "cool"), Ok("x"));
    }

    #[test]
    fn bad_flags_get_k6s_words() {
        assert_eq!(
            parse(&["bogus=x"]).unwrap_err(),
            "no secret source for type \"bogus\" for configuration \"bogus=x\""
        );
        assert_eq!(
            parse(&["file=missing.file"]).unwrap_err(),
            "open missing.file: no such file or directory"
        );
        assert_eq!(
            parse(&["file=odd.file"]).unwrap_err(),
            "parsing \"noequals\", needs ="
        );
        assert!(
            parse(&["url=urlTemplate=http://127.0.0.1:1/{key}"])
                .unwrap_err()
                .contains("not supported")
        );
    }
}

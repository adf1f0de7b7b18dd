//! The configuration file's layer (`--config FILE`, `K6_CONFIG`, else
//! k6's default file when it exists): k6's JSON config, between k6's
//! defaults and the script's `options`.
//!
//! What k6 v1.8.1 does with it, and loadlab with it:
//!
//! * The file is `--config`/`-c`, else `K6_CONFIG`, else
//!   `$XDG_CONFIG_HOME/k6/config.json` (`~/.config/k6/config.json`) if
//!   that exists. A file named but missing, or not JSON, is an invalid
//!   configuration (exit 104), named with its path (and line and column).
//! * Its option keys (`vus`, `userAgent`, `thresholds`, `scenarios`, …)
//!   sit under the script's: a key the script sets wins, and a script
//!   that sets any of `duration`, `iterations`, `stages` or `scenarios`
//!   replaces all four of the file's (so a file's `duration` does not
//!   outlive a script's `iterations`). The environment's `K6_*` and the
//!   command line's flags go over both.
//! * `out` (a list, as `--out`) is used when neither `--out` nor `K6_OUT`
//!   is given.
//! * Keys that are no option of k6's are ignored without a word, as k6
//!   does; `noThresholds`, `summaryExport` and the like, which k6 reads
//!   only from the command line, too.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::known::is_k6_option;

/// A configuration file, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigFile {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its option keys (the ones k6 knows).
    pub options: Map<String, Value>,
    /// Its `out`.
    pub out: Vec<String>,
}

/// k6's default file: `$XDG_CONFIG_HOME/k6/config.json`, else
/// `$HOME/.config/k6/config.json`.
pub fn default_path(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let base = var("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            var("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| Path::new(&h).join(".config"))
        })?;
    Some(base.join("k6").join("config.json"))
}

/// The file to read: `flag` (`--config`), else `K6_CONFIG`, else the
/// default file when it exists (`None`: no file).
pub fn find(flag: Option<&Path>, var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(p) = flag {
        return Some(p.to_path_buf());
    }
    if let Some(p) = var("K6_CONFIG").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    default_path(var).filter(|p| p.is_file())
}

/// Reads and checks the file at `path`; the error is one line naming it.
pub fn load(path: &Path) -> Result<ConfigFile, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: cannot read the configuration file: {e}",
            path.display()
        )
    })?;
    parse(&text, path)
}

/// The configuration in `text` (read from `path`).
pub fn parse(text: &str, path: &Path) -> Result<ConfigFile, String> {
    let shown = path.display();
    let v: Value = serde_json::from_str(text).map_err(|e| {
        let what = e.to_string();
        // serde_json ends its message with " at line L column C".
        let what = what.split(" at line ").next().unwrap_or(&what).to_string();
        format!(
            "{shown}:{}:{}: not a k6 configuration (JSON): {what}",
            e.line(),
            e.column()
        )
    })?;
    let Value::Object(map) = v else {
        return Err(format!(
            "{shown}: not a k6 configuration: expected a JSON object of options, as {{\"vus\": 10}}"
        ));
    };
    let out = match map.get("out") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("{shown}: \"out\" must be a list of strings, as --out"))
            })
            .collect::<Result<_, _>>()?,
        Some(Value::String(s)) => vec![s.clone()],
        Some(_) => {
            return Err(format!(
                "{shown}: \"out\" must be a list of strings, as --out"
            ));
        }
    };
    let options = map
        .into_iter()
        .filter(|(k, v)| is_k6_option(k) && !v.is_null())
        .collect();
    Ok(ConfigFile {
        path: path.to_path_buf(),
        options,
        out,
    })
}

/// The shortcuts and scenarios: a layer that sets one replaces all of
/// the lower layer's.
const SHORTCUTS: [&str; 4] = ["duration", "iterations", "stages", "scenarios"];

/// The script's options (`script`) over the file's (`file`), as k6's
/// `Options.Apply` stacks them.
pub fn under(file: Option<&Map<String, Value>>, script: Value) -> Value {
    let Some(file) = file.filter(|f| !f.is_empty()) else {
        return script;
    };
    let mut merged = file.clone();
    let over = match script {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    if SHORTCUTS
        .iter()
        .any(|k| over.get(*k).is_some_and(|v| !v.is_null()))
    {
        for k in SHORTCUTS {
            merged.remove(k);
        }
    }
    for (k, v) in over {
        if !v.is_null() {
            merged.insert(k, v);
        }
    }
    Value::Object(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(v: Value) -> Map<String, Value> {
        parse(&v.to_string(), Path::new("c.json")).unwrap().options
    }

    #[test]
    fn the_script_goes_over_the_file_and_its_shortcuts_replace_the_files() {
        let f = file(json!({"vus": 3, "duration": "1s", "userAgent": "cfg-ua", "bogus": 1}));
        // k6 ignores what is no option of its.
        assert!(!f.contains_key("bogus"));
        let m = under(Some(&f), json!({"iterations": 2, "userAgent": "script-ua"}));
        assert_eq!(
            m,
            json!({"vus": 3, "iterations": 2, "userAgent": "script-ua"})
        );
        // A script without shortcuts keeps the file's.
        let m = under(Some(&f), json!({"tags": {"a": "b"}}));
        assert_eq!(m["duration"], json!("1s"));
        assert_eq!(m["vus"], json!(3));
        // No file: the script's as they are.
        assert_eq!(under(None, json!({"vus": 1})), json!({"vus": 1}));
    }

    #[test]
    fn out_is_read_and_bad_files_are_one_line_with_where() {
        let c = parse(
            r#"{"out": ["json=o.json"], "noThresholds": true}"#,
            Path::new("c.json"),
        )
        .unwrap();
        assert_eq!(c.out, vec!["json=o.json".to_string()]);
        assert!(c.options.is_empty(), "{:?}", c.options);
        let e = parse("{\"vus\": ", Path::new("bad.json")).unwrap_err();
        assert_eq!(
            e,
            "bad.json:1:8: not a k6 configuration (JSON): EOF while parsing a value"
        );
        let e = parse("[1]", Path::new("a.json")).unwrap_err();
        assert!(e.starts_with("a.json: not a k6 configuration"), "{e}");
        let e = load(Path::new("/nonexistent/k6.json")).unwrap_err();
        assert!(
            e.starts_with("/nonexistent/k6.json: cannot read the configuration file: "),
            "{e}"
        );
    }

    #[test]
    fn the_flag_then_k6_config_then_the_default_file() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_str().unwrap().to_string();
        let vars = |k6_config: Option<&str>| {
            let home = home.clone();
            let k6_config = k6_config.map(str::to_string);
            move |k: &str| match k {
                "HOME" => Some(home.clone()),
                "K6_CONFIG" => k6_config.clone(),
                _ => None,
            }
        };
        assert_eq!(find(None, vars(None)), None);
        let default = dir.path().join(".config/k6/config.json");
        std::fs::create_dir_all(default.parent().unwrap()).unwrap();
        std::fs::write(&default, "{}").unwrap();
        assert_eq!(find(None, vars(None)), Some(default));
        assert_eq!(
            find(None, vars(Some("e.json"))),
            Some(PathBuf::from("e.json"))
        );
        assert_eq!(
            find(Some(Path::new("f.json")), vars(Some("e.json"))),
            Some(PathBuf::from("f.json"))
        );
    }
}

//! Credentials written literally in a plan or the files it names (header
//! values of `Authorization`, `Cookie`, API keys and the plan's `redact:`
//! headers; URL passwords): such a file goes into a Kubernetes Secret
//! rather than the ConfigMap, with a warning line naming where they are
//! (never the values).

use loadlab_cluster::plan::PreparedPlan;
use loadlab_study::secrets::{is_credential, redact_header_value, redact_plan_yaml, redact_urls};

/// What holds a credential in a plan's YAML, one item per line.
fn in_plan(file: &str, text: &str) -> Vec<String> {
    let redacted = redact_plan_yaml(text);
    if redacted == text {
        return Vec::new();
    }
    let found: Vec<String> = text
        .lines()
        .zip(redacted.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(n, (a, _))| {
            if redact_urls(a) != a {
                format!("a URL password at {file}:{}", n + 1)
            } else {
                format!("a credential header at {file}:{}", n + 1)
            }
        })
        .collect();
    if found.is_empty() {
        vec![format!("credentials in {file}")]
    } else {
        found
    }
}

/// What holds a credential in a targets file (http or JSON lines) or a
/// body, one item per line.
fn in_file(file: &str, data: &[u8], extra: &[String]) -> Vec<String> {
    let text = String::from_utf8_lossy(data);
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('#') {
            continue;
        }
        if redact_urls(t) != t {
            found.push(format!("a URL password at {file}:{}", n + 1));
        }
        if let Some((name, value)) = t.split_once(':')
            && !name.contains(' ')
            && redact_header_value(name, value.trim(), extra) != value.trim()
        {
            found.push(format!("header {} at {file}:{}", name.trim(), n + 1));
        }
        if t.starts_with('{')
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(t)
            && let Some(h) = v.get("header").and_then(|h| h.as_object())
        {
            for (k, vals) in h {
                let literal = vals.as_array().into_iter().flatten().any(|x| {
                    x.as_str()
                        .is_some_and(|s| redact_header_value(k, s, extra) != s)
                });
                if is_credential(k, extra) && literal {
                    found.push(format!("header {k} at {file}:{}", n + 1));
                }
            }
        }
    }
    found
}

/// Marks the plan's files that hold credentials as the Secret's
/// (`secret`) and says so on stderr, one line each. `extra`: the plan's
/// `redact:` headers.
pub(super) fn move_to_secret(plan: &mut PreparedPlan, extra: &[String], secret: &str) {
    for (i, f) in plan.files.iter_mut().enumerate() {
        let found = if i == 0 {
            in_plan(&f.path, &String::from_utf8_lossy(&f.data))
        } else {
            in_file(&f.path, &f.data, extra)
        };
        if found.is_empty() {
            continue;
        }
        f.secret = true;
        eprintln!(
            "loadlab: warning: {} holds credentials ({}): it goes into the Secret {secret} (created with the manifests and mounted beside the plan), not into the ConfigMap; to keep them out of the manifests, write ${{NAME}} references and give the values with --secret-env SECRET",
            f.path,
            found.join(", ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_found_by_line() {
        let plan = "name: x\ntargets:\n  - name: a\n    url: http://me:hunter22@h/\n    headers: {Authorization: \"Bearer tok\", Accept: x}\n  - name: b\n    url: http://h/\n    headers: {Authorization: \"Bearer ${T}\"}\n";
        assert_eq!(
            in_plan("p.yaml", plan),
            [
                "a URL password at p.yaml:4",
                "a credential header at p.yaml:5"
            ]
        );
        let targets = b"GET http://h/\nCookie: s=1\nX-Api-Key: ${K}\n# Authorization: x\nGET http://u:p@h/\n{\"url\":\"http://h/\",\"header\":{\"X-Api-Key\":[\"k1\"]}}\n";
        assert_eq!(
            in_file("t.txt", targets, &[]),
            [
                "header Cookie at t.txt:2",
                "a URL password at t.txt:5",
                "header X-Api-Key at t.txt:6"
            ]
        );
        assert!(in_file("b.json", b"{\"n\": 1}\nContent-Type: x\n", &[]).is_empty());
    }
}

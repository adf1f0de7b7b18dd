//! `loadlab import openapi FILE --to targets|plan`: one request per
//! operation of an OpenAPI 3.0/3.1 document (YAML or JSON), its parameters
//! and JSON body taken from the document's examples or generated from the
//! schemas, grouped by tag.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::exit::CliError;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// One operation as a request.
struct Op {
    tag: String,
    id: String,
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

/// What to convert and where to: `import openapi`'s arguments.
pub struct Convert<'a> {
    pub file: &'a str,
    /// targets or plan
    pub to: &'a str,
    pub base: &'a str,
    pub output: &'a str,
}

pub fn run(a: &Convert) -> Result<(), CliError> {
    let doc = load(a.file)?;
    check_refs(&doc, &doc, a.file, "")?;
    let ops = operations(&doc, a.file, a.base)?;
    let out = Path::new(a.output);
    let to_stdout = a.output == "stdout" || a.output == "-";
    if a.to == "plan" && to_stdout {
        return Err(CliError::usage(
            "--to=plan writes several files: give --output=PLAN.yaml (its targets file goes beside it)",
        ));
    }
    if to_stdout && ops.iter().any(|o| o.body.is_some()) {
        return Err(CliError::usage(
            "the operations have request bodies, written as files beside the targets: give --output=FILE",
        ));
    }
    let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or("api");
    let targets_path = if a.to == "plan" {
        out.with_file_name(format!("{stem}.targets.txt"))
    } else {
        out.to_path_buf()
    };
    let targets = targets_text(&ops, &targets_path, a.file)?;
    if a.to == "targets" {
        return write(a.output, &targets);
    }
    write(&targets_path.display().to_string(), &targets)?;
    write(a.output, &plan_text(a, stem, &targets_path, ops.len()))
}

/// The document as JSON values, from JSON or YAML, refused unless OpenAPI 3.
fn load(file: &str) -> Result<Value, CliError> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| CliError::io(format!("cannot read {file}: {e}")))?;
    let doc: Value = if text.trim_start().starts_with('{') {
        serde_json::from_str(&text)
            .map_err(|e| CliError::bad_input(format!("{file}:{}:{}: {e}", e.line(), e.column())))?
    } else {
        serde_norway::from_str(&text).map_err(|e| match e.location() {
            Some(l) => CliError::bad_input(format!("{file}:{}:{}: {e}", l.line(), l.column())),
            None => CliError::bad_input(format!("{file}: {e}")),
        })?
    };
    if let Some(v) = doc.get("swagger") {
        return Err(CliError::bad_input(format!(
            "{file}: swagger: {}: Swagger/OpenAPI 2 is not supported, only OpenAPI 3.0 and 3.1 (convert it first)",
            scalar(v)
        )));
    }
    match doc.get("openapi").map(scalar) {
        Some(v) if v.starts_with("3.") => {}
        Some(v) => {
            return Err(CliError::bad_input(format!(
                "{file}: openapi: {v}: only OpenAPI 3.0 and 3.1 are supported"
            )));
        }
        None => {
            return Err(CliError::bad_input(format!(
                "{file}: no `openapi:` field: not an OpenAPI 3 document"
            )));
        }
    }
    match doc.get("paths").and_then(Value::as_object) {
        Some(p) if !p.is_empty() => Ok(doc),
        _ => Err(CliError::bad_input(format!(
            "{file}: paths: no paths, so no operations to import"
        ))),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// Every `$ref` of the document is local and resolves, or one error
/// naming where it is.
fn check_refs(root: &Value, v: &Value, file: &str, at: &str) -> Result<(), CliError> {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref") {
                let r = scalar(r);
                if lookup(root, &r).is_none() {
                    let kind = if r.starts_with('#') {
                        "unresolved"
                    } else {
                        "external (not supported)"
                    };
                    return Err(CliError::bad_input(format!(
                        "{file}: {at}: {kind} $ref '{r}'"
                    )));
                }
            }
            for (k, x) in m {
                let p = if at.is_empty() {
                    k.clone()
                } else {
                    format!("{at}.{k}")
                };
                check_refs(root, x, file, &p)?;
            }
            Ok(())
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| check_refs(root, x, file, &format!("{at}[{i}]"))),
        _ => Ok(()),
    }
}

/// The value a local `#/a/b` reference points to.
fn lookup<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let pointer = r.strip_prefix('#')?;
    root.pointer(pointer)
}

/// `v` with its `$ref`s followed (checked beforehand; a cycle stops).
fn deref<'a>(root: &'a Value, mut v: &'a Value) -> &'a Value {
    for _ in 0..32 {
        match v
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| lookup(root, r))
        {
            Some(x) => v = x,
            None => break,
        }
    }
    v
}

fn operations(doc: &Value, file: &str, base: &str) -> Result<Vec<Op>, CliError> {
    let mut ops = Vec::new();
    let paths = doc["paths"].as_object().expect("checked");
    for (path, item) in paths {
        let item = deref(doc, item);
        let shared = item.get("parameters").and_then(Value::as_array);
        for method in METHODS {
            let Some(op) = item.get(method) else { continue };
            let mut params: Vec<&Value> = Vec::new();
            let own = op.get("parameters").and_then(Value::as_array);
            for p in own
                .into_iter()
                .flatten()
                .chain(shared.into_iter().flatten())
            {
                let p = deref(doc, p);
                let dup = params
                    .iter()
                    .any(|q| q.get("name") == p.get("name") && q.get("in") == p.get("in"));
                if !dup {
                    params.push(p);
                }
            }
            ops.push(operation(doc, file, base, path, method, op, &params)?);
        }
    }
    if ops.is_empty() {
        return Err(CliError::bad_input(format!(
            "{file}: paths: no operations (get, post, ...) under any path"
        )));
    }
    ops.sort_by(|a, b| a.tag.cmp(&b.tag));
    Ok(ops)
}

fn operation(
    doc: &Value,
    file: &str,
    base: &str,
    path: &str,
    method: &str,
    op: &Value,
    params: &[&Value],
) -> Result<Op, CliError> {
    let mut url_path = path.to_string();
    let mut query = Vec::new();
    let mut headers = Vec::new();
    for p in params {
        let name = p.get("name").and_then(Value::as_str).unwrap_or("");
        let value = scalar(&param_value(doc, p));
        match p.get("in").and_then(Value::as_str) {
            Some("path") => {
                url_path = url_path.replace(&format!("{{{name}}}"), &encode(&value));
            }
            Some("query") => query.push(format!("{}={}", encode(name), encode(&value))),
            Some("header") => headers.push((name.to_string(), value)),
            _ => {}
        }
    }
    if url_path.contains('{') {
        return Err(CliError::bad_input(format!(
            "{file}: paths.{path}.{method}: a path parameter of {path} is not declared"
        )));
    }
    let mut url = format!("{}{url_path}", base.trim_end_matches('/'));
    if !query.is_empty() {
        url = format!("{url}?{}", query.join("&"));
    }
    let body = op
        .get("requestBody")
        .map(|b| deref(doc, b))
        .and_then(|b| b.get("content"))
        .and_then(Value::as_object)
        .and_then(|c| c.iter().find(|(k, _)| k.contains("json")))
        .map(|(kind, media)| {
            headers.push(("Content-Type".to_string(), kind.clone()));
            let v = example(doc, media).unwrap_or_else(|| {
                media
                    .get("schema")
                    .map_or(json!({}), |s| generate(doc, s, 0))
            });
            v.to_string()
        });
    Ok(Op {
        tag: op["tags"][0].as_str().unwrap_or("untagged").to_string(),
        id: op.get("operationId").and_then(Value::as_str).map_or_else(
            || format!("{} {path}", method.to_uppercase()),
            str::to_string,
        ),
        method: method.to_uppercase(),
        url,
        headers,
        body,
    })
}

/// `example`, or the first of `examples` (3.0 media/parameter objects: a
/// map of Example objects; 3.1 schemas: an array).
fn example(doc: &Value, v: &Value) -> Option<Value> {
    if let Some(x) = v.get("example") {
        return Some(x.clone());
    }
    match v.get("examples")? {
        Value::Object(m) => m
            .values()
            .next()
            .map(|e| deref(doc, e))
            .and_then(|e| e.get("value").cloned()),
        Value::Array(a) => a.first().cloned(),
        _ => None,
    }
}

fn param_value(doc: &Value, p: &Value) -> Value {
    example(doc, p).unwrap_or_else(|| {
        let schema = p.get("schema").unwrap_or(&Value::Null);
        generate(doc, schema, 0)
    })
}

/// A deterministic value valid for `schema`.
fn generate(doc: &Value, schema: &Value, depth: usize) -> Value {
    let s = deref(doc, schema);
    if depth > 8 {
        return Value::Null;
    }
    if let Some(x) = example(doc, s)
        .or_else(|| s.get("default").cloned())
        .or_else(|| s.get("const").cloned())
        .or_else(|| s["enum"].get(0).cloned())
    {
        return x;
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        let mut m = Map::new();
        for part in all {
            if let Value::Object(o) = generate(doc, part, depth + 1) {
                m.extend(o);
            }
        }
        return Value::Object(m);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = s[key].get(0) {
            return generate(doc, first, depth + 1);
        }
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if s.get("properties").is_some() => "object",
        _ if s.get("items").is_some() => "array",
        _ => "string",
    };
    match ty {
        "integer" | "number" => number(s, ty == "integer"),
        "boolean" => json!(true),
        "null" => Value::Null,
        "array" => {
            let n = s
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1);
            let item = generate(doc, s.get("items").unwrap_or(&Value::Null), depth + 1);
            Value::Array(vec![item; n as usize])
        }
        "object" => {
            let mut m = Map::new();
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (k, v) in props {
                    m.insert(k.clone(), generate(doc, v, depth + 1));
                }
            }
            Value::Object(m)
        }
        _ => Value::String(string(s)),
    }
}

fn number(s: &Value, integer: bool) -> Value {
    let f = |k: &str| s.get(k).and_then(Value::as_f64);
    let step = if integer { 1.0 } else { 0.5 };
    let mut lo = f("minimum").unwrap_or(1.0);
    // 3.0: exclusiveMinimum is a flag; 3.1: a number.
    match s.get("exclusiveMinimum") {
        Some(Value::Bool(true)) => lo += step,
        Some(Value::Number(n)) => lo = n.as_f64().unwrap_or(lo) + step,
        _ => {}
    }
    let hi = match (s.get("exclusiveMaximum"), f("maximum")) {
        (Some(Value::Number(n)), _) => n.as_f64().map(|m| m - step),
        (Some(Value::Bool(true)), Some(m)) => Some(m - step),
        (_, m) => m,
    };
    let v = match hi {
        Some(h) if lo > h => h,
        _ => lo,
    };
    if integer {
        json!(v.ceil() as i64)
    } else {
        json!(v)
    }
}

fn string(s: &Value) -> String {
    let base = match s.get("format").and_then(Value::as_str) {
        Some("uuid") => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
        Some("date") => "2024-01-15",
        Some("date-time") => "2024-01-15T10:00:00Z",
        Some("email") => "user@example.com",
        Some("uri" | "url") => "https://example.com/",
        Some("hostname") => "example.com",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        Some("byte") => "c3RyaW5n",
        Some("password") => "secret",
        _ => "string",
    };
    let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = s
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let mut out = base.to_string();
    while out.len() < min {
        out.push('x');
    }
    if let Some(m) = max.filter(|m| out.len() > *m && s.get("format").is_none()) {
        out.truncate(m.max(min));
    }
    out
}

/// Percent-encodes what may not stand in a path segment or query value.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out += &format!("%{b:02X}");
        }
    }
    out
}

/// The targets file, bodies written beside it in `STEM.bodies/`.
fn targets_text(ops: &[Op], targets: &Path, file: &str) -> Result<String, CliError> {
    let stem = targets
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("api");
    let bodies = format!("{stem}.bodies");
    let mut out = format!(
        "# loadlab attack -targets=FILE: the {n} operations of {file}, one request each, grouped by tag\n",
        n = ops.len()
    );
    let mut tag = None;
    for (i, op) in ops.iter().enumerate() {
        if tag != Some(&op.tag) {
            out += &format!("\n# tag: {}\n", op.tag);
            tag = Some(&op.tag);
        }
        out += &format!("# {}\n{} {}\n", op.id, op.method, op.url);
        for (k, v) in &op.headers {
            out += &format!("{k}: {v}\n");
        }
        if let Some(body) = &op.body {
            let dir = targets.with_file_name(&bodies);
            std::fs::create_dir_all(&dir)
                .map_err(|e| CliError::io(format!("cannot create {}: {e}", dir.display())))?;
            let name = format!("{:03}.json", i + 1);
            write(&dir.join(&name).display().to_string(), body)?;
            out += &format!("@{bodies}/{name}\n");
        }
        out.push('\n');
    }
    Ok(out)
}

/// A study plan hitting every operation equally often.
fn plan_text(a: &Convert, stem: &str, targets: &Path, n: usize) -> String {
    let r = n.max(5) as u64;
    super::plan_name::PlanText {
        comment: &[
            format!(
                "Every operation of {} (loadlab import openapi --to plan), each",
                a.file
            ),
            "one request of the mix, equally weighted.".into(),
        ],
        stem,
        question: format!(
            "How does the API of {} hold an even mix of its {n} operations?",
            a.file
        ),
        target: "api",
        targets,
        weights: Some(vec!["1"; n].join(", ")),
        rates: &[r, r * 2],
        step: "30s",
        warmup: "2s",
        cooldown: None,
        repetitions: 1,
        success: "99%",
    }
    .render()
}

fn write(path: &str, text: &str) -> Result<(), CliError> {
    if path == "stdout" || path == "-" {
        use std::io::Write;
        std::io::stdout().write_all(text.as_bytes())
    } else {
        std::fs::write(path, text)
    }
    .map_err(|e| CliError::io(format!("cannot write {path}: {e}")))
}

//! How `console.log` shows values, as k6's console does.

use rquickjs::{Ctx, Value};

/// How `console.log` shows a value: strings as they are, objects as JSON.
pub(crate) fn display<'js>(ctx: &Ctx<'js>, v: &Value<'js>) -> String {
    if let Some(s) = v.as_string() {
        return s.to_string().unwrap_or_default();
    }
    if v.is_undefined() {
        return "undefined".into();
    }
    if v.is_null() {
        return "null".into();
    }
    if v.is_function() {
        return "[object Function]".into();
    }
    let coerced = |v: &Value<'js>| {
        v.get::<rquickjs::convert::Coerced<String>>()
            .map(|c| c.0)
            .ok()
    };
    if v.as_exception().is_some() {
        // `Error: message`, as String(e).
        return coerced(v).unwrap_or_else(|| "Error".into());
    }
    if v.is_object() {
        // As k6 prints objects: `{ a: 1, b: [ 2 ] }`.
        let mut out = String::new();
        inspect(ctx, v, &mut out, 0);
        return out;
    }
    coerced(v).unwrap_or_else(|| format!("{v:?}"))
}

/// A value inside an object as k6's console shows it: `{ a: 1, b: "x" }`,
/// `[ 1, 2 ]`, keys bare, `undefined` as `null`;
/// an object with `toJSON` (a Date, a response) as its JSON.
fn inspect<'js>(ctx: &Ctx<'js>, v: &Value<'js>, out: &mut String, depth: usize) {
    let quote = |s: &str, out: &mut String| {
        out.push_str(&serde_json::to_string(s).unwrap_or_default());
    };
    if depth > 32 {
        out.push_str("null");
    } else if let Some(s) = v.as_string() {
        quote(&s.to_string().unwrap_or_default(), out);
    } else if v.is_undefined() || v.is_null() || v.is_function() {
        out.push_str("null");
    } else if let Some(a) = v.as_array() {
        if a.is_empty() {
            out.push_str("[]");
            return;
        }
        out.push_str("[ ");
        for (i, e) in a.iter::<Value>().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match e {
                Ok(e) => inspect(ctx, &e, out, depth + 1),
                Err(_) => out.push_str("null"),
            }
        }
        out.push_str(" ]");
    } else if let Some(o) = v.as_object() {
        if o.get::<_, Value>("toJSON").is_ok_and(|f| f.is_function()) {
            let json = ctx
                .json_stringify(v.clone())
                .ok()
                .flatten()
                .and_then(|s| s.to_string().ok())
                .and_then(|s| ctx.json_parse(s).ok());
            // Parsed JSON holds no functions: no `toJSON` again below.
            match json {
                Some(j) => inspect(ctx, &j, out, depth + 1),
                None => out.push_str("null"),
            }
            return;
        }
        let props: Vec<(String, Value)> = o.props::<String, Value>().flatten().collect();
        if props.is_empty() {
            out.push_str("{}");
            return;
        }
        out.push_str("{ ");
        for (i, (k, e)) in props.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            // Keys bare, whatever they hold, as k6 prints them.
            out.push_str(k);
            out.push_str(": ");
            inspect(ctx, e, out, depth + 1);
        }
        out.push_str(" }");
    } else {
        out.push_str(
            &v.get::<rquickjs::convert::Coerced<String>>()
                .map(|c| c.0)
                .unwrap_or_default(),
        );
    }
}

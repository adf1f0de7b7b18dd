//! The SLO's success ratio as written: `99.9%`, `"99.9%"` or `0.999`.

/// `99.9%`, `"99.9%"`, `0.999` → 0.999.
pub(super) fn parse_ratio(v: &serde_norway::Value) -> Result<f64, String> {
    let x = match v {
        serde_norway::Value::Number(n) => n.as_f64().ok_or("not a number")?,
        serde_norway::Value::String(s) => {
            let s = s.trim();
            match s.strip_suffix('%') {
                Some(p) => {
                    // `99.9%` is the decimal 0.999 (read as `99.9e-2`), not
                    // 99.9 / 100 = 0.9990000000000001, which 999 of 1000 fails.
                    let p = p.trim();
                    let x = if p.contains(['e', 'E']) {
                        p.parse::<f64>().map(|x| x / 100.0)
                    } else {
                        format!("{p}e-2").parse::<f64>()
                    };
                    x.map_err(|_| format!("invalid percentage {s:?}"))?
                }
                None => s
                    .parse::<f64>()
                    .map_err(|_| format!("invalid ratio {s:?}"))?,
            }
        }
        _ => return Err("expected a ratio like 0.999 or \"99.9%\"".into()),
    };
    if !(0.0..=1.0).contains(&x) {
        return Err(format!("ratio {x} is outside 0..1 (write 99.9% or 0.999)"));
    }
    Ok(x)
}

//! Hypotheses in a small readable grammar:
//!
//! ```text
//! hypothesis := operand OP operand [ "within" MARGIN ] [ "at" "rate" [CMP] NUMBER ]
//! operand    := TARGET "." METRIC | NUMBER [ "ms" | "s" | "us" | "%" ]
//! OP         := "<" | "<=" | ">" | ">=" | "≈" | "~=" | "=="
//! CMP        := "<" | "<=" | ">" | ">=" | "=="   (default "==")
//! METRIC     := mean | p50 | p90 | p95 | p99 | max | success | throughput | cpu | ceiling
//! ```
//!
//! e.g. `c6g.p99 < c5.p99 at rate <= 1000`, `c6g.success >= c5.success`,
//! `c5.p99 < 200ms`, `c6g.ceiling > c5.ceiling`, `multi.p99 ≈ single.p99 within 5%`.
//!
//! `within MARGIN` (for `<=`, `>=` and `≈` between two targets) is the
//! margin of a non-inferiority (`<=`, `>=`) or equivalence (`≈`, also
//! written `~=` or `==`) test. It is either in the metric's unit
//! (`within 2ms` for latency, `within 50` req/s for throughput, `within 3`
//! CPU points) or, written with `%` on latency, throughput or cpu, relative
//! to B: `A ≈ B within 5%` claims `0.95 ≤ A/B ≤ 1.05` (tested on ln A − ln B
//! at each rate, see [`crate::relative`]). For `success`, a ratio, `%` is
//! percentage points: `A >= B within 0.5%` claims "A is not lower than B by
//! more than 0.5 points". Without it the margin is 0, so `>=` needs evidence
//! that A is higher; `≈` needs a margin.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Metric {
    Mean,
    P50,
    P90,
    P95,
    P99,
    Max,
    /// Success ratio, 0..1.
    Success,
    /// Successful responses per second.
    Throughput,
    /// Mean CPU % of the monitored process.
    Cpu,
    /// Highest rate within the SLO (one value per target, from the ceiling search).
    Ceiling,
}

impl Metric {
    pub const ALL: [(&'static str, Metric); 12] = [
        ("mean", Metric::Mean),
        ("p50", Metric::P50),
        ("p90", Metric::P90),
        ("p95", Metric::P95),
        ("p99", Metric::P99),
        ("max", Metric::Max),
        ("success", Metric::Success),
        ("throughput", Metric::Throughput),
        ("cpu", Metric::Cpu),
        ("ceiling", Metric::Ceiling),
        // Transactions (sysbench) or requests per second by their usual names.
        ("tps", Metric::Throughput),
        ("rps", Metric::Throughput),
    ];
    pub fn name(self) -> &'static str {
        Metric::ALL
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("?", |(n, _)| n)
    }
    /// Latency metrics are stored in nanoseconds.
    pub fn is_latency(self) -> bool {
        matches!(
            self,
            Metric::Mean | Metric::P50 | Metric::P90 | Metric::P95 | Metric::P99 | Metric::Max
        )
    }
    /// Formats a value of this metric for people.
    pub fn fmt_value(self, v: f64) -> String {
        if self.is_latency() {
            format!("{:.3}ms", v / 1e6)
        } else if self == Metric::Success {
            format!("{:.2}%", v * 100.0)
        } else if self == Metric::Cpu {
            format!("{v:.1}%")
        } else {
            format!("{v:.2}")
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
}

impl Cmp {
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
        }
    }
    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Operand {
    Target {
        target: String,
        metric: Metric,
    },
    /// A constant in the metric's unit (nanoseconds for latencies, 0..1 for success).
    Const(f64),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hypothesis {
    pub text: String,
    pub left: Operand,
    pub op: Cmp,
    pub right: Operand,
    /// Restricts the evidence to sweep rates satisfying `rate CMP N`.
    pub at_rate: Option<(Cmp, u64)>,
    /// Non-inferiority / equivalence margin, in the metric's unit (`within`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// A relative margin instead (`within 5%` on latency, throughput or
    /// cpu): the fraction of B, 0.05, with A/B claimed within 1 ± 0.05.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_relative: Option<f64>,
}

impl fmt::Display for Hypothesis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

fn tokenize(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else if c == '≈' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            out.push(c.to_string());
        } else if matches!(c, '<' | '>' | '=' | '!' | '~') {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            let mut op = c.to_string();
            if chars.peek() == Some(&'=') {
                op.push('=');
                chars.next();
            }
            out.push(op);
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn parse_cmp(t: &str) -> Option<Cmp> {
    Some(match t {
        "<" => Cmp::Lt,
        "<=" => Cmp::Le,
        ">" => Cmp::Gt,
        ">=" => Cmp::Ge,
        "==" | "=" => Cmp::Eq,
        _ => return None,
    })
}

/// The comparison between the two sides: also `≈` (or `~=`), an equivalence.
fn parse_op(t: &str) -> Option<Cmp> {
    match t {
        "≈" | "~=" => Some(Cmp::Eq),
        _ => parse_cmp(t),
    }
}

/// A margin after `within`, for `metric`: (in the metric's unit, relative).
fn parse_margin(tok: &str, metric: Metric) -> Result<(Option<f64>, Option<f64>), String> {
    let example = if metric == Metric::Success {
        "`within 0.5%`"
    } else if metric.is_latency() {
        "`within 5%` or `within 2ms`"
    } else {
        "`within 5%` or `within 50`"
    };
    let Ok(Operand::Const(m)) = parse_operand(tok, &[]) else {
        return Err(format!(
            "expected a margin after `within` (e.g. {example}), got {tok:?}"
        ));
    };
    if m < 0.0 {
        return Err("the margin after `within` must not be negative".into());
    }
    let timed = ["ms", "us", "µs", "s"].iter().any(|u| tok.ends_with(u));
    if tok.ends_with('%') {
        if metric == Metric::Success {
            // A ratio: percentage points.
            return Ok((Some(m), None));
        }
        if m >= 1.0 {
            return Err(format!("a relative margin must be below 100%, got {tok:?}"));
        }
        return Ok((None, Some(m)));
    }
    if metric.is_latency() && !timed {
        return Err(format!(
            "a latency margin needs a unit or a percentage (e.g. {example}), got {tok:?}"
        ));
    }
    if !metric.is_latency() && timed {
        return Err(format!(
            "a {} margin is not a time (e.g. {example}), got {tok:?}",
            metric.name()
        ));
    }
    Ok((Some(m), None))
}

fn parse_metric(m: &str) -> Result<Metric, String> {
    Metric::ALL
        .iter()
        .find(|(n, _)| *n == m)
        .map(|(_, x)| *x)
        .ok_or_else(|| {
            let names = Metric::ALL.iter().map(|(n, _)| *n);
            match crate::suggest::suggest(m, names) {
                Some(s) => format!("unknown metric {m:?} (did you mean {s:?}?)"),
                None => format!("unknown metric {m:?}"),
            }
        })
}

fn parse_operand(t: &str, targets: &[&str]) -> Result<Operand, String> {
    if let Some((target, metric)) = t.split_once('.')
        && !target.chars().next().is_some_and(|c| c.is_ascii_digit())
    {
        if !targets.contains(&target) {
            return Err(
                match crate::suggest::suggest(target, targets.iter().copied()) {
                    Some(s) => format!("unknown target {target:?} (did you mean {s:?}?)"),
                    None => format!(
                        "unknown target {target:?} (targets: {})",
                        targets.join(", ")
                    ),
                },
            );
        }
        return Ok(Operand::Target {
            target: target.into(),
            metric: parse_metric(metric)?,
        });
    }
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix("us").or_else(|| t.strip_suffix("µs")) {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix('%') {
        (n, 0.01)
    } else {
        (t, 1.0)
    };
    num.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map(|x| Operand::Const(x * scale))
        .ok_or_else(|| format!("expected TARGET.METRIC or a number, got {t:?}"))
}

/// A constant written in % compared with `cpu` (percent of a core), as
/// the percentage it reads as.
fn cpu_percent(o: Operand, tok: &str, other: &Operand) -> Operand {
    match (o, other) {
        (Operand::Const(v), Operand::Target { metric, .. })
            if *metric == Metric::Cpu && tok.ends_with('%') =>
        {
            Operand::Const(v * 100.0)
        }
        (o, _) => o,
    }
}

/// Whether `within` may follow `left op right`: the metric it is a margin of.
fn check_within(op: Cmp, left: &Operand, right: &Operand) -> Result<Metric, String> {
    if !matches!(op, Cmp::Le | Cmp::Ge | Cmp::Eq) {
        return Err(format!(
            "`within` applies to <=, >= and ≈ (a margin of non-inferiority or equivalence), not {}",
            op.symbol()
        ));
    }
    match (left, right) {
        (Operand::Target { metric, .. }, Operand::Target { .. }) => Ok(*metric),
        _ => Err(
            "`within` compares two targets; against a constant, move the constant instead".into(),
        ),
    }
}

impl Hypothesis {
    /// Parses one hypothesis; `targets` are the plan's target names.
    pub fn parse(text: &str, targets: &[&str]) -> Result<Hypothesis, String> {
        Self::parse_on(text, targets, "rate")
    }

    /// Parses one hypothesis of a plan whose steps vary `axis` (`rate`,
    /// `threads`, `vus` or an environment variable): `at AXIS [OP] N`.
    pub fn parse_on(text: &str, targets: &[&str], axis: &str) -> Result<Hypothesis, String> {
        let toks = tokenize(text);
        if toks.len() < 3 {
            return Err("expected `A.metric OP B.metric [at rate OP N]`".into());
        }
        let left = parse_operand(&toks[0], targets)?;
        let op = parse_op(&toks[1])
            .ok_or_else(|| format!("expected a comparison (<, <=, >, >=, ≈), got {:?}", toks[1]))?;
        let approx = matches!(toks[1].as_str(), "≈" | "~=");
        let right = parse_operand(&toks[2], targets)?;
        // `cpu` is in percent of a core: `cpu < 50%` means 50, not 0.5.
        let left_cpu = left.clone();
        let left = cpu_percent(left, &toks[0], &right);
        let right = cpu_percent(right, &toks[2], &left_cpu);
        if approx {
            match (&left, &right) {
                (Operand::Target { metric, .. }, Operand::Target { .. })
                    if *metric == Metric::Ceiling =>
                {
                    return Err(
                        "≈ does not apply to `ceiling` (ceilings are compared as brackets)".into(),
                    );
                }
                (Operand::Target { .. }, Operand::Target { .. }) => {}
                _ => {
                    return Err("≈ compares two targets; against a constant, use <= or >=".into());
                }
            }
        }
        let ((margin, margin_relative), toks) = if toks.get(3).map(String::as_str) == Some("within")
        {
            let within = check_within(op, &left, &right)?;
            let m_tok = toks
                .get(4)
                .ok_or("expected a margin after `within` (e.g. `within 5%`, `within 2ms`)")?;
            let parsed = parse_margin(m_tok, within)?;
            let mut rest = toks[..3].to_vec();
            rest.extend_from_slice(&toks[5..]);
            (parsed, rest)
        } else {
            if approx {
                return Err("≈ needs a margin: within 5% or within 2ms".into());
            }
            ((None, None), toks)
        };
        let at_rate = match toks.get(3).map(String::as_str) {
            None => None,
            Some("at") => {
                if toks.get(4).map(String::as_str) != Some(axis) {
                    return Err(format!("expected `at {axis} [OP] N`"));
                }
                let (cmp, n) = match toks.get(5).and_then(|t| parse_cmp(t)) {
                    Some(c) => (c, toks.get(6)),
                    None => (Cmp::Eq, toks.get(5)),
                };
                let n = n
                    .and_then(|n| n.parse::<u64>().ok())
                    .ok_or_else(|| format!("expected a number after `at {axis}`"))?;
                let used = if toks.get(5).and_then(|t| parse_cmp(t)).is_some() {
                    7
                } else {
                    6
                };
                if toks.len() > used {
                    return Err(format!("unexpected {:?} at the end", toks[used]));
                }
                Some((cmp, n))
            }
            Some(other) => {
                return Err(format!(
                    "unexpected {other:?}; expected `within MARGIN` or `at {axis} ...`"
                ));
            }
        };
        let h = Hypothesis {
            text: text.trim().to_string(),
            left,
            op,
            right,
            at_rate,
            margin,
            margin_relative,
        };
        match (&h.left, &h.right) {
            (Operand::Const(_), Operand::Const(_)) => {
                return Err("at least one side must be TARGET.METRIC".into());
            }
            (Operand::Target { metric: a, .. }, Operand::Target { metric: b, .. }) if a != b => {
                return Err(format!(
                    "both sides must use the same metric ({} vs {})",
                    a.name(),
                    b.name()
                ));
            }
            _ => {}
        }
        if (h.margin.is_some() || h.margin_relative.is_some()) && h.metric() == Metric::Ceiling {
            return Err(
                "`within` does not apply to `ceiling` (ceilings are compared as brackets)".into(),
            );
        }
        Ok(h)
    }

    pub fn metric(&self) -> Metric {
        match (&self.left, &self.right) {
            (Operand::Target { metric, .. }, _) | (_, Operand::Target { metric, .. }) => *metric,
            _ => Metric::P99,
        }
    }

    pub fn needs_ceiling(&self) -> bool {
        self.metric() == Metric::Ceiling
    }

    /// True when `rate` is within the hypothesis' `at rate` restriction.
    pub fn covers_rate(&self, rate: u64) -> bool {
        self.at_rate
            .is_none_or(|(c, n)| c.holds(rate as f64, n as f64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const T: &[&str] = &["c5", "c6g"];

    #[test]
    fn parses_the_seed_hypotheses() {
        let h = Hypothesis::parse("c6g.p99 < c5.p99 at rate <= 1000", T).unwrap();
        assert_eq!(h.op, Cmp::Lt);
        assert_eq!(h.at_rate, Some((Cmp::Le, 1000)));
        assert!(h.covers_rate(1000) && !h.covers_rate(1100));
        let h = Hypothesis::parse("c6g.success >= c5.success", T).unwrap();
        assert_eq!(h.metric(), Metric::Success);
        assert_eq!(h.at_rate, None);
        let h = Hypothesis::parse("c5.p99<=200ms at rate 400", T).unwrap();
        assert_eq!(h.right, Operand::Const(200e6));
        assert_eq!(h.at_rate, Some((Cmp::Eq, 400)));
    }

    #[test]
    fn a_cpu_bound_in_percent_reads_as_percent() {
        // CPU is stored in percent of a core: 50% is 50, as 50 is.
        let h = Hypothesis::parse("c5.cpu < 50%", T).unwrap();
        assert_eq!(h.right, Operand::Const(50.0));
        let h = Hypothesis::parse("c5.cpu < 50", T).unwrap();
        assert_eq!(h.right, Operand::Const(50.0));
        // A success ratio keeps its meaning: 99% is 0.99.
        let h = Hypothesis::parse("c5.success >= 99%", T).unwrap();
        assert_eq!(h.right, Operand::Const(0.99));
    }

    #[test]
    fn parses_a_margin() {
        let h = Hypothesis::parse("c6g.success >= c5.success within 0.5%", T).unwrap();
        assert_eq!((h.op, h.margin, h.at_rate), (Cmp::Ge, Some(0.005), None));
        let h = Hypothesis::parse("c6g.p99 <= c5.p99 within 2ms at rate <= 200", T).unwrap();
        assert_eq!(h.margin, Some(2e6));
        assert_eq!(h.at_rate, Some((Cmp::Le, 200)));
        assert_eq!(
            Hypothesis::parse("c6g.p99 < c5.p99", T).unwrap().margin,
            None
        );
        for bad in [
            "c6g.p99 < c5.p99 within 2ms",
            "c6g.p99 <= c5.p99 within 2",
            "c6g.throughput <= c5.throughput within 2ms",
            "c6g.p99 <= c5.p99 within 100%",
            "c6g.p99 <= 200ms within 2ms",
            "c6g.success >= c5.success within",
            "c6g.success >= c5.success within lots",
            "c6g.ceiling >= c5.ceiling within 10",
            "c6g.success >= c5.success at rate 400 within 1%",
        ] {
            assert!(Hypothesis::parse(bad, T).is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_an_equivalence_with_an_absolute_or_a_relative_margin() {
        for text in [
            "c6g.p99 ≈ c5.p99 within 5%",
            "c6g.p99≈c5.p99 within 5%",
            "c6g.p99 ~= c5.p99 within 5%",
            "c6g.p99 == c5.p99 within 5%",
        ] {
            let h = Hypothesis::parse(text, T).unwrap();
            assert_eq!(h.op, Cmp::Eq, "{text}");
            assert_eq!((h.margin, h.margin_relative), (None, Some(0.05)), "{text}");
        }
        let h = Hypothesis::parse("c6g.p99 ≈ c5.p99 within 2ms at rate <= 200", T).unwrap();
        assert_eq!((h.margin, h.margin_relative), (Some(2e6), None));
        assert_eq!(h.at_rate, Some((Cmp::Le, 200)));
        // Success is a ratio: `%` stays percentage points.
        let h = Hypothesis::parse("c6g.success ≈ c5.success within 0.5%", T).unwrap();
        assert_eq!((h.margin, h.margin_relative), (Some(0.005), None));
        // Throughput and cpu: relative with `%`, in their unit without.
        let h = Hypothesis::parse("c6g.rps ≈ c5.rps within 10%", T).unwrap();
        assert_eq!((h.margin, h.margin_relative), (None, Some(0.1)));
        let h = Hypothesis::parse("c6g.throughput >= c5.throughput within 50", T).unwrap();
        assert_eq!((h.margin, h.margin_relative), (Some(50.0), None));
        let h = Hypothesis::parse("c6g.cpu <= c5.cpu within 5%", T).unwrap();
        assert_eq!((h.op, h.margin_relative), (Cmp::Le, Some(0.05)));
        // Non-inferiority with a relative margin.
        let h = Hypothesis::parse("c6g.p99 <= c5.p99 within 5%", T).unwrap();
        assert_eq!((h.op, h.margin_relative), (Cmp::Le, Some(0.05)));
    }

    #[test]
    fn an_equivalence_without_a_margin_says_what_is_missing() {
        for text in [
            "c6g.p99 ≈ c5.p99",
            "c6g.p99 ~= c5.p99",
            "c6g.p99 ≈ c5.p99 at rate 400",
        ] {
            assert_eq!(
                Hypothesis::parse(text, T).unwrap_err(),
                "≈ needs a margin: within 5% or within 2ms",
                "{text}"
            );
        }
        let e = Hypothesis::parse("c6g.p99 ≈ 200ms within 5%", T).unwrap_err();
        assert!(e.contains("two targets"), "{e}");
        let e = Hypothesis::parse("c6g.ceiling ≈ c5.ceiling", T).unwrap_err();
        assert!(e.contains("ceiling"), "{e}");
        // `≈` is not a rate condition.
        assert!(Hypothesis::parse("c6g.p99 < c5.p99 at rate ≈ 400", T).is_err());
        // `==` without a margin keeps its meaning (an equivalence within 0).
        let h = Hypothesis::parse("c6g.p99 == c5.p99", T).unwrap();
        assert_eq!((h.op, h.margin, h.margin_relative), (Cmp::Eq, None, None));
    }

    #[test]
    fn rejects_with_suggestions() {
        let e = Hypothesis::parse("c6x.p99 < c5.p99", T).unwrap_err();
        assert!(e.contains("did you mean \"c6g\""), "{e}");
        let e = Hypothesis::parse("c6g.p98 < c5.p99", T).unwrap_err();
        assert!(e.contains("unknown metric"), "{e}");
        assert!(Hypothesis::parse("c6g.p99 < c5.mean", T).is_err());
        assert!(Hypothesis::parse("c6g.p99 ~ c5.p99", T).is_err());
        assert!(Hypothesis::parse("c6g.p99 < c5.p99 at rate <= x", T).is_err());
        assert!(Hypothesis::parse("1 < 2", T).is_err());
    }
}

//! The equivalent `loadlab attack` command line of a run, shown in the
//! report so that a run can be repeated by hand.
//!
//! It is rendered forwards from the engine's configuration of the run
//! ([`LoadPlan::attack_config`](crate::plan::LoadPlan::attack_config), the
//! one the runner uses): every setting that differs from `loadlab attack`'s
//! defaults becomes its flag, so the line cannot drift from the run. The
//! requests are fed as `attack` reads them: one on `echo`, several as a
//! targets list on `printf` (one argument a line), bodies written to files
//! first by the line itself.

use loadlab_core::{PacerSpec, Rate, format_go_duration};
use loadlab_engine::{AttackConfig, DnsCache};

use crate::origins::Origins;
use crate::plan::{Plan, RequestPlan};
use crate::secrets::shell_quoted;

/// Bodies up to this size are written by the command line itself; a larger
/// one is only named (the line is repeated for every run of the report).
const INLINE_BODY: usize = 4096;

/// The equivalent `loadlab attack` command line of one run of a target at
/// `rate` (`None`: `-rate=X`, for a line standing for every step).
/// Credentials are redacted (see [`Plan::redacted`]); `${NAME}` references
/// are kept, so the shell expands them when the line is run; the in-process
/// origins are shown as `origins` has them ([`Origins::shown`]).
pub fn attack_command(plan: &Plan, target: &str, rate: Option<Rate>, origins: &Origins) -> String {
    let plan = &plan.redacted();
    let Some(t) = plan.target(target) else {
        return String::new();
    };
    if !t.members.is_empty() {
        return format!(
            "# concurrent: {} at the same time (their lines, each with one -start-at)",
            t.members.join(", ")
        );
    }
    // A group's member with a level of its own runs at it in every step.
    let rate = rate.map(|r| t.level.map_or(r, Rate::per_second));
    if let Some(w) = &t.workload {
        let level = rate.map_or("X".to_string(), |r| r.freq.to_string());
        let words = w.command(&plan.load.axis, &level, plan.load.step);
        return words
            .iter()
            .map(|a| {
                let a = origins.expand(a);
                if a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_./:=,@%+-".contains(c))
                {
                    a
                } else {
                    shell_quoted(&a)
                }
            })
            .collect::<Vec<_>>()
            .join(" ");
    }
    if let Some(r) = &t.replay {
        return replay_command(plan, r, rate, origins);
    }
    let mut cfg = plan.load.attack_config(rate.unwrap_or(Rate::per_second(1)));
    cfg.weights = t.weights();
    let url = |r: &RequestPlan| origins.expand(&r.url);
    let body = |r: &RequestPlan| r.body.clone().filter(|b| !b.is_empty());
    // Files the line writes (or, too large, only names) before the attack.
    let mut files: Vec<(String, String)> = Vec::new();
    let mut flags: Vec<String> = Vec::new();
    let input = match t.requests.as_slice() {
        [r] => {
            for (k, v) in &r.headers {
                flags.push(format!("-header={}", shell_quoted(&format!("{k}: {v}"))));
            }
            if let Some(b) = body(r) {
                files.push(("body.txt".into(), b));
                flags.push("-body=body.txt".into());
            }
            format!("echo {}", shell_quoted(&format!("{} {}", r.method, url(r))))
        }
        requests => {
            let mut lines: Vec<String> = Vec::new();
            for (i, r) in requests.iter().enumerate() {
                if i > 0 {
                    lines.push(String::new());
                }
                lines.push(format!("{} {}", r.method, url(r)));
                lines.extend(r.headers.iter().map(|(k, v)| format!("{k}: {v}")));
                if let Some(b) = body(r) {
                    let name = format!("body-{}.txt", i + 1);
                    lines.push(format!("@{name}"));
                    files.push((name, b));
                }
            }
            let words: Vec<String> = lines.iter().map(|l| shell_quoted(l)).collect();
            format!("printf '%s\\n' {}", words.join(" "))
        }
    };
    let rate = match rate {
        Some(_) => None,
        None => Some("X"),
    };
    flags.extend(attack_flags(&cfg, rate));
    let mut cmd = String::new();
    let mut untold = Vec::new();
    for (name, b) in &files {
        if b.len() <= INLINE_BODY {
            cmd.push_str(&format!("printf {} > {name} && ", printf_format(b)));
        } else {
            untold.push(format!("{name} holds a {}-byte body", b.len()));
        }
    }
    cmd.push_str(&format!(
        "{input} | loadlab attack {} | tee results.bin | loadlab report",
        flags.join(" ")
    ));
    if !untold.is_empty() {
        cmd.push_str(&format!("  # {} (see the plan)", untold.join(", ")));
    }
    cmd
}

/// The line of a replay target's run at the step's `rate` (its speed):
/// `-replay` and its options instead of targets and `-rate`.
fn replay_command(
    plan: &Plan,
    r: &crate::replay::ReplayPlan,
    rate: Option<Rate>,
    origins: &Origins,
) -> String {
    let speed = r.speed.or(rate.map(|x| x.freq as f64));
    let cfg = plan.load.attack_config(Rate::per_second(1));
    let mut flags: Vec<String> = r
        .flags(speed)
        .into_iter()
        .map(|f| origins.expand(&f))
        .collect();
    flags.extend(
        attack_flags(&cfg, None)
            .into_iter()
            .filter(|f| !f.starts_with("-rate=")),
    );
    let words: Vec<String> = flags
        .iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_./:=,@%+-".contains(c))
            {
                a.clone()
            } else {
                shell_quoted(a)
            }
        })
        .collect();
    format!(
        "loadlab attack {} | tee results.bin | loadlab report",
        words.join(" ")
    )
}

/// `loadlab attack`'s flags for `cfg`: `-duration`, `-rate` and `-workers`
/// always, every other setting when it differs from the default. `rate`
/// stands in for the pacer's rate when given (`X`).
pub fn attack_flags(cfg: &AttackConfig, rate: Option<&str>) -> Vec<String> {
    let d = AttackConfig::default();
    let dur = |x: std::time::Duration| format_go_duration(x);
    let rate = match (rate, &cfg.pacer) {
        (Some(r), _) => r.to_string(),
        (None, PacerSpec::Constant(r)) if r.per == std::time::Duration::from_secs(1) => {
            r.freq.to_string()
        }
        (None, PacerSpec::Constant(r)) => r.to_string(),
        // A study's runs are constant-rate; other shapes have no one flag.
        (None, other) => format!("{other:?}"),
    };
    let mut f = vec![
        format!("-duration={}", cfg.duration.map_or("0s".into(), dur)),
        format!("-rate={rate}"),
        format!("-workers={}", cfg.workers),
    ];
    let mut on = |cond: bool, flag: String| {
        if cond {
            f.push(flag);
        }
    };
    on(
        cfg.max_workers.is_some(),
        format!("-max-workers={}", cfg.max_workers.unwrap_or(0)),
    );
    on(
        cfg.connections != d.connections,
        format!("-connections={}", cfg.connections),
    );
    on(
        cfg.max_connections.is_some(),
        format!("-max-connections={}", cfg.max_connections.unwrap_or(0)),
    );
    on(
        cfg.timeout != d.timeout,
        format!("-timeout={}", dur(cfg.timeout)),
    );
    on(
        cfg.keepalive != d.keepalive,
        format!("-keepalive={}", cfg.keepalive),
    );
    on(
        cfg.max_requests.is_some(),
        format!("-max-requests={}", cfg.max_requests.unwrap_or(0)),
    );
    on(
        cfg.redirects != d.redirects,
        format!("-redirects={}", cfg.redirects),
    );
    let weights = cfg.weights.as_ref().map_or(String::new(), |w| {
        w.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    });
    on(cfg.weights.is_some(), format!("-weights={weights}"));
    on(cfg.http2 != d.http2, format!("-http2={}", cfg.http2));
    on(cfg.h2c != d.h2c, format!("-h2c={}", cfg.h2c));
    on(cfg.tls.insecure, "-insecure".into());
    on(cfg.tls.session_tickets, "-session-tickets".into());
    for (flag, p) in [
        ("cert", &cfg.tls.cert),
        ("key", &cfg.tls.key),
        ("unix-socket", &cfg.unix_socket),
    ] {
        if let Some(p) = p {
            f.push(format!(
                "-{flag}={}",
                shell_quoted(&p.display().to_string())
            ));
        }
    }
    if !cfg.tls.root_certs.is_empty() {
        let roots: Vec<String> = cfg
            .tls
            .root_certs
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        f.push(format!("-root-certs={}", shell_quoted(&roots.join(","))));
    }
    for (src, dst) in &cfg.connect_to {
        f.push(format!("-connect-to={src}:{dst}"));
    }
    if let Some(a) = cfg.laddr {
        f.push(format!("-laddr={a}"));
    }
    for (k, v) in &cfg.headers {
        f.push(format!("-header={}", shell_quoted(&format!("{k}: {v}"))));
    }
    let mut on = |cond: bool, flag: String| {
        if cond {
            f.push(flag);
        }
    };
    on(cfg.chunked, "-chunked".into());
    on(
        cfg.compression != d.compression,
        format!("-compression={}", cfg.compression),
    );
    on(
        cfg.max_body != d.max_body,
        format!("-max-body={}", cfg.max_body),
    );
    on(
        cfg.max_headers_size != d.max_headers_size,
        format!("-max-headers-size={}", cfg.max_headers_size),
    );
    on(
        cfg.resolution != d.resolution,
        format!("-resolution={}", dur(cfg.resolution)),
    );
    match cfg.dns_cache {
        DnsCache::Forever => {}
        DnsCache::Off => f.push("-dns-ttl=-1".into()),
        DnsCache::For(t) => f.push(format!("-dns-ttl={}", dur(t))),
    }
    f
}

/// `body` as a single-quoted `printf` format that prints it back exactly:
/// `%` and `\` doubled, `'` closed and reopened, control characters as escapes.
fn printf_format(body: &str) -> String {
    let mut out = String::from("'");
    for c in body.chars() {
        match c {
            '\'' => out.push_str("'\\''"),
            '\\' => out.push_str("\\\\"),
            '%' => out.push_str("%%"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn every_setting_becomes_its_flag() {
        let d = AttackConfig::default();
        assert_eq!(
            attack_flags(&d, None),
            ["-duration=0s", "-rate=50", "-workers=10"]
        );
        let cfg = AttackConfig {
            pacer: PacerSpec::Constant(Rate {
                freq: 10,
                per: Duration::from_millis(100),
            }),
            duration: Some(Duration::from_millis(1500)),
            max_requests: Some(7),
            workers: 2,
            max_workers: Some(3),
            connections: 4,
            max_connections: Some(5),
            timeout: Duration::from_secs(2),
            redirects: -1,
            keepalive: false,
            http2: false,
            h2c: true,
            tls: loadlab_engine::TlsOptions {
                insecure: true,
                cert: Some("c.pem".into()),
                key: Some("k.pem".into()),
                root_certs: vec!["a.pem".into(), "b.pem".into()],
                session_tickets: true,
                ..Default::default()
            },
            unix_socket: Some("/tmp/s".into()),
            connect_to: vec![("h:80".into(), "127.0.0.1:8080".into())],
            laddr: Some("127.0.0.2".parse().unwrap()),
            headers: vec![("X-A".into(), "1".into())],
            chunked: true,
            compression: false,
            max_body: 10,
            max_headers_size: 4096,
            resolution: Duration::ZERO,
            dns_cache: DnsCache::Off,
            ..AttackConfig::default()
        };
        assert_eq!(
            attack_flags(&cfg, None).join(" "),
            "-duration=1.5s -rate=10/100ms -workers=2 -max-workers=3 -connections=4 \
             -max-connections=5 -timeout=2s -keepalive=false -max-requests=7 -redirects=-1 \
             -http2=false -h2c=true -insecure -session-tickets -cert=\"c.pem\" -key=\"k.pem\" \
             -unix-socket=\"/tmp/s\" -root-certs=\"a.pem,b.pem\" -connect-to=h:80:127.0.0.1:8080 \
             -laddr=127.0.0.2 -header=\"X-A: 1\" -chunked -compression=false -max-body=10 \
             -max-headers-size=4096 -resolution=0s -dns-ttl=-1"
        );
        assert_eq!(attack_flags(&cfg, Some("X"))[1], "-rate=X");
    }

    #[test]
    fn bodies_print_back_exactly() {
        assert_eq!(
            printf_format("a'b\\c 50% $x `y`\n\t\u{1}é"),
            r"'a'\''b\\c 50%% $x `y`\n\t\001é'"
        );
    }
}
